#!/usr/bin/env bash
# The hosts policy (issue 36): a session's own network namespace, and
# moat's proxy outside it that lets named hosts through and nothing else.
# Servers on this machine only: one on 127.0.0.1 and one on an address of
# the machine's own (refused by the proxy whatever name leads there), and,
# as root, one in a network namespace the test makes (a veth pair), named
# in a copy of /etc/hosts bound over the real one in a private mount
# namespace (getaddrinfo as the system does it; the host's file is never
# touched). Each refusal has a control that works without moat.
. "$(dirname "$0")/../lib.sh"

CFG=$XDG_CONFIG_HOME/moat/config.zon
mkdir -p "$(dirname "$CFG")"
# The system's python3 (the sandbox runs what the system directories
# hold), for clients inside the session.
PY=/usr/bin/python3
for tool in curl "$PY"; do
	command -v "$tool" >/dev/null || {
		skip "prerequisite: $tool"
		done_testing
		exit
	}
done
# Ports of our own, apart from a parallel run's (root and nobody).
P=$((24000 + ($$ % 4000)))
NONLO=$(ip -4 -o addr show 2>/dev/null | awk '$2 != "lo" && $2 !~ /^mth/ { sub("/.*", "", $4); print $4; exit }')
# A threaded HTTP server with room in its backlog for the load test:
# serve ADDR PORT DIR, "ready" on stdout once it listens.
SERVE='import http.server, socket, sys, functools
class S(http.server.ThreadingHTTPServer):
    request_queue_size = 512
    address_family = socket.AF_INET6 if ":" in sys.argv[1] else socket.AF_INET
h = functools.partial(http.server.SimpleHTTPRequestHandler, directory=sys.argv[3])
h.func.log_message = lambda *a: None
s = S((sys.argv[1], int(sys.argv[2])), h)
print("ready", flush=True)
s.serve_forever()'
WWW=$T/www
mkdir -p "$WWW"
echo "HELLO-FROM-SERVER" >"$WWW/index.html"

pids=()
NS= VETH= ANYIP=
cleanup() {
	[ ${#pids[@]} -eq 0 ] || kill "${pids[@]}" 2>/dev/null
	[ -z "$ANYIP" ] || ip route del local "$ANYIP" dev lo 2>/dev/null
	[ -z "$VETH" ] || ip link del "$VETH" 2>/dev/null
	[ -z "$NS" ] || ip netns del "$NS" 2>/dev/null
	chmod -R u+rwX "$T" 2>/dev/null
	rm -rf "$T" "${TMPDECOY:-}"
}
trap cleanup EXIT
# serve PREFIX... ADDR PORT: a server started under PREFIX (env, ip netns
# exec ...), waited for.
serve() {
	local log=$T/serve.$RANDOM addr=${*: -2:1} port=${*: -1}
	"${@:1:$#-2}" python3 -c "$SERVE" "$addr" "$port" "$WWW" >"$log" 2>&1 &
	pids+=($!)
	for _ in $(seq 100); do grep -q ready "$log" && return 0; sleep 0.1; done
	return 1
}
serve env 127.0.0.1 "$P"
[ -n "$NONLO" ] && serve env "$NONLO" "$P"

# In a session: the proxy's address, for a client told to use it even
# for loopback (curl skips it there: NO_PROXY).
VIA_PROXY='curl -sS --max-time 10 -x "$HTTP_PROXY" --noproxy ""'

# --- What holds for every user -------------------------------------------

expect_ok "control: the server on 127.0.0.1 answers without moat" curl -sSf --max-time 10 "http://127.0.0.1:$P/"
run "$MOAT" run --net localhost:"$P" -- sh -c "env | grep -ic 'proxy=http://127.0.0.1:'; $VIA_PROXY http://localhost:$P/"
[ "$rc" = 0 ] && grep -q "moat never connects to loopback" "$T/.out" && ! grep -q HELLO "$T/.out" &&
	ok "a name the policy allows that resolves to loopback is refused by the proxy" ||
	{ not_ok "a name that resolves to loopback is refused" && _show; }
expect_out "the tool is told the proxy's address (HTTP_PROXY, HTTPS_PROXY, ALL_PROXY, npm's, in both cases)" "^8$"
run "$MOAT" run --net localhost:"$P" -- curl -sSf --max-time 10 "http://other.test:$P/"
ran_and_failed && grep -q "403" "$T/.err" && ok "another name is refused (403), and never resolved" ||
	{ not_ok "another name is refused (403)" && _show; }
run "$MOAT" run --net localhost:"$P" -- curl -sSf --max-time 10 -p "http://other.test:$P/"
ran_and_failed && grep -q "403" "$T/.err" &&
	ok "and through CONNECT too" || { not_ok "refused through CONNECT" && _show; }
run "$MOAT" run --net localhost:"$P" -- curl -sS --max-time 10 "http://other.test:$P/"
expect_out "the refusal says why" "other.test port $P is not in this session's network policy"
# --trace: the proxy's refusals are the proxy's, not the seccomp filter's;
# and once its record is full (256 hosts), the report says how many more
# there were rather than hiding them.
FLOOD='import os, socket
port = int(os.environ["HTTP_PROXY"].rsplit(":", 1)[1])
for i in range(261):
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall(b"CONNECT junk%d.test:443 HTTP/1.1\r\n\r\n" % i); s.recv(100); s.close()'
run "$MOAT" run --trace --net localhost -- "$PY" -c "$FLOOD"
expect_out "--trace: the proxy's refusals are described as the proxy's" "^moat: 256 host\(s\) refused by moat's proxy"
expect_no_out "(not as the seccomp filter's)" 0 "seccomp"
expect_out "--trace: 261 refusals, 256 recorded: the other 5 are said to be missing" "^moat: 5 more refusals of moat's proxy not recorded$"

if [ -n "$NONLO" ]; then
	expect_ok "control: the server on this machine's $NONLO answers without moat" curl -sSf --max-time 10 "http://$NONLO:$P/"
	run "$MOAT" run --net localhost -- curl -sSf --max-time 10 --noproxy '*' "http://$NONLO:$P/"
	ran_and_failed && ! grep -q HELLO "$T/.out" &&
		ok "a tool that ignores the proxy variables has no route to $NONLO" ||
		{ not_ok "a tool that ignores the proxy has no route" && _show; }
	run "$MOAT" run --trace --net localhost -- curl -sS --max-time 10 --noproxy '*' "http://$NONLO:$P/"
	expect_out "--trace: such a connect is explained (the proxy only), not answered with a port" "through moat's proxy only"
	expect_no_out "no 'moat allow --net curl $P' line, which a hosts union would drop" failed "moat allow --net curl $P"
	DNS="import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.sendto(b'\\0' * 12, ('$NONLO', $P)); print('SENT')"
	expect_ok "control: a datagram to $NONLO leaves without moat" python3 -c "$DNS"
	run "$MOAT" run --net localhost -- "$PY" -c "$DNS"
	ran_and_failed && grep -q "unreachable" "$T/.err" && ! grep -q SENT "$T/.out" &&
		ok "a DNS query (UDP) to a resolver outside the session finds no route" ||
		{ not_ok "a DNS query has no route" && _show; }
else
	for _ in 1 2 3 4 5 6; do skip "prerequisite: a non-loopback address on this machine"; done
fi
run "$MOAT" run --net localhost -- "$PY" -c "import socket; socket.socket(socket.AF_PACKET, socket.SOCK_RAW)"
ran_and_failed && grep -qiE "permission denied|not permitted" "$T/.err" &&
	ok "packet sockets stay refused (the off mode's filter)" || { not_ok "packet sockets stay refused" && _show; }

# The proxy starts at the session's first connection (a session that
# connects nowhere forks none: bench/run's hosts row), and ends with the
# session. The tool and the test take turns through files in the project.
# moat_children: how many processes moat (pid $1) has, the supervisor and
# the proxy.
moat_children() { pgrep -P "$1" | wc -l; }
await() { for _ in $(seq 200); do [ -e "$1" ] && return 0; sleep 0.05; done; return 1; }
rm -f idle go connected done
"$MOAT" run --net localhost -- sh -c 'touch idle; until [ -e go ]; do sleep 0.05; done
	curl -s --max-time 10 -x "$HTTP_PROXY" http://other.test/ >/dev/null; touch connected
	until [ -e done ]; do sleep 0.05; done' >"$T/.lazy" 2>&1 &
lazy=$!
await idle && n_idle=$(moat_children $lazy) && touch go && await connected && n_used=$(moat_children $lazy)
# The proxy takes a signal as any process does: moat's own handlers (the
# terminal relay's) wrote to a pipe the proxy had closed, whose number an
# accepted socket could take, and kept it alive through `pkill moat`.
proxy=$(pgrep -n -P $lazy)
kill -TERM "$proxy" 2>/dev/null
for _ in $(seq 50); do [ -d "/proc/$proxy" ] && [ "$(awk '{print $3}' "/proc/$proxy/stat" 2>/dev/null)" != Z ] || break; sleep 0.02; done
state=$(awk '{print $3}' "/proc/$proxy/stat" 2>/dev/null)
touch done
wait $lazy
[ "${n_idle:-}" = 1 ] && [ "${n_used:-}" = 2 ] &&
	ok "a hosts session forks its proxy at its first connection, not before" ||
	{ not_ok "the proxy is forked at the first connection" && echo "# children: idle ${n_idle:-?}, connected ${n_used:-?}" && sed 's/^/#   /' "$T/.lazy"; }
# (Only once the proxy is known to be the newest child: else it names the
# supervisor.)
[ "${n_used:-}" = 2 ] && [ -n "$proxy" ] && { [ -z "$state" ] || [ "$state" = Z ]; } &&
	ok "SIGTERM ends the proxy, as it would any process" ||
	{ not_ok "SIGTERM ends the proxy" && echo "# proxy ${proxy:-not found}, state ${state:-gone}"; }
run "$MOAT" run --net localhost -- true
[ "$rc" = 0 ] && ok "a hosts session runs" || { not_ok "a hosts session runs" && _show; }
run "$MOAT" run --net localhost -- sh -c 'curl -s --max-time 10 -x "$HTTP_PROXY" http://other.test/; exit 0'
[ "$rc" = 0 ] && grep -q "not in this session.s network policy" "$T/.out" && ok "a hosts session that connected, its proxy answering, runs" ||
	{ not_ok "a hosts session whose proxy answered runs" && _show; }
left=$(left_behind "$(re_quote "$MOAT") run --net localhost")
[ -z "$left" ] && ok "nothing of it is left behind: the proxy died with it" ||
	{ not_ok "the proxy died with the session" && echo "# left: $left"; }

# Without namespaces: refused, and said so; off still works.
rm -f "$XDG_STATE_HOME/moat/namespaces-worked"
run "$HELPERS/no_namespaces" "$MOAT" run --net localhost -- true
[ "$rc" = 125 ] && grep -q "no network namespace of its own" "$T/.err" && grep -q "^hint:" "$T/.err" &&
	ok "without namespaces a hosts policy is refused, with a hint" || { not_ok "without namespaces hosts is refused" && _show; }
run "$HELPERS/no_namespaces" "$MOAT" run --net off -- true
[ "$rc" = 0 ] && ok "and off still runs there" || { not_ok "off still runs without namespaces" && _show; }

# A wrapped tool outside a session: refused with the session to run.
"$MOAT" wrap webtools "$(command -v curl)" >/dev/null
W=$XDG_DATA_HOME/moat/shells/webtools/bin/curl
export MOAT_ROOT=$PROJ
expect_ok "control: the wrapped curl runs with no .net rule" "$W" --version
printf '.{ .net = .{ .{ .bin = "curl", .hosts = .{ "example.test" } } } }\n' >"$CFG"
run "$W" -sS "http://example.test/a b"
[ "$rc" = 125 ] && grep -q "cannot limit curl's network to named hosts outside a session" "$T/.err" &&
	grep -qF "hint: run it in one:  moat run --net example.test -- curl -sS 'http://example.test/a b'" "$T/.err" &&
	ok "a wrapped tool with hosts outside a session is refused, with the moat run line" ||
	{ not_ok "a wrapped tool with hosts outside a session is refused" && _show; }
unset MOAT_ROOT
rm -f "$CFG"

# Bad input.
for bad in "https://example.org:URL" "example.org/x:path" "10.1.2.3:IP address" "example.org:70000:out of range" \
	"example.org,443:cannot be combined"; do
	run "$MOAT" run --net "${bad%:*}" -- true
	[ "$rc" = 2 ] && grep -q "${bad##*:}" "$T/.err" && grep -q "^hint:" "$T/.err" &&
		ok "--net ${bad%:*} is refused: ${bad##*:}" || { not_ok "--net ${bad%:*} is refused" && _show; }
done
printf '.{\n    .net = .{\n        .{ .bin = "npm", .hosts = .{ "registry.npmjs.org", "http://x.org" } },\n    },\n}\n' >"$CFG"
run "$MOAT" check
[ "$rc" -ne 0 ] && grep -q "config.zon:3:60: bad network policy item 'http://x.org': a URL" "$T/.out" &&
	ok "moat check: a bad host at file:line:col" || { not_ok "moat check: a bad host at file:line:col" && _show; }
rm -f "$CFG"

# moat profile shows the policy.
printf '.{ .net = .{ .{ .bin = "*", .hosts = .{ "registry.npmjs.org", "*.github.com:8443" } } } }\n' >"$CFG"
run "$MOAT" profile
expect_out "moat profile: the session's hosts" "^network +hosts +registry.npmjs.org,\*.github.com:8443"
run "$MOAT" profile --json
expect_out "moat profile --json: the level and the hosts" '"network":"hosts",.*"network_hosts":\["registry.npmjs.org","\*.github.com:8443"\]'
cp "$T/.out" "$T/profile.json"
if problems=$("$PY" "$MOAT_SRC/tests/json-validate.py" "$MOAT_SRC/docs/json-schema.json" profile "$T/profile.json" 2>&1); then
	ok "and it validates against docs/json-schema.json"
else
	not_ok "and it validates against docs/json-schema.json" && echo "$problems" | sed 's/^/#   /'
fi
run "$MOAT" profile --format sbpl
expect_out "the SBPL rendering names the proxy, and allows no other network" "network: named hosts only, judged by moat's proxy"
expect_no_out "(no network rule but the proxy's port)" 0 'allow network'
rm -f "$CFG"

# Approvals: asked again when the hosts widen.
PTY=$MOAT_SRC/tests/pty-run.py
printf '.{ .confirm = .{ "true" }, .net = .{ .{ .bin = "*", .hosts = .{ "a.test" } } } }\n' >"$CFG"
run python3 "$PTY" --answer y -- "$MOAT" run -- true
expect_out "the prompt lists the hosts" "network +these hosts only, through moat's proxy: a.test"
run setsid "$MOAT" run -- true
[ "$rc" = 0 ] && ok "approved: no question next time" || { not_ok "approved: no question next time" && _show; }
printf '.{ .confirm = .{ "true" }, .net = .{ .{ .bin = "*", .hosts = .{ "a.test", "b.test" } } } }\n' >"$CFG"
run setsid "$MOAT" run -- true
[ "$rc" = 125 ] && grep -q "needs confirmation" "$T/.err" && ok "a new host asks again" ||
	{ not_ok "a new host asks again" && _show; }
# Each widening below starts from one approval, of the narrower policy.
ABI=$("$HELPERS/landlock_abi" 2>/dev/null || echo 0)
if [ "$ABI" -ge 4 ]; then
	"$MOAT" approvals -r --all >/dev/null 2>&1
	printf '.{ .confirm = .{ "true" }, .net = .{ .{ .bin = "*", .connect = .{ 443 } } } }\n' >"$CFG"
	run python3 "$PTY" --answer y -- "$MOAT" run -- true
	printf '.{ .confirm = .{ "true" }, .net = .{ .{ .bin = "*", .hosts = .{ "a.test" } } } }\n' >"$CFG"
	run setsid "$MOAT" run -- true
	[ "$rc" = 125 ] && grep -q "needs confirmation" "$T/.err" && ok "ports to hosts asks again" ||
		{ not_ok "ports to hosts asks again" && _show; }
else
	skip "prerequisite: Landlock ABI 4 (Linux 6.7) for a ports policy; this kernel has ABI $ABI"
fi
"$MOAT" approvals -r --all >/dev/null 2>&1
printf '.{ .confirm = .{ "true" }, .net = .{ .{ .bin = "*", .off = true } } }\n' >"$CFG"
run python3 "$PTY" --answer y -- "$MOAT" run -- true
expect_out "the prompt says the network is off" "network +off"
run setsid "$MOAT" run --net a.test -- true
[ "$rc" = 125 ] && grep -q "needs confirmation" "$T/.err" && ok "off to hosts asks again" ||
	{ not_ok "off to hosts asks again" && _show; }
rm -f "$CFG"

# --- As root: a server of its own network, reached by name --------------

if ! is_root || ! command -v unshare >/dev/null || ! command -v ip >/dev/null; then
	skip "prerequisite: root (with ip and unshare), to give a test server a network namespace, an address and a name"
	done_testing
	exit
fi
N=$((($$ % 200) + 20))
NS=moat-th-$$ VETH=mth$$a
SRV=10.77.$N.2 GW=10.77.$N.1
if ! ip link add "$VETH" type veth peer name "mth$$b" 2>"$T/.veth"; then
	grep -q "Unknown device type" "$T/.veth" || not_ok "making a veth pair: $(cat "$T/.veth")"
	skip "prerequisite: the kernel's veth driver, for the test server's network namespace"
	done_testing
	exit
fi
ip netns add "$NS" && ip link set "mth$$b" netns "$NS" && ip addr add "$GW/24" dev "$VETH" && ip link set "$VETH" up &&
	ip -n "$NS" addr add "$SRV/24" dev "mth$$b" && ip -n "$NS" link set "mth$$b" up &&
	ip -n "$NS" link set lo up || {
	not_ok "setting up the server's network namespace"
	done_testing
	exit
}
serve ip netns exec "$NS" "$SRV" 8000 || not_ok "the server in its namespace started"
serve env "$GW" 8000 || not_ok "a server on the host's side of the veth started"
# Alibaba's and Azure's metadata addresses, served in the namespace
# (routed to the veth for this test only: the link takes them when it goes).
for meta in 100.100.100.200 168.63.129.16; do
	ip -n "$NS" addr add "$meta/32" dev "mth$$b" && ip route add "$meta/32" dev "$VETH" &&
		serve ip netns exec "$NS" "$meta" 8000 || not_ok "a server on $meta in the namespace started"
done
# GCP's and AWS's IPv6 metadata addresses, on IPv6 networks of the veth's.
for net in fd20:ce: fd00:ec2:; do
	ip -6 addr add "$net:1/64" dev "$VETH" nodad && ip -n "$NS" -6 addr add "$net:254/64" dev "mth$$b" nodad &&
		serve ip netns exec "$NS" "$net:254" 8000 || not_ok "a server on $net:254 in the namespace started"
done
# An address of this machine's that no interface lists: an AnyIP route.
ANYIP=10.78.$N.0/24
ip route add local "$ANYIP" dev lo && serve env "10.78.$N.7" 8000 || not_ok "a server on the AnyIP 10.78.$N.7 started"
# A server that answers with the Host header it was sent.
ECHO_HOST='import http.server, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        b = ("HOST=" + self.headers.get("Host", "") + "\n").encode()
        self.send_response(200); self.send_header("Content-Length", str(len(b))); self.end_headers(); self.wfile.write(b)
    def log_message(self, *a): pass
s = http.server.HTTPServer((sys.argv[1], int(sys.argv[2])), H)
print("ready", flush=True)
s.serve_forever()'
SERVE=$ECHO_HOST serve ip netns exec "$NS" "$SRV" 8001 || not_ok "the Host echo server started"
HOSTS=$T/hosts
{
	cat /etc/hosts
	echo "$SRV good.test bad.test"
	echo "127.0.0.1 loop.test"
	echo "169.254.169.254 meta.test"
	echo "$GW own.test"
	echo "::ffff:$GW mapped.test"
	echo "10.78.$N.7 anyip.test"
	echo "100.100.100.200 aliyun.test"
	echo "168.63.129.16 azure.test"
	echo "fd20:ce::254 gcp.test"
	echo "fd00:ec2::254 aws.test"
	echo "10.77.$N.9 nobody.test"
} >"$HOSTS"
# named CMD...: CMD where /etc/hosts holds the names above.
named() { unshare -m sh -c 'mount --bind "$0" /etc/hosts && exec "$@"' "$HOSTS" "$@"; }

expect_ok "control: good.test reaches the server without moat" named curl -sSf --max-time 10 http://good.test:8000/
expect_ok "control: so does bad.test" named curl -sSf --max-time 10 http://bad.test:8000/
expect_ok "control: loop.test reaches a server on 127.0.0.1" named curl -sSf --max-time 10 "http://loop.test:$P/"
expect_ok "control: own.test reaches a server on this machine's $GW" named curl -sSf --max-time 10 http://own.test:8000/

run named "$MOAT" run --net good.test:8000 -- curl -sSf --max-time 10 http://good.test:8000/
[ "$rc" = 0 ] && grep -q HELLO-FROM-SERVER "$T/.out" && ok "an allowed name reaches the server through the proxy (absolute URI)" ||
	{ not_ok "an allowed name reaches the server (absolute URI)" && _show; }
run named "$MOAT" run --net good.test:8000 -- curl -sSf --max-time 10 -p http://good.test:8000/
[ "$rc" = 0 ] && grep -q HELLO-FROM-SERVER "$T/.out" && ok "and through a CONNECT tunnel" ||
	{ not_ok "an allowed name reaches the server (CONNECT)" && _show; }
run named "$MOAT" run --net '*.test:8000' -- curl -sSf --max-time 10 http://good.test:8000/
[ "$rc" = 0 ] && grep -q HELLO-FROM-SERVER "$T/.out" && ok "*.test:8000 allows good.test" ||
	{ not_ok "*.test:8000 allows good.test" && _show; }
run named "$MOAT" run --net good.test -- curl -sSf --max-time 10 http://good.test:8000/
ran_and_failed && grep -q 403 "$T/.err" && ok "a name without a port is 80 and 443 only" ||
	{ not_ok "a name without a port is 80 and 443 only" && _show; }
run named "$MOAT" run --net good.test:8000 -- curl -sSf --max-time 10 http://bad.test:8000/
ran_and_failed && grep -q 403 "$T/.err" && ! grep -q HELLO "$T/.out" &&
	ok "another name for the same server is refused (403)" || { not_ok "another name is refused" && _show; }
run named "$MOAT" run --net good.test:8000 -- curl -sSf --max-time 10 --noproxy '*' "http://$SRV:8000/"
ran_and_failed && ! grep -q HELLO "$T/.out" && ok "its address, without the proxy, has no route" ||
	{ not_ok "its address without the proxy has no route" && _show; }
# A name whose DNS an attacker controls leads to the host, or to a cloud's
# metadata service: refused, through an absolute URI and through CONNECT.
for name in mapped.test own.test anyip.test aliyun.test azure.test gcp.test aws.test; do
	expect_ok "control: $name reaches its server without moat" named curl -sSf --max-time 10 "http://$name:8000/"
done
for name in loop.test:"$P" meta.test:8000 own.test:8000 mapped.test:8000 anyip.test:8000 aliyun.test:8000 azure.test:8000 gcp.test:8000 aws.test:8000; do
	for p in "" -p; do
		run named "$MOAT" run --net "$name" -- curl -sSf --max-time 10 $p "http://$name/"
		ran_and_failed && grep -qE "502|CONNECT tunnel failed" "$T/.err" && ! grep -q HELLO "$T/.out" &&
			ok "an allowed name resolving to ${name%%.*}'s address is refused ${p:+(CONNECT)}" ||
			{ not_ok "$name is refused ${p:+(CONNECT)}" && _show; }
	done
done
# The host's own address is answered as one where nothing answers: the
# answer does not tell which addresses are the host's.
run named "$MOAT" run --net nobody.test:8000,own.test:8000 -- sh -c \
	"$VIA_PROXY http://nobody.test:8000/; $VIA_PROXY http://own.test:8000/"
[ "$(grep -c "^moat: cannot connect to the host (moat never connects to" "$T/.out")" = 2 ] &&
	ok "a refused own address gets the answer of an address where nothing listens (502, same text)" ||
	{ not_ok "a refused own address is answered as one where nothing listens" && _show; }

# Five bytes, a NUL and the end of a head, killed the proxy (a process
# outside the sandbox): now a 400, and the proxy serves the next request.
NUL="import os, socket
h, p = os.environ['HTTP_PROXY'].rsplit(':', 1)
def ask(data):
    s = socket.create_connection(('127.0.0.1', int(p)), timeout=10); s.sendall(data)
    got = b''
    while (b := s.recv(4096)): got += b
    return got.decode(errors='replace')
print(ask(b'\\0\\r\\n\\r\\n').split('\\r\\n')[0])
print(ask(b'GET http://good.test:8000/ HTTP/1.0\\r\\n\\r\\n').split('\\r\\n\\r\\n', 1)[1])"
run named "$MOAT" run --net good.test:8000 -- "$PY" -c "$NUL"
[ "$rc" = 0 ] && grep -q "^HTTP/1.1 400" "$T/.out" && grep -q HELLO-FROM-SERVER "$T/.out" &&
	ok "a NUL in a request's head is a 400, and the proxy lives on" || { not_ok "a NUL in a head: 400, the proxy lives" && _show; }

# Domain fronting: the client's Host names another virtual host of the
# server the allowed name leads to; the proxy sends the URL's instead.
expect_ok "control: without moat the server answers with the Host it is sent" named curl -sSf --max-time 10 -H "Host: bad.test" http://good.test:8001/
expect_out "(it does: bad.test)" "^HOST=bad.test$"
run named "$MOAT" run --net good.test:8001 -- curl -sSf --max-time 10 -H "Host: bad.test" http://good.test:8001/
[ "$rc" = 0 ] && grep -qx "HOST=good.test:8001" "$T/.out" && ok "through the proxy the server is sent the URL's host, not the client's Host" ||
	{ not_ok "the proxy sends the URL's Host" && _show; }

# --trace names the refused host as a pasteable line that then works.
printf '.{ .net = .{ .{ .bin = "*", .hosts = .{ "good.test:8000" } } } }\n' >"$CFG"
run named "$MOAT" run --trace -- curl -sSf --max-time 10 http://bad.test:8000/
line=$(grep -o "moat allow --net curl bad.test:8000$" "$T/.err")
[ -n "$line" ] && ok "--trace prints 'moat allow --net curl bad.test:8000'" || { not_ok "--trace prints the allow line" && _show; }
${line/moat/$MOAT} >/dev/null 2>&1
run named "$MOAT" run -- curl -sSf --max-time 10 http://bad.test:8000/
[ "$rc" = 0 ] && grep -q HELLO-FROM-SERVER "$T/.out" && ok "pasted, the line lets the next run through" ||
	{ not_ok "the pasted line lets the next run through" && _show; }
rm -f "$CFG"

# Real tools.
if command -v git >/dev/null; then
	git init -q --bare "$WWW/repo.git" && git -C "$T" init -q src && echo "IN-THE-REPO" >"$T/src/file" &&
		git -C "$T/src" add file && git -C "$T/src" -c user.name=t -c user.email=t@t commit -qm one &&
		git -C "$T/src" push -q "$WWW/repo.git" HEAD:refs/heads/main && git -C "$WWW/repo.git" symbolic-ref HEAD refs/heads/main &&
		git -C "$WWW/repo.git" update-server-info
	expect_ok "control: git clones over dumb HTTP without moat" named git clone -q http://good.test:8000/repo.git "$T/control-clone"
	run named "$MOAT" run --net good.test:8000 -- git clone -q http://good.test:8000/repo.git clone
	[ "$rc" = 0 ] && grep -q IN-THE-REPO "$PROJ/clone/file" && ok "git clone over HTTP through a hosts policy" ||
		{ not_ok "git clone over HTTP through a hosts policy" && _show; }
	run named "$MOAT" run --net bad.test:8000 -- git clone -q http://good.test:8000/repo.git clone2
	[ "$rc" = 128 ] && grep -q 403 "$T/.err" && [ ! -e "$PROJ/clone2/file" ] && ok "and refused for a host the policy does not name" ||
		{ not_ok "git clone refused for another host" && _show; }
else
	skip "prerequisite: git"
	skip "prerequisite: git"
	skip "prerequisite: git"
fi
if "$PY" -m pip --version >/dev/null 2>&1; then
	mkdir -p "$WWW/simple/hello-moat"
	wheel=hello_moat-1.0-py3-none-any.whl
	"$PY" - "$WWW/simple/hello-moat/$wheel" <<'EOF'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w") as z:
    z.writestr("hello_moat-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: hello-moat\nVersion: 1.0\n")
    z.writestr("hello_moat-1.0.dist-info/WHEEL", "Wheel-Version: 1.0\nGenerator: t\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
    z.writestr("hello_moat-1.0.dist-info/RECORD", "")
EOF
	echo "<a href=\"$wheel\">$wheel</a>" >"$WWW/simple/hello-moat/index.html"
	PIP="$PY -m pip download --isolated --no-deps --disable-pip-version-check -q --trusted-host good.test --index-url http://good.test:8000/simple/ hello-moat -d"
	expect_ok "control: pip downloads from the local index without moat" named $PIP "$T/pip-control"
	run named "$MOAT" run --net good.test:8000 -- $PIP wheels
	[ "$rc" = 0 ] && [ -f "$PROJ/wheels/$wheel" ] && ok "python3 -m pip download through a hosts policy" ||
		{ not_ok "pip download through a hosts policy" && _show; }
else
	skip "prerequisite: $PY -m pip"
	skip "prerequisite: $PY -m pip"
fi

if command -v npm >/dev/null; then
	# A registry of one package: its metadata (/hello-moat, a directory
	# index the server redirects to) and its tarball.
	mkdir -p "$WWW/hello-moat" "$WWW/tarballs" "$T/pkg/package"
	echo '{"name":"hello-moat","version":"1.0.0","main":"index.js"}' >"$T/pkg/package/package.json"
	echo 'module.exports = "IN-THE-PACKAGE";' >"$T/pkg/package/index.js"
	tgz=$WWW/tarballs/hello-moat-1.0.0.tgz
	tar -C "$T/pkg" -czf "$tgz" package
	sha1=$(sha1sum <"$tgz" | cut -d' ' -f1)
	integ=sha512-$("$PY" -c 'import base64, hashlib, sys; print(base64.b64encode(hashlib.sha512(open(sys.argv[1], "rb").read()).digest()).decode())' "$tgz")
	printf '{"name":"hello-moat","dist-tags":{"latest":"1.0.0"},"versions":{"1.0.0":{"name":"hello-moat","version":"1.0.0","main":"index.js","dist":{"tarball":"http://good.test:8000/tarballs/hello-moat-1.0.0.tgz","shasum":"%s","integrity":"%s"}}}}\n' \
		"$sha1" "$integ" >"$WWW/hello-moat/index.html"
	NPM="npm install --registry http://good.test:8000/ --cache ./.npm-cache --no-audit --no-fund hello-moat"
	mkdir -p "$T/npm-control"
	(cd "$T/npm-control" && run named $NPM)
	[ "$rc" = 0 ] && [ -f "$T/npm-control/node_modules/hello-moat/index.js" ] &&
		ok "control: npm installs from the local registry without moat" || { not_ok "control: npm install without moat" && _show; }
	run named "$MOAT" run --net good.test:8000 -- $NPM
	[ "$rc" = 0 ] && grep -q IN-THE-PACKAGE "$PROJ/node_modules/hello-moat/index.js" &&
		ok "npm install through a hosts policy" || { not_ok "npm install through a hosts policy" && _show; }
	rm -rf "$PROJ/node_modules" "$PROJ/package.json" "$PROJ/package-lock.json"
	run named "$MOAT" run --net bad.test:8000 -- $NPM --fetch-retries 0
	[ "$rc" -ne 0 ] && [ "$rc" -ne 125 ] && [ ! -e "$PROJ/node_modules/hello-moat" ] &&
		ok "and refused for a registry the policy does not name" || { not_ok "npm refused for another registry" && _show; }
else
	skip "prerequisite: npm"
	skip "prerequisite: npm"
	skip "prerequisite: npm"
fi

# Load: 200 transfers at once through the proxy, each of 256 KiB (more
# than its buffers), every byte checked.
head -c 262144 /dev/urandom >"$WWW/blob"
want=$(sha256sum <"$WWW/blob")
run named "$MOAT" run --net good.test:8000 -- sh -c '
	mkdir -p load && for i in $(seq 200); do
		curl -sSf --max-time 120 -o load/$i http://good.test:8000/blob &
	done; wait; cat load/* | wc -c'
[ "$rc" = 0 ] && [ "$(tail -1 "$T/.out")" = $((200 * 262144)) ] && ok "200 concurrent transfers through the proxy complete" ||
	{ not_ok "200 concurrent transfers complete" && _show; }
bad=0
for f in "$PROJ"/load/*; do [ "$(sha256sum <"$f")" = "$want" ] || bad=$((bad + 1)); done
[ "$bad" = 0 ] && ok "and every byte arrived as sent" || not_ok "$bad transfers arrived damaged"

done_testing
