/* MOAT_ENV_<NAME> overrides: what the user asks the tool's environment to
 * hold, collected when the plan is made and applied right before exec. */
#ifndef MOAT_LAUNCH_OVERRIDES_H
#define MOAT_LAUNCH_OVERRIDES_H

#include "base/util.h"
#include "profile/profile.h"

/* MOAT_ENV_<NAME>=value, collected from the environment (and removed from
 * it, so the prefixed names never reach the tool) but applied only right
 * before exec: moat's own lookups (config.zon, approvals via XDG_*) must
 * not follow them. home is the new HOME (absolute, normalized) or NULL. */
struct env_overrides {
	struct env_change *vars;
	size_t n;
	char *home;
};

int overrides_collect(struct env_overrides *o, struct error *err);
void overrides_apply(const struct env_overrides *o);
void overrides_free(struct env_overrides *o);

/* MOAT_ENV_HOME must be writable inside the sandbox (under the root or a
 * write grant); otherwise refuse, naming both ways out. */
int overrides_check_home(const struct env_overrides *o, const struct profile *p, const char *bin,
                         struct error *err);

#endif
