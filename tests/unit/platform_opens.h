/* The cases every platform_open_path_no_symlinks must answer the same way,
 * for test_platform.c (each platform's own code) and test_linux_platform.c
 * (Linux's fallback walk, when openat2 is refused). Every rule the Landlock
 * backend opens goes through it, so a symlink anywhere must give ELOOP and
 * any way out of dir EXDEV. */
#ifndef MOAT_TESTS_PLATFORM_OPENS_H
#define MOAT_TESTS_PLATFORM_OPENS_H

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/platform.h"
#include "base/util.h"
#include "tap.h"

static char opens_dir[] = "/tmp/moat-test-platform.XXXXXX";

static void opens_make_tree(void)
{
	if (!mkdtemp(opens_dir))
		abort();
	char *cmd =
	    xasprintf("cd %s && mkdir -p real/sub && ln -s real link && ln -s sub real/sublink "
	              "&& touch file",
	              opens_dir);
	if (system(cmd) != 0)
		abort();
	free(cmd);
}

static void opens_remove_tree(void)
{
	char *cmd = xasprintf("rm -rf %s", opens_dir);
	int rc = system(cmd);
	free(cmd);
	(void)rc;
}

static void opens_check(const char *how)
{
	static const struct {
		const char *rel;
		int want; /* 0: opens; else the errno */
	} cases[] = {
	    {"real", 0},
	    {"real/sub", 0},
	    {"real//sub/", 0},
	    {"./real/./sub", 0},
	    {"link", ELOOP},
	    {"link/sub", ELOOP},
	    {"real/sublink", ELOOP},
	    {"real/sublink/", ELOOP},
	    {"real/../..", EXDEV},
	    {"missing", ENOENT},
	    {"file/", ENOTDIR},
	    {"/real", EXDEV},
	    {"", ENOENT},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		errno = 0;
		int fd = platform_open_path_no_symlinks(opens_dir, cases[i].rel);
		int got = fd >= 0 ? 0 : errno;
		if (fd >= 0)
			close(fd);
		CHECK(got == cases[i].want, "%s: %s gives %s (got %s)", how, cases[i].rel,
		      cases[i].want ? strerror(cases[i].want) : "an fd",
		      got ? strerror(got) : "an fd");
	}
}

#endif
