# MOAT_CONFIRM=always asks for every binary, listed in .confirm or not (the
# original's review of what a project runs); a .confirm entry naming a
# shell makes a session with that shell ask.
# kernel-independent: which tools ask, and what the prompt says.
. "$(dirname "$0")/../lib.sh"
command -v python3 >/dev/null || { skip "prerequisite: python3 missing (pseudo-terminal driver)"; done_testing; exit; }
PTY=$MOAT_SRC/tests/pty-run.py
CFG=$XDG_CONFIG_HOME/moat/config.zon
mkdir -p "$(dirname "$CFG")"
printf '.{ .confirm = .{ "cat" } }\n' >"$CFG"
echo content >"$PROJ/file"

# Control: head is not in .confirm, so it runs without asking.
expect_ok "control: an unlisted binary runs without a terminal" setsid "$MOAT" run -- head -n1 file
expect_status "MOAT_CONFIRM=always asks for an unlisted binary (no terminal: refused)" 125 \
	env MOAT_CONFIRM=always setsid "$MOAT" run -- head -n1 file
expect_out "saying it was not confirmed" "not started|no terminal|MOAT_CONFIRM"
run env MOAT_CONFIRM=always python3 "$PTY" --answer y -- "$MOAT" run -- head -n1 file
[ "$rc" = 0 ] && grep -q 'about to run head' "$T/.out" && grep -q content "$T/.out" &&
	ok "always: the prompt names it, and yes runs it" || { not_ok "always + yes"; _show "(pty)"; }
expect_status "always: no is no" 125 env MOAT_CONFIRM=always python3 "$PTY" --answer n -- "$MOAT" run -- head -n1 file
expect_ok "always stored nothing: without it, head still runs unasked" setsid "$MOAT" run -- head -n1 file

# A wrapped tool outside a session asks too.
"$MOAT" wrap tools /usr/bin/head >/dev/null 2>&1
TOOLS=$XDG_DATA_HOME/moat/shells/tools/bin
expect_ok "control: the wrapped head runs unasked" env MOAT_ROOT="$PROJ" setsid "$TOOLS/head" -n1 file
expect_status "always: the wrapped head asks (no terminal: refused)" 125 \
	env MOAT_ROOT="$PROJ" MOAT_CONFIRM=always setsid "$TOOLS/head" -n1 file

# .confirm naming a shell: a session with that shell asks.
expect_ok "control: a session with the shell runs unasked" setsid "$MOAT" run tools -- true
printf '.{ .confirm = .{ "tools" } }\n' >"$CFG"
expect_status ".confirm naming a shell: moat run with it asks (no terminal: refused)" 125 \
	setsid "$MOAT" run tools -- true
expect_ok "and a session without it does not" setsid "$MOAT" run -- true
expect_status "moat shell with it asks too" 125 env SHELL=/bin/true setsid "$MOAT" shell tools
run python3 "$PTY" --answer y -- "$MOAT" run tools -- head -n1 file
[ "$rc" = 0 ] && grep -q content "$T/.out" && ok "yes: the session runs" || { not_ok "shell confirm + yes"; _show "(pty)"; }

done_testing
