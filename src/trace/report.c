/* The --trace report: pure, from the log and the profile, so the grouping
 * and every suggestion can be tested on plain data.
 *
 * A suggestion names the path a Landlock rule would have to cover, which is
 * not always the path that was refused: creating, removing or renaming needs
 * write access to the directory that holds the entry, and a rename or link
 * into a place with more rights (the root has exec) needs those rights at
 * the source too, or Landlock answers EXDEV. A suggestion is never a path
 * `moat allow` would refuse: for one with a quote or control character the
 * nearest ancestor it accepts is offered, and for $HOME or a directory
 * containing it the report says that no grant exists. */
#include <string.h>

#include "base/path.h"
#include "shells/shells.h"
#include "trace/trace.h"

void trace_log_add(struct trace_log *log, pid_t pid, const char *name, enum trace_op op,
                   const char *path, const char *other, int err)
{
	log->v = xrealloc_array(log->v, log->n + 1, sizeof(*log->v));
	log->v[log->n++] = (struct trace_denial){
	    .pid = pid,
	    .name = xstrdup(name),
	    .op = op,
	    .path = xstrdup(path),
	    .other = other ? xstrdup(other) : NULL,
	    .err = err,
	};
}

void trace_log_free(struct trace_log *log)
{
	for (size_t i = 0; i < log->n; i++) {
		free(log->v[i].name);
		free(log->v[i].path);
		free(log->v[i].other);
	}
	free(log->v);
	*log = (struct trace_log){0};
}

static const char *const op_names[] = {
    [TRACE_READ] = "read",       [TRACE_LIST] = "list",     [TRACE_WRITE] = "write",
    [TRACE_EXEC] = "exec",       [TRACE_CREATE] = "create", [TRACE_MKDIR] = "mkdir",
    [TRACE_SYMLINK] = "symlink", [TRACE_BIND] = "bind",     [TRACE_REMOVE] = "remove",
    [TRACE_RENAME] = "rename",   [TRACE_LINK] = "link",
};

const char *trace_op_name(enum trace_op op)
{
	return (size_t)op < ARRAY_LEN(op_names) && op_names[op] ? op_names[op] : "?";
}

/* What the profile gives at path: Landlock unions the rights of every rule
 * on the path and its ancestors. */
static unsigned profile_access(const struct profile *p, const char *path)
{
	unsigned access = 0;
	for (size_t i = 0; p && i < p->nrules; i++)
		if (path_is_under(path, p->rules[i].path))
			access |= p->rules[i].access;
	return access;
}

/* One grant a denial needs: access at path. */
struct need {
	char *path;
	unsigned access;
};

#define MAX_NEEDS 2

static void add_need(struct need *needs, size_t *n, const struct profile *p, char *path,
                     unsigned access)
{
	if ((profile_access(p, path) & access) == access || *n == MAX_NEEDS) {
		free(path);
		return;
	}
	needs[(*n)++] = (struct need){path, access};
}

/* Moving or linking an entry from src_dir to dst_dir: write (Landlock's
 * REFER comes with it) in src_dir, and there at least the rights dst_dir
 * has, so the entry gains nothing by the move; write in dst_dir. */
static size_t needs_for_move(const struct trace_denial *d, const struct profile *p,
                             struct need *needs)
{
	size_t n = 0;
	char *src_dir = path_dirname(d->path);
	char *dst_dir = path_dirname(d->other ? d->other : d->path);
	unsigned dst = profile_access(p, dst_dir) | ACCESS_RW;
	add_need(needs, &n, p, src_dir, ACCESS_RW | (dst & ACCESS_EXEC));
	add_need(needs, &n, p, dst_dir, ACCESS_RW);
	return n;
}

/* The grants that would have allowed d, and the path to show for it. Zero
 * needs means the profile already gives that access: the sandbox refused for
 * a reason no grant changes. */
static size_t needs_for(const struct trace_denial *d, const struct profile *p, struct need *needs,
                        const char **shown)
{
	size_t n = 0;
	*shown = d->path;
	switch (d->op) {
	case TRACE_READ:
	case TRACE_LIST: add_need(needs, &n, p, xstrdup(d->path), ACCESS_READ); break;
	case TRACE_WRITE: add_need(needs, &n, p, xstrdup(d->path), ACCESS_RW); break;
	case TRACE_EXEC:
		add_need(needs, &n, p, xstrdup(d->path), ACCESS_RX);
		/* The script may run; the kernel refused its interpreter. */
		if (d->other) {
			if (n == 0)
				*shown = d->other;
			add_need(needs, &n, p, xstrdup(d->other), ACCESS_RX);
		}
		break;
	case TRACE_CREATE:
	case TRACE_MKDIR:
	case TRACE_SYMLINK:
	case TRACE_BIND:
	case TRACE_REMOVE: add_need(needs, &n, p, path_dirname(d->path), ACCESS_RW); break;
	case TRACE_RENAME:
	case TRACE_LINK: n = needs_for_move(d, p, needs); break;
	}
	return n;
}

/* The grant `moat allow` accepts for path (needed for the denied path
 * shown): path itself or, when its characters are refused, its nearest
 * ancestor that is not. NULL with why set when there is none. */
static char *acceptable_grant(const char *path, const char *shown, const char *home,
                              struct strbuf *why)
{
	if (path[0] != '/') {
		sb_adds(why, "moat could not tell which directory it was relative to");
		return NULL;
	}
	char *grant = xstrdup(path);
	const char *refused = path_refusal(grant);
	while (path_refusal(grant)) {
		char *up = path_dirname(grant);
		free(grant);
		grant = up;
	}
	if (path_is_under(home, grant)) {
		const char *rel = strcmp(grant, home) == 0 ? "is" : "contains";
		if (strcmp(grant, shown) == 0)
			sb_addf(why, "it %s your home directory, and moat allow refuses that", rel);
		else
			sb_addf(why,
			        "it needs a grant on %s, which %s your home directory, and moat "
			        "allow refuses that",
			        grant, rel);
		free(grant);
		return NULL;
	}
	if (refused)
		sb_addf(why,
		        "the path itself is refused (%s); this is the nearest directory that "
		        "is not",
		        refused);
	return grant;
}

/* Bytes that would upset a terminal or forge a line, shown as \xNN. */
static void add_shown(struct strbuf *sb, const char *s)
{
	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		if (*c < 0x20 || *c == 0x7f || *c == '\\')
			sb_addf(sb, "\\x%02x", *c);
		else
			sb_addc(sb, (char)*c);
	}
}

static bool shell_safe(const char *s)
{
	static const char safe[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	                           "0123456789_./:@%+,=-";
	return s[strspn(s, safe)] == '\0';
}

/* A word the user can paste into a shell. Grants never hold quotes or
 * control characters, so single quotes always suffice. */
static void add_word(struct strbuf *sb, const char *s)
{
	if (shell_safe(s))
		sb_adds(sb, s);
	else
		sb_addf(sb, "'%s'", s);
}

/* The BIN for a suggestion: the process name, or '*' for a name moat allow
 * would refuse or that cannot be pasted safely. */
static const char *grant_bin(const char *name)
{
	if (!name || tool_name_refusal(name) || name[0] == '-' || strchr(name, '\''))
		return "*";
	return name;
}

/* One line of the report: every denial of the same path. */
struct group {
	const char *path;           /* borrowed from the log */
	const char *rel, *rel_path; /* "to" the destination, "interpreter of" a script */
	unsigned ops;               /* 1 << enum trace_op */
	pid_t pid;                  /* the first process refused */
	const char *name;
	pid_t *pids; /* distinct processes */
	size_t npids;
	size_t count;
};

struct suggestion {
	const char *bin;
	char *path; /* NULL: none exists, why says so */
	unsigned access;
	char *why;
	const char *refused; /* the denied path, for "none" lines */
};

struct report {
	struct group *groups;
	size_t ngroups;
	struct suggestion *sugg;
	size_t nsugg;
	bool home_cache; /* a write under $HOME: MOAT_ENV_HOME is worth a hint */
};

static struct group *group_for(struct report *r, const struct trace_denial *d, const char *shown)
{
	for (size_t i = 0; i < r->ngroups; i++)
		if (strcmp(r->groups[i].path, shown) == 0)
			return &r->groups[i];
	r->groups = xrealloc_array(r->groups, r->ngroups + 1, sizeof(*r->groups));
	struct group *g = &r->groups[r->ngroups++];
	*g = (struct group){.path = shown, .pid = d->pid, .name = d->name};
	if (shown == d->path && d->other && (d->op == TRACE_RENAME || d->op == TRACE_LINK))
		g->rel = "to", g->rel_path = d->other;
	else if (shown != d->path)
		g->rel = "interpreter of", g->rel_path = d->path;
	return g;
}

static void group_add(struct group *g, const struct trace_denial *d)
{
	g->ops |= 1u << d->op;
	g->count++;
	for (size_t i = 0; i < g->npids; i++)
		if (g->pids[i] == d->pid)
			return;
	g->pids = xrealloc_array(g->pids, g->npids + 1, sizeof(pid_t));
	g->pids[g->npids++] = d->pid;
}

/* Add a suggestion, merging one for the same binary and path. */
static void suggest(struct report *r, const char *bin, char *path, unsigned access, char *why,
                    const char *refused)
{
	for (size_t i = 0; i < r->nsugg; i++) {
		struct suggestion *s = &r->sugg[i];
		bool same = path ? s->path && strcmp(s->bin, bin) == 0 && strcmp(s->path, path) == 0
		                 : !s->path && strcmp(s->refused, refused) == 0;
		if (same) {
			s->access |= access;
			free(path);
			free(why);
			return;
		}
	}
	r->sugg = xrealloc_array(r->sugg, r->nsugg + 1, sizeof(*r->sugg));
	r->sugg[r->nsugg++] = (struct suggestion){bin, path, access, why, refused};
}

static bool is_proc_pid(const char *path)
{
	if (strncmp(path, "/proc/", 6) != 0)
		return false;
	const char *c = path + 6;
	if (*c < '0' || *c > '9')
		return false;
	while (*c >= '0' && *c <= '9')
		c++;
	return *c == '/' || *c == '\0';
}

static void add_denial(struct report *r, const struct trace_denial *d, const struct profile *p,
                       const char *home)
{
	struct need needs[MAX_NEEDS];
	const char *shown;
	size_t n = needs_for(d, p, needs, &shown);
	group_add(group_for(r, d, shown), d);
	const char *bin = grant_bin(d->name);
	if (n == 0) {
		static const char proc[] = "Landlock keeps processes outside the sandbox out of "
		                           "reach, and no grant changes that";
		static const char other[] = "the profile already allows this there; the sandbox "
		                            "refused it for a reason no grant changes";
		suggest(r, bin, NULL, 0, xstrdup(is_proc_pid(shown) ? proc : other), shown);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		struct strbuf why = STRBUF_INIT;
		char *grant = acceptable_grant(needs[i].path, shown, home, &why);
		if ((needs[i].access & ACCESS_WRITE) && path_is_under(needs[i].path, home))
			r->home_cache = true;
		suggest(r, bin, grant, needs[i].access, why.len ? sb_detach(&why) : NULL,
		        grant ? NULL : shown);
		sb_release(&why);
		free(needs[i].path);
	}
}

static void render_groups(const struct report *r, struct strbuf *out)
{
	struct strbuf *procs = xcalloc(r->ngroups, sizeof(*procs));
	struct strbuf *ops = xcalloc(r->ngroups, sizeof(*ops));
	size_t wproc = 0, wops = 0;
	for (size_t i = 0; i < r->ngroups; i++) {
		const struct group *g = &r->groups[i];
		add_shown(&procs[i], g->name ? g->name : "?");
		sb_addf(&procs[i], "[%d]", (int)g->pid);
		if (g->npids > 1)
			sb_addf(&procs[i], " +%zu", g->npids - 1);
		for (unsigned op = 0; op < ARRAY_LEN(op_names); op++)
			if (g->ops & (1u << op))
				sb_addf(&ops[i], "%s%s", ops[i].len ? "," : "", op_names[op]);
		wproc = procs[i].len > wproc ? procs[i].len : wproc;
		wops = ops[i].len > wops ? ops[i].len : wops;
	}
	for (size_t i = 0; i < r->ngroups; i++) {
		const struct group *g = &r->groups[i];
		sb_addf(out, "  %-*s  %-*s  ", (int)wproc, procs[i].buf, (int)wops, ops[i].buf);
		add_shown(out, g->path);
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

static void render_suggestions(const struct report *r, struct strbuf *out)
{
	size_t ngrants = 0;
	for (size_t i = 0; i < r->nsugg; i++)
		ngrants += r->sugg[i].path != NULL;
	sb_adds(out, ngrants ? "\nto grant, pick the ones you actually need:\n"
	                     : "\nno grant would allow them:\n");
	for (size_t i = 0; i < r->nsugg; i++) {
		const struct suggestion *s = &r->sugg[i];
		if (!s->path) {
			sb_adds(out, "  none for ");
			add_shown(out, s->refused);
			sb_addf(out, ": %s\n", s->why);
			continue;
		}
		sb_adds(out, "  moat allow ");
		add_word(out, s->bin);
		sb_addc(out, ' ');
		add_word(out, s->path);
		if (s->access & ACCESS_WRITE)
			sb_adds(out, " --write");
		if (s->access & ACCESS_EXEC)
			sb_adds(out, " --exec");
		if (s->why)
			sb_addf(out, "   # %s", s->why);
		sb_addc(out, '\n');
	}
	if (r->home_cache)
		sb_adds(out, "hint: a tool that keeps its cache or config under $HOME is "
		             "usually better served by MOAT_ENV_HOME=$MOAT_ROOT/.moat/home than "
		             "by a grant\n");
}

void trace_report(const struct trace_log *log, const struct profile *p, const char *home,
                  struct strbuf *out)
{
	if (log->n == 0) {
		sb_adds(out, "moat: nothing was denied by the sandbox\n");
		return;
	}
	struct report r = {0};
	for (size_t i = 0; i < log->n; i++)
		add_denial(&r, &log->v[i], p, home);
	sb_addf(out, "\nmoat: %zu path(s) denied by the sandbox\n", r.ngroups);
	render_groups(&r, out);
	render_suggestions(&r, out);
	for (size_t i = 0; i < r.ngroups; i++)
		free(r.groups[i].pids);
	for (size_t i = 0; i < r.nsugg; i++) {
		free(r.sugg[i].path);
		free(r.sugg[i].why);
	}
	free(r.groups);
	free(r.sugg);
}
