/* The SBPL renderer: golden files, refusals, and that the rendering grants
 * exactly what the profile model says.
 *
 * Golden files live in tests/unit/golden/sbpl/ (one <name>.sb per profile,
 * refused.txt for the refusal messages). After an intended change to the
 * renderer or to the profile model, regenerate them from the repository root
 * with
 *
 *     MOAT_UPDATE_GOLDEN=1 build/tests/unit/test_sbpl
 *
 * and read `git diff tests/unit/golden` before committing: the diff is the
 * change in what macOS would enforce.
 *
 * None of this runs Seatbelt: it shows what moat would hand to the macOS
 * compiler, not what macOS then enforces (docs/macos.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fs.h"
#include "base/strbuf.h"
#include "profile/profile.h"
#include "sandbox/sbpl.h"
#include "sbpl_reader.h"
#include "tap.h"

#define ROOT "/Users/you/git/project"
#define HOME "/Users/you"

static char *golden_path(const char *name)
{
	const char *src = getenv("MOAT_SRC");
	return xasprintf("%s/tests/unit/golden/sbpl/%s", src && *src ? src : ".", name);
}

/* Print text as TAP comments, so a failure shows what was rendered. */
static void show(const char *label, const char *text)
{
	printf("#   %s:\n", label);
	for (const char *line = text; *line;) {
		size_t n = strcspn(line, "\n");
		printf("#     %.*s\n", (int)n, line);
		line += n + (line[n] == '\n');
	}
}

static void check_golden(const char *name, const char *got)
{
	cleanup_free char *path = golden_path(name);
	struct error err = {0};
	if (getenv("MOAT_UPDATE_GOLDEN")) {
		cleanup_free char *dir = xstrdup(path);
		*strrchr(dir, '/') = '\0';
		bool ok = fs_mkdir_p(dir, 0755, &err) == 0 &&
		          fs_write_atomic(path, got, strlen(got), 0644, &err) == 0;
		CHECK(ok, "golden %s written", name);
		if (!ok)
			printf("#   %s\n", err.msg);
		return;
	}
	char *want = NULL;
	size_t len = 0;
	if (fs_read_file(path, 1 << 20, &want, &len, &err) < 0) {
		CHECK(false, "golden %s: %s", name, err.msg);
		printf("#   regenerate with MOAT_UPDATE_GOLDEN=1 (see the top of test_sbpl.c)\n");
		return;
	}
	if (!CHECK(strcmp(got, want) == 0, "rendering matches golden %s", name)) {
		const char *g = got, *w = want;
		unsigned line = 1;
		for (; *g && *g == *w; g++, w++)
			line += *g == '\n';
		printf("#   first difference on line %u; if it is intended, regenerate with "
		       "MOAT_UPDATE_GOLDEN=1\n",
		       line);
		show("got", got);
	}
	free(want);
}

static bool build(const struct profile_input *in, struct profile *p)
{
	struct error err = {0};
	int rc = profile_build(in, p, &err);
	if (!CHECK(rc == 0, "profile builds"))
		printf("#   %s\n", err.msg);
	return rc == 0;
}

static char *render(const struct profile *p)
{
	struct strbuf sb = STRBUF_INIT;
	struct error err = {0};
	if (!CHECK(sbpl_render(p, &sb, &err) == 0, "renders"))
		printf("#   %s\n", err.msg);
	return sb_detach(&sb);
}

static void golden_case(const char *name, const struct profile_input *in, bool network)
{
	struct profile p;
	if (!build(in, &p))
		return;
	p.net = network ? NETPOLICY_OPEN : (struct netpolicy){.level = NET_OFF};
	cleanup_free char *text = render(&p);
	check_golden(name, text);
	profile_free(&p);
}

static const struct grant the_grants[] = {
    {.bin = "git", .path = HOME "/.gitconfig", .access = ACCESS_READ},
    {.bin = "cargo", .path = HOME "/.cargo", .access = ACCESS_RW},
    {.bin = "cargo", .path = HOME "/.rustup", .access = ACCESS_RX},
    {.bin = "zig", .path = HOME "/.cache/zig", .access = ACCESS_ALL},
    {.bin = "*", .path = HOME "/.config/nvim", .access = ACCESS_READ},
};

static void test_goldens(void)
{
	golden_case("default.sb",
	            &(struct profile_input){.platform = PLATFORM_MACOS, .root = ROOT, .home = HOME},
	            true);
	golden_case("grants.sb",
	            &(struct profile_input){.platform = PLATFORM_MACOS,
	                                    .root = ROOT,
	                                    .home = HOME,
	                                    .grants = the_grants,
	                                    .ngrants = ARRAY_LEN(the_grants)},
	            true);

	static const char *const jailbreaks[] = {"/nix/store/0000-git-2.44.0/bin/git"};
	golden_case("jailbreak.sb",
	            &(struct profile_input){.platform = PLATFORM_MACOS,
	                                    .root = ROOT,
	                                    .home = HOME,
	                                    .jailbreaks = jailbreaks,
	                                    .njailbreaks = ARRAY_LEN(jailbreaks)},
	            true);

	static const struct grant spaced[] = {
	    {.bin = "code",
	     .path = HOME "/Library/Application Support/Code",
	     .access = ACCESS_READ},
	};
	golden_case("root-with-spaces.sb",
	            &(struct profile_input){.platform = PLATFORM_MACOS,
	                                    .root = HOME "/My Projects/app one",
	                                    .home = HOME,
	                                    .grants = spaced,
	                                    .ngrants = ARRAY_LEN(spaced)},
	            true);

	/* What the context adds on a real run (terminal, /etc link targets, the
	 * shell directory and moat-wrapper), with the network closed. */
	static const char *const terminals[] = {"/dev/ttys003"};
	static const char *const etc_links[] = {"/private/var/run/resolv.conf"};
	static const char *const shell_dirs[] = {HOME "/.local/share/moat/node"};
	golden_case("context-no-network.sb",
	            &(struct profile_input){.platform = PLATFORM_MACOS,
	                                    .root = ROOT,
	                                    .home = HOME,
	                                    .terminals = terminals,
	                                    .nterminals = ARRAY_LEN(terminals),
	                                    .etc_links = etc_links,
	                                    .netc_links = ARRAY_LEN(etc_links),
	                                    .shell_dirs = shell_dirs,
	                                    .nshell_dirs = ARRAY_LEN(shell_dirs),
	                                    .wrapper = "/opt/moat/bin/moat-wrapper"},
	            false);
}

/* Each path SBPL cannot carry, in each place a path can come from. The
 * builder refuses some of these itself (a bad root or grant), so they are put
 * into an already-built profile: the renderer must not rely on that. */
static void test_refusals(void)
{
	static const struct {
		const char *what, *path;
	} bad[] = {
	    {"double quote", "/Users/you/a\"b"},
	    {"single quote", "/Users/you/it's"},
	    {"backslash", "/Users/you/a\\b"},
	    {"newline", "/Users/you/a\nb"},
	    {"escape character", "/Users/you/\x1b[2Jx"},
	    {"delete character", "/Users/you/a\x7f"},
	    {"relative", "Users/you/x"},
	    {"dot-dot", "/Users/you/git/project/../../.ssh"},
	    {"dot", "/Users/you/./x"},
	    {"trailing slash", "/Users/you/x/"},
	    {"double slash", "/Users//you"},
	};
	enum { AS_ROOT, AS_GRANT, AS_TERMINAL, AS_JAILBREAK, NPLACES };
	static const char *const place_names[] = {"root", "grant", "terminal", "jailbreak"};
	struct strbuf messages = STRBUF_INIT;

	for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
		for (int place = 0; place < NPLACES; place++) {
			struct profile p;
			struct profile_input in = {
			    .platform = PLATFORM_MACOS, .root = ROOT, .home = HOME};
			if (!build(&in, &p))
				continue;
			switch (place) {
			case AS_ROOT:
				free(p.root);
				p.root = xstrdup(bad[i].path);
				break;
			case AS_GRANT:
				profile_add_rule(&p, bad[i].path, ACCESS_RW, ORIGIN_GRANT, "cargo");
				break;
			case AS_TERMINAL:
				profile_add_rule(&p, bad[i].path, ACCESS_RW | ACCESS_IOCTL,
				                 ORIGIN_TERMINAL, NULL);
				break;
			case AS_JAILBREAK:
				p.jailbreaks = xrealloc_array(p.jailbreaks, 1, sizeof(char *));
				p.jailbreaks[0] = xstrdup(bad[i].path);
				p.njailbreaks = 1;
				break;
			}
			struct strbuf out = STRBUF_INIT;
			sb_adds(&out, "untouched");
			struct error err = {0};
			int rc = sbpl_render(&p, &out, &err);
			CHECK(rc == -1, "%s path as %s is refused", bad[i].what,
			      place_names[place]);
			CHECK_STR(sb_str(&out), "untouched", "nothing rendered for a refused path");
			CHECK(strchr(err.msg, '\n') == NULL && strchr(err.msg, '\x1b') == NULL &&
			          strchr(err.msg, '\x7f') == NULL,
			      "the message shows control characters as escapes");
			sb_addf(&messages, "%s as %s: %s\n", bad[i].what, place_names[place],
			        err.msg);
			sb_release(&out);
			profile_free(&p);
		}
	}
	check_golden("refused.txt", sb_str(&messages));
	sb_release(&messages);
}

static const struct sbpl_grant *find_grant(const struct sbpl_grant *g, size_t n, const char *path,
                                           bool no_sandbox)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(g[i].path, path) == 0 && g[i].no_sandbox == no_sandbox)
			return &g[i];
	return NULL;
}

static bool read_back(const struct profile *p, struct sbpl_grant **g, size_t *n)
{
	cleanup_free char *text = render(p);
	struct sbpl_param params[SBPL_MAX_PARAMS];
	size_t nparams = sbpl_params(p, params);
	struct error err = {0};
	int rc = sbpl_grants(text, params, nparams, g, n, &err);
	if (!CHECK(rc == 0, "the rendering reads back"))
		printf("#   %s\n", err.msg);
	return rc == 0;
}

/* Everything a profile can hold, for the equivalence tests. */
static const char *const rich_terminals[] = {"/dev/ttys003"};
static const char *const rich_etc_links[] = {"/private/var/run/resolv.conf"};
static const char *const rich_shell_dirs[] = {HOME "/.local/share/moat/node"};
static const char *const rich_jailbreaks[] = {"/nix/store/0000-git-2.44.0/bin/git", "/usr/bin/ssh"};

static struct profile_input rich_input(enum platform platform)
{
	return (struct profile_input){
	    .platform = platform,
	    .root = ROOT,
	    .home = HOME,
	    .terminals = rich_terminals,
	    .nterminals = ARRAY_LEN(rich_terminals),
	    .etc_links = rich_etc_links,
	    .netc_links = ARRAY_LEN(rich_etc_links),
	    .grants = the_grants,
	    .ngrants = ARRAY_LEN(the_grants),
	    .jailbreaks = rich_jailbreaks,
	    .njailbreaks = ARRAY_LEN(rich_jailbreaks),
	    .shell_dirs = rich_shell_dirs,
	    .nshell_dirs = ARRAY_LEN(rich_shell_dirs),
	    .wrapper = "/opt/moat/bin/moat-wrapper",
	};
}

/* One model, two renderings. landlock.c turns p->rules into one Landlock
 * rule per entry, at the level its access bits name; this checks the other
 * side: reading the SBPL back gives exactly p->rules, each path at exactly
 * its access level (no rule dropped, added, widened or narrowed; devices and
 * terminals as literals, the rest as subpaths) and exactly p->jailbreaks as
 * no-sandbox execs. It is run on a profile built with the Linux defaults (the
 * very rules Landlock is given) and with the macOS ones. What it cannot show
 * is that Seatbelt enforces these operations as documented: that needs a Mac.
 * The reader is strict (test_reader_is_strict), so an operation the renderer
 * should not have written fails here rather than being ignored. */
static void test_rendering_matches_model(enum platform platform)
{
	const char *name = platform == PLATFORM_MACOS ? "macos" : "linux";
	struct profile_input in = rich_input(platform);
	struct profile p;
	if (!build(&in, &p))
		return;
	struct sbpl_grant *g;
	size_t n;
	if (!read_back(&p, &g, &n)) {
		profile_free(&p);
		return;
	}

	size_t expected = 0;
	bool all_match = true;
	for (size_t i = 0; i < p.nrules; i++) {
		const struct rule *r = &p.rules[i];
		if (!r->access)
			continue;
		expected++;
		const struct sbpl_grant *got = find_grant(g, n, r->path, false);
		bool literal = r->origin == ORIGIN_DEVICE || r->origin == ORIGIN_TERMINAL;
		if (!got || got->access != r->access || got->literal != literal) {
			all_match = false;
			printf("#   %s: model %s%s, sbpl %s%s\n", r->path, access_name(r->access),
			       r->access & ACCESS_IOCTL ? " + ioctl" : "",
			       got ? access_name(got->access) : "(missing)",
			       got && (got->access & ACCESS_IOCTL) ? " + ioctl" : "");
		}
	}
	size_t jailbreaks = 0;
	for (size_t i = 0; i < n; i++)
		jailbreaks += g[i].no_sandbox;
	CHECK(all_match, "%s profile: every rule is rendered at its access level", name);
	CHECK(n - jailbreaks == expected, "%s profile: nothing but the rules is granted (%zu, %zu)",
	      name, n - jailbreaks, expected);
	bool jb_match = jailbreaks == p.njailbreaks;
	for (size_t i = 0; i < p.njailbreaks; i++) {
		const struct sbpl_grant *got = find_grant(g, n, p.jailbreaks[i], true);
		jb_match = jb_match && got && got->access == ACCESS_EXEC && got->literal;
	}
	CHECK(jb_match, "%s profile: exactly the jailbreaks run unsandboxed", name);
	CHECK(find_grant(g, n, ROOT, false) != NULL,
	      "%s profile: the root comes from its parameter", name);

	sbpl_grants_free(g, n);
	profile_free(&p);
}

/* The same input built for each platform: the paths the user and the
 * context brought (root, grants, terminal, /etc links, shells, jailbreaks)
 * are granted the same way; only the system defaults differ. */
static void test_same_input_same_grants(void)
{
	struct profile_input lin = rich_input(PLATFORM_LINUX), mac = rich_input(PLATFORM_MACOS);
	struct profile pl, pm;
	if (!build(&lin, &pl))
		return;
	if (!build(&mac, &pm)) {
		profile_free(&pl);
		return;
	}
	struct sbpl_grant *gl = NULL, *gm = NULL;
	size_t nl = 0, nm = 0;
	if (read_back(&pl, &gl, &nl) && read_back(&pm, &gm, &nm)) {
		bool same = true;
		for (size_t i = 0; i < pm.nrules; i++) {
			const struct rule *r = &pm.rules[i];
			if (r->origin == ORIGIN_SYSTEM || r->origin == ORIGIN_DEVICE)
				continue;
			const struct sbpl_grant *a = find_grant(gm, nm, r->path, false);
			const struct sbpl_grant *b = find_grant(gl, nl, r->path, false);
			if (!a || !b || a->access != b->access || a->literal != b->literal) {
				same = false;
				printf("#   %s differs\n", r->path);
			}
		}
		for (size_t i = 0; i < pm.njailbreaks; i++)
			same = same && find_grant(gl, nl, pm.jailbreaks[i], true);
		CHECK(same, "one input: the same non-default grants on Linux and macOS");
	}
	sbpl_grants_free(gl, nl);
	sbpl_grants_free(gm, nm);
	profile_free(&pl);
	profile_free(&pm);
}

static void test_reader_is_strict(void)
{
	static const struct {
		const char *sbpl, *why;
	} cases[] = {
	    {"(allow file-read* (regex #\"^/x\"))", "a regex"},
	    {"(allow process-exec (subpath \"/x\"))", "process-exec without file-map-executable"},
	    {"(allow file-read* file-map-executable (subpath \"/x\"))", "half of exec"},
	    {"(deny file-read* (subpath \"/x\"))", "a deny with a path"},
	    {"(allow network* (subpath \"/x\"))", "a non-file operation on a path"},
	    {"(allow file-read* (subpath (param \"NOPE\")))", "an unknown parameter"},
	    {"(allow file* (literal \"/dev/null\"))", "file* on a literal"},
	    {"(allow file-write-data (subpath \"/x\"))", "file-write-data on a subpath"},
	    {"(allow file-read* (subpath \"/a\\\"b\"))", "an escape in a string"},
	    {"(allow file-read* (subpath \"/x\")", "an unclosed form"},
	    {"(allow file* (with no-sandbox) (subpath \"/x\"))", "no-sandbox on file*"},
	};
	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		struct sbpl_grant *g;
		size_t n;
		struct error err = {0};
		CHECK(sbpl_grants(cases[i].sbpl, NULL, 0, &g, &n, &err) == -1 && n == 0 && !g,
		      "reader refuses %s", cases[i].why);
	}
}

static void test_deterministic(void)
{
	struct profile_input in = rich_input(PLATFORM_MACOS);
	struct profile p;
	if (!build(&in, &p))
		return;
	cleanup_free char *a = render(&p);
	cleanup_free char *b = render(&p);
	CHECK_STR(a, b, "the same profile renders to the same bytes");
	profile_free(&p);
}

/* A binary name from config.zon lands in a comment; a newline in it must
 * not end the comment and smuggle in a rule. */
static void test_comment_injection(void)
{
	static const struct grant evil[] = {
	    {.bin = "x\n(allow default)\n(allow file* (subpath \"/\"))",
	     .path = HOME "/.x",
	     .access = ACCESS_READ},
	};
	struct profile_input in = {.platform = PLATFORM_MACOS,
	                           .root = ROOT,
	                           .home = HOME,
	                           .grants = evil,
	                           .ngrants = ARRAY_LEN(evil)};
	struct profile p;
	if (!build(&in, &p))
		return;
	cleanup_free char *text = render(&p);
	CHECK(strstr(text, "\n(allow default)") == NULL,
	      "a newline in a binary name stays in its comment");
	struct sbpl_grant *g;
	size_t n;
	if (read_back(&p, &g, &n)) {
		CHECK(find_grant(g, n, "/", false) == NULL, "the name granted nothing");
		sbpl_grants_free(g, n);
	}
	profile_free(&p);
}

static void test_params(void)
{
	struct profile_input in = {.platform = PLATFORM_MACOS, .root = ROOT, .home = HOME};
	struct profile p;
	if (!build(&in, &p))
		return;
	struct sbpl_param params[SBPL_MAX_PARAMS];
	CHECK(sbpl_params(&p, params) == 1, "one parameter");
	CHECK_STR(params[0].name, "MOAT_ROOT", "its name");
	CHECK_STR(params[0].value, ROOT, "its value is the root");
	cleanup_free char *text = render(&p);
	CHECK(strstr(text, "(subpath (param \"MOAT_ROOT\"))") != NULL, "the rules use it");
	profile_free(&p);

	struct profile none = {0};
	struct strbuf sb = STRBUF_INIT;
	struct error err = {0};
	CHECK(sbpl_render(&none, &sb, &err) == -1 && sb.len == 0,
	      "a profile without a root is refused");
}

static void test_compile_error_lines(void)
{
	static const struct {
		const char *msg;
		unsigned line;
	} cases[] = {
	    {"unbound variable: setenv at <input string>, line 5", 5},
	    {"<input string>:12:3: unbound variable: allw", 12},
	    {"invalid data type of path filter; expected pattern, got boolean", 0},
	    {"at <input string>, line x", 0},
	    {"", 0},
	};
	for (size_t i = 0; i < ARRAY_LEN(cases); i++)
		CHECK(sbpl_error_line(cases[i].msg) == cases[i].line, "error line of '%s' is %u",
		      cases[i].msg, cases[i].line);

	const char *text = "(version 1)\n(deny default)\n(allow x)\n";
	char *s;
	CHECK_STR(s = sbpl_line(text, 1), "(version 1)", "line 1"), free(s);
	CHECK_STR(s = sbpl_line(text, 3), "(allow x)", "line 3"), free(s);
	CHECK(sbpl_line(text, 4) == NULL, "no line 4");
	CHECK(sbpl_line(text, 0) == NULL, "no line 0");
	CHECK_STR(s = sbpl_line("a\nb", 2), "b", "last line without a newline"), free(s);
}

int main(void)
{
	test_goldens();
	test_refusals();
	test_rendering_matches_model(PLATFORM_LINUX);
	test_rendering_matches_model(PLATFORM_MACOS);
	test_same_input_same_grants();
	test_reader_is_strict();
	test_deterministic();
	test_comment_injection();
	test_params();
	test_compile_error_lines();
	return tap_done();
}
