/* ZON (Zig Object Notation), the format of config.zon: a buffer in, a tree
 * out. Pure: no I/O, never exits, and malformed input of any kind gives a
 * diagnostic rather than a crash. Every node keeps its position and byte
 * span so that edit.c can change a file without disturbing the rest of it. */
#ifndef MOAT_CONFIG_ZON_H
#define MOAT_CONFIG_ZON_H

#include <stdbool.h>
#include <stddef.h>

#include "base/strbuf.h"

#define ZON_MAX_SIZE  (1024 * 1024)
#define ZON_MAX_DEPTH 64
/* zon_node.comma when no comma follows an item. */
#define ZON_NONE ((size_t)-1)

enum zon_kind {
	ZON_STRUCT, /* .{ .a = 1 }, and the empty .{} (which also serves as an empty list) */
	ZON_TUPLE,  /* .{ "a", "b" } */
	ZON_STRING, /* "..." or \\ lines */
	ZON_INT,    /* 42, -0x2a, 'x' */
	ZON_BOOL,
	ZON_NULL,
	ZON_ENUM, /* .name */
};

struct zon_node {
	enum zon_kind kind;
	int line, col;     /* where the value starts, 1-based; col counts bytes */
	size_t start, end; /* the value is buf[start, end): '.' to '}' for containers */

	/* As an item of a container. */
	char *name;              /* decoded field name in a struct, NULL otherwise */
	int name_line, name_col; /* of the '.' that starts ".name =" */
	size_t item_start;       /* that '.' for a field, start for a tuple item or the root */
	size_t comma;            /* offset of the ',' after the item, or ZON_NONE */

	char *str;  /* STRING: decoded bytes, NUL-terminated (may hold NULs); ENUM: the name */
	size_t len; /* length of str */
	long long ival;
	bool bval;
	struct zon_node *items; /* STRUCT and TUPLE */
	size_t nitems;
};

struct zon_diag {
	int line, col;
	size_t offset;
	char msg[256]; /* lowercase, no position, no final full stop */
};

/* Parse buf[0, len). On success returns 0 and sets *root; a document with no
 * value (empty, or only comments and blank lines) gives *root == NULL. On
 * failure returns -1, sets *root to NULL and fills *diag with the first error. */
int zon_parse(const char *buf, size_t len, struct zon_node **root, struct zon_diag *diag);
void zon_free(struct zon_node *root);

/* The first field called name in a struct, or NULL. */
const struct zon_node *zon_field(const struct zon_node *node, const char *name);

/* "a string", "a list", "an empty '.{}'"... for messages like "found %s". */
const char *zon_describe(const struct zon_node *node);

/* Append s as a Zig string literal, quotes included, escaping what needs it. */
void zon_quote(struct strbuf *sb, const char *s, size_t len);

/* Append a field name as written in ZON: ".name", or ".@\"...\"" when it is
 * not a plain identifier. Long names are shortened (for messages). */
void zon_field_display(struct strbuf *sb, const char *name);

/* Whether buf[0, len) is well-formed UTF-8 (no overlongs, no surrogates). */
bool zon_utf8_valid(const char *buf, size_t len);

#endif
