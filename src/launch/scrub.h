/* Secrets in the environment (profile/secrets.h): decided when the plan is
 * made, removed from the environment right before exec, so what the
 * prompt, `moat profile` and the hints show is what the tool gets. */
#ifndef MOAT_LAUNCH_SCRUB_H
#define MOAT_LAUNCH_SCRUB_H

#include <stdbool.h>

#include "base/strbuf.h"
#include "profile/profile.h"

struct launch;

/* Judge every variable of the environment for bin (NULL: every tool, so
 * only what config.zon's .env passes to "*"), and fill the profile's
 * secrets_removed and secrets_passed. Names only: no value is copied. */
void scrub_plan(struct launch *l, const char *bin);

/* The rules when no config is at hand (a wrapped tool inside a session,
 * whose session decided the environment): the default set, nothing passed. */
void scrub_plan_defaults(struct launch *l);

/* Take what scrub_plan removed out of the environment, in place. */
void scrub_apply(const struct launch *l);

/* Would setting name (from a shell's share/moat/env) hand the tool a secret
 * it is not passed? */
bool scrub_refuses(const struct launch *l, const char *name);

/* For a command that failed: which secrets its environment lost and the
 * line that passes one to bin, as one line without "moat: " or a line
 * break; nothing when none was removed. Names only, never a value. */
void scrub_hint(const struct profile *p, const char *bin, struct strbuf *out);

#endif
