/* Secrets in the environment: the matcher, the default set against the
 * names real tools use and the build variables it must leave alone,
 * .env/.secrets/.not_secrets in config.zon, moat allow --env's edits, and
 * the approvals store's secret= items. */
#include <string.h>

#include "approvals/approvals.h"
#include "config/config.h"
#include "profile/secrets.h"
#include "tap.h"

static enum secret_verdict judge(const struct secrets *s, const char *name)
{
	return secrets_judge(s, name, strlen(name));
}

static void test_match(void)
{
	static const struct {
		const char *pat, *name;
		bool want;
	} cases[] = {
	    {"*_TOKEN", "GH_TOKEN", true},
	    {"*_TOKEN", "gh_token", true},
	    {"*_TOKEN", "_TOKEN", true},
	    {"*_TOKEN", "TOKEN", false},
	    {"*_TOKEN", "GH_TOKENS", false},
	    {"*_TOKEN", "TOKENIZERS_PARALLELISM", false},
	    {"*_SECRET_*", "AWS_SECRET_ACCESS_KEY", true},
	    {"*_SECRET_*", "AWS_SECRET", false},
	    {"*PASSWORD*", "PGPASSWORD", true},
	    {"*PASSWORD*", "PASSWORD", true},
	    {"AWS_*", "AWS_", true},
	    {"AWS_*", "XAWS_KEY", false},
	    {"A*B*C", "AXXBXXC", true},
	    {"A*B*C", "AXXBXXCX", false},
	    {"A*B*C", "ABBC", true},
	    {"*", "", true},
	    {"GH_TOKEN", "GH_TOKEN", true},
	    {"GH_TOKEN", "GH_TOKEN2", false},
	    {"NPM_CONFIG_*AUTH*", "npm_config_//registry.npmjs.org/:_authToken", true},
	};
	for (size_t i = 0; i < ARRAY_LEN(cases); i++)
		CHECK(secrets_match(cases[i].pat, cases[i].name, strlen(cases[i].name)) ==
		          cases[i].want,
		      "'%s' %s '%s'", cases[i].pat, cases[i].want ? "matches" : "does not match",
		      cases[i].name);
	/* Only the name's length counts: "GH_TOKEN=x" judged as its 8 bytes. */
	CHECK(secrets_match("*_TOKEN", "GH_TOKEN=value", 8), "a name is its length, not the entry");
}

/* Names real tools read their credentials from. */
static const char *const real_secrets[] = {
    "GITHUB_TOKEN",
    "GH_TOKEN",
    "GH_ENTERPRISE_TOKEN",
    "NPM_TOKEN",
    "NODE_AUTH_TOKEN",
    "npm_config__authToken",
    "npm_config__auth",
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_CONTAINER_CREDENTIALS_FULL_URI",
    "ANTHROPIC_API_KEY",
    "OPENAI_API_KEY",
    "GOOGLE_API_KEY",
    "GOOGLE_APPLICATION_CREDENTIALS",
    "AZURE_CLIENT_SECRET",
    "HF_TOKEN",
    "CARGO_REGISTRY_TOKEN",
    "TWINE_PASSWORD",
    "PGPASSWORD",
    "MYSQL_PWD",
    "VAULT_TOKEN",
    "CI_JOB_TOKEN",
    "GITHUB_PAT",
    "DATABASE_URL",
    "SSH_AUTH_SOCK",
    "GPG_AGENT_INFO",
    "DOCKER_HOST",
    "KRB5CCNAME",
    "TAURI_PRIVATE_KEY",
    "gitlab_token",
};

/* Build and shell variables that must pass, some named close to a secret. */
static const char *const not_secrets[] = {
    "PATH",
    "HOME",
    "LANG",
    "LC_ALL",
    "TERM",
    "EDITOR",
    "VISUAL",
    "PAGER",
    "SHELL",
    "USER",
    "CC",
    "CXX",
    "CFLAGS",
    "CXXFLAGS",
    "LDFLAGS",
    "MAKEFLAGS",
    "CARGO_HOME",
    "RUSTUP_HOME",
    "RUSTFLAGS",
    "GOPATH",
    "JAVA_HOME",
    "NODE_ENV",
    "NODE_OPTIONS",
    "PYTHONPATH",
    "VIRTUAL_ENV",
    "TZ",
    "CI",
    "SOURCE_DATE_EPOCH",
    "AWS_REGION",
    "AWS_DEFAULT_REGION",
    "AWS_PROFILE",
    "AWS_CONFIG_FILE",
    "TOKENIZERS_PARALLELISM",
    "KEYTIMEOUT",
    "SSH_AGENT_PID",
    "GPG_TTY",
    "PASSWORD_STORE_DIR",
    "NPM_CONFIG_REGISTRY",
    "GIT_AUTHOR_NAME",
    "KEYMAP",
    "MOAT_ENV_GITHUB_TOKEN",
    "MOAT_ROOT",
    "SECRETS_DIR",
    "TOKEN",
};

static void test_defaults(void)
{
	struct secrets s;
	secrets_init(&s, NULL, 0, NULL, 0);
	for (size_t i = 0; i < ARRAY_LEN(real_secrets); i++)
		CHECK(judge(&s, real_secrets[i]) == SECRET_REMOVED, "%s is removed",
		      real_secrets[i]);
	for (size_t i = 0; i < ARRAY_LEN(not_secrets); i++)
		CHECK(judge(&s, not_secrets[i]) == SECRET_NONE, "%s passes", not_secrets[i]);
	for (const char *const *p = secrets_default; *p; p++)
		CHECK(!secrets_name_refusal(*p, true), "default pattern %s is well formed", *p);
	secrets_free(&s);
}

static void test_config_rules(void)
{
	char corp[] = "CORP_*", db[] = "DATABASE_URL", star[] = "*";
	char *extra[] = {corp}, *exempt[] = {db};
	struct secrets s;
	secrets_init(&s, extra, 1, exempt, 1);
	secrets_pass(&s, "GH_TOKEN");
	secrets_pass(&s, "AWS_*");
	CHECK(judge(&s, "CORP_VAULT") == SECRET_REMOVED, ".secrets adds a pattern");
	CHECK(judge(&s, "DATABASE_URL") == SECRET_NONE, ".not_secrets takes a name out");
	CHECK(judge(&s, "GH_TOKEN") == SECRET_PASSED, "a passed name is passed");
	CHECK(judge(&s, "gh_token") == SECRET_PASSED, "in any case");
	CHECK(judge(&s, "AWS_SECRET_ACCESS_KEY") == SECRET_PASSED, "a passed pattern passes");
	CHECK(judge(&s, "NPM_TOKEN") == SECRET_REMOVED, "what is not passed is removed");
	CHECK(judge(&s, "FLAG_TO_PASS") == SECRET_NONE, "passing a name makes no secret of others");
	secrets_free(&s);
	char *all[] = {star};
	secrets_init(&s, NULL, 0, all, 1);
	CHECK(judge(&s, "GITHUB_TOKEN") == SECRET_NONE, ".not_secrets = \"*\" turns scrubbing off");
	secrets_free(&s);
	/* The user's .secrets win over the default set's exceptions (a hostile
	 * review: AWS_ENDPOINT_URL=https://user:pass@host passed). */
	char endpoint[] = "AWS_ENDPOINT_URL", store[] = "PASSWORD_STORE_*";
	char *mine[] = {endpoint, store};
	secrets_init(&s, mine, 2, NULL, 0);
	CHECK(judge(&s, "AWS_ENDPOINT_URL") == SECRET_REMOVED,
	      ".secrets wins over AWS_ENDPOINT_URL*");
	CHECK(judge(&s, "PASSWORD_STORE_GIT_TOKEN") == SECRET_REMOVED,
	      ".secrets wins over PASSWORD_STORE_*");
	CHECK(judge(&s, "AWS_REGION") == SECRET_NONE, "the other exceptions still hold");
	secrets_free(&s);
	char *mine_out[] = {endpoint};
	secrets_init(&s, mine, 1, mine_out, 1);
	CHECK(judge(&s, "AWS_ENDPOINT_URL") == SECRET_NONE, "and .not_secrets wins over .secrets");
	secrets_free(&s);
}

static void test_names(void)
{
	CHECK(!secrets_name_refusal("GH_TOKEN", false), "a name");
	CHECK(!secrets_name_refusal("npm_config__auth", false), "lower case");
	CHECK(secrets_name_refusal("*_TOKEN", false) != NULL, "a pattern is no name");
	CHECK(!secrets_name_refusal("*_TOKEN", true), "but a pattern");
	CHECK(secrets_name_refusal("", true) != NULL, "empty");
	CHECK(secrets_name_refusal("1X", true) != NULL, "leading digit");
	CHECK(secrets_name_refusal("A-B", true) != NULL, "a dash");
	CHECK(secrets_name_refusal("A=B", true) != NULL, "an equals sign");
}

static int parse(const char *text, struct config *cfg, struct error *err)
{
	return config_parse(text, strlen(text), "config.zon", cfg, err);
}

static void test_config(void)
{
	struct config cfg;
	struct error err = {0};
	CHECK(parse(".{ .env = .{ .{ .bin = \"gh\", .names = .{ \"GH_TOKEN\", \"GITHUB_*\" } },\n"
	            "  .{ .bin = \"*\", .names = .{ \"NPM_TOKEN\" }, .dirs = .{ \"/src/a\" } } },\n"
	            "  .secrets = .{ \"CORP_*\" }, .not_secrets = .{ \"DATABASE_URL\" } }",
	            &cfg, &err) == 0,
	      "a config with .env, .secrets and .not_secrets parses (%s)", err.msg);
	CHECK(cfg.nenv == 2 && cfg.env[0].nnames == 2 && !strcmp(cfg.env[1].bin, "*"), ".env read");
	CHECK(cfg.nsecrets == 1 && cfg.nnot_secrets == 1, ".secrets and .not_secrets read");
	CHECK(config_env_applies(&cfg.env[0], "gh", "/src/a", "/home/you"), "gh's rule for gh");
	CHECK(!config_env_applies(&cfg.env[0], "npm", "/src/a", "/home/you"), "not for npm");
	CHECK(!config_env_applies(&cfg.env[0], NULL, "/src/a", "/home/you"),
	      "nor for a session started for nothing named");
	CHECK(config_env_applies(&cfg.env[1], "npm", "/src/a/sub", "/home/you"),
	      "'*' under its dirs");
	CHECK(!config_env_applies(&cfg.env[1], "npm", "/src/b", "/home/you"), "not elsewhere");
	config_free(&cfg);

	static const struct {
		const char *text, *msg;
	} bad[] = {
	    {".{ .env = .{ .{ .bin = \"gh\", .names = .{ \"GH-TOKEN\" } } } }",
	     "config.zon:1:42: '.names' entry 'GH-TOKEN' is not a variable name or pattern"},
	    {".{ .env = .{ .{ .bin = \"gh\" } } }", "config.zon:1:14: env rule without '.names'"},
	    {".{ .env = .{ .{ .names = .{ \"A\" } } } }",
	     "config.zon:1:14: env rule without '.bin'"},
	    {".{ .env = .{ .{ .bin = \"gh\", .names = .{ \"A\" }, .paths = .{} } } }",
	     "config.zon:1:49: unknown key '.paths' in an env rule"},
	    {".{ .secrets = .{ \"A B\" } }", "config.zon:1:18: '.secrets' entry 'A B'"},
	    {".{ .not_secrets = \"A\" }", "config.zon:1:19: '.not_secrets' must be a list"},
	};
	for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
		err = (struct error){0};
		CHECK(parse(bad[i].text, &cfg, &err) < 0 &&
		          !strncmp(err.msg, bad[i].msg, strlen(bad[i].msg)),
		      "refused at file:line:col: %s (got: %s)", bad[i].msg, err.msg);
		config_free(&cfg);
	}
}

static void test_edit(void)
{
	struct strbuf out = STRBUF_INIT;
	struct error err = {0};
	const char *start = ".{\n    // mine\n    .confirm = .{ \"npm\" },\n}\n";
	CHECK(config_edit_env(start, strlen(start), "c", "gh", "GH_TOKEN", &out, &err) == 1,
	      "pass a name");
	CHECK_STR(out.buf,
	          ".{\n    // mine\n    .confirm = .{ \"npm\" },\n    .env = .{\n"
	          "        .{ .bin = \"gh\", .names = .{ \"GH_TOKEN\" } },\n    },\n}\n",
	          "a new .env with a rule, the rest kept");
	cleanup_free char *one = sb_detach(&out);
	CHECK(config_edit_env(one, strlen(one), "c", "gh", "GH_TOKEN", &out, &err) == 0,
	      "passing it again changes nothing");
	CHECK(config_edit_env(one, strlen(one), "c", "gh", "GITHUB_*", &out, &err) == 1,
	      "a second name");
	cleanup_free char *two = sb_detach(&out);
	CHECK(strstr(two, ".names = .{ \"GH_TOKEN\", \"GITHUB_*\" }") != NULL, "joins gh's rule");
	CHECK(config_edit_unenv(two, strlen(two), "c", "gh", "GH_TOKEN", &out, &err) == 1,
	      "remove one name");
	cleanup_free char *three = sb_detach(&out);
	CHECK(strstr(three, ".names = .{ \"GITHUB_*\" }") != NULL, "the other stays");
	CHECK(config_edit_unenv(three, strlen(three), "c", "gh", "GITHUB_*", &out, &err) == 1,
	      "remove the last name");
	cleanup_free char *four = sb_detach(&out);
	CHECK(strstr(four, "\"gh\"") == NULL, "the rule goes with it");
	CHECK(config_edit_unenv(four, strlen(four), "c", "gh", "GITHUB_*", &out, &err) == 0,
	      "removing what is not there changes nothing");
	sb_release(&out);
}

static void test_store(void)
{
	const char *line = "approval\t1764489600\t/src/a\tnpm\thome=/home/you\tsecret=NPM_TOKEN\n"
	                   "approval\t1764489600\t/src/a\tgh\thome=/home/you\tsecret=\x1b[2J\n";
	struct approval_store st;
	size_t damaged = 0;
	approvals_parse(line, strlen(line), &st, &damaged);
	CHECK(st.n == 1 && st.approvals[0].set.n == 2 &&
	          st.approvals[0].set.items[1].kind == ITEM_SECRET &&
	          !strcmp(st.approvals[0].set.items[1].path, "NPM_TOKEN"),
	      "secret=NAME is read");
	CHECK(damaged == 1 && st.nforeign == 1,
	      "a name with a control character keeps its line as foreign");
	cleanup_free char *again = approvals_format(&st);
	CHECK(strstr(again, "\tsecret=NPM_TOKEN\n") != NULL, "and written back");
	struct access_set want = {0};
	struct access_item items[] = {{ITEM_HOME, 0, (char *)"/home/you"},
	                              {ITEM_SECRET, 0, (char *)"NPM_TOKEN"},
	                              {ITEM_SECRET, 0, (char *)"GH_TOKEN"}};
	want.items = items, want.n = 2;
	CHECK(approvals_covers(&st, "/src/a", "npm", &want), "the same secrets are covered");
	want.n = 3;
	CHECK(!approvals_covers(&st, "/src/a", "npm", &want), "one more asks again");
	want.items = items, want.n = 1;
	CHECK(approvals_covers(&st, "/src/a", "npm", &want), "fewer do not");
	approvals_free(&st);
}

int main(void)
{
	test_match();
	test_defaults();
	test_config_rules();
	test_names();
	test_config();
	test_edit();
	test_store();
	return tap_done();
}
