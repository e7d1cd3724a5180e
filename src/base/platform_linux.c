#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/platform.h"

char *platform_self_exe(void) { return realpath("/proc/self/exe", NULL); }

#ifndef SYS_openat2
#define SYS_openat2 437
#endif
#define MOAT_RESOLVE_NO_MAGICLINKS 0x02
#define MOAT_RESOLVE_NO_SYMLINKS 0x04
#define MOAT_RESOLVE_BENEATH 0x08

struct moat_open_how {
	uint64_t flags, mode, resolve;
};

static int openat2_in(const char *dir, const char *rel, uint64_t flags, uint64_t resolve)
{
	/* O_PATH: a sandboxed caller may not read dir (say "/"), only below it. */
	int dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -1;
	struct moat_open_how how = {.flags = flags, .resolve = resolve};
	int fd = (int)syscall(SYS_openat2, dfd, rel, &how, sizeof(how));
	int saved = errno;
	close(dfd);
	errno = saved;
	return fd;
}

int platform_open_beneath(const char *dir, const char *rel)
{
	return openat2_in(dir, rel, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK,
			  MOAT_RESOLVE_BENEATH | MOAT_RESOLVE_NO_MAGICLINKS);
}

int platform_open_path_no_symlinks(const char *dir, const char *rel)
{
	return openat2_in(dir, rel, O_PATH | O_CLOEXEC, MOAT_RESOLVE_BENEATH | MOAT_RESOLVE_NO_SYMLINKS);
}

void platform_close_from(int lowfd)
{
	if (syscall(SYS_close_range, (unsigned)lowfd, ~0u, 0) == 0)
		return;
	/* Kernels before 5.9: close them one by one. */
	long max = sysconf(_SC_OPEN_MAX);
	for (long fd = lowfd; fd < (max > 0 ? max : 65536); fd++)
		close((int)fd);
}
