#!/usr/bin/env bash
# Pins as a thing to see and edit: moat pins lists them (flake, revision,
# store path, and what is off), moat unpin drops one or all, a pin whose
# flake MOAT_FLAKE no longer names is stale and stops no moat update; a
# local flake edited since it was pinned is noticed without nix; a plain
# package is a shell, its bin/ wrapped by moat.
. "$(dirname "$0")/common"

expect_ok "pin hello" "$MOAT" run hello -- true
expect_ok "pin legacy" "$MOAT" run legacy -- true
store=$(pinned_store hello)
rev=$(pinned_rev hello)

run "$MOAT" pins
[ "$rc" -eq 0 ] && ok "moat pins" || { not_ok "moat pins" && _show moat pins; }
expect_out "one line per pin: name, flake, revision, store path" "^hello  path:$(re_quote "$FIX")  $(re_quote "${rev:0:19}")  $(re_quote "$store")\$"
expect_out "the other pin too" "^legacy  path:$(re_quote "$FIX")  sha256-"
expect_no_out "nothing is off with them" 0 '^  (stale|collected|changed)'
run "$MOAT" -v pins
expect_out "-v shows the whole revision" "^hello  path:$(re_quote "$FIX")  $(re_quote "$rev")  "

# --- a local flake edited since it was pinned ----------------------------------
echo "version two" >"$FIX/message"
rm -f "$T/spy.log"
run env PATH="$SPY" "$MOAT" run hello -- fixture-hello
[ "$rc" -eq 0 ] && [ ! -e "$T/spy.log" ] && ok "an edited local flake: the pin still runs, without nix" || { not_ok "edited flake run (spy: $(cat "$T/spy.log" 2>/dev/null))" && _show moat run; }
expect_out "the pinned revision" '^fixture says: version one$'
expect_out "one line says the flake changed, with moat update NAME as the fix" "^moat: hello: the flake 'path:$(re_quote "$FIX")' changed since it was pinned; to use the change: moat update hello\$"
[ "$(grep -c 'changed since' "$T/.err")" -eq 1 ] && ok "said once" || not_ok "said $(grep -c 'changed since' "$T/.err") times"
run "$MOAT" -v run hello -- true
expect_out "-v says the shell is pinned, from where and at which revision" "^moat: shell hello: pinned from 'path:$(re_quote "$FIX")' at $(re_quote "$rev")\$"
run "$MOAT" pins
expect_out "moat pins marks it changed" '^  changed: the flake changed since it was pinned \(moat update hello uses the change\)$'
run "$MOAT" run legacy -- true
expect_out "every pin from that flake notices" "legacy: the flake .* changed since it was pinned"
expect_ok "moat update hello" "$MOAT" update hello
run env PATH="$NOPATH" "$MOAT" run hello -- fixture-hello
expect_out "after moat update the change is in" '^fixture says: version two$'
expect_no_out "and the notice is gone" 0 'changed since'
# A control for the notice: touching no file says nothing.
run env PATH="$NOPATH" "$MOAT" run hello -- fixture-hello
expect_no_out "an unchanged flake says nothing" 0 'changed since'

# A git flake: only tracked files count, as for nix.
if command -v git >/dev/null; then
	G=$T/gitflake
	cp -r "$FIX" "$G"
	gitc() { git -C "$G" -c user.email=t@example.com -c user.name=t "$@" >/dev/null 2>&1; }
	gitc init -q && gitc add -A && gitc commit -qm one
	run "$MOAT" run "git+file://$G#hello" -- fixture-hello
	echo junk >"$G/untracked-file"
	run env PATH="$NOPATH" "$MOAT" run "git+file://$G#hello" -- fixture-hello
	expect_no_out "a git flake: an untracked file is not a change" 0 'changed since'
	echo "git two" >"$G/message"
	run env PATH="$NOPATH" "$MOAT" run "git+file://$G#hello" -- true
	expect_out "an edit to a tracked file is" "git\\+file://$G#hello: the flake .* changed since it was pinned"
else
	skip "git is not installed: no git flake"
fi

# --- stale pins ----------------------------------------------------------------
OTHER=$T/other-flake
cp -r "$FIX" "$OTHER"
echo "other flake" >"$OTHER/message"
export MOAT_FLAKE=path:$OTHER
run "$MOAT" pins
expect_out "a pin MOAT_FLAKE no longer names is stale" "^  stale: the name now resolves in 'path:$(re_quote "$OTHER")' \(moat update hello resolves it there, moat unpin hello drops it\)\$"
expect_ok "a shell pinned from this flake" "$MOAT" run "path:$OTHER#legacy" -- true
run "$MOAT" update
[ "$rc" -eq 0 ] && ok "moat update with stale pins succeeds" || { not_ok "moat update with stale pins (status $rc)" && _show moat update; }
expect_out "and says it left them alone" "^hello: stale, left alone: pinned from 'path:$(re_quote "$FIX")', but the name now resolves in 'path:$(re_quote "$OTHER")'\$"
expect_out "with the ways out, once" "^hint: 'moat update hello' resolves it there; 'moat unpin hello' drops it\$"
expect_out "the others are updated" "^path:$(re_quote "$OTHER")#legacy: sha256-.* \(unchanged\)\$"
awk -F'\t' '$1 == "hello" { exit !($2 == "path:'"$FIX"'") }' "$PINS" &&
	ok "the stale pin is untouched" || not_ok "stale pin changed: $(grep ^hello "$PINS")"
run "$MOAT" update hello
expect_out "naming a stale pin resolves it in the current flake" '^hello: sha256-.* -> sha256-'
run env PATH="$NOPATH" "$MOAT" run hello -- fixture-hello
expect_out "which then runs" '^fixture says: other flake$'
export MOAT_FLAKE=path:$FIX

# --- dropping pins -------------------------------------------------------------
hello_root=
for l in "$XDG_STATE_HOME"/moat/gcroots/*; do
	[ "$(readlink "$l")" = "$(pinned_store hello)" ] && hello_root=$l
done
run "$MOAT" unpin hello
[ "$rc" -eq 0 ] && ok "moat unpin NAME" || { not_ok "moat unpin" && _show moat unpin; }
expect_out "says what it dropped" '^moat: dropped 1 pin$'
[ -z "$(pinned_store hello)" ] && [ -n "$(pinned_store legacy)" ] && ok "that pin is gone, the others stay" || not_ok "pins: $(cut -f1 "$PINS" | grep -v '^#' | tr '\n' ' ')"
[ -n "$hello_root" ] && [ ! -e "$hello_root" ] && [ ! -L "$hello_root" ] && ok "and so is its garbage-collection root" || not_ok "gc root '$hello_root' left: $(ls "$XDG_STATE_HOME"/moat/gcroots/)"
run "$MOAT" unpin hello
[ "$rc" -eq 1 ] && ok "unpinning what is not pinned fails" || not_ok "unpin twice status $rc"
expect_out "and says so" "^moat: no pinned shell 'hello'\$"
expect_status "unpin without names is a usage error" 2 "$MOAT" unpin
expect_status "unpin with names and --all too" 2 "$MOAT" unpin legacy --all
run "$MOAT" unpin "path:$OTHER#legacy"
expect_out "a FLAKE#ATTR pin by its name" '^moat: dropped 1 pin$'
run "$MOAT" unpin --all
[ "$rc" -eq 0 ] && [ -z "$(cut -f1 "$PINS" | grep -v '^#')" ] && ok "moat unpin --all drops every pin" || not_ok "unpin --all: $(cat "$PINS")"
run "$MOAT" pins
expect_out "moat pins with none says so" '^moat: no pinned shells'
run "$MOAT" run hello -- fixture-hello
expect_out "an unpinned shell resolves afresh" '^moat: building hello\.\.\.$'

# --- a plain package is a shell --------------------------------------------------
run "$MOAT" run tools -- fixture-hello
[ "$rc" -eq 0 ] && ok "a plain package (bin/, no manifest) is a shell" || { not_ok "plain package" && _show moat run tools; }
expect_out "its tool runs" '^fixture says: '
wrapped=$(echo "$XDG_STATE_HOME"/moat/wrapped/*-fixture-tools-*)
[ -L "$wrapped/bin/fixture-hello" ] && [ "$(readlink "$wrapped/bin/fixture-hello")" = "$WRAPPER" ] &&
	grep -q "^fixture-hello	$(pinned_store tools)/bin/fixture-hello\$" "$wrapped/share/moat/manifest" &&
	ok "moat wrapped its bin/: links to moat-wrapper and a manifest" || not_ok "wrapped shell at '$wrapped'"
run "$MOAT" run tools -- sh -c 'fixture-env; cat "$HOME/.ssh/id_rsa"; echo status=$?'
expect_out "home stays denied to it" 'id_rsa: Permission denied'
expect_out "control: the command ran" '^status=1$'
run "$MOAT" pins
expect_out "moat pins says it is a package" '^  package: a plain package, its bin/ wrapped by moat$'
rm -rf "$wrapped"
run env PATH="$NOPATH" "$MOAT" run tools -- fixture-hello
expect_out "the wrapped shell is made again from the pin, without nix" '^fixture says: '
run "$MOAT" run "path:$FIX#notashell" -- true
[ "$rc" -eq 125 ] && ok "a package without bin/ is still refused" || not_ok "notashell status $rc"

done_testing
