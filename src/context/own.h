/* moat's own files and binaries: config.zon, the approvals store and pins,
 * the shells, moat and moat-wrapper. They decide how the next tool is
 * confined, or run unconfined themselves, so none of them may lie where
 * sandboxed code can write (the root, a write grant, a past root): code
 * that ran once in the sandbox would otherwise widen its own grants,
 * approve itself, rewrite a shell or replace moat for every later run.
 * One judge for all of them, used by sessions, moat-wrapper, moat check,
 * moat allow --write and the --trace report. */
#ifndef MOAT_CONTEXT_OWN_H
#define MOAT_CONTEXT_OWN_H

#include <stdbool.h>
#include <stddef.h>

#include "base/util.h"
#include "config/config.h"

/* The canonical path of the moat-wrapper installed beside the running
 * moat (what a session's wrapped tools and nix's packages link to), or
 * NULL. Caller frees. */
char *own_wrapper_beside_moat(void);

enum own_kind {
	OWN_CONFIG = 1 << 0, /* $XDG_CONFIG_HOME/moat (config.zon), and where config.zon leads */
	OWN_STATE = 1 << 1,  /* $XDG_STATE_HOME/moat: approvals, pins, nix shells */
	OWN_DATA = 1 << 2,   /* $XDG_DATA_HOME/moat and each MOAT_SHELLS_PATH entry */
	OWN_BINARY = 1 << 3, /* moat, moat-wrapper (added by the caller) */
	OWN_FILES = OWN_CONFIG | OWN_STATE | OWN_DATA,
};

struct own_place {
	enum own_kind kind;
	char *what;  /* "moat's config directory", "moat-wrapper" */
	char *path;  /* as moat names it */
	char *canon; /* canonical form (what exists resolved, the rest appended) */
};

struct own_places {
	struct own_place *v;
	size_t n;
};

/* Where sandboxed code can write, and how to name a write grant's rule. */
struct own_judge {
	const char *root;         /* the sandbox root, or NULL */
	const char *const *areas; /* context_writable_areas: the root and write grants */
	size_t n;
	const struct config *cfg; /* for the rule behind a write grant; may be NULL */
	const char *home;         /* the real HOME */
	bool below;               /* also search each place for past roots (moat check) */
	const char *refusing;     /* what is refused, "refusing to run" when NULL */
};

/* The places of kinds (OWN_CONFIG | ...) for a user whose real home is
 * home. The config kind costs one lstat (is config.zon a link?); the rest
 * is string work. */
void own_gather(struct own_places *o, const char *home, unsigned kinds);
void own_add(struct own_places *o, enum own_kind kind, const char *what, const char *path);
void own_free(struct own_places *o);

/* Every place of moat's own: OWN_FILES, and moat with the moat-wrapper
 * next to it (the running executable's directory). */
void own_gather_all(struct own_places *o, const char *home);

/* Refuse a write grant of path (absolute, normalized) that holds or lies
 * inside one of moat's own places (own_gather_all): -1 with err saying
 * which, for moat allow --write. */
int own_refuse_write_grant(const char *shown, const char *path, const char *home,
                           struct error *err);

/* Judge place i: 0 when sandboxed code cannot write it, else -1 with err
 * (status EXIT_MOAT_FAILED) saying which place, where it lies (under or
 * holding the root, a write grant with its rule in config.zon, a past
 * root, or reached through a link planted in one), and the way out. Sets
 * the place's canon. */
int own_judge_one(struct own_places *o, size_t i, const struct own_judge *j, struct error *err);

/* Judge every place; -1 with err for the first refused. */
int own_check(struct own_places *o, const struct own_judge *j, struct error *err);

/* Fill each place's canon without judging (for own_overlap). */
void own_canonicalize(struct own_places *o);

/* The first place path (canonical) holds or lies inside, or NULL; *holds
 * says which. */
const struct own_place *own_overlap(const struct own_places *o, const char *path, bool *holds);

#endif
