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
#include "config/zon_lex.h"

static void advance(struct parser *p)
{
	zon_lex(p, &p->lx, &p->tok);
}

/* The kinds of the two tokens after the current one. */
static void peek2(struct parser *p, enum tok *k1, enum tok *k2)
{
	struct lexer copy = p->lx;
	struct token t;
	zon_lex(p, &copy, &t);
	*k1 = t.kind;
	zon_lex(p, &copy, &t);
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
	zon_scan_string(p, t->start + 1, &sb, &end);
	if (sb.len == 0 || memchr(sb.buf, '\0', sb.len)) {
		zon_fail(p, t->start,
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
		return zon_fail(p, node->start, "nesting deeper than %d levels", ZON_MAX_DEPTH);
	advance(p);
	while (p->tok.kind != T_RBRACE) {
		if (p->failed)
			return -1;
		if (p->tok.kind == T_EOF)
			return zon_fail(p, p->tok.start,
			                "end of file inside the '.{' opened at %d:%d", node->line,
			                node->col);
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
				zon_lex(p, &copy, &t);
				zon_lex(p, &copy, &t);
				return zon_fail(p, t.start,
				                "expected '=' after the field name, found %s",
				                describe_tok(p, &t, desc, sizeof(desc)));
			}
			return zon_fail(p, p->tok.start,
			                "expected a field '.name = value', found %s",
			                describe_tok(p, &p->tok, desc, sizeof(desc)));
		}
		if (mode == VALUES && is_field)
			return zon_fail(
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
			return zon_fail(p, p->tok.start,
			                "end of file inside the '.{' opened at %d:%d", node->line,
			                node->col);
		} else if (p->tok.kind != T_RBRACE) {
			return zon_fail(p, p->tok.start,
			                "expected ',' or '}' after an item, found %s",
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
		zon_scan_string(p, p->tok.start, &sb, &end);
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
			return zon_fail(p, p->tok.start, "expected an integer after '-', found %s",
			                describe_tok(p, &p->tok, desc, sizeof(desc)));
	}
	uint64_t limit = negative ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	if (p->tok.overflow || p->tok.u > limit)
		return zon_fail(p, node->start, "integer does not fit in 64 bits");
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
		return zon_fail(p, p->tok.start, "expected '{' or a name after '.', found %s",
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
				return zon_fail(p, p->tok.start,
				                "expected a value, found '%.*s' (did you mean %s?)",
				                shown, s, boolean);
			return zon_fail(
			    p, p->tok.start,
			    "expected a value, found '%.*s' (strings need double quotes: \"%.*s\")",
			    shown, s, shown, s);
		}
		advance(p);
		return p->failed ? -1 : 0;
	}
	case T_ERROR: return -1;
	default:
		return zon_fail(p, p->tok.start, "expected a value, found %s",
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
		return zon_fail(&p, 0, "file is larger than %d bytes", ZON_MAX_SIZE);
	const char *nul = memchr(buf, '\0', len);
	if (nul)
		return zon_fail(&p, (size_t)(nul - buf), "NUL byte in file");
	if (len >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3))
		p.lx.pos = 3; /* a byte order mark, as Zig allows */
	advance(&p);
	if (p.tok.kind == T_EOF)
		return 0;
	struct zon_node *n = xcalloc(1, sizeof(*n));
	n->comma = ZON_NONE;
	char desc[64];
	if (parse_value(&p, n, 0) == 0 && p.tok.kind != T_EOF)
		zon_fail(&p, p.tok.start, "expected end of file after the value, found %s",
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
	bool ident = len > 0 && zon_is_ident_start(name[0]);
	for (size_t i = 1; ident && i < len; i++)
		ident = zon_is_ident_char(name[i]);
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
