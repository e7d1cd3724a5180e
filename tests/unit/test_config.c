/* The config.zon schema and the lookups moat makes in it: the seed's
 * example, every kind of schema error with its exact file:line:col message,
 * grants (bins, "*", dirs, "~"), shell detection, confirm and jailbreak. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fs.h"
#include "config/config.h"
#include "context/settings.h"
#include "tap.h"

#define HOME "/home/you"

static int parse(const char *text, struct config *cfg, struct error *err)
{
	return config_parse(text, strlen(text), "config.zon", cfg, err);
}

static void test_seed_example(void)
{
	char *buf;
	size_t len;
	struct error err = {0};
	struct config cfg;
	if (!CHECK(fs_read_file("tests/unit/golden/config/seed.zon", 1 << 20, &buf, &len, &err) ==
	               0,
	           "read the seed's example"))
		return;
	CHECK(config_parse(buf, len, "seed.zon", &cfg, &err) == 0, "the seed's example is valid");
	CHECK(cfg.njailbreak == 1 && !strcmp(cfg.jailbreak[0], "git"), "jailbreak");
	CHECK(cfg.ndefault == 2 && !strcmp(cfg.default_shells[1], "jq"), "default");
	CHECK(cfg.default_pos && cfg.default_pos[1].line == 3 && cfg.default_pos[1].col == 27 &&
	          cfg.jailbreak_pos && cfg.jailbreak_pos[0].line == 2 &&
	          cfg.jailbreak_pos[0].col == 21,
	      "default and jailbreak entries, with positions (%d:%d, %d:%d)",
	      cfg.default_pos ? cfg.default_pos[1].line : 0,
	      cfg.default_pos ? cfg.default_pos[1].col : 0,
	      cfg.jailbreak_pos ? cfg.jailbreak_pos[0].line : 0,
	      cfg.jailbreak_pos ? cfg.jailbreak_pos[0].col : 0);
	CHECK(cfg.nconfirm == 1 && !strcmp(cfg.confirm[0], "npm"), "confirm");
	CHECK(cfg.nlinks == 2 && !strcmp(cfg.links[1].dir, "/Users/you/git/project-b") &&
	          cfg.links[1].nshells == 2 && !strcmp(cfg.links[1].shells[1], "go") &&
	          cfg.links[1].line == 7 && cfg.links[1].col == 9,
	      "links, with positions");
	CHECK(cfg.ndetect == 3 && !strcmp(cfg.detect[2].markers[0], "build.zig.zon") &&
	          !strcmp(cfg.detect[2].shells[0], "zig"),
	      "detect");
	CHECK(cfg.nallow == 0 && cfg.nsockets == 0, "no allow, no sockets");
	config_free(&cfg);
	free(buf);
}

static void test_allow_rules(void)
{
	const char *text =
	    ".{\n"
	    "    .allow = .{\n"
	    "        .{ .bin = \"git\", .paths = .{ \"~/.gitconfig\" } },\n"
	    "        .{ .bin = \"cargo\", .paths = .{ \"~/.cargo\" }, .write = true },\n"
	    "        .{ .bin = \"cargo\", .paths = .{ \"~/w\" }, .write = true, .exec = "
	    "true, .dirs = .{ \"~/work\", \"/srv/x\" } },\n"
	    "        .{ .bin = \"*\", .paths = .{ \"~/.config/nvim\", \"/opt/x\" }, .dirs = "
	    ".{} },\n"
	    "    },\n"
	    "    .sockets = .{ \"/run/user/1000/bus\" },\n"
	    "}\n";
	struct config cfg;
	struct error err = {0};
	if (!CHECK(parse(text, &cfg, &err) == 0, "allow rules parse"))
		return printf("# %s\n", err.msg), (void)0;
	CHECK(cfg.nallow == 4 && cfg.allow[2].write && cfg.allow[2].exec &&
	          cfg.allow[2].ndirs == 2 && !cfg.allow[0].write && !cfg.allow[0].exec &&
	          cfg.allow[2].line == 5 && cfg.allow[2].col == 9,
	      "fields and defaults");
	CHECK(cfg.nsockets == 1 && !strcmp(cfg.sockets[0], "/run/user/1000/bus"), "sockets");
	CHECK(cfg.root == CONFIG_ROOT_GIT && !cfg.no_trace_hint,
	      "defaults: the git work tree's top, the trace hint on");
	config_free(&cfg);
	if (CHECK(parse(".{ .root = \"here\", .trace_hint = false }", &cfg, &err) == 0,
	          ".root and .trace_hint parse"))
		CHECK(cfg.root == CONFIG_ROOT_HERE && cfg.no_trace_hint, "and are read");
	config_free(&cfg);
	CHECK(parse(".{ .root = \"git\", .trace_hint = true }", &cfg, &err) == 0 &&
	          cfg.root == CONFIG_ROOT_GIT && !cfg.no_trace_hint,
	      ".root = \"git\", .trace_hint = true");
	config_free(&cfg);
	CHECK(parse(text, &cfg, &err) == 0, "allow rules parse again");

	static const struct {
		const char *bin, *root;
		const char *want; /* path:flags;... */
	} cases[] = {
	    {"git", "/home/you/src/p", "/home/you/.gitconfig:r;/home/you/.config/nvim:r;/opt/x:r;"},
	    {"cargo", "/home/you/src/p", "/home/you/.cargo:w;/home/you/.config/nvim:r;/opt/x:r;"},
	    /* a dirs rule applies in one of its dirs, or beneath one */
	    {"cargo", "/home/you/work",
	     "/home/you/.cargo:w;/home/you/w:wx;/home/you/.config/nvim:r;/opt/x:r;"},
	    {"cargo", "/home/you/work/deep/er",
	     "/home/you/.cargo:w;/home/you/w:wx;/home/you/.config/nvim:r;/opt/x:r;"},
	    {"cargo", "/srv/x/",
	     "/home/you/.cargo:w;/home/you/w:wx;/home/you/.config/nvim:r;/opt/x:r;"},
	    {"cargo", "/home/you/workshop",
	     "/home/you/.cargo:w;/home/you/.config/nvim:r;/opt/x:r;"},
	    {"cargo", NULL, "/home/you/.cargo:w;/home/you/.config/nvim:r;/opt/x:r;"},
	    {"zig", "/p", "/home/you/.config/nvim:r;/opt/x:r;"},
	    /* a session (no binary) unions every rule in force */
	    {NULL, "/home/you/src/p",
	     "/home/you/.gitconfig:r;/home/you/.cargo:w;/home/you/.config/nvim:r;/opt/x:r;"},
	    {NULL, "/home/you/work/a",
	     "/home/you/.gitconfig:r;/home/you/.cargo:w;/home/you/w:wx;"
	     "/home/you/.config/nvim:r;/opt/x:r;"},
	};
	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		struct config_grant *g;
		size_t n = config_grants(&cfg, cases[i].bin, cases[i].root, HOME, &g);
		struct strbuf sb = STRBUF_INIT;
		for (size_t j = 0; j < n; j++)
			sb_addf(&sb, "%s:%s%s;", g[j].path, g[j].write ? "w" : "",
			        g[j].exec ? "x" : (g[j].write ? "" : "r"));
		char *name =
		    xasprintf("grants for %s in %s", cases[i].bin ? cases[i].bin : "a session",
		              cases[i].root ? cases[i].root : "no root");
		CHECK_STR(sb_str(&sb), cases[i].want, name);
		free(name);
		sb_release(&sb);
		config_grants_free(g, n);
	}
	struct config_grant *g;
	size_t n = config_grants(&cfg, "git", "/p", NULL, &g);
	CHECK(n == 3 && !strcmp(g[0].path, "~/.gitconfig") && g[0].rule == &cfg.allow[0] &&
	          !strcmp(g[0].bin, "git"),
	      "without a home, paths stay as written");
	config_grants_free(g, n);
	config_free(&cfg);
}

static bool fake_exists(const char *dir, const char *marker, void *ctx)
{
	(void)ctx;
	static const char *const present[] = {"/p/rust/Cargo.toml", "/p/both/Cargo.toml",
	                                      "/p/both/go.mod", "/p/both/flake.nix",
	                                      "/p/linked/Cargo.toml"};
	char *path = xasprintf("%s/%s", dir, marker);
	bool found = false;
	for (size_t i = 0; i < ARRAY_LEN(present) && !found; i++)
		found = !strcmp(present[i], path);
	free(path);
	return found;
}

static void test_detect(void)
{
	const char *text =
	    ".{\n"
	    "    .default = .{ \"just\", \"jq\" },\n"
	    "    .links = .{\n"
	    "        .{ .dir = \"/p/linked\", .shells = .{ \"zig\" } },\n"
	    "        .{ .dir = \"~/p\", .shells = .{ \"home\" } },\n"
	    "        .{ .dir = \"/p/none\", .shells = .{} },\n"
	    "    },\n"
	    "    .detect = .{\n"
	    "        .{ .markers = .{ \"Cargo.toml\" }, .shells = .{ \"rust\" } },\n"
	    "        .{ .markers = .{ \"go.mod\" }, .shells = .{ \"go\" } },\n"
	    "        .{ .markers = .{ \"go.mod\", \"flake.nix\" }, .shells = .{ \"nix\", "
	    "\"rust\" } },\n"
	    "    },\n"
	    "}\n";
	struct config cfg;
	struct error err = {0};
	if (!CHECK(parse(text, &cfg, &err) == 0, "detect config parses"))
		return;
	static const struct {
		const char *dir;
		enum config_shells_from from;
		const char *want;
	} cases[] = {
	    {"/p/rust", CONFIG_SHELLS_DETECT, "rust "},
	    /* every matching rule stacks, each shell once, in file order */
	    {"/p/both", CONFIG_SHELLS_DETECT, "rust go nix "},
	    {"/p/empty", CONFIG_SHELLS_NONE, ""},
	    /* a link wins over detection, and matches the same path spelled otherwise */
	    {"/p/linked", CONFIG_SHELLS_LINK, "zig "},
	    {"/p/linked/", CONFIG_SHELLS_LINK, "zig "},
	    {"/home/you/p", CONFIG_SHELLS_LINK, "home "},
	    {"/p/none", CONFIG_SHELLS_LINK, ""},
	};
	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		const char **shells;
		size_t n;
		enum config_shells_from from =
		    config_detect_shells(&cfg, cases[i].dir, HOME, fake_exists, NULL, &shells, &n);
		struct strbuf sb = STRBUF_INIT;
		for (size_t j = 0; j < n; j++)
			sb_addf(&sb, "%s ", shells[j]);
		CHECK(from == cases[i].from, "shells for %s come from %d", cases[i].dir,
		      cases[i].from);
		CHECK_STR(sb_str(&sb), cases[i].want, cases[i].dir);
		sb_release(&sb);
		free(shells);
	}
	config_free(&cfg);
}

static void test_lookups(void)
{
	struct config cfg;
	struct error err = {0};
	CHECK(parse(".{ .confirm = .{ \"npm\" }, .jailbreak = .{ \"git\" } }", &cfg, &err) == 0,
	      "lookups config parses");
	CHECK(config_confirms(&cfg, "npm") && !config_confirms(&cfg, "cargo"), "confirm by name");
	CHECK(config_jailbreaks(&cfg, "git") && !config_jailbreaks(&cfg, "npm"),
	      "jailbreak by name");
	config_free(&cfg);
	CHECK(parse(".{ .confirm = .{ \"*\" } }", &cfg, &err) == 0, "confirm star parses");
	CHECK(config_confirms(&cfg, "anything"), "\"*\" confirms every binary");
	config_free(&cfg);

	CHECK(config_same_path("~/x", "/home/you/x/", HOME), "~/x is /home/you/x/");
	CHECK(config_same_path("~", "/home/you", HOME), "~ is home");
	CHECK(!config_same_path("~/x", "/home/you/x", NULL), "no home, no expansion");
	CHECK(!config_same_path("/a/b", "/a/bc", HOME), "different paths differ");
	CHECK(config_same_path("//a/./b", "/a/b", HOME), "normalized before comparing");

	static const char *const empties[] = {"", "   \n", "// nothing yet\n", ".{}"};
	for (size_t i = 0; i < ARRAY_LEN(empties); i++) {
		CHECK(parse(empties[i], &cfg, &err) == 0 && cfg.nallow == 0 && cfg.nlinks == 0,
		      "empty config %zu", i);
		config_free(&cfg);
	}
}

static void test_errors(void)
{
	static const struct {
		const char *in, *msg, *hint;
	} cases[] = {
	    {".{\n    .jailbreak = .{ \"git\" },\n    .jailbrek = .{},\n}",
	     "config.zon:3:5: unknown key '.jailbrek' in the top-level struct",
	     "the keys the top-level struct can have are .jailbreak, .default, .confirm, .links, "
	     ".detect, .allow, .sockets, .root, .trace_hint, .protect, .unprotected, .env, "
	     ".secrets, .not_secrets, .net"},
	    {".{ .@\"odd key\" = 1 }",
	     "config.zon:1:4: unknown key '.@\"odd key\"' in the top-level struct", NULL},
	    {".{ .default = .{}, .default = .{} }",
	     "config.zon:1:20: duplicate key '.default' in the top-level struct (first at 1:4)",
	     NULL},
	    {".{ \"git\" }",
	     "config.zon:1:1: the file must hold one struct '.{ ... }', found a list", NULL},
	    {"\"x\"", "config.zon:1:1: the file must hold one struct '.{ ... }', found a string",
	     NULL},
	    {".{ .jailbreak = \"git\" }",
	     "config.zon:1:17: '.jailbreak' must be a list of strings like .{ \"a\", \"b\" }, "
	     "found a "
	     "string",
	     NULL},
	    {".{ .default = .{ \"jq\", 1 } }",
	     "config.zon:1:24: expected a string in '.default', found an integer", NULL},
	    {".{ .confirm = .{ \"\" } }", "config.zon:1:18: empty string in '.confirm'", NULL},
	    {".{ .sockets = .{ \"a\\x00b\" } }",
	     "config.zon:1:18: string in '.sockets' contains a NUL byte", NULL},
	    {".{ .sockets = .{ .a = 1 } }",
	     "config.zon:1:15: '.sockets' must be a list of strings like .{ \"a\", \"b\" }, found "
	     "a "
	     "struct",
	     NULL},
	    {".{ .allow = .{ \"git\" } }",
	     "config.zon:1:16: expected .{ .bin = \"...\", .paths = .{ ... } } in '.allow', found "
	     "a "
	     "string",
	     NULL},
	    {".{ .allow = .{ .{} } }",
	     "config.zon:1:16: expected .{ .bin = \"...\", .paths = .{ ... } } in '.allow', found "
	     "an "
	     "empty '.{}'",
	     NULL},
	    {".{ .allow = .{ .bin = \"git\" } }",
	     "config.zon:1:13: '.allow' must be a list like .{ .{ .bin = \"...\", .paths = .{ ... "
	     "} }, "
	     "... }, found a struct",
	     NULL},
	    {".{\n  .allow = .{\n    .{ .bin = \"git\", .pathz = .{} },\n  },\n}",
	     "config.zon:3:22: unknown key '.pathz' in an allow rule",
	     "the keys an allow rule can have are .bin, .paths, .write, .exec, .dirs"},
	    {".{ .allow = .{ .{ .paths = .{} } } }", "config.zon:1:16: allow rule without '.bin'",
	     NULL},
	    {".{ .allow = .{ .{ .bin = \"git\" } } }",
	     "config.zon:1:16: allow rule without '.paths'", NULL},
	    {".{ .allow = .{ .{ .bin = .git, .paths = .{} } } }",
	     "config.zon:1:26: '.bin' must be a string, found an enum literal", NULL},
	    {".{ .allow = .{ .{ .bin = \"\", .paths = .{} } } }",
	     "config.zon:1:26: '.bin' is an empty string", NULL},
	    {".{ .allow = .{ .{ .bin = \"a\", .paths = \"~/x\" } } }",
	     "config.zon:1:40: '.paths' must be a list of strings like .{ \"a\", \"b\" }, found a "
	     "string",
	     NULL},
	    {".{ .allow = .{ .{ .bin = \"a\", .paths = .{}, .write = \"yes\" } } }",
	     "config.zon:1:54: '.write' must be true or false, found a string", NULL},
	    {".{ .allow = .{ .{ .bin = \"a\", .paths = .{}, .exec = 1 } } }",
	     "config.zon:1:53: '.exec' must be true or false, found an integer", NULL},
	    {".{ .allow = .{ .{ .bin = \"a\", .paths = .{}, .write = true, .write = false } } }",
	     "config.zon:1:60: duplicate key '.write' in an allow rule (first at 1:45)", NULL},
	    {".{ .allow = .{ .{ .bin = \"a\", .paths = .{}, .dirs = .{ null } } } }",
	     "config.zon:1:56: expected a string in '.dirs', found 'null'", NULL},
	    /* a relative .dirs entry would match no root: the rule would never apply */
	    {".{ .allow = .{ .{ .bin = \"a\", .paths = .{}, .dirs = .{ \"/w\", \"work\" } } } }",
	     "config.zon:1:62: '.dirs' entry 'work' is not an absolute path",
	     "write it as /path/to/projects or ~/path/to/projects"},
	    {".{ .allow = .{ .{ .bin = \"a\", .paths = .{}, .dirs = .{ \"~work\" } } } }",
	     "config.zon:1:56: '.dirs' entry '~work' is not an absolute path", NULL},
	    {".{ .allow = .{ .{ .bin = \"a\", .paths = .{}, .write = yes } } }",
	     "config.zon:1:54: expected a value, found 'yes' (did you mean true?)", NULL},
	    {".{ .root = \"top\" }", "config.zon:1:12: '.root' is \"top\", not \"git\" or \"here\"",
	     "\"git\" (the default): the top of the git work tree around the current directory; "
	     "\"here\": the current directory"},
	    {".{ .root = here }",
	     "config.zon:1:12: expected a value, found 'here' (strings need double quotes: "
	     "\"here\")",
	     NULL},
	    {".{ .trace_hint = \"no\" }",
	     "config.zon:1:18: '.trace_hint' must be true or false, found a string", NULL},
	    /* .protect stays inside the root; .unprotected names roots */
	    {".{ .protect = .{ \"../x\" } }",
	     "config.zon:1:18: '.protect' entry '../x' is not a path inside the project root",
	     "write it relative to the root, as \".envrc\" or \".vscode/tasks.json\""},
	    {".{ .protect = .{ \"/etc/x\" } }",
	     "config.zon:1:18: '.protect' entry '/etc/x' is not a path inside the project root",
	     NULL},
	    {".{ .protect = .{ \"a/../../b\" } }",
	     "config.zon:1:18: '.protect' entry 'a/../../b' is not a path inside the project root",
	     NULL},
	    {".{ .protect = .{ \"\" } }", "config.zon:1:18: empty string in '.protect'", NULL},
	    {".{ .unprotected = .{ \"work\" } }",
	     "config.zon:1:22: '.unprotected' entry 'work' is not an absolute path", NULL},
	    {".{ .links = .{ .{ .shells = .{} } } }", "config.zon:1:16: link without '.dir'", NULL},
	    {".{ .links = .{ .{ .dir = \"/p\" } } }", "config.zon:1:16: link without '.shells'",
	     NULL},
	    {".{ .links = .{ .{ .dir = \"/p\", .shell = .{} } } }",
	     "config.zon:1:32: unknown key '.shell' in a link",
	     "the keys a link can have are .dir, .shells"},
	    {".{ .detect = .{ .{ .markers = .{}, .shells = .{} } } }",
	     "config.zon:1:31: '.markers' is empty; a detect rule needs at least one marker", NULL},
	    {".{ .detect = .{ .{ .shells = .{} } } }",
	     "config.zon:1:17: detect rule without '.markers'", NULL},
	    {".{ .detect = .{ .{ .markers = .{ \"go.mod\" }, .shells = .{ true } } } }",
	     "config.zon:1:59: expected a string in '.shells', found 'true'", NULL},
	    /* parse errors come through in the same format */
	    {".{\n  .default = .{ \"jq\" }\n  .confirm = .{},\n}",
	     "config.zon:3:3: expected ',' or '}' after an item, found '.'", NULL},
	    {".{ .default = .{ \"j\\q\" } }", "config.zon:1:20: invalid escape sequence '\\q'",
	     NULL},
	};
	/* A value longer than the message: the reason after it survives. */
	struct strbuf longdir = STRBUF_INIT;
	sb_addf(&longdir,
	        ".{ .allow = .{ .{ .bin = \"a\", .paths = .{}, .dirs = .{ \"%3000s\" } } } }",
	        "work");
	struct config lcfg;
	struct error lerr = {0};
	const char *reason = "' is not an absolute path";
	size_t llen = strlen(parse(longdir.buf, &lcfg, &lerr) < 0 ? lerr.msg : "");
	CHECK(llen > strlen(reason) && strcmp(lerr.msg + llen - strlen(reason), reason) == 0,
	      "a 3,000-byte relative .dirs entry: the reason survives the cut (%s)",
	      llen > 40 ? lerr.msg + llen - 40 : lerr.msg);
	config_free(&lcfg);
	sb_release(&longdir);
	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		struct config cfg;
		struct error err = {0};
		int rc = parse(cases[i].in, &cfg, &err);
		CHECK(rc == -1 && cfg.nallow == 0 && cfg.allow == NULL && cfg.ndefault == 0,
		      "error case %zu fails and leaves an empty config", i);
		CHECK_STR(err.msg, cases[i].msg, "message");
		if (cases[i].hint)
			CHECK_STR(err.hint, cases[i].hint, "hint");
		config_free(&cfg);
	}
}

static void test_protect(void)
{
	struct config cfg;
	struct error err = {0};
	const char *in = ".{ .protect = .{ \".envrc\", \".vscode/tasks.json\", \"a..b\" },\n"
	                 "   .unprotected = .{ \"~/scratch\", \"/srv/x\" } }";
	if (!CHECK(parse(in, &cfg, &err) == 0, "protect and unprotected parse"))
		return;
	CHECK(cfg.nprotect == 3 && strcmp(cfg.protect[1], ".vscode/tasks.json") == 0,
	      ".protect keeps its paths");
	CHECK(!config_protects(&cfg, "/home/u/scratch", "/home/u"), "~/scratch is unprotected");
	CHECK(!config_protects(&cfg, "/home/u/scratch/sub", "/home/u"),
	      "and so is a root below it");
	CHECK(config_protects(&cfg, "/home/u/scratchy", "/home/u"), "a sibling prefix is not");
	CHECK(!config_protects(&cfg, "/srv/x", "/home/u"), "an absolute entry matches");
	CHECK(config_protects(&cfg, "/home/u/proj", "/home/u"), "other roots are protected");
	config_free(&cfg);
	struct config empty = {0};
	CHECK(config_protects(&empty, "/home/u/proj", "/home/u"), "protected by default");
}

static void test_load(void)
{
	char dir[] = "/tmp/moat-test-config.XXXXXX";
	if (!CHECK(mkdtemp(dir) != NULL, "temporary directory"))
		return;
	char *path = xasprintf("%s/config.zon", dir);
	struct config cfg;
	struct error err = {0};
	char *buf = NULL;
	size_t len = 99;
	CHECK(settings_read(path, &cfg, &buf, &len, &err) == 0 && buf && len == 0 &&
	          cfg.nallow == 0,
	      "a missing file is an empty config with an empty buffer");
	free(buf);
	config_free(&cfg);

	const char *text = ".{ .default = .{ \"jq\" } }\n";
	CHECK(fs_write_atomic(path, text, strlen(text), 0600, &err) == 0, "write a config");
	CHECK(settings_read(path, &cfg, &buf, &len, &err) == 0 && len == strlen(text) &&
	          !strcmp(buf, text) && cfg.ndefault == 1,
	      "the file is parsed and its bytes handed back");
	free(buf);
	config_free(&cfg);
	CHECK(settings_read(path, &cfg, NULL, NULL, &err) == 0 && cfg.ndefault == 1,
	      "the bytes are optional");
	config_free(&cfg);

	text = ".{ .defualt = .{} }";
	fs_write_atomic(path, text, strlen(text), 0600, &err);
	char *want = xasprintf("%s:1:4: unknown key '.defualt' in the top-level struct", path);
	CHECK(settings_read(path, &cfg, NULL, NULL, &err) == -1, "an invalid file fails to load");
	CHECK_STR(err.msg, want, "with the path in the message");
	free(want);

	size_t big = 3 * ZON_MAX_SIZE;
	char *huge = xmalloc(big);
	memset(huge, ' ', big);
	fs_write_atomic(path, huge, big, 0600, &err);
	free(huge);
	want = xasprintf("%s:1:1: file is larger than 1048576 bytes", path);
	CHECK(settings_read(path, &cfg, NULL, NULL, &err) == -1, "a huge file fails to load");
	CHECK_STR(err.msg, want, "with the usual position format");
	free(want);

	char *sub = xasprintf("%s/sub", dir);
	mkdir(sub, 0700);
	CHECK(settings_read(sub, &cfg, NULL, NULL, &err) == -1, "a directory is not a config");
	rmdir(sub);
	free(sub);
	unlink(path);
	rmdir(dir);
	free(path);
}

int main(void)
{
	test_seed_example();
	test_allow_rules();
	test_detect();
	test_lookups();
	test_errors();
	test_protect();
	test_load();
	return tap_done();
}
