#include "launch/overrides.h"

#include <string.h>

#include "base/envvars.h"
#include "base/fs.h"
#include "base/path.h"
#include "context/context.h"
#include "context/writable.h"
#include "shells/shells.h"

extern char **environ;

int overrides_collect(struct env_overrides *o, struct error *err)
{
	*o = (struct env_overrides){0};
	size_t prefix = strlen(ENV_OVERRIDE_PREFIX);
	for (char **e = environ; *e; e++) {
		const char *eq = strchr(*e, '=');
		if (strncmp(*e, ENV_OVERRIDE_PREFIX, prefix) != 0 || !eq)
			continue;
		const char *name = *e + prefix;
		size_t len = (size_t)(eq - name);
		if (!len || strncmp(name, ENV_PREFIX, strlen(ENV_PREFIX)) == 0) {
			error_set(err, "refusing %.*s: it would change moat's own settings",
			          (int)(eq - *e), *e);
			overrides_free(o);
			return -1;
		}
		o->vars = xrealloc_array(o->vars, o->n + 1, sizeof(*o->vars));
		o->vars[o->n++] = (struct env_change){xstrndup(name, len), xstrdup(eq + 1)};
		if (strcmp(o->vars[o->n - 1].name, "HOME") != 0)
			continue;
		if (eq[1] != '/') {
			error_set(err, ENV_HOME_OVERRIDE "=%s is not an absolute path", eq + 1);
			overrides_free(o);
			return -1;
		}
		free(o->home);
		o->home = path_normalize(eq + 1);
	}
	return 0;
}

void overrides_apply(const struct env_overrides *o)
{
	/* The prefixed names never reach the tool. */
	for (size_t i = 0; i < o->n; i++) {
		cleanup_free char *full = xasprintf("%s%s", ENV_OVERRIDE_PREFIX, o->vars[i].name);
		unsetenv(full);
	}
	for (size_t i = 0; i < o->n; i++)
		setenv(o->vars[i].name, o->vars[i].value, 1);
}

void overrides_free(struct env_overrides *o)
{
	env_changes_free(o->vars, o->n);
	free(o->home);
	*o = (struct env_overrides){0};
}

int overrides_check_home(const struct env_overrides *o, const struct profile *p, const char *bin,
                         struct error *err)
{
	const char *home_override = o->home;
	if (!home_override)
		return 0;
	cleanup_free char *canon = fs_canonical_prefix(home_override, err);
	if (!canon)
		return -1;
	if (profile_allows_write(p, canon))
		return 0;
	error_set(err, ENV_HOME_OVERRIDE "=%s is not writable in the sandbox", home_override);
	/* Both ways out pasteable as printed: the root's real path, since
	 * $MOAT_ROOT is set only inside the sandbox. A value under /.moat is
	 * that variable expanded empty outside it: granting it is nonsense. */
	error_hint(err, "put it in the project: MOAT_ENV_HOME=%s/.moat/home", p->root);
	if (!path_is_under(home_override, "/.moat"))
		error_hint(err, "or grant it explicitly:  moat allow %s %s --write", bin,
		           home_override);
	else
		error_hint(err, "($MOAT_ROOT is set only inside the sandbox, so outside it "
		                "$MOAT_ROOT/.moat/home is /.moat/home)");
	err->status = EXIT_MOAT_FAILED;
	return -1;
}

int overrides_judge_for_jailbreak(const char *shown, const char *value,
                                  const struct jailbreak_places *j, struct error *err)
{
	char **parts = path_list_split(value, NULL);
	int rc = 0;
	for (char **p = parts; *p && rc == 0; p++) {
		if ((*p)[0] != '/')
			continue;
		cleanup_free char *what =
		    xasprintf("to hand jailbroken %s %s=%s", j->bin, shown, value);
		cleanup_free char *canon = NULL;
		if (context_resolve_unwritable(*p, j->root, j->areas, j->n, what, &canon, err) == 0)
			continue;
		error_hint(err,
		           "%s runs with no sandbox: sandboxed code could leave settings there "
		           "(a .gitconfig, hooks, a config file) that it would follow outside",
		           j->bin);
		error_hint(err, "run %s confined: take it out of %s", j->bin, j->how);
		error_hint(err, "or do not hand it %s when it runs jailbroken", shown);
		err->status = EXIT_MOAT_FAILED;
		rc = -1;
	}
	path_list_free(parts);
	return rc;
}

int overrides_check_jailbroken(const struct env_overrides *o, const struct jailbreak_places *j,
                               struct error *err)
{
	for (size_t i = 0; i < o->n; i++) {
		cleanup_free char *shown = xasprintf("%s%s", ENV_OVERRIDE_PREFIX, o->vars[i].name);
		if (overrides_judge_for_jailbreak(shown, o->vars[i].value, j, err) < 0)
			return -1;
	}
	return 0;
}
