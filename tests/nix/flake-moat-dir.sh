#!/usr/bin/env bash
# A flake not in git at the project's root: nix copies a path: flake whole,
# and the project's .moat/ (a session's TMPDIR) went with it (issue 39):
# what a session left there, or a running session keeps there, gave the
# flake a new hash, so every `moat update` asked to approve it again, and
# those files landed in the world-readable /nix/store. moat has nix copy the
# flake without .moat/: the hash stays, and the store copy holds none of it.
. "$(dirname "$0")/common"

command -v python3 >/dev/null || { skip "python3 is not installed: no terminal to approve on"; done_testing; exit; }

cp "$FIX"/flake.nix "$FIX"/wrap.nix "$FIX"/config.nix "$FIX"/message "$FIX"/nonce "$PROJ/"
unset MOAT_FLAKE
MARK=LEFTOVER-$(basename "$T")

ask y "$MOAT" run .#hello -- fixture-hello
[ "$rc" -eq 0 ] && ok "the project's flake, approved once, runs" || { not_ok "approval status $rc" && _show moat run; }
expect_out "the tool ran" 'fixture says: version one'
store=$(sed -n 's/.*what it copied to \(\/[^ ]*\).*/\1/p' "$T/.out" | tr -d '\r' | head -1)
[ -n "$store" ] && [ ! -e "$store/.moat" ] && [ -f "$store/flake.nix" ] &&
	ok "the approved store copy has the flake and no .moat/ ($store)" ||
	not_ok "store copy '$store': $(ls -A "$store" 2>&1 | tr '\n' ' ')"

expect_ok "a session leaves a file in TMPDIR" "$MOAT" run .#hello -- sh -c "echo $MARK >\"\$TMPDIR/leftover\""
[ -f "$PROJ/.moat/tmp/leftover" ] && ok "control: it is in .moat/tmp" || not_ok "control: no leftover written"
run "$MOAT" update
[ "$rc" -eq 0 ] && ok "moat update with no terminal: the same content, no question" ||
	{ not_ok "moat update asked again (status $rc)" && _show moat update; }

"$MOAT" run .#hello -- sh -c "echo $MARK >\"\$TMPDIR/live\"; while [ ! -e go ]; do sleep 0.05; done" \
	>/dev/null 2>&1 &
live=$!
for _ in $(seq 200); do [ -e "$PROJ/.moat/tmp/live" ] && break; sleep 0.05; done
[ -e "$PROJ/.moat/tmp/live" ] && ok "control: a running session keeps a file there" || not_ok "no live file"
run "$MOAT" update
[ "$rc" -eq 0 ] && ok "moat update while it runs: no question either" ||
	{ not_ok "moat update during a session asked again (status $rc)" && _show moat update; }
touch go
wait "$live"

in_store=$(grep -l "$MARK" /nix/store/*-source/.moat/tmp/* 2>/dev/null)
[ -z "$in_store" ] && ok "no file of a session's went to the store" ||
	not_ok "the session's files are in the store: $in_store"

# Control: nix's own copy of the directory takes .moat/ along.
echo "$MARK" >"$PROJ/.moat/tmp/leftover"
copy=$(nix flake prefetch --json "path:$PROJ" 2>/dev/null | sed -n 's/.*"storePath":"\([^"]*\)".*/\1/p')
[ -n "$copy" ] && [ -e "$copy/.moat/tmp/leftover" ] && ok "control: nix flake prefetch of the directory copies .moat/" ||
	not_ok "control: nix's copy '$copy' has no .moat/tmp/leftover"

done_testing
