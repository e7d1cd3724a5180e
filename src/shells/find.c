/* Finding local shells on disk. */
#include <dirent.h>
#include <errno.h>
#include <string.h>

#include "base/envvars.h"
#include "base/fs.h"
#include "base/path.h"
#include "base/platform.h"
#include "base/strbuf.h"
#include "base/xdg.h"
#include "shells/nix.h"
#include "shells/shells.h"

static int check_shell_dir(const char *dir, struct error *err)
{
	if (!fs_is_dir(dir))
		return error_set(err, "shell '%s' is not a directory", dir);
	cleanup_free char *bin = path_join(dir, "bin");
	if (!fs_is_dir(bin))
		return error_set(err, "shell '%s' has no bin/ directory", dir);
	return 0;
}

static bool has_relative_entry(const char *list);

/* Optimal string alignment distance (edits, with swaps of neighbours),
 * capped: anything beyond 3 is "far". */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > 64 || lb > 64)
		return 4;
	size_t d[65][65];
	for (size_t i = 0; i <= la; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= la; i++) {
		for (size_t j = 1; j <= lb; j++) {
			size_t cost = a[i - 1] != b[j - 1];
			size_t best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (d[i - 1][j - 1] + cost < best)
				best = d[i - 1][j - 1] + cost;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	}
	return d[la][lb];
}

/* "did you mean cc-tools?": the closest of the local shells and the
 * installed flake's, when close enough (at most 2 edits, fewer for short
 * names); "" when none is. */
static void add_suggestions(struct strbuf *out, const char *name, char **a, char **b)
{
	size_t limit = strlen(name) <= 3 ? 1 : 2, best = limit + 1;
	char **lists[2] = {a, b};
	for (int pass = 0; pass < 2; pass++) {
		size_t shown = 0;
		for (int l = 0; l < 2; l++) {
			for (size_t i = 0; lists[l] && lists[l][i]; i++) {
				size_t dist = edit_distance(name, lists[l][i]);
				if (pass == 0 && dist < best)
					best = dist;
				if (pass == 1 && dist == best &&
				    !strstr(out->buf ? out->buf : "", lists[l][i])) {
					sb_addf(out, "%s%s", shown++ ? ", " : "", lists[l][i]);
				}
			}
		}
		if (best > limit)
			return;
	}
}

/* The one message for a bare name that no local shell and no flake has. */
static void unknown_shell(const char *name, const char *home, enum nix_unknown why,
                          struct error *err)
{
	cleanup_free char *search = shells_search_path(home);
	struct error nix = *err;
	char **local = shells_local_names(home);
	char **installed = why == NIX_NO_FLAKE ? nix_installed_shells() : NULL;
	if (why == NIX_NO_FLAKE) {
		struct strbuf has = STRBUF_INIT;
		for (size_t i = 0; installed && installed[i]; i++)
			sb_addf(&has, "%s%s", i ? ", " : "", installed[i]);
		if (installed && has.len)
			error_set(
			    err,
			    "unknown shell '%s': it is not a local shell, and no flake is "
			    "configured for it (MOAT_FLAKE is not set; the flake installed with "
			    "moat has %s)",
			    name, has.buf);
		else
			error_set(
			    err,
			    "unknown shell '%s': it is not a local shell, and there is no flake "
			    "to look it up in (MOAT_FLAKE is not set)",
			    name);
		sb_release(&has);
	} else if (why == NIX_NO_NIX) {
		cleanup_free char *flake = nix_default_flake(&nix);
		error_set(err,
		          "unknown shell '%s': it is not a local shell, and nix is not installed "
		          "to build it from flake '%s'",
		          name, flake ? flake : "");
	} else {
		cleanup_free char *flake = nix_default_flake(&nix);
		error_set(err,
		          "unknown shell '%s': it is not a local shell, and flake '%s' has no "
		          "attribute '%s'",
		          name, flake ? flake : "", name);
	}
	struct strbuf near = STRBUF_INIT;
	add_suggestions(&near, name, local, installed);
	if (near.len)
		error_hint(err, "did you mean %s?", near.buf);
	sb_release(&near);
	error_hint(err, "looked for a local shell in %s (MOAT_SHELLS_PATH%s)", search,
	           has_relative_entry(search) ? "; relative entries are skipped" : "");
	if (why == NIX_NO_ATTR)
		error_hint(err, "nix looked for packages.%s.%s and legacyPackages.%s.%s",
		           nix_system(), name, nix_system(), name);
	error_hint(err, "make a local shell with: moat wrap %s /path/to/tool...", name);
	if (why == NIX_NO_NIX)
		error_hint(err, "or install nix (on Debian: apt-get install nix-bin)");
	else
		error_hint(err, "or set MOAT_FLAKE to a flake that defines it");
	nix_free_names(local);
	nix_free_names(installed);
}

static bool has_relative_entry(const char *list)
{
	char **dirs = path_list_split(list, NULL);
	bool relative = false;
	for (char **d = dirs; *d && !relative; d++)
		relative = **d && **d != '/';
	path_list_free(dirs);
	return relative;
}

static int resolve_canonical(const char *path, char **canon, void *arg, struct error *err)
{
	(void)arg, (void)err;
	*canon = platform_canonical_path(path);
	return 0;
}

int shell_find(const char *name, const char *home, shell_resolve_fn *resolve, void *arg, char **dir,
               struct error *err)
{
	/* FLAKE#ATTR names its flake; the flake may well contain a slash. */
	if (strchr(name, '#'))
		return nix_shell_find(name, dir, NULL, err);
	if (!resolve)
		resolve = resolve_canonical;
	if (strchr(name, '/')) {
		cleanup_free char *abs = fs_absolute(name, err);
		cleanup_free char *canon = NULL;
		if (!abs || resolve(abs, &canon, arg, err) < 0)
			return -1;
		if (!canon)
			return error_errno(err, "cannot use shell '%s'", name);
		if (check_shell_dir(canon, err) < 0)
			return -1;
		*dir = steal_ptr(&canon);
		return 0;
	}
	const char *why = tool_name_refusal(name);
	if (why)
		return error_set(err, "bad shell name '%s': %s", name, why);
	cleanup_free char *search = shells_search_path(home);
	char **dirs = path_list_split(search, NULL);
	int rc = 1; /* not found yet */
	for (char **d = dirs; *d && rc > 0; d++) {
		if ((*d)[0] != '/') /* relative to wherever moat happens to run: never */
			continue;
		cleanup_free char *cand = path_join(*d, name);
		cleanup_free char *canon = NULL;
		if (resolve(cand, &canon, arg, err) < 0 ||
		    (canon && check_shell_dir(canon, err) < 0)) {
			rc = -1;
		} else if (canon) {
			*dir = steal_ptr(&canon);
			rc = 0;
		}
	}
	path_list_free(dirs);
	if (rc <= 0)
		return rc;
	/* Not a local shell: ask the flake. If that fails too, say both. */
	enum nix_unknown unknown;
	if (nix_shell_find(name, dir, &unknown, err) == 0)
		return 0;
	if (unknown != NIX_FOUND_OR_FAILED)
		unknown_shell(name, home, unknown, err);
	return -1;
}
