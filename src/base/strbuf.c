#include "base/strbuf.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/util.h"

void sb_grow(struct strbuf *sb, size_t extra)
{
	if (extra > SIZE_MAX / 2 - sb->len)
		abort();
	size_t need = sb->len + extra + 1;
	if (need <= sb->cap)
		return;
	size_t cap = sb->cap ? sb->cap : 64;
	while (cap < need)
		cap *= 2;
	sb->buf = xrealloc_array(sb->buf, cap, 1);
	sb->cap = cap;
}

void sb_add(struct strbuf *sb, const void *data, size_t len)
{
	sb_grow(sb, len);
	memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
}

void sb_adds(struct strbuf *sb, const char *s)
{
	sb_add(sb, s, strlen(s));
}

void sb_addc(struct strbuf *sb, char c)
{
	sb_add(sb, &c, 1);
}

void sb_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	sb_grow(sb, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	sb->len += (size_t)n;
}

void sb_reset(struct strbuf *sb)
{
	sb->len = 0;
	if (sb->buf)
		sb->buf[0] = '\0';
}

void sb_release(struct strbuf *sb)
{
	free(sb->buf);
	*sb = (struct strbuf)STRBUF_INIT;
}

char *sb_detach(struct strbuf *sb)
{
	char *p = sb->buf ? sb->buf : xstrdup("");
	*sb = (struct strbuf)STRBUF_INIT;
	return p;
}

const char *sb_str(const struct strbuf *sb)
{
	return sb->buf ? sb->buf : "";
}

void sb_add_shell_word(struct strbuf *out, const char *word)
{
	if (*word && strspn(word, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	                          "0123456789_./=:,+@%^-") == strlen(word)) {
		sb_adds(out, word);
		return;
	}
	sb_addc(out, '\'');
	for (const char *c = word; *c; c++)
		sb_adds(out, *c == '\'' ? "'\"'\"'" : (char[]){*c, '\0'});
	sb_addc(out, '\'');
}
