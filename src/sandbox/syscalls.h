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

/* Why no setting allows a refused call, as --trace says it; NULL where
 * --trace explains by the call's arguments (trace/report.c). */
#define WHY_KERNEL   "kernel powers (modules, kexec, raw I/O ports, BPF) are refused in every sandbox"
#define WHY_HANDLE   "opening a file by handle would bypass every path rule"
#define WHY_FANOTIFY "watching files by inode would see past every path rule; inotify works"
#define WHY_KEYS                                                                                   \
	"the kernel keyrings are shared with your processes and have no path, so the sandbox "     \
	"answers as a kernel without them"
#define WHY_SETID                                                                                  \
	"set-user-ID and set-group-ID bits cannot be set inside moat (Landlock does not judge "    \
	"chmod, so root could make any binary on the host setuid)"
#define WHY_ABSENT "the sandbox answers as a kernel without it; callers use the plain calls"
#define WHY_OTHERS "calls on another process, which Landlock does not judge, are refused"
#define WHY_PGRP                                                                                   \
	"moat run and wrapped tools keep a process from joining another process group of the "     \
	"terminal; an interactive shell belongs in moat shell"
#define WHY_TRUNCATE                                                                               \
	"Landlock below ABI 3 cannot judge truncate() by path, so it is refused everywhere; "      \
	"ftruncate() and open(O_TRUNC) work"
#define WHY_FASTOPEN "a TCP Fast Open send connects without connect(), where the ports are judged"

/* X(name, check, explain, what, why): name is the system call's, as in the
 * kernel's headers and docs/security.md. */
#define REFUSED_CALLS(X)                                                                           \
	X(ioctl, RC_IOCTL, EX_IOCTL, "ioctl", NULL)                                                \
	X(open_by_handle_at, RC_EPERM, EX_WHAT, "open_by_handle_at", WHY_HANDLE)                   \
	X(init_module, RC_EPERM, EX_WHAT, "init_module", WHY_KERNEL)                               \
	X(finit_module, RC_EPERM, EX_WHAT, "finit_module", WHY_KERNEL)                             \
	X(delete_module, RC_EPERM, EX_WHAT, "delete_module", WHY_KERNEL)                           \
	X(kexec_load, RC_EPERM, EX_WHAT, "kexec_load", WHY_KERNEL)                                 \
	X(kexec_file_load, RC_EPERM, EX_WHAT, "kexec_file_load", WHY_KERNEL)                       \
	X(iopl, RC_EPERM, EX_WHAT, "iopl", WHY_KERNEL)                                             \
	X(ioperm, RC_EPERM, EX_WHAT, "ioperm", WHY_KERNEL)                                         \
	X(bpf, RC_EPERM, EX_WHAT, "bpf", WHY_KERNEL)                                               \
	X(fanotify_init, RC_EPERM, EX_WHAT, "fanotify_init", WHY_FANOTIFY)                         \
	X(add_key, RC_ENOSYS, EX_WHAT, "add_key", WHY_KEYS)                                        \
	X(request_key, RC_ENOSYS, EX_WHAT, "request_key", WHY_KEYS)                                \
	X(keyctl, RC_ENOSYS, EX_WHAT, "keyctl", WHY_KEYS)                                          \
	X(chmod, RC_MODE_ARG1, EX_CHMOD, "chmod", NULL)                                            \
	X(fchmod, RC_MODE_ARG1, EX_FCHMOD, "fchmod", NULL)                                         \
	X(fchmodat, RC_MODE_ARG2, EX_FCHMODAT, "fchmodat", NULL)                                   \
	X(fchmodat2, RC_MODE_ARG2, EX_FCHMODAT, "fchmodat2", NULL)                                 \
	X(creat, RC_MODE_ARG1, EX_WHAT, "creat with a set-id mode", WHY_SETID)                     \
	X(mknod, RC_MODE_ARG1, EX_WHAT, "mknod with a set-id mode", WHY_SETID)                     \
	X(mknodat, RC_MODE_ARG2, EX_WHAT, "mknodat with a set-id mode", WHY_SETID)                 \
	X(open, RC_OPEN, EX_WHAT, "open with a set-id mode", WHY_SETID)                            \
	X(openat, RC_OPENAT, EX_WHAT, "openat with a set-id mode", WHY_SETID)                      \
	X(openat2, RC_UNAVAILABLE, EX_WHAT, "openat2", WHY_ABSENT)                                 \
	X(io_uring_setup, RC_UNAVAILABLE, EX_WHAT, "io_uring_setup", WHY_ABSENT)                   \
	X(io_uring_enter, RC_UNAVAILABLE, EX_WHAT, "io_uring_enter", WHY_ABSENT)                   \
	X(io_uring_register, RC_UNAVAILABLE, EX_WHAT, "io_uring_register", WHY_ABSENT)             \
	X(prlimit64, RC_PRLIMIT, EX_WHAT, "prlimit64 on another process", WHY_OTHERS)              \
	X(setpriority, RC_SETPRIO, EX_WHAT, "setpriority on another process", WHY_OTHERS)          \
	X(ioprio_set, RC_IOPRIO, EX_WHAT, "ioprio_set on another process", WHY_OTHERS)             \
	X(setpgid, RC_SETPGID, EX_WHAT, "setpgid into another process group", WHY_PGRP)            \
	X(truncate, RC_PATH_TRUNCATE, EX_WHAT,                                                     \
	  "truncate by path (Landlock below ABI 3 cannot judge it)", WHY_TRUNCATE)                 \
	X(truncate64, RC_PATH_TRUNCATE, EX_WHAT,                                                   \
	  "truncate64 by path (Landlock below ABI 3 cannot judge it)", WHY_TRUNCATE)               \
	X(socket, RC_SOCKET, EX_SOCKET, "socket", NULL)                                            \
	X(socketpair, RC_SOCKETPAIR, EX_SOCKETPAIR, "socketpair", NULL)                            \
	X(socketcall, RC_SOCKETCALL, EX_SOCKETCALL, "socketcall", NULL)                            \
	X(sendto, RC_SEND_FLAGS3, EX_WHAT, "sendto with MSG_FASTOPEN (a connect without connect)", \
	  WHY_FASTOPEN)                                                                            \
	X(sendmsg, RC_SEND_FLAGS2, EX_WHAT,                                                        \
	  "sendmsg with MSG_FASTOPEN (a connect without connect)", WHY_FASTOPEN)                   \
	X(sendmmsg, RC_SEND_FLAGS3, EX_WHAT,                                                       \
	  "sendmmsg with MSG_FASTOPEN (a connect without connect)", WHY_FASTOPEN)

#define REFUSED_COUNT_ONE(name, check, explain, what, why) +1
enum { REFUSED_CALLS_COUNT = 0 REFUSED_CALLS(REFUSED_COUNT_ONE) };

struct refused_call {
	const char *name;
	uint32_t nr; /* native; NO_NR where this ABI lacks it */
	enum refusal_check check;
	enum refusal_explain explain;
	const char *what;
	const char *why; /* why nothing allows it; NULL: explained by its arguments */
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
