/* The plan for one wrapped tool (moat-wrapper): the profile for its name
 * under $MOAT_ROOT, and whether it is jailbroken or must ask first. */
#include <errno.h>
#include <string.h>

#include "approvals/approvals.h"
#include "base/envvars.h"
#include "base/fs.h"
#include "base/path.h"
#include "base/platform.h"
#include "context/settings.h"
#include "launch/launch.h"
#include "launch/plan.h"
#include "shells/shells.h"

static int read_root(struct launch *l, struct error *err)
{
	const char *root = getenv(ENV_ROOT);
	if (!root || !*root) {
		error_set(err, "MOAT_ROOT is not set, so there is no sandbox root");
		error_hint(err,
		           "run tools through 'moat run' or 'moat shell', or set MOAT_ROOT to the "
		           "project root");
		return -1;
	}
	const char *home = context_real_home(err);
	if (!home)
		return -1;
	cleanup_free char *canon = platform_canonical_path(root);
	if (!canon)
		return error_set(err, "cannot use MOAT_ROOT='%s': %s", root, strerror(errno));
	return context_init(&l->ctx, canon, home, err);
}

/* Could sandboxed code have written path? Yes under the root or a write
 * grant, and under any directory that has been a sandbox root (sessions
 * leave a .moat/ there), even when MOAT_ROOT names another project. A
 * jailbreak of such a binary, or of any tool of such a shell, would run
 * unconfined whatever it put there (a rewritten manifest points "git" at
 * bash; an env file sets BASH_ENV or GIT_CONFIG_*). */
static bool sandbox_writable(const struct launch *l, const char *path)
{
	size_t n;
	char **areas = context_writable_areas(l->ctx.root, l->ctx.home, &l->cfg, &n);
	bool under = false;
	for (size_t i = 0; i < n && !under; i++)
		under = path_is_under(path, areas[i]);
	context_free_areas(areas, n);
	cleanup_free char *dir = xstrdup(path);
	while (!under && strcmp(dir, "/") != 0) {
		cleanup_free char *marker = path_join(dir, ".moat");
		under = fs_is_dir(marker);
		char *up = path_dirname(dir);
		free(dir);
		dir = up;
	}
	return under;
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
		cleanup_free char *canon = (*d)[0] == '/' ? realpath(*d, NULL) : NULL;
		found = canon && path_is_under(shell_dir, canon) && strcmp(shell_dir, canon) != 0;
	}
	path_list_free(dirs);
	return found;
}

static bool jailbreak_entry_matches(const char *entry, const struct tool *t, const char *real)
{
	if (strchr(entry, '/')) {
		cleanup_free char *canon = realpath(entry, NULL);
		return strcmp(entry, t->real) == 0 || (canon && real && strcmp(canon, real) == 0);
	}
	return *entry && strcmp(entry, t->name) == 0;
}

/* MOAT_JAILBREAK entries with a slash name the real binary; bare names (and
 * config.zon's .jailbreak) match the tool's name. Only for a shell of the
 * shell directories, and never a binary, nor any tool of a shell, that
 * sandboxed code could have written (see above). */
static bool is_jailbroken(const struct launch *l, const struct tool *t)
{
	const char *list = getenv(ENV_JAILBREAK);
	bool by_config = config_jailbreaks(&l->cfg, t->name);
	if (!by_config && (!list || !*list))
		return false;
	cleanup_free char *real = realpath(t->real, NULL);
	if (!real || !in_shells_path(t->shell_dir, l->ctx.home) ||
	    sandbox_writable(l, t->shell_dir) || sandbox_writable(l, real))
		return false;
	if (by_config)
		return true;
	char **entries = path_list_split(list, NULL);
	bool match = false;
	for (char **e = entries; *e && !match; e++)
		match = jailbreak_entry_matches(*e, t, real);
	path_list_free(entries);
	return match;
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
	if (l->already_confined)
		return 0;
	if (plan_load_config(l, err) < 0)
		return -1;
	context_add_shell(&l->ctx, t->shell_dir);
	l->ctx.wrapper = t->self ? xstrdup(t->self) : NULL;
	if (plan_build_profile(l, t->name, err) < 0)
		return -1;
	l->jailbroken = is_jailbroken(l, t);
	if (l->jailbroken) {
		struct profile *p = &l->profile;
		p->jailbreaks = xrealloc_array(p->jailbreaks, p->njailbreaks + 1, sizeof(char *));
		p->jailbreaks[p->njailbreaks++] = xstrdup(t->real);
	}
	l->confirm = confirm_forced() || config_confirms(&l->cfg, t->name);
	if (!l->jailbroken && overrides_check_home(&l->overrides, &l->profile, t->name, err) < 0)
		return -1;
	return 0;
}
