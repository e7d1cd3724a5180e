/* A write grant's directory that does not exist yet is made as a session or
 * a wrapped tool starts: Landlock rules only on what exists, so otherwise
 * `moat allow npm ~/.npm --write` on a fresh account would grant nothing.
 *
 * moat is unconfined here, and the path was resolved a moment ago, so the
 * making must not be steerable by sandboxed code (of this project, or one
 * left running from another): each missing directory is made with mkdirat
 * in a descriptor of its parent, opened component by component from "/"
 * refusing symlinks, so a link swapped in since the path was resolved stops
 * it instead of leading it. And nothing is made below a directory sandboxed
 * code can write into (inside the root, a write grant or a past root): it
 * could rename what moat made and leave a link in its place, making the
 * grant land where it chose on a later start. Nor anything outside HOME:
 * a grant on a system path that is missing is the user's to make. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/path.h"
#include "base/platform.h"
#include "context/settings.h"
#include "context/writable.h"
#include "launch/plan.h"

/* May sandboxed code write into dir, and so replace what is made in it? */
static char *replaceable(const struct launch *l, const char *dir)
{
	size_t n;
	char **areas = context_writable_areas(l->ctx.root, l->ctx.home, &l->cfg, &n);
	char *why = NULL;
	if (!context_writable_place(dir, false, l->ctx.root, (const char *const *)areas, n, &why))
		why = NULL;
	context_free_areas(areas, n);
	return why;
}

/* Make path (absolute, canonical but for its missing part) and what is
 * missing above it, mode 0700. */
static int make_dir(const struct launch *l, const char *path, struct error *err)
{
	int fd = open("/", O_LOOKUP | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return error_errno(err, "cannot open '/'");
	struct strbuf done = STRBUF_INIT; /* the path of fd */
	sb_adds(&done, "/");
	bool making = false;
	int rc = 0;
	for (const char *p = path; rc == 0 && *p;) {
		p += strspn(p, "/");
		size_t len = strcspn(p, "/");
		if (!len)
			break;
		if (len > NAME_MAX) {
			rc = error_set(err, "'%s' has a name too long", path);
			break;
		}
		char name[NAME_MAX + 1];
		memcpy(name, p, len);
		name[len] = '\0';
		p += len;
		int next = -1;
		if (!making) {
			next = openat(fd, name, O_LOOKUP | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (next < 0 && errno == ENOENT) {
				cleanup_free char *why = replaceable(l, done.buf);
				if (why) {
					rc = error_set(err,
					               "'%s' is %s, where sandboxed code could "
					               "plant a link",
					               done.buf, why);
					error_hint(err,
					           "make the directory yourself if you want the "
					           "grant");
					break;
				}
				making = true;
			} else if (next < 0) {
				struct stat st;
				bool link = fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
				            S_ISLNK(st.st_mode);
				rc = error_set(err, "cannot open '%s%s%s': %s", done.buf,
				               done.len > 1 ? "/" : "", name,
				               link ? "it has become a symlink" : strerror(errno));
				break;
			}
		}
		if (making) {
			next = fs_subdir_at(fd, done.buf, name, 0700, err);
			if (next < 0)
				rc = -1;
		}
		close(fd);
		fd = next;
		if (done.len > 1)
			sb_addc(&done, '/');
		sb_adds(&done, name);
	}
	if (fd >= 0)
		close(fd);
	sb_release(&done);
	return rc;
}

void launch_make_git_files(struct launch *l)
{
	for (size_t i = 0; i < l->ctx.ngit_protect; i++) {
		const char *path = l->ctx.git_protect[i];
		struct stat st;
		if (lstat(path, &st) == 0 || errno != ENOENT)
			continue;
		/* The git directory was resolved refusing planted links, and
		 * only git (outside the sandbox) can rename it: the common
		 * directory's worktrees/ is read-only inside. */
		cleanup_free char *dir = path_dirname(path);
		cleanup_close int dirfd =
		    open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		int fd = dirfd < 0
		             ? -1
		             : openat(dirfd, path_basename(path),
		                      O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd >= 0) {
			close(fd);
			continue;
		}
		if (l->print_warnings) {
			cleanup_free char *line =
			    xasprintf("cannot create '%s': %s; sandboxed code could make it\n",
			              path, strerror(errno));
			l->print_warnings(line);
		}
	}
}

bool launch_grant_dir_to_make(const struct launch *l, const struct rule *r)
{
	return r->origin == ORIGIN_GRANT && (r->access & ACCESS_WRITE) &&
	       path_is_under(r->path, l->ctx.home) && strcmp(r->path, l->ctx.home) != 0;
}

void launch_make_grant_dirs(struct launch *l)
{
	for (size_t i = 0; i < l->profile.nrules; i++) {
		const struct rule *r = &l->profile.rules[i];
		struct stat st;
		/* One stat when the directory is there: this runs in every
		 * wrapped tool's start. */
		if (r->origin != ORIGIN_GRANT || !(r->access & ACCESS_WRITE) ||
		    stat(r->path, &st) == 0 || errno != ENOENT)
			continue;
		struct error err = {0};
		const char *bin = r->bin ? r->bin : "*";
		/* Outside HOME: the plan's -v note says it has no rule. */
		if (!launch_grant_dir_to_make(l, r))
			continue;
		if (make_dir(l, r->path, &err) == 0) {
			if (l->print_notes) {
				cleanup_free char *line =
				    xasprintf("made '%s' (mode 0700) for the write grant to %s\n",
				              r->path, bin);
				l->print_notes(line);
			}
			continue;
		}
		if (!l->print_warnings)
			continue;
		struct strbuf line = STRBUF_INIT;
		sb_addf(&line, "not making '%s' for the write grant to %s: %s; it has no rule\n",
		        r->path, bin, err.msg);
		if (err.hint[0])
			sb_addf(&line, "  %s\n", err.hint);
		l->print_warnings(line.buf);
		sb_release(&line);
	}
}
