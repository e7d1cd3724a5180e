#!/usr/bin/env bash
# moat run --trace follows every process and thread the command starts and
# attributes each refusal to the one that was refused (name and pid); a
# static binary is caught like any other; the exit status, signals and the
# terminal are the command's own.
. "$(dirname "$0")/trace-lib.bash"

if ! build_probes; then
	not_ok "build tests/trace/probe.c"
	done_testing
	exit
fi
echo "A" >"$HOME/.ssh/a"
echo "B" >"$HOME/.ssh/b"

trace "$PROBE" fork "$HOME/.ssh/a" "$HOME/.ssh/b"
[ "$rc" = 0 ] && ok "control: both opens were refused inside" || not_ok "control: both opens were refused inside"
child=$(printed child) parent=$(printed parent)
expect_raw "the forked child's refusal is the child's" "^  probe\[$child\] +read +$HOME/.ssh/a$"
expect_raw "the parent's is the parent's" "^  probe\[$parent\] +read +$HOME/.ssh/b$"

trace "$PROBE" thread "$HOME/.ssh/a"
pid=$(printed pid) tid=$(printed tid)
[ "$rc" = 0 ] && [ -n "$tid" ] && [ "$tid" != "$pid" ] && ok "control: a second thread was refused" ||
	not_ok "control: a second thread was refused"
expect_raw "a thread's refusal is its process's (pid, not tid)" "^  probe\[$pid\] +read +$HOME/.ssh/a$"

if [ -n "$PROBE_STATIC" ]; then
	trace "$PROBE_STATIC" thread "$HOME/.ssh/b"
	pid=$(printed pid)
	[ "$rc" = 0 ] && ok "control: the static binary was refused" || not_ok "control: the static binary was refused"
	expect_raw "a statically linked binary's refusal is caught" "^  probe-static\[$pid\] +read +$HOME/.ssh/b$"
	trace "$PROBE_STATIC" fork "$HOME/.ssh/a" "$HOME/.ssh/b"
	expect_raw "and its forked child's" "^  probe-static\[$(printed child)\] +read +$HOME/.ssh/a$"
else
	skip "no static libc (libc6-dev's libc.a): cannot build a static probe"
	skip "no static libc: static fork"
fi

# Exec chains: the name follows the exec, the pid stays.
trace sh -c 'echo "sh=$$"; exec cat ~/.ssh/a'
expect_raw "after exec the process has the new name and the same pid" "^  cat\[$(printed sh)\] +read"

# make -j: parallel jobs, each its own process.
if command -v make >/dev/null; then
	printf 'all: a b\na:\n\t@cat %s\nb:\n\t@head %s\n' "$HOME/.ssh/a" "$HOME/.ssh/b" >"$PROJ/Makefile"
	trace make -j2 -k
	expect_report "make -j: the first job's refusal" "^ cat\[N\] read $HOME/.ssh/a$"
	expect_report "make -j: the second job's" "^ head\[N\] read $HOME/.ssh/b$"
	[ "$rc" = 2 ] && ok "and make's status passes through" || not_ok "and make's status passes through (got $rc)"
else
	skip "make is missing"
fi

# Wrapped tools: moat-wrapper's own probes (it opens / and $HOME to learn
# that it is in a session) are not the tool's refusals; its exec of a real
# binary the sandbox will not run is.
mkdir -p "$HOME/bin"
cp /bin/cat "$HOME/bin/mytool"
"$MOAT" wrap tools /bin/cat "$HOME/bin/mytool" >/dev/null 2>&1
trace_in tools sh -c 'cat ~/.ssh/a; mytool ~/.ssh/b'
expect_lines "a wrapped tool's refusals, and nothing of the wrapper's probes" 'path\(s\) denied' '^$' "$(
	cat <<EOF
 cat[N] read $HOME/.ssh/a
 mytool[N] exec $HOME/bin/mytool
EOF
)"

# Processes the command leaves behind end with it: the session's PID
# namespace goes when the command exits, so nothing is left to trace and
# nothing left over can be refused later (docs/security.md).
trace sh -c '(sleep 1; cat ~/.ssh/a) & echo started'
expect_no_out "moat does not wait for what the command started" 0 'waiting for the processes it started'
expect_nothing_denied "what it left behind was ended before it could be refused anything"
"$MOAT" run --trace -- sh -c 'sleep 6017 & exit 3' 2>"$T/bg.err"
bg_rc=$?
[ "$bg_rc" = 3 ] && ok "moat --trace returns at once, with the command's status" ||
	not_ok "moat --trace returns at once, with the command's status (got $bg_rc)"
sleep 6018 &
ctl=$!
expect_ok "control: pgrep finds a process by its command line" pgrep -f '^sleep 6018$'
kill "$ctl"
sleep 0.2
run pgrep -f '^sleep 6017$'
[ "$rc" -ne 0 ] && ok "and the leftover process is gone" || { not_ok "and the leftover process is gone" && _show pgrep; }

# Signals sent to moat reach the command, as they would without --trace.
for sig in TERM HUP; do
	rm -f "$PROJ/ready"
	"$MOAT" run --trace -- sh -c "trap 'echo got-$sig; exit 9' $sig; touch ready; while :; do sleep 0.1; done" \
		>"$T/sig.out" 2>&1 &
	mpid=$!
	for _ in $(seq 50); do [ -e "$PROJ/ready" ] && break; sleep 0.1; done
	kill -"$sig" "$mpid"
	wait "$mpid"
	sig_rc=$?
	[ "$sig_rc" = 9 ] && grep -q "got-$sig" "$T/sig.out" && ok "SIG$sig to moat reaches the command" ||
		not_ok "SIG$sig to moat reaches the command (status $sig_rc)"
done

# The terminal: the command keeps the foreground process group.
if command -v script >/dev/null; then
	run script -qec "'$MOAT' run --trace -- '$PROBE' tty" /dev/null
	# (script(1) types its EOF character into a raw terminal when its own
	# stdin ends: a leading ^@ is that, echoed.)
	grep -Eq '^(\^@)*foreground' "$T/.out" && ok "the command owns the terminal's foreground" ||
		{ not_ok "the command owns the terminal's foreground" && _show script; }
	run script -qec "'$MOAT' run --trace -- sh -c 'test -t 0 && test -t 1 && echo tty-ok; exit 3'" /dev/null
	grep -q 'tty-ok' "$T/.out" && ok "stdin and stdout are still the terminal" ||
		not_ok "stdin and stdout are still the terminal"
else
	skip "script(1) is missing: no terminal to test with"
	skip "script(1) is missing"
fi

# Standard input still reaches the command.
out=$(echo piped | "$MOAT" run --trace -- cat 2>/dev/null)
[ "$out" = piped ] && ok "stdin is the command's" || not_ok "stdin is the command's (got '$out')"

done_testing
