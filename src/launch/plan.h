/* What the session and tool plans share (launch/ internal). */
#ifndef MOAT_LAUNCH_PLAN_H
#define MOAT_LAUNCH_PLAN_H

#include "launch/launch.h"

/* config.zon for l->ctx's home, and the writable areas it makes
 * (l->ctx.areas). A file that does not parse is an error, which says so
 * when it lies where sandboxed code can write. */
int plan_load_config(struct launch *l, struct error *err);

/* moat's own places of kinds (context/own.h) and the binaries given (NULL
 * entries skipped), judged against l->ctx.areas and past roots: -1 with
 * err (status 125) for the first that sandboxed code could write. */
int plan_check_own(struct launch *l, unsigned kinds, const char *const *binaries, size_t nbinaries,
                   struct error *err);

/* The grants in force for bin (NULL: all, as a session unions them), the
 * sockets, the kernel's support, and the profile from l->ctx. */
int plan_build_profile(struct launch *l, const char *bin, struct error *err);

/* Confine this process as planned (unless jailbroken or confined already),
 * make TMPDIR and the HOME override, set the environment and exec l->exe.
 * Returns only on failure, with the exit status and err. */
int launch_exec(struct launch *l, char **argv, struct error *err);

/* A session: moat relays the terminal and waits while the tool runs in a
 * world of its own (launch/run.c). Returns the tool's exit status, 125
 * when the session could not start; a tool's death by signal is moat's. */
int session_run(struct launch *l, char **argv, struct error *err);

#endif
