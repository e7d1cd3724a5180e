#!/usr/bin/env bash
# Building says so: -v streams nix's build progress as it happens; on a
# terminal, a build over a second gets a one-line indicator (drawn in place,
# erased when done), and never without a terminal; a nix that keeps retrying
# a binary cache it cannot reach is reported, with the setting that stops it.
. "$(dirname "$0")/common"

fresh() { echo "$1-$T" >"$FIX/nonce"; } # a slow shell nix has not built before

# -v: nix's own lines come through while it builds, in order.
fresh verbose
run "$MOAT" -v run slow -- fixture-slow
[ "$rc" -eq 0 ] && ok "moat -v run builds the slow shell" || { not_ok "moat -v run slow" && _show moat -v run slow; }
expect_out "-v streams what nix builds" "^building '/nix/store/[^']*-fixture-slowtools\\.drv'"
expect_out "and the build's own log lines" '^fixture-slowtools> slowtools: step one$'
awk '/step one/ { one = NR } /step two/ { two = NR } END { exit !(one && two && one < two) }' "$T/.err" &&
	ok "in the order nix said them" || not_ok "order of the build log"
expect_out "-v says which nix it runs" '^moat: nix: /[^ ]*/nix \(first on PATH\)$'

# Without a terminal: one line, no indicator.
"$MOAT" unpin slow >/dev/null 2>&1
fresh plain
run "$MOAT" run slow -- fixture-slow
[ "$rc" -eq 0 ] && [ "$(cat "$T/.err")" = "moat: building slow..." ] && ok "without a terminal: one progress line and nothing else" || { not_ok "no-terminal output" && _show moat run slow; }
expect_no_out "no escape sequences" 0 $'\033'

# On a terminal: the indicator after a second, with the time and what nix does.
if command -v python3 >/dev/null; then
	"$MOAT" unpin slow >/dev/null 2>&1
	fresh tty
	python3 "$PTY" --timeout 60 -- "$MOAT" run slow -- fixture-slow >"$T/tty.out" 2>&1
	rc=$?
	[ "$rc" -eq 0 ] && grep -q 'slow tool ran' "$T/tty.out" && ok "on a terminal the build succeeds" || { not_ok "tty build (status $rc)" && sed 's/^/#   /' "$T/tty.out"; }
	grep -qE $'\r\033\\[Kmoat: slow\\.\\.\\. [0-9]+s: building fixture-slowtools' "$T/tty.out" &&
		ok "a one-line indicator: seconds and what nix builds" || { not_ok "no indicator" && od -c "$T/tty.out" | head -20 | sed 's/^/#   /'; }
	grep -qE $'\r\033\\[Kslow tool ran' "$T/tty.out" && ok "erased before the tool's output" || not_ok "indicator not erased"
	[ "$(grep -c $'\n' "$T/tty.out")" -le 3 ] && ok "it stays on one line" || not_ok "indicator used $(grep -c $'\n' "$T/tty.out") lines"
	# A pinned shell builds nothing: no indicator.
	python3 "$PTY" -- "$MOAT" run slow -- fixture-slow >"$T/tty2.out" 2>&1
	! grep -q 'moat: slow\.\.\.' "$T/tty2.out" && ok "a pinned shell shows no indicator" || not_ok "indicator without a build"
else
	skip "python3 is not installed: no terminal tests"
fi

# A binary cache that cannot be reached: nix retries it for seconds before
# building. Port 9 on loopback refuses at once, as an offline machine would.
"$MOAT" unpin slow >/dev/null 2>&1
fresh unreachable
cat >"$T/unreachable.conf" <<CONF
experimental-features = nix-command flakes
substituters = http://127.0.0.1:9
flake-registry = $NIXCONF/registry.json
build-users-group =
sandbox = false
CONF
run env NIX_USER_CONF_FILES="$T/unreachable.conf" NIX_CONF_DIR="$T/nonix" "$MOAT" run slow -- fixture-slow
[ "$rc" -eq 0 ] && ok "a build with an unreachable cache still succeeds" || { not_ok "unreachable cache build" && _show moat run slow; }
expect_out "the retrying is reported" "^moat: warning: nix cannot reach http://127\\.0\\.0\\.1:9/nix-cache-info \\(.*\\) and keeps retrying"
expect_out "with the setting that stops it" "^moat: warning: if this machine is offline or that cache is not needed, set 'substituters =' \\(empty\\) in nix\\.conf"
[ "$(grep -c 'cannot reach' "$T/.err")" -eq 1 ] && ok "once" || not_ok "reported $(grep -c 'cannot reach' "$T/.err") times"
# Offline with 'substituters =' already set, what nix retried was the flake
# registry (issue 39): fetched to look up a flake named without a URL. The
# warning names the registry's setting, not substituters.
REG=$T/regflake
mkdir -p "$REG"
printf '{\n  inputs.other.url = "moat-test-other";\n  outputs = { self, other }: { };\n}\n' >"$REG/flake.nix"
cat >"$T/noregistry.conf" <<CONF
experimental-features = nix-command flakes
substituters =
flake-registry = http://127.0.0.1:9/flake-registry.json
build-users-group =
sandbox = false
CONF
run env NIX_USER_CONF_FILES="$T/noregistry.conf" NIX_CONF_DIR="$T/nonix" "$MOAT" run "path:$REG#x" -- true
expect_out "an unreachable flake registry is reported" \
	"^moat: warning: nix cannot reach http://127\\.0\\.0\\.1:9/flake-registry\\.json \\(.*\\) and keeps retrying"
expect_out "as the flake registry, with its setting" \
	"^moat: warning: that is nix's flake registry, .* set 'flake-registry' in nix\\.conf to a local file"
expect_no_out "and no word of substituters, already empty" 125 'substituters'
run env NIX_USER_CONF_FILES="$T/noregistry.conf" NIX_CONF_DIR="$T/nonix" nix flake metadata "path:$REG"
expect_out "control: nix itself retries the registry" "unable to download 'http://127\\.0\\.0\\.1:9/flake-registry\\.json'.*retrying"

# Control: the same settings without the cache say nothing of it.
"$MOAT" unpin slow >/dev/null 2>&1
fresh reachable
run "$MOAT" run slow -- fixture-slow
expect_no_out "control: no cache, no warning" 0 'cannot reach'

done_testing
