#include "context/settings.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/path.h"

char *settings_path(const char *home)
{
	const char *xdg = getenv("XDG_CONFIG_HOME");
	if (xdg && xdg[0] == '/')
		return path_join(xdg, "moat/config.zon");
	return path_join(home, ".config/moat/config.zon");
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
		cleanup_free char *where = realpath(link ? path : dir, NULL);
		if (where && path_is_under(where, root)) {
			error_set(err, "refusing to use '%s': it is inside the sandbox root '%s'", path, root);
			error_hint(err, "sandboxed code could rewrite its own grants there; keep config.zon "
					"outside the project (XDG_CONFIG_HOME)");
			err->status = 125;
			return -1;
		}
	}
	return config_load(path, cfg, NULL, NULL, err);
}

/* Where sandboxed code can write: the root and every write grant, as
 * configured (normalized). The strings borrow from c and grants; the array
 * has room for n + 1 and unused slots point at the root. */
static const char **settings_writable_areas(const struct context *c,
					    const struct config_grant *grants, size_t n)
{
	const char **areas = xcalloc(n + 1, sizeof(char *));
	areas[0] = c->root;
	for (size_t i = 0; i < n; i++)
		areas[i + 1] = grants[i].write && grants[i].path[0] == '/' ? grants[i].path : c->root;
	return areas;
}

int context_add_config_sockets(struct context *c, const struct config *cfg, struct error *err)
{
	for (size_t i = 0; i < cfg->nsockets; i++) {
		cleanup_free char *path = path_expand_tilde(cfg->sockets[i], c->home);
		const char *why = path_refusal(path);
		if (why) {
			cleanup_free char *file = settings_path(c->home);
			error_set(err, "%s: refusing socket '%s': %s", file, cfg->sockets[i], why);
			err->status = 125;
			return -1;
		}
		char *canon = realpath(path, NULL);
		if (canon)
			context_add_socket(c, canon);
		free(canon);
	}
	return 0;
}

int context_add_config_grants(struct context *c, const struct config *cfg, const char *bin,
			      struct error *err)
{
	struct config_grant *grants;
	size_t n = config_grants(cfg, bin, c->root, c->home, &grants);
	cleanup_free const char **writable = settings_writable_areas(c, grants, n);
	for (size_t i = 0; i < n; i++) {
		const char *why = path_refusal(grants[i].path);
		if (why) {
			cleanup_free char *file = settings_path(c->home);
			error_set(err, "%s:%d:%d: refusing to grant '%s' to %s: %s", file, grants[i].rule->line,
				  grants[i].rule->col, grants[i].path, grants[i].bin, why);
			error_hint(err, "fix the path in config.zon; 'moat check' lists every problem");
			err->status = 125;
			config_grants_free(grants, n);
			return -1;
		}
		cleanup_free char *norm = path_normalize(grants[i].path);
		char *canon = realpath(norm, NULL);
		if (context_refuse_planted_link(norm, canon, writable, n + 1, "to grant", err) < 0) {
			free(canon);
			config_grants_free(grants, n);
			return -1;
		}
		if (!canon)
			continue;
		unsigned access = ACCESS_READ | (grants[i].write ? ACCESS_WRITE : 0) |
				  (grants[i].exec ? ACCESS_EXEC : 0);
		context_add_grant(c, grants[i].bin, canon, access);
		free(canon);
	}
	config_grants_free(grants, n);
	return 0;
}
