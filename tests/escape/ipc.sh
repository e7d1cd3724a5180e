#!/usr/bin/env bash
# Ways between processes of one user that no path names: the kernel keyrings
# and System V IPC. Landlock mediates neither. moat's seccomp filter refuses
# the keyring syscalls (ENOSYS, as a kernel without keys). A session gets its
# own IPC namespace and an empty tmpfs on /dev/shm (POSIX shared memory and
# semaphores) when the kernel lets moat make them, as `moat profile` says;
# where it does not, System V IPC is a documented gap (docs/security.md).
. "$(dirname "$0")/../lib.sh"

cp "$HELPERS/ipc_peek" "$PROJ/ipc_peek"
private=
"$MOAT" profile 2>/dev/null | grep -q '^ipc: private' && private=1
serial= shmkey=$((0x6d6f0000 + $$ % 65536))
eval "$(trap -p EXIT | sed "s/^trap -- '/trap -- '[ -n \"\$serial\" ] \&\& \"\$HELPERS\/ipc_peek\" key-remove \"\$serial\" >\/dev\/null 2>\&1; \"\$HELPERS\/ipc_peek\" shm-remove $shmkey >\/dev\/null 2>\&1; /")"

# --- the user keyring ------------------------------------------------------
run ./ipc_peek key-add "moat-escape-$$" KEYRING-SECRET
if [ "$rc" -eq 0 ]; then
	serial=$(awk '{print $3}' "$T/.out")
	run ./ipc_peek key-read "moat-escape-$$"
	expect_out "control: the user keyring holds the key, readable by the user" 'key-read: ok KEYRING-SECRET'
	run "$MOAT" run -- ./ipc_peek key-read "moat-escape-$$"
	[ "$rc" -ne 0 ] && ! grep -q KEYRING-SECRET "$T/.out" && grep -q 'Function not implemented' "$T/.err" &&
		ok "refused: reading the user's keyring from inside (ENOSYS)" ||
		{ not_ok "refused: reading the user's keyring from inside" && _show key-read; }
	run "$MOAT" run -- ./ipc_peek key-add moat-planted PLANTED
	[ "$rc" -ne 0 ] && ok "refused: adding a key to the user's keyring from inside" ||
		{ not_ok "refused: adding a key to the user's keyring" && _show key-add; }
else
	skip "prerequisite: a usable user keyring (add_key: $(cat "$T/.err"))"
fi

# --- System V shared memory ------------------------------------------------
run ./ipc_peek shm-create "$shmkey" SYSV-SECRET
if [ "$rc" -eq 0 ]; then
	run "$MOAT" run -- ./ipc_peek shm-read "$shmkey"
	if [ -n "$private" ]; then
		[ "$rc" -ne 0 ] && [ "$rc" -lt 125 ] && ! grep -q SYSV-SECRET "$T/.out" &&
			ok "refused: System V shared memory of a process outside (a private IPC namespace)" ||
			{ not_ok "refused: System V shared memory of a process outside (moat profile says ipc is private)" && _show shm-read; }
	else
		known_breakage "refused: System V shared memory of a process outside" \
			"no IPC namespace can be made here, so the user's segments are reachable by id (docs/security.md)" \
			grep -q SYSV-SECRET "$T/.out"
	fi
	"$HELPERS/ipc_peek" shm-remove "$shmkey" >/dev/null 2>&1
else
	skip "prerequisite: a System V segment to read (the control shm-create failed)"
fi
key2=$((shmkey + 1))
run "$MOAT" run -- sh -c "./ipc_peek shm-create $key2 INSIDE-SHM >/dev/null && ./ipc_peek shm-read $key2; ./ipc_peek shm-remove $key2 >/dev/null"
expect_out "System V shared memory made inside the sandbox works (a test database needs it)" 'shm-read: ok INSIDE-SHM'

# --- POSIX shared memory and semaphores: files in /dev/shm -----------------
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
	echo SHM-FILE-SECRET >"/dev/shm/moat-escape-$$"
	eval "$(trap -p EXIT | sed "s|^trap -- '|trap -- 'rm -f /dev/shm/moat-escape-$$; |")"
	run "$MOAT" run -- cat "/dev/shm/moat-escape-$$"
	ran_and_failed && ! grep -q SHM-FILE-SECRET "$T/.out" && ok "refused: a POSIX shared memory object of a process outside" ||
		{ not_ok "refused: a POSIX shared memory object of a process outside" && _show cat; }

	# A wrapped tool started outside a session makes no namespaces (they
	# would double its start-up cost): the host's /dev/shm stays denied.
	"$MOAT" wrap "$HOME/.local/share/moat/shells/ipc" /bin/cat >/dev/null 2>&1
	expect_denied "refused: the same object to a wrapped tool outside a session" \
		env MOAT_ROOT="$PROJ" "$HOME/.local/share/moat/shells/ipc/bin/cat" "/dev/shm/moat-escape-$$"

	if [ -n "$private" ]; then
		run "$MOAT" run -- /usr/bin/python3 -c 'import multiprocessing as mp
with mp.Pool(2) as pool: print("pool:", sum(pool.map(abs, [-1, -2, -3])))'
		expect_out "Python multiprocessing pools work in a session (semaphores in its own /dev/shm)" '^pool: 6$'
		# Nested: inside a sandbox no namespaces can be made. The inner run
		# must still start, with /dev/shm denied, not in a broken namespace.
		cp "$MOAT" "$MOAT_BUILD/moat-wrapper" "$PROJ/"
		run "$MOAT" run -- ./moat run -- sh -c 'echo "uid=$(id -u) owner=$(stat -c %u .)"; ls /dev/shm'
		grep -q "^uid=$(id -u) owner=$(id -u)\$" "$T/.out" && grep -qi 'permission denied' "$T/.err" &&
			ok "a session inside a session starts, with /dev/shm denied and ids intact" ||
			{ not_ok "a session inside a session starts, with /dev/shm denied and ids intact" && _show "nested moat run"; }
		# A root without CAP_SYS_ADMIN makes no user namespace, which would
		# cost it CAP_DAC_OVERRIDE on files of other owners.
		if is_root && command -v setpriv >/dev/null; then
			mkdir -p "$PROJ/theirs" && chown 65534:65534 "$PROJ/theirs" && chmod 700 "$PROJ/theirs"
			# As a root that never had it: once namespaces have worked,
			# moat refuses to go on without them (failclosed.sh).
			rm -f "$XDG_STATE_HOME/moat/namespaces-worked"
			run setpriv --inh-caps=-sys_admin --bounding-set=-sys_admin "$MOAT" run -- sh -c 'echo x >theirs/f && echo WROTE'
			expect_out "root without CAP_SYS_ADMIN still writes files it does not own" '^WROTE$'
			rm -rf "$PROJ/theirs"
		fi
	else
		run "$MOAT" run -- /usr/bin/python3 -c 'import multiprocessing as mp; mp.Lock()'
		known_breakage "Python multiprocessing locks work in a session" \
			"no namespaces can be made here, so POSIX semaphores (/dev/shm) are denied (docs/security.md)" \
			grep -q PermissionError "$T/.err"
	fi
fi

# A project that lives in /dev/shm (a RAM disk for a fast build): it is
# bound into the session's own /dev/shm, whose other files stay the host's;
# the rest of that /dev/shm is refused, POSIX shared memory with it.
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
	shmproj=$(mktemp -d /dev/shm/moat-proj.XXXXXX)
	eval "$(trap -p EXIT | sed "s|^trap -- '|trap -- 'rm -rf $shmproj; |")"
	echo IN-SHM >"$shmproj/f"
	run sh -c "cd '$shmproj' && '$MOAT' run -- sh -c 'cat f && echo x >g && echo WROTE'"
	grep -q '^IN-SHM$' "$T/.out" && grep -q '^WROTE$' "$T/.out" && ok "a project in /dev/shm still works" ||
		{ not_ok "a project in /dev/shm still works" && _show "run in /dev/shm"; }
	[ -f "$shmproj/g" ] && ok "and what it wrote is in the host's /dev/shm project" ||
		not_ok "and what it wrote is in the host's /dev/shm project"
	shmdecoy=$(mktemp /dev/shm/moat-decoy.XXXXXX)
	echo SHM-DECOY >"$shmdecoy"
	run sh -c "cd '$shmproj' && '$MOAT' run -- ls /dev/shm"
	ran_and_failed && ! grep -qF "$(basename "$shmdecoy")" "$T/.out" &&
		ok "while the rest of the host's /dev/shm stays out of sight (refused)" ||
		{ not_ok "while the rest of the host's /dev/shm stays out of sight" && _show ls; }
	# The session's /dev/shm stands in for the host's there: a write beside
	# the project is refused, never kept until the session ends (issue 39).
	run sh -c "cd '$shmproj' && '$MOAT' run -- sh -c 'echo x >../moat-beside-$$'"
	ran_and_failed && grep -qi 'permission denied' "$T/.err" && [ ! -e "/dev/shm/moat-beside-$$" ] &&
		ok "a write beside it is refused" || { not_ok "a write beside it is refused" && _show beside; }
	rm -f "$shmdecoy"
	run sh -c "cd '$shmproj' && '$MOAT' profile"
	expect_out "and moat profile says its IPC is private" '^ipc: private'
	rm -rf "$shmproj"
fi

done_testing
