#include "base/util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/strbuf.h"

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

/* Arrays here grow an element at a time (n + 1), so each size is rounded
 * up to a power of two: most calls then find room in the block they have,
 * and a block moves only when its array doubles. With musl's malloc a move
 * into a larger size class maps a new block and unmaps the old one, and on
 * a paravirtualized guest that pair and the new pages' faults cost some
 * 55 us: 1,000 grants in config.zon made 39 such pairs fewer, 2.2 ms of the
 * wrapper's start. Exact under AddressSanitizer, which sees an overrun
 * only past the size asked for. */
static size_t room_for(size_t bytes)
{
#ifdef UNDER_ASAN
	return bytes ? bytes : 1;
#else
	size_t room = 16;
	while (room < bytes && room <= SIZE_MAX / 2)
		room *= 2;
	return room < bytes ? bytes : room;
#endif
}

void *xrealloc_array(void *p, size_t count, size_t size)
{
	if (size && count > SIZE_MAX / size)
		oom();
	void *q = realloc(p, room_for(count * size));
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

char *xvasprintf(const char *fmt, va_list ap)
{
	char *out;
	if (vasprintf(&out, fmt, ap) < 0)
		oom();
	return out;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *out = xvasprintf(fmt, ap);
	va_end(ap);
	return out;
}

/* vsnprintf into buf, or, when the text is longer than size, its head, "..."
 * and its tail: what follows a long path (the reason) survives. Cuts fall
 * between UTF-8 characters. */
__attribute__((format(printf, 3, 0))) static void fit_text(char *buf, size_t size, const char *fmt,
                                                           va_list ap)
{
	va_list again;
	va_copy(again, ap);
	int n = vsnprintf(buf, size, fmt, ap);
	char *whole = NULL;
	if (n >= 0 && (size_t)n >= size && size > 16 && vasprintf(&whole, fmt, again) >= 0) {
		size_t head = (size - 4) / 2;
		size_t tail = (size_t)n - (size - 4 - head);
		while (head > 0 && ((unsigned char)whole[head] & 0xc0) == 0x80)
			head--;
		while (((unsigned char)whole[tail] & 0xc0) == 0x80)
			tail++;
		memcpy(buf + head, "...", 3);
		memcpy(buf + head + 3, whole + tail, (size_t)n - tail + 1);
		free(whole);
	}
	va_end(again);
}

int error_set(struct error *err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fit_text(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	err->hint[0] = '\0';
	err->status = 0; /* a fresh error; callers that choose a status set it after */
	return -1;
}

int error_errno(struct error *err, const char *fmt, ...)
{
	int e = errno;
	va_list ap;
	va_start(ap, fmt);
	fit_text(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	/* ": reason" after it, whole: a message too long loses its own end. */
	const char *reason = strerror(e);
	size_t size = sizeof(err->msg), used = strlen(err->msg), need = strlen(reason) + 3;
	if (used + need > size) {
		used = size > need ? size - need : 0;
		while (used > 0 && ((unsigned char)err->msg[used] & 0xc0) == 0x80)
			used--;
	}
	snprintf(err->msg + used, size - used, ": %s", reason);
	err->hint[0] = '\0';
	err->status = 0;
	errno = e; /* callers may still tell ENOENT from the rest */
	return -1;
}

void error_hint(struct error *err, const char *fmt, ...)
{
	size_t used = strlen(err->hint);
	if (used && used + 1 < sizeof(err->hint))
		err->hint[used++] = '\n';
	va_list ap;
	va_start(ap, fmt);
	fit_text(err->hint + used, sizeof(err->hint) - used, fmt, ap);
	va_end(ap);
}

__attribute__((format(printf, 3, 4))) static void fit_textf(char *buf, size_t size, const char *fmt,
                                                            ...)
{
	va_list ap;
	va_start(ap, fmt);
	fit_text(buf, size, fmt, ap);
	va_end(ap);
}

void error_wrap(struct error *err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	cleanup_free char *prefix = xvasprintf(fmt, ap);
	va_end(ap);
	cleanup_free char *was = xstrdup(err->msg);
	fit_textf(err->msg, sizeof(err->msg), "%s: %s", prefix, was);
}

void error_clear(struct error *err)
{
	err->msg[0] = err->hint[0] = '\0';
	err->status = 0;
}

size_t utf8_char(const unsigned char *s, size_t len, uint32_t *cp)
{
	unsigned char c = s[0];
	size_t n;
	unsigned char lo = 0x80, hi = 0xbf; /* the second byte's range */
	if (c < 0x80) {
		*cp = c;
		return 1;
	} else if (c >= 0xc2 && c <= 0xdf) {
		n = 2, *cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3, *cp = c & 0x0f;
		lo = c == 0xe0 ? 0xa0 : 0x80;
		hi = c == 0xed ? 0x9f : 0xbf;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4, *cp = c & 0x07;
		lo = c == 0xf0 ? 0x90 : 0x80;
		hi = c == 0xf4 ? 0x8f : 0xbf;
	} else {
		return 0;
	}
	if (len < n || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if (i > 1 && (s[i] < 0x80 || s[i] > 0xbf))
			return 0;
		*cp = (*cp << 6) | (s[i] & 0x3f);
	}
	return n;
}

bool invisible_code_point(uint32_t cp)
{
	return (cp >= 0x80 && cp <= 0x9f) || cp == 0x061c || cp == 0x200e || cp == 0x200f ||
	       (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

static void add_hex(struct strbuf *out, const unsigned char *s, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		char esc[4] = {'\\', 'x', digits[s[i] >> 4], digits[s[i] & 0xf]};
		sb_add(out, esc, sizeof(esc));
	}
}

void visible_add(struct strbuf *out, const char *text, size_t len, bool utf8)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t i = 0;
	while (i < len) {
		size_t start = i;
		while (i < len && s[i] >= 0x20 && s[i] < 0x7f && s[i] != '\\')
			i++;
		sb_add(out, s + start, i - start);
		if (i == len)
			break;
		uint32_t cp;
		size_t n = utf8 && s[i] >= 0x80 ? utf8_char(s + i, len - i, &cp) : 0;
		if (n && !invisible_code_point(cp))
			sb_add(out, s + i, n);
		else
			add_hex(out, s + i, n ? n : 1);
		i += n ? n : 1;
	}
}

bool visible_utf8_locale(void)
{
	static const char *const vars[] = {"LC_ALL", "LC_CTYPE", "LANG"};
	for (size_t i = 0; i < ARRAY_LEN(vars); i++) {
		const char *v = getenv(vars[i]);
		if (!v || !*v)
			continue;
		const char *dot = strchr(v, '.');
		const char *set = dot ? dot + 1 : v; /* "en_US.UTF-8", or macOS's bare "UTF-8" */
		return strncasecmp(set, "utf-8", 5) == 0 || strncasecmp(set, "utf8", 4) == 0;
	}
	return false;
}

char *visible_dup(const char *s)
{
	struct strbuf sb = STRBUF_INIT;
	visible_add(&sb, s, strlen(s), visible_utf8_locale());
	return sb_detach(&sb);
}

bool visible_as_is(const char *s)
{
	cleanup_free char *shown = visible_dup(s);
	return strcmp(shown, s) == 0;
}

static void put_visible(const char *s, size_t len)
{
	struct strbuf sb = STRBUF_INIT;
	visible_add(&sb, s, len, visible_utf8_locale());
	fputs(sb_str(&sb), stderr);
	sb_release(&sb);
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
