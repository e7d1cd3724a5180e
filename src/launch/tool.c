/* The plan for one wrapped tool (moat-wrapper): the profile for its name
 * under $MOAT_ROOT, and whether it is jailbroken or must ask first. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "approvals/approvals.h"
#include "base/envvars.h"
#include "base/fs.h"
#include "base/path.h"
#include "base/platform.h"
#include "context/own.h"
#include "context/settings.h"
#include "context/writable.h"
#include "launch/launch.h"
#include "launch/plan.h"
#include "launch/scrub.h"
#include "shells/shells.h"

static int read_root(struct launch *l, struct error *err)
{
	const char *root = getenv(ENV_ROOT);
	if (!root || !*root) {
		error_set(err, ENV_ROOT " is not set, so there is no sandbox root");
		error_hint(err,
		           "run tools through 'moat run' or 'moat shell', or set MOAT_ROOT to the "
		           "project root");
		return -1;
	}
	const char *home = context_real_home(err);
	if (!home)
		return -1;
	cleanup_free char *canon = NULL;
	int fd = platform_open_canonical(root, &canon);
	if (!canon)
		return error_errno(err, "cannot use MOAT_ROOT='%s'", root);
	if (context_init(&l->ctx, canon, home, err) < 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	l->ctx.root_fd = fd;
	return 0;
}

/* Only shells of the shell directories (MOAT_SHELLS_PATH) and the nix store
 * may have jailbroken tools: a shell named by path may be any project's. */
static bool in_shells_path(const char *shell_dir, const char *home)
{
	if (path_is_under(shell_dir, "/nix/store"))
		return true;
	cleanup_free char *search = shells_search_path(home);
	char **dirs = path_list_split(search, NULL);
	bool found = false;
	for (char **d = dirs; *d && !found; d++) {
		cleanup_free char *canon = (*d)[0] == '/' ? platform_canonical_path(*d) : NULL;
		found = canon && path_is_under(shell_dir, canon) && strcmp(shell_dir, canon) != 0;
	}
	path_list_free(dirs);
	return found;
}

static bool jailbreak_entry_matches(const char *entry, const struct tool *t, const char *real)
{
	if (strchr(entry, '/')) {
		cleanup_free char *canon = platform_canonical_path(entry);
		return strcmp(entry, t->real) == 0 || (canon && real && strcmp(canon, real) == 0);
	}
	return *entry && strcmp(entry, t->name) == 0;
}

/* Does the user ask for t to run unconfined? config.zon's .jailbreak names
 * tools; MOAT_JAILBREAK entries with a slash name the real binary, bare
 * names the tool. *how says where, for messages. */
static bool jailbreak_wanted(const struct launch *l, const struct tool *t, const char **how)
{
	if (config_jailbreaks(&l->cfg, t->name)) {
		*how = "config.zon's .jailbreak";
		return true;
	}
	const char *list = getenv(ENV_JAILBREAK);
	if (!list || !*list)
		return false;
	cleanup_free char *real = platform_canonical_path(t->real);
	char **entries = path_list_split(list, NULL);
	bool match = false;
	for (char **e = entries; *e && !match; e++)
		match = jailbreak_entry_matches(*e, t, real);
	path_list_free(entries);
	*how = ENV_JAILBREAK;
	return match;
}

/* The ways out of a refused jailbreak, after the reason. */
static int refuse_jailbreak(const struct tool *t, const char *how, struct error *err)
{
	error_hint(err, "run it confined: take '%s' out of %s", t->name, how);
	err->status = EXIT_MOAT_FAILED;
	return -1;
}

/* A script's #! interpreter runs unconfined with it: judge it as the
 * script, for as many levels as the kernel follows. A relative one is
 * found from the current directory, the project's as often as not. */
static int judge_interpreters(struct launch *l, const struct tool *t, const char *how,
                              struct error *err)
{
	const char *const *areas = (const char *const *)l->ctx.areas;
	cleanup_free char *cur = xstrdup(l->exe);
	for (int depth = 0; depth < 4; depth++) {
		char buf[256];
		ssize_t n = -1;
		int fd = open(cur, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
		if (fd >= 0) {
			n = read(fd, buf, sizeof(buf) - 1);
			close(fd);
		}
		if (n < 2 || buf[0] != '#' || buf[1] != '!')
			return 0;
		buf[n] = '\0';
		char *interp = buf + 2 + strspn(buf + 2, " \t");
		interp[strcspn(interp, " \t\n")] = '\0';
		if (interp[0] != '/') {
			error_set(err,
			          "refusing to jailbreak %s: '%s' names its interpreter '%s' "
			          "relative to the current directory",
			          t->name, cur, interp);
			return refuse_jailbreak(t, how, err);
		}
		cleanup_free char *what = xasprintf("the interpreter of jailbroken %s", t->name);
		char *canon = NULL;
		if (context_resolve_unwritable(interp, l->ctx.root, areas, l->ctx.nareas, what,
		                               &canon, err) < 0)
			return refuse_jailbreak(t, how, err);
		free(cur);
		cur = canon ? canon : xstrdup(interp);
	}
	return 0;
}

/* The shell's env file applies to a jailbroken tool as well (its shell is
 * out of sandboxed code's reach by now, so this read is the user's file):
 * its values are judged as MOAT_ENV_* values are. */
static int check_shell_env(const struct launch *l, const struct jailbreak_places *places,
                           struct error *err)
{
	cleanup_free char *path = path_join(l->shell_dir, ENVFILE_REL);
	cleanup_free char *buf = NULL;
	size_t len;
	if (fs_read_beneath(l->shell_dir, ENVFILE_REL, MANIFEST_MAX, &buf, &len, err) < 0) {
		if (errno != ENOENT)
			return -1;
		error_clear(err);
		return 0;
	}
	struct env_change *env;
	size_t n;
	if (envfile_parse(buf, len, path, l->ctx.root, &env, &n, err) < 0)
		return -1;
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		cleanup_free char *shown = xasprintf("%s (%s)", env[i].name, path);
		rc = overrides_judge_for_jailbreak(shown, env[i].value, places, err);
	}
	env_changes_free(env, n);
	return rc;
}

/* A jailbroken tool runs with no sandbox, so everything that decides what
 * it runs must be out of sandboxed code's reach: the shell directories,
 * its shell, every component of the binary's path and every link on the
 * way (context_resolve_unwritable), and a script's interpreter. Anything
 * else is refused, never run confined instead: the user asked for a
 * jailbreak and is told why there is none. l->exe becomes the canonical
 * path that was judged, which launch_exec opens refusing any symlink. */
static int plan_jailbreak(struct launch *l, const struct tool *t, struct error *err)
{
	const char *how = NULL;
	if (!jailbreak_wanted(l, t, &how) || !in_shells_path(t->shell_dir, l->ctx.home))
		return 0;
	if (plan_check_own(l, OWN_DATA, NULL, 0, err) < 0)
		return refuse_jailbreak(t, how, err);
	const char *const *areas = (const char *const *)l->ctx.areas;
	cleanup_free char *why = NULL;
	if (context_writable_place(t->shell_dir, false, l->ctx.root, areas, l->ctx.nareas, &why)) {
		error_set(err,
		          "refusing to jailbreak %s: its shell '%s' lies %s, where sandboxed code "
		          "can write",
		          t->name, t->shell_dir, why);
		error_hint(err, "sandboxed code could point its manifest at another binary");
		return refuse_jailbreak(t, how, err);
	}
	cleanup_free char *what = xasprintf("to jailbreak %s", t->name);
	char *canon = NULL;
	if (context_resolve_unwritable(t->real, l->ctx.root, areas, l->ctx.nareas, what, &canon,
	                               err) < 0) {
		error_hint(err, "sandboxed code could put another program there, and it would run "
		                "with no sandbox");
		return refuse_jailbreak(t, how, err);
	}
	if (!canon) {
		error_errno(err, "cannot run '%s': '%s'", t->name, t->real);
		err->status = EXIT_NOT_FOUND;
		return -1;
	}
	free(l->exe);
	l->exe = canon;
	if (judge_interpreters(l, t, how, err) < 0)
		return -1;
	l->jailbroken = true;
	l->jailbreak_how = how;
	return 0;
}

int launch_plan_tool(struct launch *l, const struct tool *t, struct error *err)
{
	*l = (struct launch){
	    .exe = xstrdup(t->real), .name = xstrdup(t->name), .shell_dir = t->shell_dir};
	if (read_root(l, err) < 0 || overrides_collect(&l->overrides, err) < 0)
		return -1;
	/* Inside a session its profile is in force: no second layer (Landlock
	 * allows 16), and config.zon is out of reach anyway. */
	l->already_confined = sandbox_already_confined(l->ctx.root, l->ctx.home);
	if (l->already_confined) {
		/* Its session decided the environment: nothing more is passed. */
		scrub_plan_defaults(l);
		return 0;
	}
	/* config.zon and this wrapper itself decide how the tool is confined:
	 * neither may be where sandboxed code writes. */
	const char *self[] = {t->self};
	if (plan_load_config(l, err) < 0 || plan_check_own(l, OWN_CONFIG, self, 1, err) < 0)
		return -1;
	context_add_shell(&l->ctx, t->shell_dir);
	l->ctx.wrapper = t->self ? xstrdup(t->self) : NULL;
	if (plan_build_profile(l, t->name, err) < 0 || plan_jailbreak(l, t, err) < 0)
		return -1;
	/* A jailbroken tool runs as the user, who could read its secrets'
	 * files anyway (and a git push needs SSH_AUTH_SOCK): it keeps them. */
	if (!l->jailbroken)
		scrub_plan(l, t->name);
	if (l->jailbroken) {
		struct profile *p = &l->profile;
		p->jailbreaks = xrealloc_array(p->jailbreaks, p->njailbreaks + 1, sizeof(char *));
		p->jailbreaks[p->njailbreaks++] = xstrdup(t->real);
	}
	l->confirm = confirm_forced() || config_confirms(&l->cfg, t->name);
	/* An approvals store sandboxed code could write would answer for the user. */
	if (l->confirm && plan_check_own(l, OWN_STATE, NULL, 0, err) < 0)
		return -1;
	if (!l->jailbroken)
		return overrides_check_home(&l->overrides, &l->profile, t->name, err);
	struct jailbreak_places places = {l->ctx.root, (const char *const *)l->ctx.areas,
	                                  l->ctx.nareas, t->name, l->jailbreak_how};
	if (overrides_check_jailbroken(&l->overrides, &places, err) < 0)
		return -1;
	return check_shell_env(l, &places, err);
}
