/* Finding local shells on disk. */
#include <errno.h>
#include <string.h>

#include "base/fs.h"
#include "base/path.h"
#include "base/strbuf.h"
#include "shells/nix.h"
#include "shells/shells.h"

char *shells_search_path(void)
{
	const char *env = getenv("MOAT_SHELLS_PATH");
	if (env && *env)
		return xstrdup(env);
	const char *data = getenv("XDG_DATA_HOME");
	if (data && data[0] == '/')
		return path_join(data, "moat/shells");
	const char *home = getenv("HOME");
	return path_join(home && *home ? home : "/nonexistent", ".local/share/moat/shells");
}

static int check_shell_dir(const char *dir, struct error *err)
{
	if (!fs_is_dir(dir))
		return error_set(err, "shell '%s' is not a directory", dir);
	cleanup_free char *bin = path_join(dir, "bin");
	if (!fs_is_dir(bin))
		return error_set(err, "shell '%s' has no bin/ directory", dir);
	return 0;
}

static bool has_relative_entry(const char *list)
{
	for (const char *p = list; *p; p += strcspn(p, ":"), p += *p == ':')
		if (*p != ':' && *p != '/')
			return true;
	return false;
}

static int resolve_realpath(const char *path, char **canon, void *arg, struct error *err)
{
	(void)arg, (void)err;
	*canon = realpath(path, NULL);
	return 0;
}

int shell_find(const char *name, shell_resolve_fn *resolve, void *arg, char **dir,
               struct error *err)
{
	/* FLAKE#ATTR names its flake; the flake may well contain a slash. */
	if (strchr(name, '#'))
		return nix_shell_find(name, dir, err);
	if (!resolve)
		resolve = resolve_realpath;
	if (strchr(name, '/')) {
		cleanup_free char *abs = fs_absolute(name, err);
		cleanup_free char *canon = NULL;
		if (!abs || resolve(abs, &canon, arg, err) < 0)
			return -1;
		if (!canon)
			return error_set(err, "cannot use shell '%s': %s", name, strerror(errno));
		if (check_shell_dir(canon, err) < 0)
			return -1;
		*dir = steal_ptr(&canon);
		return 0;
	}
	const char *why = tool_name_refusal(name);
	if (why)
		return error_set(err, "bad shell name '%s': %s", name, why);
	cleanup_free char *search = shells_search_path();
	for (char *p = search, *colon; p; p = colon ? colon + 1 : NULL) {
		colon = strchr(p, ':');
		if (colon)
			*colon = '\0';
		if (p[0] != '/') /* relative to wherever moat happens to run: never */
			continue;
		cleanup_free char *cand = path_join(p, name);
		cleanup_free char *canon = NULL;
		if (resolve(cand, &canon, arg, err) < 0)
			return -1;
		if (!canon)
			continue;
		if (check_shell_dir(canon, err) < 0)
			return -1;
		*dir = steal_ptr(&canon);
		return 0;
	}
	/* Not a local shell: ask the flake. If that fails too, say both. */
	if (nix_shell_find(name, dir, err) == 0)
		return 0;
	cleanup_free char *shown = shells_search_path();
	error_hint(err, "looked for a local shell in %s (MOAT_SHELLS_PATH%s)", shown,
	           has_relative_entry(shown) ? "; relative entries are skipped" : "");
	error_hint(err, "make a local one with: moat wrap %s /path/to/tool...", name);
	return -1;
}
