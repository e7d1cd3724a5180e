/* moat-wrapper's steps, one file each: main.c (argv[0] -> manifest),
 * confine.c (environment, jailbreak, profile, confinement). */
#ifndef MOAT_WRAPPER_WRAPPER_H
#define MOAT_WRAPPER_WRAPPER_H

#include <stdbool.h>

#include "base/util.h"

struct tool {
	char *name;       /* the tool's name in its manifest */
	char *shell_dir;  /* canonical shell directory */
	char *real;       /* the real binary, from the manifest */
	char *self;       /* canonical path of moat-wrapper itself */
};

struct invocation {
	char *root;          /* canonical MOAT_ROOT */
	const char *home;    /* the real HOME */
	char *home_override; /* MOAT_ENV_HOME, normalized, or NULL */
};

int check_not_wrapper(const struct tool *t, struct error *err);
int invocation_read_env(struct invocation *inv, struct error *err);
int apply_shell_env(const struct tool *t, const struct invocation *inv, struct error *err);
int apply_moat_env(struct invocation *inv, struct error *err);
/* Everything between the environment and exec: inside a session nothing but
 * the HOME override; otherwise config.zon, the jailbreak decision, and
 * confinement with the profile for this tool. */
int run_sandboxed(const struct tool *t, const struct invocation *inv, struct error *err);

#endif
