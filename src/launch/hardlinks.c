/* launch_break_hard_links: a protected file is bound read-only by path, so
 * a second name for its inode (a hard link made in an earlier run that was
 * not protected: an older moat, no user namespaces, a project that was not
 * a repository yet) would let the sandbox write it all the same. Before the
 * sandbox starts, each protected file with more than one name gets an inode
 * of its own (a copy renamed over it), and the other name keeps the old
 * one. Inside a protected sandbox no new link can be made: link(2) across
 * the read-only bind fails with EXDEV. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/path.h"
#include "base/platform.h"
#include "launch/plan.h"

/* Hooks and config files are small; anything larger is left as it is. */
#define PROTECTED_FILE_MAX (16u << 20)

/* Give dir/name (an entry of dirfd) an inode of its own when it is a
 * regular file with other names. */
static void break_link(const struct launch *l, int dirfd, const char *dir, const char *name)
{
	struct stat st;
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_nlink < 2)
		return;
	cleanup_free char *data = NULL;
	size_t len;
	struct error err = {0};
	cleanup_free char *path = path_join(dir, name);
	bool done = fs_read_at(dirfd, dir, name, PROTECTED_FILE_MAX, &data, &len, &err) == 0 &&
	            fs_write_atomic_at(dirfd, dir, name, data, len, st.st_mode & 07777, &err) == 0;
	/* Root in another user's project: the copy stays theirs. */
	if (done && geteuid() == 0)
		if (fchownat(dirfd, name, st.st_uid, st.st_gid, AT_SYMLINK_NOFOLLOW) < 0) {
			/* it stays root's, and the warning below says it was copied */
		}
	if (!l->print_warnings)
		return;
	cleanup_free char *line =
	    done ? xasprintf("'%s' had %ju names (hard links), so the sandbox could have written "
	                     "it through another; it has a file of its own now\n",
	                     path, (uintmax_t)st.st_nlink)
	         : xasprintf("'%s' has %ju names (hard links), so the sandbox can write it "
	                     "through another: %s\n",
	                     path, (uintmax_t)st.st_nlink, err.msg);
	l->print_warnings(line);
}

/* A protected directory (hooks/): each file directly in it. */
static void break_links_in(const struct launch *l, int dirfd, const char *dir)
{
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	/* git never runs a sample hook: a fresh repository's fourteen cost
	 * no stat each in every wrapped tool's start. */
	for (struct dirent *e; (e = readdir(d));)
		if ((e->d_type == DT_REG || e->d_type == DT_UNKNOWN) &&
		    !path_has_suffix(e->d_name, ".sample"))
			break_link(l, dirfd, dir, e->d_name);
	closedir(d);
}

void launch_break_hard_links(const struct launch *l)
{
	for (size_t i = 0; i < l->profile.nrules; i++) {
		const struct rule *r = &l->profile.rules[i];
		if (r->protect == PROTECT_NONE || r->protect == PROTECT_PIN)
			continue;
		cleanup_free char *dir = path_dirname(r->path);
		cleanup_close int at = platform_open_path_no_symlinks("/", dir + 1);
		cleanup_close int parent =
		    at < 0 ? -1 : openat(at, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (parent < 0)
			continue;
		const char *name = path_basename(r->path);
		struct stat st;
		if (fstatat(parent, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (S_ISREG(st.st_mode)) {
			break_link(l, parent, dir, name);
		} else if (S_ISDIR(st.st_mode)) {
			cleanup_close int sub =
			    openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sub >= 0)
				break_links_in(l, sub, r->path);
		}
	}
}
