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

/* Where a jailbroken tool's environment may not point: where sandboxed
 * code can write. */
struct jailbreak_places {
	const char *root;
	const char *const *areas; /* the root and write grants, canonical */
	size_t n;
	const char *bin; /* the jailbroken tool */
	const char *how; /* who jailbroke it: "config.zon's .jailbreak", "MOAT_JAILBREAK" */
};

/* A jailbroken tool runs unconfined, so a value it is handed that names a
 * place sandboxed code can write (the root, a write grant, a past root)
 * would let that code steer it: a HOME holding a .gitconfig with
 * core.fsmonitor, a config file, a PATH entry. Refuse every MOAT_ENV_*
 * value that is such a path, or a colon list holding one, naming both ways
 * out: the tool confined, or the value unset. */
int overrides_check_jailbroken(const struct env_overrides *o, const struct jailbreak_places *j,
                               struct error *err);

/* The same judgement for one value; shown names it in the message. */
int overrides_judge_for_jailbreak(const char *shown, const char *value,
                                  const struct jailbreak_places *j, struct error *err);

#endif
