/* What the session and tool plans share (launch/ internal). */
#ifndef MOAT_LAUNCH_PLAN_H
#define MOAT_LAUNCH_PLAN_H

#include "launch/launch.h"

/* config.zon for l->ctx's home, refused when sandboxed code could write it. */
int plan_load_config(struct launch *l, struct error *err);

/* The grants in force for bin (NULL: all, as a session unions them), the
 * sockets, the kernel's support, and the profile from l->ctx. */
int plan_build_profile(struct launch *l, const char *bin, struct error *err);

#endif
