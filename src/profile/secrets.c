/* The default set of secret-looking variables, and the matcher. The list is
 * the one place moat decides what a credential looks like; README.md and
 * docs/security.md explain it, tests/unit/test_secrets.c holds it to real
 * tools' names and to the build variables it must leave alone. */
#include "profile/secrets.h"
#include "base/envvars.h"

#include <string.h>

#include "base/util.h"

/* Each pattern for the credentials real tools read from the environment. */
const char *const secrets_default[] = {
    /* GITHUB_TOKEN, GH_TOKEN, NPM_TOKEN, NODE_AUTH_TOKEN, HF_TOKEN,
     * VAULT_TOKEN, CARGO_REGISTRY_TOKEN, CI_JOB_TOKEN, AWS_SESSION_TOKEN.
     * A suffix, so TOKENIZERS_PARALLELISM stays. */
    "*_TOKEN",
    /* AZURE_CLIENT_SECRET; AWS_SECRET_ACCESS_KEY, *_SECRET_KEY. */
    "*_SECRET",
    "*_SECRET_*",
    /* ANTHROPIC_API_KEY, OPENAI_API_KEY, GOOGLE_API_KEY, NUGET_API_KEY. */
    "*_API_KEY",
    "*_APIKEY",
    /* AWS_ACCESS_KEY_ID, MINIO_ACCESS_KEY. */
    "*_ACCESS_KEY*",
    /* TAURI_PRIVATE_KEY, *_PRIVATE_KEY_PATH of signing tools. */
    "*_PRIVATE_KEY*",
    /* PGPASSWORD, TWINE_PASSWORD, DOCKER_PASSWORD, MYSQL_PWD;
     * GPG and signing passphrases. */
    "*PASSWORD*",
    "*PASSWD*",
    "*PASSPHRASE*",
    "MYSQL_PWD",
    /* GOOGLE_APPLICATION_CREDENTIALS (a key file's path, read outside). */
    "*_CREDENTIALS",
    /* Personal access tokens: GITHUB_PAT (R's gh and remotes),
     * AZURE_DEVOPS_EXT_PAT. */
    "*_PAT",
    /* Every AWS credential form, the ones to come too; the settings that
     * are not credentials are exceptions below. */
    "AWS_*",
    /* npm_config__auth, npm_config__authToken and
     * npm_config_//registry.npmjs.org/:_authToken. */
    "NPM_CONFIG_*AUTH*",
    /* Usually postgres://user:password@host/db. */
    "DATABASE_URL",
    /* Not secrets but keys to one: the ssh and gpg agents sign as you, a
     * docker or podman daemon is root on the host, a Kerberos ticket
     * cache logs in as you. */
    "SSH_AUTH_SOCK",
    "GPG_AGENT_INFO",
    "DOCKER_HOST",
    "CONTAINER_HOST",
    "DOCKER_AUTH_CONFIG",
    "KRB5CCNAME",
    NULL,
};

/* Names the patterns above catch that hold no credential. */
const char *const secrets_default_exempt[] = {
    /* The AWS settings that choose a region, a profile, files and output. */
    "AWS_REGION",
    "AWS_DEFAULT_REGION",
    "AWS_PROFILE",
    "AWS_DEFAULT_PROFILE",
    "AWS_CONFIG_FILE",
    "AWS_SHARED_CREDENTIALS_FILE",
    "AWS_DEFAULT_OUTPUT",
    "AWS_PAGER",
    "AWS_CA_BUNDLE",
    "AWS_SDK_LOAD_CONFIG",
    "AWS_ENDPOINT_URL*",
    /* pass(1)'s settings: its directory, key ids, git options. */
    "PASSWORD_STORE_*",
    NULL,
};

static const char *const moat_prefix = ENV_PREFIX;

/* Which bit of a mask a character sets: letters folded, digits, '_' and
 * the rest 37; a table, since every byte of every name is asked. */
#define LETTER(c) [c] = c - 'A' + 1, [c + 32] = c - 'A' + 1
static const unsigned char bits[256] = {
    LETTER('A'), LETTER('B'), LETTER('C'), LETTER('D'), LETTER('E'), LETTER('F'), LETTER('G'),
    LETTER('H'), LETTER('I'), LETTER('J'), LETTER('K'), LETTER('L'), LETTER('M'), LETTER('N'),
    LETTER('O'), LETTER('P'), LETTER('Q'), LETTER('R'), LETTER('S'), LETTER('T'), LETTER('U'),
    LETTER('V'), LETTER('W'), LETTER('X'), LETTER('Y'), LETTER('Z'), ['0'] = 27,  ['1'] = 28,
    ['2'] = 29,  ['3'] = 30,  ['4'] = 31,  ['5'] = 32,  ['6'] = 33,  ['7'] = 34,  ['8'] = 35,
    ['9'] = 36,  ['_'] = 37,
};

static uint64_t mask_of(const char *s, size_t len, bool skip_star)
{
	uint64_t m = 0;
	for (size_t i = 0; i < len; i++)
		if (!(skip_star && s[i] == '*'))
			m |= 1ull << bits[(unsigned char)s[i]];
	return m;
}

static unsigned char fold(unsigned char c)
{
	return c >= 'a' && c <= 'z' ? (unsigned char)(c - 'a' + 'A') : c;
}

bool secrets_match(const char *pattern, const char *name, size_t len)
{
	/* '*' only: on a mismatch, let the last star take one more character. */
	const char *p = pattern, *star = NULL;
	size_t i = 0, mark = 0;
	while (i < len) {
		if (*p == '*') {
			star = p++;
			mark = i;
		} else if (*p && fold((unsigned char)*p) == fold((unsigned char)name[i])) {
			p++;
			i++;
		} else if (star) {
			p = star + 1;
			i = ++mark;
		} else {
			return false;
		}
	}
	while (*p == '*')
		p++;
	return *p == '\0';
}

const char *secrets_name_refusal(const char *s, bool pattern)
{
	if (!*s)
		return "it is empty";
	if (*s >= '0' && *s <= '9')
		return "it starts with a digit";
	for (const char *c = s; *c; c++) {
		bool ok = (*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') ||
		          (*c >= '0' && *c <= '9') || *c == '_' || (pattern && *c == '*');
		if (!ok)
			return pattern ? "a name or pattern holds only letters, digits, '_' and '*'"
			               : "a name holds only letters, digits and '_'";
	}
	return NULL;
}

static void list_add(struct secret_list *l, const char *pattern)
{
	l->v[l->n++] = (struct secret_pattern){pattern, mask_of(pattern, strlen(pattern), true)};
}

static size_t count(const char *const *v)
{
	size_t n = 0;
	while (v[n])
		n++;
	return n;
}

/* A built-in list, then the config's: one allocation each, as the wrapper
 * makes them on every start. */
static void list_init(struct secret_list *l, const char *const *builtin, char *const *more,
                      size_t nmore)
{
	l->n = 0;
	l->v = count(builtin) + nmore ? xcalloc(count(builtin) + nmore, sizeof(*l->v)) : NULL;
	for (const char *const *p = builtin; *p; p++)
		list_add(l, *p);
	for (size_t i = 0; i < nmore; i++)
		list_add(l, more[i]);
}

void secrets_init(struct secrets *s, char *const *extra, size_t nextra, char *const *exempt,
                  size_t nexempt)
{
	static const char *const none[] = {NULL};
	*s = (struct secrets){0};
	list_init(&s->secret, secrets_default, NULL, 0);
	list_init(&s->exempt, secrets_default_exempt, NULL, 0);
	list_init(&s->added, none, extra, nextra);
	list_init(&s->not_secrets, none, exempt, nexempt);
}

void secrets_pass(struct secrets *s, const char *pattern)
{
	struct secret_list *l = &s->pass;
	l->v = xrealloc_array(l->v, l->n + 1, sizeof(*l->v));
	list_add(l, pattern);
}

void secrets_free(struct secrets *s)
{
	free(s->secret.v);
	free(s->exempt.v);
	free(s->added.v);
	free(s->not_secrets.v);
	free(s->pass.v);
	*s = (struct secrets){0};
}

static bool any_matches(const struct secret_list *l, const char *name, size_t len, uint64_t have)
{
	for (size_t i = 0; i < l->n; i++)
		if (!(l->v[i].need & ~have) && secrets_match(l->v[i].pat, name, len))
			return true;
	return false;
}

enum secret_verdict secrets_judge(const struct secrets *s, const char *name, size_t len)
{
	if (len >= 5 && memcmp(name, moat_prefix, 5) == 0)
		return SECRET_NONE;
	uint64_t have = mask_of(name, len, false);
	/* The user's word wins: .not_secrets over all, .secrets over the
	 * default set's exceptions (AWS_ENDPOINT_URL may hold a password). */
	if (any_matches(&s->not_secrets, name, len, have))
		return SECRET_NONE;
	if (!any_matches(&s->added, name, len, have) &&
	    (!any_matches(&s->secret, name, len, have) || any_matches(&s->exempt, name, len, have)))
		return SECRET_NONE;
	return any_matches(&s->pass, name, len, have) ? SECRET_PASSED : SECRET_REMOVED;
}
