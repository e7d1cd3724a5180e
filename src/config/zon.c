/* A strict ZON parser. The lexer hands out one token at a time and the
 * parser peeks by copying the lexer state, so there is no token array to
 * size. The first error stops the parse; its position is computed once from
 * the offset, which keeps positions exact without threading them everywhere. */
#include "config/zon.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/util.h"

enum tok {
	T_EOF,
	T_DOT,
	T_LBRACE,
	T_RBRACE,
	T_EQUAL,
	T_COMMA,
	T_MINUS,
	T_IDENT,
	T_AT_STRING, /* @"..." (only meaningful after '.') */
	T_STRING,
	T_MLSTRING, /* one \\ line; start at the backslashes, end before the newline */
	T_INT,
	T_CHAR,
	T_ERROR,
};

struct token {
	enum tok kind;
	size_t start, end;
	int line, col;
	uint64_t u; /* T_INT magnitude, T_CHAR code point */
	bool overflow;
};

struct lexer {
	size_t pos, line_start;
	int line;
};

struct parser {
	const char *buf;
	size_t len;
	struct lexer lx;
	struct token tok;
	struct zon_diag *diag;
	bool failed;
};

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

__attribute__((format(printf, 3, 4))) static int fail(struct parser *p, size_t offset,
                                                      const char *fmt, ...)
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

static bool is_ident_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_ident_char(char c)
{
	return is_ident_start(c) || (c >= '0' && c <= '9');
}

/* One escape sequence at *pos (the backslash); decoded into out when given. */
static int scan_escape(struct parser *p, size_t *pos, struct strbuf *out, uint32_t *cp)
{
	size_t at = *pos, i = at + 1;
	if (i >= p->len)
		return fail(p, at, "unterminated string");
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
			return fail(p, at, "expected two hex digits after '\\x'");
		*cp = (uint32_t)(hi << 4 | lo);
		if (out)
			sb_addc(out, (char)*cp);
		*pos = i + 3;
		return 0;
	}
	if (c == 'u') {
		i++;
		if (i >= p->len || p->buf[i] != '{')
			return fail(p, at, "expected '{' after '\\u'");
		uint32_t v = 0;
		size_t digits = 0;
		int d;
		for (i++; i < p->len && (d = hex_value(p->buf[i])) >= 0; i++, digits++) {
			if (v <= 0x10ffff)
				v = v << 4 | (uint32_t)d;
		}
		if (!digits || i >= p->len || p->buf[i] != '}')
			return fail(p, at, "expected hex digits and '}' in '\\u{...}'");
		if (v > 0x10ffff)
			return fail(p, at, "unicode escape is beyond U+10FFFF");
		if (v >= 0xd800 && v <= 0xdfff)
			return fail(p, at, "unicode escape is a surrogate half, not a character");
		*cp = v;
		if (out)
			utf8_encode(out, v);
		*pos = i + 1;
		return 0;
	}
	if (c > 0x20 && c < 0x7f)
		return fail(p, at, "invalid escape sequence '\\%c'", c);
	return fail(p, at, "invalid escape sequence");
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
		return fail(p, at, "unterminated %s", what);
	if (c < 0x20 || c == 0x7f)
		return fail(p, at, "control character 0x%02x in %s (use an escape such as '\\t')",
		            c, what);
	size_t n = utf8_seq((const unsigned char *)p->buf + at, p->len - at);
	if (!n)
		return fail(p, at, "invalid UTF-8 in %s", what);
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
static int scan_string(struct parser *p, size_t at, struct strbuf *out, size_t *end)
{
	size_t i = at + 1;
	uint32_t cp;
	for (;;) {
		size_t n = plain_run(p, i);
		if (n && out)
			sb_add(out, p->buf + i, n);
		i += n;
		if (i >= p->len)
			return fail(p, at, "unterminated string");
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
		return fail(p, at, "empty character literal");
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
		return fail(p, at, "expected one character between single quotes");
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
				return fail(p, i, "misplaced '_' in integer");
			continue;
		}
		if (base == 10 && (c == 'e' || c == 'E'))
			return fail(p, at, "floating-point numbers are not supported");
		if (d < 0 || (unsigned)d >= base) {
			if (is_ident_char(c))
				return fail(p, i, "invalid digit '%c' in integer", c);
			break;
		}
		if (v > (UINT64_MAX - (unsigned)d) / base)
			overflow = true;
		v = v * base + (unsigned)d;
		digits++;
	}
	if (!digits)
		return fail(p, at, "expected digits after '%.2s'", b + at);
	if (i < p->len && b[i] == '.' && i + 1 < p->len && b[i + 1] >= '0' && b[i + 1] <= '9')
		return fail(p, at, "floating-point numbers are not supported");
	if (base == 10 && b[first] == '0' && digits > 1)
		return fail(p, at, "leading zeros are not allowed in an integer");
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
					return fail(p, i, "invalid UTF-8 in comment"), false;
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
			return fail(p, i, "control character 0x%02x in multiline string", s[i]);
		size_t n = utf8_seq(s + i, eol - i);
		if (!n)
			return fail(p, i, "invalid UTF-8 in multiline string");
		i += n;
	}
	t->end = eol;
	return 0;
}

static void lex(struct parser *p, struct lexer *lx, struct token *t)
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
		rc = scan_string(p, at, NULL, &t->end);
		break;
	case '\'':
		kind = T_CHAR;
		rc = scan_char_literal(p, at, t);
		break;
	case '@':
		if (next != '"') {
			rc = fail(p, at, "expected '\"' after '@'");
			break;
		}
		kind = T_AT_STRING;
		rc = scan_string(p, at + 1, NULL, &t->end);
		break;
	case '\\':
		if (next != '\\') {
			rc = fail(p, at, "unexpected character '\\'");
			break;
		}
		kind = T_MLSTRING;
		rc = scan_mlstring_line(p, at, t);
		break;
	default:
		if (c >= '0' && c <= '9') {
			kind = T_INT;
			rc = scan_int(p, at, t);
		} else if (is_ident_start(c)) {
			kind = T_IDENT;
			size_t i = at;
			while (i < p->len && is_ident_char(b[i]))
				i++;
			t->end = i;
		} else if (c > 0x20 && c < 0x7f) {
			rc = fail(p, at, "unexpected character '%c'", c);
		} else if ((unsigned char)c >= 0x80 &&
		           utf8_seq((const unsigned char *)b + at, p->len - at)) {
			rc = fail(p, at, "unexpected non-ASCII character outside a string");
		} else if ((unsigned char)c >= 0x80) {
			rc = fail(p, at, "invalid UTF-8");
		} else {
			rc = fail(p, at, "unexpected control character 0x%02x", (unsigned char)c);
		}
	}
	if (rc < 0 || kind == T_ERROR)
		return;
	t->kind = kind;
	lx->pos = t->end;
}

static void advance(struct parser *p)
{
	lex(p, &p->lx, &p->tok);
}

/* The kinds of the two tokens after the current one. */
static void peek2(struct parser *p, enum tok *k1, enum tok *k2)
{
	struct lexer copy = p->lx;
	struct token t;
	lex(p, &copy, &t);
	*k1 = t.kind;
	lex(p, &copy, &t);
	*k2 = t.kind;
}

static const char *describe_tok(const struct parser *p, const struct token *t, char *buf,
                                size_t size)
{
	switch (t->kind) {
	case T_EOF: return "end of file";
	case T_DOT: return "'.'";
	case T_LBRACE: return "'{'";
	case T_RBRACE: return "'}'";
	case T_EQUAL: return "'='";
	case T_COMMA: return "','";
	case T_MINUS: return "'-'";
	case T_IDENT: {
		int n = (int)(t->end - t->start);
		snprintf(buf, size, "'%.*s%s'", n > 40 ? 40 : n, p->buf + t->start,
		         n > 40 ? "..." : "");
		return buf;
	}
	case T_AT_STRING: return "a quoted name";
	case T_STRING: return "a string";
	case T_MLSTRING: return "a multiline string";
	case T_INT: return "an integer";
	case T_CHAR: return "a character literal";
	case T_ERROR: break;
	}
	return "an invalid token";
}

/* Decoded text of an identifier or @"..." token; NULL after an error. */
static char *token_name(struct parser *p, const struct token *t)
{
	if (t->kind == T_IDENT)
		return xstrndup(p->buf + t->start, t->end - t->start);
	struct strbuf sb = STRBUF_INIT;
	size_t end;
	scan_string(p, t->start + 1, &sb, &end);
	if (sb.len == 0 || memchr(sb.buf, '\0', sb.len)) {
		fail(p, t->start,
		     sb.len ? "a name cannot contain a NUL byte" : "a name cannot be empty");
		sb_release(&sb);
		return NULL;
	}
	return sb_detach(&sb);
}

static int parse_value(struct parser *p, struct zon_node *node, int depth);

static int parse_field_name(struct parser *p, struct zon_node *item)
{
	item->name_line = p->tok.line;
	item->name_col = p->tok.col;
	item->item_start = p->tok.start;
	advance(p); /* the '.' */
	item->name = token_name(p, &p->tok);
	if (!item->name)
		return -1;
	advance(p); /* the name */
	advance(p); /* the '=', which peek2 has seen */
	return p->failed ? -1 : 0;
}

static struct zon_node *new_item(struct zon_node *node, size_t *cap)
{
	if (node->nitems == *cap) {
		*cap = *cap ? *cap * 2 : 4;
		node->items = xrealloc_array(node->items, *cap, sizeof(*node->items));
	}
	struct zon_node *item = &node->items[node->nitems++];
	memset(item, 0, sizeof(*item));
	item->comma = ZON_NONE;
	return item;
}

/* The items of .{ ... }; the current token is the '{'. */
static int parse_container(struct parser *p, struct zon_node *node, int depth)
{
	enum { UNKNOWN, FIELDS, VALUES } mode = UNKNOWN;
	char desc[64];
	size_t cap = 0;
	if (depth > ZON_MAX_DEPTH)
		return fail(p, node->start, "nesting deeper than %d levels", ZON_MAX_DEPTH);
	advance(p);
	while (p->tok.kind != T_RBRACE) {
		if (p->failed)
			return -1;
		if (p->tok.kind == T_EOF)
			return fail(p, p->tok.start, "end of file inside the '.{' opened at %d:%d",
			            node->line, node->col);
		enum tok k1 = T_EOF, k2 = T_EOF;
		if (p->tok.kind == T_DOT)
			peek2(p, &k1, &k2);
		bool named = k1 == T_IDENT || k1 == T_AT_STRING;
		bool is_field = named && k2 == T_EQUAL;
		if (p->failed)
			return -1;
		bool missing_equal = named && k2 != T_EQUAL && k2 != T_COMMA && k2 != T_RBRACE;
		if (mode == UNKNOWN)
			mode = is_field ? FIELDS : VALUES;
		if ((mode == FIELDS && !is_field) || missing_equal) {
			if (named) {
				struct lexer copy = p->lx;
				struct token t;
				lex(p, &copy, &t);
				lex(p, &copy, &t);
				return fail(p, t.start,
				            "expected '=' after the field name, found %s",
				            describe_tok(p, &t, desc, sizeof(desc)));
			}
			return fail(p, p->tok.start, "expected a field '.name = value', found %s",
			            describe_tok(p, &p->tok, desc, sizeof(desc)));
		}
		if (mode == VALUES && is_field)
			return fail(
			    p, p->tok.start,
			    "a field '.name = value' among plain values; a '.{ }' holds one or "
			    "the other");
		struct zon_node *item = new_item(node, &cap);
		if (is_field && parse_field_name(p, item) < 0)
			return -1;
		if (parse_value(p, item, depth) < 0)
			return -1;
		if (!is_field)
			item->item_start = item->start;
		if (p->tok.kind == T_COMMA) {
			item->comma = p->tok.start;
			advance(p);
		} else if (p->tok.kind == T_EOF) {
			return fail(p, p->tok.start, "end of file inside the '.{' opened at %d:%d",
			            node->line, node->col);
		} else if (p->tok.kind != T_RBRACE) {
			return fail(p, p->tok.start, "expected ',' or '}' after an item, found %s",
			            describe_tok(p, &p->tok, desc, sizeof(desc)));
		}
	}
	node->kind = mode == VALUES ? ZON_TUPLE : ZON_STRUCT;
	node->end = p->tok.end;
	advance(p);
	return p->failed ? -1 : 0;
}

static int parse_string(struct parser *p, struct zon_node *node)
{
	struct strbuf sb = STRBUF_INIT;
	size_t end;
	if (p->tok.kind == T_STRING) {
		scan_string(p, p->tok.start, &sb, &end);
		node->end = p->tok.end;
		advance(p);
	} else {
		/* Consecutive \\ lines make one string, joined with newlines. */
		for (bool first = true; p->tok.kind == T_MLSTRING; first = false) {
			if (!first)
				sb_addc(&sb, '\n');
			sb_add(&sb, p->buf + p->tok.start + 2, p->tok.end - p->tok.start - 2);
			node->end = p->tok.end;
			advance(p);
		}
	}
	node->kind = ZON_STRING;
	node->len = sb.len;
	node->str = sb_detach(&sb);
	return p->failed ? -1 : 0;
}

static int parse_int(struct parser *p, struct zon_node *node)
{
	bool negative = p->tok.kind == T_MINUS;
	char desc[64];
	if (negative) {
		advance(p);
		if (p->tok.kind != T_INT)
			return fail(p, p->tok.start, "expected an integer after '-', found %s",
			            describe_tok(p, &p->tok, desc, sizeof(desc)));
	}
	uint64_t limit = negative ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	if (p->tok.overflow || p->tok.u > limit)
		return fail(p, node->start, "integer does not fit in 64 bits");
	node->kind = ZON_INT;
	node->ival = negative ? (long long)(0 - p->tok.u) : (long long)p->tok.u;
	node->end = p->tok.end;
	advance(p);
	return p->failed ? -1 : 0;
}

/* A word that means a boolean in other config formats (yes, on, True):
 * the ZON spelling it stands for, so the hint says true, not "yes". */
static const char *bool_meant(const char *s, size_t n)
{
	static const char *const yes[] = {"yes", "on",  "y",  "True", "TRUE",
	                                  "Yes", "YES", "On", "ON"};
	static const char *const no[] = {"no", "off", "n",   "False", "FALSE",
	                                 "No", "NO",  "Off", "OFF"};
	for (size_t i = 0; i < sizeof(yes) / sizeof(*yes); i++) {
		if (strlen(yes[i]) == n && memcmp(yes[i], s, n) == 0)
			return "true";
		if (strlen(no[i]) == n && memcmp(no[i], s, n) == 0)
			return "false";
	}
	return NULL;
}

static int parse_value(struct parser *p, struct zon_node *node, int depth)
{
	char desc[64];
	node->line = p->tok.line;
	node->col = p->tok.col;
	node->start = p->tok.start;
	switch (p->tok.kind) {
	case T_DOT:
		advance(p);
		if (p->tok.kind == T_LBRACE)
			return parse_container(p, node, depth + 1);
		if (p->tok.kind == T_IDENT || p->tok.kind == T_AT_STRING) {
			node->kind = ZON_ENUM;
			if (!(node->str = token_name(p, &p->tok)))
				return -1;
			node->len = strlen(node->str);
			node->end = p->tok.end;
			advance(p);
			return p->failed ? -1 : 0;
		}
		return fail(p, p->tok.start, "expected '{' or a name after '.', found %s",
		            describe_tok(p, &p->tok, desc, sizeof(desc)));
	case T_STRING:
	case T_MLSTRING: return parse_string(p, node);
	case T_INT:
	case T_MINUS: return parse_int(p, node);
	case T_CHAR:
		node->kind = ZON_INT;
		node->ival = (long long)p->tok.u;
		node->end = p->tok.end;
		advance(p);
		return p->failed ? -1 : 0;
	case T_IDENT: {
		const char *s = p->buf + p->tok.start;
		size_t n = p->tok.end - p->tok.start;
		node->end = p->tok.end;
		if (n == 4 && !memcmp(s, "true", 4)) {
			node->kind = ZON_BOOL, node->bval = true;
		} else if (n == 5 && !memcmp(s, "false", 5)) {
			node->kind = ZON_BOOL, node->bval = false;
		} else if (n == 4 && !memcmp(s, "null", 4)) {
			node->kind = ZON_NULL;
		} else {
			int shown = n > 40 ? 40 : (int)n;
			const char *boolean = bool_meant(s, n);
			if (boolean)
				return fail(p, p->tok.start,
				            "expected a value, found '%.*s' (did you mean %s?)",
				            shown, s, boolean);
			return fail(
			    p, p->tok.start,
			    "expected a value, found '%.*s' (strings need double quotes: \"%.*s\")",
			    shown, s, shown, s);
		}
		advance(p);
		return p->failed ? -1 : 0;
	}
	case T_ERROR: return -1;
	default:
		return fail(p, p->tok.start, "expected a value, found %s",
		            describe_tok(p, &p->tok, desc, sizeof(desc)));
	}
}

static void free_node(struct zon_node *n)
{
	for (size_t i = 0; i < n->nitems; i++)
		free_node(&n->items[i]);
	free(n->items);
	free(n->name);
	free(n->str);
}

void zon_free(struct zon_node *root)
{
	if (root) {
		free_node(root);
		free(root);
	}
}

int zon_parse(const char *buf, size_t len, struct zon_node **root, struct zon_diag *diag)
{
	struct parser p = {.buf = buf, .len = len, .lx = {.line = 1}, .diag = diag};
	memset(diag, 0, sizeof(*diag));
	*root = NULL;
	if (len > ZON_MAX_SIZE)
		return fail(&p, 0, "file is larger than %d bytes", ZON_MAX_SIZE);
	const char *nul = memchr(buf, '\0', len);
	if (nul)
		return fail(&p, (size_t)(nul - buf), "NUL byte in file");
	if (len >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3))
		p.lx.pos = 3; /* a byte order mark, as Zig allows */
	advance(&p);
	if (p.tok.kind == T_EOF)
		return 0;
	struct zon_node *n = xcalloc(1, sizeof(*n));
	n->comma = ZON_NONE;
	char desc[64];
	if (parse_value(&p, n, 0) == 0 && p.tok.kind != T_EOF)
		fail(&p, p.tok.start, "expected end of file after the value, found %s",
		     describe_tok(&p, &p.tok, desc, sizeof(desc)));
	if (p.failed) {
		zon_free(n);
		return -1;
	}
	n->item_start = n->start;
	*root = n;
	return 0;
}

const struct zon_node *zon_field(const struct zon_node *node, const char *name)
{
	if (!node || node->kind != ZON_STRUCT)
		return NULL;
	for (size_t i = 0; i < node->nitems; i++)
		if (!strcmp(node->items[i].name, name))
			return &node->items[i];
	return NULL;
}

const char *zon_describe(const struct zon_node *node)
{
	switch (node->kind) {
	case ZON_STRUCT: return node->nitems ? "a struct" : "an empty '.{}'";
	case ZON_TUPLE: return "a list";
	case ZON_STRING: return "a string";
	case ZON_INT: return "an integer";
	case ZON_BOOL: return node->bval ? "'true'" : "'false'";
	case ZON_NULL: return "'null'";
	case ZON_ENUM: return "an enum literal";
	}
	return "a value";
}

void zon_quote(struct strbuf *sb, const char *s, size_t len)
{
	bool utf8 = zon_utf8_valid(s, len);
	sb_addc(sb, '"');
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\')
			sb_addf(sb, "\\%c", c);
		else if (c == '\n')
			sb_adds(sb, "\\n");
		else if (c == '\r')
			sb_adds(sb, "\\r");
		else if (c == '\t')
			sb_adds(sb, "\\t");
		else if (c < 0x20 || c == 0x7f || (c >= 0x80 && !utf8))
			sb_addf(sb, "\\x%02x", c);
		else
			sb_addc(sb, (char)c);
	}
	sb_addc(sb, '"');
}

void zon_field_display(struct strbuf *sb, const char *name)
{
	enum { MAX = 48 };
	size_t len = strlen(name);
	bool ident = len > 0 && is_ident_start(name[0]);
	for (size_t i = 1; ident && i < len; i++)
		ident = is_ident_char(name[i]);
	size_t shown = len > MAX ? MAX : len;
	if (ident) {
		sb_addc(sb, '.');
		sb_add(sb, name, shown);
	} else {
		sb_adds(sb, ".@");
		zon_quote(sb, name, shown);
	}
	if (shown < len)
		sb_adds(sb, "...");
}
