#include "sbpl_reader.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "profile/profile.h"

/* ---- reading it back ---------------------------------------------------- */

enum token { TOK_EOF, TOK_OPEN, TOK_CLOSE, TOK_STRING, TOK_SYMBOL, TOK_BAD };

struct reader {
	const char *s;
	unsigned line;
	const char *text; /* of the last string or symbol */
	size_t len;
};

static enum token next_token(struct reader *rd)
{
	for (;;) {
		while (*rd->s == ' ' || *rd->s == '\t' || *rd->s == '\n' || *rd->s == '\r') {
			if (*rd->s == '\n')
				rd->line++;
			rd->s++;
		}
		if (*rd->s != ';')
			break;
		while (*rd->s && *rd->s != '\n')
			rd->s++;
	}
	char c = *rd->s;
	if (c == '\0')
		return TOK_EOF;
	if (c == '(' || c == ')') {
		rd->s++;
		return c == '(' ? TOK_OPEN : TOK_CLOSE;
	}
	if (c == '"' || (c == '#' && rd->s[1] == '"')) {
		const char *start = rd->s + (c == '#' ? 2 : 1);
		const char *end = start;
		while (*end && *end != '"' && *end != '\\' && *end != '\n')
			end++;
		if (*end != '"')
			return TOK_BAD; /* sbpl_render never writes escapes or multi-line strings */
		rd->text = start;
		rd->len = (size_t)(end - start);
		rd->s = end + 1;
		return c == '#' ? TOK_BAD : TOK_STRING; /* nor regexes */
	}
	const char *start = rd->s;
	while (*rd->s && !strchr(" \t\r\n();\"", *rd->s))
		rd->s++;
	rd->text = start;
	rd->len = (size_t)(rd->s - start);
	return TOK_SYMBOL;
}

static bool token_is(const struct reader *rd, const char *word)
{
	return rd->len == strlen(word) && memcmp(rd->text, word, rd->len) == 0;
}

/* Skip to the parenthesis that closes the list whose head was just read. */
static int skip_list(struct reader *rd)
{
	for (int depth = 1; depth > 0;) {
		switch (next_token(rd)) {
		case TOK_OPEN: depth++; break;
		case TOK_CLOSE: depth--; break;
		case TOK_EOF:
		case TOK_BAD: return -1;
		default: break;
		}
	}
	return 0;
}

enum op_bit {
	OP_FILE_ALL = 1u << 0,   /* file* */
	OP_READ = 1u << 1,       /* file-read* */
	OP_WRITE_ALL = 1u << 2,  /* file-write* */
	OP_WRITE_DATA = 1u << 3, /* file-write-data */
	OP_IOCTL = 1u << 4,      /* file-ioctl */
	OP_EXEC = 1u << 5,       /* process-exec */
	OP_MAP = 1u << 6,        /* file-map-executable */
	OP_OTHER = 1u << 7,      /* anything else (network*, process-fork, ...) */
};

static unsigned op_bit_of(const struct reader *rd)
{
	static const struct {
		const char *name;
		unsigned bit;
	} ops[] = {
	    {"file*", OP_FILE_ALL},          {"file-read*", OP_READ},
	    {"file-write*", OP_WRITE_ALL},   {"file-write-data", OP_WRITE_DATA},
	    {"file-ioctl", OP_IOCTL},        {"process-exec", OP_EXEC},
	    {"file-map-executable", OP_MAP},
	};
	for (size_t i = 0; i < ARRAY_LEN(ops); i++)
		if (token_is(rd, ops[i].name))
			return ops[i].bit;
	return OP_OTHER;
}

struct path_filter {
	char *path;
	bool literal;
};

/* One form: (allow|deny op... filter...), its head already read. */
struct form {
	bool deny;
	unsigned ops;
	char other_op[64]; /* the first operation outside enum op_bit, for messages */
	bool no_sandbox;
	bool other_filter;
	struct path_filter *paths;
	size_t npaths;
};

static void form_free(struct form *f)
{
	for (size_t i = 0; i < f->npaths; i++)
		free(f->paths[i].path);
	free(f->paths);
}

static int read_filter(struct reader *rd, struct form *f, const struct sbpl_param *params,
                       size_t nparams, struct error *err)
{
	if (next_token(rd) != TOK_SYMBOL)
		return error_set(err, "sbpl:%u: a filter must start with a name", rd->line);
	bool literal = token_is(rd, "literal");
	if (literal || token_is(rd, "subpath")) {
		char *path = NULL;
		enum token t = next_token(rd);
		if (t == TOK_STRING) {
			path = xstrndup(rd->text, rd->len);
		} else if (t == TOK_OPEN && next_token(rd) == TOK_SYMBOL && token_is(rd, "param") &&
		           next_token(rd) == TOK_STRING) {
			for (size_t i = 0; i < nparams && !path; i++)
				if (token_is(rd, params[i].name))
					path = xstrdup(params[i].value);
			if (!path)
				return error_set(err, "sbpl:%u: unknown parameter '%.*s'", rd->line,
				                 (int)rd->len, rd->text);
			if (next_token(rd) != TOK_CLOSE) {
				free(path);
				return error_set(err, "sbpl:%u: (param ...) takes one name",
				                 rd->line);
			}
		} else {
			return error_set(
			    err, "sbpl:%u: a path filter takes a string or (param \"NAME\")",
			    rd->line);
		}
		f->paths = xrealloc_array(f->paths, f->npaths + 1, sizeof(*f->paths));
		f->paths[f->npaths++] = (struct path_filter){path, literal};
		if (next_token(rd) != TOK_CLOSE)
			return error_set(err, "sbpl:%u: a path filter takes one path", rd->line);
		return 0;
	}
	if (token_is(rd, "with")) {
		if (next_token(rd) != TOK_SYMBOL || !token_is(rd, "no-sandbox") ||
		    next_token(rd) != TOK_CLOSE)
			return error_set(err,
			                 "sbpl:%u: sbpl_render writes no (with ...) but no-sandbox",
			                 rd->line);
		f->no_sandbox = true;
		return 0;
	}
	f->other_filter = true;
	if (skip_list(rd) < 0)
		return error_set(err, "sbpl:%u: unbalanced filter", rd->line);
	return 0;
}

static int read_form(struct reader *rd, struct form *f, const struct sbpl_param *params,
                     size_t nparams, struct error *err)
{
	for (;;) {
		switch (next_token(rd)) {
		case TOK_SYMBOL: {
			unsigned bit = op_bit_of(rd);
			if (bit == OP_OTHER && !f->other_op[0])
				fmt_fits(f->other_op, sizeof(f->other_op), "%.*s", (int)rd->len,
				         rd->text);
			f->ops |= bit;
			break;
		}
		case TOK_OPEN:
			if (read_filter(rd, f, params, nparams, err) < 0)
				return -1;
			break;
		case TOK_CLOSE: return 0;
		case TOK_STRING:
			return error_set(err, "sbpl:%u: a string outside a filter", rd->line);
		case TOK_EOF:
		case TOK_BAD:
			return error_set(err, "sbpl:%u: unterminated or malformed form", rd->line);
		}
	}
}

/* What a form with path filters grants, as access bits; -1 for anything
 * sbpl_render() would not have written. */
static int form_access(const struct form *f, unsigned line, unsigned *access, struct error *err)
{
	if (f->deny)
		return error_set(err, "sbpl:%u: sbpl_render writes no deny rule with a path", line);
	if (f->other_filter)
		return error_set(err, "sbpl:%u: a path rule with another kind of filter", line);
	if (f->ops & OP_OTHER)
		return error_set(err, "sbpl:%u: unexpected operation '%s' on a path", line,
		                 f->other_op);
	if (f->no_sandbox) {
		if (f->ops != OP_EXEC)
			return error_set(
			    err, "sbpl:%u: (with no-sandbox) on more than process-exec", line);
		*access = ACCESS_EXEC;
		return 0;
	}
	if (!(f->ops & OP_EXEC) != !(f->ops & OP_MAP))
		return error_set(err, "sbpl:%u: process-exec and file-map-executable come apart",
		                 line);
	*access = ((f->ops & OP_FILE_ALL) ? ACCESS_RW : 0) |
	          ((f->ops & OP_READ) ? ACCESS_READ : 0) |
	          ((f->ops & (OP_WRITE_ALL | OP_WRITE_DATA)) ? ACCESS_WRITE : 0) |
	          ((f->ops & OP_IOCTL) ? ACCESS_IOCTL : 0) | ((f->ops & OP_EXEC) ? ACCESS_EXEC : 0);
	for (size_t i = 0; i < f->npaths; i++) {
		bool literal = f->paths[i].literal;
		if (literal && (f->ops & (OP_FILE_ALL | OP_WRITE_ALL)))
			return error_set(err, "sbpl:%u: file* or file-write* on a literal", line);
		if (!literal && (f->ops & OP_WRITE_DATA))
			return error_set(err, "sbpl:%u: file-write-data on a subpath", line);
	}
	return 0;
}

static void add_grant(struct sbpl_grant **out, size_t *n, const struct path_filter *pf,
                      unsigned access, bool no_sandbox)
{
	for (size_t i = 0; i < *n; i++) {
		struct sbpl_grant *g = &(*out)[i];
		if (strcmp(g->path, pf->path) == 0 && g->literal == pf->literal &&
		    g->no_sandbox == no_sandbox) {
			g->access |= access;
			return;
		}
	}
	*out = xrealloc_array(*out, *n + 1, sizeof(**out));
	(*out)[(*n)++] = (struct sbpl_grant){xstrdup(pf->path), access, pf->literal, no_sandbox};
}

int sbpl_grants(const char *sbpl, const struct sbpl_param *params, size_t nparams,
                struct sbpl_grant **out, size_t *nout, struct error *err)
{
	struct reader rd = {.s = sbpl, .line = 1};
	*out = NULL;
	*nout = 0;
	for (;;) {
		enum token t = next_token(&rd);
		if (t == TOK_EOF)
			return 0;
		if (t != TOK_OPEN || next_token(&rd) != TOK_SYMBOL) {
			error_set(err, "sbpl:%u: expected a form", rd.line);
			goto fail;
		}
		bool allow = token_is(&rd, "allow");
		if (!allow && !token_is(&rd, "deny")) {
			if (skip_list(&rd) < 0) {
				error_set(err, "sbpl:%u: unbalanced form", rd.line);
				goto fail;
			}
			continue;
		}
		unsigned line = rd.line, access = 0;
		struct form f = {.deny = !allow};
		int rc = read_form(&rd, &f, params, nparams, err);
		if (rc == 0 && f.npaths)
			rc = form_access(&f, line, &access, err);
		for (size_t i = 0; rc == 0 && i < f.npaths; i++)
			add_grant(out, nout, &f.paths[i], access, f.no_sandbox);
		form_free(&f);
		if (rc < 0)
			goto fail;
	}
fail:
	sbpl_grants_free(*out, *nout);
	*out = NULL;
	*nout = 0;
	return -1;
}

void sbpl_grants_free(struct sbpl_grant *grants, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(grants[i].path);
	free(grants);
}
