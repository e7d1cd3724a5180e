/* MOAT_ENV_<NAME> overrides, shared by moat-wrapper and moat run/shell. */
#ifndef MOAT_CONTEXT_ENV_H
#define MOAT_CONTEXT_ENV_H

#include "base/util.h"
#include "profile/profile.h"

#define MOAT_ENV_PREFIX "MOAT_ENV_"

/* For every MOAT_ENV_<NAME>=value: set NAME=value and remove the prefixed
 * variable, so it does not leak into the tool. *home_override gets the new
 * HOME (absolute, normalized) when MOAT_ENV_HOME was given, else NULL. */
int env_apply_overrides(char **home_override, struct error *err);

/* MOAT_ENV_HOME must be writable inside the sandbox (under the root or a
 * write grant); otherwise refuse, naming both ways out. */
int env_check_home(const struct profile *p, const char *home_override, const char *bin,
		   struct error *err);

/* Create the overridden HOME if missing. Called inside the sandbox. */
int env_make_home(const char *home_override, struct error *err);

#endif
