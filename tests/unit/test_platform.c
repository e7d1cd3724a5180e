/* platform_open_path_no_symlinks, with and without openat2: every rule the
 * Landlock backend opens goes through it, so a symlink anywhere must give
 * ELOOP, whether the kernel's openat2 or the fallback walk answers. */
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/path.h"
#include "base/platform.h"
#include "base/util.h"
#include "tap.h"

#ifndef SYS_openat2
#define SYS_openat2 437
#endif

static char dir[] = "/tmp/moat-test-platform.XXXXXX";

static void make_tree(void)
{
	if (!mkdtemp(dir))
		abort();
	char *real = path_join(dir, "real/sub");
	char *cmd = xasprintf(
	    "mkdir -p %s && ln -s real %s/link && ln -s sub %s/real/sublink && touch %s/file", real,
	    dir, dir, dir);
	if (system(cmd) != 0)
		abort();
	free(real);
	free(cmd);
}

static void check_opens(const char *how)
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
		int fd = platform_open_path_no_symlinks(dir, cases[i].rel);
		int got = fd >= 0 ? 0 : errno;
		if (fd >= 0)
			close(fd);
		CHECK(got == cases[i].want, "%s: %s gives %s (got %s)", how, cases[i].rel,
		      cases[i].want ? strerror(cases[i].want) : "an fd",
		      got ? strerror(got) : "an fd");
	}
}

/* As a container's seccomp profile might: openat2 answers ENOSYS. */
static void refuse_openat2(void)
{
	struct sock_filter code[] = {
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat2, 0, 1),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {.len = sizeof(code) / sizeof(*code), .filter = code};
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0)
		abort();
}

int main(void)
{
	make_tree();
	check_opens("openat2");
	refuse_openat2();
	CHECK(syscall(SYS_openat2, AT_FDCWD, "/", NULL, 0) < 0 && errno == ENOSYS,
	      "openat2 is now refused");
	check_opens("the fallback walk");
	char *cmd = xasprintf("rm -rf %s", dir);
	int rc = system(cmd);
	free(cmd);
	(void)rc;
	return tap_done();
}
