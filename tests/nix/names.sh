#!/usr/bin/env bash
# Shell names: a bare name that is no local shell, with no flake configured
# for it, is "unknown shell" with the closest local names and where moat
# looked, and starts no nix (a typo never costs a network time-out). A
# default shell that does not resolve is a warning for commands that do not
# need it; every hint is printed once; moat check points at the entry's own
# line and column.
. "$(dirname "$0")/common"

# hints_once: no hint line of the last run is printed twice.
hints_once() {
	local dup
	dup=$(grep '^hint: ' "$T/.err" | sort | uniq -d)
	[ -z "$dup" ] && ok "$1: each hint once" || { not_ok "$1: hints twice: $dup" && _show "(last command)"; }
}

expect_ok "make a local shell cc-tools" "$MOAT" wrap cc-tools true
expect_ok "and one named rust-tools" "$MOAT" wrap rust-tools true

# --- no flake configured ---------------------------------------------------------
unset MOAT_FLAKE
rm -f "$T/spy.log"
start=$(date +%s)
run env PATH="$SPY" "$MOAT" run cc-tool -- true
took=$(($(date +%s) - start))
[ "$rc" -eq 125 ] && ok "a mistyped name is moat's failure (125)" || { not_ok "typo status $rc" && _show moat run cc-tool; }
if [ -f "$MOAT_BUILD/../flake.nix" ]; then
	expect_out "unknown shell, no flake configured for it, and what the installed flake has" \
		"^moat: unknown shell 'cc-tool': it is not a local shell, and no flake is configured for it \\(MOAT_FLAKE is not set; the flake installed with moat has [a-z, ]*rust[a-z, ]*\\)\$"
else
	expect_out "unknown shell, no flake to look it up in" \
		"^moat: unknown shell 'cc-tool': it is not a local shell, and there is no flake to look it up in \\(MOAT_FLAKE is not set\\)\$"
fi
expect_out "did you mean the closest local shell" '^hint: did you mean cc-tools\?$'
expect_out "where it looked" "^hint: looked for a local shell in $(re_quote "$XDG_DATA_HOME")/moat/shells \\(MOAT_SHELLS_PATH\\)\$"
expect_out "how to make one or configure a flake" '^hint: make a local shell with: moat wrap cc-tool /path/to/tool\.\.\.$'
[ ! -e "$T/spy.log" ] && ok "and no nix was started" || not_ok "nix started: $(cat "$T/spy.log")"
[ "$took" -le 2 ] && ok "nor any time spent ($took s)" || not_ok "a typo took $took s"
hints_once "unknown shell"
run "$MOAT" run rust-tool -- true
expect_out "the closest of several" '^hint: did you mean rust-tools\?$'
run "$MOAT" run qqqqqqq -- true
expect_no_out "nothing close: no guess" 125 'did you mean'
run "$MOAT" run cc-tools -- true
[ "$rc" -eq 0 ] && ok "control: the right name runs" || { not_ok "cc-tools" && _show moat run cc-tools; }
if [ -f "$MOAT_BUILD/../flake.nix" ]; then
	rm -f "$T/spy.log"
	run env PATH="$SPY" "$MOAT" run zig -- true
	[ -s "$T/spy.log" ] && ok "control: a shell the installed flake has goes to nix" || not_ok "zig did not reach nix: $(cat "$T/.err")"
else
	skip "no flake.nix next to the build directory: the installed flake's names are not checked"
fi
export MOAT_FLAKE=path:$FIX

# --- a flake configured: nix is asked, the message is the same one ---------------
run "$MOAT" run hellp -- true
expect_out "a name the flake lacks" "^moat: unknown shell 'hellp': it is not a local shell, and flake 'path:$(re_quote "$FIX")' has no attribute 'hellp'\$"
hints_once "no such attribute"
[ "$(grep -c '^moat: ' "$T/.err" | tr -d ' ')" -le 2 ] && ok "one message (besides the progress line)" || { not_ok "messages" && _show moat run hellp; }

# --- a bad default shell ----------------------------------------------------------
CFG=$XDG_CONFIG_HOME/moat/config.zon
mkdir -p "$(dirname "$CFG")"
cat >"$CFG" <<'ZON'
.{
    // shells every session gets
    .default = .{
        "hello",
        "nosuch", "broken",
    },
}
ZON
run "$MOAT" run -- fixture-hello
[ "$rc" -eq 0 ] && ok "a default shell that does not resolve does not stop moat run" || { not_ok "bad default stops run (status $rc)" && _show moat run; }
expect_out "the good default shell is there" '^fixture says: '
expect_out "the bad ones are warnings" "^moat: warning: default shell 'nosuch' skipped: unknown shell 'nosuch'"
expect_out "each of them" "^moat: warning: default shell 'broken' skipped: cannot build shell 'broken'"
hints_once "bad default shells"
printf '%s\n' 'fixture-hello; exit 3' >"$T/cmds"
SHELL=/bin/sh timeout 60 "$MOAT" shell <"$T/cmds" >"$T/.out" 2>"$T/.err"
rc=$?
[ "$rc" -eq 3 ] && ok "nor moat shell" || { not_ok "moat shell with a bad default (status $rc)" && _show moat shell; }
run "$MOAT" run nosuch -- true
[ "$rc" -eq 125 ] && ok "control: the same shell named is still an error" || not_ok "named bad shell status $rc"

run "$MOAT" check
[ "$rc" -eq 1 ] && ok "moat check fails on them" || not_ok "check status $rc"
expect_out "at the entry's own line and column" "config\\.zon:5:9: shell 'nosuch' cannot be resolved"
expect_out "each entry" "config\\.zon:5:19: shell 'broken' cannot be resolved"
expect_no_out "never 1:1" 1 'config\.zon:1:1:'
cat >"$CFG" <<'ZON'
.{
    .jailbreak = .{
        "no-such-tool-anywhere",
    },
}
ZON
run "$MOAT" check
expect_out "a jailbreak entry at its line too" "config\\.zon:3:9: jailbreak 'no-such-tool-anywhere' is not found"

done_testing
