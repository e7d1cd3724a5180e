/* What the --trace report is built into (report.c) and rendered from,
 * as text or JSON (report_render.c). */
#ifndef MOAT_TRACE_REPORT_H
#define MOAT_TRACE_REPORT_H

#include "trace/trace.h"

/* At most this many grants a refusal needs (a rename: its source and
 * destination). */
#define MAX_NEEDS 2

/* One line of the report: every denial of the same path (or, for the
 * seccomp filter's refusals, of the same operation and detail). */
struct group {
	enum trace_op op;           /* seccomp groups: their operation */
	const char *key;            /* the path, or the detail; borrowed from the log */
	const char *rel, *rel_path; /* "to" the destination, "interpreter of" a script */
	unsigned ops;               /* 1 << enum trace_op */
	pid_t pid;                  /* the first process refused */
	const char *name, *tool;
	pid_t *pids; /* distinct processes */
	size_t npids;
	size_t count;
};

enum sugg_kind {
	SUGG_GRANT,   /* moat allow BIN PATH */
	SUGG_NONE,    /* no grant or setting allows it: why */
	SUGG_SETTING, /* a line for config.zon */
	SUGG_NET,     /* moat allow --net BIN ITEM */
};

#define NOT_MERGED ((size_t)-1)

struct suggestion {
	enum sugg_kind kind;
	const char *bin;
	char *path; /* GRANT: the path; SETTING: the value; NET: the policy item */
	unsigned access;
	char *why;
	const char *refused; /* NONE: what was refused, to show */
	enum trace_op op;    /* NONE: the operation refused */
	size_t merged_into;  /* collapsed into that suggestion, or NOT_MERGED */
};

struct report {
	struct group *groups; /* path refusals */
	size_t ngroups;
	struct group *others; /* refusals by the seccomp filter */
	size_t nothers;
	struct group *proxied; /* hosts refused by a hosts policy's proxy */
	size_t nproxied;
	struct suggestion *sugg;
	size_t nsugg;
	size_t (*of)[MAX_NEEDS]; /* per log entry: its suggestions */
	size_t *nof;
	bool home_cache; /* a write under $HOME: MOAT_ENV_HOME is worth a hint */
};

/* The report for a log: groups and suggestions, collapsed per owner
 * directory, moat's own places refused. report_free releases it. */
void report_build(struct report *r, const struct trace_log *log, const struct profile *p,
                  const struct trace_facts *f);
void report_free(struct report *r);

#endif
