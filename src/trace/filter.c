/* The seccomp prefilter of --trace: SECCOMP_RET_TRACE for the syscalls
 * through which Landlock can refuse a file operation, SECCOMP_RET_ALLOW for
 * everything else, so a traced command stops only where a refusal can
 * happen (a few percent of its syscalls) instead of twice per syscall as
 * under plain PTRACE_SYSCALL. It is stacked with the sandbox's own filter
 * (seccomp.c), which still refuses what it refuses: RET_ERRNO outranks
 * RET_TRACE.
 *
 * Not watched, and so never reported: syscalls of other ABIs (i386 and x32
 * binaries on x86_64), io_uring operations (not syscalls), ioctl (moat grants
 * ioctl only on devices it opens anyway) and ftruncate (every writable rule
 * carries TRUNCATE, so it cannot be refused on its own). */
#ifdef __linux__
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "sandbox/syscalls.h"
#include "trace/linux.h"

const struct sc_desc trace_syscalls[] = {
#ifdef SYS_open
    {SYS_open, SC_OPEN, NONE, 0, NONE, NONE, 1},
#endif
    {SYS_openat, SC_OPEN, 0, 1, NONE, NONE, 2},
#ifdef SYS_openat2
    {SYS_openat2, SC_OPENAT2, 0, 1, NONE, NONE, 2},
#endif
#ifdef SYS_creat
    {SYS_creat, SC_CREAT, NONE, 0, NONE, NONE, NONE},
#endif
    {SYS_truncate, SC_TRUNCATE, NONE, 0, NONE, NONE, NONE},
    {SYS_execve, SC_EXEC, NONE, 0, NONE, NONE, NONE},
#ifdef SYS_execveat
    {SYS_execveat, SC_EXEC, 0, 1, NONE, NONE, 4},
#endif
#ifdef SYS_mkdir
    {SYS_mkdir, SC_MKDIR, NONE, 0, NONE, NONE, NONE},
#endif
    {SYS_mkdirat, SC_MKDIR, 0, 1, NONE, NONE, NONE},
#ifdef SYS_mknod
    {SYS_mknod, SC_MKNOD, NONE, 0, NONE, NONE, 1},
#endif
    {SYS_mknodat, SC_MKNOD, 0, 1, NONE, NONE, 2},
#ifdef SYS_symlink
    {SYS_symlink, SC_SYMLINK, NONE, 1, NONE, NONE, NONE},
#endif
    {SYS_symlinkat, SC_SYMLINK, 1, 2, NONE, NONE, NONE},
#ifdef SYS_unlink
    {SYS_unlink, SC_UNLINK, NONE, 0, NONE, NONE, NONE},
#endif
#ifdef SYS_rmdir
    {SYS_rmdir, SC_RMDIR, NONE, 0, NONE, NONE, NONE},
#endif
    {SYS_unlinkat, SC_UNLINK, 0, 1, NONE, NONE, 2},
#ifdef SYS_rename
    {SYS_rename, SC_RENAME, NONE, 0, NONE, 1, NONE},
#endif
#ifdef SYS_renameat
    {SYS_renameat, SC_RENAME, 0, 1, 2, 3, NONE},
#endif
    {SYS_renameat2, SC_RENAME, 0, 1, 2, 3, 4},
#ifdef SYS_link
    {SYS_link, SC_LINK, NONE, 0, NONE, 1, NONE},
#endif
    {SYS_linkat, SC_LINK, 0, 1, 2, 3, 4},
    /* The sockaddr sits where a path would, its length where flags would. */
    {SYS_bind, SC_BIND, 0, 1, NONE, NONE, 2},
    /* The network policy's port rules: the same layout. */
    {SYS_connect, SC_CONNECT, 0, 1, NONE, NONE, 2},
};
const size_t trace_nsyscalls = ARRAY_LEN(trace_syscalls);

const struct sc_desc *trace_syscall(long nr)
{
	for (size_t i = 0; i < trace_nsyscalls; i++)
		if (trace_syscalls[i].nr == nr)
			return &trace_syscalls[i];
	return NULL;
}

#define MAX_INSNS 48

int trace_filter_install(struct error *err)
{
	/* Load arch; other ABIs pass. Load nr; one JEQ per syscall jumping to
	 * the final TRACE, falling through to ALLOW. */
	struct sock_filter f[MAX_INSNS];
	size_t n = 0, count = trace_nsyscalls;
	_Static_assert(ARRAY_LEN(trace_syscalls) + 6 <= MAX_INSNS, "filter too long");
	f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
	                                      offsetof(struct seccomp_data, arch));
	f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NATIVE_ARCH, 1, 0);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
	                                      offsetof(struct seccomp_data, nr));
	for (size_t i = 0; i < count; i++)
		f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
		                                      (uint32_t)trace_syscalls[i].nr,
		                                      (unsigned char)(count - i), 0);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE);
	struct sock_fprog prog = {.len = (unsigned short)n, .filter = f};
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) < 0)
		return error_errno(err, "cannot install the trace filter");
	return 0;
}
#endif
