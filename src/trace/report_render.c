/* The --trace report rendered: the text moat run --trace prints, and the
 * JSON of --trace-json, from the report report.c builds. Paths and names
 * are shown through visible_add and suggestions as words a shell takes as
 * they are. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/envvars.h"
#include "base/path.h"
#include "report/json.h"
#include "report/profile_view.h"
#include "shells/shells.h"
#include "trace/report.h"

static const char *errno_name(int err)
{
	switch (err) {
	case EACCES: return "EACCES";
	case EPERM: return "EPERM";
	case EXDEV: return "EXDEV";
	case EROFS: return "EROFS";
	case EBUSY: return "EBUSY";
	case ENOSYS: return "ENOSYS";
	default: return "?";
	}
}

static void add_shown(struct strbuf *sb, const char *s)
{
	visible_add(sb, s, strlen(s), visible_utf8_locale());
}

static bool shell_safe(const char *s)
{
	static const char safe[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	                           "0123456789_./:@%+,=-";
	return s[strspn(s, safe)] == '\0';
}

/* A word the user can paste into a shell. Grants and names never hold
 * quotes or control characters, so single quotes always suffice. */
static void add_word(struct strbuf *sb, const char *s)
{
	if (shell_safe(s))
		sb_adds(sb, s);
	else
		sb_addf(sb, "'%s'", s);
}

/* A path as pasted: ~/REST under home when REST needs no quoting (the
 * shell expands it), otherwise the whole path as a word. */
static void add_path_word(struct strbuf *sb, const char *path, const char *home)
{
	size_t n = strlen(home);
	if (strcmp(home, "/") != 0 && strncmp(path, home, n) == 0 && path[n] == '/' &&
	    shell_safe(path + n + 1)) {
		sb_addf(sb, "~/%s", path + n + 1);
		return;
	}
	add_word(sb, path);
}

static size_t final_index(const struct report *r, size_t i)
{
	while (r->sugg[i].merged_into != NOT_MERGED)
		i = r->sugg[i].merged_into;
	return i;
}

/* The process column: name[pid], " (tool)" when it runs under a wrapped
 * tool of another name, " +N" for the other processes. */
static void add_process(struct strbuf *sb, const struct group *g)
{
	add_shown(sb, g->name ? g->name : "?");
	sb_addf(sb, "[%d]", (int)g->pid);
	if (g->tool && g->name && strcmp(g->tool, g->name) != 0) {
		sb_adds(sb, " (");
		add_shown(sb, g->tool);
		sb_adds(sb, ")");
	}
	if (g->npids > 1)
		sb_addf(sb, " +%zu", g->npids - 1);
}

static void render_groups(const struct group *groups, size_t n, struct strbuf *out)
{
	struct strbuf *procs = xcalloc(n, sizeof(*procs));
	struct strbuf *ops = xcalloc(n, sizeof(*ops));
	size_t wproc = 0, wops = 0;
	for (size_t i = 0; i < n; i++) {
		const struct group *g = &groups[i];
		add_process(&procs[i], g);
		for (unsigned op = 0; g->ops >> op; op++)
			if (g->ops & (1u << op))
				sb_addf(&ops[i], "%s%s", ops[i].len ? "," : "",
				        trace_op_name((enum trace_op)op));
		wproc = procs[i].len > wproc ? procs[i].len : wproc;
		wops = ops[i].len > wops ? ops[i].len : wops;
	}
	for (size_t i = 0; i < n; i++) {
		const struct group *g = &groups[i];
		sb_addf(out, "  %-*s  %-*s  ", (int)wproc, procs[i].buf, (int)wops, ops[i].buf);
		add_shown(out, g->key);
		if (g->rel) {
			sb_addf(out, " (%s ", g->rel);
			add_shown(out, g->rel_path);
			sb_adds(out, ")");
		}
		if (g->count > 1)
			sb_addf(out, "  (%zu times)", g->count);
		sb_addc(out, '\n');
		sb_release(&procs[i]);
		sb_release(&ops[i]);
	}
	free(procs);
	free(ops);
}

/* The text of a suggestion as pasted (a grant) or as written into
 * config.zon (a setting). */
static void add_command(struct strbuf *sb, const struct suggestion *s, const char *home)
{
	if (s->kind == SUGG_SETTING) {
		sb_adds(sb, ".sockets = .{ ");
		/* ZON strings: the path holds no quote, backslash or control
		 * character (path_refusal), so it needs no escape. */
		sb_addf(sb, "\"%s\" }", s->path);
		return;
	}
	sb_adds(sb, s->kind == SUGG_NET ? "moat allow --net " : "moat allow ");
	add_word(sb, s->bin);
	sb_addc(sb, ' ');
	if (s->kind == SUGG_NET) {
		/* digits, "listen:", "open", or a host name the proxy checked
		 * (letters, digits, '.', '-', '_', ':PORT') */
		sb_adds(sb, s->path);
		return;
	}
	add_path_word(sb, s->path, home);
	if (s->access & ACCESS_WRITE)
		sb_adds(sb, " --write");
	if (s->access & ACCESS_EXEC)
		sb_adds(sb, " --exec");
}

/* The same, shown: a grant's path and BIN always show as they are typed
 * (acceptable_grant, grant_bin), a setting's root may not. */
static void add_command_shown(struct strbuf *sb, const struct suggestion *s, const char *home)
{
	struct strbuf cmd = STRBUF_INIT;
	add_command(&cmd, s, home);
	add_shown(sb, cmd.buf);
	sb_release(&cmd);
}

static void render_suggestions(const struct report *r, const struct profile *p,
                               const struct trace_facts *f, struct strbuf *out)
{
	size_t ngrants = 0, nsettings = 0;
	for (size_t i = 0; i < r->nsugg; i++) {
		const struct suggestion *s = &r->sugg[i];
		ngrants +=
		    (s->kind == SUGG_GRANT || s->kind == SUGG_NET) && s->merged_into == NOT_MERGED;
		nsettings += s->kind == SUGG_SETTING;
	}
	if (ngrants || r->nsugg > nsettings)
		sb_adds(out, ngrants ? "\nto grant, pick the ones you actually need:\n"
		                     : "\nno grant would allow them:\n");
	for (size_t i = 0; i < r->nsugg; i++) {
		const struct suggestion *s = &r->sugg[i];
		if (s->merged_into != NOT_MERGED || s->kind == SUGG_SETTING)
			continue;
		if (s->kind == SUGG_NONE) {
			sb_adds(out, "  none for ");
			if (!trace_op_is_path(s->op))
				sb_addf(out, "%s ", trace_op_name(s->op));
			add_shown(out, s->refused);
			sb_addf(out, ": %s\n", s->why);
			continue;
		}
		sb_adds(out, "  ");
		add_command_shown(out, s, f->home);
		if (s->why)
			sb_addf(out, "   # %s", s->why);
		sb_addc(out, '\n');
	}
	for (size_t i = 0; i < r->nsugg; i++) {
		const struct suggestion *s = &r->sugg[i];
		if (s->kind != SUGG_SETTING)
			continue;
		sb_adds(out, "\nto let unix sockets through, add to ");
		add_path_word(out, f->config, f->home);
		sb_adds(out, ":\n  ");
		add_command_shown(out, s, f->home);
		sb_addf(out, "\n  (%s)\n", s->why);
	}
	if (r->home_cache) {
		/* The real path: $MOAT_ROOT is set only inside the sandbox, and
		 * pasted outside it would name /.moat/home. */
		cleanup_free char *home = path_join(p->root, ".moat/home");
		cleanup_free char *assign = xasprintf(ENV_HOME_OVERRIDE "=%s", home);
		sb_adds(
		    out,
		    "hint: a tool that keeps its cache or config under your home directory is "
		    "usually better served by a home inside the project than by a grant: run it "
		    "with ");
		if (visible_as_is(assign))
			add_word(out, assign);
		else
			add_shown(out, assign);
		sb_addc(out, '\n');
	}
}

void trace_report(const struct trace_log *log, const struct profile *p, const struct trace_facts *f,
                  struct strbuf *out)
{
	if (log->n == 0 && !f->proxy_unrecorded) {
		sb_adds(out, "moat: nothing was denied by the sandbox\n");
		return;
	}
	struct report r;
	report_build(&r, log, p, f);
	if (r.ngroups) {
		sb_addf(out, "\nmoat: %zu path(s) denied by the sandbox\n", r.ngroups);
		render_groups(r.groups, r.ngroups, out);
	}
	if (r.nothers) {
		sb_addf(out, "\nmoat: %zu system call(s) refused by the sandbox's seccomp filter\n",
		        r.nothers);
		render_groups(r.others, r.nothers, out);
	}
	if (r.nproxied) {
		sb_addf(out, "\nmoat: %zu host(s) refused by moat's proxy (the network policy)\n",
		        r.nproxied);
		render_groups(r.proxied, r.nproxied, out);
	}
	if (f->proxy_unrecorded)
		sb_addf(out, "moat: %zu more refusals of moat's proxy not recorded\n",
		        f->proxy_unrecorded);
	render_suggestions(&r, p, f, out);
	report_free(&r);
}

/* One refusal as JSON: identical events (same process, operation, path)
 * are one entry with a count. */
static bool same_event(const struct trace_denial *a, const struct trace_denial *b)
{
#define SAME(x) ((a->x == NULL) == (b->x == NULL) && (!a->x || strcmp(a->x, b->x) == 0))
	return a->pid == b->pid && a->op == b->op && a->err == b->err && SAME(name) && SAME(tool) &&
	       SAME(path) && SAME(other) && SAME(detail);
#undef SAME
}

static void json_suggestion_text(struct json *j, const struct suggestion *s, const char *home)
{
	struct strbuf cmd = STRBUF_INIT;
	add_command(&cmd, s, home);
	json_string(j, NULL, cmd.buf);
	sb_release(&cmd);
}

static uint64_t hash_str(uint64_t h, const char *s)
{
	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return (h ^ (s ? 0xff : 0xfe)) * 0x100000001b3ull;
}

static uint64_t event_hash(const struct trace_denial *d)
{
	uint64_t h = 0xcbf29ce484222325ull ^ (uint64_t)d->pid ^ (uint64_t)d->op << 32 ^
	             (uint64_t)d->err << 40;
	h = hash_str(hash_str(hash_str(h, d->name), d->tool), d->path);
	return hash_str(hash_str(h, d->other), d->detail);
}

/* For each entry the first entry of its event (itself, or an earlier one)
 * and, for the first, how many entries the event has: one hash table pass,
 * since a busy trace logs thousands of refusals. */
static void count_events(const struct trace_log *log, size_t *first, size_t *count)
{
	size_t cap = 16;
	while (cap < 2 * log->n)
		cap *= 2;
	size_t *slots = xcalloc(cap, sizeof(*slots)); /* entry + 1, 0 for empty */
	for (size_t i = 0; i < log->n; i++) {
		size_t at = (size_t)event_hash(&log->v[i]) & (cap - 1);
		while (slots[at] && !same_event(&log->v[slots[at] - 1], &log->v[i]))
			at = (at + 1) & (cap - 1);
		if (!slots[at])
			slots[at] = i + 1;
		first[i] = slots[at] - 1;
		count[first[i]]++;
	}
	free(slots);
}

static void json_refusals(struct json *j, const struct report *r, const struct trace_log *log,
                          const char *home)
{
	size_t *first = xcalloc(log->n, sizeof(*first));
	size_t *count = xcalloc(log->n, sizeof(*count));
	count_events(log, first, count);
	json_begin_array(j, "refusals");
	for (size_t i = 0; i < log->n; i++) {
		const struct trace_denial *d = &log->v[i];
		if (first[i] != i)
			continue;
		json_begin_object(j, NULL);
		json_int(j, "pid", d->pid);
		json_string(j, "program", d->name);
		json_string(j, "tool", d->tool);
		json_string(j, "operation", trace_op_name(d->op));
		json_string(j, "path", d->path);
		json_string(j, "other", d->other);
		json_string(j, "detail", d->detail);
		json_string(j, "errno", errno_name(d->err));
		json_int(j, "count", (long long)count[i]);
		json_begin_array(j, "suggestions");
		const char *why = NULL;
		for (size_t k = 0; k < r->nof[i]; k++) {
			const struct suggestion *s = &r->sugg[final_index(r, r->of[i][k])];
			if (s->kind == SUGG_NONE)
				why = s->why;
			else
				json_suggestion_text(j, s, home);
		}
		json_end_array(j);
		json_string(j, "why", why);
		json_end_object(j);
	}
	json_end_array(j);
	free(first);
	free(count);
}

static void json_suggestions(struct json *j, const struct report *r, const char *home,
                             const char *config)
{
	json_begin_array(j, "suggestions");
	for (size_t i = 0; i < r->nsugg; i++) {
		const struct suggestion *s = &r->sugg[i];
		if (s->merged_into != NOT_MERGED || s->kind == SUGG_NONE)
			continue;
		json_begin_object(j, NULL);
		json_string(j, "kind",
		            s->kind == SUGG_GRANT ? "grant"
		            : s->kind == SUGG_NET ? "net"
		                                  : "setting");
		struct strbuf cmd = STRBUF_INIT;
		add_command(&cmd, s, home);
		json_string(j, "text", cmd.buf);
		sb_release(&cmd);
		if (s->kind == SUGG_GRANT) {
			json_string(j, "bin", s->bin);
			json_string(j, "path", s->path);
			json_access(j, "access", s->access);
		} else if (s->kind == SUGG_NET) {
			json_string(j, "bin", s->bin);
			json_string(j, "net", s->path);
		} else {
			json_string(j, "file", config);
			json_string(j, "key", "sockets");
			json_string(j, "value", s->path);
		}
		json_string(j, "why", s->why);
		json_end_object(j);
	}
	json_end_array(j);
}

void trace_report_json(const struct trace_log *log, const struct profile *p,
                       const struct trace_facts *f, struct strbuf *out)
{
	struct report r;
	report_build(&r, log, p, f);
	struct json j = {.out = out};
	json_begin_object(&j, NULL);
	json_int(&j, "version", MOAT_JSON_VERSION);
	json_string(&j, "kind", "trace");
	json_string(&j, "root", p->root);
	json_int(&j, "status", f->status);
	json_refusals(&j, &r, log, f->home);
	json_suggestions(&j, &r, f->home, f->config);
	json_begin_array(&j, "hints");
	if (r.home_cache) {
		cleanup_free char *home = path_join(p->root, ".moat/home");
		json_begin_object(&j, NULL);
		json_string(&j, "text",
		            "a tool that keeps its cache or config under your home "
		            "directory is usually better served by a home inside the "
		            "project than by a grant");
		json_string(&j, "env", ENV_HOME_OVERRIDE);
		json_string(&j, "value", home);
		json_end_object(&j);
	}
	json_end_array(&j);
	json_end_object(&j);
	sb_addc(out, '\n');
	report_free(&r);
}
