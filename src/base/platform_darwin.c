#include <limits.h>
#include <mach-o/dyld.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/platform.h"

char *platform_self_exe(void)
{
	char buf[PATH_MAX];
	uint32_t size = sizeof(buf);
	if (_NSGetExecutablePath(buf, &size) != 0)
		return NULL;
	return realpath(buf, NULL);
}

void platform_close_from(int lowfd)
{
	int max = getdtablesize();
	for (int fd = lowfd; fd < max; fd++)
		close(fd);
}
