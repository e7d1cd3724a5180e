#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/platform.h"

char *platform_self_exe(void) { return realpath("/proc/self/exe", NULL); }

void platform_close_from(int lowfd)
{
	if (syscall(SYS_close_range, (unsigned)lowfd, ~0u, 0) == 0)
		return;
	/* Kernels before 5.9: close them one by one. */
	long max = sysconf(_SC_OPEN_MAX);
	for (long fd = lowfd; fd < (max > 0 ? max : 65536); fd++)
		close((int)fd);
}
