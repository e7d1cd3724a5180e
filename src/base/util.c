#include "base/util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static void oom(void)
{
	static const char msg[] = "moat: out of memory\n";
	(void)!write(2, msg, sizeof(msg) - 1);
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom();
	return p;
}

void *xcalloc(size_t count, size_t size)
{
	void *p = calloc(count ? count : 1, size ? size : 1);
	if (!p)
		oom();
	return p;
}

void *xrealloc_array(void *p, size_t count, size_t size)
{
	if (size && count > SIZE_MAX / size)
		oom();
	size_t bytes = count * size;
	void *q = realloc(p, bytes ? bytes : 1);
	if (!q)
		oom();
	return q;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);
	if (!p)
		oom();
	return p;
}

char *xstrndup(const char *s, size_t n)
{
	char *p = strndup(s, n);
	if (!p)
		oom();
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *out;
	va_start(ap, fmt);
	int n = vasprintf(&out, fmt, ap);
	va_end(ap);
	if (n < 0)
		oom();
	return out;
}

int error_set(struct error *err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	err->hint[0] = '\0';
	err->status = 0; /* a fresh error; callers that choose a status set it after */
	return -1;
}

void error_hint(struct error *err, const char *fmt, ...)
{
	size_t used = strlen(err->hint);
	if (used && used + 1 < sizeof(err->hint))
		err->hint[used++] = '\n';
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err->hint + used, sizeof(err->hint) - used, fmt, ap);
	va_end(ap);
}

void error_clear(struct error *err)
{
	err->msg[0] = err->hint[0] = '\0';
	err->status = 0;
}

static void put_visible(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x20 || c == 0x7f)
			fprintf(stderr, "\\x%02x", c);
		else
			fputc(c, stderr);
	}
}

/* Each line of text after prefix, made visible. */
static void print_lines(const char *prefix, const char *text)
{
	while (*text) {
		size_t len = strcspn(text, "\n");
		fputs(prefix, stderr);
		put_visible(text, len);
		fputc('\n', stderr);
		text += len + (text[len] == '\n');
	}
}

void error_print(const char *prog, const struct error *err)
{
	fprintf(stderr, "%s: ", prog);
	put_visible(err->msg, strlen(err->msg));
	fputc('\n', stderr);
	print_lines("hint: ", err->hint);
}

void warning_print(const char *prog, const char *text)
{
	char prefix[64];
	snprintf(prefix, sizeof(prefix), "%s: warning: ", prog);
	print_lines(prefix, text);
}

void note_print(const char *prog, const char *text)
{
	char prefix[64];
	snprintf(prefix, sizeof(prefix), "%s: ", prog);
	print_lines(prefix, text);
}

bool fmt_fits(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n >= 0 && (size_t)n < size;
}
