#include "base/fs.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/path.h"
#include "base/platform.h"
#include "base/strbuf.h"

static int read_fd(int fd, const char *path, size_t max, char **data, size_t *len,
                   struct error *err)
{
	struct stat st;
	if (fstat(fd, &st) < 0)
		return error_errno(err, "cannot stat '%s'", path);
	if (!S_ISREG(st.st_mode)) {
		errno = EINVAL;
		return error_set(err, "'%s' is not a regular file", path);
	}
	/* Room for the whole file and a byte more, to find its end in the
	 * next read: a small file (a manifest, config.zon) then takes a small
	 * block, where 8 KB was a mapping of its own, made and unmapped on
	 * every wrapped tool's start. */
	struct strbuf sb = STRBUF_INIT;
	sb_grow(&sb, st.st_size > 0 && (uintmax_t)st.st_size < max ? (size_t)st.st_size + 1 : 4096);
	for (;;) {
		if (sb.len + 1 == sb.cap)
			sb_grow(&sb, 4096);
		ssize_t n = read(fd, sb.buf + sb.len, sb.cap - sb.len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int saved = errno;
			sb_release(&sb);
			errno = saved;
			return error_set(err, "cannot read '%s': %s", path, strerror(saved));
		}
		if (n == 0)
			break;
		sb.len += (size_t)n;
		if (sb.len > max) {
			sb_release(&sb);
			errno = EFBIG;
			return error_set(err, "'%s' is larger than %zu bytes", path, max);
		}
	}
	sb.buf[sb.len] = '\0'; /* an empty file too: sb_grow leaves it unset */
	*len = sb.len;
	*data = sb_detach(&sb);
	return 0;
}

int fs_read_file(const char *path, size_t max, char **data, size_t *len, struct error *err)
{
	/* O_NONBLOCK: a FIFO planted where a file should be must not hang us
	 * (read_fd then refuses it). */
	cleanup_close int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return error_errno(err, "cannot open '%s'", path);
	return read_fd(fd, path, max, data, len, err);
}

int fs_read_beneath(const char *dir, const char *rel, size_t max, char **data, size_t *len,
                    struct error *err)
{
	cleanup_free char *path = path_join(dir, rel);
	cleanup_close int fd = platform_open_beneath(dir, rel);
	if (fd < 0) {
		int e = errno;
		error_set(err, "cannot open '%s': %s", path,
		          e == EXDEV || e == ELOOP ? "it leads out of its shell directory"
		                                   : strerror(e));
		errno = e;
		return -1;
	}
	return read_fd(fd, path, max, data, len, err);
}

static int write_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Create name in dirfd under a fresh temporary name: returns its fd and
 * leaves the name in tmp. mkostemp takes no directory fd, hence our own. */
static int create_temp_at(int dirfd, const char *name, char *tmp, size_t size)
{
	static unsigned counter;
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	for (int tries = 0; tries < 100; tries++) {
		unsigned long salt =
		    (unsigned long)now.tv_nsec ^ ((unsigned long)getpid() << 20) ^ counter++;
		snprintf(tmp, size, ".%s.%06lx", name, salt & 0xffffff);
		int fd =
		    openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	return -1;
}

int fs_write_atomic_at(int dirfd, const char *dir, const char *name, const void *data, size_t len,
                       mode_t mode, struct error *err)
{
	struct stat st;
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode))
		mode = st.st_mode & 07777;
	char tmp[NAME_MAX + 1];
	if (strlen(name) > NAME_MAX - 8)
		return error_set(err, "cannot write '%s/%s': the name is too long", dir, name);
	int fd = create_temp_at(dirfd, name, tmp, sizeof(tmp));
	if (fd < 0)
		return error_errno(err, "cannot create a temporary file in '%s'", dir);
	const char *what = "write";
	if (fchmod(fd, mode) < 0 || (what = "write", write_all(fd, data, len) < 0) ||
	    (what = "sync", fsync(fd) < 0)) {
		int saved = errno;
		close(fd);
		unlinkat(dirfd, tmp, 0);
		return error_set(err, "cannot %s '%s/%s': %s", what, dir, tmp, strerror(saved));
	}
	/* rename replaces name itself, never what a symlink there points at. */
	if (close(fd) < 0 || renameat(dirfd, tmp, dirfd, name) < 0) {
		int saved = errno;
		unlinkat(dirfd, tmp, 0);
		return error_set(err, "cannot replace '%s/%s': %s", dir, name, strerror(saved));
	}
	fsync(dirfd); /* make the rename itself durable */
	return 0;
}

/* Open dir/name (an entry of dirfd) for reading, never through a link nor
 * blocking on a FIFO; a regular file its owner cannot read is given read
 * permission first, through a descriptor of that very file. */
static int open_to_copy(int dirfd, const char *name)
{
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd >= 0 || errno != EACCES)
		return fd;
	cleanup_close int at = openat(dirfd, name, O_LOOKUP | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	if (at < 0 || fstat(at, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid())
		return -1;
	char self[64];
	snprintf(self, sizeof(self), "/proc/self/fd/%d", at);
	if (chmod(self, (st.st_mode & 07777) | 0400) < 0)
		return -1;
	return open(self, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
}

int fs_copy_over_at(int dirfd, const char *dir, const char *name, struct error *err)
{
	cleanup_close int src = open_to_copy(dirfd, name);
	struct stat st;
	if (src < 0 || fstat(src, &st) < 0)
		return error_errno(err, "cannot read '%s/%s'", dir, name);
	if (!S_ISREG(st.st_mode))
		return error_set(err, "cannot copy '%s/%s': not a regular file", dir, name);
	char tmp[NAME_MAX + 1];
	if (strlen(name) > NAME_MAX - 8)
		return error_set(err, "cannot copy '%s/%s': the name is too long", dir, name);
	int fd = create_temp_at(dirfd, name, tmp, sizeof(tmp));
	if (fd < 0)
		return error_errno(err, "cannot create a temporary file in '%s'", dir);
	char buf[1 << 16];
	ssize_t n;
	while ((n = read(src, buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR))
		if (n > 0 && write_all(fd, buf, (size_t)n) < 0)
			break;
	/* The copy keeps the mode and, for root in another's project, the owner. */
	bool done = n == 0 && fchmod(fd, st.st_mode & 07777) == 0 &&
	            (geteuid() != 0 || fchown(fd, st.st_uid, st.st_gid) == 0) && fsync(fd) == 0;
	int saved = errno;
	if (close(fd) < 0 && done)
		done = false, saved = errno;
	if (!done || renameat(dirfd, tmp, dirfd, name) < 0) {
		saved = done ? errno : saved;
		unlinkat(dirfd, tmp, 0);
		return error_set(err, "cannot copy '%s/%s': %s", dir, name, strerror(saved));
	}
	return 0;
}

int fs_write_atomic(const char *path, const void *data, size_t len, mode_t mode, struct error *err)
{
	cleanup_free char *dir = path_dirname(path);
	cleanup_close int dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		return error_errno(err, "cannot open '%s'", dir);
	return fs_write_atomic_at(dirfd, dir, path_basename(path), data, len, mode, err);
}

int fs_read_at(int dirfd, const char *dir, const char *name, size_t max, char **data, size_t *len,
               struct error *err)
{
	cleanup_free char *path = path_join(dir, name);
	cleanup_close int fd =
	    openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW);
	if (fd < 0) {
		int e = errno;
		error_set(err, "cannot open '%s': %s", path,
		          e == ELOOP ? "it is a symlink" : strerror(e));
		errno = e;
		return -1;
	}
	return read_fd(fd, path, max, data, len, err);
}

int fs_subdir_at(int dirfd, const char *dir, const char *name, mode_t mode, struct error *err)
{
	if (mkdirat(dirfd, name, mode) < 0 && errno != EEXIST)
		return error_errno(err, "cannot create '%s/%s'", dir, name);
	int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		struct stat st;
		if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) {
			error_set(err, "refusing to write through '%s/%s': it is a symlink", dir,
			          name);
			error_hint(
			    err,
			    "sandboxed code may have planted it; remove it if you did not make it");
			return -1;
		}
		return error_errno(err, "cannot open '%s/%s'", dir, name);
	}
	return fd;
}

int fs_lock_beside(const char *path, struct error *err)
{
	cleanup_free char *dir = path_dirname(path);
	if (fs_mkdir_p(dir, 0700, err) < 0)
		return -1;
	cleanup_free char *lock_path = xasprintf("%s.lock", path);
	int fd = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return error_errno(err, "cannot open '%s'", lock_path);
	while (flock(fd, LOCK_EX) < 0) {
		if (errno != EINTR) {
			int e = errno;
			close(fd);
			return error_set(err, "cannot lock '%s': %s", lock_path, strerror(e));
		}
	}
	return fd;
}

/* The deepest first: where the parents are there (most calls, and every
 * grant a session binds into its private /tmp after the first), one
 * mkdir, not one a level. */
int fs_mkdir_p(const char *path, mode_t mode, struct error *err)
{
	if (mkdir(path, mode) == 0)
		return 0;
	if (errno == ENOENT) {
		cleanup_free char *parent = path_dirname(path);
		if (strcmp(parent, path) != 0 && fs_mkdir_p(parent, mode, err) < 0)
			return -1;
		if (mkdir(path, mode) == 0)
			return 0;
	}
	if (errno != EEXIST)
		return error_errno(err, "cannot create directory '%s'", path);
	if (!fs_is_dir(path))
		return error_set(err, "cannot create directory '%s': %s", path, strerror(ENOTDIR));
	return 0;
}

char *fs_cwd(struct error *err)
{
	char *cwd = getcwd(NULL, 0);
	if (!cwd) {
		if (errno == ENOENT)
			error_set(err, "the current directory no longer exists");
		else
			error_errno(err, "cannot get the current directory");
		error_hint(err, "cd to an existing directory and try again");
		return NULL;
	}
	return cwd;
}

char *fs_absolute(const char *path, struct error *err)
{
	if (path[0] == '/')
		return path_normalize(path);
	cleanup_free char *cwd = fs_cwd(err);
	if (!cwd)
		return NULL;
	cleanup_free char *joined = path_join(cwd, path);
	return path_normalize(joined);
}

bool fs_is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

bool fs_exists(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0;
}

char *fs_canonical_prefix(const char *path, struct error *err)
{
	if (path[0] != '/') {
		error_set(err, "'%s' is not an absolute path", path);
		return NULL;
	}
	cleanup_free char *norm = path_normalize(path);
	/* head is always a prefix of norm: shorten it until it exists ("/" does). */
	cleanup_free char *head = xstrdup(norm);
	for (;;) {
		cleanup_free char *canon = platform_canonical_path(head);
		if (canon) {
			const char *rest = norm + strlen(head);
			if (strcmp(canon, "/") == 0)
				return xasprintf("/%s", rest + (*rest == '/'));
			return xasprintf("%s%s", canon, rest);
		}
		char *slash = strrchr(head, '/');
		if (slash == head)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
}
