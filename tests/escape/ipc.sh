#!/usr/bin/env bash
# Ways between processes of one user that no path names: the kernel keyrings
# and System V IPC. Landlock mediates neither. moat's seccomp filter refuses
# the keyring syscalls (ENOSYS, as a kernel without keys); System V shared
# memory is a documented gap (docs/security.md): a skip names it while it is
# open. POSIX shared memory lives in /dev/shm, which the profile denies.
. "$(dirname "$0")/../lib.sh"

cp "$HELPERS/ipc_peek" "$PROJ/ipc_peek"
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
	skip "no usable user keyring here (add_key: $(cat "$T/.err"))"
fi

# --- System V shared memory ------------------------------------------------
run ./ipc_peek shm-create "$shmkey" SYSV-SECRET
if [ "$rc" -eq 0 ]; then
	run "$MOAT" run -- ./ipc_peek shm-read "$shmkey"
	if grep -q SYSV-SECRET "$T/.out"; then
		skip "known gap, not mediated by Landlock: System V shared memory of the user's processes (docs/security.md)"
	else
		ok "refused: System V shared memory of a process outside"
	fi
	"$HELPERS/ipc_peek" shm-remove "$shmkey" >/dev/null 2>&1
else
	skip "cannot create a System V segment here"
fi
key2=$((shmkey + 1))
run "$MOAT" run -- sh -c "./ipc_peek shm-create $key2 INSIDE-SHM >/dev/null && ./ipc_peek shm-read $key2; ./ipc_peek shm-remove $key2 >/dev/null"
expect_out "System V shared memory made inside the sandbox works (a test database needs it)" 'shm-read: ok INSIDE-SHM'

# --- POSIX shared memory and semaphores: files in /dev/shm -----------------
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
	echo SHM-FILE-SECRET >"/dev/shm/moat-escape-$$"
	eval "$(trap -p EXIT | sed "s|^trap -- '|trap -- 'rm -f /dev/shm/moat-escape-$$; |")"
	expect_denied "refused: a POSIX shared memory object of a process outside" "$MOAT" run -- cat "/dev/shm/moat-escape-$$"
	run "$MOAT" run -- /usr/bin/python3 -c 'import multiprocessing as mp; mp.Lock()'
	grep -q PermissionError "$T/.err" &&
		skip "known cost: POSIX semaphores (/dev/shm) are denied, so Python multiprocessing locks, queues and pools fail (docs/security.md)" ||
		ok "POSIX semaphores work inside the sandbox"
fi

done_testing
