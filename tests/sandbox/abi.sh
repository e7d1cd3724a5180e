#!/usr/bin/env bash
# Every Landlock ABI's logic, on the kernel at hand. The test build of the
# binaries ($MOAT_BUILD/abi/, see the Makefile) acts as on ABI N when
# MOAT_TEST_LANDLOCK_ABI=N and records what it asks of the kernel in
# $MOAT_TEST_LANDLOCK_LOG. For each ABI 1-7 the kernel reaches: the rights
# and scopes it asks for, the seccomp policy, the "not enforced" line it
# prints, and what that means for an attacker (docs/security.md, "What each
# Landlock ABI enforces"). A newer kernel enforcing an older ABI's ruleset
# does as that ABI's kernel would, cross-directory renames included: a
# ruleset that does not handle REFER still refuses them (EXDEV).
. "$(dirname "$0")/../lib.sh"

AMOAT=$MOAT_BUILD/abi/moat
if [ ! -x "$AMOAT" ]; then
	skip "prerequisite: no test build in $MOAT_BUILD/abi (make test-bins builds it on Linux)"
	done_testing
	exit
fi
KABI=$("$HELPERS/landlock_abi")
PY=/usr/bin/python3
KEY=$HOME/.ssh/id_rsa
cp "$HELPERS/truncate_path" "$PROJ/truncate_path"
mkdir -p "$PROJ/a" "$PROJ/b"
"$AMOAT" wrap tools /bin/kill "$PY" >/dev/null
W=$XDG_DATA_HOME/moat/shells/tools/bin

# A device node the sandbox may read but gets no ioctl right on (grants never
# carry it; moat's own device rules do). Making one takes root.
DEVNODE=
if is_root; then
	mkdir -p "$HOME/devs" && mknod -m 666 "$HOME/devs/null" c 1 3 && DEVNODE=$HOME/devs/null
	"$AMOAT" allow '*' "$HOME/devs" >/dev/null 2>&1
else
	skip "prerequisite: making a device node needs root (the root pass checks device ioctls)"
fi

# A process outside every sandbox, to signal.
sleep 300 </dev/null >/dev/null 2>&1 &
victim=$!
eval "$(trap -p EXIT | sed "s/^trap -- '/trap -- 'kill $victim 2>\/dev\/null; /")"

# What moat says each ABI leaves open to a session, and what it refuses in
# its place. Signals are no gap there: a session's own PID namespace leaves
# nothing outside to name (a wrapped tool's gap, which it does not print, is
# checked below).
open5="ioctls on device files (ABI 5)"
want_line() {
	case $1 in
	1) echo "$open5; refused instead: truncate() by path, in the project too (ABI 3), renames and links across directories, in the project too (EXDEV, ABI 2)" ;;
	2) echo "$open5; refused instead: truncate() by path, in the project too (ABI 3)" ;;
	3 | 4) echo "$open5" ;;
	*) echo "" ;;
	esac
}
# Filesystem rights handled, and the rights of the root and of /dev/null.
handled() { case $1 in 1) echo 0x1fff ;; 2) echo 0x3fff ;; 3 | 4) echo 0x7fff ;; *) echo 0xffff ;; esac; }
root_rights() { case $1 in 1) echo 0x17bf ;; 2) echo 0x37bf ;; *) echo 0x77bf ;; esac; }
null_rights() { case $1 in 1 | 2) echo 0x6 ;; 3 | 4) echo 0x4006 ;; *) echo 0xc006 ;; esac; }
attr_size() { echo 0x18; } # sizeof, on every ABI (fields it lacks are zero)

# logged NAME WANT: the last run's log has the line WANT.
logged() {
	if grep -qxF -- "$2" "$LOG"; then ok "$1"; else
		not_ok "$1 (want '$2')" && sed 's/^/#   log: /' "$LOG"; fi
}

for N in 1 2 3 4 5 6 7; do
	if [ "$N" -gt "$KABI" ]; then
		skip "prerequisite: this kernel's Landlock ABI is $KABI, so ABI $N cannot be acted out here"
		continue
	fi
	export MOAT_TEST_LANDLOCK_ABI=$N
	LOG=$T/ll-$N
	export MOAT_TEST_LANDLOCK_LOG=$LOG

	# --- what it asks for ------------------------------------------------
	run "$AMOAT" run -- true
	[ "$rc" -eq 0 ] && ok "ABI $N: moat run works" || { not_ok "ABI $N: moat run works" && _show moat run; }
	logged "ABI $N: the ruleset handles exactly ABI $N's rights" "handled $(handled "$N")"
	logged "ABI $N: with ABI $N's ruleset size" "attr-size $(attr_size "$N")"
	logged "ABI $N: signal and abstract-socket scopes $([ "$N" -ge 6 ] && echo asked for || echo not asked for)" \
		"scoped $([ "$N" -ge 6 ] && echo 0x3 || echo 0x0)"
	logged "ABI $N: the root's rights" "rule $PROJ $(root_rights "$N")"
	logged "ABI $N: /dev/null's rights" "rule /dev/null $(null_rights "$N")"
	bad=0
	for r in $(awk '/^rule / { print $NF }' "$LOG"); do ((r & 0x840)) && bad=1; done
	[ "$bad" = 0 ] && ok "ABI $N: no rule grants making device nodes" || not_ok "ABI $N: no rule grants making device nodes"
	logged "ABI $N: seccomp refuses truncate by path $([ "$N" -lt 3 ] && echo "(Landlock cannot mediate it)" || echo "no more (Landlock does)")" \
		"seccomp.deny_path_truncate $([ "$N" -lt 3 ] && echo 0x1 || echo 0x0)"
	logged "ABI $N: seccomp refuses new AF_UNIX sockets (below ABI 9)" "seccomp.deny_unix_sockets 0x1"

	# --- what it says ----------------------------------------------------
	want=$(want_line "$N")
	if [ -n "$want" ]; then
		[ "$err" = "moat: not enforced by this kernel (Landlock ABI $N): $want" ] &&
			ok "ABI $N: moat run says exactly what is open" ||
			{ not_ok "ABI $N: moat run says exactly what is open" && _show moat run; }
	else
		[ -z "$err" ] && ok "ABI $N: moat run says nothing is open" ||
			{ not_ok "ABI $N: moat run says nothing is open" && _show moat run; }
	fi
	run "$AMOAT" profile
	expect_out "ABI $N: moat profile reports ABI $N" "^kernel: Landlock ABI $N\$"
	expect_out "ABI $N: and what is not enforced" "^not enforced: $(re_quote "${want:-nothing}")\$"

	# --- what it means ---------------------------------------------------
	run "$AMOAT" run -- "$PY" -c "import os, sys; os.truncate(sys.argv[1], 0)" "$KEY"
	[ "$rc" -ne 0 ] && [ "$(cat "$KEY")" = DECOY-SSH-KEY ] && grep -q PermissionError "$T/.err" &&
		ok "ABI $N: truncate() of ~/.ssh/id_rsa is refused ($([ "$N" -lt 3 ] && echo seccomp || echo Landlock))" ||
		{ not_ok "ABI $N: truncate() of ~/.ssh/id_rsa is refused" && _show truncate; echo DECOY-SSH-KEY >"$KEY"; }
	echo data >"$PROJ/t"
	run "$AMOAT" run -- ./truncate_path path t
	if [ "$N" -ge 3 ]; then
		[ "$rc" -eq 0 ] && [ ! -s "$PROJ/t" ] && ok "ABI $N: truncate() by path works in the root" ||
			{ not_ok "ABI $N: truncate() by path works in the root" && _show truncate; }
	else
		[ "$rc" -ne 0 ] && [ "$out" = "truncate: Permission denied" ] && [ -s "$PROJ/t" ] &&
			ok "ABI $N: truncate() by path is refused in the root too (EACCES)" ||
			{ not_ok "ABI $N: truncate() by path is refused in the root too (EACCES)" && _show truncate; }
	fi
	echo data >"$PROJ/t"
	run "$AMOAT" run -- ./truncate_path fd t
	[ "$rc" -eq 0 ] && [ ! -s "$PROJ/t" ] && ok "ABI $N: ftruncate() works in the root" ||
		{ not_ok "ABI $N: ftruncate() works in the root" && _show ftruncate; }

	echo x >"$PROJ/a/f"
	run "$AMOAT" run -- "$PY" -c "import os; os.rename('a/f', 'b/f'); os.link('b/f', 'a/f'); print('MOVED')"
	if [ "$N" -ge 2 ]; then
		expect_out "ABI $N: rename and link across directories of the root work" '^MOVED$'
	else
		grep -q 'Errno 18' "$T/.err" && [ -e "$PROJ/a/f" ] && [ ! -e "$PROJ/b/f" ] &&
			ok "ABI 1: rename across directories of the root fails with EXDEV" ||
			{ not_ok "ABI 1: rename across directories of the root fails with EXDEV" && _show rename; }
		run "$AMOAT" run -- mv a/f b/f
		[ "$rc" -eq 0 ] && [ -e "$PROJ/b/f" ] && ok "ABI 1: mv copes (it copies when rename says EXDEV)" ||
			{ not_ok "ABI 1: mv copes" && _show mv; }
	fi
	rm -f "$PROJ/a/f" "$PROJ/b/f"

	if [ -n "$DEVNODE" ]; then
		run "$AMOAT" run -- "$PY" -c "
import fcntl, termios
try:
    fcntl.ioctl(open('$DEVNODE'), termios.TCGETS, bytes(64))
except OSError as e:
    print('ioctl errno', e.errno)"
		if [ "$N" -ge 5 ]; then
			expect_out "ABI $N: an ioctl on a granted device without the ioctl right is refused (EACCES)" '^ioctl errno 13$'
		else
			expect_out "ABI $N: an ioctl on a granted device reaches the driver (ENOTTY), as moat says" '^ioctl errno 25$'
		fi
	fi

	run "$AMOAT" run -- "$PY" -c "import socket; socket.socket(socket.AF_UNIX)"
	grep -q PermissionError "$T/.err" && ok "ABI $N: no AF_UNIX socket can be made (abstract ones neither)" ||
		{ not_ok "ABI $N: no AF_UNIX socket can be made" && _show socket; }

	# Signals: scoped from ABI 6; below it open to a wrapped tool (as
	# docs/security.md says), never to moat run, whose PID namespace holds
	# nothing outside.
	for how in "moat run" "a wrapped tool"; do
		if [ "$how" = "moat run" ]; then run "$AMOAT" run -- kill -0 "$victim"; else
			run env MOAT_ROOT="$PROJ" "$W/kill" -0 "$victim"; fi
		if [ "$N" -ge 6 ] || [ "$how" = "moat run" ]; then
			[ "$rc" -ne 0 ] && ok "ABI $N: $how cannot signal an outside process" ||
				{ not_ok "ABI $N: $how cannot signal an outside process" && _show kill; }
		else
			[ "$rc" -eq 0 ] && ok "ABI $N: $how can signal an outside process (open below ABI 6, and said so)" ||
				{ not_ok "ABI $N: $how can signal an outside process (open below ABI 6, and said so)" && _show kill; }
		fi
	done
	kill -0 "$victim" && ok "ABI $N: the outside process is alive" || not_ok "ABI $N: the outside process is alive"
done
unset MOAT_TEST_LANDLOCK_ABI MOAT_TEST_LANDLOCK_LOG

# Merged /usr (/bin -> usr/bin): /bin, /sbin, /lib... get no rule of their
# own, /usr's covers every name below them (src/sandbox/landlock.c,
# covered_by_usr); elsewhere each keeps its rule. Either way, what is there
# still runs and lists.
LOG=$T/ll-usr
run env MOAT_TEST_LANDLOCK_LOG="$LOG" "$AMOAT" run -- sh -c '/bin/true && ls /bin/ | grep -qx true && echo BIN-OK'
expect_out "/bin/true runs and /bin lists, with or without a rule of its own" '^BIN-OK$'
merged=0
[ "$(readlink /bin)" = usr/bin ] && [ -d /usr/bin ] && [ ! -L /usr/bin ] && merged=1
if [ "$merged" = 1 ]; then
	grep -q '^covered /bin ' "$LOG" && ! grep -q '^rule /bin ' "$LOG" && grep -q '^rule /usr ' "$LOG" &&
		ok "merged /usr: /bin has no rule of its own, /usr's covers it" ||
		{ not_ok "merged /usr: /bin has no rule of its own, /usr's covers it" && sed 's/^/#   log: /' "$LOG"; }
else
	grep -q '^rule /bin ' "$LOG" && ! grep -q '^covered /bin ' "$LOG" &&
		ok "/bin is no link into /usr: it keeps its own rule" ||
		{ not_ok "/bin is no link into /usr: it keeps its own rule" && sed 's/^/#   log: /' "$LOG"; }
fi
# Only links right below /usr are covered: /etc, /proc, /sys, /dev/null keep theirs.
for path in /etc /proc /sys /dev/null; do
	grep -q "^rule $path " "$LOG" && ok "$path keeps its own rule" ||
		{ not_ok "$path keeps its own rule" && sed 's/^/#   log: /' "$LOG"; }
done

# A release build has no such switch: the same variable changes nothing.
run env MOAT_TEST_LANDLOCK_ABI=1 "$MOAT" profile
expect_out "the release build ignores MOAT_TEST_LANDLOCK_ABI" "^kernel: Landlock ABI $KABI\$"
grep -q MOAT_TEST_LANDLOCK "$MOAT" "$WRAPPER" && not_ok "the release binaries do not even hold the variable's name" ||
	ok "the release binaries do not even hold the variable's name"

done_testing
