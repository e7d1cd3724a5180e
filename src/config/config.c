/* The config.zon schema, checked strictly: a typo in a security file must be
 * loud, so unknown keys, duplicate keys and wrong types are all errors that
 * point at the offending token. */
#include "config/config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/path.h"
#include "profile/secrets.h"

struct checker {
	const char *file;
	struct error *err;
};

__attribute__((format(printf, 4, 5))) static int bad(struct checker *c, int line, int col,
                                                     const char *fmt, ...)
{
	/* Whole, on the heap: error_set alone cuts, and keeps the tail (the
	 * reason after a long value). */
	va_list ap;
	va_start(ap, fmt);
	char *msg = xvasprintf(fmt, ap);
	va_end(ap);
	error_set(c->err, "%s:%d:%d: %s", c->file, line, col, msg);
	free(msg);
	return -1;
}

static bool is_list(const struct zon_node *n)
{
	return n->kind == ZON_TUPLE || (n->kind == ZON_STRUCT && n->nitems == 0);
}

/* Checks that every field of s is one of keys (NULL-terminated) and none is
 * given twice; found[i] is the field for keys[i], or NULL. */
static int check_fields(struct checker *c, const struct zon_node *s, const char *const *keys,
                        const struct zon_node **found, const char *where)
{
	size_t nkeys = 0;
	while (keys[nkeys])
		nkeys++;
	memset(found, 0, nkeys * sizeof(*found));
	for (size_t i = 0; i < s->nitems; i++) {
		const struct zon_node *f = &s->items[i];
		size_t k = 0;
		while (k < nkeys && strcmp(keys[k], f->name) != 0)
			k++;
		struct strbuf name = STRBUF_INIT;
		zon_field_display(&name, f->name);
		int rc = 0;
		if (k == nkeys) {
			rc = bad(c, f->name_line, f->name_col, "unknown key '%s' in %s", name.buf,
			         where);
			struct strbuf known = STRBUF_INIT;
			for (size_t j = 0; j < nkeys; j++)
				sb_addf(&known, "%s.%s", j ? ", " : "", keys[j]);
			error_hint(c->err, "the keys %s can have are %s", where, known.buf);
			sb_release(&known);
		} else if (found[k]) {
			rc = bad(c, f->name_line, f->name_col,
			         "duplicate key '%s' in %s (first at %d:%d)", name.buf, where,
			         found[k]->name_line, found[k]->name_col);
		}
		sb_release(&name);
		if (rc < 0)
			return -1;
		found[k] = f;
	}
	return 0;
}

static int read_string(struct checker *c, const struct zon_node *v, const char *key, char **out)
{
	if (v->kind != ZON_STRING)
		return bad(c, v->line, v->col, "'.%s' must be a string, found %s", key,
		           zon_describe(v));
	if (v->len == 0)
		return bad(c, v->line, v->col, "'.%s' is an empty string", key);
	if (memchr(v->str, '\0', v->len))
		return bad(c, v->line, v->col, "'.%s' contains a NUL byte", key);
	*out = xstrdup(v->str);
	return 0;
}

static int read_bool(struct checker *c, const struct zon_node *v, const char *key, bool *out)
{
	if (v->kind != ZON_BOOL)
		return bad(c, v->line, v->col, "'.%s' must be true or false, found %s", key,
		           zon_describe(v));
	*out = v->bval;
	return 0;
}

/* A list of non-empty strings; *out holds what was read even on failure. */
static int read_strings(struct checker *c, const struct zon_node *v, const char *key, char ***out,
                        size_t *n, struct config_pos **pos)
{
	if (!is_list(v))
		return bad(c, v->line, v->col,
		           "'.%s' must be a list of strings like .{ \"a\", \"b\" }, found %s", key,
		           zon_describe(v));
	*out = xcalloc(v->nitems, sizeof(**out));
	if (pos)
		*pos = xcalloc(v->nitems ? v->nitems : 1, sizeof(**pos));
	for (size_t i = 0; i < v->nitems; i++) {
		const struct zon_node *s = &v->items[i];
		if (pos)
			(*pos)[i] = (struct config_pos){s->line, s->col};
		if (s->kind != ZON_STRING)
			return bad(c, s->line, s->col, "expected a string in '.%s', found %s", key,
			           zon_describe(s));
		if (s->len == 0)
			return bad(c, s->line, s->col, "empty string in '.%s'", key);
		if (memchr(s->str, '\0', s->len))
			return bad(c, s->line, s->col, "string in '.%s' contains a NUL byte", key);
		(*out)[(*n)++] = xstrdup(s->str);
	}
	return 0;
}

static void free_strings(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* The items of a list of structs, each checked by one. */
static int read_list(struct checker *c, const struct zon_node *v, const char *key,
                     const char *example, void **out, size_t size, size_t *n,
                     int (*one)(struct checker *, const struct zon_node *, void *))
{
	if (!is_list(v))
		return bad(c, v->line, v->col, "'.%s' must be a list like .{ %s, ... }, found %s",
		           key, example, zon_describe(v));
	*out = xcalloc(v->nitems, size);
	for (size_t i = 0; i < v->nitems; i++) {
		const struct zon_node *e = &v->items[i];
		if (e->kind != ZON_STRUCT || e->nitems == 0)
			return bad(c, e->line, e->col, "expected %s in '.%s', found %s", example,
			           key, zon_describe(e));
		(*n)++;
		if (one(c, e, (char *)*out + i * size) < 0)
			return -1;
	}
	return 0;
}

/* A .dirs entry that is not absolute (after "~/") would match no project
 * root, and the rule would silently never apply: refused, as the original
 * tool refuses it. */
static int read_root(struct checker *c, const struct zon_node *v, enum config_root *out)
{
	cleanup_free char *value = NULL;
	if (read_string(c, v, "root", &value) < 0)
		return -1;
	if (strcmp(value, "git") == 0)
		*out = CONFIG_ROOT_GIT;
	else if (strcmp(value, "here") == 0)
		*out = CONFIG_ROOT_HERE;
	else {
		bad(c, v->line, v->col, "'.root' is \"%s\", not \"git\" or \"here\"", value);
		error_hint(c->err, "\"git\" (the default): the top of the git work tree around the "
		                   "current directory; \"here\": the current directory");
		return -1;
	}
	return 0;
}

/* Directories of projects (.dirs, .unprotected): absolute, or under ~/. */
static int check_roots(struct checker *c, const struct zon_node *v, char **dirs, size_t n,
                       const char *field)
{
	for (size_t i = 0; i < n; i++) {
		const char *d = dirs[i];
		if (d[0] == '/' || strcmp(d, "~") == 0 || strncmp(d, "~/", 2) == 0)
			continue;
		const struct zon_node *s = &v->items[i];
		bad(c, s->line, s->col, "'.%s' entry '%s' is not an absolute path", field, d);
		error_hint(c->err, "write it as /path/to/projects or ~/path/to/projects");
		return -1;
	}
	return 0;
}

static bool has_dotdot(const char *p)
{
	while (*p) {
		size_t n = strcspn(p, "/");
		if (n == 2 && p[0] == '.' && p[1] == '.')
			return true;
		p += n;
		if (*p == '/')
			p++;
	}
	return false;
}

/* Paths relative to the root, never out of it. */
static int check_protect(struct checker *c, const struct zon_node *v, char **paths, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *p = paths[i];
		const struct zon_node *s = &v->items[i];
		if (!*p || p[0] == '/' || p[0] == '~' || has_dotdot(p)) {
			bad(c, s->line, s->col,
			    "'.protect' entry '%s' is not a path inside the project root", p);
			error_hint(c->err, "write it relative to the root, as \".envrc\" or "
			                   "\".vscode/tasks.json\"");
			return -1;
		}
	}
	return 0;
}

static int read_allow(struct checker *c, const struct zon_node *e, void *out)
{
	static const char *const keys[] = {"bin", "paths", "write", "exec", "dirs", NULL};
	const struct zon_node *f[5];
	struct config_allow *a = out;
	a->line = e->line, a->col = e->col;
	if (check_fields(c, e, keys, f, "an allow rule") < 0)
		return -1;
	if (!f[0])
		return bad(c, e->line, e->col, "allow rule without '.bin'");
	if (!f[1])
		return bad(c, e->line, e->col, "allow rule without '.paths'");
	if (read_string(c, f[0], "bin", &a->bin) < 0 ||
	    read_strings(c, f[1], "paths", &a->paths, &a->npaths, NULL) < 0 ||
	    (f[2] && read_bool(c, f[2], "write", &a->write) < 0) ||
	    (f[3] && read_bool(c, f[3], "exec", &a->exec) < 0) ||
	    (f[4] && read_strings(c, f[4], "dirs", &a->dirs, &a->ndirs, NULL) < 0) ||
	    (f[4] && check_roots(c, f[4], a->dirs, a->ndirs, "dirs") < 0))
		return -1;
	return 0;
}

/* Variable names and patterns (.env's .names, .secrets, .not_secrets):
 * a typo there would pass nothing or hide nothing, silently. */
static int check_env_names(struct checker *c, const struct zon_node *v, char **names, size_t n,
                           const char *field)
{
	for (size_t i = 0; i < n; i++) {
		const char *why = secrets_name_refusal(names[i], true);
		if (!why)
			continue;
		const struct zon_node *s = &v->items[i];
		bad(c, s->line, s->col, "'.%s' entry '%s' is not a variable name or pattern: %s",
		    field, names[i], why);
		error_hint(c->err, "write a name as GH_TOKEN, a pattern as *_TOKEN");
		return -1;
	}
	return 0;
}

/* .connect / .listen: port numbers, each checked as `moat allow --net`
 * checks it, the message placed at the number. */
static int read_ports(struct checker *c, const struct zon_node *v, const char *key,
                      struct netpolicy *p)
{
	if (!is_list(v))
		return bad(c, v->line, v->col,
		           "'.%s' must be a list of ports like .{ 443 }, found %s", key,
		           zon_describe(v));
	if (v->nitems == 0)
		return bad(c, v->line, v->col, "'.%s' is empty; list ports, or write .off = true",
		           key);
	for (size_t i = 0; i < v->nitems; i++) {
		const struct zon_node *n = &v->items[i];
		if (n->kind != ZON_INT)
			return bad(c, n->line, n->col, "expected a port number in '.%s', found %s",
			           key, zon_describe(n));
		char item[40];
		snprintf(item, sizeof(item), "%s:%lld", key, n->ival);
		struct error e = {0};
		if (n->ival < 0 || netpolicy_add_item(p, item, &e) < 0) {
			bad(c, n->line, n->col, "port %lld in '.%s' is out of range", n->ival, key);
			error_hint(c->err, "a port is a number from 1 to 65535");
			return -1;
		}
	}
	return 0;
}

static int read_env(struct checker *c, const struct zon_node *e, void *out)
{
	static const char *const keys[] = {"bin", "names", "dirs", NULL};
	const struct zon_node *f[3];
	struct config_env *r = out;
	r->line = e->line, r->col = e->col;
	if (check_fields(c, e, keys, f, "an env rule") < 0)
		return -1;
	if (!f[0])
		return bad(c, e->line, e->col, "env rule without '.bin'");
	if (!f[1])
		return bad(c, e->line, e->col, "env rule without '.names'");
	if (read_string(c, f[0], "bin", &r->bin) < 0 ||
	    read_strings(c, f[1], "names", &r->names, &r->nnames, NULL) < 0 ||
	    check_env_names(c, f[1], r->names, r->nnames, "names") < 0 ||
	    (f[2] && read_strings(c, f[2], "dirs", &r->dirs, &r->ndirs, NULL) < 0) ||
	    (f[2] && check_roots(c, f[2], r->dirs, r->ndirs, "dirs") < 0))
		return -1;
	return 0;
}

/* .env, .secrets and .not_secrets (keys[first..first+3) of the top level). */
static int read_secrets(struct checker *c, const struct zon_node *const *f, struct config *out)
{
	if ((f[0] && read_list(c, f[0], "env", ".{ .bin = \"...\", .names = .{ ... } }",
	                       (void **)&out->env, sizeof(*out->env), &out->nenv, read_env) < 0) ||
	    (f[1] && (read_strings(c, f[1], "secrets", &out->secrets, &out->nsecrets, NULL) < 0 ||
	              check_env_names(c, f[1], out->secrets, out->nsecrets, "secrets") < 0)) ||
	    (f[2] &&
	     (read_strings(c, f[2], "not_secrets", &out->not_secrets, &out->nnot_secrets, NULL) <
	          0 ||
	      check_env_names(c, f[2], out->not_secrets, out->nnot_secrets, "not_secrets") < 0)))
		return -1;
	return 0;
}

/* .hosts = .{ "example.org", "*.example.org:8443" }: each item as
 * `moat allow --net` takes it, refused at its own place. */
static int read_hosts(struct checker *c, const struct zon_node *v, struct netpolicy *p)
{
	if (!is_list(v))
		return bad(
		    c, v->line, v->col,
		    "'.hosts' must be a list of host names like .{ \"example.org\" }, found %s",
		    zon_describe(v));
	if (v->nitems == 0)
		return bad(c, v->line, v->col,
		           "'.hosts' is empty; list hosts, or write .off = true");
	for (size_t i = 0; i < v->nitems; i++) {
		const struct zon_node *n = &v->items[i];
		if (n->kind != ZON_STRING || memchr(n->str, '\0', n->len))
			return bad(c, n->line, n->col, "expected a host name in '.hosts', found %s",
			           zon_describe(n));
		struct error e = {0};
		int rc = netpolicy_add_item(p, n->str, &e);
		if (rc < 0 || p->level != NET_HOSTS) {
			if (rc == 0)
				error_set(&e, "'%s' in '.hosts' is a port, not a host", n->str);
			bad(c, n->line, n->col, "%s", e.msg);
			error_hint(c->err, "%s", e.hint[0] ? e.hint : "put ports in .connect");
			return -1;
		}
	}
	return 0;
}

/* Exactly one of .off, .open, ports (.connect and/or .listen) or .hosts. */
static int read_net_policy(struct checker *c, const struct zon_node *e,
                           const struct zon_node *const *f, struct netpolicy *p)
{
	bool off = false, open = false;
	if ((f[1] && read_bool(c, f[1], "off", &off) < 0) ||
	    (f[2] && read_bool(c, f[2], "open", &open) < 0))
		return -1;
	int given = off + open + (f[3] || f[4]) + (f[5] != NULL);
	if (given != 1) {
		bad(c, e->line, e->col,
		    "a net rule needs exactly one of .off = true, .open = true, "
		    "ports (.connect, .listen) or .hosts");
		error_hint(c->err,
		           "e.g. .{ .bin = \"npm\", .hosts = .{ \"registry.npmjs.org\" } }");
		return -1;
	}
	*p = off ? (struct netpolicy){.level = NET_OFF} : open ? NETPOLICY_OPEN : netpolicy_empty();
	if ((f[3] && read_ports(c, f[3], "connect", p) < 0) ||
	    (f[4] && read_ports(c, f[4], "listen", p) < 0) || (f[5] && read_hosts(c, f[5], p) < 0))
		return -1;
	return 0;
}

static int read_net(struct checker *c, const struct zon_node *e, void *out)
{
	static const char *const keys[] = {"bin",    "off",   "open", "connect",
	                                   "listen", "hosts", "dirs", NULL};
	const struct zon_node *f[7];
	struct config_net *n = out;
	n->line = e->line, n->col = e->col;
	if (check_fields(c, e, keys, f, "a net rule") < 0)
		return -1;
	if (!f[0])
		return bad(c, e->line, e->col, "net rule without '.bin'");
	if (read_string(c, f[0], "bin", &n->bin) < 0 || read_net_policy(c, e, f, &n->policy) < 0 ||
	    (f[6] && read_strings(c, f[6], "dirs", &n->dirs, &n->ndirs, NULL) < 0) ||
	    (f[6] && check_roots(c, f[6], n->dirs, n->ndirs, "dirs") < 0))
		return -1;
	return 0;
}

static int read_link(struct checker *c, const struct zon_node *e, void *out)
{
	static const char *const keys[] = {"dir", "shells", NULL};
	const struct zon_node *f[2];
	struct config_link *l = out;
	l->line = e->line, l->col = e->col;
	if (check_fields(c, e, keys, f, "a link") < 0)
		return -1;
	if (!f[0])
		return bad(c, e->line, e->col, "link without '.dir'");
	if (!f[1])
		return bad(c, e->line, e->col, "link without '.shells'");
	if (read_string(c, f[0], "dir", &l->dir) < 0 ||
	    read_strings(c, f[1], "shells", &l->shells, &l->nshells, NULL) < 0)
		return -1;
	return 0;
}

static int read_detect(struct checker *c, const struct zon_node *e, void *out)
{
	static const char *const keys[] = {"markers", "shells", NULL};
	const struct zon_node *f[2];
	struct config_detect *d = out;
	d->line = e->line, d->col = e->col;
	if (check_fields(c, e, keys, f, "a detect rule") < 0)
		return -1;
	if (!f[0])
		return bad(c, e->line, e->col, "detect rule without '.markers'");
	if (!f[1])
		return bad(c, e->line, e->col, "detect rule without '.shells'");
	if (read_strings(c, f[0], "markers", &d->markers, &d->nmarkers, NULL) < 0 ||
	    read_strings(c, f[1], "shells", &d->shells, &d->nshells, NULL) < 0)
		return -1;
	if (d->nmarkers == 0)
		return bad(c, f[0]->line, f[0]->col,
		           "'.markers' is empty; a detect rule needs at least one marker");
	return 0;
}

int config_from_tree(const struct zon_node *root, const char *filename, struct config *out,
                     struct error *err)
{
	static const char *const keys[] = {"jailbreak",  "default",     "confirm",     "links",
	                                   "detect",     "allow",       "sockets",     "root",
	                                   "trace_hint", "protect",     "unprotected", "env",
	                                   "secrets",    "not_secrets", "net",         NULL};
	struct checker c = {.file = filename, .err = err};
	const struct zon_node *f[15];
	memset(out, 0, sizeof(*out));
	if (!root)
		return 0;
	int rc = -1;
	if (root->kind != ZON_STRUCT) {
		bad(&c, root->line, root->col, "the file must hold one struct '.{ ... }', found %s",
		    zon_describe(root));
		goto out;
	}
	if (check_fields(&c, root, keys, f, "the top-level struct") < 0)
		goto out;
	if ((f[0] && read_strings(&c, f[0], "jailbreak", &out->jailbreak, &out->njailbreak,
	                          &out->jailbreak_pos) < 0) ||
	    (f[1] && read_strings(&c, f[1], "default", &out->default_shells, &out->ndefault,
	                          &out->default_pos) < 0) ||
	    (f[2] && read_strings(&c, f[2], "confirm", &out->confirm, &out->nconfirm, NULL) < 0) ||
	    (f[3] &&
	     read_list(&c, f[3], "links", ".{ .dir = \"...\", .shells = .{ ... } }",
	               (void **)&out->links, sizeof(*out->links), &out->nlinks, read_link) < 0) ||
	    (f[4] && read_list(&c, f[4], "detect", ".{ .markers = .{ ... }, .shells = .{ ... } }",
	                       (void **)&out->detect, sizeof(*out->detect), &out->ndetect,
	                       read_detect) < 0) ||
	    (f[5] &&
	     read_list(&c, f[5], "allow", ".{ .bin = \"...\", .paths = .{ ... } }",
	               (void **)&out->allow, sizeof(*out->allow), &out->nallow, read_allow) < 0) ||
	    (f[6] && read_strings(&c, f[6], "sockets", &out->sockets, &out->nsockets, NULL) < 0) ||
	    (f[7] && read_root(&c, f[7], &out->root) < 0) ||
	    (f[9] && (read_strings(&c, f[9], "protect", &out->protect, &out->nprotect, NULL) < 0 ||
	              check_protect(&c, f[9], out->protect, out->nprotect) < 0)) ||
	    (f[10] &&
	     (read_strings(&c, f[10], "unprotected", &out->unprotected, &out->nunprotected, NULL) <
	          0 ||
	      check_roots(&c, f[10], out->unprotected, out->nunprotected, "unprotected") < 0)) ||
	    read_secrets(&c, f + 11, out) < 0 ||
	    (f[14] && read_list(&c, f[14], "net", ".{ .bin = \"...\", .off = true }",
	                        (void **)&out->net, sizeof(*out->net), &out->nnet, read_net) < 0))
		goto out;
	bool trace_hint = true;
	if (f[8] && read_bool(&c, f[8], "trace_hint", &trace_hint) < 0)
		goto out;
	out->no_trace_hint = !trace_hint;
	rc = 0;
out:
	if (rc < 0)
		config_free(out);
	return rc;
}

int config_parse(const char *buf, size_t len, const char *filename, struct config *out,
                 struct error *err)
{
	struct zon_node *root;
	struct zon_diag diag;
	memset(out, 0, sizeof(*out));
	if (zon_parse(buf, len, &root, &diag) < 0)
		return error_set(err, "%s:%d:%d: %s", filename, diag.line, diag.col, diag.msg);
	int rc = config_from_tree(root, filename, out, err);
	zon_free(root);
	return rc;
}

void config_free(struct config *cfg)
{
	free_strings(cfg->jailbreak, cfg->njailbreak);
	free(cfg->jailbreak_pos);
	free_strings(cfg->default_shells, cfg->ndefault);
	free(cfg->default_pos);
	free_strings(cfg->confirm, cfg->nconfirm);
	free_strings(cfg->sockets, cfg->nsockets);
	free_strings(cfg->protect, cfg->nprotect);
	free_strings(cfg->unprotected, cfg->nunprotected);
	for (size_t i = 0; i < cfg->nlinks; i++) {
		free(cfg->links[i].dir);
		free_strings(cfg->links[i].shells, cfg->links[i].nshells);
	}
	free(cfg->links);
	for (size_t i = 0; i < cfg->ndetect; i++) {
		free_strings(cfg->detect[i].markers, cfg->detect[i].nmarkers);
		free_strings(cfg->detect[i].shells, cfg->detect[i].nshells);
	}
	free(cfg->detect);
	for (size_t i = 0; i < cfg->nallow; i++) {
		free(cfg->allow[i].bin);
		free_strings(cfg->allow[i].paths, cfg->allow[i].npaths);
		free_strings(cfg->allow[i].dirs, cfg->allow[i].ndirs);
	}
	free(cfg->allow);
	for (size_t i = 0; i < cfg->nenv; i++) {
		free(cfg->env[i].bin);
		free_strings(cfg->env[i].names, cfg->env[i].nnames);
		free_strings(cfg->env[i].dirs, cfg->env[i].ndirs);
	}
	free(cfg->env);
	free_strings(cfg->secrets, cfg->nsecrets);
	free_strings(cfg->not_secrets, cfg->nnot_secrets);
	for (size_t i = 0; i < cfg->nnet; i++) {
		free(cfg->net[i].bin);
		free_strings(cfg->net[i].dirs, cfg->net[i].ndirs);
	}
	free(cfg->net);
	memset(cfg, 0, sizeof(*cfg));
}

/* "~" expanded, and normalized when absolute, for comparisons. */
static char *comparable(const char *path, const char *home)
{
	char *p = home ? path_expand_tilde(path, home) : xstrdup(path);
	if (p[0] != '/')
		return p;
	char *n = path_normalize(p);
	free(p);
	return n;
}

bool config_same_path(const char *a, const char *b, const char *home)
{
	char *x = comparable(a, home), *y = comparable(b, home);
	bool same = strcmp(x, y) == 0;
	free(x);
	free(y);
	return same;
}

/* Does root lie under one of dirs (written as in config.zon: absolute or
 * ~/)? .dirs and .unprotected both name projects this way. */
static bool root_under_any(const char *root, const char *home, char **dirs, size_t n)
{
	char *r = comparable(root, home);
	bool under = false;
	for (size_t i = 0; i < n && !under; i++) {
		char *d = comparable(dirs[i], home);
		under = d[0] == '/' && path_is_under(r, d);
		free(d);
	}
	free(r);
	return under;
}

bool config_allow_applies(const struct config_allow *rule, const char *bin, const char *root,
                          const char *home)
{
	if (bin && strcmp(rule->bin, "*") != 0 && strcmp(rule->bin, bin) != 0)
		return false;
	if (rule->ndirs == 0)
		return true;
	return root && root_under_any(root, home, rule->dirs, rule->ndirs);
}

bool config_env_applies(const struct config_env *rule, const char *bin, const char *root,
                        const char *home)
{
	if (strcmp(rule->bin, "*") != 0 && (!bin || strcmp(rule->bin, bin) != 0))
		return false;
	return rule->ndirs == 0 || (root && root_under_any(root, home, rule->dirs, rule->ndirs));
}

void config_net_policy(const struct config *cfg, const char *bin, const char *root,
                       const char *home, struct netpolicy *out)
{
	bool any = false, every = false;
	*out = (struct netpolicy){.level = NET_OFF};
	for (size_t i = 0; i < cfg->nnet; i++) {
		const struct config_net *r = &cfg->net[i];
		struct config_allow scope = {.bin = r->bin, .dirs = r->dirs, .ndirs = r->ndirs};
		if (!config_allow_applies(&scope, bin, root, home))
			continue;
		any = true;
		every |= strcmp(r->bin, "*") == 0;
		netpolicy_union(out, &r->policy);
	}
	if (!any || (!bin && !every))
		*out = NETPOLICY_OPEN;
}

bool config_protects(const struct config *cfg, const char *root, const char *home)
{
	return !root_under_any(root, home, cfg->unprotected, cfg->nunprotected);
}

size_t config_grants(const struct config *cfg, const char *bin, const char *root, const char *home,
                     struct config_grant **out)
{
	size_t n = 0, cap = 0;
	*out = NULL;
	for (size_t i = 0; i < cfg->nallow; i++) {
		const struct config_allow *a = &cfg->allow[i];
		if (!config_allow_applies(a, bin, root, home))
			continue;
		for (size_t j = 0; j < a->npaths; j++) {
			if (n == cap) {
				cap = cap ? cap * 2 : 8;
				*out = xrealloc_array(*out, cap, sizeof(**out));
			}
			(*out)[n++] = (struct config_grant){
			    .bin = a->bin,
			    .path =
			        home ? path_expand_tilde(a->paths[j], home) : xstrdup(a->paths[j]),
			    .write = a->write,
			    .exec = a->exec,
			    .rule = a,
			};
		}
	}
	return n;
}

void config_grants_free(struct config_grant *grants, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(grants[i].path);
	free(grants);
}

static void add_shells(const char ***v, size_t *n, char *const *shells, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		bool seen = false;
		for (size_t j = 0; j < *n && !seen; j++)
			seen = strcmp((*v)[j], shells[i]) == 0;
		if (seen)
			continue;
		*v = xrealloc_array(*v, *n + 1, sizeof(**v));
		(*v)[(*n)++] = shells[i];
	}
}

enum config_shells_from config_detect_shells(const struct config *cfg, const char *dir,
                                             const char *home, config_marker_fn *exists, void *ctx,
                                             const char ***shells, size_t *n)
{
	*shells = NULL;
	*n = 0;
	for (size_t i = 0; i < cfg->nlinks; i++) {
		if (config_same_path(cfg->links[i].dir, dir, home)) {
			add_shells(shells, n, cfg->links[i].shells, cfg->links[i].nshells);
			return CONFIG_SHELLS_LINK;
		}
	}
	bool matched = false;
	for (size_t i = 0; i < cfg->ndetect; i++) {
		const struct config_detect *d = &cfg->detect[i];
		bool all = d->nmarkers > 0;
		for (size_t j = 0; j < d->nmarkers && all; j++)
			all = exists(dir, d->markers[j], ctx);
		if (all) {
			matched = true;
			add_shells(shells, n, d->shells, d->nshells);
		}
	}
	return matched ? CONFIG_SHELLS_DETECT : CONFIG_SHELLS_NONE;
}

static bool listed(char *const *v, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i], name) == 0)
			return true;
	return false;
}

bool config_confirms(const struct config *cfg, const char *bin)
{
	return listed(cfg->confirm, cfg->nconfirm, bin) || listed(cfg->confirm, cfg->nconfirm, "*");
}

bool config_jailbreaks(const struct config *cfg, const char *name)
{
	return listed(cfg->jailbreak, cfg->njailbreak, name);
}
