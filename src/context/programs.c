#include "context/programs.h"

#include <string.h>

#include "base/envvars.h"
#include "base/path.h"
#include "base/platform.h"
#include "base/strbuf.h"
#include "base/util.h"

/* Where the system keeps its programs and what they load or read at start
 * (Linux and macOS). Read and exec grants there are harmless: the default
 * profile reads most of them anyway. */
static const char *const system_dirs[] = {
    "/usr", "/bin",  "/sbin",      "/lib",  "/lib32",  "/lib64",   "/libx32",       "/etc",
    "/opt", "/boot", "/nix/store", "/snap", "/System", "/Library", "/Applications",
};

const char programs_hint[] =
    "install at user level and grant that: npm config set prefix ~/.npm-global, then moat "
    "allow npm ~/.npm-global --write; pip install --user; or a home in the "
    "project: " ENV_HOME_OVERRIDE "=$PWD/.moat/home";

/* A PATH entry to judge, canonical, or NULL: absolute, and neither home nor
 * an ancestor of it. */
static char *path_entry(const char *entry, const char *home)
{
	if (entry[0] != '/')
		return NULL;
	char *canon = platform_canonical_path(entry);
	if (!canon)
		canon = path_normalize(entry);
	if (home && path_is_under(home, canon)) {
		free(canon);
		return NULL;
	}
	return canon;
}

/* The PATH directories to judge, canonical, NULL-terminated. Kept for the
 * next call with the same PATH and home: a session judges every write
 * grant, and each lookup is a system call per entry. */
static char *const *path_dirs(const char *path_env, const char *home)
{
	static char *cached_env, *cached_home, **dirs;
	path_env = path_env ? path_env : "";
	home = home ? home : "";
	if (dirs && strcmp(cached_env, path_env) == 0 && strcmp(cached_home, home) == 0)
		return dirs;
	path_list_free(dirs);
	free(cached_env);
	free(cached_home);
	cached_env = xstrdup(path_env);
	cached_home = xstrdup(home);
	size_t n;
	char **entries = path_list_split(path_env, &n);
	dirs = xcalloc(n + 1, sizeof(char *));
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		char *dir = path_entry(entries[i], *home ? home : NULL);
		if (dir)
			dirs[k++] = dir;
	}
	path_list_free(entries);
	return dirs;
}

static char *refusal(const char *what, const char *dir)
{
	struct strbuf sb = STRBUF_INIT;
	sb_addf(&sb,
	        "%s %s: sandboxed code could replace a program you run outside the sandbox "
	        "later",
	        what, dir);
	return sb_detach(&sb);
}

char *programs_write_refusal(const char *path, const char *path_env, const char *home)
{
	for (size_t i = 0; i < ARRAY_LEN(system_dirs); i++) {
		const char *dir = system_dirs[i];
		if (path_is_under(path, dir))
			return refusal("it is in the system directory", dir);
		if (path_is_under(dir, path))
			return refusal("it holds the system directory", dir);
	}
	for (char *const *dir = path_dirs(path_env, home); *dir; dir++)
		if (path_is_under(path, *dir))
			return refusal("it is in a directory on your PATH,", *dir);
	return NULL;
}

/* Does a write rule of p hold dir, strictly? */
static bool below_write_rule(const struct profile *p, const char *dir)
{
	for (size_t i = 0; i < p->nrules; i++) {
		const struct rule *r = &p->rules[i];
		if ((r->access & ACCESS_WRITE) && r->protect == PROTECT_NONE &&
		    r->origin == ORIGIN_GRANT && strcmp(r->path, dir) != 0 &&
		    path_is_under(dir, r->path))
			return true;
	}
	return false;
}

static bool has_write_grant(const struct profile *p)
{
	for (size_t i = 0; i < p->nrules; i++)
		if ((p->rules[i].access & ACCESS_WRITE) && p->rules[i].origin == ORIGIN_GRANT)
			return true;
	return false;
}

/* entry as the profile names paths: normalized, a leading $HOME as typed
 * (which may pass through a link) replaced by home, the canonical one. */
static char *as_profile_path(const char *entry, const char *home)
{
	const char *typed = getenv("HOME");
	size_t n = typed ? strlen(typed) : 0;
	if (home && n > 1 && strncmp(entry, typed, n) == 0 && (entry[n] == '/' || !entry[n])) {
		cleanup_free char *joined = xasprintf("%s%s", home, entry + n);
		return path_normalize(joined);
	}
	return path_normalize(entry);
}

void programs_protect(struct profile *p, const char *path_env, const char *home)
{
	/* The wrapper comes here on every start: an entry is looked up (a
	 * system call or more) only when its name already lies below a write
	 * grant. One that reaches a grant through a link of another name is
	 * not seen (docs/security.md). */
	if (!path_env || !has_write_grant(p))
		return;
	char **entries = path_list_split(path_env, NULL);
	for (size_t i = 0; entries[i]; i++) {
		if (entries[i][0] != '/')
			continue;
		cleanup_free char *named = as_profile_path(entries[i], home);
		if (!below_write_rule(p, named))
			continue;
		cleanup_free char *dir = path_entry(named, home);
		if (dir && below_write_rule(p, dir))
			profile_protect(p, dir, PROTECT_MAKE_DIR);
	}
	path_list_free(entries);
}
