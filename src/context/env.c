#include "context/env.h"

#include <string.h>

#include "base/fs.h"
#include "base/path.h"
#include "context/context.h"
#include "shells/shells.h"

extern char **environ;

int env_collect_overrides(struct env_overrides *o, struct error *err)
{
	*o = (struct env_overrides){0};
	/* Collect first: unsetenv may move environ under our feet. */
	size_t prefix = strlen(MOAT_ENV_PREFIX);
	for (char **e = environ; *e; e++) {
		if (strncmp(*e, MOAT_ENV_PREFIX, prefix) != 0 || !strchr(*e, '='))
			continue;
		const char *eq = strchr(*e, '=');
		o->vars = xrealloc_array(o->vars, o->n + 1, sizeof(*o->vars));
		o->vars[o->n++] = (struct env_change){
		    xstrndup(*e + prefix, (size_t)(eq - *e) - prefix), xstrdup(eq + 1)};
	}
	for (size_t i = 0; i < o->n; i++) {
		cleanup_free char *full = xasprintf("%s%s", MOAT_ENV_PREFIX, o->vars[i].name);
		unsetenv(full);
	}
	for (size_t i = 0; i < o->n; i++) {
		const char *name = o->vars[i].name, *value = o->vars[i].value;
		if (!*name || strncmp(name, "MOAT_", 5) == 0) {
			error_set(err, "refusing %s%s: it would change moat's own settings",
			          MOAT_ENV_PREFIX, name);
			env_overrides_free(o);
			return -1;
		}
		if (strcmp(name, "HOME") == 0) {
			if (value[0] != '/') {
				error_set(err, "MOAT_ENV_HOME=%s is not an absolute path", value);
				env_overrides_free(o);
				return -1;
			}
			free(o->home);
			o->home = path_normalize(value);
		}
	}
	return 0;
}

void env_apply_overrides(const struct env_overrides *o)
{
	for (size_t i = 0; i < o->n; i++)
		setenv(o->vars[i].name, o->vars[i].value, 1);
}

void env_overrides_free(struct env_overrides *o)
{
	env_changes_free(o->vars, o->n);
	free(o->home);
	*o = (struct env_overrides){0};
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
