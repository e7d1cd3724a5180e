/* Lock files seen where moat has no inotify (macOS, which has no
 * protected paths yet either): nothing is watched, nothing reported. */
#include "launch/lockwatch.h"

void lockwatch_start(struct lockwatch *w, const struct profile *p)
{
	(void)p;
	*w = (struct lockwatch){.fd = -1};
}

void lockwatch_end(struct lockwatch *w, const struct profile *p, struct name_list *written)
{
	(void)w, (void)p, (void)written;
}
