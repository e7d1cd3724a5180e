/* Edits of config.zon, one setting at a time (grants, secrets, links, the
 * network), through the machinery of edit_doc.c, which keeps the user's file
 * byte for byte but for the splices each step makes. */
#include <string.h>

#include "base/path.h"
#include "config/edit_doc.h"
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

/* Where a grant applies: every project (n == 0), or projects under dirs. */
struct scope {
	const char *const *dirs;
	size_t n;
};

/* Is r bin's rule for exactly this scope (the same dirs, in any order)?
 * Rules of other scopes are never touched. */
static bool rule_for(const struct session *s, const struct config_allow *r, const char *bin,
                     struct scope sc)
{
	if (r->ndirs != sc.n || strcmp(r->bin, bin) != 0)
		return false;
	for (size_t i = 0; i < sc.n; i++) {
		size_t j = 0;
		while (j < r->ndirs && !config_same_path(r->dirs[j], sc.dirs[i], s->home))
			j++;
		if (j == r->ndirs)
			return false;
	}
	return true;
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
		session_append(s, r, false, text, &e);
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
		session_remove_item(s, paths, j, &e);
		if (session_apply(s, &e) < 0)
			return -1;
	}
}

static int add_rule(struct session *s, const char *bin, const char *path, bool write, bool exec,
                    struct scope sc)
{
	struct strbuf rule = STRBUF_INIT;
	sb_adds(&rule, ".{ .bin = ");
	zon_quote(&rule, bin, strlen(bin));
	sb_adds(&rule, ", .paths = .{ ");
	zon_quote(&rule, path, strlen(path));
	sb_addf(&rule, " }%s%s", write ? ", .write = true" : "", exec ? ", .exec = true" : "");
	for (size_t i = 0; i < sc.n; i++) {
		sb_adds(&rule, i ? ", " : ", .dirs = .{ ");
		zon_quote(&rule, sc.dirs[i], strlen(sc.dirs[i]));
	}
	sb_adds(&rule, sc.n ? " } }" : " }");
	int rc = session_add_to_list(s, "allow", rule.buf);
	sb_release(&rule);
	return rc;
}

static int edit_allow(struct session *s, const char *bin, const char *path, bool write, bool exec,
                      struct scope sc)
{
	const struct config *cfg = &s->d.cfg;
	bool has_write = false, has_exec = false;
	size_t any = NONE, whole = NONE;
	for (size_t i = 0; i < cfg->nallow; i++) {
		const struct config_allow *r = &cfg->allow[i];
		size_t hits = rule_for(s, r, bin, sc) ? count_path(s, r, path) : 0;
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
	return add_rule(s, bin, path, write, exec, sc);
}

static int edit_unallow(struct session *s, const char *bin, const char *path, struct scope sc)
{
	for (;;) {
		const struct config *cfg = &s->d.cfg;
		size_t i = 0, hits = 0;
		for (; i < cfg->nallow; i++) {
			if (rule_for(s, &cfg->allow[i], bin, sc) &&
			    (hits = count_path(s, &cfg->allow[i], path)))
				break;
		}
		if (i == cfg->nallow)
			return 0;
		int rc = hits == cfg->allow[i].npaths ? session_remove_from_list(s, "allow", i)
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
		session_append(s, zon_field(&zon_field(s->d.root, "env")->items[rule], "names"),
		               false, text.buf, &e);
		rc = session_apply(s, &e);
	} else {
		sb_adds(&text, ".{ .bin = ");
		zon_quote(&text, bin, strlen(bin));
		sb_adds(&text, ", .names = .{ ");
		zon_quote(&text, name, strlen(name));
		sb_adds(&text, " } }");
		rc = session_add_to_list(s, "env", text.buf);
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
			session_remove_item(s, zon_field(s->d.root, "env"), i, &e);
		else
			session_remove_item(
			    s, zon_field(&zon_field(s->d.root, "env")->items[i], "names"), j, &e);
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
		rc = session_add_to_list(s, "links", text.buf);
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
		rc = session_remove_from_list(s, "links", dup);
	return rc;
}

static int edit_unlink(struct session *s, const char *dir)
{
	for (size_t i; (i = find_link(s, dir, 0)) != NONE;)
		if (session_remove_from_list(s, "links", i) < 0)
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
			rc = session_remove_from_list(s, "net", i);
		return rc;
	}
	char *text = net_rule_text(bin, p);
	if (first == NONE) {
		rc = session_add_to_list(s, "net", text);
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
		rc = session_remove_from_list(s, "net", dup);
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

int config_edit_allow_in(const char *buf, size_t len, const char *filename, const char *home,
                         const char *bin, const char *path, bool write, bool exec,
                         const char *const *dirs, size_t ndirs, struct strbuf *out,
                         struct error *err)
{
	struct session s;
	sb_release(out);
	if (!*bin || !*path)
		return error_set(err, "cannot grant an empty %s", *bin ? "path" : "binary name");
	for (size_t i = 0; i < ndirs; i++)
		if (!*dirs[i])
			return error_set(err, "cannot limit a grant to an empty directory name");
	if (session_start(&s, buf, len, filename, home, err) < 0)
		return -1;
	return session_finish(&s, out,
	                      edit_allow(&s, bin, path, write, exec, (struct scope){dirs, ndirs}));
}

int config_edit_allow(const char *buf, size_t len, const char *filename, const char *home,
                      const char *bin, const char *path, bool write, bool exec, struct strbuf *out,
                      struct error *err)
{
	return config_edit_allow_in(buf, len, filename, home, bin, path, write, exec, NULL, 0, out,
	                            err);
}

int config_edit_unallow_in(const char *buf, size_t len, const char *filename, const char *home,
                           const char *bin, const char *path, const char *const *dirs, size_t ndirs,
                           struct strbuf *out, struct error *err)
{
	struct session s;
	sb_release(out);
	if (session_start(&s, buf, len, filename, home, err) < 0)
		return -1;
	return session_finish(&s, out, edit_unallow(&s, bin, path, (struct scope){dirs, ndirs}));
}

int config_edit_unallow(const char *buf, size_t len, const char *filename, const char *home,
                        const char *bin, const char *path, struct strbuf *out, struct error *err)
{
	return config_edit_unallow_in(buf, len, filename, home, bin, path, NULL, 0, out, err);
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
