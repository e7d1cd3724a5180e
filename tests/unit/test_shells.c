/* The manifest and env-file parsers: what they accept and what they refuse. */
#include <stdlib.h>

#include "profile/profile.h"
#include "shells/shells.h"
#include "tap.h"

static void test_manifest(void)
{
	struct manifest m;
	struct error err;
	const char ok[] = "cc\t/usr/bin/gcc\r\n# comment\n\nclang++\t/usr/bin/clang++";
	CHECK(manifest_parse(ok, sizeof(ok) - 1, "m", &m, &err) == 0, "valid manifest parses");
	CHECK_STR(manifest_lookup(&m, "cc"), "/usr/bin/gcc", "cc found, CRLF stripped");
	CHECK_STR(manifest_lookup(&m, "clang++"), "/usr/bin/clang++", "last line without newline");
	CHECK(manifest_lookup(&m, "gcc") == NULL, "unknown name");
	char *text = manifest_format(&m);
	CHECK_STR(text, "cc\t/usr/bin/gcc\nclang++\t/usr/bin/clang++\n", "format round-trips");
	free(text);
	manifest_free(&m);

	static const struct {
		const char *text, *msg;
	} bad[] = {
	    {"cc /usr/bin/gcc\n", "m:1: expected '<name><TAB>/path/to/binary'"},
	    {"cc\tusr/bin/gcc\n", "m:1: 'usr/bin/gcc' is not an absolute path"},
	    {"\n\ncc\t/a\ncc\t/b\n", "m:4: 'cc' is listed twice"},
	    {"a/b\t/x\n", "m:1: bad tool name: the name contains a slash"},
	    {"..\t/x\n", "m:1: bad tool name: the name is '.' or '..'"},
	    {"\t/x\n", "m:1: bad tool name: the name is empty"},
	    {"cc\t/x\x1b[2J\n", "m:1: the path contains a control character"},
	};
	for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
		int rc = manifest_parse(bad[i].text, strlen(bad[i].text), "m", &m, &err);
		CHECK(rc < 0, "bad manifest %zu refused", i);
		CHECK_STR(rc < 0 ? err.msg : NULL, bad[i].msg, "its message");
	}
	const char nul[] = "cc\t/x\0y\n";
	CHECK(manifest_parse(nul, sizeof(nul) - 1, "m", &m, &err) < 0, "NUL byte refused");
}

static void test_envfile(void)
{
	struct env_change *env;
	size_t n;
	struct error err;
	const char ok[] = "# c\nA=1\nB=$MOAT_ROOT/x\nC=${MOAT_ROOT}y\nD=$MOAT_ROOTS\nE=a=b\nF=\n";
	CHECK(envfile_parse(ok, sizeof(ok) - 1, "e", "/p", &env, &n, &err) == 0, "env parses");
	CHECK(n == 6, "six variables");
	if (n == 6) {
		CHECK_STR(env[1].value, "/p/x", "$MOAT_ROOT expands");
		CHECK_STR(env[2].value, "/py", "${MOAT_ROOT} expands");
		CHECK_STR(env[3].value, "$MOAT_ROOTS", "a longer name is not MOAT_ROOT");
		CHECK_STR(env[4].value, "a=b", "value keeps '='");
		CHECK_STR(env[5].value, "", "empty value");
	}
	env_changes_free(env, n);
	/* Variables that steer moat or the loader stop the tool, however spelt. */
	static const char *const refused[] = {
	    "MOAT_JAILBREAK=git\n", "MOAT_ROOT=/\n",    "LD_PRELOAD=/x.so\n", "HOME=/tmp\n",
	    "  LD_PRELOAD=/x.so\n", "LD_PRELOAD =/x\n", "\tHOME\t=/\n",       "TMPDIR=/t\n"};
	for (size_t i = 0; i < ARRAY_LEN(refused); i++)
		CHECK(envfile_parse(refused[i], strlen(refused[i]), "e", "/p", &env, &n, &err) < 0,
		      "env line refused: %.*s", (int)strlen(refused[i]) - 1, refused[i]);
	/* A malformed line is skipped with a warning naming file:line; the
	 * rest of the file still applies (as in the original tool). */
	static const char *const malformed[] = {"1A=x\n", "no equals\n", "A B=c\n", "=v\n",
	                                        "X-Y=1\n"};
	for (size_t i = 0; i < ARRAY_LEN(malformed); i++) {
		char text[64];
		snprintf(text, sizeof(text), "GOOD=1\n%sLATER=2\n", malformed[i]);
		struct strbuf warn = STRBUF_INIT;
		int rc = envfile_parse_warn(text, strlen(text), "e", "/p", &env, &n, &warn, &err);
		CHECK(rc == 0 && n == 2 && strcmp(env[0].name, "GOOD") == 0 &&
		          strcmp(env[1].name, "LATER") == 0,
		      "malformed line skipped, the others kept: %.*s",
		      (int)strlen(malformed[i]) - 1, malformed[i]);
		CHECK_STR(sb_str(&warn), "e:2: expected KEY=VALUE; line skipped\n",
		          "and a warning naming file:line");
		env_changes_free(env, n);
		sb_release(&warn);
	}
	/* Blanks around the line, the name and the value are trimmed. */
	const char padded[] = "  A = 1  \n\tB=two words\t\r\n   \n  # comment\nC=\n";
	struct strbuf warn = STRBUF_INIT;
	CHECK(envfile_parse_warn(padded, sizeof(padded) - 1, "e", "/p", &env, &n, &warn, &err) == 0,
	      "a padded env file parses");
	CHECK(n == 3 && warn.len == 0, "three variables, no warning");
	if (n == 3) {
		CHECK_STR(env[0].name, "A", "the name is trimmed");
		CHECK_STR(env[0].value, "1", "the value is trimmed");
		CHECK_STR(env[1].value, "two words", "inner blanks stay");
		CHECK_STR(env[2].value, "", "an empty value");
	}
	env_changes_free(env, n);
	sb_release(&warn);
}

int main(void)
{
	test_manifest();
	test_envfile();
	return tap_done();
}
