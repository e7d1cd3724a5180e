#!/usr/bin/env bash
# Records (issue 38, item 3): which directories a sandbox wrote is a fact
# moat keeps in its own state ($XDG_STATE_HOME/moat/roots), where the
# sandbox cannot reach, never a .moat/ marker inside the root, which the
# sandbox can delete. The attacks: a session erases its root's marker and
# leaves a `nix` and a jailbroken tool's binary behind; a later moat, from
# another project, must still judge that directory as sandbox-written.
. "$(dirname "$0")/../lib.sh"

PWNED=$T/pwned # outside the root and every grant: only unconfined code writes it
RECORD=$XDG_STATE_HOME/moat/roots
recorded() { [ -f "$RECORD" ] && tr '\0' '\n' <"$RECORD" | grep -qxF "$1"; }

# The payload: what sandboxed code leaves behind, run later by name.
printf '#!/bin/sh\necho PWNED >"%s"\ncat "%s" 2>/dev/null\n' "$PWNED" "$HOME/.ssh/id_rsa" >"$T/payload"
chmod +x "$T/payload"
cp "$T/payload" "$SIBLING/payload"

# --- a session erases its own marker ----------------------------------------
# The project on the user's PATH (a .venv/bin, a node_modules/.bin).
cd "$SIBLING" || exit 1
run "$MOAT" run -- sh -c 'mkdir -p bin && cp payload bin/nix && cp payload bin/tool && rm -rf "$MOAT_ROOT/.moat" && ls -a "$MOAT_ROOT"'
[ "$rc" -eq 0 ] && [ -x "$SIBLING/bin/nix" ] && [ ! -e "$SIBLING/.moat" ] &&
	ok "attack: the sandbox planted bin/nix and bin/tool and removed its .moat/" ||
	{ not_ok "attack: the sandbox planted bin/nix and removed its .moat/" && _show moat run; }
recorded "$SIBLING" && ok "the root is in moat's record, outside the root" ||
	not_ok "the root is in moat's record ($(tr '\0' ' ' <"$RECORD" 2>/dev/null))"
cd "$PROJ" || exit 1

# Control: unconfined, the planted nix runs when called by name.
PATH="$SIBLING/bin:$PATH" nix >/dev/null 2>&1
[ -e "$PWNED" ] && ok "control: the planted nix runs when called from PATH" || not_ok "control: the planted nix did not run"
rm -f "$PWNED"

# A session elsewhere that needs nix (a flake shell, no pin): moat must skip
# the planted one, as it lies in a past root, and not run it.
run env PATH="$SIBLING/bin" MOAT_FLAKE="path:$T/noflake" "$MOAT" -v run hello -- /bin/true
[ "$rc" -ne 0 ] && [ ! -e "$PWNED" ] && ok "moat never runs a nix planted in a past root whose marker is gone" ||
	{ not_ok "moat never runs a nix planted in a past root whose marker is gone" && _show moat run; }
run env PATH="$SIBLING/bin" "$MOAT" check
[ ! -e "$PWNED" ] && grep -q "^nix: skipped $(re_quote "$SIBLING/bin/nix") (under $(re_quote "$SIBLING"), a past sandbox root)" "$T/.out" &&
	ok "moat check skips it too, saying why" || { not_ok "moat check skips it too, saying why" && _show moat check; }
rm -f "$PWNED"

# --- a jailbroken binary in a past root -------------------------------------
JB=$XDG_DATA_HOME/moat/shells/jb
mkdir -p "$JB/bin" "$JB/share/moat" "$HOME/clean/bin"
ln -s "$WRAPPER" "$JB/bin/tool"
cp "$T/payload" "$HOME/clean/bin/tool"
# Control: the same jailbreak from a directory no sandbox wrote runs unconfined.
printf 'tool\t%s\n' "$HOME/clean/bin/tool" >"$JB/share/moat/manifest"
run env MOAT_ROOT="$PROJ" MOAT_JAILBREAK=tool "$JB/bin/tool"
[ "$rc" -eq 0 ] && grep -q DECOY-SSH-KEY "$T/.out" && ok "control: a jailbroken tool outside any past root runs unconfined" ||
	{ not_ok "control: a jailbroken tool outside any past root runs unconfined" && _show tool; }
rm -f "$PWNED"
printf 'tool\t%s\n' "$SIBLING/bin/tool" >"$JB/share/moat/manifest"
run env MOAT_ROOT="$PROJ" MOAT_JAILBREAK=tool "$JB/bin/tool"
[ "$rc" -eq 125 ] && [ ! -e "$PWNED" ] && ! grep -q DECOY "$T/.out" &&
	grep -q "refusing to jailbreak tool.*$(re_quote "$SIBLING")" "$T/.err" &&
	ok "refused: a jailbreak of a binary in a past root whose marker is gone" ||
	{ not_ok "refused: a jailbreak of a binary in a past root whose marker is gone" && _show tool; }
rm -f "$PWNED"

# --- the record is out of the sandbox's reach -------------------------------
run "$MOAT" run -- sh -c ': >"$1"; cat "$2"' sh "$RECORD" "$HOME/.ssh/id_rsa"
expect_refused "the sandbox cannot empty moat's record" DECOY
recorded "$SIBLING" && ok "and the record still names the past root" || not_ok "the record lost the past root"

# --- moat-wrapper records its root too --------------------------------------
"$MOAT" wrap tools /bin/cat >/dev/null 2>&1
mkdir -p "$HOME/wrapped-root"
echo WRAPPED >"$HOME/wrapped-root/f"
recorded "$HOME/wrapped-root" && not_ok "control: a fresh directory is not recorded" || ok "control: a fresh directory is not recorded"
(cd "$HOME/wrapped-root" && MOAT_ROOT="$HOME/wrapped-root" "$XDG_DATA_HOME/moat/shells/tools/bin/cat" f >"$T/.out" 2>"$T/.err")
grep -q WRAPPED "$T/.out" && recorded "$HOME/wrapped-root" && ok "a wrapped tool records its root before it runs" ||
	{ not_ok "a wrapped tool records its root before it runs" && _show wrapped cat; }
recorded "$PROJ" && recorded "$SIBLING" && ok "and keeps the roots recorded before" || not_ok "the record lost a root"
n=$(tr "\0" "\n" <"$RECORD" | grep -c .)
"$MOAT" run -- true >/dev/null 2>&1
(cd "$PROJ/.." && mkdir -p "$PROJ/sub" && cd "$PROJ/sub" && "$MOAT" run --here -- true >/dev/null 2>&1)
[ "$(tr '\0' '\n' <"$RECORD" | grep -c .)" = "$n" ] && ok "a root under a recorded one adds nothing" ||
	not_ok "the record grew: $(tr '\0' ' ' <"$RECORD")"

# --- old markers still count -------------------------------------------------
mkdir -p "$HOME/old/.moat" "$HOME/old/bin"
cp "$T/payload" "$HOME/old/bin/tool"
printf 'tool\t%s\n' "$HOME/old/bin/tool" >"$JB/share/moat/manifest"
run env MOAT_ROOT="$PROJ" MOAT_JAILBREAK=tool "$JB/bin/tool"
[ "$rc" -eq 125 ] && [ ! -e "$PWNED" ] && grep -q "past sandbox root" "$T/.err" &&
	ok "a root an older moat marked with .moat/ still counts" ||
	{ not_ok "a root an older moat marked with .moat/ still counts" && _show tool; }

# --- the sandbox makes the record unreadable --------------------------------
# chmod is no Landlock right: a sandbox may change the mode of a file it
# cannot open. A record moat cannot read counts every place as written.
run "$MOAT" run -- chmod 000 "$RECORD"
[ "$(stat -c %a "$RECORD")" = 0 ] && ok "attack: the sandbox set the record's mode to 000" ||
	skip "prerequisite: chmod from inside the sandbox was refused ($(stat -c %a "$RECORD"))"
printf 'tool\t%s\n' "$SIBLING/bin/tool" >"$JB/share/moat/manifest"
run env MOAT_ROOT="$PROJ" MOAT_JAILBREAK=tool "$JB/bin/tool"
[ "$rc" -eq 125 ] && [ ! -e "$PWNED" ] && ! grep -q DECOY "$T/.out" &&
	ok "the past root's jailbreak is still refused (an unreadable record fails closed)" ||
	{ not_ok "the past root's jailbreak is still refused with the record unreadable" && _show tool; }
chmod 600 "$RECORD"

[ ! -e "$PWNED" ] && ok "nothing planted ever ran unconfined" || not_ok "something planted ran"
done_testing
