/* The refused calls' i386 numbers (syscalls.h), from the kernel's own
 * <asm/unistd_32.h>: a file of their own, since that header and
 * <sys/syscall.h> define the same __NR_* names with other numbers. */
#include "sandbox/syscalls.h"

#if HAS_I386
#include <asm/unistd_32.h>

/* Not in i386's table (kexec_file_load), or newer than Debian 12's
 * headers (fchmodat2, Linux 6.6, one number everywhere). */
#ifndef __NR_kexec_file_load
#define __NR_kexec_file_load NO_NR
#endif
#ifndef __NR_fchmodat2
#define __NR_fchmodat2 452
#endif
#define I386_NR(name, check, explain, what, why) __NR_##name,
#else
#define I386_NR(name, check, explain, what, why) NO_NR,
#endif

const uint32_t refused_calls_i386[REFUSED_CALLS_COUNT] = {REFUSED_CALLS(I386_NR)};
