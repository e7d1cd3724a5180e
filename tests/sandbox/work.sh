#!/usr/bin/env bash
# What must keep working inside the root under `moat run`: plain file work,
# git, a C toolchain, temporary files via TMPDIR, and loopback networking.
. "$(dirname "$0")/../lib.sh"

# inside NAME SCRIPT [ARG...]: SCRIPT (sh) must succeed inside moat run.
inside() {
	local name=$1
	shift
	expect_ok "$name" "$MOAT" run -- sh -euc "$@"
}

echo "node_modules/" >"$PROJ/.gitignore"
cp "$PROJ/.gitignore" "$T/gitignore.before"
echo "HELLO" >"$PROJ/in.txt"

run "$MOAT" run -- cat in.txt
[ "$rc" -eq 0 ] && [ "$out" = HELLO ] && ok "read a file" || { not_ok "read a file" && _show cat; }
inside "write, append and truncate a file" 'echo one >w.txt; echo two >>w.txt; : >t.txt; test "$(cat w.txt)" = "one
two"; test ! -s t.txt'
[ "$(cat "$PROJ/w.txt" 2>/dev/null)" = "one
two" ] && ok "the write is visible outside" || not_ok "the write is visible outside"
printf '#!/bin/sh\necho SCRIPT-RAN "$@"\n' >"$PROJ/script.sh"
chmod +x "$PROJ/script.sh"
run "$MOAT" run -- ./script.sh a b
[ "$rc" -eq 0 ] && [ "$out" = "SCRIPT-RAN a b" ] && ok "exec a script in the root" ||
	{ not_ok "exec a script in the root" && _show ./script.sh; }
inside "make a script executable and run it" 'printf "#!/bin/sh\nexit 0\n" >new.sh; chmod +x new.sh; ./new.sh'
inside "rename a file and a directory" 'echo r >r1; mv r1 r2; test -f r2 -a ! -e r1; mkdir d1; mv d1 d2; test -d d2'
inside "rename across directories in the root" 'mkdir -p a/b c; echo x >a/b/f; mv a/b/f c/f; mv c a/b/; test -f a/b/c/f'
inside "symlink and read through it" 'ln -s in.txt sl; test "$(cat sl)" = HELLO; ln -s "$PWD/a" dl; test -d dl/b'
inside "hard link" 'ln in.txt hl; test "$(stat -c %i hl)" = "$(stat -c %i in.txt)"; test "$(stat -c %h in.txt)" = 2'
inside "mkdir -p, rmdir and rm -r" 'mkdir -p x/y/z; rmdir x/y/z; rm -r x; test ! -e x'
inside "a fifo in the root" 'mkfifo ff; test -p ff; rm ff'

# git: HOME is denied, so git must cope without ~/.gitconfig.
export GIT_CONFIG_NOSYSTEM=1
run "$MOAT" run -- sh -euc 'git init -q . && git add in.txt .gitignore &&
	git -c user.name=moat -c user.email=moat@example.com commit -qm first && git log --format=%s'
[ "$rc" -eq 0 ] && [ "$out" = first ] && ok "git init and a commit" || { not_ok "git init and a commit" && _show git; }
run git -C "$PROJ" log --format=%s
[ "$out" = first ] && ok "the commit is there outside moat" || { not_ok "the commit is there outside moat" && _show git log; }
run "$MOAT" run -- git status --porcelain --ignored=no
[ "$rc" -eq 0 ] && ! grep -q '\.moat' "$T/.out" && ok "git status does not show .moat" ||
	{ not_ok "git status does not show .moat" && _show git status; }
unset GIT_CONFIG_NOSYSTEM

# A C toolchain: compile, link and run, temporary files going to TMPDIR.
if command -v gcc >/dev/null; then
	printf '#include <stdio.h>\nint main(void) { puts("C-RAN"); return 3; }\n' >"$PROJ/hello.c"
	expect_ok "gcc compiles and links in the root" "$MOAT" run -- gcc -o hello hello.c
	expect_status "the C program runs with its own status" 3 "$MOAT" run -- ./hello
	expect_out "the C program prints" '^C-RAN$'
	expect_ok "gcc -pipe -O2 with make-style steps" "$MOAT" run -- sh -euc \
		'gcc -c -O2 hello.c -o hello.o && gcc hello.o -o hello2 && test -x hello2'
else
	skip "gcc is not installed"
fi

# TMPDIR points into the root, and an atomic rename from it works.
run "$MOAT" run -- sh -euc 'f=$(mktemp); echo "$f"; echo PAYLOAD >"$f"; mv "$f" "$MOAT_ROOT/moved.txt"'
if [ "$rc" -eq 0 ] && grep -q "^$PROJ/.moat/tmp/" "$T/.out" && [ "$(cat "$PROJ/moved.txt")" = PAYLOAD ]; then
	ok "mktemp lands in \$MOAT_ROOT/.moat/tmp and mv into the root works"
else
	not_ok "mktemp lands in \$MOAT_ROOT/.moat/tmp and mv into the root works" && _show mktemp
fi
inside "mktemp -d and a directory rename out of TMPDIR" 'd=$(mktemp -d); echo x >"$d/f"; mv "$d" "$MOAT_ROOT/dir-from-tmp"; test -f dir-from-tmp/f'
[ "$(cat "$PROJ/.moat/.gitignore" 2>/dev/null)" = "*" ] && ok ".moat/.gitignore is '*'" ||
	not_ok ".moat/.gitignore is '*'"
cmp -s "$T/gitignore.before" "$PROJ/.gitignore" && ok "the project's .gitignore is untouched" ||
	not_ok "the project's .gitignore is untouched"

# Loopback networking, with no DNS: a server and a client, both in moat.
PY=/usr/bin/python3
if [ -x "$PY" ]; then
	cat >"$PROJ/serve.py" <<'EOF'
import http.server, os, socketserver
class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args): pass
srv = socketserver.TCPServer(("127.0.0.1", 0), Quiet)
with open("port.tmp", "w") as f: f.write(str(srv.server_address[1]))
os.rename("port.tmp", "port")
srv.timeout = 20
srv.handle_request()
EOF
	echo "LOOPBACK-OK" >"$PROJ/page.txt"
	"$MOAT" run -- "$PY" serve.py >"$T/server.log" 2>&1 &
	server=$!
	for _ in $(seq 100); do [ -s "$PROJ/port" ] && break; sleep 0.1; done
	port=$(cat "$PROJ/port" 2>/dev/null)
	if [ -n "$port" ]; then
		client='import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1], timeout=10).read().decode().strip())'
		run "$MOAT" run -- "$PY" -c "$client" "http://127.0.0.1:$port/page.txt"
		[ "$rc" -eq 0 ] && [ "$out" = LOOPBACK-OK ] && ok "loopback TCP between two moat runs" ||
			{ not_ok "loopback TCP between two moat runs" && _show client; }
	else
		not_ok "loopback TCP between two moat runs (the server in moat never listened)"
		sed 's/^/#   server: /' "$T/server.log"
	fi
	kill "$server" 2>/dev/null
	wait "$server" 2>/dev/null
	pair='import socket; a, b = socket.socketpair(); a.send(b"PAIR-OK"); print(b.recv(7).decode())'
	run "$MOAT" run -- "$PY" -c "$pair"
	[ "$rc" -eq 0 ] && [ "$out" = PAIR-OK ] && ok "a unix socketpair" || { not_ok "a unix socketpair" && _show socketpair; }
	unix='import socket; s = socket.socket(socket.AF_UNIX); s.bind("u.sock"); s.listen(1)
c = socket.socket(socket.AF_UNIX); c.connect("u.sock"); a, _ = s.accept(); c.send(b"UNIX-OK"); print(a.recv(9).decode())'
	run "$MOAT" run -- "$PY" -c "$unix"
	if [ "$("$HELPERS/landlock_abi")" -ge 9 ]; then
		[ "$rc" -eq 0 ] && [ "$out" = UNIX-OK ] && ok "a pathname unix socket in the root" ||
			{ not_ok "a pathname unix socket in the root" && _show unix; }
	else
		# socket() itself refused: moat's seccomp policy where Landlock cannot
		# scope pathname sockets (so one could reach a socket outside).
		known_breakage "a pathname unix socket in the root" \
			"Landlock ABI < 9 cannot scope pathname sockets, so moat refuses socket(AF_UNIX) (docs/security.md)" \
			grep -q 'PermissionError.*Errno 13' "$T/.err"
	fi
else
	skip "prerequisite: $PY for the loopback server"
fi
run "$MOAT" run -- getent hosts localhost
[ "$rc" -eq 0 ] && grep -qE '^(127\.0\.0\.1|::1) ' "$T/.out" && ok "localhost resolves from /etc/hosts" ||
	{ not_ok "localhost resolves from /etc/hosts" && _show getent hosts localhost; }

done_testing
