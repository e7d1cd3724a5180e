#!/usr/bin/env bash
# Signals and abstract unix sockets reaching processes outside the sandbox
# (issue 6, item 3). Landlock scopes both from ABI 6: a sandboxed process may
# signal, and connect to abstract sockets of, only processes in its own
# sandbox. On older kernels moat says so when it starts, and these tests skip.
. "$(dirname "$0")/../lib.sh"

cp "$HELPERS/sock" "$PROJ/sock"
ABI=$("$HELPERS/landlock_abi")
PY=/usr/bin/python3
pids=()
eval "$(trap -p EXIT | sed "s/^trap -- '/trap -- 'kill \${pids[*]} 2>\/dev\/null; /")"

alive() { kill -0 "$1" 2>/dev/null; }

# trapper NAME: an outside process that records each SIGUSR1/SIGIO in
# $T/got-NAME and otherwise sleeps, in its own process group; its pid in $pg.
trapper() {
	setsid bash -c "trap 'echo USR1 >>$T/got-$1' USR1; trap 'echo IO >>$T/got-$1' IO; echo \$\$ >$T/pid-$1; while :; do sleep 0.05; done" </dev/null >/dev/null 2>&1 &
	for _ in $(seq 50); do [ -s "$T/pid-$1" ] && break; sleep 0.05; done
	pg=$(cat "$T/pid-$1")
	pids+=("$pg")
}

if [ "$ABI" -lt 6 ]; then
	skip "prerequisite: Landlock ABI 6 to scope signals and abstract sockets (this kernel has $ABI; moat says so)"
	done_testing
	exit
fi

# --- signals ---------------------------------------------------------------
sleep 300 </dev/null >/dev/null 2>&1 &
victim=$!
pids+=("$victim")
expect_denied "kill -TERM a process started outside" "$MOAT" run -- kill -TERM "$victim"
alive "$victim" && ok "and it is still alive" || not_ok "and it is still alive"
expect_denied "kill -0 the shell that started moat (probing counts too)" "$MOAT" run -- kill -0 "$$"
expect_denied "kill -CONT the shell that started moat" "$MOAT" run -- sh -c 'kill -CONT "$1"' sh "$$"

trapper group
expect_denied "kill -USR1 an outside process group" "$MOAT" run -- kill -USR1 -- "-$pg"
run "$MOAT" run -- "$PY" -c "import os, signal; signal.pidfd_send_signal(os.pidfd_open($pg), signal.SIGUSR1)"
grep -q PermissionError "$T/.err" && ok "pidfd_send_signal to an outside process is refused" ||
	{ not_ok "pidfd_send_signal to an outside process is refused" && _show pidfd_send_signal; }
# F_SETOWN + O_ASYNC: the kernel sends SIGIO on our behalf when the pipe is written.
run "$MOAT" run -- "$PY" -c "
import fcntl, os, time
r, w = os.pipe()
fcntl.fcntl(r, fcntl.F_SETOWN, $pg)
fcntl.fcntl(r, fcntl.F_SETFL, os.O_ASYNC | os.O_NONBLOCK)
os.write(w, b'x'); time.sleep(0.3); print('SIGIO-ATTEMPTED')"
sleep 0.3
grep -q SIGIO-ATTEMPTED "$T/.out" && [ ! -e "$T/got-group" ] &&
	ok "SIGIO through F_SETOWN does not reach an outside process" ||
	{ not_ok "SIGIO through F_SETOWN does not reach an outside process ($(cat "$T/got-group" 2>/dev/null))" && _show sigio; }
kill -USR1 -- "-$pg"
sleep 0.3
grep -q USR1 "$T/got-group" 2>/dev/null && ok "control: the same group receives USR1 from outside" ||
	not_ok "control: the same group receives USR1 from outside"

# Another sandbox is "outside" too.
"$MOAT" run -- sleep 300 </dev/null >/dev/null 2>&1 &
other=$!
pids+=("$other")
sleep 0.3
expect_denied "kill a process in another moat sandbox" "$MOAT" run -- kill -TERM "$other"
alive "$other" && ok "and it is still alive" || not_ok "and the other sandbox's process is still alive"

run "$MOAT" run -- sh -c 'sleep 30 & p=$!; kill -TERM "$p"; wait "$p"; echo "child status=$?"'
expect_out "a signal to a child inside the sandbox works" '^child status=143$'
run "$MOAT" run -- sh -c 'trap "echo SELF-USR1" USR1; kill -USR1 $$; :'
expect_out "and to itself" '^SELF-USR1$'

# --- abstract unix sockets -------------------------------------------------
name="moat-escape-$$"
"$HELPERS/sock" serve-abstract "$name" </dev/null >"$T/abstract.log" 2>&1 &
pids+=($!)
sleep 0.2
run ./sock connect-abstract "$name"
expect_out "control: the abstract socket answers outside" 'HELLO-FROM-SERVER'
expect_denied "connect to an abstract socket outside" "$MOAT" run -- ./sock connect-abstract "$name"
expect_no_out "and no greeting arrives" 'HELLO-FROM-SERVER'
run "$MOAT" run -- "$PY" -c "
import socket
s = socket.socket(socket.AF_UNIX); s.bind('\0$name-inside'); s.listen(1)
c = socket.socket(socket.AF_UNIX); c.connect('\0$name-inside'); a, _ = s.accept()
c.send(b'ABSTRACT-INSIDE-OK'); print(a.recv(32).decode())"
if [ "$ABI" -ge 9 ]; then
	expect_out "an abstract socket inside the sandbox works" '^ABSTRACT-INSIDE-OK$'
else
	known_breakage "an abstract socket inside the sandbox works" \
		"ABI $ABI < 9: socket(AF_UNIX) is refused, so abstract sockets inside do not work either (docs/security.md)" \
		grep -q PermissionError "$T/.err"
fi

done_testing
