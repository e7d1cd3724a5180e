/* The plan for `moat run`, `moat shell` and `moat profile`: one profile for
 * the whole session, built from the current directory and its shells. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "approvals/approvals.h"
#include "base/envvars.h"
#include "base/fs.h"
#include "base/path.h"
#include "base/platform.h"
#include "base/xdg.h"
#include "context/own.h"
#include "context/programs.h"
#include "context/settings.h"
#include "context/writable.h"
#include "launch/launch.h"
#include "launch/plan.h"
#include "launch/scrub.h"
#include "shells/shells.h"

/* The moat-wrappers a shell's tools lead to: every bin/ entry must lead to
 * one (a dangling link would let the real tool run unconfined, silently),
 * each must be out of sandboxed code's reach like moat itself, and the
 * sandbox must be able to run them. */
static int add_wrappers(struct launch *l, const char *name, const char *dir, struct error *err)
{
	char **wrappers = NULL;
	if (shell_check_bin(dir, &wrappers, err) < 0) {
		error_hint(err, "moat run, moat shell and moat check refuse shell '%s' until then",
		           name);
		return -1;
	}
	int rc = 0;
	for (char **w = wrappers; *w && rc == 0; w++) {
		const char *one[] = {*w};
		if (!l->nested)
			rc = plan_check_own(l, 0, one, 1, err);
		if (rc == 0)
			context_add_wrapper(&l->ctx, *w);
	}
	path_list_free(wrappers);
	return rc;
}

/* Shells from names[nrequired] on are config.zon's .default: one that does
 * not resolve is a warning, so that it stops no command that does not need
 * it (one that does then fails to find its tool, below the warning). */
static int add_shells(struct launch *l, const char *const *names, size_t n, size_t nrequired,
                      struct error *err)
{
	struct strbuf path = STRBUF_INIT;
	char **areas = l->ctx.areas;
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		cleanup_free char *dir = NULL;
		rc = shell_find(names[i], l->ctx.home, context_resolve_shell, areas, &dir, err);
		if (rc < 0 && i >= nrequired) {
			sb_addf(&l->warnings, "default shell '%s' skipped: %s\n", names[i],
			        err->msg);
			for (const char *h = err->hint; *h;) {
				size_t len = strcspn(h, "\n");
				sb_addf(&l->warnings, "  %.*s\n", (int)len, h);
				h += len + (h[len] == '\n');
			}
			error_clear(err);
			rc = 0;
			continue;
		}
		if (rc < 0 || (rc = add_wrappers(l, names[i], dir, err)) < 0)
			break;
		sb_addf(&l->notes, "shell %s: %s\n", names[i], dir);
		context_add_shell(&l->ctx, dir);
		sb_addf(&path, "%s/bin:", dir);
	}
	const char *caller = getenv("PATH");
	sb_adds(&path, caller && *caller ? caller : "/usr/local/bin:/usr/bin:/bin");
	l->path = sb_detach(&path);
	return rc;
}

static bool marker_exists(const char *dir, const char *marker, void *unused)
{
	(void)unused;
	cleanup_free char *p = path_join(dir, marker);
	return fs_exists(p);
}

static void add_name(const char ***names, size_t *n, const char *name)
{
	for (size_t i = 0; i < *n; i++)
		if (strcmp((*names)[i], name) == 0)
			return;
	*names = xrealloc_array(*names, *n + 1, sizeof(char *));
	(*names)[(*n)++] = name;
}

/* Named shells, else what links/detect give for the root; then the default
 * shells, last on PATH so they never change what a project resolves to. */
static int choose_shells(struct launch *l, char *const *named, size_t nnamed, struct error *err)
{
	const char **names = NULL;
	size_t n = 0;
	enum config_shells_from from = CONFIG_SHELLS_NONE;
	for (size_t i = 0; i < nnamed; i++)
		add_name(&names, &n, named[i]);
	if (nnamed == 0) {
		const char **found;
		size_t nfound;
		from = config_detect_shells(&l->cfg, l->ctx.root, l->ctx.home, marker_exists, NULL,
		                            &found, &nfound);
		for (size_t i = 0; i < nfound; i++)
			add_name(&names, &n, found[i]);
		free(found);
		if (from != CONFIG_SHELLS_NONE) {
			sb_adds(&l->info, "using shells ");
			for (size_t i = 0; i < n; i++)
				sb_addf(&l->info, "%s%s", i ? ", " : "", names[i]);
			sb_addf(&l->info, " (%s)\n",
			        from == CONFIG_SHELLS_LINK ? "linked" : "detected");
		}
	}
	size_t nrequired = n;
	for (size_t i = 0; i < l->cfg.ndefault; i++)
		add_name(&names, &n, l->cfg.default_shells[i]);
	for (size_t i = 0; i < n; i++)
		l->shell_confirms = l->shell_confirms || config_confirms(&l->cfg, names[i]);
	int rc = add_shells(l, names, n, nrequired, err);
	free(names);
	/* No shell was named: say where the one that failed came from. */
	if (rc < 0 && from == CONFIG_SHELLS_LINK)
		error_hint(err,
		           "the shells came from config.zon's link for this project: 'moat link' "
		           "lists the links, 'moat link DIR SHELL...' replaces one");
	else if (rc < 0 && from != CONFIG_SHELLS_NONE)
		error_hint(err, "the shells were detected from the project's files: 'moat detect' "
		                "says which; name the shells to use instead");
	return rc;
}

/* A name found in a shell's bin/ is a symlink to moat-wrapper: the jailbreak
 * is for the real binary its manifest names, never for the wrapper (which
 * would exempt every wrapped tool). Takes exe; returns the real binary or NULL. */
static char *unwrap_tool(const struct launch *l, char *exe)
{
	(void)l;
	cleanup_free char *canon = platform_canonical_path(exe);
	if (!canon || !shell_is_wrapper(canon))
		return exe;
	cleanup_free char *bin_dir = path_dirname(exe);
	cleanup_free char *shell = path_dirname(bin_dir);
	struct manifest m;
	struct error ignored;
	char *real = NULL;
	if (manifest_load(shell, &m, &ignored) == 0) {
		const char *found = manifest_lookup(&m, path_basename(exe));
		real = found ? xstrdup(found) : NULL;
		manifest_free(&m);
	}
	free(exe);
	return real;
}

/* Resolve .jailbreak names on the session PATH; wrappers learn them through
 * MOAT_JAILBREAK. A name that does not resolve is reported and skipped. */
static void resolve_jailbreaks(struct launch *l)
{
	struct strbuf env = STRBUF_INIT;
	for (size_t i = 0; i < l->cfg.njailbreak; i++) {
		const char *name = l->cfg.jailbreak[i];
		struct error ignored;
		char *exe = launch_find_command(name, l->path, &ignored);
		if (!exe || exe[0] != '/') {
			sb_addf(&l->warnings, "jailbreak '%s' not found on PATH, skipped\n", name);
			free(exe);
			continue;
		}
		exe = unwrap_tool(l, exe);
		if (!exe) {
			sb_addf(&l->warnings,
			        "jailbreak '%s' resolves to a wrapped tool whose real binary "
			        "cannot be found, skipped\n",
			        name);
			continue;
		}
		sb_addf(&l->notes, "jailbreak %s: %s\n", name, exe);
		sb_addf(&env, "%s%s", env.len ? ":" : "", exe);
		l->ctx.jailbreaks =
		    xrealloc_array(l->ctx.jailbreaks, l->ctx.njailbreaks + 1, sizeof(char *));
		l->ctx.jailbreaks[l->ctx.njailbreaks++] = exe;
	}
	l->jailbreak_env = env.len ? sb_detach(&env) : NULL;
	sb_release(&env);
}

static void say_what_is_open(struct launch *l)
{
	const char *socket_warning = sandbox_socket_warning(&l->profile, &l->support);
	if (socket_warning)
		sb_addf(&l->warnings, "%s\n", socket_warning);
	if (l->support.not_enforced[0])
		sb_addf(&l->info, "not enforced by this kernel (Landlock ABI %d): %s\n",
		        l->support.abi, l->support.not_enforced);
}

/* The root: the top of the git work tree around cwd unless told to keep
 * cwd, announced where it is not cwd, or where the top could not be one. */
void launch_project_root(const char *cwd, const char *home, const struct config *cfg, bool here,
                         struct project_root *pr)
{
	context_project_root(cwd, home, here || cfg->root == CONFIG_ROOT_HERE, pr);
}

/* A directory that can be no root (HOME, a system directory) leaves the
 * context without one and is kept in l->unrooted: a session refuses it
 * (launch_plan_session), moat check judges without a root. */
static int choose_root(struct launch *l, const char *home, const struct config *cfg, bool here,
                       struct error *err)
{
	cleanup_free char *cwd = fs_cwd(err);
	if (!cwd)
		return -1;
	struct project_root pr;
	launch_project_root(cwd, home, cfg, here, &pr);
	if (pr.top && !pr.refused)
		sb_addf(&l->info, "root %s, the top of the git work tree (--here: %s alone)\n",
		        pr.root, cwd);
	else if (pr.top)
		sb_addf(&l->info, "root %s, not the git work tree's top %s: %s\n", pr.root, pr.top,
		        pr.refused);
	if (context_init(&l->ctx, pr.root, home, err) < 0) {
		error_clear(err);
		l->unrooted = steal_ptr(&pr.root);
		context_init(&l->ctx, NULL, home, err);
	}
	project_root_free(&pr);
	return 0;
}

/* config.zon, read once: its .root = "here" chooses the root, and a file
 * that does not parse is said only once the root is known. */
int launch_plan_places(struct launch *l, bool here, struct error *err)
{
	*l = (struct launch){0};
	const char *home = context_real_home(err);
	if (!home)
		return -1;
	int read = plan_read_config(l, home, err);
	static const struct config unread; /* no .root: the default */
	cleanup_free struct error *unparsed = NULL;
	if (read < 0) { /* kept until the root is known */
		unparsed = xmalloc(sizeof(*unparsed));
		*unparsed = *err;
		error_clear(err);
	}
	if (choose_root(l, home, read == 0 ? &l->cfg : &unread, here, err) < 0)
		return -1;
	if (unparsed) {
		*err = *unparsed;
		return -1;
	}
	context_set_areas(&l->ctx, &l->cfg);
	return 0;
}

/* The places, or why a session cannot start from them: a directory that
 * can be no root is refused first (whatever config.zon holds), then a
 * config.zon that does not parse, explained against the root. */
static int choose_session_root(struct launch *l, bool here, struct error *err)
{
	int rc = launch_plan_places(l, here, err);
	if (l->unrooted) {
		profile_refuse_root(l->unrooted, l->ctx.home, err);
		return -1;
	}
	if (rc < 0 && l->ctx.root)
		return plan_use_config(l, rc, err);
	return rc;
}

/* A linked git work tree or a submodule whose git directory is elsewhere:
 * what git needs there, said once, with what git would run later (hooks,
 * config) kept read-only. */
static void add_git_worktree(struct launch *l)
{
	cleanup_free char *why =
	    context_add_git_worktree(&l->ctx, (const char *const *)l->ctx.areas, l->ctx.nareas);
	if (why)
		sb_addf(&l->info, "%s: not granted\n", why);
	if (l->ctx.git_common)
		sb_addf(&l->info,
		        "git work tree linked to %s: its objects, refs and logs are writable, "
		        "never its hooks or config\n",
		        l->ctx.git_common);
	if (l->ctx.git_module)
		sb_addf(&l->info,
		        "git submodule whose git directory is %s: writable, its hooks and config "
		        "kept read-only\n",
		        l->ctx.git_module);
}

/* Grants whose path is not there: a write grant's directory is made when
 * the session starts (launch_make_grant_dirs), a read or exec grant has no
 * rule until its path exists. */
/* A write grant where programs the user runs unconfined live was made
 * with --unsafe-write (or written by hand): said at every session, since
 * whatever the session plants there runs outside it later. */
static void warn_program_grants(struct launch *l)
{
	const char *path_env = getenv("PATH");
	for (size_t i = 0; i < l->profile.nrules; i++) {
		const struct rule *r = &l->profile.rules[i];
		if (r->origin != ORIGIN_GRANT || !(r->access & ACCESS_WRITE))
			continue;
		cleanup_free char *why = programs_write_refusal(r->path, path_env, l->ctx.home);
		if (why)
			sb_addf(&l->warnings, "the write grant of %s to %s is unsafe: %s\n",
			        r->path, r->bin ? r->bin : "*", why);
	}
}

static void note_absent_grants(struct launch *l)
{
	for (size_t i = 0; i < l->profile.nrules; i++) {
		const struct rule *r = &l->profile.rules[i];
		struct stat st;
		/* A held descriptor is the path, found a moment ago. */
		if (r->origin != ORIGIN_GRANT || r->held || stat(r->path, &st) == 0)
			continue;
		sb_addf(&l->notes, "grant of %s to %s: absent, %s\n", r->path,
		        r->bin ? r->bin : "*",
		        launch_grant_dir_to_make(l, r) ? "made (mode 0700) as the session starts"
		                                       : "no rule");
	}
}

int launch_plan_session(struct launch *l, char *const *shells, size_t n, bool here,
                        struct error *err)
{
	int rc = choose_session_root(l, here, err);
	l->session = true;
	if (rc < 0)
		return -1;
	sb_addf(&l->notes, "root %s (home %s)\n", l->ctx.root, l->ctx.home);
	/* Wrapped tools inside the session must be able to run it. */
	l->ctx.wrapper = own_wrapper_beside_moat();
	/* The copy moat wrap links local shells to (cmd_wrap.c) runs too: a
	 * tool of a shell not named here then fails on its manifest, clearly. */
	cleanup_free char *data = xdg_moat_dir(XDG_DATA, l->ctx.home);
	cleanup_free char *copy = path_join(data, "moat-wrapper");
	cleanup_free char *copy_canon = platform_canonical_path(copy);
	if (copy_canon && shell_is_wrapper(copy_canon))
		context_add_wrapper(&l->ctx, copy_canon);
	/* moat's own files and binaries decide how this and every later run is
	 * confined (context/own.h). Inside a sandbox already (a nested
	 * session) nothing here runs unconfined, and the outer sandbox bounds
	 * whatever they say. */
	l->nested = sandbox_already_confined(l->ctx.root, l->ctx.home);
	cleanup_free char *self = platform_self_exe();
	const char *binaries[] = {self, l->ctx.wrapper};
	if (!l->nested && plan_check_own(l, OWN_FILES, binaries, 2, err) < 0)
		return -1;
	if (choose_shells(l, shells, n, err) < 0)
		return -1;
	add_git_worktree(l);
	resolve_jailbreaks(l);
	if (plan_build_profile(l, NULL, err) < 0)
		return -1;
	for (size_t i = 0; i < l->ctx.ngit_protect; i++)
		profile_protect(&l->profile, l->ctx.git_protect[i], PROTECT_READ_ONLY);
	note_absent_grants(l);
	warn_program_grants(l);
	scrub_plan(l, NULL);
	profile_isolate(&l->profile, l->ctx.home);
	sandbox_note_own_pids(&l->support);
	if (overrides_collect(&l->overrides, err) < 0 ||
	    overrides_check_home(&l->overrides, &l->profile, "'*'", err) < 0)
		return -1;
	say_what_is_open(l);
	return 0;
}

/* Does this session need a confirm? When its command is listed in .confirm
 * (or "*" is), or one of its shells is, or any tool its shells provide is:
 * wrappers inside a session cannot ask (the store is out of reach), so the
 * session asks for them. MOAT_CONFIRM=always asks whatever is listed: that
 * is how a user reviews what a project has. */
static bool session_confirms(const struct launch *l, const char *name)
{
	if (confirm_forced() || l->shell_confirms || config_confirms(&l->cfg, name))
		return true;
	for (size_t i = 0; i < l->ctx.nshell_dirs; i++) {
		struct manifest m;
		struct error ignored;
		if (manifest_load(l->ctx.shell_dirs[i], &m, &ignored) < 0)
			continue;
		bool listed = false;
		for (size_t j = 0; j < m.n && !listed; j++)
			listed = config_confirms(&l->cfg, m.entries[j].name);
		manifest_free(&m);
		if (listed)
			return true;
	}
	return false;
}

/* Whether the command's own .env rules apply: its binary (links followed,
 * as the kernel will) lies nowhere sandboxed code could have written. */
static bool command_handed_secrets(struct launch *l)
{
	bool named = false;
	for (size_t i = 0; i < l->cfg.nenv && !named; i++)
		named = strcmp(l->cfg.env[i].bin, l->name) == 0;
	if (!named)
		return true;
	cleanup_free char *canon = platform_canonical_path(l->exe);
	cleanup_free char *why = NULL;
	if (canon &&
	    !context_writable_place(canon, false, l->ctx.root, (const char *const *)l->ctx.areas,
	                            l->ctx.nareas, &why))
		return true;
	if (l->print_warnings) {
		cleanup_free char *msg = xasprintf(
		    "%s gets no secrets of its own: %s lies %s, where sandboxed code can write\n",
		    l->name, canon ? canon : l->exe, why ? why : "nowhere moat can judge");
		l->print_warnings(msg);
	}
	return false;
}

int launch_set_command(struct launch *l, const char *cmd, struct error *err)
{
	free(l->exe);
	free(l->name);
	l->exe = launch_find_command(cmd, l->path, err);
	if (!l->exe)
		return -1;
	l->name = xstrdup(path_basename(l->exe));
	l->confirm = session_confirms(l, l->name);
	/* The environment is decided once, for the whole session: what is
	 * passed to every tool and to the one it was started for, unless that
	 * one lies where sandboxed code can write (a planted ./gh would get
	 * gh's token): then only what every tool gets. */
	scrub_plan(l, command_handed_secrets(l) ? l->name : NULL);
	return 0;
}

char *launch_find_command(const char *cmd, const char *path, struct error *err)
{
	if (strchr(cmd, '/'))
		return xstrdup(cmd);
	char **dirs = path_list_split(path, NULL);
	bool found_unusable = false;
	char *found = NULL;
	for (char **dir = dirs; *dir && !found; dir++) {
		cleanup_free char *cand = path_join(**dir ? *dir : ".", cmd);
		struct stat st;
		if (stat(cand, &st) < 0 || S_ISDIR(st.st_mode))
			continue;
		if (access(cand, X_OK) == 0)
			found = steal_ptr(&cand);
		else
			found_unusable = true;
	}
	path_list_free(dirs);
	if (found)
		return found;
	error_set(err, "%s: %s", cmd, found_unusable ? "permission denied" : "command not found");
	err->status = found_unusable ? EXIT_CANNOT_RUN : EXIT_NOT_FOUND;
	return NULL;
}
