/* Fuzzes the git index reader: the index lives in the work tree's .git,
 * which sandboxed code can write, and moat reads it on every run of a shell
 * pinned from a local git flake. Any input must be refused or listed, never
 * read past its end; every listed path is non-empty and NUL-free; and the
 * count returned is the number of paths listed. A broken property aborts. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "shells/source.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void require(bool ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "fuzz_gitindex: property failed: %s\n", what);
		abort();
	}
}

static void check_path(const char *path, size_t len, void *arg)
{
	require(len > 0 && !memchr(path, '\0', len), "paths are non-empty and NUL-free");
	(*(long *)arg)++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char *buf = xmalloc(size ? size : 1);
	memcpy(buf, data, size);
	long seen = 0;
	long n = git_index_paths(buf, size, check_path, &seen);
	require(n < 0 || n == seen, "the count is the number of paths listed");
	free(buf);
	return 0;
}
