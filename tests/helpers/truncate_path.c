/* truncate_path MODE PATH: empty PATH the way MODE says, print
 * "truncate: ok" or "truncate: <error>", exit 0 or 1.
 *
 *   path        truncate(2) by path (what Go's os.Truncate, Python's
 *               os.truncate(path), Ruby and Perl call)
 *   i386        truncate through the i386 syscall gate (int $0x80)
 *   i386-64     truncate64 through the i386 gate
 *   fd          open(O_WRONLY), then ftruncate(2)
 *   o-trunc     open(O_WRONLY | O_TRUNC)
 *
 * Landlock mediates truncate(2) only from ABI 3 (LANDLOCK_ACCESS_FS_TRUNCATE);
 * below it, moat's seccomp filter refuses truncate by path, and this probe
 * shows both that and that the descriptor-based ways keep working. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
static long int80(long nr, long a, long b, long c)
{
	long ret;
	__asm__ volatile("int $0x80"
	                 : "=a"(ret)
	                 : "a"(nr), "b"(a), "c"(b), "d"(c)
	                 : "memory", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15");
	return (int)ret;
}

/* i386 truncate (92) or truncate64 (193); the path must sit below 4 GiB. */
static int truncate_i386(const char *path, int nr)
{
	size_t len = strlen(path) + 1;
	if (len > 4096)
		return -ENAMETOOLONG;
	char *low = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
	                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
	if (low == MAP_FAILED)
		return -ENOMEM;
	memcpy(low, path, len);
	return (int)int80(nr, (long)(uintptr_t)low, 0, 0);
}
#else
static int truncate_i386(const char *path, int nr)
{
	(void)path, (void)nr;
	return -ENOSYS;
}
#endif

static int result(int rc, int err)
{
	if (rc == 0) {
		printf("truncate: ok\n");
		return 0;
	}
	printf("truncate: %s\n", strerror(err));
	return 1;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: truncate_path path|i386|i386-64|fd|o-trunc PATH\n");
		return 2;
	}
	const char *mode = argv[1], *path = argv[2];
	if (strcmp(mode, "path") == 0) {
		int rc = (int)syscall(SYS_truncate, path, 0L);
		return result(rc, errno);
	}
	if (strcmp(mode, "i386") == 0 || strcmp(mode, "i386-64") == 0) {
		int rc = truncate_i386(path, mode[4] ? 193 : 92);
		return result(rc < 0 ? -1 : 0, -rc);
	}
	if (strcmp(mode, "fd") == 0) {
		int fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd < 0)
			return result(-1, errno);
		int rc = ftruncate(fd, 0);
		int e = errno;
		close(fd);
		return result(rc, e);
	}
	if (strcmp(mode, "o-trunc") == 0) {
		int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
		if (fd >= 0)
			close(fd);
		return result(fd < 0 ? -1 : 0, errno);
	}
	fprintf(stderr, "truncate_path: unknown mode '%s'\n", mode);
	return 2;
}
