# A project or HOME below /tmp, which a session replaces with its own: a
# write there that the private /tmp does not carry is refused, never
# accepted into the tmpfs and lost with the session (issue 39, item 1);
# --trace names the grant that would let it through, which then lands on
# the host. A wrapped tool inside such a session knows it is confined and
# runs; outside a session it is confined still (item 2). With both outside
# /tmp, the session's /tmp stays its own and writable.
#
# This world lives below /tmp on purpose (lib.sh keeps the others out).
. "$(dirname "$0")/../lib.sh"

W=$(mktemp -d /tmp/moat-below.XXXXXX) && W=$(cd "$W" && pwd -P) || exit 1
trap 'chmod -R u+rwX "$T" "$W" 2>/dev/null; rm -rf "$T" "$W" "${TMPDECOY:-}"' EXIT
git_init() { git init -q "$1" && git -C "$1" -c user.email=t@t -c user.name=t commit -q --allow-empty -m init; }

# Issue 39's stand-in for an agent: prints its version, or a file it is given.
mkdir -p "$T/bin"
printf '#!/bin/sh\n[ "$1" = --version ] && echo agent-standin-1.0 && exit 0\ncat "$1"\n' >"$T/bin/agent"
chmod +x "$T/bin/agent"

# below_home DIR CMD...: CMD with HOME (and moat's XDG directories) in DIR.
below_home() {
	local h=$1
	shift
	env HOME="$h" XDG_CONFIG_HOME="$h/.config" XDG_STATE_HOME="$h/.local/state" \
		XDG_DATA_HOME="$h/.local/share" "$@"
}

# --- the project below /tmp, HOME outside it ---
git_init "$W/proj"
cd "$W/proj" || exit 1
expect_ok "control: without moat, a write beside the root lands" sh -c 'echo data >../sibling.txt'
[ -f "$W/sibling.txt" ] && ok "control: it is there" || not_ok "control: the sibling was not written"
rm -f "$W/sibling.txt"

expect_denied "root below /tmp: a write beside the root is refused" "$MOAT" run -- sh -c 'echo data >../sibling.txt'
[ ! -e "$W/sibling.txt" ] && ok "and nothing landed on the host" || not_ok "the sibling landed"
expect_ok "a write in the root still lands" "$MOAT" run -- sh -c 'echo in >inside.txt'
[ "$(cat inside.txt 2>/dev/null)" = in ] && ok "on the host" || not_ok "the root's write is not on the host"
expect_ok "TMPDIR (in the root) works" "$MOAT" run -- sh -c 'f=$(mktemp) && echo t >"$f" && cat "$f"'
expect_denied "a write to the private /tmp's top is refused too" "$MOAT" run -- sh -c 'echo x >/tmp/moat-below-new'
expect_denied "and listing it" "$MOAT" run -- ls /tmp

expect_denied "git worktree add ../wt is refused" "$MOAT" run -- git worktree add ../wt
[ ! -e "$W/wt" ] && [ "$(git worktree list --porcelain | grep -c '^worktree ')" = 1 ] &&
	ok "no work tree, and no dangling entry in the repository" || not_ok "worktree state: $(git worktree list)"

run "$MOAT" run --trace -- sh -c 'echo data >../sibling.txt'
expect_out "--trace reports the refusal" "create +$(re_quote "$W/sibling.txt")"
expect_out "with the grant that allows it" "moat allow sh $(re_quote "$W") --write"
expect_ok "that grant" "$MOAT" allow sh "$W" --write
expect_ok "lets the write through" "$MOAT" run -- sh -c 'echo data >../sibling.txt'
[ "$(cat "$W/sibling.txt" 2>/dev/null)" = data ] && ok "onto the host" || not_ok "the granted write was lost"
"$MOAT" unallow sh "$W" >/dev/null 2>&1
rm -f "$W/sibling.txt"

# --- HOME below /tmp, the project outside it ---
H=$W/home
mkdir -p "$H/.ssh" "$H/.cache/tool"
echo DECOY-BELOW-KEY >"$H/.ssh/id_rsa"
cd "$PROJ" || exit 1
expect_ok "grant a directory in HOME --write" below_home "$H" "$MOAT" allow '*' "$H/.cache/tool" --write
expect_ok "home below /tmp: a granted write" below_home "$H" "$MOAT" run -- sh -c "echo c >'$H/.cache/tool/x'"
[ "$(cat "$H/.cache/tool/x" 2>/dev/null)" = c ] && ok "lands on the host" || not_ok "the granted write was lost"
expect_ok "control: without moat, HOME takes a new directory" sh -c "mkdir -p '$H/.probe' && rmdir '$H/.probe'"
expect_denied "an ungranted directory in HOME is refused" below_home "$H" "$MOAT" run -- mkdir -p "$H/.config/tool"
[ ! -e "$H/.config/tool" ] && ok "and nothing landed" || not_ok "it landed on the host"
expect_denied "an ungranted file in HOME too" below_home "$H" "$MOAT" run -- sh -c "echo x >'$H/newfile'"
run below_home "$H" "$MOAT" run -- cat "$H/.ssh/id_rsa"
ran_and_failed && ! grep -q DECOY-BELOW-KEY "$T/.out" && ok "HOME's decoy stays out of reach" ||
	not_ok "HOME's decoy: status $rc, $out"

# The wrapper, HOME below /tmp: its shell lies in HOME, so in the private /tmp.
expect_ok "moat wrap the stand-in" below_home "$H" env PATH="$T/bin:$PATH" "$MOAT" wrap agents agent
expect_ok "grant its directory exec" below_home "$H" "$MOAT" allow agent "$T/bin" --exec
expect_ok "moat run agents -- agent --version" below_home "$H" "$MOAT" run agents -- agent --version
expect_out "the wrapped tool ran, with no second layer" "^agent-standin-1.0$"
AGENT=$H/.local/share/moat/shells/agents/bin/agent
expect_ok "control: the stand-in reads HOME's decoy by itself" "$T/bin/agent" "$H/.ssh/id_rsa"
run below_home "$H" env MOAT_ROOT="$PROJ" "$AGENT" "$H/.ssh/id_rsa"
expect_refused "outside a session the wrapped tool is confined" DECOY-BELOW-KEY
run below_home "$H" env MOAT_ROOT="$PROJ" MOAT_SANDBOX="$PROJ" "$AGENT" "$H/.ssh/id_rsa"
expect_refused "and a forged MOAT_SANDBOX changes nothing" DECOY-BELOW-KEY

# --- both below /tmp ---
cd "$W/proj" || exit 1
expect_denied "both below /tmp: beside the root is refused" below_home "$H" "$MOAT" run -- sh -c 'echo data >../sibling.txt'
expect_denied "and HOME" below_home "$H" "$MOAT" run -- sh -c "echo x >'$H/newfile'"
[ ! -e "$W/sibling.txt" ] && [ ! -e "$H/newfile" ] && ok "nothing landed" || not_ok "a refused write landed"
expect_ok "the granted write lands" below_home "$H" "$MOAT" run -- sh -c "echo d >'$H/.cache/tool/y'"
[ "$(cat "$H/.cache/tool/y" 2>/dev/null)" = d ] && ok "on the host" || not_ok "the granted write was lost"
expect_ok "the wrapped tool runs" below_home "$H" "$MOAT" run agents -- agent --version
expect_out "and says its version" "^agent-standin-1.0$"

# --- both outside /tmp: the session's /tmp is its own, and writable ---
cd "$PROJ" || exit 1
name=moat-below-private-$$
expect_ok "both outside: /tmp is writable in the session" "$MOAT" run -- sh -c "echo p >/tmp/$name && cat /tmp/$name"
[ ! -e "/tmp/$name" ] && ok "and private: the host's /tmp has no such file" || not_ok "/tmp/$name reached the host"

done_testing
