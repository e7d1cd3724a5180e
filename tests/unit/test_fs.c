/* base/fs.c: whole-file reads. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "base/fs.h"
#include "tap.h"

static char dir[] = "/tmp/moat-test-fs.XXXXXX";

/* An empty file reads as "", NUL-terminated: callers parse the buffer as a
 * string (the session supervisor parses /proc's children list, which is
 * empty whenever the tool left nothing behind, and killed whatever pids
 * the garbage spelled). */
static void test_empty_file(void)
{
	char *path = NULL;
	if (asprintf(&path, "%s/empty", dir) < 0)
		abort();
	FILE *f = fopen(path, "w");
	fclose(f);
	char *buf = NULL;
	size_t len = 99;
	struct error err = {0};
	CHECK(fs_read_file(path, 1 << 16, &buf, &len, &err) == 0, "an empty file reads");
	CHECK(len == 0 && buf && buf[0] == '\0', "as an empty, terminated string");
	free(buf);
	unlink(path);
	free(path);
}

static void test_small_file(void)
{
	char *path = NULL;
	if (asprintf(&path, "%s/small", dir) < 0)
		abort();
	FILE *f = fopen(path, "w");
	fputs("12 34\n", f);
	fclose(f);
	char *buf = NULL;
	size_t len = 0;
	struct error err = {0};
	CHECK(fs_read_file(path, 1 << 16, &buf, &len, &err) == 0 && len == 6 && buf &&
	          strcmp(buf, "12 34\n") == 0,
	      "a small file reads whole and terminated");
	free(buf);
	CHECK(fs_read_file(path, 3, &buf, &len, &err) < 0, "and is refused above max");
	error_clear(&err);
	unlink(path);
	free(path);
}

int main(void)
{
#ifdef __GLIBC__
	/* Fill fresh allocations with a non-zero byte, so that a buffer left
	 * unterminated shows up without a sanitizer. */
	mallopt(M_PERTURB, 0x41);
#endif
	if (!mkdtemp(dir))
		abort();
	test_empty_file();
	test_small_file();
	rmdir(dir);
	return tap_done();
}
