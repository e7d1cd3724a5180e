/* MOAT_ENV_<NAME> overrides, shared by moat-wrapper and moat run/shell. */
#ifndef MOAT_CONTEXT_ENV_H
#define MOAT_CONTEXT_ENV_H

#include "base/util.h"
#include "profile/profile.h"

#define MOAT_ENV_PREFIX "MOAT_ENV_"

/* MOAT_ENV_<NAME>=value, collected from the environment (and removed from
 * it, so the prefixed names never reach the tool) but applied only right
 * before exec: moat's own lookups (config.zon, approvals via XDG_*) must
 * not follow them. home is the new HOME (absolute, normalized) or NULL. */
struct env_overrides {
	struct env_change *vars;
	size_t n;
	char *home;
};

int env_collect_overrides(struct env_overrides *o, struct error *err);
void env_apply_overrides(const struct env_overrides *o);
void env_overrides_free(struct env_overrides *o);

/* MOAT_ENV_HOME must be writable inside the sandbox (under the root or a
 * write grant); otherwise refuse, naming both ways out. */
int env_check_home(const struct profile *p, const char *home_override, const char *bin,
                   struct error *err);

/* Create the overridden HOME if missing. Called inside the sandbox. */
int env_make_home(const char *home_override, struct error *err);

#endif
