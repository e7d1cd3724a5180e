#include <errno.h>
#include <string.h>

#include "base/fs.h"
#include "base/path.h"
#include "context/context.h"
#include "context/env.h"
#include "context/grants.h"
#include "sandbox/sandbox.h"
#include "shells/shells.h"
#include "wrapper/wrapper.h"

int invocation_read_env(struct invocation *inv, struct error *err)
{
	const char *root = getenv("MOAT_ROOT");
	if (!root || !*root) {
		error_set(err, "MOAT_ROOT is not set, so there is no sandbox root");
		error_hint(err, "run tools through 'moat run' or 'moat shell', or set MOAT_ROOT to the "
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
	if (fs_read_file(path, MANIFEST_MAX, &buf, &len, err) < 0)
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

int apply_moat_env(struct invocation *inv, struct error *err)
{
	return env_apply_overrides(&inv->home_override, err);
}

/* MOAT_JAILBREAK entries with a slash name the real binary; bare names match
 * the tool's name, but never a binary under the root, where sandboxed code
 * could have rewritten the manifest to point a trusted name elsewhere. */
bool is_jailbroken(const struct tool *t, const struct invocation *inv)
{
	const char *list = getenv("MOAT_JAILBREAK");
	if (!list || !*list)
		return false;
	cleanup_free char *copy = xstrdup(list);
	cleanup_free char *real = realpath(t->real, NULL);
	for (char *entry = copy, *colon; entry; entry = colon ? colon + 1 : NULL) {
		colon = strchr(entry, ':');
		if (colon)
			*colon = '\0';
		if (strchr(entry, '/')) {
			cleanup_free char *canon = realpath(entry, NULL);
			if (strcmp(entry, t->real) == 0 || (canon && real && strcmp(canon, real) == 0))
				return true;
		} else if (*entry && strcmp(entry, t->name) == 0) {
			return real && !path_is_under(real, inv->root);
		}
	}
	return false;
}

static int build_wrapper_profile(const struct tool *t, const struct invocation *inv,
				 struct profile *p, struct error *err)
{
	struct context ctx;
	if (context_init(&ctx, inv->root, inv->home, err) < 0)
		return -1;
	context_add_shell(&ctx, t->shell_dir);
	ctx.wrapper = realpath("/proc/self/exe", NULL);
	int rc = context_add_config_grants(&ctx, t->name, err);
	if (rc == 0)
		rc = context_build_profile(&ctx, PLATFORM_LINUX, p, err);
	context_free(&ctx);
	return rc;
}

int confine(const struct tool *t, const struct invocation *inv, struct error *err)
{
	if (sandbox_already_confined(inv->root, inv->home)) {
		/* Inside a session: its profile is in force and no second layer is
		 * needed; the HOME override still applies. */
		return env_make_home(inv->home_override, err);
	}
	struct sandbox_support support;
	if (sandbox_probe(&support, err) < 0)
		return -1;
	struct profile p;
	if (build_wrapper_profile(t, inv, &p, err) < 0)
		return -1;
	int rc = env_check_home(&p, inv->home_override, t->name, err);
	if (rc == 0) {
		context_apply_env(&p);
		rc = sandbox_apply(&p, &support, err);
	}
	if (rc == 0)
		rc = context_make_tmpdir(p.root, err);
	if (rc == 0)
		rc = env_make_home(inv->home_override, err);
	profile_free(&p);
	return rc;
}
