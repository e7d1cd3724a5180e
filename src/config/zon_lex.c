/* The ZON lexer: one token at a time, from the parser's state (zon.c),
 * so the parser peeks by copying a struct lexer and no token array is
 * sized. Strings are decoded here: escapes, UTF-8 checked, multiline
 * lines. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/util.h"
#include "config/zon_lex.h"

static void position_of(const char *buf, size_t offset, int *line, int *col)
{
	int l = 1;
	size_t ls = 0;
	for (size_t i = 0; i < offset; i++) {
		if (buf[i] == '\n') {
			l++;
			ls = i + 1;
		}
	}
	*line = l;
	*col = (int)(offset - ls + 1);
}

int zon_fail(struct parser *p, size_t offset, const char *fmt, ...)
{
	if (p->failed)
		return -1;
	p->failed = true;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(p->diag->msg, sizeof(p->diag->msg), fmt, ap);
	va_end(ap);
	p->diag->offset = offset;
	position_of(p->buf, offset, &p->diag->line, &p->diag->col);
	return -1;
}

/* Length of the well-formed UTF-8 sequence at s, or 0. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
	unsigned c = s[0];
	size_t need;
	uint32_t cp, min;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		need = 2, cp = c & 0x1f, min = 0x80;
	} else if ((c & 0xf0) == 0xe0) {
		need = 3, cp = c & 0x0f, min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		need = 4, cp = c & 0x07, min = 0x10000;
	} else {
		return 0;
	}
	if (n < need)
		return 0;
	for (size_t i = 1; i < need; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return need;
}

/* The code point of a well-formed UTF-8 sequence of n bytes. */
static uint32_t utf8_decode(const unsigned char *s, size_t n)
{
	static const unsigned char lead_bits[] = {0, 0x7f, 0x1f, 0x0f, 0x07};
	uint32_t cp = s[0] & lead_bits[n];
	for (size_t i = 1; i < n; i++)
		cp = cp << 6 | (s[i] & 0x3f);
	return cp;
}

bool zon_utf8_valid(const char *buf, size_t len)
{
	const unsigned char *s = (const unsigned char *)buf;
	for (size_t i = 0; i < len;) {
		size_t n = utf8_seq(s + i, len - i);
		if (!n)
			return false;
		i += n;
	}
	return true;
}

static void utf8_encode(struct strbuf *sb, uint32_t cp)
{
	char b[4];
	size_t n;
	if (cp < 0x80) {
		b[0] = (char)cp, n = 1;
	} else if (cp < 0x800) {
		b[0] = (char)(0xc0 | cp >> 6), b[1] = (char)(0x80 | (cp & 0x3f)), n = 2;
	} else if (cp < 0x10000) {
		b[0] = (char)(0xe0 | cp >> 12), b[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		b[2] = (char)(0x80 | (cp & 0x3f)), n = 3;
	} else {
		b[0] = (char)(0xf0 | cp >> 18), b[1] = (char)(0x80 | (cp >> 12 & 0x3f));
		b[2] = (char)(0x80 | (cp >> 6 & 0x3f)), b[3] = (char)(0x80 | (cp & 0x3f)), n = 4;
	}
	sb_add(sb, b, n);
}

static int hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

bool zon_is_ident_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

bool zon_is_ident_char(char c)
{
	return zon_is_ident_start(c) || (c >= '0' && c <= '9');
}

/* One escape sequence at *pos (the backslash); decoded into out when given. */
static int scan_escape(struct parser *p, size_t *pos, struct strbuf *out, uint32_t *cp)
{
	size_t at = *pos, i = at + 1;
	if (i >= p->len)
		return zon_fail(p, at, "unterminated string");
	char c = p->buf[i];
	char simple = c == 'n' ? '\n' : c == 'r' ? '\r' : c == 't' ? '\t' : c;
	if (c && strchr("nrt\\'\"", c)) {
		*cp = (unsigned char)simple;
		if (out)
			sb_addc(out, simple);
		*pos = i + 1;
		return 0;
	}
	if (c == 'x') {
		int hi = i + 1 < p->len ? hex_value(p->buf[i + 1]) : -1;
		int lo = i + 2 < p->len ? hex_value(p->buf[i + 2]) : -1;
		if (hi < 0 || lo < 0)
			return zon_fail(p, at, "expected two hex digits after '\\x'");
		*cp = (uint32_t)(hi << 4 | lo);
		if (out)
			sb_addc(out, (char)*cp);
		*pos = i + 3;
		return 0;
	}
	if (c == 'u') {
		i++;
		if (i >= p->len || p->buf[i] != '{')
			return zon_fail(p, at, "expected '{' after '\\u'");
		uint32_t v = 0;
		size_t digits = 0;
		int d;
		for (i++; i < p->len && (d = hex_value(p->buf[i])) >= 0; i++, digits++) {
			if (v <= 0x10ffff)
				v = v << 4 | (uint32_t)d;
		}
		if (!digits || i >= p->len || p->buf[i] != '}')
			return zon_fail(p, at, "expected hex digits and '}' in '\\u{...}'");
		if (v > 0x10ffff)
			return zon_fail(p, at, "unicode escape is beyond U+10FFFF");
		if (v >= 0xd800 && v <= 0xdfff)
			return zon_fail(p, at,
			                "unicode escape is a surrogate half, not a character");
		*cp = v;
		if (out)
			utf8_encode(out, v);
		*pos = i + 1;
		return 0;
	}
	if (c > 0x20 && c < 0x7f)
		return zon_fail(p, at, "invalid escape sequence '\\%c'", c);
	return zon_fail(p, at, "invalid escape sequence");
}

/* One character of a quoted literal at *pos: an escape or a UTF-8 sequence. */
static int scan_char(struct parser *p, size_t *pos, struct strbuf *out, uint32_t *cp,
                     const char *what)
{
	size_t at = *pos;
	unsigned char c = (unsigned char)p->buf[at];
	if (c == '\\')
		return scan_escape(p, pos, out, cp);
	if (c == '\n')
		return zon_fail(p, at, "unterminated %s", what);
	if (c < 0x20 || c == 0x7f)
		return zon_fail(
		    p, at, "control character 0x%02x in %s (use an escape such as '\\t')", c, what);
	size_t n = utf8_seq((const unsigned char *)p->buf + at, p->len - at);
	if (!n)
		return zon_fail(p, at, "invalid UTF-8 in %s", what);
	if (out)
		sb_add(out, p->buf + at, n);
	*cp = c; /* only checked for being one character */
	*pos = at + n;
	return 0;
}

/* How many bytes from i are printable ASCII other than '"' and '\\': what
 * a path is made of, taken in one copy rather than a character at a time
 * (1,000 granted paths in config.zon cost the wrapper a millisecond so). */
static size_t plain_run(const struct parser *p, size_t i)
{
	size_t j = i;
	for (; j < p->len; j++) {
		unsigned char c = (unsigned char)p->buf[j];
		if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\')
			break;
	}
	return j - i;
}

/* A "..." literal starting at the quote; decoded into out when given. */
int zon_scan_string(struct parser *p, size_t at, struct strbuf *out, size_t *end)
{
	size_t i = at + 1;
	uint32_t cp;
	for (;;) {
		size_t n = plain_run(p, i);
		if (n && out)
			sb_add(out, p->buf + i, n);
		i += n;
		if (i >= p->len)
			return zon_fail(p, at, "unterminated string");
		if (p->buf[i] == '"')
			break;
		if (scan_char(p, &i, out, &cp, "string") < 0)
			return -1;
	}
	*end = i + 1;
	return 0;
}

static int scan_char_literal(struct parser *p, size_t at, struct token *t)
{
	size_t i = at + 1;
	uint32_t cp;
	if (i >= p->len || p->buf[i] == '\'')
		return zon_fail(p, at, "empty character literal");
	if (p->buf[i] == '\\') {
		if (scan_escape(p, &i, NULL, &cp) < 0)
			return -1;
	} else {
		struct strbuf one = STRBUF_INIT;
		int rc = scan_char(p, &i, &one, &cp, "character literal");
		if (rc == 0)
			cp = utf8_decode((const unsigned char *)one.buf, one.len);
		sb_release(&one);
		if (rc < 0)
			return -1;
	}
	if (i >= p->len || p->buf[i] != '\'')
		return zon_fail(p, at, "expected one character between single quotes");
	t->u = cp;
	t->end = i + 1;
	return 0;
}

static int scan_int(struct parser *p, size_t at, struct token *t)
{
	const char *b = p->buf;
	size_t i = at;
	unsigned base = 10;
	if (b[i] == '0' && i + 1 < p->len &&
	    (b[i + 1] == 'x' || b[i + 1] == 'o' || b[i + 1] == 'b')) {
		base = b[i + 1] == 'x' ? 16 : b[i + 1] == 'o' ? 8 : 2;
		i += 2;
	}
	size_t first = i, digits = 0;
	uint64_t v = 0;
	bool overflow = false;
	for (; i < p->len; i++) {
		char c = b[i];
		int d = hex_value(c);
		if (c == '_') {
			bool next_digit = i + 1 < p->len && hex_value(b[i + 1]) >= 0 &&
			                  (unsigned)hex_value(b[i + 1]) < base;
			if (!digits || !next_digit)
				return zon_fail(p, i, "misplaced '_' in integer");
			continue;
		}
		if (base == 10 && (c == 'e' || c == 'E'))
			return zon_fail(p, at, "floating-point numbers are not supported");
		if (d < 0 || (unsigned)d >= base) {
			if (zon_is_ident_char(c))
				return zon_fail(p, i, "invalid digit '%c' in integer", c);
			break;
		}
		if (v > (UINT64_MAX - (unsigned)d) / base)
			overflow = true;
		v = v * base + (unsigned)d;
		digits++;
	}
	if (!digits)
		return zon_fail(p, at, "expected digits after '%.2s'", b + at);
	if (i < p->len && b[i] == '.' && i + 1 < p->len && b[i + 1] >= '0' && b[i + 1] <= '9')
		return zon_fail(p, at, "floating-point numbers are not supported");
	if (base == 10 && b[first] == '0' && digits > 1)
		return zon_fail(p, at, "leading zeros are not allowed in an integer");
	t->u = v;
	t->overflow = overflow;
	t->end = i;
	return 0;
}

/* Whitespace and comments before the next token; false after an error. */
static bool skip_space(struct parser *p, struct lexer *lx)
{
	const char *b = p->buf;
	while (lx->pos < p->len) {
		char c = b[lx->pos];
		if (c == ' ' || c == '\t') {
			lx->pos++;
		} else if (c == '\n') {
			lx->pos++;
			lx->line++;
			lx->line_start = lx->pos;
		} else if (c == '\r' && lx->pos + 1 < p->len && b[lx->pos + 1] == '\n') {
			lx->pos++;
		} else if (c == '/' && lx->pos + 1 < p->len && b[lx->pos + 1] == '/') {
			const char *nl = memchr(b + lx->pos, '\n', p->len - lx->pos);
			size_t eol = nl ? (size_t)(nl - b) : p->len;
			const unsigned char *s = (const unsigned char *)b;
			for (size_t i = lx->pos; i < eol;) {
				size_t n = utf8_seq(s + i, eol - i);
				if (!n)
					return zon_fail(p, i, "invalid UTF-8 in comment"), false;
				i += n;
			}
			lx->pos = eol;
		} else {
			break;
		}
	}
	return true;
}

static int scan_mlstring_line(struct parser *p, size_t at, struct token *t)
{
	const char *nl = memchr(p->buf + at, '\n', p->len - at);
	size_t eol = nl ? (size_t)(nl - p->buf) : p->len;
	if (eol > at && p->buf[eol - 1] == '\r')
		eol--;
	const unsigned char *s = (const unsigned char *)p->buf;
	for (size_t i = at + 2; i < eol;) {
		if (s[i] != '\t' && (s[i] < 0x20 || s[i] == 0x7f))
			return zon_fail(p, i, "control character 0x%02x in multiline string", s[i]);
		size_t n = utf8_seq(s + i, eol - i);
		if (!n)
			return zon_fail(p, i, "invalid UTF-8 in multiline string");
		i += n;
	}
	t->end = eol;
	return 0;
}

void zon_lex(struct parser *p, struct lexer *lx, struct token *t)
{
	memset(t, 0, sizeof(*t));
	t->kind = T_ERROR;
	if (p->failed || !skip_space(p, lx))
		return;
	const char *b = p->buf;
	size_t at = lx->pos;
	t->start = at;
	t->end = at + 1;
	t->line = lx->line;
	t->col = (int)(at - lx->line_start + 1);
	if (at >= p->len) {
		t->kind = T_EOF;
		t->end = at;
		return;
	}
	char c = b[at];
	char next = at + 1 < p->len ? b[at + 1] : '\0';
	enum tok kind = T_ERROR;
	int rc = 0;
	switch (c) {
	case '.': kind = T_DOT; break;
	case '{': kind = T_LBRACE; break;
	case '}': kind = T_RBRACE; break;
	case '=': kind = T_EQUAL; break;
	case ',': kind = T_COMMA; break;
	case '-': kind = T_MINUS; break;
	case '"':
		kind = T_STRING;
		rc = zon_scan_string(p, at, NULL, &t->end);
		break;
	case '\'':
		kind = T_CHAR;
		rc = scan_char_literal(p, at, t);
		break;
	case '@':
		if (next != '"') {
			rc = zon_fail(p, at, "expected '\"' after '@'");
			break;
		}
		kind = T_AT_STRING;
		rc = zon_scan_string(p, at + 1, NULL, &t->end);
		break;
	case '\\':
		if (next != '\\') {
			rc = zon_fail(p, at, "unexpected character '\\'");
			break;
		}
		kind = T_MLSTRING;
		rc = scan_mlstring_line(p, at, t);
		break;
	default:
		if (c >= '0' && c <= '9') {
			kind = T_INT;
			rc = scan_int(p, at, t);
		} else if (zon_is_ident_start(c)) {
			kind = T_IDENT;
			size_t i = at;
			while (i < p->len && zon_is_ident_char(b[i]))
				i++;
			t->end = i;
		} else if (c > 0x20 && c < 0x7f) {
			rc = zon_fail(p, at, "unexpected character '%c'", c);
		} else if ((unsigned char)c >= 0x80 &&
		           utf8_seq((const unsigned char *)b + at, p->len - at)) {
			rc = zon_fail(p, at, "unexpected non-ASCII character outside a string");
		} else if ((unsigned char)c >= 0x80) {
			rc = zon_fail(p, at, "invalid UTF-8");
		} else {
			rc = zon_fail(p, at, "unexpected control character 0x%02x",
			              (unsigned char)c);
		}
	}
	if (rc < 0 || kind == T_ERROR)
		return;
	t->kind = kind;
	lx->pos = t->end;
}
