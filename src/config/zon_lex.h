/* What zon.c's parser and zon_lex.c's lexer share: the tokens, the
 * lexer's state, the parser's, and the one way to fail. Private to
 * src/config/. */
#ifndef MOAT_CONFIG_ZON_LEX_H
#define MOAT_CONFIG_ZON_LEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/strbuf.h"
#include "config/zon.h"

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

/* Record the first error at offset (its line and column worked out
 * once, here) and return -1; later ones are dropped. */
__attribute__((format(printf, 3, 4))) int zon_fail(struct parser *p, size_t offset, const char *fmt,
                                                   ...);
/* The token at lx into t, lx moved past it; T_ERROR after zon_fail. */
void zon_lex(struct parser *p, struct lexer *lx, struct token *t);
/* A "..." literal starting at the quote at; decoded into out when given,
 * its end (past the closing quote) in *end. */
int zon_scan_string(struct parser *p, size_t at, struct strbuf *out, size_t *end);
bool zon_is_ident_start(char c);
bool zon_is_ident_char(char c);

#endif
