/* A classic BPF seccomp filter, written out by hand so moat-wrapper needs
 * nothing but libc and the kernel.
 *
 * Refused with EPERM:
 *  - ioctl(TIOCSTI) and ioctl(TIOCLINUX): with dev.tty.legacy_tiocsti=1 a
 *    process can type into the terminal that started moat, and the shell
 *    there runs what it typed unconfined. The terminal itself keeps working.
 *  - open_by_handle_at(): with CAP_DAC_READ_SEARCH (root) it opens files by
 *    handle, without a path for Landlock to judge.
 * Compatibility syscalls (i386, x32) are covered too: a 32-bit binary must not
 * be a way around the filter. */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "sandbox/seccomp.h"

#define TIOCSTI_CMD 0x5412u
#define TIOCLINUX_CMD 0x541Cu

#define LOAD_NR BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr))
#define LOAD_ARCH BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch))
/* The kernel reads an ioctl request as 32 bits: compare only the low word,
 * or TIOCSTI | (1 << 32) would slip through. */
#define LOAD_ARG1_LOW BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[1]))
#define ALLOW BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)
#define DENY BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA))
#define JEQ(value, jt, jf) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (value), (jt), (jf))

/* The same check for one ABI: nr_ioctl, nr_by_handle. Seven instructions. */
#define ABI_CHECKS(nr_ioctl, nr_by_handle)                                      \
	LOAD_NR, JEQ((nr_by_handle), 4, 0), JEQ((nr_ioctl), 0, 4), LOAD_ARG1_LOW, \
		JEQ(TIOCSTI_CMD, 1, 0), JEQ(TIOCLINUX_CMD, 0, 1), DENY, ALLOW

#if defined(__x86_64__)
#define X32_BIT 0x40000000u
static const struct sock_filter filter[] = {
	LOAD_ARCH,
	JEQ(AUDIT_ARCH_X86_64, 2, 0),
	JEQ(AUDIT_ARCH_I386, 19, 0),
	ALLOW,
	/* x86_64 and x32 share an arch value; x32 numbers carry X32_BIT. */
	LOAD_NR,
	BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, X32_BIT, 8, 0),
	ABI_CHECKS(SYS_ioctl, SYS_open_by_handle_at),
	ABI_CHECKS(X32_BIT | 514u, X32_BIT | 304u),
	ABI_CHECKS(54u, 342u),
};
#elif defined(__aarch64__)
static const struct sock_filter filter[] = {
	LOAD_ARCH,
	JEQ(AUDIT_ARCH_AARCH64, 1, 0),
	DENY, /* no compat syscalls expected: refuse rather than guess */
	ABI_CHECKS(SYS_ioctl, SYS_open_by_handle_at),
};
#else
#error "moat's seccomp filter does not know this architecture yet"
#endif

int seccomp_install(struct error *err)
{
	struct sock_fprog prog = {
		.len = (unsigned short)(sizeof(filter) / sizeof(filter[0])),
		.filter = (struct sock_filter *)filter,
	};
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) < 0)
		return error_set(err, "cannot install the seccomp filter: %s", strerror(errno));
	return 0;
}
