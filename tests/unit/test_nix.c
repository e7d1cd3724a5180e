/* The nix shells' lock file and the JSON reader for nix's --json output. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/platform.h"
#include "shells/json.h"
#include "shells/nix.h"
#include "shells/nixenv.h"
#include "shells/proc.h"
#include "shells/source.h"
#include "tap.h"

static void test_pins(void)
{
	const char text[] = "# header\n"
	                    "rust\tgithub:o/r\trust\tgithub:o/r/abc\tabc\t/nix/store/x-rust\n"
	                    "bad line\n"
	                    "go\tpath:/f\tgo\t-\tsha256-A=\trelative/store\n"
	                    "rust\tgithub:o/r\trust\t-\tabc\t/nix/store/y-rust\n"
	                    "node\tpath:/f\tnode\t-\tsha256-B=\t/nix/store/z-node\r\n";
	struct pins p;
	pins_parse(text, sizeof(text) - 1, "pins", &p);
	CHECK(p.n == 2, "two good pins (got %zu)", p.n);
	CHECK(p.nwarnings == 3, "three damaged lines warned about (got %zu)", p.nwarnings);
	if (p.nwarnings == 3) {
		CHECK_STR(p.warnings[0],
		          "pins:3: damaged pin skipped: it does not have 6 or 7 "
		          "tab-separated fields",
		          "a line without fields");
		CHECK_STR(p.warnings[1],
		          "pins:4: damaged pin skipped: the store path is bad: it "
		          "is not an absolute path",
		          "a relative store path");
		CHECK_STR(p.warnings[2], "pins:5: damaged pin skipped: it pins a name pinned above",
		          "a duplicate keeps the first");
	}
	struct pin *rust = pins_lookup(&p, "rust");
	CHECK_STR(rust ? rust->store : NULL, "/nix/store/x-rust", "lookup");
	struct pin *node = pins_lookup(&p, "node");
	CHECK_STR(node ? node->store : NULL, "/nix/store/z-node", "CRLF stripped");

	struct error err;
	char f[6][32] = {"rust",           "github:o/r", "rust",
	                 "github:o/r/def", "def",        "/nix/store/w-rust"};
	struct pin upd = {f[0], f[1], f[2], f[3], f[4], f[5], NULL};
	CHECK(pins_set(&p, &upd, &err) == 0 && p.n == 2, "set replaces by name");
	strcpy(f[0], "x\ty");
	struct pin tab = {f[0], f[1], f[2], f[3], f[4], f[5], NULL};
	CHECK(pins_set(&p, &tab, &err) < 0, "a tab in a field is refused");
	CHECK_STR(err.msg, "cannot pin 'x\ty': the name is bad: it contains a control character",
	          "its message");

	char *out = pins_format(&p);
	struct pins again;
	pins_parse(out, strlen(out), "pins", &again);
	CHECK(again.n == 2 && again.nwarnings == 0, "format round-trips");
	CHECK_STR(again.n ? again.v[0].rev : NULL, "def", "with the new revision");
	CHECK_STR(again.n ? again.v[0].source : NULL, "-", "a pin without a source says '-'");
	free(out);
	pins_free(&again);
	CHECK(pins_drop(&p, "rust") && p.n == 1 && !pins_lookup(&p, "rust") &&
	          pins_lookup(&p, "node"),
	      "drop removes one pin and keeps the others");
	CHECK(!pins_drop(&p, "rust"), "dropping what is not pinned says so");
	pins_free(&p);

	const char seven[] = "a\tpath:/f\ta\t-\tsha256-A=\t/nix/store/x-a\tfp1:0123456789abcdef\n"
	                     "b\tpath:/f\tb\t-\tsha256-B=\t/nix/store/x-b\t-\n"
	                     "c\tpath:/f\tc\t-\tsha256-C=\t/nix/store/x-c\t-\textra\n";
	pins_parse(seven, sizeof(seven) - 1, "pins", &p);
	CHECK(p.n == 2 && p.nwarnings == 1, "seven fields read, eight refused");
	CHECK_STR(p.n ? p.v[0].source : NULL, "fp1:0123456789abcdef", "the source fingerprint");
	out = pins_format(&p);
	CHECK(strstr(out, "/nix/store/x-a\tfp1:0123456789abcdef\n") != NULL,
	      "and written back as the seventh field");
	free(out);
	pins_free(&p);

	const char nul[] = "a\tb\tc\td\te\t/f\0g\n";
	pins_parse(nul, sizeof(nul) - 1, "pins", &p);
	CHECK(p.nwarnings == 1 && p.n == 1, "a NUL byte is warned about");
	pins_free(&p);
}

static void test_json(void)
{
	const char meta[] =
	    "{\"description\":\"a \\\"q\\\" \\u0041\",\"locked\":{\"lastModified\":17,"
	    "\"narHash\":\"sha256-x=\",\"rev\":\"abc\",\"nested\":[1,{\"a\":null},true]},"
	    "\"locks\":{\"nodes\":{\"root\":{}}},\"url\":\"git+file:///x?rev=abc\"}";
	size_t n = sizeof(meta) - 1;
	static const struct {
		const char *path, *want;
	} cases[] = {
	    {"url", "git+file:///x?rev=abc"}, {"locked.rev", "abc"},
	    {"locked.narHash", "sha256-x="},  {"description", "a \"q\" A"},
	    {"locked.lastModified", NULL},    {"locked.missing", NULL},
	    {"locks.nodes.root", NULL},       {"nope", NULL},
	};
	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		char *got = json_get_string(meta, n, cases[i].path);
		CHECK_STR(got, cases[i].want, cases[i].path);
		free(got);
	}
	const char build[] =
	    "[{\"drvPath\":\"/nix/store/a.drv\",\"outputs\":{\"out\":\"/nix/store/b\"}}]";
	char *out = json_get_string(build, sizeof(build) - 1, "0.outputs.out");
	CHECK_STR(out, "/nix/store/b", "an array element by index");
	free(out);
	out = json_get_string(build, sizeof(build) - 1, "1.outputs.out");
	CHECK(out == NULL, "an index past the end");
	static const char *const bad[] = {"",     "{",        "{\"url\":", "{\"url\":\"x",
	                                  "[[[[", "{\"a\" 1}"};
	for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
		out = json_get_string(bad[i], strlen(bad[i]), "url");
		CHECK(out == NULL, "malformed JSON %zu gives nothing", i);
		free(out);
	}
}

static void count_chunk(const char *buf, size_t len, void *arg)
{
	(void)buf;
	*(size_t *)arg += len;
}

/* The process runner: both streams captured, the status, a program that
 * does not exist. */
static void test_proc(void)
{
	int fds[2];
	CHECK(platform_pipe_cloexec(fds) == 0 && (fcntl(fds[0], F_GETFD) & FD_CLOEXEC) &&
	          (fcntl(fds[1], F_GETFD) & FD_CLOEXEC),
	      "platform_pipe_cloexec sets close-on-exec on both ends");
	close(fds[0]);
	close(fds[1]);
	size_t seen = 0;
	struct proc_hooks hooks = {.on_stderr = count_chunk, .arg = &seen};
	const char *const argv[] = {"sh", "-c", "echo out; echo err >&2; exit 3", NULL};
	struct proc_result r;
	struct error err;
	int start_errno;
	CHECK(proc_run("/bin/sh", argv, &hooks, &r, &start_errno, &err) == 0, "proc_run runs sh");
	CHECK_STR(sb_str(&r.out), "out\n", "stdout captured");
	CHECK_STR(sb_str(&r.err), "err\n", "stderr captured");
	CHECK(r.status == 3, "exit status %d", r.status);
	CHECK(seen == r.err.len, "the stderr hook saw every byte (%zu of %zu)", seen, r.err.len);
	proc_result_free(&r);
	CHECK(proc_run("/nonexistent/nix", argv, NULL, &r, &start_errno, &err) < 0 &&
	          start_errno == ENOENT && r.out.len == 0,
	      "a missing program is a start error (ENOENT)");
	proc_result_free(&r);
}

/* What each form of flake reference names (issue 38, item 5): every one
 * nix reads from the file system is local, with its dir=; what moat cannot
 * classify for certain is refused. */
static void test_flake_ref(void)
{
	static const struct {
		const char *ref;
		enum flake_ref_kind kind;
		const char *scheme, *path, *subdir;
	} cases[] = {
	    {".", FLAKE_REF_LOCAL, "", ".", ""},
	    {".?dir=sub#hello", FLAKE_REF_LOCAL, "", ".", "sub"},
	    {"./flake?ref=x", FLAKE_REF_LOCAL, "", "./flake", ""},
	    {"./flake?dir=.", FLAKE_REF_LOCAL, "", "./flake", "."},
	    {"/abs/f?dir=a%2Fb", FLAKE_REF_LOCAL, "", "/abs/f", "a/b"},
	    {"path:./x", FLAKE_REF_LOCAL, "path", "./x", ""},
	    {"path:/abs?dir=s", FLAKE_REF_LOCAL, "path", "/abs", "s"},
	    {"git+file:///abs/r?dir=sub&ref=main", FLAKE_REF_LOCAL, "git+file", "/abs/r", "sub"},
	    {"git+file:/abs/r", FLAKE_REF_LOCAL, "git+file", "/abs/r", ""},
	    {"file:///abs/f.tar.gz", FLAKE_REF_LOCAL, "file", "/abs/f.tar.gz", ""},
	    {"tarball+file:/abs/x.tgz", FLAKE_REF_LOCAL, "tarball+file", "/abs/x.tgz", ""},
	    {"hg+file:/abs/h", FLAKE_REF_LOCAL, "hg+file", "/abs/h", ""},
	    /* nix takes these for relative paths, not registry names */
	    {"a.b", FLAKE_REF_LOCAL, "", "a.b", ""},
	    {"sub?dir=x", FLAKE_REF_LOCAL, "", "sub", "x"},
	    {"x.y/z", FLAKE_REF_LOCAL, "", "x.y/z", ""},
	    {"~/x", FLAKE_REF_LOCAL, "", "~/x", ""},
	    {"github:o/r", FLAKE_REF_REMOTE, NULL, NULL, NULL},
	    {"github:o/r?dir=x", FLAKE_REF_REMOTE, NULL, NULL, NULL},
	    {"https://example.org/f.tar.gz", FLAKE_REF_REMOTE, NULL, NULL, NULL},
	    {"nixpkgs", FLAKE_REF_REMOTE, NULL, NULL, NULL},
	    {"nixpkgs/nixos-23.11", FLAKE_REF_REMOTE, NULL, NULL, NULL},
	    {"flake:nixpkgs", FLAKE_REF_REMOTE, NULL, NULL, NULL},
	    /* what moat cannot classify for certain */
	    {"", FLAKE_REF_REFUSED, NULL, NULL, NULL},
	    {"foo/a..b", FLAKE_REF_LOCAL, "", "foo/a..b", ""}, /* no registry name */
	    {"foo:bar", FLAKE_REF_REFUSED, NULL, NULL, NULL},
	    {"x/y:z", FLAKE_REF_REFUSED, NULL, NULL, NULL},
	    {"git+file:rel", FLAKE_REF_REFUSED, NULL, NULL, NULL},
	    {"file://host/x", FLAKE_REF_REFUSED, NULL, NULL, NULL},
	    {"file:////a", FLAKE_REF_REFUSED, NULL, NULL, NULL}, /* found by fuzz_flakeref */
	    {"/a%20b", FLAKE_REF_REFUSED, NULL, NULL, NULL},
	    {"/abs?dir=../up", FLAKE_REF_REFUSED, NULL, NULL, NULL},
	    {"/abs?dir=/etc", FLAKE_REF_REFUSED, NULL, NULL, NULL},
	    {"/abs?dir=a&dir=b", FLAKE_REF_REFUSED, NULL, NULL, NULL},
	    {"./a\tb", FLAKE_REF_REFUSED, NULL, NULL, NULL},
	};
	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		struct flake_ref r;
		flake_ref_parse(cases[i].ref, &r);
		CHECK(r.kind == cases[i].kind, "'%s' is %d (got %d: %s)", cases[i].ref,
		      cases[i].kind, r.kind, r.why ? r.why : "");
		if (r.kind == FLAKE_REF_LOCAL && cases[i].kind == FLAKE_REF_LOCAL) {
			char name[128];
			snprintf(name, sizeof(name),
			         "'%s': its scheme, path and dir=", cases[i].ref);
			CHECK_STR(r.scheme, cases[i].scheme, name);
			CHECK_STR(r.path, cases[i].path, name);
			CHECK_STR(r.subdir, cases[i].subdir, name);
		}
		flake_ref_free(&r);
	}
}

/* Sandboxed code writes /nonexistent-moat-w and below. */
static bool under_w(const char *path, bool below, char **why)
{
	(void)below;
	if (strncmp(path, "/nonexistent-moat-w", 19) != 0)
		return false;
	*why = xstrdup("under the sandbox root /nonexistent-moat-w");
	return true;
}

/* The environment nix gets (issue 38, item 4). */
static void test_nix_env(void)
{
	const char *env[] = {"PATH=/usr/bin:rel::/nonexistent-moat-w/.venv/bin:/bin",
	                     "GIT_SSH_COMMAND=evil",
	                     "GIT_CONFIG_COUNT=1",
	                     "HOME=/home/u",
	                     "NIX_REMOTE=daemon",
	                     "NIX_CONF_DIR=/etc/nix",
	                     NULL};
	char *dropped = NULL;
	struct error err;
	char **out = nix_env_judge(env, under_w, &dropped, &err);
	CHECK(out != NULL, "a clean environment is accepted");
	CHECK_STR(out ? out[0] : NULL, "PATH=/usr/bin:/bin",
	          "PATH keeps absolute entries nothing sandboxed writes");
	CHECK_STR(out ? out[1] : NULL, "HOME=/home/u", "GIT_* variables are removed");
	CHECK_STR(out ? out[3] : NULL, "NIX_CONF_DIR=/etc/nix",
	          "NIX_* outside writable places pass");
	CHECK(out && !out[4], "nothing else");
	CHECK(dropped && strstr(dropped, "GIT_SSH_COMMAND") &&
	          strstr(dropped, "PATH entry 'rel'") &&
	          strstr(dropped, "/nonexistent-moat-w/.venv/bin' (under the sandbox root"),
	      "what was left out is listed: %s", dropped ? dropped : "");
	nix_env_free(out);
	free(dropped);

	static const struct {
		const char *var, *msg;
	} refused[] = {
	    {"NIX_USER_CONF_FILES=/etc/nix.conf:/nonexistent-moat-w/nix.conf",
	     "refusing to run nix with NIX_USER_CONF_FILES='/etc/nix.conf:/nonexistent-moat-w/"
	     "nix.conf': '/nonexistent-moat-w/nix.conf' is under the sandbox root "
	     "/nonexistent-moat-w"},
	    {"NIX_CONF_DIR=conf", "refusing to run nix with NIX_CONF_DIR='conf': 'conf' is a "
	                          "relative path, read from the current directory"},
	    {"NIX_CONFIG=plugin-files = /nonexistent-moat-w/p.so",
	     "refusing to run nix with NIX_CONFIG='plugin-files = /nonexistent-moat-w/p.so': "
	     "'/nonexistent-moat-w/p.so' is under the sandbox root /nonexistent-moat-w"},
	    {"LD_PRELOAD=/nonexistent-moat-w/x/../evil.so",
	     "refusing to run nix with LD_PRELOAD='/nonexistent-moat-w/x/../evil.so': "
	     "'/nonexistent-moat-w/x/../evil.so' is under the sandbox root /nonexistent-moat-w"},
	};
	for (size_t i = 0; i < ARRAY_LEN(refused); i++) {
		const char *one[] = {refused[i].var, NULL};
		out = nix_env_judge(one, under_w, NULL, &err);
		CHECK(!out && err.status == EXIT_MOAT_FAILED, "refused: %s", refused[i].var);
		CHECK_STR(out ? "" : err.msg, refused[i].msg, "saying which and why");
		nix_env_free(out);
	}
	out = nix_env_judge((const char *[]){"HOME=/h", NULL}, NULL, NULL, &err);
	CHECK_STR(out ? out[1] : NULL, "PATH=/usr/local/bin:/usr/bin:/bin",
	          "no PATH: a fixed one, never the C library's default");
	nix_env_free(out);
}

int main(void)
{
	test_nix_env();
	test_flake_ref();
	test_pins();
	test_json();
	test_proc();
	return tap_done();
}
