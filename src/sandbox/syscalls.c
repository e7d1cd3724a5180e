/* The refused calls' rows with their native numbers (syscalls.h). */
#include <stdbool.h>
#include <sys/syscall.h>

#include "sandbox/syscalls.h"

/* Calls this ABI's headers lack: aarch64 has only the *at calls and no I/O
 * ports; socketcall and truncate64 are i386's alone; fchmodat2 (Linux
 * 6.6) is newer than Debian 12's headers and has one number everywhere. */
#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452
#endif
#ifndef SYS_open
#define SYS_open  NO_NR
#define SYS_creat NO_NR
#define SYS_mknod NO_NR
#define SYS_chmod NO_NR
#endif
#ifndef SYS_iopl
#define SYS_iopl   NO_NR
#define SYS_ioperm NO_NR
#endif
#ifndef SYS_kexec_file_load
#define SYS_kexec_file_load NO_NR
#endif
#ifndef SYS_socketcall
#define SYS_socketcall NO_NR
#endif
#ifndef SYS_truncate64
#define SYS_truncate64 NO_NR
#endif

#define ROW(name, check, explain, what, why) {#name, SYS_##name, check, explain, what, why},
const struct refused_call refused_calls[REFUSED_CALLS_COUNT] = {REFUSED_CALLS(ROW)};

const struct refused_call *refused_call_find(uint32_t arch, uint32_t nr)
{
	bool i386 = HAS_I386 && arch == AUDIT_ARCH_I386;
	if (!i386 && arch != NATIVE_ARCH)
		return NULL;
	for (size_t i = 0; i < REFUSED_CALLS_COUNT; i++) {
		uint32_t n = refused_call_nr(i, i386);
		if (n == nr && n != NO_NR)
			return &refused_calls[i];
	}
	return NULL;
}
