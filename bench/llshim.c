/* For counting instructions only: valgrind 3.19 does not know the Landlock
 * system calls (444-446) and fails them with ENOSYS, so moat-wrapper would
 * stop at its probe. Preloaded under callgrind, this answers them as a
 * kernel with ABI 7 would (a ruleset fd, success), so the count covers the
 * wrapper's whole user-space path. Never used for timing or confinement. */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <unistd.h>

long syscall(long nr, ...);

long syscall(long nr, ...)
{
	va_list ap;
	va_start(ap, nr);
	long a[6];
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	switch (nr) {
	case 444: /* landlock_create_ruleset: version query or a new ruleset */
		return (a[2] & 1) ? 7 : open("/dev/null", O_RDONLY | O_CLOEXEC);
	case 445: /* landlock_add_rule */
	case 446: /* landlock_restrict_self */ return 0;
	}
	static long (*real)(long, ...);
	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "syscall");
	return real(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}
