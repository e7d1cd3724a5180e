/* Where a project is: the sandbox root a session started in a directory
 * gets (the top of the git work tree around it), and, for a linked work tree
 * whose git directory lives in another repository, what git needs there.
 * Found with lstat and small reads alone: git itself never runs here, since
 * moat is unconfined and the repository is the sandbox's to write. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/path.h"
#include "base/platform.h"
#include "context/context.h"

/* Does dir hold a .git (a directory, a linked work tree's file, or a link
 * to either, as git itself accepts)? */
static bool holds_git(const char *dir)
{
	cleanup_free char *dotgit = path_join(dir, ".git");
	struct stat st;
	return lstat(dotgit, &st) == 0 &&
	       (S_ISDIR(st.st_mode) || S_ISREG(st.st_mode) || S_ISLNK(st.st_mode));
}

/* The nearest directory from cwd up that holds .git, or NULL. As git's own
 * discovery, it does not cross into another file system; it never looks at
 * home (a dotfiles repository there is no project) nor above it, nor at /. */
static char *find_top(const char *cwd, const char *home)
{
	struct stat st;
	if (lstat(cwd, &st) < 0)
		return NULL;
	dev_t dev = st.st_dev;
	char *dir = xstrdup(cwd);
	while (strcmp(dir, "/") != 0 && !path_is_under(home, dir)) {
		if (holds_git(dir))
			return dir;
		char *up = path_dirname(dir);
		free(dir);
		dir = up;
		if (lstat(dir, &st) < 0 || st.st_dev != dev)
			break;
	}
	free(dir);
	return NULL;
}

void context_project_root(const char *cwd, const char *home, bool here, struct project_root *out)
{
	*out = (struct project_root){0};
	cleanup_free char *home_canon = platform_canonical_path(home);
	const char *h = home_canon ? home_canon : home;
	char *top = here ? NULL : find_top(cwd, h);
	if (top && strcmp(top, cwd) == 0) {
		free(top);
		top = NULL;
	}
	const char *why = top ? profile_root_refusal(top, h) : NULL;
	out->top = top ? xstrdup(top) : NULL;
	out->refused = why ? xstrdup(why) : NULL;
	if (top && !why) {
		out->root = top;
	} else {
		free(top);
		out->root = xstrdup(cwd);
	}
}

void project_root_free(struct project_root *r)
{
	free(r->root);
	free(r->top);
	free(r->refused);
	*r = (struct project_root){0};
}

/* The path a git file names ("gitdir: X" in .git, "X" in commondir and
 * gitdir), relative ones against base. NULL if it does not hold one. */
static char *path_in_file(int dirfd, const char *dir, const char *name, const char *prefix,
                          const char *base)
{
	cleanup_free char *buf = NULL;
	size_t len;
	struct error ignored;
	if (fs_read_at(dirfd, dir, name, 4096, &buf, &len, &ignored) < 0)
		return NULL;
	size_t plen = strlen(prefix);
	if (len < plen || strncmp(buf, prefix, plen) != 0 || memchr(buf, '\0', len))
		return NULL;
	char *s = buf + plen;
	size_t n = strlen(s);
	while (n && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' '))
		s[--n] = '\0';
	if (!n || strchr(s, '\n'))
		return NULL;
	return s[0] == '/' ? xstrdup(s) : path_join(base, s);
}

/* path resolved as the sandbox will use it, refusing links planted where
 * sandboxed code can write; NULL when it cannot be. */
static char *resolved(const char *path, const char *const *areas, size_t n)
{
	char *canon = NULL;
	struct error ignored = {0};
	if (context_resolve_unplanted(path, areas, n, "the git directory", &canon, &ignored) < 0)
		return NULL;
	return canon;
}

static void add_git_rule(struct context *c, const char *path, unsigned access)
{
	c->git = xrealloc_array(c->git, c->ngit + 1, sizeof(*c->git));
	c->git[c->ngit++] = (struct grant){.path = xstrdup(path), .access = access};
}

/* What git reads and writes in the common directory for a linked work tree:
 * objects and refs it adds, reflogs it appends to, and what it only reads.
 * Never hooks (code git runs) nor anything writable in config. */
static const struct {
	const char *name;
	unsigned access;
} common_entries[] = {
    {"objects", ACCESS_RW},       {"refs", ACCESS_RW},        {"logs", ACCESS_RW},
    {"packed-refs", ACCESS_READ}, {"HEAD", ACCESS_READ},      {"config", ACCESS_READ},
    {"info", ACCESS_READ},        {"worktrees", ACCESS_READ}, {"shallow", ACCESS_READ},
};

/* Files of the work tree's git directory that decide where git looks for
 * its configuration, or hold configuration: writable, they would point git
 * run later outside the sandbox at code of the sandbox's choosing. */
static const char *const worktree_protected[] = {"commondir", "gitdir", "config.worktree"};

static void add_common_entries(struct context *c, const char *common)
{
	for (size_t i = 0; i < ARRAY_LEN(common_entries); i++) {
		cleanup_free char *p = path_join(common, common_entries[i].name);
		struct stat st;
		/* The common directory is canonical: an entry that is no link
		 * keeps it so (the backend opens rules refusing links anyway). */
		if (lstat(p, &st) < 0 || S_ISLNK(st.st_mode) || profile_grant_refusal(p, c->home))
			continue;
		add_git_rule(c, p, common_entries[i].access);
	}
}

/* The value of core.worktree in dir's config, or NULL. Only the syntax
 * `git submodule` writes is read: a value with quotes, escapes or a
 * comment, or a key on a section's line, counts as none, and the git
 * directory is then not followed. */
static char *core_worktree(int dirfd, const char *dir)
{
	cleanup_free char *buf = NULL;
	size_t len;
	struct error ignored;
	if (fs_read_at(dirfd, dir, "config", 1 << 16, &buf, &len, &ignored) < 0 ||
	    memchr(buf, '\0', len))
		return NULL;
	bool in_core = false;
	char *found = NULL, *save = NULL;
	for (char *line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		line += strspn(line, " \t");
		if (*line == '[') {
			in_core = strncasecmp(line, "[core]", 6) == 0;
			continue;
		}
		if (!in_core || strncasecmp(line, "worktree", 8) != 0)
			continue;
		char *v = line + 8;
		v += strspn(v, " \t");
		if (*v++ != '=')
			continue;
		v += strspn(v, " \t");
		size_t vn = strcspn(v, "\r");
		while (vn && (v[vn - 1] == ' ' || v[vn - 1] == '\t'))
			vn--;
		free(found);
		found = vn && !memchr(v, '"', vn) && !memchr(v, '\\', vn) && !memchr(v, '#', vn) &&
		                !memchr(v, ';', vn)
		            ? xstrndup(v, vn)
		            : NULL;
	}
	return found;
}

/* A root that is a submodule's work tree, its git directory moddir (lying
 * in a superproject's modules/): when moddir's core.worktree points back at
 * the root (as `git submodule` sets it), the directory is read/write; its
 * hooks and config are protected as every git directory the sandbox can
 * write (context/protect.c). Returns NULL, or why it was not followed. */
static char *add_git_submodule(struct context *c, const char *moddir, int modfd,
                               const char *const *areas, size_t n)
{
	cleanup_free char *named = core_worktree(modfd, moddir);
	cleanup_free char *path = !named            ? NULL
	                          : named[0] == '/' ? xstrdup(named)
	                                            : path_join(moddir, named);
	cleanup_free char *back = path ? resolved(path, areas, n) : NULL;
	if (!strstr(moddir, "/modules/") || !back || strcmp(back, c->root) != 0)
		return xasprintf(
		    "%s/.git names %s, which is not a linked work tree's git directory "
		    "registered for this one, nor a submodule's",
		    c->root, moddir);
	if (profile_grant_refusal(moddir, c->home))
		return xasprintf("%s/.git names %s, which cannot be granted", c->root, moddir);
	c->git_module = xstrdup(moddir);
	add_git_rule(c, moddir, ACCESS_RW);
	return NULL;
}

char *context_add_git_worktree(struct context *c, const char *const *areas, size_t n)
{
	cleanup_close int rootfd = open(c->root, O_LOOKUP | O_DIRECTORY | O_CLOEXEC);
	struct stat st;
	if (rootfd < 0 || fstatat(rootfd, ".git", &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	    !S_ISREG(st.st_mode))
		return NULL;
	cleanup_free char *named = path_in_file(rootfd, c->root, ".git", "gitdir: ", c->root);
	cleanup_free char *wt = named ? resolved(named, areas, n) : NULL;
	if (!wt)
		return xasprintf("%s/.git names no git directory that can be used", c->root);
	if (path_is_under(wt, c->root))
		return NULL; /* inside the root: nothing more to give */
	cleanup_close int wtfd = open(wt, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	cleanup_free char *common_named =
	    wtfd < 0 ? NULL : path_in_file(wtfd, wt, "commondir", "", wt);
	if (wtfd >= 0 && !common_named &&
	    faccessat(wtfd, "commondir", F_OK, AT_SYMLINK_NOFOLLOW) < 0)
		return add_git_submodule(c, wt, wtfd, areas, n);
	cleanup_free char *back_named = wtfd < 0 ? NULL : path_in_file(wtfd, wt, "gitdir", "", wt);
	cleanup_free char *common = common_named ? resolved(common_named, areas, n) : NULL;
	cleanup_free char *back = back_named ? resolved(back_named, areas, n) : NULL;
	cleanup_free char *dotgit = path_join(c->root, ".git");
	cleanup_free char *parent = path_dirname(wt);
	cleanup_free char *registry = common ? path_join(common, "worktrees") : NULL;
	/* Only what git registered for this very work tree: its git directory
	 * lies in the common directory's worktrees/ and points back here. A
	 * .git file the sandbox rewrote cannot name another repository's. */
	if (!common || !back || strcmp(back, dotgit) != 0 || strcmp(parent, registry) != 0)
		return xasprintf(
		    "%s/.git names %s, which is not a linked work tree's git directory "
		    "registered for this one, nor a submodule's",
		    c->root, wt);
	if (profile_grant_refusal(wt, c->home) || profile_grant_refusal(common, c->home))
		return xasprintf("%s/.git names %s, which cannot be granted", c->root, wt);
	c->git_common = xstrdup(common);
	add_git_rule(c, wt, ACCESS_RW);
	if (!path_is_under(common, c->root))
		add_common_entries(c, common);
	for (size_t i = 0; i < ARRAY_LEN(worktree_protected); i++) {
		c->git_protect =
		    xrealloc_array(c->git_protect, c->ngit_protect + 1, sizeof(char *));
		c->git_protect[c->ngit_protect++] = path_join(wt, worktree_protected[i]);
	}
	return NULL;
}
