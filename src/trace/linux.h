/* Shared by the Linux half of --trace: the syscalls it watches (filter.c),
 * how a failed one is judged (judge.c), and the ptrace loop (tracer.c). */
#ifndef MOAT_TRACE_LINUX_H
#define MOAT_TRACE_LINUX_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/util.h"
#include "trace/trace.h"

/* How a watched syscall names its paths. */
enum sc_kind {
	SC_OPEN,     /* dirfd, path, flags */
	SC_OPENAT2,  /* dirfd, path, struct open_how * (flags first) */
	SC_CREAT,    /* path */
	SC_TRUNCATE, /* path */
	SC_EXEC,     /* [dirfd,] path [, flags] */
	SC_MKDIR,    /* [dirfd,] path */
	SC_MKNOD,    /* [dirfd,] path, mode */
	SC_SYMLINK,  /* target, [dirfd,] linkpath */
	SC_UNLINK,   /* [dirfd,] path [, flags]: AT_REMOVEDIR makes it rmdir */
	SC_RMDIR,    /* path */
	SC_RENAME,   /* [olddirfd,] old, [newdirfd,] new [, flags] */
	SC_LINK,     /* [olddirfd,] old, [newdirfd,] new [, flags] */
	SC_BIND,     /* fd, struct sockaddr *, addrlen */
};

/* Argument positions; NONE for a dirfd means AT_FDCWD. */
#define NONE (-1)
struct sc_desc {
	long nr;
	enum sc_kind kind;
	signed char dirfd, path, dirfd2, path2, flags;
};

/* Every syscall through which Landlock can refuse a file operation, for the
 * native architecture. */
extern const struct sc_desc trace_syscalls[];
extern const size_t trace_nsyscalls;
const struct sc_desc *trace_syscall(long nr);

/* Install, in the calling process, the seccomp filter that stops it at each
 * of trace_syscalls (and passes every other syscall untouched). Needs
 * no_new_privs and a tracer already attached with PTRACE_O_TRACESECCOMP:
 * without one those syscalls would fail with ENOSYS. */
int trace_filter_install(struct error *err);

/* A watched syscall of thread tid (in process pid, named name) failed with
 * err: when the same operation would have succeeded without the sandbox,
 * add it to log. The thread must be stopped. */
void trace_judge(pid_t tid, pid_t pid, const char *name, const struct sc_desc *d,
                 const uint64_t args[6], int err, struct trace_log *log);

#endif
