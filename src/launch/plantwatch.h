/* What no mount can protect in a git directory the sandbox can write,
 * checked when a session ends (when the tool and everything it left behind
 * are gone), before the user's next git can read it:
 *   - a new `commondir` file, which sends git to another directory for its
 *     config and hooks. git dies on an empty one, so it cannot be made in
 *     advance, and the git directory must stay writable for git to work.
 *     It is moved aside.
 *   - a `hooks` that was a symlink (.git/hooks -> ../githooks): the target
 *     is protected, but the link itself lies in the writable git directory
 *     and can be replaced. What replaced it is moved aside and the link is
 *     put back.
 *   - a repository the session made in a root that had none: nothing in it
 *     was protected (there was nothing to protect at the start). Its hooks
 *     are moved aside, and a warning names its config.
 *   - a .protect path absent at the start (profile->absent_protected) and
 *     there now: moved aside. */
#ifndef MOAT_LAUNCH_PLANTWATCH_H
#define MOAT_LAUNCH_PLANTWATCH_H

#include <stddef.h>

#include "base/strbuf.h"
#include "profile/profile.h"

struct plantwatch_link {
	char *dir;    /* a pinned git directory */
	char *target; /* the text of its hooks symlink */
};

struct plantwatch {
	char **dirs; /* pinned git directories with no commondir at start */
	size_t n;
	struct plantwatch_link *links; /* pinned git directories whose hooks is a symlink */
	size_t nlinks;
	char *repoless_root;           /* the root, when it had no .git at start */
	const struct profile *profile; /* for its absent_protected */
};

void plantwatch_start(struct plantwatch *w, const struct profile *p);

/* What needs no snapshot to be seen as planted, checked as any tool starts
 * (wrapped, jailbroken or a session): a commondir in a pinned git
 * directory that is no linked work tree's (not <common>/worktrees/<name>),
 * where git never makes one. Moved aside, else removed, one warning line
 * each; false when one is still there (a jailbroken tool must not start).
 * This is all a wrapped tool's plant meets before a jailbroken git would
 * read it; the user's own git outside moat may come first. */
bool plantwatch_sweep(const struct profile *p, struct strbuf *warnings);

/* Undo what the session planted, one warning line each in warnings.
 * Frees w. */
void plantwatch_end(struct plantwatch *w, struct strbuf *warnings);

#endif
