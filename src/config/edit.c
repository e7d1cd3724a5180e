/* Edits of config.zon that keep the user's file: every change is a splice
 * of the original bytes at positions the parser recorded, so comments, blank
 * lines, order and odd formatting elsewhere survive byte for byte.
 *
 * An edit is a sequence of small steps (set one field, add one item, remove
 * one item). After each step the buffer is parsed and checked again, so every
 * step sees exact positions and a step that would leave a file moat cannot
 * read is caught here, not by the next command. */
#include <string.h>

#include "base/path.h"
#include "config/config.h"

#define NONE ((size_t)-1)

struct doc {
	struct zon_node *root; /* NULL for a file with no value yet */
	struct config cfg;
	const char *nl; /* the file's line break */
	char unit[9];   /* one level of its indentation */
	bool multiline; /* the top-level struct spreads over lines */
};

struct session {
	struct strbuf cur; /* the file as edited so far */
	struct doc d;
	const char *filename, *home;
	struct error *err;
	bool changed;
};

struct splice {
	size_t start, end;
	char *text;
};

/* A few splices in ascending order, applied together. */
struct edit {
	struct splice s[4];
	size_t n;
};

static void edit_add(struct edit *e, size_t start, size_t end, char *text)
{
	if (e->n == ARRAY_LEN(e->s) || (e->n && start < e->s[e->n - 1].end))
		abort(); /* a bug in this file, not a property of the input */
	e->s[e->n++] = (struct splice){start, end, text};
}

static void edit_release(struct edit *e)
{
	for (size_t i = 0; i < e->n; i++)
		free(e->s[i].text);
	e->n = 0;
}

/* Layout of the text around a position. */

static size_t line_start(const char *buf, size_t pos)
{
	while (pos > 0 && buf[pos - 1] != '\n')
		pos--;
	return pos;
}

static bool only_space_before(const char *buf, size_t pos)
{
	while (pos > 0 && (buf[pos - 1] == ' ' || buf[pos - 1] == '\t'))
		pos--;
	return pos == 0 || buf[pos - 1] == '\n';
}

/* Spaces and tabs starting the line that holds pos. */
static char *indent_of_line(const char *buf, size_t pos)
{
	size_t ls = line_start(buf, pos), i = ls;
	while (buf[i] == ' ' || buf[i] == '\t')
		i++;
	return xstrndup(buf + ls, i - ls);
}

/* Where the line break is when only blanks and a comment follow pos on its
 * line (the '\r' of "\r\n", or the end of the buffer), else NONE. */
static size_t end_of_line_after(const char *buf, size_t len, size_t pos)
{
	while (pos < len && (buf[pos] == ' ' || buf[pos] == '\t'))
		pos++;
	if (pos + 1 < len && buf[pos] == '/' && buf[pos + 1] == '/')
		while (pos < len && buf[pos] != '\n')
			pos++;
	if (pos > 0 && pos < len && buf[pos] == '\n' && buf[pos - 1] == '\r')
		return pos - 1;
	if (pos < len && buf[pos] == '\r' && pos + 1 < len && buf[pos + 1] == '\n')
		return pos;
	return pos == len || buf[pos] == '\n' ? pos : NONE;
}

static size_t skip_line_break(const char *buf, size_t len, size_t pos)
{
	if (pos < len && buf[pos] == '\r')
		pos++;
	if (pos < len && buf[pos] == '\n')
		pos++;
	return pos;
}

/* The '{' of a container: after its '.', past blanks and comments. */
static size_t open_brace(const char *buf, const struct zon_node *c)
{
	size_t i = c->start + 1;
	while (buf[i] != '{') {
		if (buf[i] == '/')
			while (buf[i] != '\n')
				i++;
		i++;
	}
	return i;
}

static void detect_style(struct doc *d, const char *buf, size_t len)
{
	const char *lf = memchr(buf, '\n', len);
	d->nl = lf && lf > buf && lf[-1] == '\r' ? "\r\n" : "\n";
	strcpy(d->unit, "    ");
	/* The first indented line sets the unit: a tab, or its run of spaces. */
	for (size_t ls = 0; ls < len;) {
		size_t i = ls;
		while (i < len && buf[i] == ' ' && i - ls < 8)
			i++;
		if (i < len && buf[ls] == '\t') {
			strcpy(d->unit, "\t");
			return;
		}
		if (i > ls && i < len && buf[i] != '\n' && buf[i] != '\r' && buf[i] != ' ' &&
		    buf[i] != '\t') {
			memcpy(d->unit, buf + ls, i - ls);
			d->unit[i - ls] = '\0';
			return;
		}
		const char *next = memchr(buf + ls, '\n', len - ls);
		if (!next)
			break;
		ls = (size_t)(next - buf) + 1;
	}
}

static int doc_load(struct doc *d, const struct strbuf *sb, const char *filename, struct error *err)
{
	const char *buf = sb_str(sb);
	struct zon_diag diag;
	memset(d, 0, sizeof(*d));
	if (zon_parse(buf, sb->len, &d->root, &diag) < 0)
		return error_set(err, "%s:%d:%d: %s", filename, diag.line, diag.col, diag.msg);
	if (config_from_tree(d->root, filename, &d->cfg, err) < 0) {
		zon_free(d->root);
		d->root = NULL;
		return -1;
	}
	detect_style(d, buf, sb->len);
	d->multiline = d->root && only_space_before(buf, d->root->end - 1);
	return 0;
}

static void doc_free(struct doc *d)
{
	zon_free(d->root);
	config_free(&d->cfg);
	memset(d, 0, sizeof(*d));
}

static int session_start(struct session *s, const char *buf, size_t len, const char *filename,
                         const char *home, struct error *err)
{
	memset(s, 0, sizeof(*s));
	s->filename = filename;
	s->home = home;
	s->err = err;
	sb_add(&s->cur, buf, len);
	if (doc_load(&s->d, &s->cur, filename, err) < 0) {
		sb_release(&s->cur);
		return -1;
	}
	return 0;
}

/* Apply e to the current buffer and load the result. */
static int session_apply(struct session *s, struct edit *e)
{
	struct strbuf next = STRBUF_INIT;
	size_t at = 0;
	for (size_t i = 0; i < e->n; i++) {
		sb_add(&next, s->cur.buf + at, e->s[i].start - at);
		sb_adds(&next, e->s[i].text);
		at = e->s[i].end;
	}
	sb_add(&next, s->cur.buf + at, s->cur.len - at);
	edit_release(e);
	doc_free(&s->d);
	sb_release(&s->cur);
	s->cur = next;
	s->changed = true;
	if (doc_load(&s->d, &s->cur, s->filename, s->err) < 0) {
		char why[sizeof(s->err->msg)];
		memcpy(why, s->err->msg, sizeof(why));
		return error_set(s->err, "internal error: editing %s would leave it unreadable: %s",
		                 s->filename, why);
	}
	return 0;
}

static int session_finish(struct session *s, struct strbuf *out, int rc)
{
	doc_free(&s->d);
	if (rc < 0) {
		sb_release(&s->cur);
		return -1;
	}
	*out = s->cur;
	if (!out->buf)
		sb_add(out, "", 0);
	return s->changed ? 1 : 0;
}

/* Containers: appending and removing items. */

struct layout {
	bool multiline;
	char *indent; /* of a new item, when multiline */
};

/* How a new item fits in c: on its own line, indented like the last item,
 * when c closes on a line of its own; else after the last item on its line.
 * expand turns an empty inline ".{}" into a multiline one. */
static void layout_for(const struct session *s, const struct zon_node *c, bool expand,
                       struct layout *l)
{
	const char *buf = s->cur.buf;
	size_t rb = c->end - 1;
	bool closing_alone = only_space_before(buf, rb);
	l->multiline = closing_alone || (c->nitems == 0 && expand);
	l->indent = NULL;
	if (!l->multiline)
		return;
	char *base;
	if (c->nitems && only_space_before(buf, c->items[c->nitems - 1].item_start)) {
		l->indent = indent_of_line(buf, c->items[c->nitems - 1].item_start);
		return;
	}
	base = indent_of_line(buf, closing_alone ? rb : c->start);
	l->indent = xasprintf("%s%s", base, s->d.unit);
	free(base);
}

static void append_item(const struct session *s, const struct zon_node *c, const struct layout *l,
                        const char *text, struct edit *e)
{
	const char *buf = s->cur.buf, *nl = s->d.nl;
	size_t len = s->cur.len, rb = c->end - 1;
	if (c->nitems == 0) {
		size_t lb = open_brace(buf, c);
		if (!l->multiline) {
			edit_add(e, lb + 1, rb, xasprintf(" %s ", text));
		} else if (only_space_before(buf, rb)) {
			size_t ls = line_start(buf, rb);
			edit_add(e, ls, ls, xasprintf("%s%s,%s", l->indent, text, nl));
		} else {
			char *base = indent_of_line(buf, c->start);
			edit_add(e, lb + 1, rb,
			         xasprintf("%s%s%s,%s%s", nl, l->indent, text, nl, base));
			free(base);
		}
		return;
	}
	const struct zon_node *last = &c->items[c->nitems - 1];
	/* A \\ string runs to the end of its line: nothing can follow it there. */
	bool runs_to_eol = buf[last->start] == '\\';
	if (!l->multiline) {
		/* c closes on the line of the last item's comma, which a \\ string has. */
		if (runs_to_eol && last->comma != NONE)
			edit_add(e, last->comma + 1, last->comma + 1, xasprintf(" %s,", text));
		else
			edit_add(e, last->end, last->end, xasprintf(", %s", text));
		return;
	}
	size_t after = last->comma != NONE ? last->comma + 1 : last->end;
	size_t eol = end_of_line_after(buf, len, after);
	if (eol == NONE)
		abort(); /* c closes on a later line, so only blanks and comments follow */
	if (last->comma == NONE && runs_to_eol)
		edit_add(e, eol, eol,
		         xasprintf("%s%s,%s%s%s,", nl, l->indent, nl, l->indent, text));
	else if (last->comma == NONE)
		edit_add(e, last->end, last->end, xstrdup(","));
	if (last->comma != NONE || !runs_to_eol)
		edit_add(e, eol, eol, xasprintf("%s%s%s,", nl, l->indent, text));
}

static void append(const struct session *s, const struct zon_node *c, bool expand, const char *text,
                   struct edit *e)
{
	struct layout l;
	layout_for(s, c, expand, &l);
	append_item(s, c, &l, text, e);
	free(l.indent);
}

/* Remove item i of c: its whole line when it has the line to itself (with
 * a comment trailing it there), else just the item and one comma. */
static void remove_item(const struct session *s, const struct zon_node *c, size_t i, struct edit *e)
{
	const char *buf = s->cur.buf;
	size_t len = s->cur.len;
	const struct zon_node *it = &c->items[i];
	size_t a = it->item_start, b = it->end;
	size_t after = it->comma != NONE ? it->comma + 1 : b;
	if (only_space_before(buf, a)) {
		size_t eol = end_of_line_after(buf, len, after);
		if (eol != NONE) {
			edit_add(e, line_start(buf, a), skip_line_break(buf, len, eol),
			         xstrdup(""));
			return;
		}
	}
	if (it->comma != NONE) {
		while (after < len && (buf[after] == ' ' || buf[after] == '\t'))
			after++;
		edit_add(e, a, after, xstrdup(""));
		return;
	}
	if (i > 0 && c->items[i - 1].comma != NONE) {
		size_t pc = c->items[i - 1].comma, j = pc + 1;
		while (j < a && (buf[j] == ' ' || buf[j] == '\t'))
			j++;
		edit_add(e, j == a ? pc : a, b, xstrdup(""));
		return;
	}
	while (b < len && (buf[b] == ' ' || buf[b] == '\t'))
		b++;
	edit_add(e, a, b, xstrdup(""));
}

/* Top-level lists. */

/* Add entry to the top-level list key, creating the list (and the whole
 * file when it has no value yet) as needed. */
static int add_to_list(struct session *s, const char *key, const char *entry)
{
	struct edit e = {0};
	const char *nl = s->d.nl, *u = s->d.unit;
	if (!s->d.root) {
		const char *buf = s->cur.buf;
		size_t len = s->cur.len;
		bool needs_nl = len && buf[len - 1] != '\n';
		edit_add(&e, len, len,
		         xasprintf("%s.{%s%s.%s = .{%s%s%s%s,%s%s},%s}%s", needs_nl ? nl : "", nl,
		                   u, key, nl, u, u, entry, nl, u, nl, nl));
		return session_apply(s, &e);
	}
	const struct zon_node *list = zon_field(s->d.root, key);
	if (list) {
		append(s, list, s->d.multiline, entry, &e);
		return session_apply(s, &e);
	}
	struct layout l;
	layout_for(s, s->d.root, true, &l);
	char *field = l.multiline ? xasprintf(".%s = .{%s%s%s%s,%s%s}", key, nl, l.indent, u, entry,
	                                      nl, l.indent)
	                          : xasprintf(".%s = .{ %s }", key, entry);
	append_item(s, s->d.root, &l, field, &e);
	free(field);
	free(l.indent);
	return session_apply(s, &e);
}

static int remove_from_list(struct session *s, const char *key, size_t i)
{
	struct edit e = {0};
	remove_item(s, zon_field(s->d.root, key), i, &e);
	return session_apply(s, &e);
}

static void add_strings(struct strbuf *sb, const char *const *v, size_t n)
{
	if (n == 0) {
		sb_adds(sb, ".{}");
		return;
	}
	sb_adds(sb, ".{ ");
	for (size_t i = 0; i < n; i++) {
		if (i)
			sb_adds(sb, ", ");
		zon_quote(sb, v[i], strlen(v[i]));
	}
	sb_adds(sb, " }");
}

/* allow / unallow */

static const struct zon_node *rule_node(const struct session *s, size_t i)
{
	return &zon_field(s->d.root, "allow")->items[i];
}

static bool unscoped_rule_for(const struct config_allow *r, const char *bin)
{
	return r->ndirs == 0 && strcmp(r->bin, bin) == 0;
}

static size_t count_path(const struct session *s, const struct config_allow *r, const char *path)
{
	size_t hits = 0;
	for (size_t i = 0; i < r->npaths; i++)
		hits += config_same_path(r->paths[i], path, s->home);
	return hits;
}

static int set_true(struct session *s, size_t rule, const char *key)
{
	struct edit e = {0};
	const struct zon_node *r = rule_node(s, rule), *f = zon_field(r, key);
	if (f) {
		edit_add(&e, f->start, f->end, xstrdup("true"));
	} else {
		char *text = xasprintf(".%s = true", key);
		append(s, r, false, text, &e);
		free(text);
	}
	return session_apply(s, &e);
}

/* Take path out of a rule that keeps other paths. */
static int remove_path(struct session *s, size_t rule, const char *path)
{
	for (;;) {
		const struct zon_node *paths = zon_field(rule_node(s, rule), "paths");
		size_t j = 0;
		while (j < paths->nitems && !config_same_path(paths->items[j].str, path, s->home))
			j++;
		if (j == paths->nitems)
			return 0;
		struct edit e = {0};
		remove_item(s, paths, j, &e);
		if (session_apply(s, &e) < 0)
			return -1;
	}
}

static int add_rule(struct session *s, const char *bin, const char *path, bool write, bool exec)
{
	struct strbuf rule = STRBUF_INIT;
	sb_adds(&rule, ".{ .bin = ");
	zon_quote(&rule, bin, strlen(bin));
	sb_adds(&rule, ", .paths = .{ ");
	zon_quote(&rule, path, strlen(path));
	sb_addf(&rule, " }%s%s }", write ? ", .write = true" : "", exec ? ", .exec = true" : "");
	int rc = add_to_list(s, "allow", rule.buf);
	sb_release(&rule);
	return rc;
}

static int edit_allow(struct session *s, const char *bin, const char *path, bool write, bool exec)
{
	const struct config *cfg = &s->d.cfg;
	bool has_write = false, has_exec = false;
	size_t any = NONE, whole = NONE;
	for (size_t i = 0; i < cfg->nallow; i++) {
		const struct config_allow *r = &cfg->allow[i];
		size_t hits = unscoped_rule_for(r, bin) ? count_path(s, r, path) : 0;
		if (!hits)
			continue;
		has_write |= r->write;
		has_exec |= r->exec;
		if (any == NONE)
			any = i;
		if (hits == r->npaths && whole == NONE)
			whole = i;
	}
	if (any != NONE && (!write || has_write) && (!exec || has_exec))
		return 0;
	if (whole != NONE) {
		/* The rule is about this path alone: widening it widens nothing else. */
		if (write && !cfg->allow[whole].write && set_true(s, whole, "write") < 0)
			return -1;
		if (exec && !cfg->allow[whole].exec && set_true(s, whole, "exec") < 0)
			return -1;
		return 0;
	}
	if (any != NONE) {
		/* Widening a rule that holds other paths would widen them too. */
		write |= cfg->allow[any].write;
		exec |= cfg->allow[any].exec;
		if (remove_path(s, any, path) < 0)
			return -1;
	}
	return add_rule(s, bin, path, write, exec);
}

static int edit_unallow(struct session *s, const char *bin, const char *path)
{
	for (;;) {
		const struct config *cfg = &s->d.cfg;
		size_t i = 0, hits = 0;
		for (; i < cfg->nallow; i++) {
			if (unscoped_rule_for(&cfg->allow[i], bin) &&
			    (hits = count_path(s, &cfg->allow[i], path)))
				break;
		}
		if (i == cfg->nallow)
			return 0;
		int rc = hits == cfg->allow[i].npaths ? remove_from_list(s, "allow", i)
		                                      : remove_path(s, i, path);
		if (rc < 0)
			return -1;
	}
}

/* env / unenv: names handed to a tool (--env) */

static bool unscoped_env_for(const struct config_env *r, const char *bin)
{
	return r->ndirs == 0 && strcmp(r->bin, bin) == 0;
}

static size_t find_name(const struct config_env *r, const char *name)
{
	for (size_t i = 0; i < r->nnames; i++)
		if (strcmp(r->names[i], name) == 0)
			return i;
	return NONE;
}

static int edit_env(struct session *s, const char *bin, const char *name)
{
	const struct config *cfg = &s->d.cfg;
	size_t rule = NONE;
	for (size_t i = 0; i < cfg->nenv; i++) {
		if (!unscoped_env_for(&cfg->env[i], bin))
			continue;
		if (find_name(&cfg->env[i], name) != NONE)
			return 0;
		if (rule == NONE)
			rule = i;
	}
	struct strbuf text = STRBUF_INIT;
	int rc;
	if (rule != NONE) {
		zon_quote(&text, name, strlen(name));
		struct edit e = {0};
		append(s, zon_field(&zon_field(s->d.root, "env")->items[rule], "names"), false,
		       text.buf, &e);
		rc = session_apply(s, &e);
	} else {
		sb_adds(&text, ".{ .bin = ");
		zon_quote(&text, bin, strlen(bin));
		sb_adds(&text, ", .names = .{ ");
		zon_quote(&text, name, strlen(name));
		sb_adds(&text, " } }");
		rc = add_to_list(s, "env", text.buf);
	}
	sb_release(&text);
	return rc;
}

static int edit_unenv(struct session *s, const char *bin, const char *name)
{
	for (;;) {
		const struct config *cfg = &s->d.cfg;
		size_t i = 0, j = NONE;
		for (; i < cfg->nenv; i++)
			if (unscoped_env_for(&cfg->env[i], bin) &&
			    (j = find_name(&cfg->env[i], name)) != NONE)
				break;
		if (i == cfg->nenv)
			return 0;
		struct edit e = {0};
		if (cfg->env[i].nnames == 1)
			remove_item(s, zon_field(s->d.root, "env"), i, &e);
		else
			remove_item(s, zon_field(&zon_field(s->d.root, "env")->items[i], "names"),
			            j, &e);
		if (session_apply(s, &e) < 0)
			return -1;
	}
}

/* link / unlink */

static size_t find_link(const struct session *s, const char *dir, size_t from)
{
	for (size_t i = from; i < s->d.cfg.nlinks; i++)
		if (config_same_path(s->d.cfg.links[i].dir, dir, s->home))
			return i;
	return NONE;
}

static bool same_shells(const struct config_link *l, const char *const *shells, size_t n)
{
	if (l->nshells != n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (strcmp(l->shells[i], shells[i]) != 0)
			return false;
	return true;
}

static int edit_link(struct session *s, const char *dir, const char *const *shells, size_t n)
{
	struct strbuf text = STRBUF_INIT;
	size_t first = find_link(s, dir, 0);
	int rc = 0;
	if (first == NONE) {
		sb_adds(&text, ".{ .dir = ");
		zon_quote(&text, dir, strlen(dir));
		sb_adds(&text, ", .shells = ");
		add_strings(&text, shells, n);
		sb_adds(&text, " }");
		rc = add_to_list(s, "links", text.buf);
		sb_release(&text);
		return rc;
	}
	if (!same_shells(&s->d.cfg.links[first], shells, n)) {
		/* Only the shells change; the dir stays as the user wrote it. */
		const struct zon_node *f =
		    zon_field(&zon_field(s->d.root, "links")->items[first], "shells");
		struct edit e = {0};
		add_strings(&text, shells, n);
		edit_add(&e, f->start, f->end, sb_detach(&text));
		rc = session_apply(s, &e);
	}
	for (size_t dup; rc == 0 && (dup = find_link(s, dir, first + 1)) != NONE;)
		rc = remove_from_list(s, "links", dup);
	return rc;
}

static int edit_unlink(struct session *s, const char *dir)
{
	for (size_t i; (i = find_link(s, dir, 0)) != NONE;)
		if (remove_from_list(s, "links", i) < 0)
			return -1;
	return 0;
}

/* net */

static size_t find_net(const struct session *s, const char *bin, size_t from)
{
	for (size_t i = from; i < s->d.cfg.nnet; i++)
		if (s->d.cfg.net[i].ndirs == 0 && strcmp(s->d.cfg.net[i].bin, bin) == 0)
			return i;
	return NONE;
}

static void add_ports(struct strbuf *sb, const char *key, const uint16_t *v, size_t n)
{
	if (!n)
		return;
	sb_addf(sb, ", .%s = .{ ", key);
	for (size_t i = 0; i < n; i++)
		sb_addf(sb, "%s%u", i ? ", " : "", v[i]);
	sb_adds(sb, " }");
}

static void add_host_item(const char *item, void *sb)
{
	struct strbuf *out = sb;
	sb_adds(out, out->buf[out->len - 2] == '{' ? "" : ", ");
	zon_quote(out, item, strlen(item));
}

static void add_hosts(struct strbuf *sb, const struct netpolicy *p)
{
	sb_adds(sb, ", .hosts = .{ ");
	netpolicy_each_host(p, add_host_item, sb);
	sb_adds(sb, " }");
}

static char *net_rule_text(const char *bin, const struct netpolicy *p)
{
	struct strbuf sb = STRBUF_INIT;
	sb_adds(&sb, ".{ .bin = ");
	zon_quote(&sb, bin, strlen(bin));
	if (p->level == NET_PORTS) {
		add_ports(&sb, "connect", p->connect, p->nconnect);
		add_ports(&sb, "listen", p->listen, p->nlisten);
	} else if (p->level == NET_HOSTS) {
		add_hosts(&sb, p);
	} else {
		sb_adds(&sb, p->level == NET_OFF ? ", .off = true" : ", .open = true");
	}
	sb_adds(&sb, " }");
	return sb_detach(&sb);
}

static int edit_net(struct session *s, const char *bin, const struct netpolicy *p)
{
	size_t first = find_net(s, bin, 0);
	int rc = 0;
	if (netpolicy_is_empty(p)) {
		for (size_t i; rc == 0 && (i = find_net(s, bin, 0)) != NONE;)
			rc = remove_from_list(s, "net", i);
		return rc;
	}
	char *text = net_rule_text(bin, p);
	if (first == NONE) {
		rc = add_to_list(s, "net", text);
		free(text);
		return rc;
	}
	const struct netpolicy *had = &s->d.cfg.net[first].policy;
	if (!netpolicy_covers(had, p) || !netpolicy_covers(p, had)) {
		/* The whole rule is rewritten: it is bin's, about the network alone. */
		const struct zon_node *n = &zon_field(s->d.root, "net")->items[first];
		struct edit e = {0};
		edit_add(&e, n->start, n->end, text);
		rc = session_apply(s, &e);
	} else {
		free(text);
	}
	for (size_t dup; rc == 0 && (dup = find_net(s, bin, first + 1)) != NONE;)
		rc = remove_from_list(s, "net", dup);
	return rc;
}

int config_edit_net(const char *buf, size_t len, const char *filename, const char *bin,
                    const struct netpolicy *policy, struct strbuf *out, struct error *err)
{
	struct session s;
	sb_release(out);
	if (!*bin)
		return error_set(err, "cannot set the network policy of an empty binary name");
	if (session_start(&s, buf, len, filename, NULL, err) < 0)
		return -1;
	return session_finish(&s, out, edit_net(&s, bin, policy));
}

int config_edit_allow(const char *buf, size_t len, const char *filename, const char *home,
                      const char *bin, const char *path, bool write, bool exec, struct strbuf *out,
                      struct error *err)
{
	struct session s;
	sb_release(out);
	if (!*bin || !*path)
		return error_set(err, "cannot grant an empty %s", *bin ? "path" : "binary name");
	if (session_start(&s, buf, len, filename, home, err) < 0)
		return -1;
	return session_finish(&s, out, edit_allow(&s, bin, path, write, exec));
}

int config_edit_unallow(const char *buf, size_t len, const char *filename, const char *home,
                        const char *bin, const char *path, struct strbuf *out, struct error *err)
{
	struct session s;
	sb_release(out);
	if (session_start(&s, buf, len, filename, home, err) < 0)
		return -1;
	return session_finish(&s, out, edit_unallow(&s, bin, path));
}

int config_edit_link(const char *buf, size_t len, const char *filename, const char *home,
                     const char *dir, const char *const *shells, size_t nshells, struct strbuf *out,
                     struct error *err)
{
	struct session s;
	sb_release(out);
	if (!*dir)
		return error_set(err, "cannot link an empty directory name");
	for (size_t i = 0; i < nshells; i++)
		if (!*shells[i])
			return error_set(err, "cannot link to a shell with an empty name");
	if (session_start(&s, buf, len, filename, home, err) < 0)
		return -1;
	return session_finish(&s, out, edit_link(&s, dir, shells, nshells));
}

int config_edit_unlink(const char *buf, size_t len, const char *filename, const char *home,
                       const char *dir, struct strbuf *out, struct error *err)
{
	struct session s;
	sb_release(out);
	if (session_start(&s, buf, len, filename, home, err) < 0)
		return -1;
	return session_finish(&s, out, edit_unlink(&s, dir));
}

int config_edit_env(const char *buf, size_t len, const char *filename, const char *bin,
                    const char *name, struct strbuf *out, struct error *err)
{
	struct session s;
	sb_release(out);
	if (!*bin || !*name)
		return error_set(err, "cannot pass an empty %s", *bin ? "name" : "binary name");
	if (session_start(&s, buf, len, filename, NULL, err) < 0)
		return -1;
	return session_finish(&s, out, edit_env(&s, bin, name));
}

int config_edit_unenv(const char *buf, size_t len, const char *filename, const char *bin,
                      const char *name, struct strbuf *out, struct error *err)
{
	struct session s;
	sb_release(out);
	if (session_start(&s, buf, len, filename, NULL, err) < 0)
		return -1;
	return session_finish(&s, out, edit_unenv(&s, bin, name));
}
