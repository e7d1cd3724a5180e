#include "launch/plantwatch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/path.h"
#include "base/platform.h"
#include "base/util.h"

/* A git directory: it has a HEAD. Parents pinned for other protected paths
 * (.husky, .git/modules) have none. */
static bool is_gitdir(int dfd)
{
	struct stat st;
	return fstatat(dfd, "HEAD", &st, AT_SYMLINK_NOFOLLOW) == 0;
}

static bool has_entry(int dfd, const char *name)
{
	struct stat st;
	return fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

/* The text of the symlink name in dfd, or NULL when it is not one. */
static char *link_text(int dfd, const char *name)
{
	char buf[PATH_MAX];
	ssize_t n = readlinkat(dfd, name, buf, sizeof(buf) - 1);
	return n > 0 ? xstrndup(buf, (size_t)n) : NULL;
}

/* A real directory fd for dir, never through a link (the path is
 * canonical; a component swapped for one is refused). */
static int open_dir(const char *dir)
{
	cleanup_close int at = platform_open_path_no_symlinks("/", dir + 1);
	return at < 0 ? -1 : openat(at, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

/* Move name (an entry of dfd) out of git's way: to NAME.moat-planted or,
 * when something is there already (the sandbox may have made it first, a
 * non-empty directory no rename can replace), NAME.moat-planted.<random>;
 * never over what is there. NULL when it could not be moved; else the
 * name used (caller frees). */
static char *move_aside(int dfd, const char *name)
{
	char *aside = xasprintf("%s.moat-planted", name);
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	unsigned long salt = (unsigned long)now.tv_nsec ^ ((unsigned long)getpid() << 20);
	for (int tries = 0; tries < 100; tries++) {
		if (platform_rename_noreplace(dfd, name, aside) == 0)
			return aside;
		if (errno != EEXIST && errno != ENOTEMPTY)
			break;
		free(aside);
		aside = xasprintf("%s.moat-planted.%06lx", name,
		                  (salt + (unsigned long)tries) & 0xffffff);
	}
	free(aside);
	return NULL;
}

static void watch_gitdir(struct plantwatch *w, const char *dir)
{
	cleanup_close int dfd = open_dir(dir);
	if (dfd < 0 || !is_gitdir(dfd))
		return;
	if (!has_entry(dfd, "commondir")) {
		w->dirs = xrealloc_array(w->dirs, w->n + 1, sizeof(*w->dirs));
		w->dirs[w->n++] = xstrdup(dir);
	}
	char *target = link_text(dfd, "hooks");
	if (target) {
		w->links = xrealloc_array(w->links, w->nlinks + 1, sizeof(*w->links));
		w->links[w->nlinks++] = (struct plantwatch_link){xstrdup(dir), target};
	}
}

void plantwatch_start(struct plantwatch *w, const struct profile *p)
{
	*w = (struct plantwatch){0};
	for (size_t i = 0; i < p->nrules; i++)
		if (p->rules[i].protect == PROTECT_PIN)
			watch_gitdir(w, p->rules[i].path);
	cleanup_close int rootfd = p->root ? open_dir(p->root) : -1;
	if (rootfd >= 0 && !has_entry(rootfd, ".git"))
		w->repoless_root = xstrdup(p->root);
	w->profile = p;
}

/* A .protect path absent at the start: what the session made there is
 * moved to NAME.moat-planted. */
static void end_absent_protected(const char *path, struct strbuf *warnings)
{
	struct stat st;
	if (lstat(path, &st) < 0)
		return; /* nothing there, even through a link made above it */
	cleanup_free char *dir = path_dirname(path);
	const char *name = path_basename(path);
	cleanup_close int dfd = open_dir(dir);
	cleanup_free char *aside = dfd >= 0 ? move_aside(dfd, name) : NULL;
	sb_addf(
	    warnings,
	    "the session made '%s', which .protect in config.zon keeps from the sandbox; %s%s\n",
	    path, aside ? "moved it to " : "remove it, and any link above it", aside ? aside : "");
}

/* who: "the session made", "there is". Moved aside, else removed (it is
 * git's one-line file, nothing of the user's). false when it is still
 * there. */
static bool move_commondir(const char *dir, const char *who, struct strbuf *warnings)
{
	cleanup_close int dfd = open_dir(dir);
	if (dfd < 0 || !has_entry(dfd, "commondir"))
		return true;
	cleanup_free char *aside = move_aside(dfd, "commondir");
	bool gone = aside || unlinkat(dfd, "commondir", 0) == 0;
	sb_addf(warnings,
	        "%s '%s/commondir', which sends git elsewhere for its config and hooks; %s%s: "
	        "look through '%s' for other changes\n",
	        who, dir,
	        aside  ? "moved it to "
	        : gone ? "removed it"
	               : "remove it",
	        aside ? aside : "", dir);
	return gone;
}

/* A linked work tree's git directory, <common>/worktrees/<name>, whose
 * commondir is its own: its parent is named worktrees and lies in a git
 * directory (modules/ of a submodule named worktrees/x does not). */
static bool is_worktree_gitdir(const char *dir)
{
	cleanup_free char *parent = path_dirname(dir);
	if (strcmp(path_basename(parent), "worktrees") != 0)
		return false;
	cleanup_free char *common = path_dirname(parent);
	cleanup_close int dfd = open_dir(common);
	return dfd >= 0 && is_gitdir(dfd);
}

bool plantwatch_sweep(const struct profile *p, struct strbuf *warnings)
{
	bool clean = true;
	for (size_t i = 0; i < p->nrules; i++) {
		const struct rule *r = &p->rules[i];
		if (r->protect != PROTECT_PIN)
			continue;
		cleanup_close int dfd = open_dir(r->path);
		if (dfd >= 0 && is_gitdir(dfd) && has_entry(dfd, "commondir") &&
		    !is_worktree_gitdir(r->path))
			clean = move_commondir(r->path, "there is", warnings) && clean;
	}
	return clean;
}

static void end_hooks_link(const struct plantwatch_link *k, struct strbuf *warnings)
{
	cleanup_close int dfd = open_dir(k->dir);
	if (dfd < 0)
		return;
	cleanup_free char *now = link_text(dfd, "hooks");
	if (now && strcmp(now, k->target) == 0)
		return;
	cleanup_free char *aside = has_entry(dfd, "hooks") ? move_aside(dfd, "hooks") : NULL;
	bool restored =
	    (aside || !has_entry(dfd, "hooks")) && symlinkat(k->target, dfd, "hooks") == 0;
	sb_addf(warnings,
	        "the session replaced the link '%s/hooks' (to %s), so git would run hooks of its "
	        "choosing; %s%s%s\n",
	        k->dir, k->target, restored ? "put the link back" : "put the link back by hand",
	        aside ? ", what it made is in " : "", aside ? aside : "");
}

/* The hooks of the new git directory gitfd that git would run: any entry
 * but git's samples, or the name of a link hooks is. Empty when none. */
static void live_hooks(int gitfd, struct strbuf *hooks)
{
	cleanup_free char *target = link_text(gitfd, "hooks");
	if (target) {
		sb_addf(hooks, "a link to %s", target);
		return;
	}
	int fd = openat(gitfd, "hooks", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	for (struct dirent *e; d && (e = readdir(d));)
		if (e->d_name[0] != '.' && !path_has_suffix(e->d_name, ".sample"))
			sb_addf(hooks, "%s%s", hooks->len ? ", " : "", e->d_name);
	if (d)
		closedir(d);
	else if (fd >= 0)
		close(fd);
}

/* A repository made in the session: its hooks (any but git's samples, or
 * a link) are moved aside, since git runs them at the next commit with no
 * other word from the user, and so is a commondir; its config is named,
 * for the user to read. A .git that is a file or a link sends git to a
 * directory of the session's choosing: it is moved aside whole. */
static void end_new_repo(const char *root, struct strbuf *warnings)
{
	cleanup_close int rootfd = open_dir(root);
	struct stat st;
	if (rootfd < 0 || fstatat(rootfd, ".git", &st, AT_SYMLINK_NOFOLLOW) < 0)
		return;
	if (!S_ISDIR(st.st_mode)) {
		cleanup_free char *aside = move_aside(rootfd, ".git");
		sb_addf(warnings,
		        "the session made '%s/.git', a %s that sends git to another git directory; "
		        "%s%s\n",
		        root, S_ISLNK(st.st_mode) ? "link" : "file",
		        aside ? "moved it to " : "remove it", aside ? aside : "");
		return;
	}
	cleanup_close int gitfd =
	    openat(rootfd, ".git", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	cleanup_free char *gitdir = path_join(root, ".git");
	struct strbuf hooks = STRBUF_INIT;
	if (gitfd >= 0)
		live_hooks(gitfd, &hooks);
	cleanup_free char *aside = hooks.len ? move_aside(gitfd, "hooks") : NULL;
	if (aside && mkdirat(gitfd, "hooks", 0755) < 0) {
		/* git then runs no hooks there, which is no worse */
	}
	sb_addf(warnings,
	        "the session made the git repository '%s', where nothing was protected: ", gitdir);
	if (hooks.len)
		sb_addf(warnings, "%s its hooks (%s)%s%s; ",
		        aside ? "moved aside" : "git outside would run", hooks.buf,
		        aside ? " to .git/" : "", aside ? aside : "");
	sb_addf(warnings, "read '%s/config' before you run git there\n", gitdir);
	sb_release(&hooks);
	move_commondir(gitdir, "the session made", warnings);
}

void plantwatch_end(struct plantwatch *w, struct strbuf *warnings)
{
	for (size_t i = 0; i < w->n; i++) {
		move_commondir(w->dirs[i], "the session made", warnings);
		free(w->dirs[i]);
	}
	for (size_t i = 0; i < w->nlinks; i++) {
		end_hooks_link(&w->links[i], warnings);
		free(w->links[i].dir);
		free(w->links[i].target);
	}
	if (w->repoless_root)
		end_new_repo(w->repoless_root, warnings);
	for (size_t i = 0; w->profile && i < w->profile->nabsent_protected; i++)
		end_absent_protected(w->profile->absent_protected[i], warnings);
	free(w->dirs);
	free(w->links);
	free(w->repoless_root);
	*w = (struct plantwatch){0};
}
