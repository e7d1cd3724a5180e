/* moat-wrapper's steps, one file each: main.c (argv[0] -> manifest),
 * confine.c (environment, jailbreak, profile, confinement). */
#ifndef MOAT_WRAPPER_WRAPPER_H
#define MOAT_WRAPPER_WRAPPER_H

#include <stdbool.h>

#include "base/util.h"
#include "context/env.h"

struct tool {
	char *name;      /* the tool's name in its manifest */
	char *shell_dir; /* canonical shell directory */
	char *real;      /* the real binary, from the manifest */
	char *self;      /* canonical path of moat-wrapper itself */
};

struct invocation {
	char *root;                     /* canonical MOAT_ROOT */
	const char *home;               /* the real HOME */
	struct env_overrides overrides; /* MOAT_ENV_*, applied right before exec */
};

int invocation_read_env(struct invocation *inv, struct error *err);
/* share/moat/env: read inside the sandbox (after run_sandboxed), never
 * through a symlink out of the shell, so a planted link cannot bring another
 * project's secrets in; MOAT_ENV_* applied after it still win. */
int apply_shell_env(const struct tool *t, const struct invocation *inv, struct error *err);

/* Everything between the environment and exec: inside a session nothing but
 * the HOME override; otherwise config.zon, the jailbreak decision, and
 * confinement with the profile for this tool. */
int run_sandboxed(const struct tool *t, const struct invocation *inv, struct error *err);

#endif
