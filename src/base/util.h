/* Small utilities shared by every module: allocation that cannot fail
 * silently, cleanup attributes, and the error type modules fill in. */
#ifndef MOAT_BASE_UTIL_H
#define MOAT_BASE_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

/* Built with AddressSanitizer (gcc's -fsanitize=address, or clang's)? */
#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Allocation failure is not something moat can recover from in a useful way,
 * so these abort with a message instead of returning NULL (as git's x*()). */
void *xmalloc(size_t n);
void *xcalloc(size_t count, size_t size);
void *xrealloc_array(void *p, size_t count, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xvasprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

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

/* Exit statuses, as env(1), timeout(1) and docker use them: 0 ok, 1 failure,
 * 2 usage; moat's own failure before the tool ran 125, a tool that cannot
 * run 126, one that is not found 127. A tool's own status passes through. */
enum exit_status {
	EXIT_USAGE = 2,
	EXIT_MOAT_FAILED = 125,
	EXIT_CANNOT_RUN = 126,
	EXIT_NOT_FOUND = 127,
};

/* A module's failure: a message in git's style (lowercase, no full stop)
 * and an optional hint saying how out. Only cli/ and wrapper/ print it. */
struct error {
	/* Small on purpose: errors live on the stack of the functions every
	 * wrapped tool's start goes through, where each page of stack first
	 * touched is a page fault (12 us on a virtual machine). Twice 8.7 KB
	 * cost `moat run` 16 faults. A longer text keeps its head and its tail
	 * (error_set), so a long path does not cut off the reason after it. */
	char msg[2048];
	char hint[2048];
	int status; /* suggested exit status, 0 when the caller decides */
};

/* Set the message, clearing the hint and the status; returns -1. */
int error_set(struct error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* error_set for a failed system call: the message, then ": " and errno's
 * text ("cannot open 'x': No such file or directory"), errno left as it
 * was. No allocation, as error_set: it runs where malloc must not. */
int error_errno(struct error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void error_hint(struct error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "PREFIX: " before err's message, its hint and status kept: a failure
 * told where it happened. A long result keeps its head and tail. */
void error_wrap(struct error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void error_clear(struct error *err);

/* Names moat did not choose (paths, process names, config values) are shown
 * through this one function before they reach a terminal. Every byte of
 * what a terminal could act on or that could forge or reorder a line is
 * shown as \xNN: C0 controls, DEL, the backslash itself (so \xNN is never
 * ambiguous), C1 controls (U+0080-U+009F, e.g. CSI as \xc2\x9b, and raw
 * 0x80-0x9f bytes), the Unicode bidirectional controls (U+061C, U+200E,
 * U+200F, U+202A-U+202E, U+2066-U+2069), the line and paragraph separators
 * (U+2028, U+2029), and every byte that is not part of well-formed UTF-8.
 * Other UTF-8 passes as is when utf8 is true; when it is false (the locale
 * is not UTF-8, so an 8-bit terminal may read any byte of 0x80-0x9f as a
 * C1 control) every byte from 0x80 up is shown as \xNN too. Pure. */
struct strbuf;
void visible_add(struct strbuf *out, const char *s, size_t len, bool utf8);
/* Is the locale's character set UTF-8 (LC_ALL, LC_CTYPE, LANG)? */
bool visible_utf8_locale(void);
/* visible_add(s) for the current locale, as a new string. */
char *visible_dup(const char *s);
/* Does s show as itself (visible_dup(s) would equal s)? */
bool visible_as_is(const char *s);

/* The length of the well-formed UTF-8 character at s (at most len bytes,
 * len > 0) and its code point, or 0 when s does not start one (RFC 3629:
 * no overlong forms, no surrogates, nothing above U+10FFFF). */
size_t utf8_char(const unsigned char *s, size_t len, uint32_t *cp);
/* C1 controls, bidirectional controls, line and paragraph separators:
 * code points a terminal acts on, or that reorder or split a line. */
bool invisible_code_point(uint32_t cp);

/* Print "<prog>: msg" and any "hint: ..." lines to stderr, shown through
 * visible_add() (see warning_print). */
void error_print(const char *prog, const struct error *err);

/* Print each line of text as "prog: warning: LINE". Like error_print, it
 * shows text through visible_add(): messages quote paths and lines that
 * sandboxed code may have chosen, and a raw escape sequence would be the
 * terminal's to act on. */
void warning_print(const char *prog, const char *text);

/* Each line of text as "prog: LINE", made visible the same way. */
void note_print(const char *prog, const char *text);

/* snprintf that reports truncation as failure instead of hiding it. */
bool fmt_fits(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
