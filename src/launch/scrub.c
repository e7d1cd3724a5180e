#include "launch/scrub.h"

#include <string.h>

#include "launch/launch.h"

extern char **environ;

/* The length of NAME in "NAME=value" (strchrnul is not on macOS). */
static size_t name_len(const char *entry)
{
	const char *c = entry;
	while (*c && *c != '=')
		c++;
	return (size_t)(c - entry);
}

/* A name with control characters (a tab, a line break, an escape) is
 * never handed over: it could not be shown, nor stored in the approvals
 * (one line of tab-separated fields), as what it is. */
static bool has_control(const char *name, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)name[i] < 0x20 || name[i] == 0x7f)
			return true;
	return false;
}

/* The names for the profile, and the entries themselves for scrub_apply:
 * the environment's strings stay where they are until exec (moat only
 * adds variables of its own), so removing is comparing pointers. */
static void judge_environment(struct launch *l)
{
	struct profile *p = &l->profile;
	name_list_free(&p->secrets_removed);
	name_list_free(&p->secrets_passed);
	free(l->scrubbed);
	l->scrubbed = NULL;
	for (char **e = environ; *e; e++) {
		size_t len = name_len(*e);
		enum secret_verdict v = secrets_judge(&l->secrets, *e, len);
		if (v == SECRET_NONE)
			continue;
		if (v == SECRET_PASSED && has_control(*e, len))
			v = SECRET_REMOVED;
		name_list_add(v == SECRET_PASSED ? &p->secrets_passed : &p->secrets_removed, *e,
		              len);
		if (v == SECRET_REMOVED) {
			size_t n = p->secrets_removed.n;
			l->scrubbed = xrealloc_array(l->scrubbed, n + 1, sizeof(char *));
			l->scrubbed[n - 1] = *e;
			l->scrubbed[n] = NULL;
		}
	}
}

void scrub_plan(struct launch *l, const char *bin)
{
	const struct config *cfg = &l->cfg;
	secrets_free(&l->secrets);
	secrets_init(&l->secrets, cfg->secrets, cfg->nsecrets, cfg->not_secrets, cfg->nnot_secrets);
	for (size_t i = 0; i < cfg->nenv; i++) {
		const struct config_env *r = &cfg->env[i];
		if (!config_env_applies(r, bin, l->ctx.root, l->ctx.home))
			continue;
		for (size_t j = 0; j < r->nnames; j++)
			secrets_pass(&l->secrets, r->names[j]);
	}
	judge_environment(l);
}

void scrub_plan_defaults(struct launch *l)
{
	secrets_free(&l->secrets);
	secrets_init(&l->secrets, NULL, 0, NULL, 0);
}

static bool scrubbed(char *const *v, const char *entry)
{
	for (; *v; v++)
		if (*v == entry)
			return true;
	return false;
}

void scrub_apply(const struct launch *l)
{
	if (!l->scrubbed)
		return;
	/* As unsetenv does, in place: no copy of the environment. */
	char **out = environ;
	for (char **e = environ; *e; e++)
		if (!scrubbed(l->scrubbed, *e))
			*out++ = *e;
	*out = NULL;
}

bool scrub_refuses(const struct launch *l, const char *name)
{
	return secrets_judge(&l->secrets, name, strlen(name)) == SECRET_REMOVED;
}

void scrub_hint(const struct profile *p, const char *bin, struct strbuf *out)
{
	const struct name_list *r = &p->secrets_removed;
	if (!r->n)
		return;
	const char *example = NULL;
	bool utf8 = visible_utf8_locale();
	sb_adds(out, "secrets removed from its environment: ");
	for (size_t i = 0; i < r->n; i++) {
		if (i)
			sb_adds(out, ", ");
		/* A name is the caller's: shown safely, as every name moat did not choose. */
		visible_add(out, r->v[i], strlen(r->v[i]), utf8);
		if (!example && !secrets_name_refusal(r->v[i], false))
			example = r->v[i];
	}
	if (example)
		sb_addf(out, "; to pass one:  moat allow --env %s %s", bin, example);
}
