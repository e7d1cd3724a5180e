/* base/fs.c: whole-file reads; fs_mkdir_p. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
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

/* A buffer sized from fstat: a file read whole in one go, and one whose
 * size fstat does not know (/proc's), read in growing steps. */
static void test_sized_reads(void)
{
	char *path = NULL;
	if (asprintf(&path, "%s/large", dir) < 0)
		abort();
	FILE *f = fopen(path, "w");
	for (int i = 0; i < 2000; i++)
		fprintf(f, "line %04d\n", i); /* 10 bytes each */
	fclose(f);
	char *buf = NULL;
	size_t len = 0;
	struct error err = {0};
	CHECK(fs_read_file(path, 1 << 16, &buf, &len, &err) == 0 && len == 20000 &&
	          strncmp(buf, "line 0000\n", 10) == 0 && strcmp(buf + 19990, "line 1999\n") == 0,
	      "a 20,000-byte file reads whole and terminated");
	free(buf);
	CHECK(fs_read_file(path, 19999, &buf, &len, &err) < 0, "and is refused a byte above max");
	error_clear(&err);
	unlink(path);
	free(path);
#ifdef __linux__
	/* /proc/self/smaps: fstat says 0 bytes; 32 mappings of our own (pages
	 * of alternating protection, which do not merge) make it 20 KB more. */
	char *pages = mmap(NULL, 32 * 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (pages == MAP_FAILED)
		abort();
	for (int i = 0; i < 32; i += 2)
		mprotect(pages + i * 4096, 4096, PROT_READ);
	buf = NULL;
	int rc = fs_read_file("/proc/self/smaps", 1 << 22, &buf, &len, &err);
	CHECK(rc == 0 && len > 8192 && strlen(buf) == len && buf[len - 1] == '\n',
	      "a file fstat calls empty reads whole, past 8 KB (%zu bytes)", len);
	free(buf);
	munmap(pages, 32 * 4096);
#endif
}

/* fs_mkdir_p makes every missing level, takes one that is there, and
 * refuses a file in the way, naming it. */
static void test_mkdir_p(void)
{
	char *deep = NULL, *file = NULL, *under = NULL;
	if (asprintf(&deep, "%s/a/b//c/d", dir) < 0 || asprintf(&file, "%s/a/f", dir) < 0 ||
	    asprintf(&under, "%s/a/f/g", dir) < 0)
		abort();
	struct error err = {0};
	struct stat st;
	CHECK(fs_mkdir_p(deep, 0755, &err) == 0 && stat(deep, &st) == 0 && S_ISDIR(st.st_mode),
	      "fs_mkdir_p makes four missing levels");
	CHECK(fs_mkdir_p(deep, 0755, &err) == 0, "and takes them when they are there");
	CHECK(fs_mkdir_p(dir, 0755, &err) == 0 && fs_mkdir_p("/", 0755, &err) == 0,
	      "and the test's own directory, and /");
	FILE *f = fopen(file, "w");
	fclose(f);
	CHECK(fs_mkdir_p(file, 0755, &err) < 0 && strstr(err.msg, "/a/f'"),
	      "a file where a directory should be is an error naming it");
	err = (struct error){0};
	CHECK(fs_mkdir_p(under, 0755, &err) < 0 && strstr(err.msg, "/a/f"),
	      "and so is a path through a file");
	char *cmd = NULL;
	if (asprintf(&cmd, "rm -rf '%s/a'", dir) < 0 || system(cmd) != 0)
		abort();
	free(cmd), free(deep), free(file), free(under);
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
	test_sized_reads();
	test_mkdir_p();
	rmdir(dir);
	return tap_done();
}
