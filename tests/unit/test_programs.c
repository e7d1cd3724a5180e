/* context/programs.c: which write grants would reach programs the user
 * runs unconfined, and which PATH directories a write grant holds. Paths
 * below /nonexistent-moat-test exist nowhere, so nothing is canonicalized
 * away from what the table says. */
#include <stdlib.h>
#include <string.h>

#include "context/programs.h"
#include "tap.h"

#define H "/nonexistent-moat-test/home"

static void test_refusal(void)
{
	static const struct {
		const char *path, *path_env, *want; /* want: a part of the reason, or NULL */
	} cases[] = {
	    {"/usr/lib/node_modules", NULL, "in the system directory /usr"},
	    {"/etc", NULL, "in the system directory /etc"},
	    {"/nix", NULL, "holds the system directory /nix/store"},
	    {"/opt/tool", NULL, "in the system directory /opt"},
	    {"/lib64/x", NULL, "in the system directory /lib64"},
	    {"/usrx", NULL, NULL},
	    {"/srv/cache", NULL, NULL},
	    {H "/.local/bin", H "/.local/bin:/usr/bin",
	     "in a directory on your PATH, " H "/.local/bin"},
	    {H "/.local/bin/sub", H "/.local/bin", "in a directory on your PATH"},
	    {H "/.local/bin", "/usr/bin", NULL},
	    {H "/.cargo", H "/.cargo/bin", NULL},   /* holds it: the sandbox keeps it read-only */
	    {H "/.cache/x", H ":" H "/..:/", NULL}, /* home or above on PATH: not judged */
	    {H "/.cache/x", "relative/bin::", NULL},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *why = programs_write_refusal(cases[i].path, cases[i].path_env, H);
		if (cases[i].want)
			CHECK(why && strstr(why, cases[i].want), "%s (PATH %s): '%s'",
			      cases[i].path, cases[i].path_env ? cases[i].path_env : "-",
			      why ? why : "accepted");
		else
			CHECK(!why, "%s (PATH %s) is accepted: '%s'", cases[i].path,
			      cases[i].path_env ? cases[i].path_env : "-", why ? why : "");
		free(why);
	}
}

static void test_protect(void)
{
	struct profile p = {0};
	profile_add_rule(&p, H "/.cargo", ACCESS_RW, ORIGIN_GRANT, "cargo");
	profile_add_rule(&p, H "/.npm", ACCESS_READ, ORIGIN_GRANT, "npm");
	programs_protect(&p, H "/.cargo/bin:" H "/.npm/bin:" H "/.cargo:/usr/bin", H);
	size_t protected = 0;
	for (size_t i = 0; i < p.nrules; i++)
		if (p.rules[i].protect != PROTECT_NONE) {
			protected++;
			CHECK(strcmp(p.rules[i].path, H "/.cargo/bin") == 0 &&
			          p.rules[i].protect == PROTECT_MAKE_DIR,
			      "protected: %s", p.rules[i].path);
		}
	CHECK(protected == 1,
	      "only the PATH directory strictly below a write grant is protected (%zu)", protected);
	profile_free(&p);
}

int main(void)
{
	test_refusal();
	test_protect();
	return tap_done();
}
