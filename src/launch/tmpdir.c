/* A session's $MOAT_ROOT/.moat/tmp starts empty: what earlier sessions
 * left there is removed, unless another session of the project is still
 * using it. Each session holds a shared flock(2) on the directory for its
 * whole life; the one that can take it exclusively at its start is alone,
 * and clears the directory before its tool starts. moat's own process
 * holds the lock: it lives until the session's last process is gone (the
 * supervisor reports the end only then), and a copy of the descriptor
 * stays with the supervisor, which outlasts moat. The tool never has it
 * (close-on-exec). A wrapped tool outside a session holds nothing: it
 * cannot keep a descriptor of the wrapper's across its exec. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/platform.h"
#include "launch/plan.h"

/* Deeper than this is left as it is: each level holds a descriptor. */
enum { CLEAR_DEPTH = 64 };

/* $root/.moat/tmp, made if missing, opened refusing links at each step:
 * this runs before the sandbox, so nothing planted can steer it. */
static int open_tmpdir(const char *root)
{
	int rootfd = platform_open_path_no_symlinks("/", root[1] ? root + 1 : ".");
	if (rootfd < 0)
		return -1;
	int fd = -1;
	if (mkdirat(rootfd, ".moat", 0755) == 0 || errno == EEXIST) {
		int moatfd =
		    openat(rootfd, ".moat", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (moatfd >= 0 && (mkdirat(moatfd, "tmp", 0700) == 0 || errno == EEXIST))
			fd = openat(moatfd, "tmp", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (moatfd >= 0)
			close(moatfd);
	}
	close(rootfd);
	return fd;
}

static int lock(int fd, int how)
{
	int rc;
	while ((rc = flock(fd, how)) < 0 && errno == EINTR)
		;
	return rc;
}

int launch_hold_tmpdir(struct launch *l)
{
	l->tmp_clear_fd = 0;
	if (l->jailbroken)
		return -1; /* no TMPDIR of moat's (launch_exec confines nothing) */
	int fd = open_tmpdir(l->ctx.root);
	if (fd < 0)
		return -1; /* no TMPDIR to keep (make_tmpdir says why, confined) */
	if (lock(fd, LOCK_EX | LOCK_NB) == 0) {
		l->tmp_clear_fd = fd;
		return fd;
	}
	/* Waits while another session's start clears it: what that removes
	 * must not include this session's files. Said when it has to wait:
	 * a process that keeps the lock keeps every session waiting. */
	if (lock(fd, LOCK_SH | LOCK_NB) == 0)
		return fd;
	if (l->print_warnings) {
		cleanup_free char *msg = xasprintf("waiting for '%s/.moat/tmp': another session of "
		                                   "this project is emptying it, or "
		                                   "a process holds a lock on it\n",
		                                   l->ctx.root);
		l->print_warnings(msg);
	}
	if (lock(fd, LOCK_SH) == 0)
		return fd;
	close(fd);
	return -1;
}

/* A directory, opened refusing a link: an entry unlinkat(2) would not
 * remove as a file (EISDIR on Linux, EPERM elsewhere). */
static int open_subdir(int dirfd, const char *name)
{
	return openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

/* Everything below dirfd, never following a link: a link is removed as a
 * link, a directory entered only through O_NOFOLLOW. Best effort: what
 * cannot be removed (another user's file) stays. Takes dirfd. */
static void remove_below(int dirfd, int depth)
{
	DIR *d = fdopendir(dirfd);
	if (!d) {
		close(dirfd);
		return;
	}
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (unlinkat(dirfd, e->d_name, 0) == 0 || (errno != EISDIR && errno != EPERM))
			continue;
		int sub = depth < CLEAR_DEPTH ? open_subdir(dirfd, e->d_name) : -1;
		if (sub < 0)
			continue;
		/* A read-only directory (as some tools leave theirs) is emptied too. */
		fchmod(sub, 0700);
		remove_below(sub, depth + 1);
		unlinkat(dirfd, e->d_name, AT_REMOVEDIR);
	}
	closedir(d);
}

void launch_clear_tmpdir(struct launch *l)
{
	if (l->tmp_clear_fd <= 0)
		return;
	/* A descriptor of its own to read: the held one's offset is shared. */
	int fd = open_subdir(l->tmp_clear_fd, ".");
	if (fd >= 0)
		remove_below(fd, 0);
	/* Others may start now: shared, as theirs. */
	lock(l->tmp_clear_fd, LOCK_SH);
}
