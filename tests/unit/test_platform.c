/* The platform layer (src/base/platform_<os>.c), on whichever platform the
 * test is built for: the same answers from each. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "platform_opens.h"

static void test_pipe_cloexec(void)
{
	int fds[2];
	CHECK(platform_pipe_cloexec(fds) == 0, "platform_pipe_cloexec makes a pipe");
	for (int i = 0; i < 2; i++)
		CHECK(fcntl(fds[i], F_GETFD) & FD_CLOEXEC, "its end %d is close-on-exec", i);
	CHECK(write(fds[1], "x", 1) == 1, "what is written to one end");
	char c = 0;
	CHECK(read(fds[0], &c, 1) == 1 && c == 'x', "comes out of the other");
	close(fds[0]);
	close(fds[1]);
}

static void test_self_exe(void)
{
	char *self = platform_self_exe();
	CHECK(self && self[0] == '/' && access(self, X_OK) == 0,
	      "platform_self_exe names an executable by its absolute path (%s)",
	      self ? self : "NULL");
	char *again = self ? realpath(self, NULL) : NULL;
	CHECK(again && strcmp(again, self) == 0, "and that path is canonical");
	free(again);
	free(self);
}

/* The same answer as realpath(3): through a symlinked directory, "..", a
 * deep tree; and none for a missing path. */
static void test_canonical_path(void)
{
	char tmpl[] = "/tmp/moat-canon.XXXXXX";
	char *top = mkdtemp(tmpl);
	CHECK(top != NULL, "a temporary directory");
	if (!top)
		return;
	char deep[PATH_MAX], path[PATH_MAX + 64], cmd[PATH_MAX + 64];
	int n = snprintf(deep, sizeof(deep), "%s/real", top);
	for (int i = 0; i < 128; i++)
		n += snprintf(deep + n, sizeof(deep) - (size_t)n, "/d");
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s' && ln -s real '%s/link'", deep, top);
	CHECK(system(cmd) == 0, "a tree 128 directories deep and a link to it");
	const char *cases[] = {"/link/d/d", "/real/d/../d", "/link",   "/real",
	                       "/real/./d", "/real//d",     "/real/d/"};
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		snprintf(path, sizeof(path), "%s%s", top, cases[i]);
		char *want = realpath(path, NULL), *got = platform_canonical_path(path);
		CHECK(want && got && strcmp(want, got) == 0,
		      "platform_canonical_path(TMP%s) is realpath's %s (got %s)", cases[i],
		      want ? want : "NULL", got ? got : "NULL");
		free(got);
#ifdef __linux__
		/* The descriptor is of that file, and no tool inherits it (macOS
		 * gives none). */
		int fd = platform_open_canonical(path, &got);
		struct stat a, b;
		CHECK(fd >= 0 && got && want && strcmp(want, got) == 0 && fstat(fd, &a) == 0 &&
		          stat(want, &b) == 0 && a.st_ino == b.st_ino && a.st_dev == b.st_dev &&
		          (fcntl(fd, F_GETFD) & FD_CLOEXEC),
		      "platform_open_canonical(TMP%s): a close-on-exec descriptor of %s", cases[i],
		      want ? want : "NULL");
		if (fd >= 0)
			close(fd);
		free(got);
#endif
		free(want);
	}
	snprintf(path, sizeof(path), "%s/link%s", top, deep + strlen(top) + strlen("/real"));
	char *want = realpath(path, NULL), *got = platform_canonical_path(path);
	CHECK(want && got && strcmp(want, got) == 0, "and of a path 128 directories deep");
	free(want);
	free(got);
	/* Relative to the current directory, as realpath takes it (moat link DIR). */
	char cwd[PATH_MAX];
	if (getcwd(cwd, sizeof(cwd)) && chdir(top) == 0) {
		want = realpath("link/d", NULL), got = platform_canonical_path("link/d");
		CHECK(want && got && strcmp(want, got) == 0, "a relative path: %s",
		      got ? got : "NULL");
		free(want);
		free(got);
		CHECK(chdir(cwd) == 0, "back to %s", cwd);
	}
	snprintf(path, sizeof(path), "%s/missing", top);
	errno = 0;
	got = platform_canonical_path(path);
	CHECK(!got && errno == ENOENT, "a missing path has none (ENOENT)");
	free(got);
#ifdef __linux__
	errno = 0;
	CHECK(platform_open_canonical(path, &got) == -1 && !got && errno == ENOENT,
	      "nor a descriptor (ENOENT)");
#endif
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	CHECK(system(cmd) == 0, "the tree is removed");
}

int main(void)
{
	opens_make_tree();
	opens_check("platform_open_path_no_symlinks");
	opens_remove_tree();
	test_pipe_cloexec();
	test_self_exe();
	test_canonical_path();
	return tap_done();
}
