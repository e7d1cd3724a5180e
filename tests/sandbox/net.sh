#!/usr/bin/env bash
# The network policy (issue 36): off and ports, for sessions and wrapped
# tools, against real sockets on this machine only (loopback, and an
# address of the machine's own). Each refusal has a control that works
# without moat. Named hosts: tests/sandbox/hosts.sh.
. "$(dirname "$0")/../lib.sh"

I=$PROJ/inet
cp "$HELPERS/inet" "$I"
CFG=$XDG_CONFIG_HOME/moat/config.zon
mkdir -p "$(dirname "$CFG")"
# Port rules need Landlock ABI 4 (Linux 6.7): below it, a ports policy is
# refused (checked below) and the tests that need one are skipped.
ABI=$("$HELPERS/landlock_abi" 2>/dev/null || echo 0)
NOPORTS="prerequisite: Landlock ABI 4 (Linux 6.7) for port rules; this kernel has ABI $ABI, where a ports policy is refused"
# Ports of our own, apart from a parallel run's (root and nobody).
P=$((20000 + ($$ % 4000) * 5))
P2=$((P + 1)) P3=$((P + 2)) P4=$((P + 3))
NONLO=$(ip -4 -o addr show 2>/dev/null | awk '$2 != "lo" { sub("/.*", "", $4); print $4; exit }')

pids=()
cleanup_servers() { [ ${#pids[@]} -eq 0 ] || kill "${pids[@]}" 2>/dev/null; }
trap 'cleanup_servers; chmod -R u+rwX "$T" 2>/dev/null; rm -rf "$T" "${TMPDECOY:-}"' EXIT
"$I" tcp-serve 127.0.0.1 "$P" >/dev/null 2>&1 &
pids+=($!)
"$I" udp-serve 127.0.0.1 "$P" >"$T/udp.log" 2>&1 &
pids+=($!)
"$I" tcp-serve 127.0.0.1 "$P2" >/dev/null 2>&1 &
pids+=($!)
[ -n "$NONLO" ] && { "$I" tcp-serve "$NONLO" "$P3" >/dev/null 2>&1 & pids+=($!); }

# received: the UDP listener's log shows a datagram, waited for a while (a
# loaded machine delivers late; a test that wants none waits as long).
received() {
	for _ in $(seq 20); do
		grep -q DATAGRAM "$T/udp.log" && return 0
		sleep 0.1
	done
	return 1
}
# A datagram sent before the listener is bound is lost (tcp-connect retries
# a refused connection by itself).
for _ in $(seq 100); do grep -q '^udp-serve: ready' "$T/udp.log" && break; sleep 0.1; done

# Controls: the servers answer without moat, and with moat's default (open).
expect_ok "control: TCP on 127.0.0.1 works without moat" "$I" tcp-connect 127.0.0.1 "$P"
expect_ok "control: UDP to 127.0.0.1 is sent without moat" "$I" udp-send 127.0.0.1 "$P"
received && ok "control: the UDP listener received it" ||
	not_ok "control: the UDP listener received it"
: >"$T/udp.log"
if [ -n "$NONLO" ]; then
	expect_ok "control: TCP to this machine's $NONLO works without moat" "$I" tcp-connect "$NONLO" "$P3"
else
	skip "prerequisite: no non-loopback address on this machine"
fi
expect_ok "control: TCP Fast Open to a port works without moat" "$I" tcp-fastopen 127.0.0.1 "$P2"
expect_ok "the default stays open: moat run reaches the server" "$MOAT" run -- "$I" tcp-connect 127.0.0.1 "$P"
expect_out "and reads its greeting" "HELLO-FROM-INET"

# off, in a session: nothing outside is reachable.
run "$MOAT" run --net off -- "$I" tcp-connect 127.0.0.1 "$P"
ran_and_failed && ! grep -q HELLO "$T/.out" && ok "off: the host's TCP server on 127.0.0.1 is unreachable" ||
	{ not_ok "off: the host's TCP server on 127.0.0.1 is unreachable" && _show; }
if [ -n "$NONLO" ]; then
	run "$MOAT" run --net off -- "$I" tcp-connect "$NONLO" "$P3"
	ran_and_failed && ! grep -q HELLO "$T/.out" && ok "off: the server on $NONLO is unreachable" ||
		{ not_ok "off: the server on $NONLO is unreachable" && _show; }
fi
run "$MOAT" run --net off -- "$I" udp-send 127.0.0.1 "$P"
! received && [ "$rc" -lt 125 ] && ok "off: the host's UDP listener receives nothing" ||
	{ not_ok "off: the host's UDP listener receives nothing" && _show; }
for m in raw ping packet; do
	run "$MOAT" run --net off -- "$I" $m
	ran_and_failed && grep -q "socket:" "$T/.err" && ok "off: a $m socket is refused" ||
		{ not_ok "off: a $m socket is refused" && _show; }
done
run "$MOAT" run --net off -- sh -c "'$I' tcp-serve 127.0.0.1 $P4 & '$I' tcp-connect 127.0.0.1 $P4; s=\$?; kill \$!; exit \$s"
[ "$rc" -eq 0 ] && grep -q HELLO-FROM-INET "$T/.out" &&
	ok "off: a server on 127.0.0.1 inside the session serves a client in it" ||
	{ not_ok "off: a server on 127.0.0.1 inside the session serves a client in it" && _show; }

# A socket handed over on stdin lives in the caller's network, not the
# session's: disconnected (AF_UNSPEC) and connected again, it would reach
# any host. Under off or ports moat refuses to start with one; open keeps it.
PY=/usr/bin/python3
if [ -x "$PY" ]; then
	repoint="import socket, ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
s = socket.socket(fileno=os.dup(0))
libc.connect(s.fileno(), (ctypes.c_ubyte * 16)(), 16)
s.connect(('127.0.0.1', $P2))
print('REPOINTED', s.recv(64))"
	run bash -c "exec 0<>/dev/tcp/127.0.0.1/$P && '$PY' -c \"\$1\"" sh "$repoint"
	expect_out "control: without moat, a socket on stdin is pointed at another port" "REPOINTED b'HELLO-FROM-INET"
	for pol in off "$P"; do
		run bash -c "exec 0<>/dev/tcp/127.0.0.1/$P && '$MOAT' run --net $pol -- '$PY' -c \"\$1\"" sh "$repoint"
		[ "$rc" = 125 ] && ! grep -q REPOINTED "$T/.out" && grep -q "standard input is a socket" "$T/.err" &&
			ok "--net $pol: a session with a network socket on stdin is refused" ||
			{ not_ok "--net $pol: a session with a network socket on stdin is refused" && _show; }
	done
	run bash -c "exec 0<>/dev/tcp/127.0.0.1/$P && '$MOAT' run --net open -- true"
	[ "$rc" = 0 ] && ok "--net open: a socket on stdin is no reason to refuse" || { not_ok "--net open: a socket on stdin" && _show; }
else
	skip "prerequisite: $PY, to point a socket on stdin elsewhere"
fi

# off for a wrapped tool outside a session: seccomp (and Landlock's TCP
# rights), no namespace.
"$MOAT" wrap nettools "$I" >/dev/null
W=$XDG_DATA_HOME/moat/shells/nettools/bin/inet
export MOAT_ROOT=$PROJ
expect_ok "control: the wrapped tool reaches the server with no .net rule" "$W" tcp-connect 127.0.0.1 "$P"
printf '.{ .net = .{ .{ .bin = "inet", .off = true } } }\n' >"$CFG"
expect_denied "off (config.zon): the wrapped tool cannot make a TCP socket" "$W" tcp-connect 127.0.0.1 "$P"
for m in raw ping packet netlink; do
	expect_denied "off (config.zon): the wrapped tool's $m socket is refused" "$W" $m
done
expect_denied "off (config.zon): nor a UDP one" "$W" udp-send 127.0.0.1 "$P"
expect_ok "off: unix sockets still work (a socketpair)" "$MOAT_BUILD/tests/helpers/sock" socketpair stream
if [ "$ABI" -ge 4 ]; then
	printf '.{ .net = .{ .{ .bin = "*", .off = true }, .{ .bin = "inet", .connect = .{ %s } } } }\n' "$P" >"$CFG"
	expect_ok "the union: \"*\" off and inet's port give inet its port" "$W" tcp-connect 127.0.0.1 "$P"
	expect_denied "and nothing more" "$W" tcp-connect 127.0.0.1 "$P2"
else
	skip "$NOPORTS"
fi
unset MOAT_ROOT
rm -f "$CFG"

# ports: only the named ones, TCP only.
if [ "$ABI" -lt 4 ]; then
	run "$MOAT" run --net "$P" -- "$I" tcp-connect 127.0.0.1 "$P"
	[ "$rc" = 125 ] && grep -q "ABI $ABI" "$T/.err" && grep -q "Linux 6.7" "$T/.err" && ! grep -q HELLO "$T/.out" &&
		ok "ABI $ABI: a ports policy is refused, naming the kernel" ||
		{ not_ok "ABI $ABI: a ports policy is refused, naming the kernel" && _show; }
	skip "$NOPORTS"
else
expect_ok "ports: connect to the allowed port works" "$MOAT" run --net "$P" -- "$I" tcp-connect 127.0.0.1 "$P"
expect_denied "ports: another port is refused" "$MOAT" run --net "$P" -- "$I" tcp-connect 127.0.0.1 "$P2"
if [ -n "$NONLO" ]; then
	expect_denied "ports: the port on $NONLO that is not named is refused" "$MOAT" run --net "$P" -- "$I" tcp-connect "$NONLO" "$P3"
	expect_ok "ports: a named port reaches $NONLO too (a rule has no address)" "$MOAT" run --net "$P3" -- "$I" tcp-connect "$NONLO" "$P3"
fi
expect_denied "ports: UDP is refused" "$MOAT" run --net "$P" -- "$I" udp-send 127.0.0.1 "$P"
expect_denied "ports: TCP Fast Open (a connect without connect()) is refused" "$MOAT" run --net "$P" -- "$I" tcp-fastopen 127.0.0.1 "$P2"
for m in raw ping packet sctp netlink; do
	expect_denied "ports: a $m socket is refused" "$MOAT" run --net "$P" -- "$I" $m
done
expect_ok "ports: listen on the allowed port works" "$MOAT" run --net "listen:$P4" -- "$I" tcp-listen 127.0.0.1 "$P4"
expect_denied "ports: listen on another port is refused" "$MOAT" run --net "listen:$P4" -- "$I" tcp-listen 127.0.0.1 $((P4 + 1))
expect_denied "ports: a listen port is no connect port" "$MOAT" run --net "listen:$P" -- "$I" tcp-connect 127.0.0.1 "$P"
fi

# A ports policy below Landlock ABI 4 is refused, never widened.
AMOAT=$MOAT_BUILD/abi/moat
if [ -x "$AMOAT" ] && [ "$ABI" -ge 4 ]; then
	run env MOAT_TEST_LANDLOCK_ABI=3 "$AMOAT" run --net "$P" -- "$I" tcp-connect 127.0.0.1 "$P"
	[ "$rc" = 125 ] && grep -q "ABI 3" "$T/.err" && grep -q "Linux 6.7" "$T/.err" && ! grep -q HELLO "$T/.out" &&
		ok "ABI 3: a ports policy is refused, naming the kernel" || { not_ok "ABI 3: a ports policy is refused" && _show; }
	run env MOAT_TEST_LANDLOCK_ABI=3 "$AMOAT" run --net off -- "$I" tcp-connect 127.0.0.1 "$P"
	ran_and_failed && ! grep -q HELLO "$T/.out" && ok "ABI 3: off still works" || { not_ok "ABI 3: off still works" && _show; }
	printf '.{ .net = .{ .{ .bin = "npm", .connect = .{ 443 } } } }\n' >"$CFG"
	run env MOAT_TEST_LANDLOCK_ABI=3 "$AMOAT" check
	[ "$rc" -ne 0 ] && grep -q "config.zon:1:14: npm's network is limited to TCP ports, which this kernel's Landlock (ABI 3) cannot judge" "$T/.out" &&
		ok "ABI 3: moat check says a ports rule will not start" || { not_ok "ABI 3: moat check says a ports rule will not start" && _show; }
	run env MOAT_TEST_LANDLOCK_ABI=4 "$AMOAT" check
	! grep -q "limited to TCP ports" "$T/.out" && ok "ABI 4: it does not" || { not_ok "ABI 4: it does not" && _show; }
	rm -f "$CFG"
else
	skip "prerequisite: the test build in $MOAT_BUILD/abi, on a kernel of Landlock ABI 4 or more (this one: $ABI)"
fi

# Bad input.
run "$MOAT" run --net https://example.org -- true
[ "$rc" = 2 ] && grep -q "a URL where a host name belongs" "$T/.err" && grep -q "^hint:" "$T/.err" &&
	ok "--net with a URL is refused with a hint (hosts: tests/sandbox/hosts.sh)" || { not_ok "--net with a URL is refused" && _show; }
run "$MOAT" shell --net 70000
[ "$rc" = 2 ] && grep -q "out of range" "$T/.err" && ok "a port out of range is refused" || { not_ok "a port out of range is refused" && _show; }
printf '.{ .net = .{ .{ .bin = "npm", .connect = .{ 443, 65536 } } } }\n' >"$CFG"
run "$MOAT" check
[ "$rc" -ne 0 ] && grep -q "config.zon:1:50: port 65536 in '.connect' is out of range" "$T/.out" &&
	ok "moat check: a port out of range at file:line:col" || { not_ok "moat check: a port out of range" && _show; }
rm -f "$CFG"

# moat allow --net writes config.zon; the next run follows it.
expect_ok "moat allow --net inet off" "$MOAT" allow --net inet off
grep -q '.bin = "inet", .off = true' "$CFG" && ok "config.zon holds the rule" || not_ok "config.zon holds the rule"
run "$MOAT" allow --net
expect_out "moat allow --net lists it" "^inet +net off"
expect_ok "moat allow --net inet PORT" "$MOAT" allow --net inet "$P" "listen:$P4"
grep -q ".connect = .{ $P }, .listen = .{ $P4 }" "$CFG" && ok "replacing off with ports" || { not_ok "replacing off with ports" && cat "$CFG"; }
expect_ok "moat allow -r --net removes a port" "$MOAT" allow -r --net inet "listen:$P4"
grep -q ".listen" "$CFG" && not_ok "the listen port is gone" || ok "the listen port is gone"
expect_status "moat allow --net with a URL is refused" 1 "$MOAT" allow --net inet https://example.org
rm -f "$CFG"

# moat profile shows the policy.
run "$MOAT" profile
expect_out "moat profile: open by default" "^network +open"
printf '.{ .net = .{ .{ .bin = "*", .connect = .{ 443 }, .listen = .{ 3000 } } } }\n' >"$CFG"
run "$MOAT" profile
expect_out "moat profile: the session's ports" "^network +ports +443,listen:3000"
run "$MOAT" profile --json
expect_out "moat profile --json: the level and the ports" '"network":"ports","network_connect":\[443\],"network_listen":\[3000\]'
cp "$T/.out" "$T/profile.json"
if problems=$(python3 "$MOAT_SRC/tests/json-validate.py" "$MOAT_SRC/docs/json-schema.json" profile "$T/profile.json" 2>&1); then
	ok "and it validates against docs/json-schema.json"
else
	not_ok "and it validates against docs/json-schema.json" && echo "$problems" | sed 's/^/#   /'
fi
run "$MOAT" profile --format sbpl
expect_out "the SBPL rendering allows the port" 'allow network-outbound \(remote tcp "\*:443"\)'
rm -f "$CFG"

# --trace: the refused port as a `moat allow --net` line that, pasted,
# makes the next run work.
if [ "$ABI" -lt 4 ]; then
	skip "$NOPORTS"
else
printf '.{ .net = .{ .{ .bin = "*", .connect = .{ %s } } } }\n' "$P" >"$CFG"
run "$MOAT" run -- "$I" tcp-connect 127.0.0.1 "$P2"
ran_and_failed && ! grep -q HELLO "$T/.out" && ok "control: the port the policy does not name is refused" ||
	{ not_ok "control: the port the policy does not name is refused" && _show; }
run "$MOAT" run --trace --json="$T/trace.json" -- "$I" tcp-connect 127.0.0.1 "$P2"
line=$(grep -o "moat allow --net inet $P2\$" "$T/.err")
[ -n "$line" ] && ok "--trace prints the moat allow --net line" || { not_ok "--trace prints the moat allow --net line" && _show; }
if problems=$(python3 "$MOAT_SRC/tests/json-validate.py" "$MOAT_SRC/docs/json-schema.json" trace "$T/trace.json" 2>&1) &&
	grep -q '"kind":"net"' "$T/trace.json"; then
	ok "the JSON report has it as a net suggestion, and validates"
else
	not_ok "the JSON report has it as a net suggestion, and validates" && echo "$problems" | sed 's/^/#   /'
fi
run "$MOAT"${line#moat}
expect_ok "pasted, the line works" true
expect_ok "and the next run reaches the server" "$MOAT" run -- "$I" tcp-connect 127.0.0.1 "$P2"
run "$MOAT" run --trace -- "$I" udp-send 127.0.0.1 "$P"
expect_out "a refused UDP socket: the line is 'open'" "moat allow --net inet open"
run "$MOAT" run --trace -- "$I" tcp-listen 127.0.0.1 "$P4"
expect_out "a refused listen: the line names listen:PORT" "moat allow --net inet listen:$P4\$"
run "$MOAT" run --net off --trace -- "$I" tcp-connect "${NONLO:-127.0.0.1}" "$P3"
if [ -n "$NONLO" ]; then
	expect_out "off in a session: an unreachable connect is reported with its port" "moat allow --net inet $P3\$"
fi
rm -f "$CFG"
fi

# Approvals: an answer given for off is asked again when the network widens.
PTY=$MOAT_SRC/tests/pty-run.py
if ! command -v python3 >/dev/null; then
	skip "prerequisite: python3 for the pseudo-terminal driver"
elif [ "$ABI" -lt 4 ]; then
	skip "$NOPORTS"
else
	printf '.{ .confirm = .{ "inet" }, .net = .{ .{ .bin = "*", .off = true } } }\n' >"$CFG"
	run python3 "$PTY" --answer y -- "$MOAT" run -- "$I" raw
	expect_out "the prompt lists the policy" "network +off"
	run setsid "$MOAT" run -- "$I" raw
	ran_and_failed && ok "approved with off: no question next time" || { not_ok "approved with off: no question next time" && _show; }
	printf '.{ .confirm = .{ "inet" }, .net = .{ .{ .bin = "*", .connect = .{ %s } } } }\n' "$P" >"$CFG"
	run setsid "$MOAT" run -- "$I" tcp-connect 127.0.0.1 "$P"
	[ "$rc" = 125 ] && grep -q "needs confirmation" "$T/.err" && ! grep -q HELLO "$T/.out" &&
		ok "off to ports asks again" || { not_ok "off to ports asks again" && _show; }
	run python3 "$PTY" --answer y -- "$MOAT" run -- "$I" tcp-connect 127.0.0.1 "$P"
	expect_out "the prompt lists the port" "network +TCP ports only: $P"
	printf '.{ .confirm = .{ "inet" }, .net = .{ .{ .bin = "*", .connect = .{ %s, %s } } } }\n' "$P" "$P2" >"$CFG"
	run setsid "$MOAT" run -- "$I" tcp-connect 127.0.0.1 "$P"
	[ "$rc" = 125 ] && grep -q "needs confirmation" "$T/.err" && ok "a new port asks again" ||
		{ not_ok "a new port asks again" && _show; }
	run setsid "$MOAT" run --net open -- "$I" tcp-connect 127.0.0.1 "$P"
	[ "$rc" = 125 ] && grep -q "needs confirmation" "$T/.err" && ok "ports to open asks again" ||
		{ not_ok "ports to open asks again" && _show; }
	run setsid "$MOAT" run --net off -- "$I" raw
	ran_and_failed && ok "narrowing to off does not ask" || { not_ok "narrowing to off does not ask" && _show; }
	rm -f "$CFG"
fi

done_testing
