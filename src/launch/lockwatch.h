/* Which protected files a session's commands tried to change, told by
 * their lock files. git changes .git/config by writing config.lock beside
 * it and renaming that over it; on the read-only bind (a mount point) the
 * rename fails with EBUSY, "Device or resource busy", which says nothing
 * of moat, and husky then goes on with its hooks unconfigured. A lock
 * written beside a protected file and never renamed over it is a change
 * of it that could not be made, so moat watches the directories of the
 * protected paths (inotify, from outside the sandbox) and names the file
 * once the session ends. Best effort: with no inotify (macOS, the user's
 * instances used up) or a queue that overflowed, nothing is said; a stale
 * lock that makes git fail at once is not seen either, and git says so
 * itself. */
#ifndef MOAT_LAUNCH_LOCKWATCH_H
#define MOAT_LAUNCH_LOCKWATCH_H

#include <stddef.h>

#include "profile/profile.h"

struct lockwatch {
	int fd;      /* the inotify instance, -1 for none */
	int *wds;    /* watch descriptors, one a directory */
	char **dirs; /* the directories of protected paths, canonical */
	size_t n;
};

void lockwatch_start(struct lockwatch *w, const struct profile *p);

/* Add to written each protected path of p whose lock file was written
 * and not renamed since lockwatch_start, once each. Frees w. */
void lockwatch_end(struct lockwatch *w, const struct profile *p, struct name_list *written);

#endif
