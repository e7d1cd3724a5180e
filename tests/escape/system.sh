#!/usr/bin/env bash
# The system directories are read (+ exec) only, and that is what stands
# between root and the host: root passes every file permission, so these
# writes are refused by Landlock or not at all. Each write puts back the
# value already there, so nothing changes even if one were let through.
# Also what the read rules knowingly expose: known breakage naming the gap.
. "$(dirname "$0")/../lib.sh"

# rewrite NAME FILE: inside moat, write FILE's own content back to it.
rewrite() {
	run "$MOAT" run -- sh -c 'v=$(cat "$1") && printf "%s\n" "$v" >"$1" && echo WROTE' sh "$2"
	if [ "$rc" -ne 0 ] && ! grep -q WROTE "$T/.out" && grep -qi 'permission denied' "$T/.err"; then
		ok "refused: writing $1 ($2)"
	else
		not_ok "refused: writing $1 ($2)" && _show rewrite "$2"
	fi
}

for f in /proc/sys/kernel/hostname /proc/sys/kernel/core_pattern /proc/sys/vm/swappiness; do
	[ -w "$f" ] && rewrite "a sysctl" "$f"
done
[ -e /proc/sysrq-trigger ] && is_root && {
	run "$MOAT" run -- sh -c 'echo h >/proc/sysrq-trigger && echo WROTE'
	expect_refused "refused: /proc/sysrq-trigger" WROTE
}
for f in /sys/kernel/mm/transparent_hugepage/enabled /sys/module/printk/parameters/time; do
	[ -w "$f" ] && [ -r "$f" ] && rewrite "a /sys attribute" "$f"
done
# Each needs its control: the same creation works without moat (as root;
# uid 65534 may write none of them, so there the test would prove nothing),
# and the command ran inside moat and failed itself. (/var/tmp is not
# among them: a session has its own.)
for d in /usr/local /etc /opt /srv; do
	[ -d "$d" ] || continue
	f=$d/moat-escape-$$
	if ! touch "$f" 2>/dev/null; then
		skip "prerequisite: creating a file in $d without moat (root can)"
		continue
	fi
	rm -f "$f"
	run "$MOAT" run -- sh -c 'echo STARTED; touch "$1"' sh "$f"
	if [ ! -e "$f" ] && ran_and_failed && grep -q '^STARTED$' "$T/.out"; then
		ok "refused: creating a file in $d (control: it works without moat)"
	else
		not_ok "refused: creating a file in $d" && _show touch "$f"
		rm -f "$f"
	fi
done
run "$MOAT" run -- sh -c 'cat /etc/hostname >/dev/null && ls /usr/bin >/dev/null && echo READS-OK'
expect_out "reading /etc and /usr works" '^READS-OK$'

# --- what the read rules expose, knowingly ---------------------------------
if is_root && [ -r /etc/shadow ]; then
	run "$MOAT" run -- head -c 1 /etc/shadow
	known_breakage "refused: root reading /etc/shadow" \
		"/etc is readable by design and root owns /etc/shadow and the SSH host keys (docs/security.md)" \
		test "$rc" -eq 0 -a "$out" = "$(head -c 1 /etc/shadow)"
else
	skip "prerequisite: root, who can read /etc/shadow without moat"
fi
(exec -a "moat-escape-visible --password=CMDLINE-SECRET" sleep 30) </dev/null >/dev/null 2>&1 &
victim=$!
sleep 0.2
expect_ok "control: its command line is readable outside" grep -q CMDLINE-SECRET "/proc/$victim/cmdline"
run "$MOAT" run -- sh -c "tr '\\0' ' ' </proc/$victim/cmdline"
[ "$rc" -ne 0 ] && ! grep -q CMDLINE-SECRET "$T/.out" &&
	ok "refused: another process's command line in moat run (a /proc of its own)" ||
	{ not_ok "refused: another process's command line in moat run" && _show cmdline; }
"$MOAT" wrap systools /bin/sh >/dev/null 2>&1
run env MOAT_ROOT="$PROJ" "$XDG_DATA_HOME/moat/shells/systools/bin/sh" -c "tr '\\0' ' ' </proc/$victim/cmdline"
known_breakage "refused: another process's command line, from a wrapped tool" \
	"/proc/PID/cmdline of every process is readable outside a session, as for any local process (docs/security.md)" \
	grep -q CMDLINE-SECRET "$T/.out"
kill "$victim" 2>/dev/null
# Not a gap but the design (docs/security.md): asserted, so that a change
# to it is noticed and documented.
run env MOAT_ESCAPE_TOKEN=ENV-SECRET "$MOAT" run -- sh -c 'echo "token=$MOAT_ESCAPE_TOKEN"'
[ "$rc" -eq 0 ] && grep -q 'token=ENV-SECRET' "$T/.out" &&
	ok "by design: the caller's environment is inherited, secrets in it included (docs/security.md)" ||
	{ not_ok "by design: the caller's environment is inherited (docs/security.md says so)" && _show env; }

# fanotify: since Linux 5.13 an unprivileged process may mark files by inode
# and learn when they are read, past Landlock. FAN_REPORT_FID (0x200) is what
# the unprivileged need.
fan='import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
fd = libc.fanotify_init(0x200, os.O_RDONLY)
print("fanotify:", "ok" if fd >= 0 else os.strerror(ctypes.get_errno()))'
run /usr/bin/python3 -c "$fan"
if grep -q 'fanotify: ok' "$T/.out"; then
	ok "control: fanotify_init works without moat"
	run "$MOAT" run -- /usr/bin/python3 -c "$fan"
	expect_out "refused: fanotify_init inside moat" '^fanotify: Operation not permitted$'
else
	skip "prerequisite: fanotify for this user (Linux 5.13, or root): $(cat "$T/.out")"
fi

done_testing
