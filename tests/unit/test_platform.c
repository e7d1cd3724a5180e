/* The platform layer (src/base/platform_<os>.c), on whichever platform the
 * test is built for: the same answers from each. */
#include <fcntl.h>
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

int main(void)
{
	opens_make_tree();
	opens_check("platform_open_path_no_symlinks");
	opens_remove_tree();
	test_pipe_cloexec();
	test_self_exe();
	return tap_done();
}
