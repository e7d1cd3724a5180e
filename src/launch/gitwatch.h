/* What no mount can protect in a git directory the sandbox can write: a
 * new `commondir` file, which sends git to another directory for its
 * config and hooks. git dies on an empty one, so it cannot be made in
 * advance, and the git directory must stay writable for git to work. A
 * session therefore notes which pinned git directories have none before
 * the tool starts, and after the session (when the tool and everything it
 * left behind are gone) moves a new one aside, before the user's next
 * git can read it. */
#ifndef MOAT_LAUNCH_GITWATCH_H
#define MOAT_LAUNCH_GITWATCH_H

#include <stddef.h>

#include "base/strbuf.h"
#include "profile/profile.h"

struct gitwatch {
	char **dirs; /* pinned git directories with no commondir at start */
	size_t n;
};

void gitwatch_start(struct gitwatch *w, const struct profile *p);

/* Move each new commondir to commondir.moat-planted, one warning line
 * each in warnings. Frees w. */
void gitwatch_end(struct gitwatch *w, struct strbuf *warnings);

#endif
