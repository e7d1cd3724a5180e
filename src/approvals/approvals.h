/* Confirm before widening access, and remember the answer.
 *
 * An access set is what a confirm prompt shows beyond the fixed defaults:
 * the HOME the tool will see, every grant with its level, every jailbreak.
 * An approval remembers one set for one (project root, binary), in a store
 * that keeps the set itself, readable, not a hash of it. A set that is the
 * same or narrower than an approved one needs no new answer; any widening
 * (a new grant, a wider level, a new jailbreak, another HOME) asks again. */
#ifndef MOAT_APPROVALS_APPROVALS_H
#define MOAT_APPROVALS_APPROVALS_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "base/strbuf.h"
#include "base/util.h"
#include "profile/profile.h"

enum access_item_kind { ITEM_HOME, ITEM_GRANT, ITEM_JAILBREAK };

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

/* The prompt's summary, exactly as shown (golden-tested). */
void confirm_summary(struct strbuf *out, const char *bin, const struct profile *p,
                     const struct access_set *set);

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

/* The whole decision for one start of bin: approved already, asked on the
 * terminal (and remembered unless this is an MOAT_CONFIRM=always review),
 * or refused. Returns 0 to go ahead, -1 with err (status 125) not to. */
int confirm_start(const char *home, const char *bin, const struct profile *p, const char *home_seen,
                  struct strbuf *warn, struct error *err);

#endif
