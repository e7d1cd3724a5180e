/* A growable, always NUL-terminated byte buffer. */
#ifndef MOAT_BASE_STRBUF_H
#define MOAT_BASE_STRBUF_H

#include <stddef.h>

struct strbuf {
	char *buf;
	size_t len;
	size_t cap;
};

#define STRBUF_INIT                                                                                \
	{                                                                                          \
		0                                                                                  \
	}

void sb_grow(struct strbuf *sb, size_t extra);
void sb_add(struct strbuf *sb, const void *data, size_t len);
void sb_adds(struct strbuf *sb, const char *s);
void sb_addc(struct strbuf *sb, char c);
/* word as the shell reads it back: bare when it holds nothing the shell
 * would change, else in single quotes. */
void sb_add_shell_word(struct strbuf *out, const char *word);
void sb_addf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_reset(struct strbuf *sb);
void sb_release(struct strbuf *sb);
/* Give up the buffer (never NULL) and reset sb. */
char *sb_detach(struct strbuf *sb);
/* A printable view of the buffer, "" when nothing was ever added. */
const char *sb_str(const struct strbuf *sb);

#endif
