#!/usr/bin/env bash
# A session's TMPDIR ($MOAT_ROOT/.moat/tmp) starts empty: what an earlier
# session left there is gone (issue 39: leftovers piled up, and a flake not
# in git copied them into /nix/store), but never what a session still
# running keeps there, and the clearing never follows a link a sandboxed
# tool planted there, not even into a directory it may write.
. "$(dirname "$0")/../lib.sh"

TMP=$PROJ/.moat/tmp

expect_ok "a session leaves files and directories in TMPDIR" "$MOAT" run -- sh -euc \
	'echo old >"$TMPDIR/leftover"; mkdir -p "$TMPDIR/d/e"; echo x >"$TMPDIR/d/e/f"; chmod 500 "$TMPDIR/d/e"'
# (a read-only directory, as some tools leave theirs)
[ -f "$TMP/leftover" ] && [ -f "$TMP/d/e/f" ] && ok "control: they are there after it" ||
	not_ok "control: the leftovers were not written"
run "$MOAT" run -- sh -c 'ls -A "$TMPDIR"' 
[ "$rc" -eq 0 ] && [ -z "$out" ] && ok "the next session's TMPDIR is empty" ||
	{ not_ok "the next session's TMPDIR is empty" && _show ls; }
[ ! -e "$TMP/leftover" ] && [ ! -e "$TMP/d" ] && [ -d "$TMP" ] &&
	ok "the leftovers are gone from the host, TMPDIR itself stays" || not_ok "leftovers on the host: $(ls -A "$TMP")"

# Two sessions of one project: the second's start leaves the first's files.
"$MOAT" run -- sh -c 'echo A >"$TMPDIR/live"; while [ ! -e go ]; do sleep 0.05; done; cat "$TMPDIR/live"' \
	>"$T/first.out" 2>"$T/first.err" &
first=$!
for _ in $(seq 200); do [ -e "$TMP/live" ] && break; sleep 0.05; done
[ -e "$TMP/live" ] && ok "control: the first session wrote its file" || not_ok "the first session wrote nothing"
expect_ok "a second session starts while the first runs" "$MOAT" run -- true
[ "$(cat "$TMP/live" 2>/dev/null)" = A ] && ok "the running session's file survives the second's start" ||
	not_ok "the running session's file was removed"
touch go
wait "$first"
[ $? -eq 0 ] && [ "$(cat "$T/first.out")" = A ] && ok "and the first session still reads it" ||
	not_ok "the first session lost its file: $(cat "$T/first.out" "$T/first.err")"
expect_ok "once it has ended" "$MOAT" run -- true
[ ! -e "$TMP/live" ] && ok "the next session clears its file" || not_ok "the ended session's file stays"

# A process that holds the lock (here exclusively, for a second) keeps a
# session's start waiting, which moat says.
if command -v flock >/dev/null; then
	flock -x "$TMP" sleep 1 &
	locker=$!
	sleep 0.3
	run "$MOAT" run -- true
	wait "$locker"
	[ "$rc" -eq 0 ] && ok "a session waits for a held lock, then runs" || { not_ok "held lock: status $rc" && _show moat run; }
	expect_out "saying what it waits for" "^moat: warning: waiting for '$(re_quote "$PROJ")/\.moat/tmp': another session"
	run "$MOAT" run -- true
	expect_no_out "control: no lock held, no word of it" 0 'waiting for'
else
	skip "prerequisite: flock(1)"
fi

# Links planted in TMPDIR by sandboxed code, into a directory the sandbox
# may write (so Landlock alone would not save what is there) and one it may
# not: removed as links, their targets untouched.
mkdir -p "$T/granted" "$T/outside"
echo PRECIOUS >"$T/granted/precious"
echo VICTIM >"$T/granted/victim"
echo PRECIOUS >"$T/outside/precious"
expect_ok "a write grant on a directory outside the project" "$MOAT" allow '*' "$T/granted" --write
expect_ok "control: a session may delete a file there" "$MOAT" run -- rm "$T/granted/victim"
[ ! -e "$T/granted/victim" ] && ok "control: it is gone" || not_ok "control: the granted file was not deleted"
expect_ok "a session plants links in TMPDIR" "$MOAT" run -- sh -euc "
	ln -s '$T/granted/precious' \"\$TMPDIR/file-link\"
	ln -s '$T/granted' \"\$TMPDIR/dir-link\"
	ln -s '$T/outside' \"\$TMPDIR/outside-link\"
	mkdir \"\$TMPDIR/sub\"; ln -s '$T/granted' \"\$TMPDIR/sub/dir-link\""
expect_ok "the next session starts" "$MOAT" run -- true
[ "$(cat "$T/granted/precious" 2>/dev/null)" = PRECIOUS ] && [ "$(cat "$T/outside/precious" 2>/dev/null)" = PRECIOUS ] &&
	ok "the links' targets survive the clearing" || not_ok "a link's target was deleted: $(ls -A "$T/granted" "$T/outside")"
[ -z "$(ls -A "$TMP")" ] && ok "and the links themselves are gone" || not_ok "links left: $(ls -A "$TMP")"

# TMPDIR itself replaced by a link into the writable directory: nothing
# through it is cleared.
expect_ok "a session replaces TMPDIR by a link" "$MOAT" run -- sh -euc \
	"rm -rf '$PROJ/.moat/tmp'; ln -s '$T/granted' '$PROJ/.moat/tmp'"
expect_ok "the next session starts" "$MOAT" run -- true
[ "$(cat "$T/granted/precious" 2>/dev/null)" = PRECIOUS ] && ok "the directory it names is not cleared" ||
	not_ok "the directory behind the link was cleared"

# A project below /tmp, whose session has a /tmp of its own: its TMPDIR is
# the host's all the same, and is cleared as well.
W=$(mktemp -d /tmp/moat-tmpdir.XXXXXX) && W=$(cd "$W" && pwd -P) || exit 1
trap 'chmod -R u+rwX "$T" "$W" 2>/dev/null; rm -rf "$T" "$W" "${TMPDECOY:-}"' EXIT
mkdir -p "$W/proj"
cd "$W/proj" || exit 1
expect_ok "below /tmp: a session leaves a file in TMPDIR" "$MOAT" run -- sh -c 'echo old >"$TMPDIR/leftover"'
[ -f "$W/proj/.moat/tmp/leftover" ] && ok "control: it is on the host" || not_ok "control: no leftover below /tmp"
run "$MOAT" run -- sh -c 'ls -A "$TMPDIR"'
[ "$rc" -eq 0 ] && [ -z "$out" ] && [ ! -e "$W/proj/.moat/tmp/leftover" ] &&
	ok "below /tmp: the next session's TMPDIR is empty" || { not_ok "below /tmp: leftovers stay" && _show ls; }

done_testing
