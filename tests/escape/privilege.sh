#!/usr/bin/env bash
# Privilege (issue 6, item 7): setuid and file-capability binaries gain
# nothing (no_new_privs); unshare, mount, chroot and pivot_root cannot widen
# the view; device nodes cannot be made in the root; root keeps no power that
# reaches past the ruleset (capabilities dropped, the rest refused by the
# seccomp filter).
. "$(dirname "$0")/../lib.sh"

cp "$HELPERS/kernel_powers" "$PROJ/kernel_powers"
KEY=$HOME/.ssh/id_rsa
NOBODY=()
# nobody runs with this HOME, but its own state (the record of past roots
# is private to its user, context/pastroots.h).
is_root && mkdir -p "$T/nobody-state" && chown 65534:65534 "$T/nobody-state" &&
	NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups env XDG_STATE_HOME="$T/nobody-state")

run "$MOAT" run -- grep -E '^NoNewPrivs:' /proc/self/status
expect_out "no_new_privs is set inside the sandbox" 'NoNewPrivs:[[:space:]]+1'

# --- setuid: passwd -S reads /etc/shadow only through its setuid bit -------
if [ -u /usr/bin/passwd ]; then
	run "${NOBODY[@]}" passwd -S
	if grep -qE '^nobody [A-Z]+ [0-9]' "$T/.out"; then
		ok "control: setuid passwd reads /etc/shadow for nobody"
		# As nobody, moat needs a root it can write.
		if is_root; then
			chmod 755 "$T" "$HOME"
			chown 65534 "$PROJ"
		fi
		run "${NOBODY[@]}" "$MOAT" run -- passwd -S
		grep -qE '^nobody [A-Z]+ never' "$T/.out" &&
			ok "inside moat, setuid passwd runs as nobody and cannot read /etc/shadow" ||
			{ not_ok "inside moat, setuid passwd gains nothing" && _show passwd -S; }
	else
		skip "prerequisite: passwd -S that shows the difference its setuid bit makes"
	fi
else
	skip "prerequisite: a setuid /usr/bin/passwd"
fi

# --- a setuid-root copy and a file-capability copy, made by root -----------
if is_root; then
	chmod 755 "$T" "$HOME"
	chown 65534 "$PROJ"
	cp /usr/bin/id "$PROJ/suid-id"
	chmod 4755 "$PROJ/suid-id"
	run "${NOBODY[@]}" "$PROJ/suid-id" -u
	[ "$out" = 0 ] && ok "control: the setuid-root copy makes nobody euid 0" || not_ok "control: setuid-root copy"
	run "${NOBODY[@]}" "$MOAT" run -- ./suid-id -u
	[ "$rc" -eq 0 ] && [ "$out" = 65534 ] && ok "inside moat, the setuid-root copy leaves nobody nobody" ||
		{ not_ok "inside moat, the setuid-root copy leaves nobody nobody" && _show suid-id; }
	if command -v setcap >/dev/null; then
		cp /bin/cat "$PROJ/cap-cat"
		setcap cap_dac_read_search+ep "$PROJ/cap-cat"
		echo ROOT-ONLY >"$PROJ/root-only" && chmod 600 "$PROJ/root-only"
		run "${NOBODY[@]}" "$PROJ/cap-cat" "$PROJ/root-only"
		[ "$out" = ROOT-ONLY ] && ok "control: a file capability lets nobody read a root-only file" ||
			not_ok "control: file capability"
		run "${NOBODY[@]}" "$MOAT" run -- ./cap-cat root-only
		expect_refused "inside moat, the file capability is not granted" ROOT-ONLY
	else
		skip "prerequisite: setcap"
	fi
else
	skip "prerequisite: root, to make a setuid-root or file-capability copy (the root pass runs them as nobody)"
fi

# --- namespaces, mounts, chroot, pivot_root --------------------------------
# unshare(1) -U cannot write /proc/self/uid_map inside moat (/proc is
# read-only), which would refuse these attempts before any mount is tried.
# A process that calls unshare(CLONE_NEWUSER|CLONE_NEWNS) itself holds every
# capability in its new namespaces without writing the maps, so the raw calls
# below reach the kernel's mount checks, where Landlock must refuse them.
cat >"$PROJ/ns.py" <<'EOF'
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
def check(r, what):
    if r < 0:
        e = ctypes.get_errno(); print(f"{what}: {os.strerror(e)}"); sys.exit(1)
check(libc.unshare(0x10000000 | 0x00020000), "unshare")  # CLONE_NEWUSER | CLONE_NEWNS
key_dir = os.environ["HOME"] + "/.ssh"
what = sys.argv[1]
if what == "bind":
    check(libc.mount(key_dir.encode(), b"mnt", None, 4096 | 16384, None), "mount --bind")  # MS_BIND|MS_REC
    print(open("mnt/id_rsa").read().strip())
elif what == "tmpfs":
    check(libc.mount(b"none", b"mnt", b"tmpfs", 0, None), "mount tmpfs"); print("MOUNTED")
elif what == "umount":  # uncover the host's /dev/shm under the session's own
    # (refused as a locked mount, EINVAL, before Landlock's EPERM is asked)
    check(libc.umount2(b"/dev/shm", 2), "umount"); print(os.listdir("/dev/shm"))  # MNT_DETACH
elif what == "pivot":
    check(libc.syscall(155 if os.uname().machine == "x86_64" else 41, b".", b"mnt"), "pivot_root")
elif what == "chroot":
    check(libc.chroot(b"/"), "chroot"); print(open(key_dir + "/id_rsa").read().strip())
elif what == "open_tree":
    fd = libc.syscall(428, -100, os.environ["HOME"].encode(), 1 | 0x8000 | 0x80000)  # CLONE|RECURSIVE|CLOEXEC
    check(fd, "open_tree")
    print(open(os.open(".ssh/id_rsa", os.O_RDONLY, dir_fd=fd)).read().strip())
EOF
mkdir -p "$PROJ/mnt"
if (cd "$PROJ" && /usr/bin/python3 ns.py tmpfs >/dev/null 2>&1); then
	run /usr/bin/python3 ns.py bind
	expect_out "control: unshare + mount --bind of ~/.ssh shows the key unconfined" DECOY-SSH-KEY
	shm_decoy=
	if [ -w /dev/shm ]; then
		shm_decoy=$(mktemp /dev/shm/moat-umount.XXXXXX)
		eval "$(trap -p EXIT | sed "s|^trap -- '|trap -- 'rm -f $shm_decoy; |")"
	fi
	for attempt in bind tmpfs pivot umount; do
		run "$MOAT" run -- /usr/bin/python3 ns.py "$attempt"
		grep -qE '^((mount --bind|mount tmpfs|pivot_root|umount): Operation not permitted|umount: Invalid argument)$' "$T/.out" &&
			! grep -q DECOY-SSH-KEY "$T/.out" && { [ -z "$shm_decoy" ] || ! grep -q "${shm_decoy##*/}" "$T/.out"; } && ok "refused by Landlock: $attempt in a new user+mount namespace" ||
			{ not_ok "refused by Landlock: $attempt in a new user+mount namespace" && _show "$attempt"; }
	done
	for attempt in chroot open_tree; do
		run "$MOAT" run -- /usr/bin/python3 ns.py "$attempt"
		ran_and_failed && ! grep -q DECOY-SSH-KEY "$T/.out" && ok "a new namespace + $attempt still sees the key denied" ||
			{ not_ok "a new namespace + $attempt still sees the key denied" && _show "$attempt"; }
	done
	run "$MOAT" run -- unshare -Urm true
	grep -q 'uid_map: Permission denied' "$T/.err" &&
		ok "unshare -U cannot map ids inside moat (/proc is read-only; docs/security.md)" ||
		{ not_ok "unshare -U cannot map ids inside moat" && _show unshare; }
else
	skip "prerequisite: user namespaces for $(id -un) (the unconfined control failed)"
fi

# --- device nodes ----------------------------------------------------------
if is_root; then
	run mknod "$T/control-blk" b 7 0
	[ "$rc" -eq 0 ] && ok "control: root makes a block device node unconfined" || not_ok "control: mknod b"
	rm -f "$T/control-blk"
fi
run "$MOAT" run -- mknod "$PROJ/disk" b 8 0
[ "$rc" -ne 0 ] && [ ! -e "$PROJ/disk" ] && ok "refused: a block device node in the root" ||
	{ not_ok "refused: a block device node in the root" && _show mknod-b; }
run "$MOAT" run -- mknod "$PROJ/mem" c 1 1
[ "$rc" -ne 0 ] && [ ! -e "$PROJ/mem" ] && ok "refused: a character device node (/dev/mem) in the root" ||
	{ not_ok "refused: a character device node in the root" && _show mknod-c; }
run "$MOAT" run -- sh -c 'mkfifo fifo && [ -p fifo ] && echo FIFO-OK'
expect_out "a named pipe in the root works" '^FIFO-OK$'

# --- root's kernel-wide powers ---------------------------------------------
for p in init_module finit_module kexec_load iopl ioperm bpf; do
	run "$MOAT" run -- ./kernel_powers "$p"
	grep -q "$p: Operation not permitted" "$T/.err" && ok "refused by the filter: $p" ||
		{ not_ok "refused by the filter: $p" && _show "$p"; }
done
# Every set (inheritable, permitted, effective, bounding, ambient) holds only
# the capabilities moat keeps (src/sandbox/caps.c): as root, and as a user,
# whose `moat run` holds all of them in its user namespace before the drop.
kept_caps=$(((1 << 1) | (1 << 4) | (1 << 5) | (1 << 6) | (1 << 7) | (1 << 10) | (1 << 18) | (1 << 29)))
cap_excess() { # cap_excess FILE: the sets in FILE (grep of /proc/PID/status) with a capability not kept
	local name v bad=
	while read -r name v; do
		v=$((16#$v))
		((v & ~kept_caps)) && bad="$bad ${name%:}=$(printf '%x' $((v & ~kept_caps)))"
	done <"$1"
	echo "$bad"
}
if is_root; then
	grep -E '^Cap(Inh|Prm|Eff|Bnd|Amb):' /proc/self/status >"$T/caps.control"
	[ -n "$(cap_excess "$T/caps.control")" ] && ok "control: root outside moat holds capabilities moat drops" ||
		not_ok "control: root outside moat holds capabilities moat drops"
fi
run "$MOAT" run -- grep -E '^Cap(Inh|Prm|Eff|Bnd|Amb):' /proc/self/status
bad=$(cap_excess "$T/.out")
[ "$(grep -c . "$T/.out")" = 5 ] && [ -z "$bad" ] && ok "no capability set holds one moat drops" ||
	{ not_ok "no capability set holds one moat drops:$bad" && _show caps; }
# moat-wrapper drops them with the same code, without a session's namespaces
# (so a user's bounding set stays as it was: lowering it needs CAP_SETPCAP,
# and no_new_privs keeps an exec from gaining what it holds).
expect_ok "moat wrap a shell with grep" "$MOAT" wrap captools "$(command -v grep)"
sets='Inh|Prm|Eff|Amb' nsets=4
is_root && sets="$sets|Bnd" nsets=5
run env MOAT_ROOT="$PROJ" "$XDG_DATA_HOME/moat/shells/captools/bin/grep" -E "^Cap($sets):" /proc/self/status
bad=$(cap_excess "$T/.out")
[ "$(grep -c . "$T/.out")" = "$nsets" ] && [ -z "$bad" ] && ok "moat-wrapper: no capability set holds one moat drops" ||
	{ not_ok "moat-wrapper: no capability set holds one moat drops:$bad" && _show wrapper-caps; }
if is_root; then
	run "$MOAT" run -- grep -E '^Cap(Eff|Bnd):' /proc/self/status
	bad=
	for line in $(awk '{print $2}' "$T/.out"); do
		v=$((16#$line))
		for cap in 2:dac_read_search 12:net_admin 16:sys_module 17:sys_rawio 19:sys_ptrace 21:sys_admin \
			31:setfcap 38:perfmon 39:bpf; do
			((v >> ${cap%%:*} & 1)) && bad="$bad ${cap#*:}"
		done
	done
	[ -z "$bad" ] && ok "root keeps no capability that reaches past the ruleset" ||
		not_ok "root keeps capabilities that reach past the ruleset:$bad"
	cp /bin/true "$T/outside-bin"
	run "$MOAT" run -- chmod u+s "$T/outside-bin"
	[ ! -u "$T/outside-bin" ] && grep -q 'Operation not permitted' "$T/.err" &&
		ok "refused: root setting the setuid bit on a file outside the root" ||
		{ not_ok "refused: root setting the setuid bit on a file outside the root" && _show chmod-suid; }
	run "$MOAT" run -- chown 65534 "$T/outside-bin"
	# Landlock does not judge chown; moat drops CAP_CHOWN (docs/security.md).
	ran_and_failed && grep -q 'Operation not permitted' "$T/.err" && [ "$(stat -c %u "$T/outside-bin")" = 0 ] &&
		ok "refused: root chown of a file outside the root (CAP_CHOWN is dropped)" ||
		{ not_ok "refused: root chown of a file outside the root" && _show chown; }
	chown 0 "$T/outside-bin"
fi
run "$MOAT" run -- sh -c 'touch x && chmod 755 x && chmod u+s x'
grep -q 'Operation not permitted' "$T/.err" && [ -x "$PROJ/x" ] && [ ! -u "$PROJ/x" ] &&
	ok "chmod works in the root, except for the set-id bits" || { not_ok "chmod in the root" && _show chmod; }

done_testing
