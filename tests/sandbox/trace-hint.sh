# When a command started by moat run fails on a terminal after a sign that
# the sandbox refused something (a permission error in its output, or a
# network narrowed to off or hosts), one line says how to see what the
# sandbox refused: the same command under --trace, ready to paste. Not on
# success, not after a failure with no such sign (issue 39), not without a
# terminal, not with -q, not with .trace_hint = false.
# kernel-independent: when moat prints the --trace hint.
. "$(dirname "$0")/../lib.sh"
command -v python3 >/dev/null || { skip "prerequisite: python3 missing (pseudo-terminal driver)"; done_testing; exit; }
PTY=$MOAT_SRC/tests/pty-run.py
CFG=$XDG_CONFIG_HOME/moat/config.zon
mkdir -p "$(dirname "$CFG")"
HINT='to see what the sandbox refused:'

run python3 "$PTY" -- "$MOAT" run -- cat "$HOME/.ssh/id_rsa"
[ "$rc" = 1 ] && ok "the failing command's status is kept" || not_ok "status $rc"
expect_out "one line names the --trace rerun" "^moat: exit status 1; $HINT  .*moat run --trace -- cat $(re_quote "$HOME/.ssh/id_rsa")"
[ "$(grep -c "$HINT" "$T/.out")" = 1 ] && ok "exactly one such line" || not_ok "$(grep -c "$HINT" "$T/.out") lines"

# Pasted as printed, it reports the refusal.
line=$(sed -n "s/^moat: exit status [0-9]*; $HINT  //p" "$T/.out" | tr -d '\r')
run sh -c "$line"
expect_out "pasted, the line runs the trace and it names the refused file" "$(re_quote "$HOME/.ssh/id_rsa")"
expect_out "with a moat allow line" "moat allow"

# Words the shell would change are quoted.
CMD='cat "$HOME/.ssh/id_rsa"; exit 3'
run python3 "$PTY" -- "$MOAT" run -- sh -c "$CMD" "it's"
expect_out "quoted words survive" "$HINT  .*moat run --trace -- sh -c $(re_quote "'$CMD'") 'it'\"'\"'s'"
line=$(sed -n "s/^moat: exit status [0-9]*; $HINT  //p" "$T/.out" | tr -d '\r')
run sh -c "$line"
[ "$rc" = 3 ] && ok "and the pasted line runs the same command (status 3)" || { not_ok "pasted status $rc"; _show "$line"; }
run python3 "$PTY" -- "$MOAT" run --here -- cat "$HOME/.ssh/id_rsa"
expect_out "--here is kept" "$HINT  .*moat run --here --trace -- cat"

# A failure with no sign of a refusal gets no line: nothing was refused,
# and --trace would find nothing.
run false
[ "$rc" = 1 ] && ok "control: false fails by itself" || not_ok "control: false exited $rc"
run python3 "$PTY" -- "$MOAT" run -- false
[ "$rc" = 1 ] && ! grep -q "$HINT" "$T/.out" && ok "no line after false" ||
	{ not_ok "no line after false" && _show "moat run -- false"; }
run python3 "$PTY" -- "$MOAT" run -- sh -c 'echo it failed >&2; exit 2'
[ "$rc" = 2 ] && ! grep -q "$HINT" "$T/.out" && ok "nor after a failure that says something else" ||
	{ not_ok "nor after a failure that says something else" && _show "moat run -- sh"; }
run python3 "$PTY" -- "$MOAT" run -- sh -c 'ls "$HOME" >/dev/null; exit 4'
[ "$rc" = 4 ] && grep -q "$HINT" "$T/.out" && ok "a refusal another program reported, then a failure: the line" ||
	{ not_ok "a refusal another program reported, then a failure: the line" && _show "moat run -- sh"; }
# The words may reach moat in two reads of the terminal.
run python3 "$PTY" -- "$MOAT" run -- sh -c 'printf "x: Permis" >&2; sleep 0.3; echo "sion denied" >&2; exit 1'
grep -q "$HINT" "$T/.out" && ok "words split between two reads are seen" ||
	{ not_ok "words split between two reads are seen" && _show "moat run -- sh"; }
run python3 "$PTY" -- "$MOAT" run -- sh -c 'echo "x: Operation not permitted" >&2; exit 1'
grep -q "$HINT" "$T/.out" && ok "EPERM's words too" || { not_ok "EPERM's words too" && _show "moat run -- sh"; }
# A network narrowed to off fails without a permission error.
run python3 "$PTY" -- "$MOAT" run --net off -- sh -c 'exit 5'
[ "$rc" = 5 ] && grep -q "$HINT" "$T/.out" && ok "--net off: a failure gets the line" ||
	{ not_ok "--net off: a failure gets the line" && _show "moat run --net off"; }

run python3 "$PTY" -- "$MOAT" run -- true
[ "$rc" = 0 ] && ! grep -q "$HINT" "$T/.out" && ok "no line after success" || not_ok "a line after success"
run "$MOAT" run -- cat "$HOME/.ssh/id_rsa"
[ "$rc" = 1 ] && ! grep -q "$HINT" "$T/.err" && ok "no line without a terminal" || not_ok "a line without a terminal"
run python3 "$PTY" -- "$MOAT" run -q -- cat "$HOME/.ssh/id_rsa"
[ "$rc" = 1 ] && ! grep -q "$HINT" "$T/.out" && ok "no line with -q" || not_ok "a line with -q"
printf '.{ .trace_hint = false }\n' >"$CFG"
run python3 "$PTY" -- "$MOAT" run -- cat "$HOME/.ssh/id_rsa"
[ "$rc" = 1 ] && ! grep -q "$HINT" "$T/.out" && ok "no line with .trace_hint = false" || not_ok "a line with .trace_hint = false"
printf '.{ .trace_hint = true }\n' >"$CFG"
run python3 "$PTY" -- "$MOAT" run -- cat "$HOME/.ssh/id_rsa"
grep -q "$HINT" "$T/.out" && ok ".trace_hint = true keeps it" || not_ok "no line with .trace_hint = true"

done_testing
