/* moat check: validate config.zon with the same code the commands use, and
 * say what would not work: refused paths, missing linked directories,
 * shells that cannot be resolved, grants and shells through a link planted
 * where sandboxed code can write. Rules made redundant by broader ones are
 * noted but are not problems: the config works as written. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fs.h"
#include "base/path.h"
#include "base/platform.h"
#include "base/xdg.h"
#include "cli/cli.h"
#include "config/config.h"
#include "context/own.h"
#include "context/programs.h"
#include "context/settings.h"
#include "launch/launch.h"
#include "profile/profile.h"
#include "profile/secrets.h"
#include "shells/nix.h"
#include "shells/shells.h"

/* moat-wrapper is libc-only and static: a few megabytes at most. */
#define WRAPPER_COPY_MAX (64u << 20)

struct checker {
	const char *file;
	const char *home;
	char **areas; /* where sandboxed code can write, for the link checks */
	size_t nareas;
	const struct global_opts *g;
	struct own_places wrappers; /* the moat-wrappers shells lead to, judged with moat's own */
	char **shells;              /* the shell directories checked, so each is once */
	size_t nshells;
	int issues;
	int notes;
};

static void finding(struct checker *c, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void finding(struct checker *c, int line, int col, const char *fmt, ...)
{
	va_list ap;
	printf("%s:%d:%d: ", c->file, line, col);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	c->issues++;
}

static void note(struct checker *c, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void note(struct checker *c, int line, int col, const char *fmt, ...)
{
	va_list ap;
	printf("%s:%d:%d: note: ", c->file, line, col);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	c->notes++;
}

static unsigned rule_access(const struct config_allow *r)
{
	return ACCESS_READ | (r->write ? ACCESS_WRITE : 0) | (r->exec ? ACCESS_EXEC : 0);
}

/* Does every project a applies to get b too? b without .dirs applies
 * everywhere; otherwise each of a's directories must lie under one of b's
 * (a rule for ~/work covers the same rule for ~/work/app). */
static bool dirs_cover(const struct config_allow *b, const struct config_allow *a, const char *home)
{
	if (!b->ndirs)
		return true;
	if (!a->ndirs)
		return false;
	for (size_t i = 0; i < a->ndirs; i++) {
		cleanup_free char *ae = path_expand_tilde(a->dirs[i], home);
		cleanup_free char *an = path_normalize(ae);
		bool under = false;
		for (size_t j = 0; j < b->ndirs && !under; j++) {
			cleanup_free char *be = path_expand_tilde(b->dirs[j], home);
			cleanup_free char *bn = path_normalize(be);
			under = path_is_under(an, bn);
		}
		if (!under)
			return false;
	}
	return true;
}

/* Does rule b's path q make rule a's path p redundant? */
static bool covers(const struct config_allow *b, const char *q, const struct config_allow *a,
                   const char *p, const char *home)
{
	if (strcmp(b->bin, "*") != 0 && strcmp(b->bin, a->bin) != 0)
		return false;
	if (!dirs_cover(b, a, home))
		return false;
	if ((rule_access(a) & ~rule_access(b)) != 0)
		return false;
	cleanup_free char *pe = path_expand_tilde(p, home);
	cleanup_free char *qe = path_expand_tilde(q, home);
	if (path_refusal(pe) || path_refusal(qe))
		return false;
	cleanup_free char *pn = path_normalize(pe);
	cleanup_free char *qn = path_normalize(qe);
	/* A refused grant (home or above) covers nothing: it is never applied. */
	return !path_home_refusal(qn, home) && path_is_under(pn, qn);
}

static void check_grant_path(struct checker *c, const struct config *cfg, size_t ri, size_t pi)
{
	const struct config_allow *r = &cfg->allow[ri];
	const char *p = r->paths[pi];
	cleanup_free char *expanded = path_expand_tilde(p, c->home);
	const char *why = path_refusal(expanded);
	if (why) {
		finding(c, r->line, r->col, "grant of '%s' to %s is refused: %s", p, r->bin, why);
		return;
	}
	cleanup_free char *norm = path_normalize(expanded);
	why = profile_grant_refusal(norm, c->home);
	if (why) {
		finding(c, r->line, r->col, "grant of '%s' to %s is refused: %s", p, r->bin, why);
		return;
	}
	cleanup_free char *canon = NULL;
	struct error err = {0};
	if (context_resolve_unplanted(norm, (const char *const *)c->areas, c->nareas, "to grant",
	                              &canon, &err) < 0) {
		finding(c, r->line, r->col, "%s; moat run here skips it", err.msg);
		return;
	}
	if (!canon && errno == ENOENT)
		note(c, r->line, r->col, "grant of '%s' to %s: absent, %s", p, r->bin,
		     r->write && path_is_under(norm, c->home) && strcmp(norm, c->home) != 0
		         ? "made (mode 0700) when a session or the tool starts"
		         : "no rule");
	cleanup_free char *program =
	    r->write ? programs_write_refusal(canon ? canon : norm, getenv("PATH"), c->home) : NULL;
	if (program)
		finding(c, r->line, r->col, "write grant of '%s' to %s is unsafe: %s", p, r->bin,
		        program);
	for (size_t rj = 0; rj < cfg->nallow; rj++) {
		const struct config_allow *b = &cfg->allow[rj];
		for (size_t pj = 0; pj < b->npaths; pj++) {
			if (rj == ri && pj == pi)
				continue;
			bool mutual = covers(r, p, b, b->paths[pj], c->home);
			/* Of two identical grants, report only the later one. */
			if (covers(b, b->paths[pj], r, p, c->home) &&
			    (!mutual || rj < ri || (rj == ri && pj < pi))) {
				note(c, r->line, r->col,
				     "grant of '%s' to %s is redundant: line %d grants '%s' to %s "
				     "already%s",
				     p, r->bin, b->line, b->paths[pj], b->bin,
				     b->ndirs ? " (its .dirs cover this rule's)" : "");
				return;
			}
		}
	}
}

/* Has shell directory dir been checked? Notes it if not. */
static bool shell_seen(struct checker *c, const char *dir)
{
	for (size_t i = 0; i < c->nshells; i++)
		if (strcmp(c->shells[i], dir) == 0)
			return true;
	c->shells = xrealloc_array(c->shells, c->nshells + 1, sizeof(char *));
	c->shells[c->nshells++] = xstrdup(dir);
	return false;
}

/* The wrappers a shell's bin/ leads to are moat's own binaries: each is
 * judged with the rest (check_own), as a run naming the shell would. */
static void add_wrappers(struct checker *c, const char *name, char **wrappers)
{
	for (size_t i = 0; wrappers && wrappers[i]; i++) {
		cleanup_free char *what = xasprintf("moat-wrapper (of shell %s)", name);
		own_add(&c->wrappers, OWN_BINARY, what, wrappers[i]);
	}
}

/* line 0: a local shell config.zon does not name, which `moat run NAME`
 * would still start. */
static void check_shell(struct checker *c, int line, int col, const char *name)
{
	cleanup_free char *dir = NULL;
	struct error err = {0};
	char **wrappers = NULL;
	if (shell_find(name, c->home, context_resolve_shell, c->areas, &dir, &err) < 0) {
		if (line)
			finding(c, line, col, "shell '%s' cannot be resolved: %s", name, err.msg);
		return;
	}
	if (shell_seen(c, dir))
		return;
	/* A flake shell is evaluated, not built: nothing to look at yet. */
	if (fs_is_dir(dir) && shell_check_bin(dir, &wrappers, &err) < 0) {
		if (line) {
			finding(c, line, col, "%s; moat run refuses it", err.msg);
		} else {
			printf("local shell %s: %s; moat run refuses it\n", name, err.msg);
			c->issues++;
		}
	} else {
		cli_verbose(c->g, "shell %s: %s", name, dir);
	}
	add_wrappers(c, name, wrappers);
	path_list_free(wrappers);
}

/* Every local shell, named in config.zon or not. */
static void check_local_shells(struct checker *c)
{
	char **names = shells_local_names(c->home);
	for (size_t i = 0; names && names[i]; i++)
		check_shell(c, 0, 0, names[i]);
	path_list_free(names);
}

/* An error's hints, one "hint:" line each, indented under a finding. */
static void print_hints(const struct error *err)
{
	for (const char *h = err->hint; *h;) {
		size_t n = strcspn(h, "\n");
		printf("  hint: %.*s\n", (int)n, h);
		h += n + (h[n] == '\n');
	}
}

/* moat's own files and binaries where sandboxed code can write (under or
 * holding the current directory's root, a write grant or a past root):
 * every run would refuse to start, and until then they are at its mercy. */
static void check_own(struct checker *c, const struct config *cfg, const char *root)
{
	struct own_places o;
	own_gather_all(&o, c->home);
	for (size_t i = 0; i < c->wrappers.n; i++)
		own_add(&o, OWN_BINARY, c->wrappers.v[i].what, c->wrappers.v[i].path);
	struct own_judge j = {.root = root,
	                      .areas = (const char *const *)c->areas,
	                      .n = c->nareas,
	                      .cfg = cfg,
	                      .home = c->home,
	                      .below = true,
	                      .refusing = "unsafe"};
	for (size_t i = 0; i < o.n; i++) {
		struct error err = {0};
		if (own_judge_one(&o, i, &j, &err) == 0)
			continue;
		printf("%s\n", err.msg);
		print_hints(&err);
		c->issues++;
	}
	own_free(&o);
}

/* A ports rule on a kernel whose Landlock cannot judge ports: its tools
 * would not start (sandbox_net_check), so say it here first. */
static void check_net(struct checker *c, const struct config *cfg)
{
	struct sandbox_support s;
	struct error ignored = {0};
	if (sandbox_probe(&s, &ignored) < 0)
		return;
	for (size_t i = 0; i < cfg->nnet; i++) {
		const struct config_net *r = &cfg->net[i];
		struct profile p = {.net = r->policy};
		if (sandbox_net_check(&p, &s, &ignored) == 0)
			continue;
		finding(
		    c, r->line, r->col,
		    "%s's network is limited to TCP ports, which this kernel's Landlock (ABI %d) "
		    "cannot judge: it will not start (ports need ABI 4, Linux 6.7)",
		    r->bin, s.abi);
	}
}

static void check_config(struct checker *c, const struct config *cfg)
{
	check_net(c, cfg);
	for (size_t i = 0; i < cfg->nallow; i++)
		for (size_t j = 0; j < cfg->allow[i].npaths; j++)
			check_grant_path(c, cfg, i, j);
	for (size_t i = 0; i < cfg->nlinks; i++) {
		const struct config_link *l = &cfg->links[i];
		cleanup_free char *dir = path_expand_tilde(l->dir, c->home);
		if (!fs_is_dir(dir))
			finding(c, l->line, l->col, "linked directory '%s' does not exist", l->dir);
		for (size_t j = 0; j < l->nshells; j++)
			check_shell(c, l->line, l->col, l->shells[j]);
	}
	for (size_t i = 0; i < cfg->ndetect; i++)
		for (size_t j = 0; j < cfg->detect[i].nshells; j++)
			check_shell(c, cfg->detect[i].line, cfg->detect[i].col,
			            cfg->detect[i].shells[j]);
	for (size_t i = 0; i < cfg->ndefault; i++)
		check_shell(c, cfg->default_pos[i].line, cfg->default_pos[i].col,
		            cfg->default_shells[i]);
	const char *path = getenv("PATH");
	for (size_t i = 0; i < cfg->njailbreak; i++) {
		struct error err = {0};
		cleanup_free char *exe =
		    launch_find_command(cfg->jailbreak[i], path ? path : "", &err);
		if (!exe)
			finding(c, cfg->jailbreak_pos[i].line, cfg->jailbreak_pos[i].col,
			        "jailbreak '%s' is not found on PATH and would be skipped",
			        cfg->jailbreak[i]);
	}
}

/* Protected paths (.git/hooks, .git/config, .protect) are read-only
 * binds in a mount namespace; where the kernel gives none, they stay
 * writable in every sandbox, and each run says so. An issue, because what
 * is planted there runs outside the sandbox. */
static void check_protection(struct checker *c)
{
	int e = sandbox_protection_refusal();
	if (!e)
		return;
	c->issues++;
	if (launch_namespace_quota_error(e)) {
		printf(
		    "protected paths: not enforced now: the kernel refuses moat a mount namespace "
		    "(%s): your namespace quota is used up, and every run is refused until it "
		    "is free\n",
		    strerror(e));
		printf("  hint: end the processes that hold namespaces ('lsns' lists them); "
		       "/proc/sys/user/max_*_namespaces are the limits\n");
		return;
	}
	printf("protected paths: not enforced here: the kernel refuses moat a mount namespace "
	       "(%s), so sandboxed code can write .git/hooks, .git/config and the paths in "
	       ".protect\n",
	       strerror(e));
	printf("  hint: allow user namespaces (sysctl user.max_user_namespaces > 0, and on "
	       "older Debian kernels kernel.unprivileged_userns_clone=1); in a container, a "
	       "seccomp profile that permits unshare\n");
}

/* Which nix moat would run, and any it skipped as planted. */
static void check_nix(struct checker *c)
{
	struct nix_location loc;
	struct error err = {0};
	if (nix_locate(&loc, &err) < 0) {
		printf("MOAT_NIX: %s\n", err.msg);
		c->issues++;
		return;
	}
	if (loc.path)
		printf("nix: %s (%s)\n", loc.path,
		       strcmp(loc.how, "PATH") == 0 ? "first on PATH" : loc.how);
	else
		printf("nix: not found (needed only for shells from flakes)\n");
	for (const char *s = loc.skipped; *s;) {
		size_t n = strcspn(s, "\n");
		printf("nix: skipped %.*s: sandboxed code could have put it there\n", (int)n, s);
		s += n + (s[n] == '\n');
	}
}

/* MOAT_FLAKE, when set, must lock; shells in it are checked with the rest
 * (evaluated, not built: cli_nix_setup's dry run). */
static void check_flake(struct checker *c)
{
	const char *env = getenv("MOAT_FLAKE");
	struct error err = {0};
	cleanup_free char *flake = nix_default_flake(&err);
	cleanup_free char *locked = NULL;
	if (!flake) {
		cli_verbose(c->g, "flake: none (%s)", err.msg);
	} else if (!env || !*env) {
		cli_verbose(c->g, "flake %s (installed with moat)", flake);
	} else if (nix_check_flake(flake, &locked, &err) < 0) {
		printf("MOAT_FLAKE: %s\n", err.msg);
		c->issues++;
	} else {
		cli_verbose(c->g, "flake %s: %s", flake, locked);
	}
}

/* The copy of moat-wrapper local shells link to (moat wrap refreshes it)
 * against the one next to this moat: after an upgrade, one moat wrap
 * brings every shell up to date. A note, not an issue: the copy works. */
static void check_wrapper_copy(struct checker *c)
{
	cleanup_free char *self = platform_self_exe();
	cleanup_free char *dir = self ? path_dirname(self) : NULL;
	cleanup_free char *ours = dir ? path_join(dir, "moat-wrapper") : NULL;
	cleanup_free char *data = xdg_moat_dir(XDG_DATA, c->home);
	cleanup_free char *copy = path_join(data, "moat-wrapper");
	cleanup_free char *a = NULL, *b = NULL;
	size_t na = 0, nb = 0;
	struct error ignored;
	if (!ours || fs_read_file(copy, WRAPPER_COPY_MAX, &a, &na, &ignored) < 0 ||
	    fs_read_file(ours, WRAPPER_COPY_MAX, &b, &nb, &ignored) < 0)
		return;
	if (na != nb || memcmp(a, b, na) != 0) {
		printf("note: %s differs from %s; 'moat wrap NAME' with any shell refreshes "
		       "it for every local shell\n",
		       copy, ours);
		c->notes++;
	}
}

/* A name .env passes that is no secret is passed to every tool anyway:
 * a typo, or a name .secrets should hold. A note: nothing breaks. */
static void check_env(struct checker *c, const struct config *cfg)
{
	struct secrets s;
	secrets_init(&s, cfg->secrets, cfg->nsecrets, cfg->not_secrets, cfg->nnot_secrets);
	for (size_t i = 0; i < cfg->nenv; i++) {
		const struct config_env *r = &cfg->env[i];
		for (size_t j = 0; j < r->nnames; j++) {
			const char *name = r->names[j];
			if (strchr(name, '*') ||
			    secrets_judge(&s, name, strlen(name)) != SECRET_NONE)
				continue;
			note(c, r->line, r->col,
			     "%s, passed to %s, is not a secret moat removes: every tool gets it "
			     "already (add it to .secrets to keep it from the others)",
			     name, r->bin);
		}
	}
	secrets_free(&s);
}

/* The root a run here would confine, and where sandboxed code could write
 * then: what every judgment below is made against, taken from the plan
 * moat run starts from (launch_plan_places). */
static void print_places(const char *root, const struct checker *c)
{
	if (root)
		printf("root %s (as moat run here)\n", root);
	else
		printf("root: none, moat run refuses this directory\n");
	printf("writable in a run here:");
	for (size_t i = 0; i < c->nareas; i++)
		printf(" %s", c->areas[i]);
	printf("%s\n", c->nareas ? "" : " nothing");
}

static void check_places(struct checker *c, const struct launch *l)
{
	print_places(l->ctx.root, c);
	check_config(c, &l->cfg);
	check_env(c, &l->cfg);
	check_local_shells(c);
	check_own(c, &l->cfg, l->ctx.root);
	check_wrapper_copy(c);
	own_free(&c->wrappers);
	for (size_t i = 0; i < c->nshells; i++)
		free(c->shells[i]);
	free(c->shells);
}

int cmd_check(const struct cli_args *a, const struct global_opts *g)
{
	if (a->noperands)
		return cli_usage_error(cli_command("check"), "unexpected argument '%s'",
		                       a->operands[0]);
	struct error err = {0};
	struct launch l;
	int planned = launch_plan_places(&l, g->here, &err);
	if (!l.ctx.home) {
		launch_free(&l);
		return cli_fail(&err, 1);
	}
	cleanup_free char *file = settings_path(l.ctx.home);
	printf("checking %s%s\n", file, fs_exists(file) ? "" : " (missing: an empty config)");
	struct checker c = {
	    .file = file, .home = l.ctx.home, .areas = l.ctx.areas, .nareas = l.ctx.nareas, .g = g};
	cli_nix_setup(g, true);
	check_nix(&c);
	check_flake(&c);
	check_protection(&c);
	if (planned < 0) {
		printf("%s\n", err.msg);
		c.issues++;
	} else {
		check_places(&c, &l);
	}
	launch_free(&l);
	if (c.issues)
		printf("%d issue(s) found\n", c.issues);
	else if (c.notes)
		printf("all ok (%d note(s) above)\n", c.notes);
	else
		printf("all ok\n");
	return c.issues ? 1 : 0;
}
