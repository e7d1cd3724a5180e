/* Secrets in the environment: which variables look like credentials (the
 * default set, in secrets.c, plus config.zon's .secrets, minus its
 * .not_secrets), and which of them a tool is handed anyway (config.zon's
 * .env, `moat allow --env`). Pure: names in, verdicts out; values are never
 * looked at, so they cannot end up in a message.
 *
 * Names and patterns are letters, digits, '_' and '*' (any run of
 * characters), and match regardless of case: "*_TOKEN" catches gh_token
 * too. The wrapper judges every variable on every tool start, so matching
 * allocates nothing and skips a pattern at once when the name lacks one of
 * its letters (a 64-bit mask per name, one per pattern). */
#ifndef MOAT_PROFILE_SECRETS_H
#define MOAT_PROFILE_SECRETS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct secret_pattern {
	const char *pat; /* borrowed: the default list's, or the config's */
	uint64_t need;   /* the characters the pattern must find in a name */
};

struct secret_list {
	struct secret_pattern *v;
	size_t n;
};

struct secrets {
	struct secret_list secret;      /* the default set */
	struct secret_list exempt;      /* the default set's exceptions */
	struct secret_list added;       /* .secrets: these win over the exceptions */
	struct secret_list not_secrets; /* .not_secrets: these win over everything */
	struct secret_list pass;        /* names this tool is handed anyway */
};

enum secret_verdict {
	SECRET_NONE,    /* not a secret: passes untouched */
	SECRET_REMOVED, /* a secret this tool is not handed */
	SECRET_PASSED,  /* a secret passed to this tool on purpose */
};

/* Why s cannot be a variable name (pattern: a pattern, '*' allowed), or
 * NULL when it can. */
const char *secrets_name_refusal(const char *s, bool pattern);

/* Does pattern (with '*') match name[0..len), ignoring case? */
bool secrets_match(const char *pattern, const char *name, size_t len);

/* The default set, then extra[0..nextra) added to it and exempt[0..nexempt)
 * taken out (config.zon's .secrets and .not_secrets; borrowed, they must
 * outlive s). */
void secrets_init(struct secrets *s, char *const *extra, size_t nextra, char *const *exempt,
                  size_t nexempt);
/* Hand the tool every secret that pattern names (borrowed). */
void secrets_pass(struct secrets *s, const char *pattern);
void secrets_free(struct secrets *s);

/* The verdict for the variable named name[0..len). moat's own variables
 * (MOAT_*) are never secrets: MOAT_ENV_<NAME> is how a value is set on
 * purpose. */
enum secret_verdict secrets_judge(const struct secrets *s, const char *name, size_t len);

/* The default set and its exceptions, for documentation and tests. */
extern const char *const secrets_default[];
extern const char *const secrets_default_exempt[];

#endif
