/* setid HOW PATH [MODE [SOURCE]]: create PATH with MODE (default 04755) in
 * one of the ways that take a mode, then copy SOURCE (default /usr/bin/id)
 * into it. Landlock does not look at the mode, so as root this makes a
 * setuid-root program in the project that any local user can run (issue 12).
 *
 *   open, openat, creat        O_CREAT with MODE
 *   mknod, mknodat             S_IFREG | MODE, then opened for writing
 *   openat2                    O_CREAT with MODE in struct open_how
 *   o_tmpfile                  O_TMPFILE with MODE, then linked to PATH
 *   open-i386, openat-i386, creat-i386, mknod-i386, mknodat-i386
 *                              the same through the i386 gate (int $0x80)
 * Prints "HOW: ok mode=NNNN" (the mode right after creation: a non-root
 * writer's copy clears the set-id bits again) and exits 0, else
 * "HOW: <step>: <strerror>" on stderr and exits 1.
 *
 * Neighbours that must keep working:
 *   tmpfile                    with no PATH: glibc tmpfile() (hard-coded
 *                              /tmp), write and read back: "tmpfile: ok"
 *   openat2-read PATH          openat2(PATH, O_RDONLY): answered or not
 *                              ("openat2-read: ok" or the error) */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_openat2
#define SYS_openat2 437
#endif

struct how_abi {
	uint64_t flags, mode, resolve;
};

static const char *how;

static int fail(const char *step, int e)
{
	fprintf(stderr, "%s: %s: %s\n", how, step, strerror(e));
	return 1;
}

#if defined(__x86_64__)
#define HAVE_I386 1
static long int80(long nr, long a, long b, long c, long d)
{
	long ret;
	__asm__ volatile("int $0x80"
	                 : "=a"(ret)
	                 : "a"(nr), "b"(a), "c"(b), "d"(c), "S"(d)
	                 : "memory", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15");
	return (int)ret;
}

static char *low_copy(const char *s)
{
	char *p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT,
	               -1, 0);
	if (p == MAP_FAILED || strlen(s) >= 8192)
		return NULL;
	return strcpy(p, s);
}
#else
#define HAVE_I386 0
static long int80(long nr, long a, long b, long c, long d)
{
	(void)nr, (void)a, (void)b, (void)c, (void)d;
	return -ENOSYS;
}
static char *low_copy(const char *s)
{
	(void)s;
	return NULL;
}
#endif

/* i386 numbers (arch/x86/entry/syscalls/syscall_32.tbl) and its O_ flags,
 * which are the generic ones (O_LARGEFILE aside). */
static long i386_create(const char *base, const char *path, mode_t mode)
{
	if (!HAVE_I386)
		return -ENOSYS;
	char *p = low_copy(path);
	if (!p)
		return -ENOMEM;
	long flags = O_CREAT | O_WRONLY | O_EXCL | 0100000 /* O_LARGEFILE */;
	if (strcmp(base, "open") == 0)
		return int80(5, (long)(uintptr_t)p, flags, mode, 0);
	if (strcmp(base, "openat") == 0)
		return int80(295, AT_FDCWD, (long)(uintptr_t)p, flags, mode);
	if (strcmp(base, "creat") == 0)
		return int80(8, (long)(uintptr_t)p, mode, 0, 0);
	if (strcmp(base, "mknod") == 0)
		return int80(14, (long)(uintptr_t)p, S_IFREG | mode, 0, 0);
	if (strcmp(base, "mknodat") == 0)
		return int80(297, AT_FDCWD, (long)(uintptr_t)p, S_IFREG | mode, 0);
	return -EINVAL;
}

/* A descriptor open for writing on the new file, or -errno. */
static long create(const char *path, mode_t mode)
{
	long r;
	size_t n = strlen(how);
	if (n > 5 && strcmp(how + n - 5, "-i386") == 0) {
		char base[32];
		snprintf(base, sizeof(base), "%.*s", (int)(n - 5), how);
		r = i386_create(base, path, mode);
		if (r < 0)
			return r;
		if (strncmp(base, "mknod", 5) == 0)
			r = open(path, O_WRONLY | O_CLOEXEC);
		return r < 0 ? -errno : r;
	}
	if (strcmp(how, "open") == 0)
		r = syscall(SYS_open, path, O_CREAT | O_WRONLY | O_EXCL | O_CLOEXEC, mode);
	else if (strcmp(how, "openat") == 0)
		r = syscall(SYS_openat, AT_FDCWD, path, O_CREAT | O_WRONLY | O_EXCL | O_CLOEXEC,
		            mode);
	else if (strcmp(how, "creat") == 0)
		r = syscall(SYS_creat, path, mode);
	else if (strcmp(how, "mknod") == 0 || strcmp(how, "mknodat") == 0) {
		r = strcmp(how, "mknod") == 0
		        ? syscall(SYS_mknod, path, S_IFREG | mode, 0)
		        : syscall(SYS_mknodat, AT_FDCWD, path, S_IFREG | mode, 0);
		if (r == 0)
			r = open(path, O_WRONLY | O_CLOEXEC);
	} else if (strcmp(how, "openat2") == 0) {
		struct how_abi h = {O_CREAT | O_WRONLY | O_EXCL | O_CLOEXEC, mode, 0};
		r = syscall(SYS_openat2, AT_FDCWD, path, &h, sizeof(h));
	} else if (strcmp(how, "o_tmpfile") == 0) {
		char dir[4096];
		snprintf(dir, sizeof(dir), "%s", path);
		char *slash = strrchr(dir, '/');
		if (slash)
			*(slash == dir ? slash + 1 : slash) = '\0';
		else
			strcpy(dir, ".");
		r = syscall(SYS_openat, AT_FDCWD, dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, mode);
		if (r >= 0) {
			char proc[64];
			snprintf(proc, sizeof(proc), "/proc/self/fd/%ld", r);
			if (linkat(AT_FDCWD, proc, AT_FDCWD, path, AT_SYMLINK_FOLLOW) < 0)
				return -errno;
		}
	} else {
		return -ENOSYS;
	}
	return r < 0 ? -errno : r;
}

static int copy(int out, const char *source)
{
	int in = open(source, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return fail(source, errno);
	char buf[65536];
	ssize_t n;
	while ((n = read(in, buf, sizeof(buf))) > 0) {
		if (write(out, buf, (size_t)n) != n)
			return fail("write", errno);
	}
	close(in);
	return n < 0 ? fail("read", errno) : 0;
}

static int glibc_tmpfile(void)
{
	FILE *f = tmpfile();
	if (!f)
		return fail("tmpfile", errno);
	if (fputs("TMPFILE-CONTENT", f) < 0 || fflush(f) != 0)
		return fail("write", errno);
	rewind(f);
	char buf[32] = {0};
	if (!fgets(buf, sizeof(buf), f) || strcmp(buf, "TMPFILE-CONTENT") != 0)
		return fail("read back", EIO);
	printf("tmpfile: ok\n");
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: setid HOW PATH [MODE [SOURCE]]\n");
		return 2;
	}
	how = argv[1];
	if (strcmp(how, "tmpfile") == 0 && argc == 2)
		return glibc_tmpfile();
	if (argc < 3)
		return 2;
	const char *path = argv[2];
	if (strcmp(how, "openat2-read") == 0) {
		struct how_abi h = {O_RDONLY | O_CLOEXEC, 0, 0};
		if (syscall(SYS_openat2, AT_FDCWD, path, &h, sizeof(h)) < 0)
			return fail("openat2", errno);
		printf("%s: ok\n", how);
		return 0;
	}
	mode_t mode = argc > 3 ? (mode_t)strtoul(argv[3], NULL, 8) : 04755;
	const char *source = argc > 4 ? argv[4] : "/usr/bin/id";
	static const char *const ways[] = {
	    "open",      "openat",    "creat",       "mknod",      "mknodat",    "openat2",
	    "o_tmpfile", "open-i386", "openat-i386", "creat-i386", "mknod-i386", "mknodat-i386"};
	size_t i = 0;
	while (i < sizeof(ways) / sizeof(ways[0]) && strcmp(ways[i], how) != 0)
		i++;
	if (i == sizeof(ways) / sizeof(ways[0])) {
		fprintf(stderr, "setid: unknown way '%s'\n", how);
		return 2;
	}
	umask(0);
	long fd = create(path, mode);
	if (fd < 0)
		return fail("create", (int)-fd);
	struct stat st;
	if (stat(path, &st) < 0)
		return fail("stat", errno);
	if (copy((int)fd, source))
		return 1;
	close((int)fd);
	printf("%s: ok mode=%04o\n", how, (unsigned)(st.st_mode & 07777));
	return 0;
}
