#include "context/settings.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/path.h"
#include "base/platform.h"
#include "base/xdg.h"
#include "context/pastroots.h"

char *settings_path(const char *home)
{
	cleanup_free char *dir = xdg_moat_dir(XDG_CONFIG, home);
	return path_join(dir, "config.zon");
}

int settings_read(const char *path, struct config *out, char **buf_out, size_t *len_out,
                  struct error *err)
{
	char *buf = NULL;
	size_t len = 0;
	memset(out, 0, sizeof(*out));
	/* One byte over the limit, so the parser reports the size with the
	 * position format every other config error has. */
	if (fs_read_file(path, ZON_MAX_SIZE + 1, &buf, &len, err) < 0) {
		if (errno == EFBIG)
			return error_set(err, "%s:1:1: file is larger than %d bytes", path,
			                 ZON_MAX_SIZE);
		if (errno != ENOENT)
			return -1;
		error_clear(err);
		buf = xstrdup("");
		len = 0;
	}
	int rc = config_parse(buf, len, path, out, err);
	if (rc == 0 && buf_out) {
		*buf_out = buf;
		if (len_out)
			*len_out = len;
	} else {
		free(buf);
	}
	return rc;
}

int settings_load(const char *home, const char *root, struct config *cfg, struct error *err)
{
	cleanup_free char *path = settings_path(home);
	if (root) {
		/* Where the file lives: its directory resolved, or, for a symlink,
		 * the file resolved (one realpath either way: this runs in
		 * moat-wrapper's start-up). */
		struct stat st;
		bool link = lstat(path, &st) == 0 && S_ISLNK(st.st_mode);
		cleanup_free char *dir = path_dirname(path);
		cleanup_free char *where = platform_canonical_path(link ? path : dir);
		if (where && path_is_under(where, root)) {
			error_set(err, "refusing to use '%s': it is inside the sandbox root '%s'",
			          path, root);
			error_hint(
			    err,
			    "sandboxed code could rewrite its own grants there; keep config.zon "
			    "outside the project (XDG_CONFIG_HOME)");
			err->status = EXIT_MOAT_FAILED;
			return -1;
		}
	}
	return settings_read(path, cfg, NULL, NULL, err);
}

char **context_writable_areas(const char *root, const char *home, const struct config *cfg,
                              size_t *n)
{
	/* Whoever judges places against these judges past roots too. */
	past_roots_load(home);
	char **areas = xcalloc(2, sizeof(char *));
	*n = 0;
	if (root)
		areas[(*n)++] = xstrdup(root);
	for (size_t i = 0; i < cfg->nallow; i++) {
		for (size_t j = 0; cfg->allow[i].write && j < cfg->allow[i].npaths; j++) {
			cleanup_free char *path = path_expand_tilde(cfg->allow[i].paths[j], home);
			char *canon = path[0] == '/' ? platform_canonical_path(path) : NULL;
			if (!canon)
				continue;
			areas = xrealloc_array(areas, *n + 2, sizeof(char *));
			areas[(*n)++] = canon;
			areas[*n] = NULL;
		}
	}
	return areas;
}

void context_set_areas(struct context *c, const struct config *cfg)
{
	for (size_t i = 0; i < c->nareas; i++)
		free(c->areas[i]);
	free(c->areas);
	c->areas = context_writable_areas(c->root, c->home, cfg, &c->nareas);
}

void context_free_areas(char **areas, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(areas[i]);
	free(areas);
}

int context_resolve_shell(const char *path, char **canon, void *areas, struct error *err)
{
	char **list = areas;
	size_t n = 0;
	while (list[n])
		n++;
	return context_resolve_unplanted(path, (const char *const *)list, n, "the shell", canon,
	                                 err);
}

const char *context_root_or_null(const char *cwd, const char *home)
{
	struct error ignored;
	return profile_refuse_root(cwd, home, &ignored) == 0 ? cwd : NULL;
}

int context_add_config_sockets(struct context *c, const struct config *cfg, struct error *err)
{
	for (size_t i = 0; i < cfg->nsockets; i++) {
		cleanup_free char *path = path_expand_tilde(cfg->sockets[i], c->home);
		const char *why = path_refusal(path);
		if (why) {
			cleanup_free char *file = settings_path(c->home);
			error_set(err, "%s: refusing socket '%s': %s", file, cfg->sockets[i], why);
			err->status = EXIT_MOAT_FAILED;
			return -1;
		}
		char *canon = platform_canonical_path(path);
		if (canon)
			context_add_socket(c, canon);
		free(canon);
	}
	return 0;
}

/* Grants keep the descriptor their path was resolved with, for the
 * sandbox's rule (one lookup a grant); those numbered at or above the
 * limit returned are closed, and their rules look the path up again. The
 * last 64 numbers stay free for what moat opens after planning (a
 * session's pipes and terminal, other rules' lookups, the exec): held
 * descriptors are close-on-exec, so the tool never sees them. */
static int held_fd_limit(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return 0;
	if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > INT_MAX)
		return INT_MAX - 64;
	return (int)rl.rlim_cur - 64;
}

int context_add_config_grants(struct context *c, const struct config *cfg, const char *bin,
                              struct strbuf *warnings, struct error *err)
{
	struct config_grant *grants;
	size_t n = config_grants(cfg, bin, c->root, c->home, &grants);
	if (!c->areas)
		context_set_areas(c, cfg);
	const char *const *areas = (const char *const *)c->areas;
	size_t nareas = c->nareas;
	int rc = 0;
	int held_below = n ? held_fd_limit() : 0;
	struct lookup_dir dirs = {0};
	for (size_t i = 0; rc == 0 && i < n; i++) {
		const char *why = path_refusal(grants[i].path);
		char *canon = NULL;
		int fd = -1;
		if (why) {
			cleanup_free char *file = settings_path(c->home);
			error_set(err, "%s:%d:%d: refusing to grant '%s' to %s: %s", file,
			          grants[i].rule->line, grants[i].rule->col, grants[i].path,
			          grants[i].bin, why);
			error_hint(err,
			           "fix the path in config.zon; 'moat check' lists every problem");
			err->status = EXIT_MOAT_FAILED;
			rc = -1;
		} else if (context_resolve_grant(grants[i].path, areas, nareas, &dirs, &canon, &fd,
		                                 err) < 0) {
			sb_addf(warnings, "%s; skipped (%s)\n", err->msg, err->hint);
			error_set(err, "%s", "");
		}
		if (fd >= held_below)
			close(fd), fd = -1;
		if (canon) {
			unsigned access = ACCESS_READ | (grants[i].write ? ACCESS_WRITE : 0) |
			                  (grants[i].exec ? ACCESS_EXEC : 0);
			context_add_grant(c, grants[i].bin, canon, access, fd);
		} else if (fd >= 0) {
			close(fd);
		}
	}
	context_lookup_dir_free(&dirs);
	config_grants_free(grants, n);
	return rc;
}
