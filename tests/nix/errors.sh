#!/usr/bin/env bash
# Every way resolving a flake shell fails reaches the user as one message
# (plus hints), with moat's own failure status; and moat check reports them.
. "$(dirname "$0")/common"

# one_message NAME: stderr has one "moat:" line besides the progress line
# (hints aside).
one_message() {
	[ "$(grep -v '^moat: building .*\.\.\.$' "$T/.err" | grep -c '^moat: ')" -eq 1 ] && ok "$1: one message" || { not_ok "$1: one message" && _show "(last command)"; }
}

run "$MOAT" run nosuch -- true
[ "$rc" -eq 125 ] && ok "an unknown shell is moat's failure (125)" || { not_ok "unknown shell status $rc" && _show moat run nosuch; }
expect_out "no such attribute" "^moat: unknown shell 'nosuch': it is not a local shell, and flake 'path:$FIX' has no attribute 'nosuch'$"
expect_out "hint: where nix looked" "^hint: nix looked for packages\.[a-z0-9_]+-[a-z]+\.nosuch and legacyPackages\."
expect_out "hint: where the local shells are" '^hint: looked for a local shell in .*MOAT_SHELLS_PATH'
expect_out "hint: how to make one" "^hint: make a local shell with: moat wrap nosuch"
one_message "no such attribute"

run "$MOAT" run "path:$FIX#nosuch" -- true
expect_out "FLAKE#ATTR: no such attribute" "^moat: unknown shell 'path:$FIX#nosuch': flake 'path:$FIX' has no attribute 'nosuch'$"

run "$MOAT" run broken -- true
[ "$rc" -eq 125 ] && ok "an evaluation error is moat's failure" || not_ok "eval error status $rc"
expect_out "evaluation error, in nix's words" "^moat: cannot build shell 'broken' from flake 'path:$FIX': the fixture's broken shell is broken on purpose$"
expect_out "hint: -v" "^hint: see nix's own output with: moat -v"
expect_no_out "nix's trace stays out of it" 125 'show-trace|^error:'
one_message "evaluation error"
run "$MOAT" -v run broken -- true
expect_out "-v shows nix's own error" "^error: .*broken on purpose"

run "$MOAT" run notashell -- true
[ "$rc" -eq 125 ] && ok "an output that is not a shell is refused" || not_ok "notashell status $rc"
expect_out "and named as such" "^moat: 'path:$FIX#notashell' built /nix/store/[^ ]*-notashell, which is not a moat shell \(no bin/\)$"
expect_out "hint: a package with bin/, or sandbox.wrap" 'hint: a shell is a package with bin/ .*moat\.lib\..*\.sandbox\.wrap'
[ -z "$(pinned_store notashell)" ] && ok "and not pinned" || not_ok "notashell pinned"

run env PATH="$NOPATH" "$MOAT" run hello -- true
[ "$rc" -eq 125 ] && ok "nix missing is moat's failure" || not_ok "nix missing status $rc"
expect_out "nix missing" "^moat: unknown shell 'hello': it is not a local shell, and nix is not installed to build it from flake 'path:$FIX'$"
expect_out "hint: install nix" "^hint: or install nix"
run env PATH="$NOPATH" "$MOAT" run "path:$FIX#hello" -- true
expect_out "nix missing, FLAKE#ATTR" "^moat: cannot build shell 'path:$FIX#hello': nix is not installed \(no 'nix' on PATH\)$"

printf 'substituters =\nflake-registry = %s\nbuild-users-group =\nsandbox = false\n' "$NIXCONF/registry.json" >"$T/noflakes.conf"
run env NIX_USER_CONF_FILES="$T/noflakes.conf" NIX_CONF_DIR="$T/nonix" "$MOAT" run hello -- true
[ "$rc" -eq 125 ] && ok "experimental features off is moat's failure" || not_ok "features off status $rc"
expect_out "experimental features off" "^moat: cannot build shell 'hello': nix has flakes turned off"
expect_out "hint: how to turn them on" "^hint: add 'experimental-features = nix-command flakes' to"
one_message "experimental features off"

run env MOAT_FLAKE="path:$T/nowhere" "$MOAT" run hello -- true
expect_out "a flake that does not exist" "^moat: cannot use flake 'path:$T/nowhere': "
expect_out "hint: MOAT_FLAKE" '^hint: MOAT_FLAKE .*must name a flake'

[ ! -e "$PINS" ] || [ -z "$(cut -f1 "$PINS" | grep -v '^#')" ] && ok "no failure left a pin" || not_ok "pins: $(cat "$PINS")"

# moat check: flake shells are evaluated, not built.
CFG=$XDG_CONFIG_HOME/moat/config.zon
mkdir -p "$(dirname "$CFG")"
printf '.{ .default = .{ "hello", "legacy" } }\n' >"$CFG"
run "$MOAT" check
[ "$rc" -eq 0 ] && ok "moat check resolves flake shells" || { not_ok "moat check" && _show moat check; }
expect_out "and finds them fine" '^all ok$'
[ -z "$(ls "$XDG_STATE_HOME/moat/gcroots" 2>/dev/null)" ] && ok "without building them" || not_ok "check built something"
printf '.{ .default = .{ "hello", "broken", "nosuch" } }\n' >"$CFG"
run "$MOAT" check
[ "$rc" -eq 1 ] && ok "moat check fails on flake problems" || not_ok "check status $rc"
expect_out "an evaluation error" "shell 'broken' cannot be resolved: cannot build shell 'broken' from flake .*broken on purpose"
expect_out "a missing attribute" "shell 'nosuch' cannot be resolved: unknown shell 'nosuch'"
expect_out "counted" '^2 issue\(s\) found$'
printf '.{ }\n' >"$CFG"
run env MOAT_FLAKE="path:$T/nowhere" "$MOAT" check
[ "$rc" -eq 1 ] && ok "moat check fails on a MOAT_FLAKE that does not lock" || not_ok "check bad flake status $rc"
expect_out "and says so" "^MOAT_FLAKE: cannot use flake 'path:$T/nowhere'"
run env PATH="$NOPATH" "$MOAT" check
expect_out "moat check without nix" "^MOAT_FLAKE: .*nix is not installed"

done_testing
