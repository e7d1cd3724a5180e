#!/usr/bin/env bash
# Reaching outside the sandbox other than by path: processes running outside
# (their environment, memory, cwd, signals, abstract sockets), and a hostile
# repository whose .moat is a symlink pointing out of the root.
. "$(dirname "$0")/../lib.sh"

# A process outside the sandbox, holding a secret in its environment.
(cd "$HOME" && MOAT_TEST_TOKEN=ENV-SECRET-TOKEN exec sleep 120) &
victim=$!
eval "$(trap -p EXIT | sed "s/^trap -- '/trap -- 'kill $victim 2>\/dev\/null; /")"
sleep 0.2

run sh -c 'tr "\0" "\n" <"/proc/$0/environ"' "$victim"
expect_out "control: an outside process's environ is readable without moat" '^MOAT_TEST_TOKEN=ENV-SECRET-TOKEN$'
# leak NAME SCRIPT: SCRIPT (sh, $1 = the victim's pid) fails in moat run and
# no secret shows up in its output.
leak() {
	run "$MOAT" run -- sh -c "echo MOAT-STARTED; $2" sh "$victim"
	if [ "$rc" -ne 0 ] && grep -q MOAT-STARTED "$T/.out" && ! grep -q 'SECRET-TOKEN' "$T/.out" "$T/.err"; then
		ok "denied: $1"
	else
		not_ok "denied: $1" && _show "moat run -- $2"
	fi
}
# /proc/<pid>/environ is guarded by ptrace access checks, which Landlock
# scopes to the sandbox's own processes; capabilities must not reopen it.
leak "read an outside process's /proc/PID/environ" 'tr "\0" "\n" <"/proc/$1/environ"'
# The shell that started moat holds the user's secrets in its environment.
run env MOAT_TEST_TOKEN=CALLER-SECRET-TOKEN sh -c '"$0" run -- sh -c "echo MOAT-STARTED; tr \"\\0\" \"\\n\" </proc/\$PPID/environ"; exit $?' "$MOAT"
if [ "$rc" -ne 0 ] && grep -q MOAT-STARTED "$T/.out" && ! grep -q 'SECRET-TOKEN' "$T/.out"; then
	ok "denied: read the caller's /proc/PPID/environ"
else
	not_ok "denied: read the caller's /proc/PPID/environ" && _show "moat run -- cat /proc/\$PPID/environ"
fi
leak "read an outside process's /proc/PID/maps" 'cat "/proc/$1/maps" | grep -q . && echo SECRET-TOKEN-MAPS'
leak "open an outside process's /proc/PID/mem" 'exec 3<"/proc/$1/mem" && echo SECRET-TOKEN-MEM'
leak "list an outside process's /proc/PID/fd" 'ls -l "/proc/$1/fd/" | grep -q -- "->" && echo SECRET-TOKEN-FD'
leak "walk an outside process's /proc/PID/cwd" 'cd "/proc/$1/cwd" && ls >/dev/null && echo SECRET-TOKEN-CWD'
leak "read home through /proc/PID/root" 'cat "/proc/$1/root$HOME/.ssh/id_rsa" && echo SECRET-TOKEN-ROOT'

abi=$("$MOAT" profile 2>/dev/null | sed -n 's/^kernel: Landlock ABI \([0-9]*\)$/\1/p')
if [ "${abi:-0}" -ge 6 ]; then
	expect_ok "control: kill -0 an outside process works without moat" kill -0 "$victim"
	leak "signal an outside process" 'kill -0 "$1" && echo SECRET-TOKEN-SIGNAL'
	kill -0 "$victim" && ok "the outside process is still alive" || not_ok "the outside process is still alive"
else
	# Landlock scopes no signals below ABI 6; a session's own PID namespace
	# leaves nothing outside to name, so moat run refuses it all the same.
	expect_ok "control: kill -0 an outside process works without moat" kill -0 "$victim"
	leak "signal an outside process (own PID namespace)" 'kill -0 "$1" && echo SECRET-TOKEN-SIGNAL'
	kill -0 "$victim" && ok "the outside process is still alive" || not_ok "the outside process is still alive"
fi
expect_ok "a process inside may signal its own children" "$MOAT" run -- sh -c 'sleep 30 & kill $!; wait $! ; [ $? -eq 143 ]'

PY=/usr/bin/python3
if [ -x "$PY" ]; then
	name="moat-test-$$"
	"$PY" -c 'import socket, sys
s = socket.socket(socket.AF_UNIX); s.bind("\0" + sys.argv[1]); s.listen(1); s.settimeout(15)
try:
    c, _ = s.accept(); c.send(b"ABSTRACT-SECRET-TOKEN")
except OSError:
    pass' "$name" &
	listener=$!
	sleep 0.3
	leak "connect to an abstract unix socket outside" "$PY -c 'import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(\"\\0$name\"); print(s.recv(64).decode())'"
	kill "$listener" 2>/dev/null
	wait "$listener" 2>/dev/null
else
	skip "prerequisite: $PY for the abstract socket listener"
fi

# A hostile repository: .moat (or parts of it) pointing out of the root.
mkdir -p "$T/outside"
rm -rf "$PROJ/.moat"
ln -s "$T/outside" "$PROJ/.moat"
expect_status "moat run refuses a .moat that is a symlink" 125 "$MOAT" run -- true
expect_out "naming it" "$PROJ/.moat"
"$MOAT" wrap tools /usr/bin/true >/dev/null
expect_status "so does a wrapped tool" 125 env MOAT_ROOT="$PROJ" "$XDG_DATA_HOME/moat/shells/tools/bin/true"
[ -z "$(ls -A "$T/outside")" ] && ok "nothing was created through it" || not_ok "nothing was created through it"
rm "$PROJ/.moat"
mkdir "$PROJ/.moat"
ln -s "$T/outside" "$PROJ/.moat/tmp"
ln -s "$HOME/.bashrc" "$PROJ/.moat/.gitignore"
cp "$HOME/.bashrc" "$T/bashrc.before"
run "$MOAT" run -- sh -c 'f=$(mktemp) && echo PWNED >"$f"'
[ "$rc" -ne 0 ] && [ -z "$(ls -A "$T/outside")" ] && ok "a .moat/tmp symlink out of the root gets nothing written" ||
	{ not_ok "a .moat/tmp symlink out of the root gets nothing written" && _show mktemp; }
cmp -s "$T/bashrc.before" "$HOME/.bashrc" && ok "a .moat/.gitignore symlink to ~/.bashrc leaves it alone" ||
	not_ok "a .moat/.gitignore symlink to ~/.bashrc leaves it alone"
ln -s "$HOME" "$PROJ/home-link"
run "$MOAT" run -- sh -c 'echo PWNED >>home-link/.bashrc'
[ "$rc" -ne 0 ] && cmp -s "$T/bashrc.before" "$HOME/.bashrc" && ok "writing through a symlinked directory to \$HOME is denied" ||
	not_ok "writing through a symlinked directory to \$HOME is denied"

done_testing
