/* Small utilities shared by every module: allocation that cannot fail
 * silently, cleanup attributes, and the error type modules fill in. */
#ifndef MOAT_BASE_UTIL_H
#define MOAT_BASE_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <unistd.h>

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Allocation failure is not something moat can recover from in a useful way,
 * so these abort with a message instead of returning NULL (as git's x*()). */
void *xmalloc(size_t n);
void *xcalloc(size_t count, size_t size);
void *xrealloc_array(void *p, size_t count, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static inline void free_ptr(void *p)
{
	free(*(void **)p);
}
static inline void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
}
#define cleanup_free  __attribute__((cleanup(free_ptr)))
#define cleanup_close __attribute__((cleanup(close_fd)))

/* Hand ownership out of a cleanup-managed variable. */
static inline void *steal_ptr(void *pp)
{
	void **p = pp;
	void *v = *p;
	*p = NULL;
	return v;
}

/* A module's failure: a message in git's style (lowercase, no full stop)
 * and an optional hint saying how out. Only cli/ and wrapper/ print it. */
struct error {
	/* Room for two paths of PATH_MAX, so a long path never cuts off the
	 * reason that follows it. */
	char msg[8704];
	char hint[8704];
	int status; /* suggested exit status, 0 when the caller decides */
};

/* Set the message, clearing the hint and the status; returns -1. */
int error_set(struct error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void error_hint(struct error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void error_clear(struct error *err);

/* Print "<prog>: msg" and any "hint: ..." lines to stderr, control
 * characters shown as \xNN (see warning_print). */
void error_print(const char *prog, const struct error *err);

/* Print each line of text as "prog: warning: LINE". Like error_print, it
 * shows control characters as \xNN: messages quote paths and lines that
 * sandboxed code may have chosen, and a raw escape sequence would be the
 * terminal's to act on. */
void warning_print(const char *prog, const char *text);

/* snprintf that reports truncation as failure instead of hiding it. */
bool fmt_fits(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
