/* Local flake sources: reading flake references, the git index reader, and
 * the fingerprint that notices edits. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/path.h"
#include "base/platform.h"
#include "base/strbuf.h"
#include "shells/source.h"
#include "tap.h"

/* --- a git index, made by hand --------------------------------------------- */

static void be32(struct strbuf *sb, uint32_t v)
{
	unsigned char b[4] = {v >> 24, v >> 16, v >> 8, v};
	sb_add(sb, b, 4);
}

/* One entry: stat data (zeros), mode, a fake sha, flags, the path. */
static void entry(struct strbuf *sb, unsigned version, uint32_t mode, const char *path,
                  size_t strip, bool skip_worktree)
{
	size_t start = sb->len;
	unsigned char zeros[24] = {0};
	sb_add(sb, zeros, 24); /* ctime, mtime, dev, ino */
	be32(sb, mode);
	sb_add(sb, zeros, 12); /* uid, gid, size */
	unsigned char sha[20];
	memset(sha, 0xab, sizeof(sha));
	sb_add(sb, sha, 20);
	size_t len = strlen(path);
	uint16_t flags = (uint16_t)(len < 0xfff ? len : 0xfff) | (skip_worktree ? 0x4000 : 0);
	unsigned char f[2] = {flags >> 8, flags & 0xff};
	sb_add(sb, f, 2);
	if (skip_worktree) {
		unsigned char ext[2] = {0x40, 0};
		sb_add(sb, ext, 2);
	}
	if (version == 4) {
		unsigned char v = (unsigned char)strip; /* < 128: one byte */
		sb_add(sb, &v, 1);
		sb_add(sb, path, len);
		sb_addc(sb, '\0');
		return;
	}
	sb_add(sb, path, len);
	do
		sb_addc(sb, '\0');
	while ((sb->len - start) % 8);
}

static void header(struct strbuf *sb, unsigned version, uint32_t n)
{
	sb_add(sb, "DIRC", 4);
	be32(sb, version);
	be32(sb, n);
}

static void trailer(struct strbuf *sb)
{
	unsigned char sum[20] = {0};
	sb_add(sb, sum, 20);
}

static void collect(const char *path, size_t len, void *arg)
{
	struct strbuf *sb = arg;
	sb_add(sb, path, len);
	sb_addc(sb, ' ');
}

static void test_index(void)
{
	struct strbuf ix = STRBUF_INIT, got = STRBUF_INIT;
	header(&ix, 2, 4);
	entry(&ix, 2, 0100644, "flake.nix", 0, false);
	entry(&ix, 2, 0100755, "nix/build.sh", 0, false);
	entry(&ix, 2, 0160000, "sub", 0, false); /* a submodule */
	entry(&ix, 2, 0120000, "x", 0, false);
	trailer(&ix);
	long n = git_index_paths((unsigned char *)ix.buf, ix.len, collect, &got);
	CHECK(n == 3, "version 2: three files, the gitlink left out (%ld)", n);
	CHECK_STR(sb_str(&got), "flake.nix nix/build.sh x ", "their paths");

	sb_reset(&ix), sb_reset(&got);
	header(&ix, 3, 2);
	entry(&ix, 3, 0100644, "a", 0, false);
	entry(&ix, 3, 0100644, "sparse/b", 0, true);
	trailer(&ix);
	n = git_index_paths((unsigned char *)ix.buf, ix.len, collect, &got);
	CHECK(n == 1 && strcmp(sb_str(&got), "a ") == 0,
	      "version 3: a skip-worktree entry is left out");

	sb_reset(&ix), sb_reset(&got);
	header(&ix, 4, 3);
	entry(&ix, 4, 0100644, "dir/one", 0, false);
	entry(&ix, 4, 0100644, "two", 3, false); /* "dir/one" - "one" + "two" */
	entry(&ix, 4, 0100644, "three", 7, false);
	trailer(&ix);
	n = git_index_paths((unsigned char *)ix.buf, ix.len, collect, &got);
	CHECK(n == 3, "version 4 (%ld)", n);
	CHECK_STR(sb_str(&got), "dir/one dir/two three ", "prefix-compressed paths");

	sb_reset(&ix);
	header(&ix, 2, 1);
	entry(&ix, 2, 0100644, "a", 0, false);
	sb_add(&ix, "link", 4);
	be32(&ix, 0);
	trailer(&ix);
	CHECK(git_index_paths((unsigned char *)ix.buf, ix.len, NULL, NULL) < 0,
	      "a split index is not read");

	static const struct {
		const char *what;
		const char *buf;
		size_t len;
	} bad[] = {
	    {"empty", "", 0},
	    {"not an index", "PACK\0\0\0\2\0\0\0\1xxxxxxxxxxxxxxxxxxxx", 32},
	    {"version 5", "DIRC\0\0\0\5\0\0\0\0xxxxxxxxxxxxxxxxxxxx", 32},
	    {"more entries than bytes", "DIRC\0\0\0\2\0\0\0\11xxxxxxxxxxxxxxxxxxxx", 32},
	};
	for (size_t i = 0; i < ARRAY_LEN(bad); i++)
		CHECK(git_index_paths((const unsigned char *)bad[i].buf, bad[i].len, NULL, NULL) <
		          0,
		      "refused: %s", bad[i].what);
	/* Truncated anywhere: refused, never read past the end. */
	sb_reset(&ix);
	header(&ix, 4, 2);
	entry(&ix, 4, 0100644, "dir/one", 0, false);
	entry(&ix, 4, 0100644, "two", 3, false);
	trailer(&ix);
	bool all = true;
	for (size_t cut = 0; cut + 20 < ix.len; cut++) {
		char *copy = xmalloc(cut + 20);
		memcpy(copy, ix.buf, cut);
		memset(copy + cut, 0, 20);
		if (git_index_paths((unsigned char *)copy, cut + 20, NULL, NULL) >= 0)
			all = false;
		free(copy);
	}
	CHECK(all, "every truncation is refused");
	sb_release(&ix);
	sb_release(&got);
}

/* --- references and fingerprints -------------------------------------------- */

static char dir[] = "/tmp/moat-test-source.XXXXXX";

static void put(const char *rel, const char *text)
{
	char *p = path_join(dir, rel);
	char *d = path_dirname(p);
	struct error err;
	fs_mkdir_p(d, 0755, &err);
	FILE *f = fopen(p, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
	free(d);
	free(p);
}

static void test_refs(void)
{
	if (!mkdtemp(dir))
		abort();
	char *real = realpath(dir, NULL);
	put("plain/flake.nix", "{}");
	put("repo/.git/HEAD", "ref: refs/heads/main\n");
	put("repo/sub/flake.nix", "{}");
	struct flake_local s;
	char *ref;

	ref = xasprintf("path:%s/plain", dir);
	CHECK(flake_local_parse(ref, &s) == 1 && !s.git && strcmp(s.dir, s.root) == 0 && !*s.subdir,
	      "path: is the directory itself");
	flake_local_free(&s);
	free(ref);
	ref = xasprintf("path:%s?dir=plain&narHash=x", dir);
	CHECK(flake_local_parse(ref, &s) == 1 && strcmp(s.subdir, "plain") == 0 &&
	          strcmp(path_basename(s.dir), "plain") == 0,
	      "path: with ?dir=");
	flake_local_free(&s);
	free(ref);
	ref = xasprintf("%s/repo/sub", dir);
	int rc = flake_local_parse(ref, &s);
	char *want = xasprintf("%s/repo", real);
	CHECK(rc == 1 && s.git && strcmp(s.root, want) == 0 && strcmp(s.subdir, "sub") == 0,
	      "a bare path in a git tree is a git flake of the whole tree");
	free(want);
	flake_local_free(&s);
	free(ref);
	ref = xasprintf("git+file://%s/repo?dir=sub", dir);
	CHECK(flake_local_parse(ref, &s) == 1 && s.git && strcmp(s.subdir, "sub") == 0,
	      "git+file:// with ?dir=");
	flake_local_free(&s);
	free(ref);
	static const char *const remote[] = {"github:o/r", "nixpkgs", "git+https://x/y"};
	for (size_t i = 0; i < ARRAY_LEN(remote); i++)
		CHECK(flake_local_parse(remote[i], &s) == 0, "not local: %s", remote[i]);
	/* Local, but what nix would read cannot be told: refused, never
	 * passed on as if remote (issue 38). */
	char *unknown[] = {xstrdup("path:relative"),
	                   xstrdup("path:/nonexistent/moat-flake"),
	                   xstrdup("sub?dir=x"),
	                   xasprintf("path:%s?dir=plain/../..", dir),
	                   xasprintf("%s/plain?dir=nowhere", dir),
	                   xstrdup("foo:bar")};
	for (size_t i = 0; i < ARRAY_LEN(unknown); i++) {
		CHECK(flake_local_parse(unknown[i], &s) == -1, "cannot tell: %s", unknown[i]);
		free(unknown[i]);
	}
	ref = xasprintf("tarball+file://%s/plain/flake.nix?dir=x", dir);
	CHECK(flake_local_parse(ref, &s) == 1 && strcmp(s.root, s.dir) == 0 &&
	          strcmp(path_basename(s.root), "flake.nix") == 0 && strcmp(s.subdir, "x") == 0,
	      "tarball+file: is the file nix unpacks");
	flake_local_free(&s);
	free(ref);
	free(real);
}

static void test_fingerprint(void)
{
	struct flake_local s;
	char *ref = xasprintf("path:%s/plain", dir);
	flake_local_parse(ref, &s);
	char *a = flake_fingerprint(&s);
	char *b = flake_fingerprint(&s);
	CHECK(a && b && strcmp(a, b) == 0 && strncmp(a, "fp1:", 4) == 0, "stable: %s", a ? a : "");
	put("plain/.moat/tmp/junk", "x");
	char *c = flake_fingerprint(&s);
	CHECK(c && strcmp(a, c) == 0, "a change under .moat/ is not an edit");
	put("plain/flake.nix", "{ outputs = _: {}; }");
	char *d = flake_fingerprint(&s);
	CHECK(d && strcmp(a, d) != 0, "a file's new size is");
	char *p = xasprintf("%s/plain/flake.nix", dir);
	struct stat st;
	stat(p, &st);
	struct timespec mtime = platform_mtime(&st);
	struct timespec t[2] = {{0, UTIME_OMIT}, {mtime.tv_sec + 10, mtime.tv_nsec}};
	utimensat(AT_FDCWD, p, t, 0);
	char *e = flake_fingerprint(&s);
	CHECK(e && strcmp(d, e) != 0, "and a new modification time");
	put("plain/new.nix", "");
	char *f = flake_fingerprint(&s);
	CHECK(f && strcmp(e, f) != 0, "and a new file");
	free(a), free(b), free(c), free(d), free(e), free(f), free(p), free(ref);
	flake_local_free(&s);
	char *cmd = xasprintf("rm -rf %s", dir);
	int rc = system(cmd);
	(void)rc;
	free(cmd);
}

int main(void)
{
	test_index();
	test_refs();
	test_fingerprint();
	return tap_done();
}
