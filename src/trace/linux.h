/* Shared by the Linux half of --trace: the syscalls it watches (filter.c),
 * how a failed one is judged (judge.c), and the ptrace loop (tracer.c). */
#ifndef MOAT_TRACE_LINUX_H
#define MOAT_TRACE_LINUX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/util.h"
#include "trace/trace.h"

/* chattr +i or +a: EPERM for everyone, root included; access() checks
 * immutable files for writing but knows nothing of append-only ones or of
 * the entries of such directories (statx.c). */
bool file_frozen(const char *path);      /* immutable or append-only */
bool file_append_only(const char *path); /* append-only */
/* The mount a path is on (its device where the kernel has no mount ids):
 * a rename or link across two fails with EXDEV. */
uint64_t file_mount_id(const char *path);

/* Add a refusal to the log, its pid as the refused process sees itself:
 * a session has a PID namespace of its own, and the tool's own messages
 * name the pids it knows. */
void trace_record(struct trace_log *log, struct trace_denial *d);

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
	SC_CONNECT,  /* fd, struct sockaddr *, addrlen: only TCP ports are judged */
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
void trace_judge(pid_t tid, pid_t pid, const char *name, const char *tool, const struct sc_desc *d,
                 const uint64_t args[6], int err, struct trace_log *log);

/* The sandbox's seccomp filter refused system call nr (of audit arch
 * arch, with args) with err, and raised SIGSYS for the tracer
 * (seccomp_report_to_tracer): add what was refused to log. */
void trace_judge_seccomp(pid_t tid, pid_t pid, const char *name, const char *tool, uint32_t arch,
                         int nr, const uint64_t args[6], int err, struct trace_log *log);

/* A NUL-terminated string of at most size - 1 bytes from the tracee. */
bool trace_read_string(pid_t tid, uint64_t addr, char *buf, size_t size);
/* The canonical path a process meant with (dirfd, path), /proc/self and
 * /dev/fd meaning the process; relative as given when its directory cannot
 * be known. Follows the last component when follow is set. */
char *trace_resolve(pid_t tid, pid_t pid, int dirfd, const char *path, bool follow);

/* Open path for reading only if it is a regular file, judged on the open
 * file itself: an O_PATH descriptor (which opens nothing: no device's open
 * runs, no FIFO blocks) refusing every symlink, checked with fstat, then
 * reopened through /proc/self/fd. A path swapped between a check and the
 * open can never make the unconfined tracer open something else. Returns
 * an fd (O_CLOEXEC, O_NONBLOCK) or -1. */
int trace_open_regular(const char *path);

#endif
