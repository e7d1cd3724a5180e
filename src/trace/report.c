/* The --trace report: pure, from the log and the profile, so the grouping
 * and every suggestion can be tested on plain data.
 *
 * A suggestion names the path a Landlock rule would have to cover, which is
 * not always the path that was refused: creating, removing or renaming needs
 * write access to the directory that holds the entry, and a rename or link
 * into a place with more rights (the root has exec) needs those rights at
 * the source too, or Landlock answers EXDEV. A suggestion is never a path
 * `moat allow` would refuse, nor one that cannot be shown as it is typed:
 * for one with a quote or control character the nearest ancestor that has
 * none is offered, and for $HOME or a directory containing it the report
 * says that no grant exists. Several grants one tool needs under a
 * directory it owns (~/.pyenv, ~/.cache/pip) become one grant on that
 * directory, so a single round of pasting fixes the run.
 *
 * The BIN of a grant is the wrapped tool the process runs under (the
 * tracer knows which moat-wrapper started it), else the process's name:
 * a grant for npm reaches npm's wrapper, a grant for the node running
 * npm's script would not.
 *
 * Refusals by the seccomp filter name no path; each says what would allow
 * it (a .sockets entry in config.zon for unix sockets) or why nothing does. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/path.h"
#include "context/programs.h"
#include "report/json.h"
#include "report/profile_view.h"
#include "shells/shells.h"
#include "trace/report.h"

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

void trace_log_add(struct trace_log *log, const struct trace_denial *d)
{
	log->v = xrealloc_array(log->v, log->n + 1, sizeof(*log->v));
	log->v[log->n++] = (struct trace_denial){
	    .pid = d->pid,
	    .name = xstrdup(d->name ? d->name : "?"),
	    .tool = dup_or_null(d->tool),
	    .op = d->op,
	    .path = dup_or_null(d->path),
	    .other = dup_or_null(d->other),
	    .detail = dup_or_null(d->detail),
	    .err = d->err,
	    .why = d->why,
	};
}

void trace_log_free(struct trace_log *log)
{
	for (size_t i = 0; i < log->n; i++) {
		free(log->v[i].name);
		free(log->v[i].tool);
		free(log->v[i].path);
		free(log->v[i].other);
		free(log->v[i].detail);
	}
	free(log->v);
	*log = (struct trace_log){0};
}

static const char *const op_names[] = {
    [TRACE_READ] = "read",         [TRACE_LIST] = "list",
    [TRACE_WRITE] = "write",       [TRACE_EXEC] = "exec",
    [TRACE_CREATE] = "create",     [TRACE_MKDIR] = "mkdir",
    [TRACE_SYMLINK] = "symlink",   [TRACE_BIND] = "bind",
    [TRACE_REMOVE] = "remove",     [TRACE_RENAME] = "rename",
    [TRACE_LINK] = "link",         [TRACE_SOCKET] = "socket",
    [TRACE_IOCTL] = "ioctl",       [TRACE_SETID] = "chmod",
    [TRACE_SYSCALL] = "syscall",   [TRACE_NET_CONNECT] = "connect",
    [TRACE_NET_LISTEN] = "listen", [TRACE_NET_SOCKET] = "net-socket",
};

const char *trace_op_name(enum trace_op op)
{
	return (size_t)op < ARRAY_LEN(op_names) && op_names[op] ? op_names[op] : "?";
}

/* One grant a denial needs: access at path. */
struct need {
	char *path;
	unsigned access;
};

static void add_need(struct need *needs, size_t *n, const struct profile *p, char *path,
                     unsigned access)
{
	if ((profile_access_at(p, path) & access) == access || *n == MAX_NEEDS) {
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
	unsigned dst = profile_access_at(p, dst_dir) | ACCESS_RW;
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
	default: break;
	}
	return n;
}

/* The grant `moat allow` accepts for path (needed for the denied path
 * shown), and that shows as it is typed: path itself or, when its
 * characters are refused or would be escaped, its nearest ancestor that is
 * neither. NULL with why set when there is none. */
static char *acceptable_grant(const char *path, const char *shown, const char *home,
                              struct strbuf *why)
{
	if (path[0] != '/') {
		sb_adds(why, "moat could not tell which directory it was relative to");
		return NULL;
	}
	char *grant = xstrdup(path);
	const char *refused = path_refusal(grant);
	if (!refused && !visible_as_is(grant))
		refused = "it contains a control or invisible character";
	while (path_refusal(grant) || !visible_as_is(grant)) {
		char *up = path_dirname(grant);
		free(grant);
		grant = up;
	}
	if (path_is_proc_pid(grant)) {
		sb_adds(why,
		        "it is one process's, whose id changes every run: no grant of it holds "
		        "the next time");
		free(grant);
		return NULL;
	}
	if (path_is_under(home, grant)) {
		const char *rel = strcmp(grant, home) == 0 ? "is" : "contains";
		if (strcmp(grant, shown) == 0) {
			sb_addf(why, "it %s your home directory, and moat allow refuses that", rel);
		} else {
			sb_adds(why, "it needs a grant on ");
			visible_add(why, grant, strlen(grant), visible_utf8_locale());
			sb_addf(why, ", which %s your home directory, and moat allow refuses that",
			        rel);
		}
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

/* The BIN for a suggestion: the wrapped tool the process runs under, else
 * the process name; '*' for a name moat allow would refuse or that cannot
 * be pasted as shown. */
static const char *grant_bin(const struct trace_denial *d)
{
	const char *name = d->tool ? d->tool : d->name;
	if (!name || tool_name_refusal(name) || name[0] == '-' || strchr(name, '\'') ||
	    !visible_as_is(name))
		return "*";
	return name;
}

static struct group *group_for(struct group **groups, size_t *n, const struct trace_denial *d,
                               const char *key)
{
	for (size_t i = 0; i < *n; i++)
		if ((*groups)[i].op == d->op || trace_op_is_path(d->op))
			if (strcmp((*groups)[i].key, key) == 0)
				return &(*groups)[i];
	*groups = xrealloc_array(*groups, *n + 1, sizeof(**groups));
	struct group *g = &(*groups)[(*n)++];
	*g = (struct group){
	    .op = d->op, .key = key, .pid = d->pid, .name = d->name, .tool = d->tool};
	if (key == d->path && d->other && (d->op == TRACE_RENAME || d->op == TRACE_LINK))
		g->rel = "to", g->rel_path = d->other;
	else if (trace_op_is_path(d->op) && key != d->path)
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

/* "none" for the same thing: the same path, whatever was done to it; or
 * the same refusal of the seccomp filter. */
static bool same_refusal(const struct suggestion *a, const struct suggestion *b)
{
	bool path = trace_op_is_path(a->op);
	return path == trace_op_is_path(b->op) && (path || a->op == b->op) &&
	       strcmp(a->refused, b->refused) == 0;
}

/* Add a suggestion, merging one of the same kind for the same binary and
 * path (or the same refusal); returns its index. Takes path and why. */
static size_t suggest(struct report *r, struct suggestion s)
{
	for (size_t i = 0; i < r->nsugg; i++) {
		struct suggestion *o = &r->sugg[i];
		bool same = o->kind == s.kind &&
		            (s.kind == SUGG_GRANT || s.kind == SUGG_NET
		                 ? strcmp(o->bin, s.bin) == 0 && strcmp(o->path, s.path) == 0
		             : s.kind == SUGG_SETTING ? strcmp(o->path, s.path) == 0
		                                      : same_refusal(o, &s));
		if (same) {
			o->access |= s.access;
			free(s.path);
			free(s.why);
			return i;
		}
	}
	s.merged_into = NOT_MERGED;
	r->sugg = xrealloc_array(r->sugg, r->nsugg + 1, sizeof(*r->sugg));
	r->sugg[r->nsugg] = s;
	return r->nsugg++;
}

static void note(struct report *r, size_t entry, size_t sugg)
{
	for (size_t i = 0; i < r->nof[entry]; i++)
		if (r->of[entry][i] == sugg)
			return;
	if (r->nof[entry] < MAX_NEEDS)
		r->of[entry][r->nof[entry]++] = sugg;
}

/* The protected rule path is (below), or is for a pinned git directory
 * itself: writes there are refused by a mount, whatever a grant says. */
static const struct rule *protected_rule(const struct profile *p, const char *path)
{
	for (size_t i = 0; path && i < p->nrules; i++) {
		const struct rule *rl = &p->rules[i];
		if ((rl->origin == ORIGIN_PROTECTED && path_is_under(path, rl->path)) ||
		    (rl->origin == ORIGIN_PINNED && strcmp(path, rl->path) == 0))
			return &p->rules[i];
	}
	return NULL;
}

/* Why a read-only protected path is so: a PATH directory below a write
 * grant (context/programs.h), or git's and .protect's. */
static char *protected_why(const struct rule *prot, const struct trace_facts *f)
{
	static const char ro[] =
	    "protected: moat keeps it read-only, since git (or what .protect lists) runs "
	    "it outside the sandbox later; change it outside moat, or opt the project out "
	    "with .unprotected in config.zon";
	char *program = programs_write_refusal(prot->path, f->path_env, f->home);
	if (!program)
		return xstrdup(ro);
	struct strbuf sb = STRBUF_INIT;
	sb_adds(&sb, "protected: moat keeps it read-only, since ");
	visible_add(&sb, program, strlen(program), visible_utf8_locale());
	sb_adds(&sb, "; install programs outside moat");
	free(program);
	return sb_detach(&sb);
}

static char *owner_dir(const char *path, const char *home);

/* The tree a PATH directory below home belongs to, or NULL: a version
 * manager's for its shims or bin directory (~/.pyenv for ~/.pyenv/shims)
 * where that is a tool's own directory (not home, ~/.local or a directory
 * of secrets), else the directory itself (~/.local/bin, ~/bin). */
static char *path_dir_tree(const char *dir, const char *home)
{
	const char *base = strrchr(dir, '/') + 1;
	if (strcmp(base, "bin") == 0 || strcmp(base, "shims") == 0) {
		char *up = path_dirname(dir), *owner = owner_dir(up, home);
		bool own = owner && strcmp(owner, up) == 0;
		free(owner);
		if (own)
			return up;
		free(up);
	}
	char *owner = owner_dir(dir, home);
	bool own = owner != NULL;
	free(owner);
	return own ? xstrdup(dir) : NULL;
}

/* The tree of a PATH directory below home that path lies in, or NULL. A
 * shim, run by whatever runs the tool, execs the real program elsewhere in
 * that tree: a grant for the program doing the exec (bash) misleads, and
 * one on the shim alone fixes one step of several. */
static char *path_tree(const char *path, const struct trace_facts *f)
{
	if (!f->path_env || !f->home)
		return NULL;
	char **dirs = path_list_split(f->path_env, NULL), *tree = NULL;
	for (size_t i = 0; dirs[i] && !tree; i++) {
		if (dirs[i][0] != '/')
			continue;
		char *dir = path_normalize(dirs[i]);
		tree = path_dir_tree(dir, f->home);
		if (tree && !path_is_under(path, tree)) {
			free(tree);
			tree = NULL;
		}
		free(dir);
	}
	path_list_free(dirs);
	return tree;
}

static void add_path_denial(struct report *r, size_t entry, const struct trace_denial *d,
                            const struct profile *p, const struct trace_facts *f)
{
	const char *home = f->home;
	struct need needs[MAX_NEEDS];
	const char *shown;
	const struct rule *prot = protected_rule(p, d->path);
	if (!prot && d->op == TRACE_RENAME)
		prot = protected_rule(p, d->other);
	if (prot) {
		static const char pin[] =
		    "protected: moat keeps this git directory in place, so that no copy with hooks "
		    "of the sandbox's making can take its place; move it outside moat";
		group_add(group_for(&r->groups, &r->ngroups, d, d->path), d);
		note(r, entry,
		     suggest(r, (struct suggestion){
		                    .kind = SUGG_NONE,
		                    .why = prot->origin == ORIGIN_PINNED ? xstrdup(pin)
		                                                         : protected_why(prot, f),
		                    .refused = prot->origin == ORIGIN_PINNED ? d->path : prot->path,
		                    .op = d->op}));
		return;
	}
	size_t n = needs_for(d, p, needs, &shown);
	group_add(group_for(&r->groups, &r->ngroups, d, shown), d);
	const char *bin = grant_bin(d);
	if (n == 0) {
		static const char proc[] = "Landlock keeps processes outside the sandbox out of "
		                           "reach, and no grant changes that";
		static const char other[] = "the profile already allows this there; the sandbox "
		                            "refused it for a reason no grant changes";
		note(r, entry,
		     suggest(r, (struct suggestion){
		                    .kind = SUGG_NONE,
		                    .why = xstrdup(path_is_proc_pid(shown) ? proc : other),
		                    .refused = shown,
		                    .op = d->op}));
		return;
	}
	for (size_t i = 0; i < n; i++) {
		/* A program of the user's PATH: its tree, for every binary
		 * (unless a wrapped tool ran it: then for that tool). */
		char *tree = d->op == TRACE_EXEC ? path_tree(needs[i].path, f) : NULL;
		if (tree) {
			free(needs[i].path);
			needs[i].path = tree;
		}
		struct strbuf why = STRBUF_INIT;
		char *grant = acceptable_grant(needs[i].path, shown, home, &why);
		if ((needs[i].access & ACCESS_WRITE) && path_is_under(needs[i].path, home))
			r->home_cache = true;
		struct suggestion s = {.kind = grant ? SUGG_GRANT : SUGG_NONE,
		                       .bin = tree && !d->tool ? "*" : bin,
		                       .path = grant,
		                       .access = needs[i].access,
		                       .why = why.len ? sb_detach(&why) : NULL,
		                       .refused = shown,
		                       .op = d->op};
		note(r, entry, suggest(r, s));
		sb_release(&why);
		free(needs[i].path);
	}
}

/* What each refusal of the seccomp filter means, and what allows it. */
static const char *seccomp_why(const struct trace_denial *d)
{
	const char *x = d->detail ? d->detail : "";
	switch (d->op) {
	case TRACE_IOCTL:
		if (strcmp(x, "TIOCSPGRP") == 0)
			return "moat run and wrapped tools keep a process from taking the "
			       "terminal's "
			       "foreground, so nothing left behind reads what you type next; an "
			       "interactive shell belongs in moat shell";
		if (strcmp(x, "TIOCSCTTY") == 0)
			return "taking a terminal from another session is refused in every sandbox";
		return "typing into the terminal, or remapping its keys, is refused in every "
		       "sandbox, and no setting changes that";
	case TRACE_SETID:
		return "set-user-ID and set-group-ID bits cannot be set inside moat (Landlock does "
		       "not judge chmod, so root could make any binary on the host setuid)";
	default: break;
	}
	if (d->why) /* the filter's table says (sandbox/syscalls.h) */
		return d->why;
	if (strncmp(x, "x32 ", 4) == 0 || strncmp(x, "unknown ", 8) == 0)
		return "system calls of this ABI are refused outright";
	return "the sandbox's seccomp filter refuses it (docs/security.md)";
}

static bool is_net_op(enum trace_op op)
{
	return op == TRACE_NET_CONNECT || op == TRACE_NET_LISTEN || op == TRACE_NET_SOCKET;
}

/* A refusal of the hosts policy's proxy: its item names a host, not a
 * port. */
static bool names_host(const struct trace_denial *d)
{
	return d->other && d->other[strspn(d->other, "0123456789")] != '\0' &&
	       strncmp(d->other, "listen:", 7) != 0 && strcmp(d->other, "open") != 0;
}

/* The network policy's refusals: the `moat allow --net` line for the tool
 * (the wrapped tool it runs under, else the program), whose rule joins the
 * session's union. A socket it refuses needs no port but the policy open. */
static void add_net_suggestion(struct report *r, size_t entry, const struct trace_denial *d)
{
	const char *bin = d->tool ? d->tool : d->name ? d->name : "*";
	const char *item = d->other ? d->other : "open";
	note(r, entry,
	     suggest(r, (struct suggestion){
	                    .kind = SUGG_NET,
	                    .bin = bin,
	                    .path = xstrdup(item),
	                    .why = strcmp(item, "open") == 0
	                               ? xstrdup("the network policy refuses this kind of socket "
	                                         "(off: all but unix ones; ports: all but TCP)")
	                               : NULL,
	                    .op = d->op}));
}

static void add_seccomp_denial(struct report *r, size_t entry, const struct trace_denial *d,
                               const struct profile *p, const struct trace_facts *f)
{
	const char *key = d->detail ? d->detail : trace_op_name(d->op);
	/* The proxy's refusals are not the filter's: told apart in the report. */
	if (p->net.level == NET_HOSTS && is_net_op(d->op) && names_host(d))
		group_add(group_for(&r->proxied, &r->nproxied, d, key), d);
	else
		group_add(group_for(&r->others, &r->nothers, d, key), d);
	if (is_net_op(d->op) && p->net.level == NET_HOSTS && !names_host(d)) {
		/* A port would not join a hosts union (the wider level wins). */
		note(r, entry,
		     suggest(r,
		             (struct suggestion){
		                 .kind = SUGG_NONE,
		                 .why = xstrdup("under a hosts policy the session reaches the "
		                                "network through moat's proxy only (HTTP_PROXY, "
		                                "HTTPS_PROXY); a tool that connects by itself has "
		                                "no route"),
		                 .refused = key,
		                 .op = d->op}));
		return;
	}
	if (is_net_op(d->op)) {
		add_net_suggestion(r, entry, d);
		return;
	}
	if (d->op == TRACE_SOCKET) {
		/* Classic seccomp cannot read the address a socket will use, so
		 * below ABI 9 any listed path switches the refusal off. The
		 * session's TMPDIR is where runtimes put their sockets, and on a
		 * kernel that confines by path it is reachable anyway. */
		struct strbuf why = STRBUF_INIT;
		sb_addf(&why,
		        "Landlock ABI %d cannot confine unix sockets by path, so any entry lets "
		        "every unix socket through, in every project: the ssh-agent's, D-Bus, "
		        "docker.sock",
		        f->abi);
		note(r, entry,
		     suggest(r, (struct suggestion){.kind = SUGG_SETTING,
		                                    .path = path_join(p->root, ".moat/tmp"),
		                                    .why = sb_detach(&why),
		                                    .op = d->op}));
		return;
	}
	note(r, entry,
	     suggest(r, (struct suggestion){.kind = SUGG_NONE,
	                                    .why = xstrdup(seccomp_why(d)),
	                                    .refused = key,
	                                    .op = d->op}));
}

/* Directories under HOME shared by many tools: the one a tool owns is one
 * level further down (~/.cache/pip, ~/.local/share/nvim). */
static const char *const shared_dirs[] = {
    ".cache",
    ".config",
    ".local",
    ".local/share",
    ".local/state",
    ".local/lib",
    ".var",
    ".var/app",
    "Library",
    "Library/Caches",
    "Library/Application Support",
    "Library/Preferences",
};

/* Where secrets live: never widened to the whole directory. */
static const char *const secret_dirs[] = {
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".kube",
    ".docker",
    ".password-store",
    ".pki",
    ".mozilla",
    ".thunderbird",
    ".terraform.d",
    ".config/gcloud",
    ".config/gh",
    ".config/op",
    ".config/hub",
    ".local/share/keyrings",
};

static bool listed(const char *rel, size_t len, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strlen(list[i]) == len && strncmp(rel, list[i], len) == 0)
			return true;
	return false;
}

/* The directory under home that a tool owns and path lies in (path itself
 * when it is one), or NULL: not under home, or a directory of secrets. */
static char *owner_dir(const char *path, const char *home)
{
	size_t hn = strlen(home);
	if (strcmp(home, "/") == 0 || strncmp(path, home, hn) != 0 || path[hn] != '/')
		return NULL;
	const char *rel = path + hn + 1;
	size_t len = strcspn(rel, "/");
	while (rel[len] == '/' && listed(rel, len, shared_dirs, ARRAY_LEN(shared_dirs)))
		len += 1 + strcspn(rel + len + 1, "/");
	if (listed(rel, len, shared_dirs, ARRAY_LEN(shared_dirs)) ||
	    listed(rel, len, secret_dirs, ARRAY_LEN(secret_dirs)))
		return NULL;
	return xstrndup(path, hn + 1 + len);
}

struct owned {
	size_t sugg;
	const char *bin;
	char *owner;
};

static int by_owner(const void *a, const void *b)
{
	const struct owned *x = a, *y = b;
	int c = strcmp(x->bin, y->bin);
	if (!c)
		c = strcmp(x->owner, y->owner);
	return c ? c : (x->sugg > y->sugg) - (x->sugg < y->sugg);
}

/* Several grants for one tool under a directory it owns: one grant on the
 * directory, with every right they needed, in place of the first. Sorted
 * by (tool, directory), since a trace of a busy tool may hold thousands. */
static void collapse(struct report *r, const char *home)
{
	struct owned *v = xcalloc(r->nsugg, sizeof(*v));
	size_t n = 0;
	for (size_t i = 0; i < r->nsugg; i++) {
		struct suggestion *s = &r->sugg[i];
		char *owner = s->kind == SUGG_GRANT ? owner_dir(s->path, home) : NULL;
		if (owner)
			v[n++] = (struct owned){i, s->bin, owner};
	}
	qsort(v, n, sizeof(*v), by_owner);
	for (size_t i = 0, end; i < n; i = end) {
		for (end = i + 1; end < n && strcmp(v[end].bin, v[i].bin) == 0 &&
		                  strcmp(v[end].owner, v[i].owner) == 0;
		     end++)
			;
		if (end - i < 2)
			continue;
		struct suggestion *s = &r->sugg[v[i].sugg];
		for (size_t k = i + 1; k < end; k++) {
			s->access |= r->sugg[v[k].sugg].access;
			r->sugg[v[k].sugg].merged_into = v[i].sugg;
		}
		free(s->path);
		free(s->why);
		s->path = xstrdup(v[i].owner);
		s->why = NULL;
	}
	for (size_t i = 0; i < n; i++)
		free(v[i].owner);
	free(v);
}

/* A grant that one for every binary ('*': a PATH tree's, say) covers,
 * path and rights, adds nothing: merged into it. */
static void merge_covered(struct report *r)
{
	for (size_t i = 0; i < r->nsugg; i++) {
		const struct suggestion *all = &r->sugg[i];
		if (all->kind != SUGG_GRANT || all->merged_into != NOT_MERGED ||
		    strcmp(all->bin, "*") != 0)
			continue;
		for (size_t k = 0; k < r->nsugg; k++) {
			struct suggestion *s = &r->sugg[k];
			if (k != i && s->kind == SUGG_GRANT && s->merged_into == NOT_MERGED &&
			    path_is_under(s->path, all->path) && !(s->access & ~all->access))
				s->merged_into = i;
		}
	}
}

/* A write grant holding or inside one of moat's own places would let
 * sandboxed code rewrite how moat confines it (moat allow --write refuses
 * it): never suggested, the reason shown instead. */
static void refuse_own(struct report *r, const struct trace_facts *f)
{
	for (size_t i = 0; i < r->nsugg; i++) {
		struct suggestion *s = &r->sugg[i];
		if (s->kind != SUGG_GRANT || s->merged_into != NOT_MERGED ||
		    !(s->access & ACCESS_WRITE))
			continue;
		for (size_t k = 0; k < f->nown; k++) {
			bool holds = path_is_under(f->own[k], s->path);
			if (!holds && !path_is_under(s->path, f->own[k]))
				continue;
			struct strbuf why = STRBUF_INIT;
			sb_addf(&why, "a write grant on ");
			visible_add(&why, s->path, strlen(s->path), visible_utf8_locale());
			bool same = strcmp(s->path, f->own[k]) == 0;
			sb_addf(&why, " would %s %s (",
			        same    ? "be"
			        : holds ? "hold"
			                : "lie inside",
			        f->own_what[k]);
			visible_add(&why, f->own[k], strlen(f->own[k]), visible_utf8_locale());
			sb_adds(&why,
			        "), where sandboxed code must never write; moat allow --write "
			        "refuses that");
			free(s->why);
			s->why = sb_detach(&why);
			s->kind = SUGG_NONE;
			if (!s->refused)
				s->refused = s->path;
			break;
		}
	}
}

/* A write grant on a system or PATH directory would let sandboxed code
 * replace a program run outside it later (moat allow refuses it): never
 * suggested, the reason and the user-level way shown instead. */
static void refuse_programs(struct report *r, const struct trace_facts *f)
{
	for (size_t i = 0; i < r->nsugg; i++) {
		struct suggestion *s = &r->sugg[i];
		if (s->kind != SUGG_GRANT || s->merged_into != NOT_MERGED ||
		    !(s->access & ACCESS_WRITE))
			continue;
		char *program = programs_write_refusal(s->path, f->path_env, f->home);
		if (!program)
			continue;
		struct strbuf why = STRBUF_INIT;
		sb_adds(&why, "a write grant on ");
		visible_add(&why, s->path, strlen(s->path), visible_utf8_locale());
		sb_adds(&why, " is refused: ");
		visible_add(&why, program, strlen(program), visible_utf8_locale());
		sb_addf(&why, "; %s", programs_hint);
		free(program);
		free(s->why);
		s->why = sb_detach(&why);
		s->kind = SUGG_NONE;
		if (!s->refused)
			s->refused = s->path;
	}
}

void report_build(struct report *r, const struct trace_log *log, const struct profile *p,
                  const struct trace_facts *f)
{
	*r = (struct report){0};
	r->of = xcalloc(log->n, sizeof(*r->of));
	r->nof = xcalloc(log->n, sizeof(*r->nof));
	for (size_t i = 0; i < log->n; i++) {
		const struct trace_denial *d = &log->v[i];
		if (trace_op_is_path(d->op) && d->path)
			add_path_denial(r, i, d, p, f);
		else
			add_seccomp_denial(r, i, d, p, f);
	}
	collapse(r, f->home);
	merge_covered(r);
	refuse_own(r, f);
	refuse_programs(r, f);
}

void report_free(struct report *r)
{
	for (size_t i = 0; i < r->ngroups; i++)
		free(r->groups[i].pids);
	for (size_t i = 0; i < r->nothers; i++)
		free(r->others[i].pids);
	for (size_t i = 0; i < r->nproxied; i++)
		free(r->proxied[i].pids);
	for (size_t i = 0; i < r->nsugg; i++) {
		free(r->sugg[i].path);
		free(r->sugg[i].why);
	}
	free(r->groups);
	free(r->proxied);
	free(r->others);
	free(r->sugg);
	free(r->of);
	free(r->nof);
}
