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
};

struct trace_denial {
	pid_t pid;  /* the process (thread group) that was refused */
	char *name; /* its name: argv[0]'s basename at its last exec */
	enum trace_op op;
	char *path;  /* absolute and canonical; as given when it could not be resolved */
	char *other; /* RENAME, LINK: the destination; EXEC: the interpreter; or NULL */
	int err;     /* what the process saw: EACCES, EPERM or EXDEV */
};

struct trace_log {
	struct trace_denial *v;
	size_t n;
};

/* Append a denial; the log copies the strings. */
void trace_log_add(struct trace_log *log, pid_t pid, const char *name, enum trace_op op,
                   const char *path, const char *other, int err);
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

/* Render the report for stderr: the refused paths, grouped, then the grants
 * that would allow them, each one `moat allow` accepts, or why none exists.
 * home is the canonical real HOME. */
void trace_report(const struct trace_log *log, const struct profile *p, const char *home,
                  struct strbuf *out);

const char *trace_op_name(enum trace_op op);

#endif
