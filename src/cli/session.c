#include "cli/session.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "approvals/approvals.h"
#include "base/fs.h"
#include "base/path.h"
#include "base/platform.h"
#include "base/strbuf.h"
#include "context/env.h"
#include "context/settings.h"
#include "shells/shells.h"

/* moat-wrapper installed next to moat, which wrapped tools inside the
 * session must be able to run. */
static char *find_wrapper(void)
{
	cleanup_free char *self = platform_self_exe();
	if (!self)
		return NULL;
	cleanup_free char *dir = path_dirname(self);
	cleanup_free char *wrapper = path_join(dir, "moat-wrapper");
	return realpath(wrapper, NULL);
}

static int add_shells(struct session *s, const char *const *names, size_t n,
                      const struct global_opts *g, struct error *err)
{
	struct strbuf path = STRBUF_INIT;
	size_t nareas;
	char **areas = context_writable_areas(s->ctx.root, s->ctx.home, &s->cfg, &nareas);
	for (size_t i = 0; i < n; i++) {
		cleanup_free char *dir = NULL;
		if (shell_find(names[i], context_resolve_shell, areas, &dir, err) < 0) {
			context_free_areas(areas, nareas);
			sb_release(&path);
			return -1;
		}
		cli_verbose(g, "shell %s: %s", names[i], dir);
		context_add_shell(&s->ctx, dir);
		sb_addf(&path, "%s/bin:", dir);
	}
	context_free_areas(areas, nareas);
	const char *caller = getenv("PATH");
	sb_adds(&path, caller && *caller ? caller : "/usr/local/bin:/usr/bin:/bin");
	s->path = sb_detach(&path);
	return 0;
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
static int choose_shells(struct session *s, char **named, int nnamed, const struct global_opts *g,
                         struct error *err)
{
	const char **names = NULL;
	size_t n = 0;
	for (int i = 0; i < nnamed; i++)
		add_name(&names, &n, named[i]);
	if (nnamed == 0) {
		const char **found;
		size_t nfound;
		enum config_shells_from from = config_detect_shells(
		    &s->cfg, s->ctx.root, s->ctx.home, marker_exists, NULL, &found, &nfound);
		for (size_t i = 0; i < nfound; i++)
			add_name(&names, &n, found[i]);
		free(found);
		if (from != CONFIG_SHELLS_NONE) {
			struct strbuf list = STRBUF_INIT;
			for (size_t i = 0; i < n; i++)
				sb_addf(&list, "%s%s", i ? ", " : "", names[i]);
			fprintf(stderr, "moat: using shells %s (%s)\n", sb_str(&list),
			        from == CONFIG_SHELLS_LINK ? "linked" : "detected");
			sb_release(&list);
		}
	}
	for (size_t i = 0; i < s->cfg.ndefault; i++)
		add_name(&names, &n, s->cfg.default_shells[i]);
	int rc = add_shells(s, names, n, g, err);
	free(names);
	return rc;
}

/* A name found in a shell's bin/ is a symlink to moat-wrapper: the jailbreak
 * is for the real binary its manifest names, never for the wrapper (which
 * would exempt every wrapped tool). Takes exe; returns the real binary or NULL. */
static char *unwrap_tool(const struct session *s, char *exe)
{
	cleanup_free char *canon = realpath(exe, NULL);
	if (!canon || !s->ctx.wrapper || strcmp(canon, s->ctx.wrapper) != 0)
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
static void resolve_jailbreaks(struct session *s, const struct global_opts *g)
{
	struct strbuf env = STRBUF_INIT;
	for (size_t i = 0; i < s->cfg.njailbreak; i++) {
		struct error ignored;
		char *exe = session_resolve_command(s->cfg.jailbreak[i], s->path, &ignored);
		if (!exe || exe[0] != '/') {
			fprintf(stderr, "moat: jailbreak '%s' not found on PATH, skipped\n",
			        s->cfg.jailbreak[i]);
			free(exe);
			continue;
		}
		exe = unwrap_tool(s, exe);
		if (!exe) {
			fprintf(stderr,
			        "moat: jailbreak '%s' resolves to a wrapped tool whose real binary "
			        "cannot be found, skipped\n",
			        s->cfg.jailbreak[i]);
			continue;
		}
		cli_verbose(g, "jailbreak %s: %s", s->cfg.jailbreak[i], exe);
		sb_addf(&env, "%s%s", env.len ? ":" : "", exe);
		s->ctx.jailbreaks =
		    xrealloc_array(s->ctx.jailbreaks, s->ctx.njailbreaks + 1, sizeof(char *));
		s->ctx.jailbreaks[s->ctx.njailbreaks++] = exe;
	}
	if (env.len)
		setenv("MOAT_JAILBREAK", env.buf, 1);
	sb_release(&env);
}

int session_open(struct session *s, char **shells, int nshells, const struct global_opts *g,
                 struct error *err)
{
	*s = (struct session){0};
	const char *home = context_real_home(err);
	if (!home)
		return -1;
	cleanup_free char *cwd = fs_cwd(err);
	if (!cwd)
		return -1;
	if (context_init(&s->ctx, cwd, home, err) < 0)
		return -1;
	cli_verbose(g, "root %s (home %s)", s->ctx.root, s->ctx.home);
	cleanup_free char *cfg_path = settings_path(home);
	cli_verbose(g, "config %s", cfg_path);
	s->ctx.wrapper = find_wrapper();
	if (settings_load(home, s->ctx.root, &s->cfg, err) < 0 ||
	    choose_shells(s, shells, nshells, g, err) < 0)
		goto fail;
	resolve_jailbreaks(s, g);
	struct strbuf warnings = STRBUF_INIT;
	int rc = context_add_config_grants(&s->ctx, &s->cfg, NULL, &warnings, err);
	if (warnings.len)
		warning_print("moat", warnings.buf);
	sb_release(&warnings);
	if (rc < 0 || context_add_config_sockets(&s->ctx, &s->cfg, err) < 0 ||
	    sandbox_probe(&s->support, err) < 0 ||
	    context_build_profile(&s->ctx, PLATFORM_LINUX, &s->profile, err) < 0)
		goto fail;
	profile_add_private_ipc(&s->profile);
	if (env_collect_overrides(&s->overrides, err) < 0 ||
	    env_check_home(&s->profile, s->overrides.home, "'*'", err) < 0)
		goto fail;
	const char *socket_warning = sandbox_socket_warning(&s->profile, &s->support);
	if (socket_warning)
		fprintf(stderr, "moat: warning: %s\n", socket_warning);
	if (s->support.not_enforced[0])
		fprintf(stderr, "moat: not enforced by this kernel (Landlock ABI %d): %s\n",
		        s->support.abi, s->support.not_enforced);
	return 0;
fail:
	session_close(s);
	return -1;
}

void session_close(struct session *s)
{
	context_free(&s->ctx);
	config_free(&s->cfg);
	profile_free(&s->profile);
	free(s->path);
	env_overrides_free(&s->overrides);
	*s = (struct session){0};
}

char *session_resolve_command(const char *cmd, const char *path, struct error *err)
{
	if (strchr(cmd, '/'))
		return xstrdup(cmd);
	cleanup_free char *copy = xstrdup(path);
	bool found_unusable = false;
	for (char *dir = copy, *colon; dir; dir = colon ? colon + 1 : NULL) {
		colon = strchr(dir, ':');
		if (colon)
			*colon = '\0';
		cleanup_free char *cand = path_join(*dir ? dir : ".", cmd);
		struct stat st;
		if (stat(cand, &st) < 0 || S_ISDIR(st.st_mode))
			continue;
		if (access(cand, X_OK) == 0)
			return steal_ptr(&cand);
		found_unusable = true;
	}
	error_set(err, "%s: %s", cmd, found_unusable ? "permission denied" : "command not found");
	err->status = found_unusable ? EXIT_CANNOT_RUN : EXIT_NOT_FOUND;
	return NULL;
}

/* Does this session need a confirm? When its command is listed in .confirm
 * (or "*" is), or any tool its shells provide is: wrappers inside a session
 * cannot ask (the store is out of reach), so the session asks for them. */
static bool session_confirms(const struct session *s, const char *name)
{
	if (config_confirms(&s->cfg, name))
		return true;
	for (size_t i = 0; i < s->ctx.nshell_dirs; i++) {
		struct manifest m;
		struct error ignored;
		if (manifest_load(s->ctx.shell_dirs[i], &m, &ignored) < 0)
			continue;
		bool listed = false;
		for (size_t j = 0; j < m.n && !listed; j++)
			listed = config_confirms(&s->cfg, m.entries[j].name);
		manifest_free(&m);
		if (listed)
			return true;
	}
	return false;
}

static int session_confirm(const struct session *s, const char *name, struct error *err)
{
	if (!session_confirms(s, name))
		return 0;
	struct strbuf warn = STRBUF_INIT;
	int rc = confirm_start(s->ctx.home, name, &s->profile,
	                       s->overrides.home ? s->overrides.home : s->ctx.home, &warn, err);
	if (warn.len)
		warning_print("moat", warn.buf);
	sb_release(&warn);
	return rc;
}

int session_exec(struct session *s, char **cmd, struct error *err)
{
	context_apply_env(&s->profile);
	setenv("PATH", s->path, 1);
	cleanup_free char *exe = session_resolve_command(cmd[0], s->path, err);
	if (!exe)
		return err->status;
	if (session_confirm(s, path_basename(exe), err) < 0)
		return EXIT_MOAT_FAILED;
	/* A descriptor to a file outside would be a hole Landlock cannot close. */
	platform_close_from(3);
	if (sandbox_apply(&s->profile, &s->support, err) < 0 ||
	    context_make_tmpdir(s->profile.root, err) < 0 ||
	    env_make_home(s->overrides.home, err) < 0)
		return EXIT_MOAT_FAILED;
	env_apply_overrides(&s->overrides);
	execv(exe, cmd);
	return context_exec_error(err, exe, path_basename(exe), s->profile.root, s->ctx.home,
	                          errno);
}
