/* What the sandbox's seccomp filter refused (src/sandbox/seccomp.c), in
 * the report's terms. Under --trace the filter raises SIGSYS instead of
 * failing the call (seccomp_report_to_tracer); the tracer hands the
 * system call's number and arguments here, and the report says what
 * would allow it (a .sockets entry for unix sockets) or why nothing does.
 *
 * The calls and their numbers are the filter's own table
 * (sandbox/syscalls.h). A call that table does not know is still
 * reported, by number. */
#ifdef __linux__
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "sandbox/syscalls.h"
#include "trace/linux.h"

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
static char *chmod_target(pid_t tid, pid_t pid, enum refusal_explain how, const uint64_t args[6])
{
	char path[4096];
	if (how == EX_FCHMOD) {
		snprintf(path, sizeof(path), "/dev/fd/%d", (int)(uint32_t)args[0]);
		return trace_resolve(tid, pid, AT_FDCWD, path, true);
	}
	int at = how == EX_FCHMODAT;
	if (!trace_read_string(tid, args[at], path, sizeof(path)))
		return NULL;
	return trace_resolve(tid, pid, at ? (int)(uint32_t)args[0] : AT_FDCWD, path, true);
}

void trace_judge_seccomp(pid_t tid, pid_t pid, const char *name, const char *tool, uint32_t arch,
                         int nr, const uint64_t args[6], int err, struct trace_log *log)
{
	const struct refused_call *k = NULL;
	char detail[PATH_MAX + 64];
	struct trace_denial d = {.pid = pid,
	                         .name = (char *)name,
	                         .tool = (char *)tool,
	                         .op = TRACE_SYSCALL,
	                         .detail = detail,
	                         .err = err};
	snprintf(detail, sizeof(detail), "unknown system call %d", nr);
#ifdef X32_BIT
	if (arch == NATIVE_ARCH && (nr & X32_BIT)) {
		snprintf(detail, sizeof(detail), "x32 system call %d", nr & ~(int)X32_BIT);
		trace_record(log, &d);
		return;
	}
#endif
	k = refused_call_find(arch, (uint32_t)nr);
	cleanup_free char *path = NULL;
	switch (k ? k->explain : EX_WHAT) {
	case EX_SOCKET:
		if ((int)(uint32_t)args[0] != AF_UNIX) {
			d.op = TRACE_NET_SOCKET;
			snprintf(detail, sizeof(detail), "%s %s socket", family_name(args[0]),
			         socket_type(args[1]));
			break;
		}
		/* fall through */
	case EX_SOCKETPAIR:
		d.op = TRACE_SOCKET;
		snprintf(detail, sizeof(detail), "%s %s%s",
		         (int)(uint32_t)args[0] == AF_UNIX ? "AF_UNIX" : "socket family",
		         socket_type(args[1]),
		         k->explain == EX_SOCKETPAIR ? " socketpair" : " socket");
		break;
	case EX_SOCKETCALL:
		d.op = TRACE_SOCKET;
		snprintf(detail, sizeof(detail), "i386 socketcall %s",
		         (uint32_t)args[0] == 8 ? "socketpair" : "socket");
		break;
	case EX_IOCTL: {
		const char *req = ioctl_name((uint32_t)args[1]);
		d.op = TRACE_IOCTL;
		if (req)
			snprintf(detail, sizeof(detail), "%s", req);
		else
			snprintf(detail, sizeof(detail), "request 0x%x",
			         (unsigned)(uint32_t)args[1]);
		break;
	}
	case EX_CHMOD:
	case EX_FCHMOD:
	case EX_FCHMODAT:
		d.op = TRACE_SETID;
		path = chmod_target(tid, pid, k->explain, args);
		d.path = path;
		snprintf(detail, sizeof(detail), "mode %04o%s%s",
		         (unsigned)(args[k->explain == EX_FCHMODAT ? 2 : 1] & 07777),
		         path ? " " : "", path ? path : "");
		break;
	case EX_WHAT:
		if (k) {
			snprintf(detail, sizeof(detail), "%s", k->what);
			d.why = k->why;
		}
		break;
	}
	trace_record(log, &d);
}
#endif
