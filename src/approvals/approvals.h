/* Confirm before widening access, and remember the answer.
 *
 * An access set is what a confirm prompt shows beyond the fixed defaults:
 * the HOME the tool will see, every grant with its level, every unix socket
 * let through on purpose (config.zon's .sockets), every jailbreak. An
 * approval remembers one set for one (project root, binary), in a store
 * that keeps the set itself, readable, not a hash of it. A set that is the
 * same or narrower than an approved one needs no new answer; any widening
 * (a new grant, a wider level, a new socket, a new jailbreak, another HOME,
 * a secret variable it was not handed before) asks again. */
#ifndef MOAT_APPROVALS_APPROVALS_H
#define MOAT_APPROVALS_APPROVALS_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "base/strbuf.h"
#include "base/util.h"
#include "profile/profile.h"

struct sandbox_support;

/* ITEM_SECRET: a secret variable handed to the tool (profile's
 * secrets_passed); its "path" is the variable's name, never its value. */
/* ITEM_NET's path is not a path but one network item: "off", "open",
 * "connect:PORT" or "listen:PORT". An approval without any (stored before
 * the network policy existed) was given with the network open. */
enum access_item_kind { ITEM_HOME, ITEM_GRANT, ITEM_JAILBREAK, ITEM_SOCKET, ITEM_SECRET, ITEM_NET };

struct access_item {
	enum access_item_kind kind;
	unsigned access; /* grants: enum access bits */
	char *path;
};

struct access_set {
	struct access_item *items;
	size_t n;
};

/* The set a profile grants, with home_seen the HOME the tool will see. */
void access_set_from_profile(struct access_set *set, const struct profile *p,
                             const char *home_seen);
void access_set_free(struct access_set *set);
/* Does approved cover wanted (same or narrower)? */
bool access_set_covers(const struct access_set *approved, const struct access_set *wanted);

/* What the summary says beyond the profile. */
struct confirm_notes {
	/* Shown by moat run or moat shell: everything in the session runs
	 * confined, a jailbreak included (Landlock cannot be lifted). Otherwise
	 * by moat-wrapper, for which a jailbreak means no sandbox at all. */
	bool session;
	/* Nonzero when sockets are listed and this kernel's Landlock (this ABI)
	 * cannot confine them by path: then every unix socket is reachable. */
	int sockets_unconfined_abi;
};

/* The prompt's summary, exactly as shown (golden-tested). Names are shown
 * through visible_add(), so a project or path named with control
 * characters cannot hide or rewrite the lines above the question. */
void confirm_summary(struct strbuf *out, const char *bin, const struct profile *p,
                     const struct access_set *set, const struct confirm_notes *notes);

/* One remembered answer. */
struct approval {
	char *root;
	char *bin;
	time_t when;
	struct access_set set;
};

/* The store's lines: parsed approvals plus every line that did not parse,
 * kept verbatim so a rewrite never drops what it did not understand. */
struct approval_store {
	struct approval *approvals;
	size_t n;
	char **foreign; /* damaged or foreign lines, without newline */
	size_t nforeign;
};

/* Pure: parse and format the store file. Damaged lines are kept in foreign
 * and counted in *damaged. */
void approvals_parse(const char *buf, size_t len, struct approval_store *st, size_t *damaged);
char *approvals_format(const struct approval_store *st);
void approvals_free(struct approval_store *st);

/* Does the store hold an approval for (root, bin) covering set? */
bool approvals_covers(const struct approval_store *st, const char *root, const char *bin,
                      const struct access_set *set);
/* Remember set for (root, bin), replacing an older answer for the pair. */
void approvals_add(struct approval_store *st, const char *root, const char *bin, time_t when,
                   const struct access_set *set);
/* Forget approvals for root (NULL: all). Returns how many were dropped. */
size_t approvals_forget(struct approval_store *st, const char *root);

/* Flake approvals: the content of a local flake where sandboxed code can
 * write that the user agreed nix may evaluate. Stored as an approval line
 * whose root is the flake's source directory and whose binary field is
 * "flake:" and nix's hash of the content (SRI, with '/' written '_' so the
 * field stays a name), with no access items: a moat from before these reads
 * it as an approval for no binary it will ever start, and keeps it. One per
 * directory: a new answer replaces the last. */
#define APPROVAL_FLAKE_PREFIX "flake:"
bool approvals_flake_approved(const struct approval_store *st, const char *dir, const char *hash);
void approvals_add_flake(struct approval_store *st, const char *dir, const char *hash, time_t when);
/* The SRI hash of a flake approval, or NULL for another kind. Caller frees. */
char *approvals_flake_hash(const struct approval *a);

/* $XDG_STATE_HOME/moat/approvals, default ~/.local/state/moat/approvals. */
char *approvals_path(const char *home);

/* Load the store (missing: empty). Warnings (damaged lines) go to warn. */
int approvals_load(const char *home, struct approval_store *st, struct strbuf *warn,
                   struct error *err);

/* Change the store under an exclusive lock: load, fn, write atomically (mode
 * 0600) when fn returns 1. Concurrent writers lose nothing. */
typedef int approvals_update_fn(struct approval_store *st, void *arg);
int approvals_update(const char *home, approvals_update_fn *fn, void *arg, struct error *err);

enum confirm_mode { CONFIRM_ASK, CONFIRM_NEVER, CONFIRM_ALWAYS };

/* MOAT_CONFIRM: unset -> ask, "never", "always"; anything else is an error. */
int confirm_mode_from_env(enum confirm_mode *mode, struct error *err);

/* Must every binary ask, listed in .confirm or not? MOAT_CONFIRM=always
 * (a review), or a value that is not understood, so that its error is
 * shown rather than a mistyped review silently skipped. */
bool confirm_forced(void);

/* Show summary on the terminal (/dev/tty, never stdin) and ask
 * "continue? [y/N]". 1 yes, 0 no (or end of input), -1 no terminal. */
int confirm_ask(const char *summary);

/* The whole decision for one start of bin: approved already, asked on the
 * terminal (and remembered unless this is an MOAT_CONFIRM=always review),
 * or refused. s is what the plan learned of the kernel (the prompt says
 * when listed sockets open every one). Returns 0 to go ahead, -1 with err
 * (status 125) not to. */
int confirm_start(const char *home, const char *bin, const struct profile *p,
                  const struct sandbox_support *s, const char *home_seen, struct strbuf *warn,
                  struct error *err);
/* The same for moat run and moat shell, whose prompt says that a jailbreak
 * does not apply inside the session. */
int confirm_start_session(const char *home, const char *bin, const struct profile *p,
                          const struct sandbox_support *s, const char *home_seen,
                          struct strbuf *warn, struct error *err);

#endif
