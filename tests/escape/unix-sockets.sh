#!/usr/bin/env bash
# Pathname unix sockets outside the sandbox (issue 6, item 2).
#
# Through them a sandboxed process could use the user's SSH agent, ask the
# user's systemd (D-Bus) to start a program outside, or become root through
# docker.sock. Landlock before ABI 9 does not mediate connect()/sendmsg() to a
# pathname socket, so on those kernels moat's seccomp policy refuses every way
# to make a new AF_UNIX socket that could reach one, while socketpair() and
# pipes keep working (docs/security.md). Every attempt has a control: the same
# probe, unconfined, reaches the same socket.
. "$(dirname "$0")/../lib.sh"

for h in sock io_uring_open; do cp "$HELPERS/$h" "$PROJ/$h"; done
ABI=$("$HELPERS/landlock_abi")
PY=/usr/bin/python3
servers=()
cleanup_servers() { for p in "${servers[@]}"; do kill "$p" 2>/dev/null; done; }
eval "$(trap -p EXIT | sed "s/^trap -- '/trap -- 'cleanup_servers; /")"

# serve MODE PATH: a greeting server outside the sandbox; waits until it listens.
serve() {
	local log="$T/server-${#servers[@]}.log"
	"$HELPERS/sock" "$1" "$2" >"$log" 2>&1 &
	servers+=($!)
	for _ in $(seq 50); do grep -q listening "$log" 2>/dev/null && break; sleep 0.05; done
	server_log=$log
}

# reach NAME CMD...: CMD (a probe that prints HELLO-FROM-SERVER on success)
# works unconfined and fails inside moat run, never showing the greeting.
reach() {
	local name=$1
	shift
	run "$@"
	if [ "$rc" -eq 0 ] && grep -q HELLO-FROM-SERVER "$T/.out"; then ok "control: $name"; else
		not_ok "control: $name (the probe does not work unconfined)" && _show "$@"; fi
	run "$MOAT" run -- "$@"
	local why
	why=$(grep -oiE 'permission denied|operation not permitted|function not implemented' "$T/.err" | head -1)
	if [ "$rc" -ne 0 ] && [ -n "$why" ] && ! grep -q HELLO-FROM-SERVER "$T/.out" "$T/.err"; then
		ok "refused: $name ($why)"
	else
		not_ok "refused: $name (want EACCES, EPERM or ENOSYS and no greeting)" && _show moat run -- "$@"
	fi
}

# --- sockets in denied places ----------------------------------------------
OUTSIDE=$T/outside.sock TMPSOCK=/tmp/moat-escape-$$.sock AGENTISH=$HOME/.ssh/agent.sock
eval "$(trap -p EXIT | sed "s|^trap -- '|trap -- 'rm -f $TMPSOCK; |")"
serve serve "$OUTSIDE"
serve serve "$TMPSOCK"
serve serve "$AGENTISH"
reach "connect to a socket next to the project ($OUTSIDE)" ./sock connect "$OUTSIDE"
reach "connect to a socket in /tmp" ./sock connect "$TMPSOCK"
reach "connect to an SSH_AUTH_SOCK-like socket in ~/.ssh" ./sock connect "$AGENTISH"
ln -s "$OUTSIDE" "$PROJ/link.sock"
reach "connect through a symlink in the root" ./sock connect "$PROJ/link.sock"
reach "connect by a relative path (../..)" ./sock connect "../../outside.sock"
reach "Python's socket module" "$PY" -c "import socket; s = socket.socket(socket.AF_UNIX); s.connect('$OUTSIDE'); print(s.recv(64).decode())"

# --- every way around a socket(AF_UNIX) refusal ----------------------------
reach "socket() with bit 32 of the family set" ./sock socket-high "$OUTSIDE"
if have_i386_gate; then
	reach "socket() through the i386 syscall gate" ./sock socket-i386 "$OUTSIDE"
	reach "socketcall(SYS_SOCKET) through the i386 gate" ./sock socketcall-i386 "$OUTSIDE"
else
	skip "prerequisite: the i386 syscall gate faults on this machine, so socket() through it cannot be tried"
fi
reach "IORING_OP_SOCKET + IORING_OP_CONNECT (io_uring)" ./io_uring_open socket "$OUTSIDE"
run "$MOAT" run -- ./sock stream-connect "$OUTSIDE"
ran_and_failed && ! grep -q 'HELLO' "$T/.out" && ok "a stream socketpair end cannot be re-connected elsewhere" ||
	{ not_ok "a stream socketpair end cannot be re-connected elsewhere" && _show stream-connect; }
run "$MOAT" run -- ./sock stream-sendto "$OUTSIDE"
ran_and_failed && ok "nor sent to another address" || { not_ok "nor sent to another address" && _show stream-sendto; }

# Datagram pairs: a connected datagram socket may still sendto() any path.
DGRAM=$T/dgram.sock
serve serve-dgram "$DGRAM"
for mode in dgram-sendto dgram-connect raw-sendto; do
	: >"$server_log"
	run ./sock "$mode" "$DGRAM"
	sleep 0.1
	grep -q MESSAGE-FROM-SANDBOX "$server_log" && ok "control: $mode reaches a datagram socket" ||
		not_ok "control: $mode reaches a datagram socket"
	: >"$server_log"
	run "$MOAT" run -- ./sock "$mode" "$DGRAM"
	sleep 0.1
	if ran_and_failed && ! grep -q MESSAGE-FROM-SANDBOX "$server_log"; then ok "refused: $mode"; else
		not_ok "refused: $mode (the server got: $(cat "$server_log"))" && _show "$mode"; fi
done

# --- a real ssh-agent ------------------------------------------------------
if command -v ssh-agent >/dev/null && command -v ssh-keygen >/dev/null; then
	ssh-keygen -q -t ed25519 -N '' -C MOAT-AGENT-KEY -f "$T/agent-key" </dev/null
	eval "$(ssh-agent -a "$HOME/.ssh/real-agent.sock" -s)" >/dev/null
	servers+=("$SSH_AGENT_PID")
	ssh-add -q "$T/agent-key" 2>/dev/null
	run ssh-add -l
	grep -q MOAT-AGENT-KEY "$T/.out" && ok "control: ssh-add -l lists the agent's key" || not_ok "control: ssh-add -l"
	run "$MOAT" run -- ssh-add -l
	ran_and_failed && ! grep -q MOAT-AGENT-KEY "$T/.out" && ok "refused: the user's ssh-agent (SSH_AUTH_SOCK)" ||
		{ not_ok "refused: the user's ssh-agent" && _show moat run -- ssh-add -l; }
	unset SSH_AUTH_SOCK SSH_AGENT_PID
else
	skip "prerequisite: ssh-agent and ssh-keygen for the agent test"
fi

# --- what keeps working ----------------------------------------------------
for type in stream seqpacket; do
	run "$MOAT" run -- ./sock socketpair "$type"
	expect_out "socketpair($type) works" "socketpair: ok ping"
done
run "$MOAT" run -- ./sock pipe
expect_out "pipes work" "pipe: ok ping"
run "$MOAT" run -- ./sock inet
expect_out "AF_INET sockets work (the network is open by design)" "inet: ok"
run "$MOAT" run -- "$PY" -c 'import subprocess; print(subprocess.run(["echo", "SUBPROCESS-OK"], capture_output=True, text=True).stdout.strip())'
expect_out "Python subprocess works" "^SUBPROCESS-OK$"
mp='import multiprocessing as mp
def child(c): c.send("MP-" + mp.current_process().name)
if __name__ == "__main__":
    for method in ("fork", "spawn"):
        ctx = mp.get_context(method); a, b = ctx.Pipe()
        p = ctx.Process(target=child, args=(b,), name=method); p.start(); print(a.recv()); p.join()'
printf '%s\n' "$mp" >"$PROJ/mp.py"
run "$MOAT" run -- "$PY" mp.py
expect_out "multiprocessing.Process + Pipe works (fork)" "^MP-fork$"
expect_out "multiprocessing.Process + Pipe works (spawn)" "^MP-spawn$"
if command -v node >/dev/null; then
	cat >"$PROJ/n.js" <<'EOF'
const cp = require('child_process');
if (process.argv[2] === 'child') { process.send('NODE-IPC-OK'); }
else {
  console.log(cp.execFileSync('sh', ['-c', 'echo NODE-PIPE-OK']).toString().trim());
  const f = cp.fork(__filename, ['child']); f.on('message', m => { console.log(m); f.kill(); });
}
EOF
	run "$MOAT" run -- node n.js
	expect_out "Node child_process pipes work" "^NODE-PIPE-OK$"
	expect_out "Node fork() IPC (a socketpair) works" "^NODE-IPC-OK$"
else
	skip "no node"
fi
if command -v make >/dev/null; then
	printf 'all: a b c\na b c:\n\t@echo made-$@ $(findstring jobserver,$(MAKEFLAGS))\n' >"$PROJ/Makefile"
	run "$MOAT" run -- make -s -j3
	expect_out "make -j3 works, with its jobserver" "made-c jobserver"
else
	skip "no make"
fi

# --- sockets inside the root: the documented difference between kernels ---
mkdir -p "$PROJ/run"
serve serve "$PROJ/run/made-outside.sock"
run "$MOAT" run -- ./sock connect "$PROJ/run/made-outside.sock"
if [ "$ABI" -ge 9 ]; then
	expect_out "ABI $ABI: a socket in the root is reachable" 'HELLO-FROM-SERVER'
	run "$MOAT" run -- ./sock selftest .moat/tmp/self.sock
	expect_out "ABI $ABI: a tool may listen on a socket in the root and connect to it" 'selftest: ok'
else
	[ "$rc" -ne 0 ] && grep -q 'socket: Permission denied' "$T/.err" &&
		ok "ABI $ABI: every new AF_UNIX socket is refused with EACCES, even for the root (docs/security.md)" ||
		{ not_ok "ABI $ABI: AF_UNIX socket() refused with EACCES" && _show connect; }
	run "$MOAT" run -- ./io_uring_open open readme
	grep -q 'setup: Function not implemented' "$T/.err" &&
		ok "ABI $ABI: io_uring answers ENOSYS, so runtimes fall back to plain syscalls" ||
		{ not_ok "ABI $ABI: io_uring answers ENOSYS" && _show io_uring; }
fi
# --- .sockets in config.zon: a socket let through on purpose ---
mkdir -p "$XDG_CONFIG_HOME/moat"
serve serve "$T/allowed.sock"
printf '.{ .sockets = .{ "%s" } }\n' "$T/allowed.sock" >"$XDG_CONFIG_HOME/moat/config.zon"
run "$MOAT" profile
expect_out "moat profile lists the socket" "^$T/allowed.sock +connect +socket\$"
run "$MOAT" run -- ./sock connect "$T/allowed.sock"
expect_out "a socket listed in .sockets is reachable" 'HELLO-FROM-SERVER'
if [ "$ABI" -lt 9 ]; then
	expect_out "ABI $ABI: moat warns that every pathname socket is now reachable" \
		'warning: .*every pathname unix socket is reachable'
	# What docs/security.md says of ABI < 9: not only the listed one.
	run "$MOAT" run -- ./sock connect "$AGENTISH"
	known_breakage "ABI $ABI: with .sockets listed, an unlisted socket (~/.ssh's) is reachable too" \
		"Landlock ABI < 9 cannot confine pathname sockets (docs/security.md)" \
		grep -q HELLO-FROM-SERVER "$T/.out"
	abstract=moat-sockets-$$
	"$HELPERS/sock" serve-abstract "$abstract" </dev/null >"$T/abstract-s.log" 2>&1 &
	servers+=($!)
	for _ in $(seq 50); do grep -q listening "$T/abstract-s.log" 2>/dev/null && break; sleep 0.05; done
	run "$MOAT" run -- ./sock connect-abstract "$abstract"
	if [ "$ABI" -ge 6 ]; then
		[ "$rc" -ne 0 ] && ! grep -q HELLO-FROM-SERVER "$T/.out" &&
			ok "ABI $ABI: an abstract socket outside stays refused (Landlock's scope)" ||
			{ not_ok "ABI $ABI: an abstract socket outside stays refused" && _show connect-abstract; }
	else
		known_breakage "ABI $ABI: with .sockets listed, abstract sockets are reachable too" \
			"Landlock ABI < 6 has no abstract-socket scope (docs/security.md)" \
			grep -q HELLO-FROM-SERVER "$T/.out"
	fi
else
	run "$MOAT" run -- ./sock connect "$OUTSIDE"
	expect_refused "ABI $ABI: an unlisted socket stays unreachable" 'HELLO-FROM-SERVER'
fi
printf '.{ .sockets = .{ "relative.sock" } }\n' >"$XDG_CONFIG_HOME/moat/config.zon"
expect_status "a relative socket path is refused" 125 "$MOAT" run -- true
rm "$XDG_CONFIG_HOME/moat/config.zon"

done_testing
