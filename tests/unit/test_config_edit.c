/* Byte-preserving edits of config.zon. Golden cases edit files under
 * tests/unit/golden/config/ and compare the result byte for byte
 * (MOAT_UPDATE_GOLDEN=1 rewrites the expected files; review the diff).
 * Every edit is also applied a second time, which must change nothing. */
#include <stdlib.h>
#include <string.h>

#include "base/fs.h"
#include "config/config.h"
#include "tap.h"

#define HOME   "/home/you"
#define GOLDEN "tests/unit/golden/config/"

enum op { ALLOW, UNALLOW, LINK, UNLINK };

struct edit_case {
	const char *input; /* golden file name, or the text itself for inline cases */
	enum op op;
	const char *arg;   /* bin for allow/unallow, dir for link/unlink */
	const char *path;  /* allow/unallow: the path; link: shells, space-separated */
	const char *flags; /* allow: "", "w", "x" or "wx" */
	int rc;
	const char *want; /* golden file name or text; NULL: the input unchanged */
};

static int run(const char *buf, size_t len, const struct edit_case *c, struct strbuf *out,
               struct error *err)
{
	switch (c->op) {
	case ALLOW:
		return config_edit_allow(buf, len, "config.zon", HOME, c->arg, c->path,
		                         strchr(c->flags, 'w') != NULL,
		                         strchr(c->flags, 'x') != NULL, out, err);
	case UNALLOW:
		return config_edit_unallow(buf, len, "config.zon", HOME, c->arg, c->path, out, err);
	case LINK: {
		const char *shells[8];
		size_t n = 0;
		char *copy = xstrdup(c->path), *save = NULL;
		for (char *t = strtok_r(copy, " ", &save); t && n < 8;
		     t = strtok_r(NULL, " ", &save))
			shells[n++] = t;
		int rc =
		    config_edit_link(buf, len, "config.zon", HOME, c->arg, shells, n, out, err);
		free(copy);
		return rc;
	}
	case UNLINK: return config_edit_unlink(buf, len, "config.zon", HOME, c->arg, out, err);
	}
	return -1;
}

static const char *op_name(enum op op)
{
	static const char *const names[] = {"allow", "unallow", "link", "unlink"};
	return names[op];
}

/* Run c on input, compare with want, and check that doing it again is a no-op. */
static void check_case(const struct edit_case *c, const char *input, size_t len, const char *want,
                       const char *label)
{
	struct strbuf out = STRBUF_INIT, again = STRBUF_INIT;
	struct error err = {0};
	int rc = run(input, len, c, &out, &err);
	if (!CHECK(rc == c->rc, "%s: %s %s %s returns %d", label, op_name(c->op), c->arg,
	           c->path ? c->path : "", c->rc))
		printf("#   got %d (%s)\n", rc, rc < 0 ? err.msg : "");
	if (rc >= 0) {
		CHECK_STR(out.buf, want, label);
		CHECK(run(out.buf, out.len, c, &again, &err) == 0 && again.len == out.len &&
		          memcmp(again.buf, out.buf, out.len) == 0,
		      "%s: doing it again changes nothing", label);
	}
	sb_release(&out);
	sb_release(&again);
}

static char *read_golden(const char *name, size_t *len)
{
	char *path = xasprintf(GOLDEN "%s", name), *data = NULL;
	struct error err;
	if (fs_read_file(path, 1 << 20, &data, len, &err) < 0) {
		printf("# %s\n", err.msg);
		data = xstrdup("");
		*len = 0;
	}
	free(path);
	return data;
}

static void test_golden(void)
{
	static const struct edit_case cases[] = {
	    /* widening in place keeps the rule's odd formatting */
	    {"odd.zon", ALLOW, "cargo", "~/.cargo", "w", 1, "odd.allow-cargo-write.zon"},
	    /* same level again, spelled with the home directory: nothing to do */
	    {"odd.zon", ALLOW, "cargo", HOME "/.cargo", "", 0, NULL},
	    {"odd.zon", ALLOW, "git", "~/.gitconfig/", "", 0, NULL},
	    /* rules scoped by dirs are left alone: a new rule instead */
	    {"odd.zon", ALLOW, "cargo", "~/work-cargo", "w", 1, "odd.allow-work-cargo.zon"},
	    /* a rule holding other paths gives the path up rather than widen them */
	    {"odd.zon", ALLOW, "zig", "~/.cache/zig", "x", 1, "odd.allow-zig-exec.zon"},
	    {"odd.zon", ALLOW, "npm", "~/.npmrc", "", 1, "odd.allow-npm.zon"},
	    {"odd.zon", ALLOW, "*", "~/.config/nvim", "wx", 1, "odd.allow-star.zon"},
	    /* the last path takes its rule (and the comment on its line) with it */
	    {"odd.zon", UNALLOW, "git", HOME "/.gitconfig", NULL, 1, "odd.unallow-git.zon"},
	    {"odd.zon", UNALLOW, "zig", "~/.local/share/zig", NULL, 1, "odd.unallow-zig.zon"},
	    {"odd.zon", UNALLOW, "cargo", "~/work-cargo", NULL, 0, NULL},
	    {"odd.zon", UNALLOW, "git", "~/.cargo", NULL, 0, NULL},
	    {"odd.zon", LINK, HOME "/src/b", "go zig", NULL, 1, "odd.link-b.zon"},
	    {"odd.zon", LINK, "/home/you/src/a", "rust", NULL, 0, NULL},
	    {"odd.zon", LINK, "/home/you/src/c", "zig", NULL, 1, "odd.link-c.zon"},
	    {"odd.zon", UNLINK, "/home/you/src/a", NULL, NULL, 1, "odd.unlink-a.zon"},
	    {"odd.zon", UNLINK, HOME "/src/b", NULL, NULL, 1, "odd.unlink-b.zon"},
	    {"odd.zon", UNLINK, "/home/you/src/z", NULL, NULL, 0, NULL},
	    /* a missing .allow or .links is created in the file's own style (tabs) */
	    {"noallow.zon", ALLOW, "cargo", "~/.cargo", "w", 1, "noallow.allow.zon"},
	    {"noallow.zon", LINK, "/w/p", "rust go", NULL, 1, "noallow.link.zon"},
	    {"seed.zon", ALLOW, "git", "~/.gitconfig", "", 1, "seed.allow.zon"},
	    {"seed.zon", LINK, "/Users/you/git/project-b", "go", NULL, 1, "seed.link.zon"},
	};
	bool update = getenv("MOAT_UPDATE_GOLDEN") != NULL;
	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		const struct edit_case *c = &cases[i];
		size_t len, wlen;
		char *input = read_golden(c->input, &len);
		char *want = c->want ? read_golden(c->want, &wlen) : xstrdup(input);
		char *label = xasprintf("golden %s: %s %s", c->input, op_name(c->op), c->arg);
		if (update && c->want) {
			struct strbuf out = STRBUF_INIT;
			struct error err;
			char *path = xasprintf(GOLDEN "%s", c->want);
			if (run(input, len, c, &out, &err) >= 0)
				fs_write_atomic(path, out.buf, out.len, 0644, &err);
			free(path);
			sb_release(&out);
			free(want);
			want = read_golden(c->want, &wlen);
		}
		check_case(c, input, len, want, label);
		free(label);
		free(input);
		free(want);
	}
}

static void test_inline(void)
{
	static const struct edit_case cases[] = {
	    /* a missing file is created whole */
	    {"", ALLOW, "cargo", "~/.cargo", "w", 1,
	     ".{\n    .allow = .{\n        .{ .bin = \"cargo\", .paths = .{ \"~/.cargo\" }, .write "
	     "= "
	     "true },\n    },\n}\n"},
	    {"// only a comment", LINK, "/p", "rust", NULL, 1,
	     "// only a comment\n.{\n    .links = .{\n        .{ .dir = \"/p\", .shells = .{ "
	     "\"rust\" } "
	     "},\n    },\n}\n"},
	    {"", UNALLOW, "cargo", "~/.cargo", NULL, 0, ""},
	    {"", UNLINK, "/p", NULL, NULL, 0, ""},
	    /* an empty struct grows in the multiline style */
	    {".{}", ALLOW, "git", "~/.gitconfig", "", 1,
	     ".{\n    .allow = .{\n        .{ .bin = \"git\", .paths = .{ \"~/.gitconfig\" } },\n  "
	     "  "
	     "},\n}"},
	    /* a one-line file stays on one line */
	    {".{ .default = .{ \"jq\" } }", ALLOW, "git", "~/.gitconfig", "", 1,
	     ".{ .default = .{ \"jq\" }, .allow = .{ .{ .bin = \"git\", .paths = .{ "
	     "\"~/.gitconfig\" "
	     "} } } }"},
	    {".{ .allow = .{} }", ALLOW, "git", "~/.g", "", 1,
	     ".{ .allow = .{ .{ .bin = \"git\", .paths = .{ \"~/.g\" } } } }"},
	    {".{\n  .allow = .{},\n}\n", ALLOW, "git", "~/.g", "", 1,
	     ".{\n  .allow = .{\n    .{ .bin = \"git\", .paths = .{ \"~/.g\" } },\n  },\n}\n"},
	    {".{\n  .allow = .{\n  },\n}\n", ALLOW, "git", "~/.g", "", 1,
	     ".{\n  .allow = .{\n    .{ .bin = \"git\", .paths = .{ \"~/.g\" } },\n  },\n}\n"},
	    /* no trailing comma after the last item: one is added */
	    {".{\n\t.allow = .{\n\t\t.{ .bin = \"a\", .paths = .{ \"/a\" } }\n\t}\n}", ALLOW, "b",
	     "/b", "", 1,
	     ".{\n\t.allow = .{\n\t\t.{ .bin = \"a\", .paths = .{ \"/a\" } },\n\t\t.{ .bin = "
	     "\"b\", "
	     ".paths = .{ \"/b\" } },\n\t}\n}"},
	    /* CRLF files get CRLF */
	    {".{\r\n    .allow = .{\r\n    },\r\n}\r\n", ALLOW, "b", "/b", "", 1,
	     ".{\r\n    .allow = .{\r\n        .{ .bin = \"b\", .paths = .{ \"/b\" } },\r\n    "
	     "},\r\n}\r\n"},
	    /* widening: write and exec added, false replaced, never narrowed */
	    {".{ .allow = .{ .{ .bin = \"b\", .paths = .{ \"/b\" }, .exec = false } } }", ALLOW,
	     "b", "/b", "wx", 1,
	     ".{ .allow = .{ .{ .bin = \"b\", .paths = .{ \"/b\" }, .exec = true, .write = true } "
	     "} }"},
	    {".{ .allow = .{ .{ .bin = \"b\", .paths = .{ \"/b\" }, .write = true } } }", ALLOW,
	     "b", "/b", "", 0, NULL},
	    {".{ .allow = .{ .{ .bin = \"b\", .paths = .{ \"/b\" }, .write = true } } }", ALLOW,
	     "b", "/b", "x", 1,
	     ".{ .allow = .{ .{ .bin = \"b\", .paths = .{ \"/b\" }, .write = true, .exec = true } "
	     "} }"},
	    /* write granted by one rule, exec by another: already in force */
	    {".{ .allow = .{ .{ .bin = \"b\", .paths = .{ \"/b\", \"/c\" }, .write = true }, .{ "
	     ".bin "
	     "= \"b\", .paths = .{ \"/b\" }, .exec = true } } }",
	     ALLOW, "b", "/b", "wx", 0, NULL},
	    /* the same path under another binary is another grant */
	    {".{ .allow = .{ .{ .bin = \"a\", .paths = .{ \"/b\" } } } }", ALLOW, "b", "/b", "", 1,
	     ".{ .allow = .{ .{ .bin = \"a\", .paths = .{ \"/b\" } }, .{ .bin = \"b\", .paths = .{ "
	     "\"/b\" } } } }"},
	    /* scoped rules are never touched, even when they would match */
	    {".{ .allow = .{ .{ .bin = \"b\", .paths = .{ \"/b\" }, .dirs = .{} } } }", UNALLOW,
	     "b", "/b", NULL, 1, ".{ .allow = .{ } }"},
	    {".{ .allow = .{ .{ .bin = \"b\", .paths = .{ \"/b\" }, .dirs = .{ \"/w\" } } } }",
	     UNALLOW, "b", "/b", NULL, 0, NULL},
	    /* unallow: the path goes, the rule stays while it has others */
	    {".{ .allow = .{ .{ .bin = \"b\", .paths = .{ \"/a\", \"/b\" } } } }", UNALLOW, "b",
	     "/b", NULL, 1, ".{ .allow = .{ .{ .bin = \"b\", .paths = .{ \"/a\" } } } }"},
	    {".{ .allow = .{ .{ .bin = \"b\", .paths = .{ \"/b\", \"/a\", } } } }", UNALLOW, "b",
	     "/b", NULL, 1, ".{ .allow = .{ .{ .bin = \"b\", .paths = .{ \"/a\", } } } }"},
	    /* every unscoped rule that holds it loses it */
	    {".{ .allow = .{\n  .{ .bin = \"b\", .paths = .{ \"/b\" } },\n  .{ .bin = \"b\", "
	     ".paths = "
	     ".{ \"/b/\" } },\n} }",
	     UNALLOW, "b", "/b", NULL, 1, ".{ .allow = .{\n} }"},
	    /* link: only the shells change, the dir stays as written; duplicates go */
	    {".{ .links = .{ .{ .dir = \"~/p\", .shells = .{ \"a\" } }, .{ .dir = \"/home/you/p\", "
	     ".shells = .{ \"b\" } } } }",
	     LINK, "/home/you/p", "c", NULL, 1,
	     ".{ .links = .{ .{ .dir = \"~/p\", .shells = .{ \"c\" } } } }"},
	    {".{ .links = .{ .{ .dir = \"~/p\", .shells = .{ \"a\" } }, .{ .dir = \"/home/you/p\", "
	     ".shells = .{ \"b\" } } } }",
	     LINK, "/home/you/p", "a", NULL, 1,
	     ".{ .links = .{ .{ .dir = \"~/p\", .shells = .{ \"a\" } } } }"},
	    {".{ .links = .{ .{ .dir = \"/p\", .shells = .{ \"a\" } } } }", UNLINK, "/p/", NULL,
	     NULL, 1, ".{ .links = .{ } }"},
	    /* a \\ string runs to the end of its line, so no comma can follow it there */
	    {".{ .allow = .{\n    .{\n        .paths = .{ \"/b\" },\n        .bin =\n            "
	     "\\\\b\n    },\n} }",
	     ALLOW, "b", "/b", "w", 1,
	     ".{ .allow = .{\n    .{\n        .paths = .{ \"/b\" },\n        .bin =\n            "
	     "\\\\b\n        ,\n        .write = true,\n    },\n} }"},
	    {".{ .allow = .{ .{ .paths = .{ \"/b\" }, .bin =\n\\\\b\n, } } }", ALLOW, "b", "/b",
	     "x", 1,
	     ".{ .allow = .{ .{ .paths = .{ \"/b\" }, .bin =\n\\\\b\n, .exec = true, } } }"},
	    {".{ .allow = .{ .{ .bin = \"b\", .paths = .{\n\\\\/a\n, \"/b\" } } } }", UNALLOW, "b",
	     "/a", NULL, 1, ".{ .allow = .{ .{ .bin = \"b\", .paths = .{\n\"/b\" } } } }"},
	    /* strings are escaped when written */
	    {"", LINK, "/a\"b\\c", "x\ty", NULL, 1,
	     ".{\n    .links = .{\n        .{ .dir = \"/a\\\"b\\\\c\", .shells = .{ \"x\\ty\" } "
	     "},\n    "
	     "},\n}\n"},
	};
	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		const struct edit_case *c = &cases[i];
		char *label = xasprintf("inline case %zu: %s %s", i, op_name(c->op), c->arg);
		check_case(c, c->input, strlen(c->input), c->want ? c->want : c->input, label);
		free(label);
	}
}

static void test_refusals(void)
{
	static const struct {
		const char *input, *msg;
	} cases[] = {
	    {".{ .allow = .{ .{ .bin = \"b\" } } }",
	     "config.zon:1:16: allow rule without '.paths'"},
	    {".{\n  .alow = .{},\n}",
	     "config.zon:2:3: unknown key '.alow' in the top-level struct"},
	    {".{ .allow = \"x\" ", "config.zon:1:17: end of file inside the '.{' opened at 1:1"},
	};
	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		struct strbuf out = STRBUF_INIT;
		struct error err = {0};
		int rc = config_edit_allow(cases[i].input, strlen(cases[i].input), "config.zon",
		                           HOME, "git", "~/.gitconfig", false, false, &out, &err);
		CHECK(rc == -1 && out.len == 0,
		      "a file that does not parse is not edited (case %zu)", i);
		CHECK_STR(err.msg, cases[i].msg, "and the reason is given");
		sb_release(&out);
	}
	struct strbuf out = STRBUF_INIT;
	struct error err = {0};
	CHECK(config_edit_allow("", 0, "c", HOME, "", "/x", false, false, &out, &err) == -1,
	      "an empty binary name is refused");
	CHECK(config_edit_link("", 0, "c", HOME, "", NULL, 0, &out, &err) == -1,
	      "an empty directory is refused");
	sb_release(&out);
}

/* --dirs: a grant limited to some projects is its own rule, found again by
 * the same directories in any order, and never mixed with unscoped ones. */
static void test_dirs(void)
{
	static const char *const work[] = {"~/work", "/srv/x"};
	static const char *const swapped[] = {"/srv/x", "~/work"};
	static const char *const other[] = {"~/work"};
	static const char base[] = ".{ .allow = .{ .{ .bin = \"c\", .paths = .{ \"~/.c\" } } } }";
	struct strbuf out = STRBUF_INIT, again = STRBUF_INIT;
	struct error err = {0};
	CHECK(config_edit_allow_in(base, strlen(base), "c", HOME, "c", "~/.c", true, false, work, 2,
	                           &out, &err) == 1,
	      "a grant with dirs beside an unscoped one for the same path is new");
	CHECK(strstr(out.buf, ".{ .bin = \"c\", .paths = .{ \"~/.c\" }, .write = true, .dirs = "
	                      ".{ \"~/work\", \"/srv/x\" } }") != NULL,
	      "written with its .dirs");
	CHECK(strstr(out.buf, ".{ .bin = \"c\", .paths = .{ \"~/.c\" } }") != NULL,
	      "the unscoped rule is left as it was");
	CHECK(config_edit_allow_in(out.buf, out.len, "c", HOME, "c", "~/.c", true, false, swapped,
	                           2, &again, &err) == 0,
	      "the same dirs in another order: already granted");
	CHECK(config_edit_unallow_in(out.buf, out.len, "c", HOME, "c", "~/.c", other, 1, &again,
	                             &err) == 0,
	      "other dirs remove nothing");
	CHECK(config_edit_unallow_in(out.buf, out.len, "c", HOME, "c", "~/.c", swapped, 2, &again,
	                             &err) == 1 &&
	          strcmp(again.buf, base) == 0,
	      "the same dirs remove it, and only it");
	CHECK(config_edit_allow_in(base, strlen(base), "c", HOME, "c", "~/.c", false, false,
	                           (const char *const[]){""}, 1, &again, &err) == -1,
	      "an empty directory is refused");
	sb_release(&out);
	sb_release(&again);
}

int main(void)
{
	test_golden();
	test_inline();
	test_refusals();
	test_dirs();
	return tap_done();
}
