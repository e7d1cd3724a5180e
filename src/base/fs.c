#include "base/fs.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>

#include "base/path.h"
#include "base/platform.h"
#include "base/strbuf.h"

static int read_fd(int fd, const char *path, size_t max, char **data, size_t *len,
		   struct error *err)
{
	struct stat st;
	if (fstat(fd, &st) < 0)
		return error_set(err, "cannot stat '%s': %s", path, strerror(errno));
	if (!S_ISREG(st.st_mode)) {
		errno = EINVAL;
		return error_set(err, "'%s' is not a regular file", path);
	}
	struct strbuf sb = STRBUF_INIT;
	for (;;) {
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
		sb.buf[sb.len] = '\0';
		if (sb.len > max) {
			sb_release(&sb);
			errno = EFBIG;
			return error_set(err, "'%s' is larger than %zu bytes", path, max);
		}
	}
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
		return error_set(err, "cannot open '%s': %s", path, strerror(errno));
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
			  e == EXDEV || e == ELOOP ? "it leads out of its shell directory" : strerror(e));
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

int fs_write_atomic(const char *path, const void *data, size_t len, mode_t mode, struct error *err)
{
	struct stat st;
	if (stat(path, &st) == 0)
		mode = st.st_mode & 07777;
	cleanup_free char *dir = path_dirname(path);
	cleanup_free char *tmp = xasprintf("%s/.%s.XXXXXX", dir, path_basename(path));
	int fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return error_set(err, "cannot create a temporary file in '%s': %s", dir, strerror(errno));
	const char *what = "write";
	if (fchmod(fd, mode) < 0 || (what = "write", write_all(fd, data, len) < 0) ||
	    (what = "sync", fsync(fd) < 0)) {
		int saved = errno;
		close(fd);
		unlink(tmp);
		return error_set(err, "cannot %s '%s': %s", what, tmp, strerror(saved));
	}
	if (close(fd) < 0 || rename(tmp, path) < 0) {
		int saved = errno;
		unlink(tmp);
		return error_set(err, "cannot replace '%s': %s", path, strerror(saved));
	}
	/* Make the rename itself durable. */
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	return 0;
}

int fs_lock_beside(const char *path, struct error *err)
{
	cleanup_free char *dir = path_dirname(path);
	if (fs_mkdir_p(dir, 0700, err) < 0)
		return -1;
	cleanup_free char *lock_path = xasprintf("%s.lock", path);
	int fd = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return error_set(err, "cannot open '%s': %s", lock_path, strerror(errno));
	while (flock(fd, LOCK_EX) < 0) {
		if (errno != EINTR) {
			int e = errno;
			close(fd);
			return error_set(err, "cannot lock '%s': %s", lock_path, strerror(e));
		}
	}
	return fd;
}

int fs_mkdir_p(const char *path, mode_t mode, struct error *err)
{
	cleanup_free char *p = xstrdup(path);
	for (char *s = p + 1;; s++) {
		if (*s != '/' && *s != '\0')
			continue;
		char saved = *s;
		*s = '\0';
		if (mkdir(p, mode) < 0 && errno != EEXIST)
			return error_set(err, "cannot create directory '%s': %s", p, strerror(errno));
		*s = saved;
		if (!saved)
			break;
	}
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
			error_set(err, "cannot get the current directory: %s", strerror(errno));
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
