/* The SBPL renderer (see sbpl.h for the mapping) and a reader for its own
 * output, used by the tests to check the rendering against the model. */
#include "sandbox/sbpl.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "base/path.h"

/* ---- rendering ---------------------------------------------------------- */

/* The model does not say whether a path is a file or a directory. Devices and
 * terminals are files by construction, so they get (literal ...); every other
 * rule gets (subpath ...), which also matches a file of exactly that name
 * (nothing can lie beneath a file), so it is right for both. */
static bool rule_is_literal(const struct rule *r)
{
	return r->origin == ORIGIN_DEVICE || r->origin == ORIGIN_TERMINAL;
}

static bool rule_is_root(const struct profile *p, const struct rule *r)
{
	return r->origin == ORIGIN_ROOT && strcmp(r->path, p->root) == 0;
}

/* The operations that access amounts to on one path. A subpath is a
 * directory, so write means everything under it: file* (create, remove,
 * rename, ...). A literal is a device, so write means its data only: an open
 * for writing, never unlinking or re-moding the node, which is also what a
 * Landlock rule on a file can grant. file* implies neither process-exec nor
 * file-map-executable, so exec always names both. */
static void render_ops(struct strbuf *sb, unsigned access, bool literal)
{
	const char *sep = "";
	if ((access & ACCESS_RW) == ACCESS_RW && !literal) {
		sb_adds(sb, "file*");
		sep = " ";
	} else {
		if (access & ACCESS_READ) {
			sb_adds(sb, "file-read*");
			sep = " ";
		}
		if (access & ACCESS_WRITE) {
			sb_addf(sb, "%s%s", sep, literal ? "file-write-data" : "file-write*");
			sep = " ";
		}
	}
	if (access & ACCESS_IOCTL) {
		sb_addf(sb, "%sfile-ioctl", sep);
		sep = " ";
	}
	if (access & ACCESS_EXEC)
		sb_addf(sb, "%sprocess-exec file-map-executable", sep);
}

/* Rules are grouped by what they grant, broadest first, so the profile reads
 * as a list of levels. A group is (level, literal, ioctl); groups are rendered
 * in index order and rules within one in model order, so the output depends
 * only on the profile. */
static const unsigned level_order[] = {
    ACCESS_ALL,   ACCESS_RX,   ACCESS_RW, ACCESS_READ, ACCESS_WRITE | ACCESS_EXEC,
    ACCESS_WRITE, ACCESS_EXEC, 0,
};

#define NGROUPS (ARRAY_LEN(level_order) * 4)

static size_t group_of(const struct rule *r)
{
	size_t rank = ARRAY_LEN(level_order) - 1;
	for (size_t i = 0; i < ARRAY_LEN(level_order); i++) {
		if ((r->access & ACCESS_ALL) == level_order[i]) {
			rank = i;
			break;
		}
	}
	return rank * 4 + (rule_is_literal(r) ? 2 : 0) + ((r->access & ACCESS_IOCTL) ? 1 : 0);
}

/* A name from config.zon in a comment: a newline would end the comment and
 * let the rest be read as SBPL, so control characters become '?'. */
static void add_comment_text(struct strbuf *sb, const char *s)
{
	for (const unsigned char *c = (const unsigned char *)s; *c; c++)
		sb_addc(sb, (*c < 0x20 || *c == 0x7f) ? '?' : (char)*c);
}

static void render_rule_comment(struct strbuf *sb, const struct rule *r)
{
	sb_addf(sb, " ; %s", origin_name(r->origin));
	if (r->origin == ORIGIN_GRANT && r->bin) {
		if (strcmp(r->bin, "*") == 0) {
			sb_adds(sb, " for every binary");
		} else {
			sb_adds(sb, " for ");
			add_comment_text(sb, r->bin);
		}
	}
}

static void render_group(struct strbuf *sb, const struct profile *p, size_t group)
{
	size_t count = 0, last = 0;
	for (size_t i = 0; i < p->nrules; i++) {
		const struct rule *r = &p->rules[i];
		if (!rule_is_root(p, r) && (r->access & (ACCESS_ALL | ACCESS_IOCTL)) &&
		    group_of(r) == group) {
			count++;
			last = i;
		}
	}
	if (count == 0)
		return;

	const struct rule *first = NULL;
	for (size_t i = 0; i <= last; i++) {
		const struct rule *r = &p->rules[i];
		if (rule_is_root(p, r) || !(r->access & (ACCESS_ALL | ACCESS_IOCTL)) ||
		    group_of(r) != group)
			continue;
		bool literal = rule_is_literal(r);
		if (!first) {
			first = r;
			sb_addf(sb, "\n; %s%s, %s\n(allow ", access_name(r->access),
			        (r->access & ACCESS_IOCTL) ? " + ioctl" : "",
			        literal ? "these files only" : "each path and everything under it");
			render_ops(sb, r->access, literal);
			sb_addc(sb, '\n');
		}
		sb_addf(sb, "\t(%s \"%s\")%s", literal ? "literal" : "subpath", r->path,
		        i == last ? ")" : "");
		render_rule_comment(sb, r);
		sb_addc(sb, '\n');
	}
}

/* path for an error message: control characters shown as escapes, so that
 * the message cannot rewrite the terminal it is printed on. */
static void add_shown_path(struct strbuf *sb, const char *path)
{
	for (const unsigned char *c = (const unsigned char *)path; *c; c++) {
		if (*c == '\n')
			sb_adds(sb, "\\n");
		else if (*c == '\t')
			sb_adds(sb, "\\t");
		else if (*c < 0x20 || *c == 0x7f)
			sb_addf(sb, "\\x%02x", *c);
		else
			sb_addc(sb, (char)*c);
	}
}

/* SBPL strings cannot carry quotes, backslashes or control characters
 * safely, and the sandbox compares canonical paths, so a relative path, a
 * ".." or "." component or a stray slash would compile to a rule that
 * silently matches nothing. */
static int check_path(const char *what, const char *path, struct error *err)
{
	const char *why = path_refusal(path);
	cleanup_free char *normal = NULL;
	if (!why) {
		normal = path_normalize(path);
		if (strcmp(normal, path) != 0)
			why = "it is not in normal form (a '.' component, a repeated or trailing "
			      "slash)";
	}
	if (!why)
		return 0;
	struct strbuf shown = STRBUF_INIT;
	add_shown_path(&shown, path);
	error_set(err, "cannot render the %s path '%s' as SBPL: %s", what, sb_str(&shown), why);
	error_hint(err,
	           "sandbox rules need canonical absolute paths without quotes, backslashes or "
	           "control characters");
	sb_release(&shown);
	return -1;
}

static int check_paths(const struct profile *p, struct error *err)
{
	if (!p->root)
		return error_set(err, "cannot render a profile without a root as SBPL");
	if (check_path("root", p->root, err) < 0)
		return -1;
	for (size_t i = 0; i < p->nrules; i++)
		if (check_path(origin_name(p->rules[i].origin), p->rules[i].path, err) < 0)
			return -1;
	for (size_t i = 0; i < p->njailbreaks; i++)
		if (check_path("jailbreak", p->jailbreaks[i], err) < 0)
			return -1;
	return 0;
}

static void render_header(struct strbuf *sb, const struct profile *p)
{
	sb_adds(sb,
	        "; moat sandbox profile for macOS (Seatbelt), rendered from the profile model.\n"
	        "; The compiler is given these parameters:\n");
	struct sbpl_param params[SBPL_MAX_PARAMS];
	size_t n = sbpl_params(p, params);
	for (size_t i = 0; i < n; i++)
		sb_addf(sb, ";   %s=%s\n", params[i].name, params[i].value);
	sb_adds(sb, "; To try it by hand: sandbox-exec -D " SBPL_ROOT_PARAM
	            "=<root> -f <this file> <command>\n");
	if (p->platform == PLATFORM_LINUX)
		sb_adds(
		    sb,
		    "; Note: this profile was built for Linux; its system paths are Linux's.\n");
	sb_adds(sb,
	        "(version 1)\n"
	        "(deny default)\n"
	        "; dyld, sysctl and mach-lookup plumbing; it grants no data reads under /Users\n"
	        "(import \"bsd.sb\")\n"
	        "\n"
	        "; processes may fork, and signal only processes in this sandbox\n"
	        "(allow process-fork)\n"
	        "(allow signal (target same-sandbox))\n"
	        "(allow sysctl-read)\n");
}

static void render_root(struct strbuf *sb, const struct profile *p)
{
	for (size_t i = 0; i < p->nrules; i++) {
		const struct rule *r = &p->rules[i];
		if (!rule_is_root(p, r) || !(r->access & (ACCESS_ALL | ACCESS_IOCTL)))
			continue;
		sb_addf(sb, "\n; the project root: %s%s\n(allow ", access_name(r->access),
		        (r->access & ACCESS_EXEC) ? ", so what is built there runs" : "");
		render_ops(sb, r->access, false);
		sb_adds(sb, " (subpath (param \"" SBPL_ROOT_PARAM "\")))\n");
	}
}

int sbpl_render(const struct profile *p, struct strbuf *out, struct error *err)
{
	if (check_paths(p, err) < 0)
		return -1;

	struct strbuf sb = STRBUF_INIT;
	render_header(&sb, p);
	render_root(&sb, p);
	for (size_t g = 0; g < NGROUPS; g++)
		render_group(&sb, p, g);
	if (p->network)
		sb_adds(&sb, "\n; network: open by design; the sandbox limits what can be read, "
		             "not where it is sent\n(allow network*)\n");
	if (p->njailbreaks)
		sb_adds(&sb, "\n; jailbreaks: these binaries, and everything they run, are not "
		             "sandboxed at all\n");
	for (size_t i = 0; i < p->njailbreaks; i++)
		sb_addf(&sb, "(allow process-exec (literal \"%s\") (with no-sandbox))\n",
		        p->jailbreaks[i]);

	sb_add(out, sb.buf, sb.len);
	sb_release(&sb);
	return 0;
}

size_t sbpl_params(const struct profile *p, struct sbpl_param params[SBPL_MAX_PARAMS])
{
	if (!p->root)
		return 0;
	params[0] = (struct sbpl_param){SBPL_ROOT_PARAM, p->root};
	return 1;
}

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

/* ---- compile errors ----------------------------------------------------- */

static unsigned number_at(const char *s)
{
	if (*s < '0' || *s > '9')
		return 0;
	char *end;
	unsigned long n = strtoul(s, &end, 10);
	return n > UINT_MAX ? 0 : (unsigned)n;
}

unsigned sbpl_error_line(const char *message)
{
	static const char *const markers[] = {", line ", "<input string>:"};
	for (size_t i = 0; i < ARRAY_LEN(markers); i++) {
		const char *at = strstr(message, markers[i]);
		if (at)
			return number_at(at + strlen(markers[i]));
	}
	return 0;
}

char *sbpl_line(const char *text, unsigned n)
{
	if (n == 0)
		return NULL;
	for (unsigned line = 1; line < n; line++) {
		text = strchr(text, '\n');
		if (!text)
			return NULL;
		text++;
	}
	if (*text == '\0')
		return NULL;
	return xstrndup(text, strcspn(text, "\n"));
}
