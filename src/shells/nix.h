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

/* What a local flake in a place sandboxed code can write would have nix
 * evaluate: shown to the user, who agrees to exactly this content. */
struct nix_consent {
	const char *shell; /* what the user asked for: "rust", "./f#x" */
	const char *flake; /* the flake reference */
	const char *dir;   /* the directory holding flake.nix */
	const char *root;  /* what nix copied: dir, or the git work tree around it */
	const char *why;   /* where sandboxed code can write: "under the sandbox root /p" */
	const char *hash;  /* nix's hash of the copy (SRI), as nix flake prefetch gives it */
	const char *store; /* the copy, in the store */
};

/* How the nix code talks to the user and learns what it may trust, set by
 * cli/ (modules do not print). Unset callbacks are silent or say no. */
struct nix_feedback {
	const char
	    *home;    /* the real HOME: pins and wrapped packages live below it (XDG_STATE_HOME) */
	bool verbose; /* show nix's own output (nix -L) */
	bool dry_run; /* evaluate, never build (moat check) */
	bool tty;     /* stderr is a terminal: a build over a second gets an indicator */
	void (*progress)(const char *msg);           /* "building rust..." */
	void (*warning)(const char *msg);            /* a damaged pin skipped, ... */
	void (*info)(const char *msg);               /* -v: how things resolved */
	void (*output)(const char *buf, size_t len); /* nix's stderr, when verbose */
	/* Draw line in place of the last one (NULL: erase it), on the terminal. */
	void (*status)(const char *line);
	/* Could sandboxed code write path (canonical), or with below, anything
	 * under it? *why (caller frees) says where. */
	bool (*writable)(const char *path, bool below, char **why);
	/* Agree to nix evaluating a local flake from a writable place: 0 to go
	 * ahead (remembered or asked), -1 with err not to. */
	int (*consent)(const struct nix_consent *c, struct error *err);
	/* moat-wrapper, to wrap a plain package's bin/ (NULL: not possible). */
	const char *wrapper;
};
void nix_set_feedback(const struct nix_feedback *fb);

/* Why nix_shell_find did not find a bare name, for the one message
 * shell_find words about it. */
enum nix_unknown {
	NIX_FOUND_OR_FAILED, /* found, or failed otherwise (err says how) */
	NIX_NO_FLAKE,        /* no flake is configured for the name: nix not run */
	NIX_NO_ATTR,         /* the flake has no such attribute */
	NIX_NO_NIX,          /* nix is not installed */
};

/* Resolve a shell through its pin, else by building it with nix and pinning
 * the result. *dir gets the shell's directory: the store path, or for a
 * plain package (bin/ without a manifest) a shell moat made around it. For
 * a bare name, *unknown says why it was not found (may be NULL). */
int nix_shell_find(const char *name, char **dir, enum nix_unknown *unknown, struct error *err);

/* The flake a bare shell name is looked up in ($MOAT_FLAKE, else the
 * installed one). Caller frees; NULL with err when there is none. */
char *nix_default_flake(struct error *err);

/* The shells the flake installed with moat defines (read from its
 * nix/shells.nix, no evaluation), NULL-terminated; NULL when there is no
 * installed flake. Free with nix_free_names. */
char **nix_installed_shells(void);
void nix_free_names(char **names);

/* Lock FLAKE with nix (nix flake metadata): does it resolve at all? *locked
 * gets its locked URL. For moat check. */
int nix_check_flake(const char *flake, char **locked, struct error *err);

/* "x86_64-linux" and friends, from uname(2): nix's name for this machine. */
const char *nix_system(void);

/* The nix binary moat runs, chosen once per process: $MOAT_NIX (an absolute
 * path), else the first "nix" on PATH whose directory is absolute and not
 * where sandboxed code can write (nor the binary it links to). */
struct nix_location {
	const char *path;    /* NULL when none */
	const char *how;     /* "MOAT_NIX", "PATH" */
	const char *skipped; /* "DIR/nix (why)" lines, or "" */
};
int nix_locate(struct nix_location *loc, struct error *err);

/* --- moat update and moat pins --------------------------------------- */

struct nix_pin_change {
	char *old_rev; /* NULL: the shell was not pinned */
	char *new_rev; /* short forms, for display */
	char *old_store, *new_store;
	const char *unpinnable; /* why the reference has no revision, or NULL */
	char *flake;
	char *stale; /* set (and nothing done) when the pin's flake is no longer
	              * the one the name resolves in: the current flake */
};
void nix_pin_change_free(struct nix_pin_change *c);

/* Move NAME's pin to its flake's current revision (refetching it). A name
 * that is not pinned is an error. A bare name pinned from another flake
 * than MOAT_FLAKE now names is stale: with follow, it is resolved in the
 * current flake; without, it is left alone and chg->stale says why. */
int nix_update(const char *name, bool follow, struct nix_pin_change *chg, struct error *err);

/* The names of every pin, in file order. Caller frees the array and names. */
int nix_pinned_names(char ***names, size_t *n, struct error *err);

/* Each pin with what moat knows of it without nix. */
struct nix_pin_info {
	char *name, *flake, *attr, *rev, *store;
	char *stale;    /* the flake the name resolves in now, when not the pinned one */
	bool collected; /* the store path is gone */
	bool changed;   /* a local flake changed since it was pinned */
	bool package;   /* a plain package, wrapped by moat */
};
int nix_pins_info(struct nix_pin_info **v, size_t *n, struct error *err);
void nix_pins_info_free(struct nix_pin_info *v, size_t n);

/* Drop the pin of each name (all pins when names is NULL) and its
 * garbage-collection root. *dropped counts them; a name not pinned is an
 * error after the others are dropped. */
int nix_unpin(const char *const *names, size_t n, size_t *dropped, struct error *err);

/* --- the lock file (pins.c) --------------------------------------------- */

struct pin {
	char *name;   /* as the user wrote it: "rust" or "FLAKE#ATTR" */
	char *flake;  /* the flake reference it was resolved in */
	char *attr;   /* the attribute asked of that flake */
	char *locked; /* the locked flake URL to rebuild from; "-" when unpinnable */
	char *rev;    /* git revision, else the narHash */
	char *store;  /* the shell's store path (a package's, for a plain package) */
	char *source; /* a local flake's fingerprint when pinned (source.h), else "-" */
};

struct pins {
	struct pin *v;
	size_t n;
	char **warnings; /* one per damaged line that was skipped */
	size_t nwarnings;
};

/* $XDG_STATE_HOME/moat (absolute only), else ~/.local/state/moat. Caller frees. */
char *moat_state_dir(const char *home);

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
/* Remove the pin named name; false when there is none. */
bool pins_drop(struct pins *p, const char *name);
void pins_free(struct pins *p);

#endif
