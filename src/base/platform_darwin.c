#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <mach-o/dyld.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
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

char *platform_canonical_path(const char *path)
{
	return realpath(path, NULL);
}

int platform_open_canonical(const char *path, char **canon)
{
	*canon = realpath(path, NULL);
	return -1;
}

int platform_open_beneath(const char *dir, const char *rel)
{
	/* No openat2 on macOS: refuse any symlink on the way instead. */
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	char buf[PATH_MAX];
	strlcpy(buf, rel, sizeof(buf));
	for (char *part = buf, *slash; fd >= 0 && part; part = slash ? slash + 1 : NULL) {
		slash = strchr(part, '/');
		if (slash)
			*slash = '\0';
		int flags = O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | (slash ? O_DIRECTORY : O_NOCTTY);
		int next = strcmp(part, "..") == 0 ? (errno = EXDEV, -1)
		                                   : openat(fd, part, O_RDONLY | flags);
		int saved = errno;
		close(fd);
		errno = saved;
		fd = next;
	}
	return fd;
}

void platform_close_range(int lo, int hi)
{
	int max = getdtablesize();
	for (int fd = lo; fd <= hi && fd < max; fd++)
		close(fd);
}

void platform_close_from(int lowfd)
{
	platform_close_range(lowfd, INT_MAX);
}

int platform_open_name_no_symlinks(int dirfd, const char *name)
{
	(void)dirfd, (void)name;
	errno = ENOSYS; /* callers look the whole path up instead */
	return -1;
}

int platform_open_path_no_symlinks(const char *dir, const char *rel)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -1;
	/* O_NOFOLLOW_ANY (macOS 11) refuses a symlink in any component. An
	 * absolute rel would make openat ignore dfd: out of dir, as "..". */
	int fd = rel[0] == '/' || strstr(rel, "..")
	             ? (errno = EXDEV, -1)
	             : openat(dfd, rel, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW_ANY);
	int saved = errno;
	close(dfd);
	errno = saved;
	return fd;
}

int platform_exec_file(const char *path, bool no_symlinks, char *const *argv)
{
	/* macOS has neither execveat nor fexecve: the path is run, checked
	 * first (a link swapped in after the jailbreak was judged is refused);
	 * docs/macos.md says what stays open between the two. */
	int fd = no_symlinks ? platform_open_path_no_symlinks("/", path + 1) : -2;
	if (fd == -1)
		return -1;
	if (fd >= 0)
		close(fd);
	return execv(path, argv);
}

int platform_pipe_cloexec(int fds[2])
{
	/* No pipe2 on macOS. Not atomic: a thread forking between pipe and
	 * fcntl would inherit the ends, but moat starts no threads. */
	if (pipe(fds) < 0)
		return -1;
	for (int i = 0; i < 2; i++) {
		if (fcntl(fds[i], F_SETFD, FD_CLOEXEC) < 0) {
			int saved = errno;
			close(fds[0]);
			close(fds[1]);
			errno = saved;
			return -1;
		}
	}
	return 0;
}

bool platform_is_macos(void)
{
	return true;
}

struct timespec platform_mtime(const struct stat *st)
{
	return st->st_mtimespec;
}

void platform_become_subreaper(void) {}
void platform_cpu_hold(void) {}
void platform_cpu_release(void) {}

/* No memory is shared here (PLATFORM_QUIET_RAW is 0): libc, errno kept. */
static long quiet(long ret, int saved)
{
	if (ret < 0)
		ret = -errno;
	errno = saved;
	return ret;
}

long platform_quiet_read(int fd, void *buf, size_t n)
{
	int saved = errno;
	return quiet(read(fd, buf, n), saved);
}

long platform_quiet_write(int fd, const void *buf, size_t n)
{
	int saved = errno;
	return quiet(write(fd, buf, n), saved);
}

long platform_quiet_poll(struct pollfd *fds, unsigned int n)
{
	int saved = errno;
	return quiet(poll(fds, n, -1), saved);
}

long platform_quiet_kill(pid_t pid, int sig)
{
	int saved = errno;
	return quiet(kill(pid, sig), saved);
}

long platform_quiet_wait(pid_t pid, int *status, int options)
{
	int saved = errno;
	return quiet(waitpid(pid, status, options), saved);
}

long platform_quiet_close(int fd)
{
	int saved = errno;
	return quiet(close(fd), saved);
}

long platform_quiet_close_range(int lo, int hi)
{
	int saved = errno;
	platform_close_range(lo, hi);
	errno = saved;
	return 0;
}

void platform_populate(void *start, size_t len)
{
	(void)start, (void)len;
}

int platform_rename_noreplace(int dfd, const char *from, const char *to)
{
	return renameatx_np(dfd, from, dfd, to, RENAME_EXCL);
}
