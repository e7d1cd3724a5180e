#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "approvals/approvals.h"
#include "base/fs.h"
#include "base/path.h"
#include "base/platform.h"
#include "context/context.h"
#include "context/env.h"
#include "context/settings.h"
#include "sandbox/sandbox.h"
#include "shells/shells.h"
#include "wrapper/wrapper.h"

int invocation_read_env(struct invocation *inv, struct error *err)
{
	const char *root = getenv("MOAT_ROOT");
	if (!root || !*root) {
		error_set(err, "MOAT_ROOT is not set, so there is no sandbox root");
		error_hint(err,
		           "run tools through 'moat run' or 'moat shell', or set MOAT_ROOT to the "
		           "project root");
		return -1;
	}
	inv->home = context_real_home(err);
	if (!inv->home)
		return -1;
	inv->root = realpath(root, NULL);
	if (!inv->root)
		return error_set(err, "cannot use MOAT_ROOT='%s': %s", root, strerror(errno));
	return 0;
}

int apply_shell_env(const struct tool *t, const struct invocation *inv, struct error *err)
{
	cleanup_free char *path = path_join(t->shell_dir, ENVFILE_REL);
	cleanup_free char *buf = NULL;
	size_t len;
	if (fs_read_beneath(t->shell_dir, ENVFILE_REL, MANIFEST_MAX, &buf, &len, err) < 0)
		return errno == ENOENT ? 0 : -1;
	struct env_change *env;
	size_t n;
	if (envfile_parse(buf, len, path, inv->root, &env, &n, err) < 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		setenv(env[i].name, env[i].value, 1);
	env_changes_free(env, n);
	return 0;
}

/* Could sandboxed code have written path? Yes under the root or a write
 * grant, and under any directory that has been a sandbox root (sessions
 * leave a .moat/ there), even when MOAT_ROOT names another project. A
 * jailbreak of such a binary, or of any tool of such a shell, would run
 * unconfined whatever it put there (a rewritten manifest points "git" at
 * bash; an env file sets BASH_ENV or GIT_CONFIG_*). */
static bool sandbox_writable(const char *path, const struct invocation *inv,
                             const struct config *cfg)
{
	size_t n;
	char **areas = context_writable_areas(inv->root, inv->home, cfg, &n);
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
static bool in_shells_path(const char *shell_dir)
{
	if (path_is_under(shell_dir, "/nix/store"))
		return true;
	cleanup_free char *search = shells_search_path();
	bool found = false;
	for (char *p = search, *colon; p && !found; p = colon ? colon + 1 : NULL) {
		colon = strchr(p, ':');
		if (colon)
			*colon = '\0';
		cleanup_free char *canon = p[0] == '/' ? realpath(p, NULL) : NULL;
		found = canon && path_is_under(shell_dir, canon) && strcmp(shell_dir, canon) != 0;
	}
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
static bool is_jailbroken(const struct tool *t, const struct invocation *inv,
                          const struct config *cfg)
{
	const char *list = getenv("MOAT_JAILBREAK");
	if (!config_jailbreaks(cfg, t->name) && (!list || !*list))
		return false;
	cleanup_free char *real = realpath(t->real, NULL);
	if (!real || !in_shells_path(t->shell_dir) || sandbox_writable(t->shell_dir, inv, cfg) ||
	    sandbox_writable(real, inv, cfg))
		return false;
	if (config_jailbreaks(cfg, t->name) && jailbreak_entry_matches(t->name, t, real))
		return true;
	cleanup_free char *copy = xstrdup(list ? list : "");
	for (char *entry = copy, *colon; entry; entry = colon ? colon + 1 : NULL) {
		colon = strchr(entry, ':');
		if (colon)
			*colon = '\0';
		if (jailbreak_entry_matches(entry, t, real))
			return true;
	}
	return false;
}

static int build_wrapper_profile(const struct tool *t, const struct invocation *inv,
                                 const struct config *cfg, struct profile *p, struct error *err)
{
	struct context ctx;
	if (context_init(&ctx, inv->root, inv->home, err) < 0)
		return -1;
	context_add_shell(&ctx, t->shell_dir);
	ctx.wrapper = t->self ? xstrdup(t->self) : NULL;
	struct strbuf warnings = STRBUF_INIT;
	int rc = context_add_config_grants(&ctx, cfg, t->name, &warnings, err);
	if (warnings.len)
		warning_print("moat-wrapper", warnings.buf);
	sb_release(&warnings);
	if (rc == 0)
		rc = context_add_config_sockets(&ctx, cfg, err);
	if (rc == 0)
		rc = context_build_profile(&ctx, PLATFORM_LINUX, p, err);
	context_free(&ctx);
	return rc;
}

static int confine(const struct profile *p, const struct invocation *inv, const char *bin,
                   struct error *err)
{
	struct sandbox_support support;
	if (sandbox_probe(&support, err) < 0 ||
	    env_check_home(p, inv->overrides.home, bin, err) < 0)
		return -1;
	context_apply_env(p);
	if (sandbox_apply(p, &support, err) < 0)
		return -1;
	return context_make_tmpdir(p->root, err);
}

/* Ask before a binary listed in .confirm starts, unless approved already. */
static int confirm(const struct tool *t, const struct invocation *inv, const struct config *cfg,
                   const struct profile *p, struct error *err)
{
	if (!config_confirms(cfg, t->name))
		return 0;
	struct strbuf warn = STRBUF_INIT;
	int rc = confirm_start(inv->home, t->name, p,
	                       inv->overrides.home ? inv->overrides.home : inv->home, &warn, err);
	if (warn.len)
		warning_print("moat-wrapper", warn.buf);
	sb_release(&warn);
	return rc;
}

int run_sandboxed(const struct tool *t, const struct invocation *inv, struct error *err)
{
	/* Inside a session its profile is in force: no second layer (Landlock
	 * allows 16), and config.zon is out of reach anyway. */
	if (sandbox_already_confined(inv->root, inv->home))
		return env_make_home(inv->overrides.home, err);
	struct config cfg;
	if (settings_load(inv->home, inv->root, &cfg, err) < 0)
		return -1;
	struct profile p;
	int rc = build_wrapper_profile(t, inv, &cfg, &p, err);
	if (rc == 0) {
		bool jailbroken = is_jailbroken(t, inv, &cfg);
		if (jailbroken) {
			p.jailbreaks =
			    xrealloc_array(p.jailbreaks, p.njailbreaks + 1, sizeof(char *));
			p.jailbreaks[p.njailbreaks++] = xstrdup(t->real);
		}
		rc = confirm(t, inv, &cfg, &p, err);
		if (rc == 0 && !jailbroken)
			rc = confine(&p, inv, t->name, err);
		profile_free(&p);
	}
	config_free(&cfg);
	return rc < 0 ? -1 : env_make_home(inv->overrides.home, err);
}
