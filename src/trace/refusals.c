/* What the sandbox's seccomp filter refused (src/sandbox/seccomp.c), in
 * the report's terms. Under --trace the filter raises SIGSYS instead of
 * failing the call (seccomp_report_to_tracer); the tracer hands the
 * system call's number and arguments here, and the report says what
 * would allow it (a .sockets entry for unix sockets) or why nothing does.
 *
 * The numbers are those the filter refuses: the native ABI's through
 * <sys/syscall.h>, and on x86_64 the i386 ones, which the filter checks
 * with their own numbers. A call this table does not know is still
 * reported, by number. */
#ifdef __linux__
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/audit.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#include "trace/linux.h"

enum call {
	C_OTHER,
	C_SOCKET,
	C_SOCKETPAIR,
	C_SOCKETCALL,
	C_IOCTL,
	C_CHMOD,    /* path, mode */
	C_FCHMOD,   /* fd, mode */
	C_FCHMODAT, /* dirfd, path, mode */
};

struct known {
	int nr;
	enum call call;
	const char *name;
};

#define SYS_FCHMODAT2_NR 452 /* newer than Debian 12's headers, the same everywhere */

static const struct known native[] = {
    {SYS_socket, C_SOCKET, "socket"},
    {SYS_socketpair, C_SOCKETPAIR, "socketpair"},
    {SYS_ioctl, C_IOCTL, "ioctl"},
#ifdef SYS_chmod
    {SYS_chmod, C_CHMOD, "chmod"},
#endif
    {SYS_fchmod, C_FCHMOD, "fchmod"},
    {SYS_fchmodat, C_FCHMODAT, "fchmodat"},
    {SYS_FCHMODAT2_NR, C_FCHMODAT, "fchmodat2"},
#ifdef SYS_open /* not on aarch64, which has only the *at calls */
    {SYS_open, C_OTHER, "open with a set-id mode"},
    {SYS_creat, C_OTHER, "creat with a set-id mode"},
    {SYS_mknod, C_OTHER, "mknod with a set-id mode"},
#endif
    {SYS_openat, C_OTHER, "openat with a set-id mode"},
    {SYS_mknodat, C_OTHER, "mknodat with a set-id mode"},
    {SYS_prlimit64, C_OTHER, "prlimit64 on another process"},
    {SYS_setpriority, C_OTHER, "setpriority on another process"},
    {SYS_ioprio_set, C_OTHER, "ioprio_set on another process"},
    {SYS_setpgid, C_OTHER, "setpgid into another process group"},
    {SYS_truncate, C_OTHER, "truncate by path (Landlock below ABI 3 cannot judge it)"},
    {SYS_add_key, C_OTHER, "add_key"},
    {SYS_request_key, C_OTHER, "request_key"},
    {SYS_keyctl, C_OTHER, "keyctl"},
    {SYS_open_by_handle_at, C_OTHER, "open_by_handle_at"},
    {SYS_init_module, C_OTHER, "init_module"},
    {SYS_finit_module, C_OTHER, "finit_module"},
    {SYS_delete_module, C_OTHER, "delete_module"},
    {SYS_kexec_load, C_OTHER, "kexec_load"},
#ifdef SYS_kexec_file_load
    {SYS_kexec_file_load, C_OTHER, "kexec_file_load"},
#endif
#ifdef SYS_iopl
    {SYS_iopl, C_OTHER, "iopl"},
    {SYS_ioperm, C_OTHER, "ioperm"},
#endif
    {SYS_bpf, C_OTHER, "bpf"},
    {SYS_fanotify_init, C_OTHER, "fanotify_init"},
};

#if defined(__x86_64__)
#define NATIVE_ARCH AUDIT_ARCH_X86_64
#define X32_BIT     0x40000000
/* arch/x86/entry/syscalls/syscall_32.tbl */
static const struct known i386[] = {
    {102, C_SOCKETCALL, "socketcall"},
    {359, C_SOCKET, "socket"},
    {360, C_SOCKETPAIR, "socketpair"},
    {54, C_IOCTL, "ioctl"},
    {15, C_CHMOD, "chmod"},
    {94, C_FCHMOD, "fchmod"},
    {306, C_FCHMODAT, "fchmodat"},
    {SYS_FCHMODAT2_NR, C_FCHMODAT, "fchmodat2"},
    {5, C_OTHER, "open with a set-id mode"},
    {295, C_OTHER, "openat with a set-id mode"},
    {8, C_OTHER, "creat with a set-id mode"},
    {14, C_OTHER, "mknod with a set-id mode"},
    {297, C_OTHER, "mknodat with a set-id mode"},
    {340, C_OTHER, "prlimit64 on another process"},
    {97, C_OTHER, "setpriority on another process"},
    {289, C_OTHER, "ioprio_set on another process"},
    {57, C_OTHER, "setpgid into another process group"},
    {92, C_OTHER, "truncate by path (Landlock below ABI 3 cannot judge it)"},
    {193, C_OTHER, "truncate64 by path (Landlock below ABI 3 cannot judge it)"},
    {286, C_OTHER, "add_key"},
    {287, C_OTHER, "request_key"},
    {288, C_OTHER, "keyctl"},
    {342, C_OTHER, "open_by_handle_at"},
    {128, C_OTHER, "init_module"},
    {350, C_OTHER, "finit_module"},
    {129, C_OTHER, "delete_module"},
    {283, C_OTHER, "kexec_load"},
    {110, C_OTHER, "iopl"},
    {101, C_OTHER, "ioperm"},
    {357, C_OTHER, "bpf"},
    {338, C_OTHER, "fanotify_init"},
};
#elif defined(__aarch64__)
#define NATIVE_ARCH AUDIT_ARCH_AARCH64
#endif

static const struct known *lookup(const struct known *t, size_t n, int nr)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].nr == nr)
			return &t[i];
	return NULL;
}

static const char *ioctl_name(uint32_t request)
{
	static const struct {
		uint32_t request;
		const char *name;
	} names[] = {
	    {0x5412, "TIOCSTI"},    {0x541C, "TIOCLINUX"},    {0x5410, "TIOCSPGRP"},
	    {0x540E, "TIOCSCTTY"},  {0x4B47, "KDSKBENT"},     {0x4B49, "KDSKBSENT"},
	    {0x4B4B, "KDSKBDIACR"}, {0x4BFB, "KDSKBDIACRUC"}, {0x4B4D, "KDSETKEYCODE"},
	};
	for (size_t i = 0; i < ARRAY_LEN(names); i++)
		if (names[i].request == request)
			return names[i].name;
	return NULL;
}

static const char *socket_type(uint64_t type)
{
	switch (type & 0xf) {
	case SOCK_STREAM: return "stream";
	case SOCK_DGRAM: return "datagram";
	case SOCK_SEQPACKET: return "seqpacket";
	case SOCK_RAW: return "raw";
	default: return "other";
	}
}

static const char *family_name(uint64_t family)
{
	switch ((int)(uint32_t)family) {
	case AF_INET: return "AF_INET";
	case AF_INET6: return "AF_INET6";
	case AF_NETLINK: return "AF_NETLINK";
	case AF_PACKET: return "AF_PACKET";
	default: return "network";
	}
}

/* The file a set-id chmod named, canonical, or NULL. */
static char *chmod_target(pid_t tid, pid_t pid, enum call call, const uint64_t args[6])
{
	char path[4096];
	if (call == C_FCHMOD) {
		snprintf(path, sizeof(path), "/dev/fd/%d", (int)(uint32_t)args[0]);
		return trace_resolve(tid, pid, AT_FDCWD, path, true);
	}
	int at = call == C_FCHMODAT;
	if (!trace_read_string(tid, args[at], path, sizeof(path)))
		return NULL;
	return trace_resolve(tid, pid, at ? (int)(uint32_t)args[0] : AT_FDCWD, path, true);
}

void trace_judge_seccomp(pid_t tid, pid_t pid, const char *name, const char *tool, uint32_t arch,
                         int nr, const uint64_t args[6], int err, struct trace_log *log)
{
	const struct known *k = NULL;
	char detail[PATH_MAX + 64];
	struct trace_denial d = {.pid = pid,
	                         .name = (char *)name,
	                         .tool = (char *)tool,
	                         .op = TRACE_SYSCALL,
	                         .detail = detail,
	                         .err = err};
	snprintf(detail, sizeof(detail), "unknown system call %d", nr);
	if (arch == NATIVE_ARCH) {
#ifdef X32_BIT
		if (nr & X32_BIT) {
			snprintf(detail, sizeof(detail), "x32 system call %d", nr & ~X32_BIT);
			trace_record(log, &d);
			return;
		}
#endif
		k = lookup(native, ARRAY_LEN(native), nr);
#ifdef X32_BIT
	} else if (arch == AUDIT_ARCH_I386) {
		k = lookup(i386, ARRAY_LEN(i386), nr);
#endif
	}
	cleanup_free char *path = NULL;
	switch (k ? k->call : C_OTHER) {
	case C_SOCKET:
		if ((int)(uint32_t)args[0] != AF_UNIX) {
			d.op = TRACE_NET_SOCKET;
			snprintf(detail, sizeof(detail), "%s %s socket", family_name(args[0]),
			         socket_type(args[1]));
			break;
		}
		/* fall through */
	case C_SOCKETPAIR:
		d.op = TRACE_SOCKET;
		snprintf(detail, sizeof(detail), "%s %s%s",
		         (int)(uint32_t)args[0] == AF_UNIX ? "AF_UNIX" : "socket family",
		         socket_type(args[1]), k->call == C_SOCKETPAIR ? " socketpair" : " socket");
		break;
	case C_SOCKETCALL:
		d.op = TRACE_SOCKET;
		snprintf(detail, sizeof(detail), "i386 socketcall %s",
		         (uint32_t)args[0] == 8 ? "socketpair" : "socket");
		break;
	case C_IOCTL: {
		const char *req = ioctl_name((uint32_t)args[1]);
		d.op = TRACE_IOCTL;
		if (req)
			snprintf(detail, sizeof(detail), "%s", req);
		else
			snprintf(detail, sizeof(detail), "request 0x%x",
			         (unsigned)(uint32_t)args[1]);
		break;
	}
	case C_CHMOD:
	case C_FCHMOD:
	case C_FCHMODAT:
		d.op = TRACE_SETID;
		path = chmod_target(tid, pid, k->call, args);
		d.path = path;
		snprintf(detail, sizeof(detail), "mode %04o%s%s",
		         (unsigned)(args[k->call == C_FCHMODAT ? 2 : 1] & 07777), path ? " " : "",
		         path ? path : "");
		break;
	case C_OTHER:
		if (k)
			snprintf(detail, sizeof(detail), "%s", k->name);
		break;
	}
	trace_record(log, &d);
}
#endif
