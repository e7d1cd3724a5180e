/* moat's own places, judged against where sandboxed code can write. */
#include "context/own.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/envvars.h"
#include "base/fs.h"
#include "base/path.h"
#include "base/platform.h"
#include "base/xdg.h"
#include "context/context.h"
#include "context/pastroots.h"
#include "context/writable.h"
#include "shells/shells.h"

void own_add(struct own_places *o, enum own_kind kind, const char *what, const char *path)
{
	o->v = xrealloc_array(o->v, o->n + 1, sizeof(*o->v));
	o->v[o->n++] = (struct own_place){kind, xstrdup(what), xstrdup(path), NULL};
}

/* config.zon as a link into the user's dotfiles (stow, chezmoi): the file
 * it leads to is what moat reads, so it is judged too. */
static void add_config_target(struct own_places *o, const char *dir)
{
	cleanup_free char *file = path_join(dir, "config.zon");
	struct stat st;
	if (lstat(file, &st) < 0 || !S_ISLNK(st.st_mode))
		return;
	char target[PATH_MAX];
	ssize_t len = readlink(file, target, sizeof(target) - 1);
	if (len <= 0)
		return;
	target[len] = '\0';
	cleanup_free char *abs = target[0] == '/' ? xstrdup(target) : path_join(dir, target);
	own_add(o, OWN_CONFIG, "the file config.zon links to", abs);
}

void own_gather(struct own_places *o, const char *home, unsigned kinds)
{
	*o = (struct own_places){0};
	if (kinds & OWN_CONFIG) {
		cleanup_free char *dir = xdg_moat_dir(XDG_CONFIG, home);
		own_add(o, OWN_CONFIG, "moat's config directory", dir);
		add_config_target(o, dir);
	}
	if (kinds & OWN_STATE) {
		cleanup_free char *dir = xdg_moat_dir(XDG_STATE, home);
		own_add(o, OWN_STATE, "moat's state directory (approvals, pins)", dir);
	}
	if (kinds & OWN_DATA) {
		cleanup_free char *dir = xdg_moat_dir(XDG_DATA, home);
		own_add(o, OWN_DATA, "moat's data directory (local shells, moat-wrapper)", dir);
		const char *env = getenv(ENV_SHELLS_PATH);
		char **dirs = env && *env ? path_list_split(env, NULL) : NULL;
		for (char **d = dirs; d && *d; d++)
			if ((*d)[0] == '/') /* relative entries are never used */
				own_add(o, OWN_DATA, "a shells directory (MOAT_SHELLS_PATH)", *d);
		path_list_free(dirs);
	}
}

char *own_wrapper_beside_moat(void)
{
	static char *canon; /* found once: nix setup and the session both ask */
	if (!canon) {
		cleanup_free char *self = platform_self_exe();
		cleanup_free char *dir = self ? path_dirname(self) : NULL;
		cleanup_free char *wrapper = dir ? path_join(dir, "moat-wrapper") : NULL;
		canon = wrapper ? platform_canonical_path(wrapper) : NULL;
	}
	return canon ? xstrdup(canon) : NULL;
}

static const char *consequence(enum own_kind kind);

void own_gather_all(struct own_places *o, const char *home)
{
	own_gather(o, home, OWN_FILES);
	cleanup_free char *self = platform_self_exe();
	if (!self)
		return;
	own_add(o, OWN_BINARY, "moat", self);
	cleanup_free char *dir = path_dirname(self);
	cleanup_free char *wrapper = path_join(dir, "moat-wrapper");
	own_add(o, OWN_BINARY, "moat-wrapper", wrapper);
}

int own_refuse_write_grant(const char *shown, const char *path, const char *home, struct error *err)
{
	struct own_places o;
	own_gather_all(&o, home);
	own_canonicalize(&o);
	struct error ignored;
	cleanup_free char *canon = fs_canonical_prefix(path, &ignored);
	bool holds = false;
	const struct own_place *p = own_overlap(&o, canon ? canon : path, &holds);
	int rc = 0;
	if (p) {
		error_set(err, "refusing to grant write access to '%s': it %s %s '%s'", shown,
		          holds ? "holds" : "lies inside", p->what, p->path);
		error_hint(err, "%s", consequence(p->kind));
		error_hint(err, "grant the directory the tool writes, beside moat's own (e.g. "
		                "~/.config/<tool>), or grant it without --write");
		err->status = EXIT_MOAT_FAILED;
		rc = -1;
	}
	own_free(&o);
	return rc;
}

void own_free(struct own_places *o)
{
	for (size_t i = 0; i < o->n; i++) {
		free(o->v[i].what);
		free(o->v[i].path);
		free(o->v[i].canon);
	}
	free(o->v);
	*o = (struct own_places){0};
}

/* What sandboxed code could do with the place: the first hint. */
static const char *consequence(enum own_kind kind)
{
	switch (kind) {
	case OWN_CONFIG:
		return "sandboxed code could rewrite config.zon there and grant itself more at the "
		       "next run";
	case OWN_STATE:
		return "sandboxed code could approve itself there, or change which nix shells are "
		       "pinned";
	case OWN_DATA:
		return "sandboxed code could rewrite the shells there, or the moat-wrapper they "
		       "run";
	case OWN_BINARY:
	default: return "sandboxed code could replace it, and it runs unconfined";
	}
}

/* How out, when a write grant is not the reason. */
static const char *way_out(enum own_kind kind)
{
	switch (kind) {
	case OWN_CONFIG: return "keep config.zon where nothing sandboxed writes (XDG_CONFIG_HOME)";
	case OWN_STATE: return "keep moat's state where nothing sandboxed writes (XDG_STATE_HOME)";
	case OWN_DATA:
		return "keep shells where nothing sandboxed writes (XDG_DATA_HOME, " ENV_SHELLS_PATH
		       ")";
	case OWN_BINARY:
	default:
		return "install moat where nothing sandboxed writes (make install PREFIX=...), "
		       "and run that one";
	}
}

/* The config.zon rule whose write grant is area (canonical), for the hint. */
static void hint_grant_rule(const struct own_judge *j, const char *area, struct error *err)
{
	for (size_t i = 0; j->cfg && i < j->cfg->nallow; i++) {
		const struct config_allow *r = &j->cfg->allow[i];
		for (size_t k = 0; r->write && k < r->npaths; k++) {
			cleanup_free char *path = path_expand_tilde(r->paths[k], j->home);
			cleanup_free char *canon =
			    path[0] == '/' ? platform_canonical_path(path) : NULL;
			if (!canon || strcmp(canon, area) != 0)
				continue;
			error_hint(
			    err,
			    "that write grant is config.zon:%d:%d; drop it:  moat unallow %s %s",
			    r->line, r->col, r->bin[0] == '*' ? "'*'" : r->bin, r->paths[k]);
			return;
		}
	}
}

/* why: where the place lies ("under X", "inside the sandbox root X") or
 * what it holds ("it holds X"), as context_writable_place says it. */
static int refuse(struct own_place *p, const struct own_judge *j, const char *why, const char *area,
                  struct error *err)
{
	bool holds = strncmp(why, "it holds ", 9) == 0;
	error_set(err, "%s: %s '%s' %s%s, where sandboxed code can write",
	          j->refusing ? j->refusing : "refusing to run", p->what, p->path,
	          holds ? "holds " : "lies ", holds ? why + 9 : why);
	error_hint(err, "%s", consequence(p->kind));
	if (area && !(j->root && strcmp(area, j->root) == 0))
		hint_grant_rule(j, area, err);
	error_hint(err, "%s", way_out(p->kind));
	err->status = EXIT_MOAT_FAILED;
	return -1;
}

int own_judge_one(struct own_places *o, size_t i, const struct own_judge *j, struct error *err)
{
	struct own_place *p = &o->v[i];
	past_roots_load(j->home); /* for context_writable_place, below */
	free(p->canon);
	p->canon = NULL;
	if (context_resolve_unplanted_absent(p->path, j->areas, j->n, p->what, &p->canon, err) <
	    0) {
		error_hint(err, "%s", consequence(p->kind));
		return -1;
	}
	if (!p->canon) /* a loop of links: nothing moat could read there */
		return 0;
	for (size_t k = 0; k < j->n; k++) {
		bool root = j->root && strcmp(j->areas[k], j->root) == 0;
		cleanup_free char *why = NULL;
		if (path_is_under(p->canon, j->areas[k]))
			why = xasprintf("%s %s",
			                root ? "inside the sandbox root" : "under the write grant",
			                j->areas[k]);
		else if (path_is_under(j->areas[k], p->canon))
			why = xasprintf("it holds %s %s",
			                root ? "the sandbox root" : "the write grant", j->areas[k]);
		if (why)
			return refuse(p, j, why, j->areas[k], err);
	}
	cleanup_free char *why = NULL;
	if (context_writable_place(p->canon, j->below, j->root, j->areas, j->n, &why))
		return refuse(p, j, why, NULL, err);
	return 0;
}

int own_check(struct own_places *o, const struct own_judge *j, struct error *err)
{
	for (size_t i = 0; i < o->n; i++)
		if (own_judge_one(o, i, j, err) < 0)
			return -1;
	return 0;
}

void own_canonicalize(struct own_places *o)
{
	for (size_t i = 0; i < o->n; i++) {
		struct error ignored;
		free(o->v[i].canon);
		o->v[i].canon = fs_canonical_prefix(o->v[i].path, &ignored);
	}
}

const struct own_place *own_overlap(const struct own_places *o, const char *path, bool *holds)
{
	for (size_t i = 0; i < o->n; i++) {
		const char *canon = o->v[i].canon ? o->v[i].canon : o->v[i].path;
		if (path_is_under(canon, path) || path_is_under(path, canon)) {
			*holds = path_is_under(canon, path);
			return &o->v[i];
		}
	}
	return NULL;
}
