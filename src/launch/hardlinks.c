/* launch_break_hard_links: a protected file is bound read-only by path, so
 * a second name for its inode (a hard link made in an earlier run that was
 * not protected: an older moat, no user namespaces, a project that was not
 * a repository yet) would let the sandbox write it all the same. Before the
 * sandbox starts, each protected file with more than one name, and each
 * such file anywhere below a protected directory (a hook may source
 * .githooks/lib/common.sh), gets an inode of its own: a copy renamed over
 * it; the other name keeps the old one. What cannot be copied stops the
 * start: protection that can be written around is none. Inside a protected
 * sandbox no new link can be made: link(2) across the read-only bind fails
 * with EXDEV. */
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

/* How far below a protected directory files are checked, and how many:
 * beyond, the start is refused rather than a file left unchecked. */
#define MAX_DEPTH   16
#define MAX_ENTRIES 4096

struct walk {
	const struct launch *l;
	size_t entries;
	struct error *err;
};

/* Give dir/name (an entry of dirfd, a regular file of stat st) an inode of
 * its own when it has other names. */
static int break_link(struct walk *w, int dirfd, const char *dir, const char *name,
                      const struct stat *st)
{
	if (st->st_nlink < 2)
		return 0;
	if (fs_copy_over_at(dirfd, dir, name, w->err) < 0) {
		error_hint(w->err,
		           "it has %ju names (hard links), so the sandbox could write it through "
		           "another; moat cannot protect it: remove its other names (find the "
		           "project -samefile) and run again",
		           (uintmax_t)st->st_nlink);
		w->err->status = EXIT_MOAT_FAILED;
		return -1;
	}
	if (w->l->print_warnings) {
		cleanup_free char *line = xasprintf(
		    "'%s/%s' had %ju names (hard links), so the sandbox could have written it "
		    "through another; it has a file of its own now\n",
		    dir, name, (uintmax_t)st->st_nlink);
		w->l->print_warnings(line);
	}
	return 0;
}

static int break_links_below(struct walk *w, int dirfd, const char *dir, int depth);

/* One entry of a protected directory: a file, or a directory to descend. */
static int check_entry(struct walk *w, int dirfd, const char *dir, const char *name, int depth)
{
	struct stat st;
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return 0; /* gone meanwhile */
	if (S_ISREG(st.st_mode))
		return break_link(w, dirfd, dir, name, &st);
	if (!S_ISDIR(st.st_mode))
		return 0;
	cleanup_close int sub =
	    openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	cleanup_free char *path = path_join(dir, name);
	return sub < 0 ? 0 : break_links_below(w, sub, path, depth + 1);
}

/* Every file below the protected directory dirfd. git never runs a sample
 * hook: a fresh repository's fourteen cost no stat each in every wrapped
 * tool's start. */
static int break_links_below(struct walk *w, int dirfd, const char *dir, int depth)
{
	if (depth > MAX_DEPTH)
		return error_set(w->err, "cannot protect '%s': more than %d levels deep", dir,
		                 MAX_DEPTH);
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	if (!d) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	int rc = 0;
	for (struct dirent *e; rc == 0 && (e = readdir(d));) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
		    (depth == 0 && path_has_suffix(e->d_name, ".sample")))
			continue;
		if (++w->entries > MAX_ENTRIES)
			rc = error_set(w->err, "cannot protect '%s': more than %d entries to check",
			               dir, MAX_ENTRIES);
		else if (e->d_type == DT_REG || e->d_type == DT_DIR || e->d_type == DT_UNKNOWN)
			rc = check_entry(w, dirfd, dir, e->d_name, depth);
	}
	closedir(d);
	return rc;
}

void launch_unhold_protected(struct launch *l)
{
	struct profile *p = &l->profile;
	for (size_t i = 0; i < p->nrules; i++) {
		const struct rule *q = &p->rules[i];
		if (q->protect == PROTECT_NONE || q->protect == PROTECT_PIN)
			continue;
		for (size_t j = 0; j < p->nrules; j++)
			if (p->rules[j].held && path_is_under(p->rules[j].path, q->path))
				p->rules[j].held = false;
	}
}

int launch_break_hard_links(const struct launch *l, struct error *err)
{
	struct walk w = {l, 0, err};
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
		int rc = 0;
		if (S_ISREG(st.st_mode)) {
			rc = break_link(&w, parent, dir, name, &st);
		} else if (S_ISDIR(st.st_mode)) {
			cleanup_close int sub =
			    openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			rc = sub < 0 ? 0 : break_links_below(&w, sub, r->path, 0);
		}
		if (rc < 0) {
			err->status = EXIT_MOAT_FAILED;
			return -1;
		}
	}
	return 0;
}
