/* moat run --trace: run the command under an unconfined tracer that records
 * every file operation the sandbox refused, then say which grants would
 * have allowed them.
 *
 * Two halves. tracer.c (Linux) forks the command, follows its whole process
 * tree with ptrace and keeps a log of refusals: only operations that failed
 * with EACCES, EPERM or EXDEV and that the tracer itself, with the same
 * credentials but no sandbox, would have been allowed to do. report.c (pure)
 * turns that log and the profile into the report and its `moat allow` lines.
 * See docs/trace.md. */
#ifndef MOAT_TRACE_TRACE_H
#define MOAT_TRACE_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "base/strbuf.h"
#include "base/util.h"
#include "profile/profile.h"

/* What the sandbox refused, in the terms a grant is made in. */
enum trace_op {
	TRACE_READ,    /* open a file for reading */
	TRACE_LIST,    /* open a directory for reading */
	TRACE_WRITE,   /* open an existing file for writing, or truncate it */
	TRACE_EXEC,    /* execute a file (other: its #! interpreter, if any) */
	TRACE_CREATE,  /* create a file: open(O_CREAT), mknod, mkfifo */
	TRACE_MKDIR,   /* create a directory */
	TRACE_SYMLINK, /* create a symbolic link */
	TRACE_BIND,    /* create a unix socket */
	TRACE_REMOVE,  /* unlink a file or remove a directory */
	TRACE_RENAME,  /* move path to other */
	TRACE_LINK,    /* hard-link path as other */
	/* Refused by the sandbox's seccomp filter, not by a path rule: */
	TRACE_SOCKET,  /* a new AF_UNIX socket (Landlock ABI < 9); detail: its type */
	TRACE_IOCTL,   /* a terminal ioctl; detail: its name */
	TRACE_SETID,   /* chmod with set-id bits; path: the file when known; detail: the mode */
	TRACE_SYSCALL, /* any other refused system call; detail: its name */
	/* Refused by the network policy; other: the `moat allow --net` item
	 * that allows it ("443", "listen:3000", or "open" for a socket): */
	TRACE_NET_CONNECT, /* a TCP connect; detail: "TCP port N" */
	TRACE_NET_LISTEN,  /* a TCP bind; detail: "TCP port N" */
	TRACE_NET_SOCKET,  /* a socket of a family or type the policy refuses */
};

/* Does op name a refusal by a path rule, one a grant could change? */
static inline bool trace_op_is_path(enum trace_op op)
{
	return op <= TRACE_LINK;
}

struct trace_denial {
	pid_t pid;  /* the process (thread group) that was refused */
	char *name; /* its name: argv[0]'s basename at its last exec */
	/* The wrapped tool it runs under: the name the outermost moat-wrapper
	 * above it (or it itself) was started by, e.g. "npm" for the node
	 * running npm's script; NULL when no wrapper started it. */
	char *tool;
	enum trace_op op;
	char *path;   /* absolute and canonical; as given when it could not be resolved;
	                 NULL for a refusal that names no file */
	char *other;  /* RENAME, LINK: the destination; EXEC: the interpreter; or NULL */
	char *detail; /* seccomp refusals: what was refused ("AF_UNIX stream", "TIOCSTI") */
	int err;      /* what the process saw: EACCES, EPERM, EXDEV; ENOSYS for some seccomp ones */
	const char *why; /* seccomp refusals: why nothing allows it, from the filter's own table
	                    (sandbox/syscalls.h; a static string), or NULL */
};

struct trace_log {
	struct trace_denial *v;
	size_t n;
};

/* Append a copy of d (its strings copied) to the log. */
void trace_log_add(struct trace_log *log, const struct trace_denial *d);
void trace_log_free(struct trace_log *log);

/* Runs in the child once the tracer is attached: confine and exec the
 * command. Returns an exit status only when that failed. */
typedef int trace_child_fn(void *arg);

struct trace_opts {
	trace_child_fn *child;
	void *arg;
	/* The command's name, for what the child does before it execs. */
	const char *name;
	/* Called once, from the tracer's loop, when the command has exited but
	 * processes it started are still running and being waited for. */
	void (*lingering)(void *arg);
};

/* Fork, trace the child and everything it starts until all of it has
 * exited, and fill log. *status is the command's wait status. SIGINT,
 * SIGTERM, SIGHUP and SIGQUIT sent to moat reach the command; after the
 * command has exited they stop the processes it left behind instead.
 * Returns 0, or -1 + err (status 125) when the command could not be traced. */
int trace_run(const struct trace_opts *o, struct trace_log *log, int *status, struct error *err);

/* What the report needs beyond the log and the profile. */
struct trace_facts {
	const char *home;   /* the canonical real HOME */
	const char *config; /* config.zon's path, for the settings a refusal needs */
	int abi;            /* the kernel's Landlock ABI */
	int status;         /* the command's exit status, for the JSON document */
	/* moat's own places (context/own.h), canonical, and what each is: no
	 * write grant that holds or lies inside one is ever suggested. */
	const char *const *own;
	const char *const *own_what;
	size_t nown;
	/* The caller's PATH (or NULL): no write grant on a directory of it,
	 * nor on a system directory, is ever suggested (context/programs.h). */
	const char *path_env;
	/* Refusals of a hosts policy's proxy past what its record holds. */
	size_t proxy_unrecorded;
};

/* Render the report for stderr: the refused paths, grouped, the refusals
 * that name no path, then the grants and settings that would allow them,
 * each pasteable as printed (a `moat allow` line moat accepts, in the ~/
 * form, collapsed to the directory a tool owns when several fall under
 * it), or why none exists. Every name is shown through visible_add(). */
void trace_report(const struct trace_log *log, const struct profile *p, const struct trace_facts *f,
                  struct strbuf *out);
/* The same as one JSON document (docs/json.md), on one line. */
void trace_report_json(const struct trace_log *log, const struct profile *p,
                       const struct trace_facts *f, struct strbuf *out);

const char *trace_op_name(enum trace_op op);

#endif
