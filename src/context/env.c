#include "context/env.h"

#include <string.h>

#include "base/fs.h"
#include "base/path.h"
#include "context/context.h"

extern char **environ;

int env_apply_overrides(char **home_override, struct error *err)
{
	*home_override = NULL;
	/* Collect first: setenv/unsetenv may move environ under our feet. */
	size_t n = 0;
	for (char **e = environ; *e; e++)
		n += strncmp(*e, MOAT_ENV_PREFIX, strlen(MOAT_ENV_PREFIX)) == 0;
	if (!n)
		return 0;
	char **vars = xcalloc(n, sizeof(char *));
	size_t k = 0;
	for (char **e = environ; *e && k < n; e++)
		if (strncmp(*e, MOAT_ENV_PREFIX, strlen(MOAT_ENV_PREFIX)) == 0)
			vars[k++] = xstrdup(*e);
	int rc = 0;
	for (size_t i = 0; i < k; i++) {
		char *eq = strchr(vars[i], '=');
		if (!eq)
			continue;
		*eq = '\0';
		const char *name = vars[i] + strlen(MOAT_ENV_PREFIX), *value = eq + 1;
		unsetenv(vars[i]);
		if (!*name || strncmp(name, "MOAT_", 5) == 0) {
			rc = error_set(err, "refusing %s: it would change moat's own settings", vars[i]);
			break;
		}
		if (strcmp(name, "HOME") == 0) {
			if (value[0] != '/') {
				rc = error_set(err, "MOAT_ENV_HOME=%s is not an absolute path", value);
				break;
			}
			free(*home_override);
			*home_override = path_normalize(value);
		}
		setenv(name, value, 1);
	}
	for (size_t i = 0; i < k; i++)
		free(vars[i]);
	free(vars);
	if (rc < 0) {
		free(*home_override);
		*home_override = NULL;
	}
	return rc;
}

int env_check_home(const struct profile *p, const char *home_override, const char *bin,
		   struct error *err)
{
	if (!home_override)
		return 0;
	cleanup_free char *canon = context_canonical_prefix(home_override, err);
	if (!canon)
		return -1;
	if (profile_allows_write(p, canon))
		return 0;
	error_set(err, "MOAT_ENV_HOME=%s is not writable in the sandbox", home_override);
	error_hint(err, "put it under $MOAT_ROOT (%s), e.g. $MOAT_ROOT/.moat/home,", p->root);
	error_hint(err, "or grant it explicitly:  moat allow %s %s --write", bin, home_override);
	err->status = 125;
	return -1;
}

int env_make_home(const char *home_override, struct error *err)
{
	if (!home_override || fs_is_dir(home_override))
		return 0;
	return fs_mkdir_p(home_override, 0700, err);
}
