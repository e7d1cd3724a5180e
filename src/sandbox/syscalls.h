/* The one table of system calls the seccomp filter refuses, in some or
 * every case. The filter (seccomp.c) takes from it which calls to look at
 * and how, the tracer (trace/refusals.c) what to say when one was refused,
 * and tests/unit/test_linux_seccomp.c holds it against the tables of
 * docs/security.md. A call added here is filtered, explained and checked
 * against the documentation at once.
 *
 * Each ABI's numbers come from the kernel's own headers: the native ones
 * from <sys/syscall.h> (syscalls.c), the i386 ones from <asm/unistd_32.h>
 * (syscalls_i386.c), two files because both headers define __NR_*. */
#ifndef MOAT_SANDBOX_SYSCALLS_H
#define MOAT_SANDBOX_SYSCALLS_H

#include <linux/audit.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__x86_64__)
#define NATIVE_ARCH AUDIT_ARCH_X86_64
#define X32_BIT     0x40000000u /* x32 numbers: refused outright */
#define HAS_I386    1           /* i386 calls through int $0x80, checked with i386 numbers */
#elif defined(__aarch64__)
#define NATIVE_ARCH AUDIT_ARCH_AARCH64
#define HAS_I386    0
#else
#error "moat's seccomp filter does not know this architecture yet"
#endif

/* An ABI without the call. */
#define NO_NR UINT32_MAX

/* What the filter does with the call (the blocks of seccomp.c). */
enum refusal_check {
	RC_EPERM,         /* always EPERM */
	RC_ENOSYS,        /* always ENOSYS, as on a kernel without it */
	RC_UNAVAILABLE,   /* ENOSYS even under --trace: the caller falls back, nothing failed */
	RC_IOCTL,         /* the terminal and keymap requests */
	RC_MODE_ARG1,     /* a set-id mode in argument 1 */
	RC_MODE_ARG2,     /* a set-id mode in argument 2 */
	RC_OPEN,          /* O_CREAT or O_TMPFILE in argument 1, set-id mode in 2 */
	RC_OPENAT,        /* the same in arguments 2 and 3 */
	RC_PRLIMIT,       /* a new limit for another process */
	RC_SETPRIO,       /* setpriority on another process */
	RC_IOPRIO,        /* ioprio_set on another process */
	RC_SETPGID,       /* by policy (deny_tty_takeover): into a foreign group */
	RC_SOCKET,        /* by policy: the unix and network refusals */
	RC_SOCKETCALL,    /* by policy: i386's multiplexer, arguments unseen */
	RC_SOCKETPAIR,    /* by policy (deny_unix_sockets): datagram pairs */
	RC_SEND_FLAGS2,   /* by policy (ports): MSG_FASTOPEN in argument 2 */
	RC_SEND_FLAGS3,   /* by policy (ports): MSG_FASTOPEN in argument 3 */
	RC_PATH_TRUNCATE, /* by policy (deny_path_truncate) */
};

/* How --trace explains a refusal of the call. */
enum refusal_explain {
	EX_WHAT, /* the row's text */
	EX_SOCKET,
	EX_SOCKETPAIR,
	EX_SOCKETCALL,
	EX_IOCTL,
	EX_CHMOD,    /* path, mode */
	EX_FCHMOD,   /* fd, mode */
	EX_FCHMODAT, /* dirfd, path, mode */
};

/* X(name, check, explain, what): name is the system call's, as in the
 * kernel's headers and docs/security.md. */
#define REFUSED_CALLS(X)                                                                           \
	X(ioctl, RC_IOCTL, EX_IOCTL, "ioctl")                                                      \
	X(open_by_handle_at, RC_EPERM, EX_WHAT, "open_by_handle_at")                               \
	X(init_module, RC_EPERM, EX_WHAT, "init_module")                                           \
	X(finit_module, RC_EPERM, EX_WHAT, "finit_module")                                         \
	X(delete_module, RC_EPERM, EX_WHAT, "delete_module")                                       \
	X(kexec_load, RC_EPERM, EX_WHAT, "kexec_load")                                             \
	X(kexec_file_load, RC_EPERM, EX_WHAT, "kexec_file_load")                                   \
	X(iopl, RC_EPERM, EX_WHAT, "iopl")                                                         \
	X(ioperm, RC_EPERM, EX_WHAT, "ioperm")                                                     \
	X(bpf, RC_EPERM, EX_WHAT, "bpf")                                                           \
	X(fanotify_init, RC_EPERM, EX_WHAT, "fanotify_init")                                       \
	X(add_key, RC_ENOSYS, EX_WHAT, "add_key")                                                  \
	X(request_key, RC_ENOSYS, EX_WHAT, "request_key")                                          \
	X(keyctl, RC_ENOSYS, EX_WHAT, "keyctl")                                                    \
	X(chmod, RC_MODE_ARG1, EX_CHMOD, "chmod")                                                  \
	X(fchmod, RC_MODE_ARG1, EX_FCHMOD, "fchmod")                                               \
	X(fchmodat, RC_MODE_ARG2, EX_FCHMODAT, "fchmodat")                                         \
	X(fchmodat2, RC_MODE_ARG2, EX_FCHMODAT, "fchmodat2")                                       \
	X(creat, RC_MODE_ARG1, EX_WHAT, "creat with a set-id mode")                                \
	X(mknod, RC_MODE_ARG1, EX_WHAT, "mknod with a set-id mode")                                \
	X(mknodat, RC_MODE_ARG2, EX_WHAT, "mknodat with a set-id mode")                            \
	X(open, RC_OPEN, EX_WHAT, "open with a set-id mode")                                       \
	X(openat, RC_OPENAT, EX_WHAT, "openat with a set-id mode")                                 \
	X(openat2, RC_UNAVAILABLE, EX_WHAT, "openat2")                                             \
	X(io_uring_setup, RC_UNAVAILABLE, EX_WHAT, "io_uring_setup")                               \
	X(io_uring_enter, RC_UNAVAILABLE, EX_WHAT, "io_uring_enter")                               \
	X(io_uring_register, RC_UNAVAILABLE, EX_WHAT, "io_uring_register")                         \
	X(prlimit64, RC_PRLIMIT, EX_WHAT, "prlimit64 on another process")                          \
	X(setpriority, RC_SETPRIO, EX_WHAT, "setpriority on another process")                      \
	X(ioprio_set, RC_IOPRIO, EX_WHAT, "ioprio_set on another process")                         \
	X(setpgid, RC_SETPGID, EX_WHAT, "setpgid into another process group")                      \
	X(truncate, RC_PATH_TRUNCATE, EX_WHAT,                                                     \
	  "truncate by path (Landlock below ABI 3 cannot judge it)")                               \
	X(truncate64, RC_PATH_TRUNCATE, EX_WHAT,                                                   \
	  "truncate64 by path (Landlock below ABI 3 cannot judge it)")                             \
	X(socket, RC_SOCKET, EX_SOCKET, "socket")                                                  \
	X(socketpair, RC_SOCKETPAIR, EX_SOCKETPAIR, "socketpair")                                  \
	X(socketcall, RC_SOCKETCALL, EX_SOCKETCALL, "socketcall")                                  \
	X(sendto, RC_SEND_FLAGS3, EX_WHAT, "sendto with MSG_FASTOPEN (a connect without connect)") \
	X(sendmsg, RC_SEND_FLAGS2, EX_WHAT,                                                        \
	  "sendmsg with MSG_FASTOPEN (a connect without connect)")                                 \
	X(sendmmsg, RC_SEND_FLAGS3, EX_WHAT,                                                       \
	  "sendmmsg with MSG_FASTOPEN (a connect without connect)")

#define REFUSED_COUNT_ONE(name, check, explain, what) +1
enum { REFUSED_CALLS_COUNT = 0 REFUSED_CALLS(REFUSED_COUNT_ONE) };

struct refused_call {
	const char *name;
	uint32_t nr; /* native; NO_NR where this ABI lacks it */
	enum refusal_check check;
	enum refusal_explain explain;
	const char *what;
};

extern const struct refused_call refused_calls[REFUSED_CALLS_COUNT];
/* The same rows' i386 numbers; NO_NR where i386 lacks the call, and
 * everywhere on an architecture without i386 calls. */
extern const uint32_t refused_calls_i386[REFUSED_CALLS_COUNT];

/* Row i's number in the native ABI or in i386's. */
static inline uint32_t refused_call_nr(size_t i, bool i386)
{
	return i386 ? refused_calls_i386[i] : refused_calls[i].nr;
}

/* The row for a call of arch (an AUDIT_ARCH_*) numbered nr, or NULL. */
const struct refused_call *refused_call_find(uint32_t arch, uint32_t nr);

#endif
