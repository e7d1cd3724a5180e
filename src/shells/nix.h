/* Shells from nix flakes, pinned.
 *
 * A shell name that no local shell answers is looked up in a flake: the one
 * in "FLAKE#ATTR", else $MOAT_FLAKE, else the flake installed next to moat
 * (<bindir>/../share/moat/flake.nix, or the source tree's flake.nix when moat
 * runs from its build directory). nix resolves ATTR as packages.<system>.ATTR,
 * then legacyPackages.<system>.ATTR.
 *
 * The first resolution records a pin (name, flake, locked revision, store
 * path) in $XDG_STATE_HOME/moat/pins; while the pinned store path exists, a
 * later run uses it without starting nix at all. The nix CLI is the interface
 * (Debian's nix 2.8 has no C API), with only flags that 2.8 and current nix
 * both accept. The build's out-link under $XDG_STATE_HOME/moat/gcroots keeps
 * the shell from garbage collection.
 *
 * nix.c is the resolution; pins.c the lock file; json.c reads nix's --json
 * output; proc.c runs nix. */
#ifndef MOAT_SHELLS_NIX_H
#define MOAT_SHELLS_NIX_H

#include <stdbool.h>
#include <stddef.h>

#include "base/util.h"

/* How the nix code talks to the user, set by cli/ (modules do not print).
 * Unset callbacks are silent. */
struct nix_feedback {
	bool verbose;                                /* show nix's own output (nix -L) */
	bool dry_run;                                /* evaluate, never build (moat check) */
	void (*progress)(const char *msg);           /* "building rust..." */
	void (*warning)(const char *msg);            /* a damaged pin skipped, ... */
	void (*output)(const char *buf, size_t len); /* nix's stderr, when verbose */
};
void nix_set_feedback(const struct nix_feedback *fb);

/* Resolve a shell through its pin, else by building it with nix and pinning
 * the result. *dir gets the store path of the shell. */
int nix_shell_find(const char *name, char **dir, struct error *err);

/* The flake a bare shell name is looked up in ($MOAT_FLAKE, else the
 * installed one). Caller frees; NULL with err when there is none. */
char *nix_default_flake(struct error *err);

/* Lock FLAKE with nix (nix flake metadata): does it resolve at all? *locked
 * gets its locked URL. For moat check. */
int nix_check_flake(const char *flake, char **locked, struct error *err);

/* "x86_64-linux" and friends, from uname(2): nix's name for this machine. */
const char *nix_system(void);

/* --- moat update ------------------------------------------------------- */

struct nix_pin_change {
	char *old_rev; /* NULL: the shell was not pinned */
	char *new_rev; /* short forms, for display */
	char *old_store, *new_store;
	const char *unpinnable; /* why the reference has no revision, or NULL */
	char *flake;
};
void nix_pin_change_free(struct nix_pin_change *c);

/* Move NAME's pin to its flake's current revision (refetching it). A name
 * that is not pinned is an error. */
int nix_update(const char *name, struct nix_pin_change *chg, struct error *err);

/* The names of every pin, in file order. Caller frees the array and names. */
int nix_pinned_names(char ***names, size_t *n, struct error *err);

/* --- the lock file (pins.c) --------------------------------------------- */

struct pin {
	char *name;   /* as the user wrote it: "rust" or "FLAKE#ATTR" */
	char *flake;  /* the flake reference it was resolved in */
	char *attr;   /* the attribute asked of that flake */
	char *locked; /* the locked flake URL to rebuild from; "-" when unpinnable */
	char *rev;    /* git revision, else the narHash */
	char *store;  /* the shell's store path */
};

struct pins {
	struct pin *v;
	size_t n;
	char **warnings; /* one per damaged line that was skipped */
	size_t nwarnings;
};

/* $XDG_STATE_HOME/moat (absolute only), else ~/.local/state/moat. Caller frees. */
char *moat_state_dir(void);

/* Parse the lock file text. Damaged lines are skipped, each with a warning;
 * parsing itself never fails. */
void pins_parse(const char *buf, size_t len, const char *file, struct pins *p);
/* Load the lock file; a missing file is an empty set of pins. */
int pins_load(const char *path, struct pins *p, struct error *err);
char *pins_format(const struct pins *p);
/* Write the lock file atomically (temp file, fsync, rename). */
int pins_save(const char *path, const struct pins *p, struct error *err);
struct pin *pins_lookup(const struct pins *p, const char *name);
/* Add or replace (by name) a copy of pin. Refuses fields that would break
 * the format (tabs, newlines, control characters, empty). */
int pins_set(struct pins *p, const struct pin *pin, struct error *err);
void pins_free(struct pins *p);

#endif
