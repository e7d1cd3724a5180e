#include "context/protect.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/fs.h"
#include "base/path.h"

/* Submodules inside submodules: git nests them as modules/a/modules/b. */
#define MAX_DEPTH 8

/* A path the sandbox could write: only those need protecting. */
static bool exposed(const struct profile *p, const char *path)
{
	return profile_allows_write(p, path);
}

static void protect_existing(struct profile *p, const char *path)
{
	struct stat st;
	cleanup_free char *canon = realpath(path, NULL);
	if (canon && lstat(canon, &st) == 0 && exposed(p, canon))
		profile_protect(p, canon, PROTECT_READ_ONLY);
}

/* dir/name as a directory or file: read-only when there, made empty and
 * then read-only when absent. A symlink is followed to what it names (the
 * link itself stays replaceable; see docs/security.md). */
static void protect_entry(struct profile *p, const char *dir, const char *name, bool is_dir)
{
	cleanup_free char *path = path_join(dir, name);
	struct stat st;
	if (lstat(path, &st) < 0)
		profile_protect(p, path, is_dir ? PROTECT_MAKE_DIR : PROTECT_MAKE_FILE);
	else
		protect_existing(p, path);
}

static void protect_gitdir(struct profile *p, const char *gitdir, int depth);

/* modules/ holds a submodule's git directory under its name, which may
 * have slashes: a directory with a HEAD is one, any other is searched. */
static void protect_modules(struct profile *p, const char *dir, int depth)
{
	if (depth > MAX_DEPTH)
		return;
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' &&
		    (!e->d_name[1] || (e->d_name[1] == '.' && !e->d_name[2])))
			continue;
		cleanup_free char *sub = path_join(dir, e->d_name);
		cleanup_free char *head = path_join(sub, "HEAD");
		struct stat st;
		if (lstat(sub, &st) < 0 || !S_ISDIR(st.st_mode))
			continue;
		if (fs_exists(head))
			protect_gitdir(p, sub, depth + 1);
		else
			protect_modules(p, sub, depth + 1);
	}
	closedir(d);
}

/* The git directory itself is bound onto itself, writable: a mount point
 * cannot be renamed or removed, so the sandbox cannot move it aside and
 * put a copy of its own, with hooks, in its place. */
static void protect_gitdir(struct profile *p, const char *gitdir, int depth)
{
	if (!exposed(p, gitdir))
		return;
	profile_protect(p, gitdir, PROTECT_PIN);
	protect_entry(p, gitdir, "hooks", true);
	protect_entry(p, gitdir, "config", false);
	cleanup_free char *wt = path_join(gitdir, "config.worktree");
	protect_existing(p, wt);
	cleanup_free char *worktrees = path_join(gitdir, "worktrees");
	DIR *d = opendir(worktrees);
	if (d) {
		struct dirent *e;
		while ((e = readdir(d))) {
			if (e->d_name[0] == '.')
				continue;
			cleanup_free char *sub = path_join(worktrees, e->d_name);
			cleanup_free char *cfg = path_join(sub, "config.worktree");
			protect_existing(p, cfg);
		}
		closedir(d);
	}
	cleanup_free char *modules = path_join(gitdir, "modules");
	protect_modules(p, modules, depth);
}

/* A file's first line, without its newline, read at most 4 KiB. */
static char *first_line(const char *path)
{
	struct error err = {0};
	char *buf = NULL;
	size_t len;
	if (fs_read_file(path, 4096, &buf, &len, &err) < 0) {
		error_clear(&err);
		return NULL;
	}
	buf[strcspn(buf, "\r\n")] = 0;
	return buf;
}

/* Relative to dir when not absolute, made canonical. */
static char *resolve(const char *dir, const char *path)
{
	cleanup_free char *full = path[0] == '/' ? xstrdup(path) : path_join(dir, path);
	return realpath(full, NULL);
}

/* A .git file: "gitdir: <path>" names a linked worktree's git directory
 * (whose commondir file names the repository's) or, for a submodule, the
 * submodule's git directory under the superproject's modules/. */
static void protect_gitfile(struct profile *p, const char *top, const char *file)
{
	protect_existing(p, file);
	cleanup_free char *line = first_line(file);
	if (!line || strncmp(line, "gitdir:", 7) != 0)
		return;
	const char *v = line + 7;
	v += strspn(v, " \t");
	cleanup_free char *gitdir = resolve(top, v);
	if (!gitdir)
		return;
	cleanup_free char *cdfile = path_join(gitdir, "commondir");
	cleanup_free char *cd = first_line(cdfile);
	cleanup_free char *common = cd ? resolve(gitdir, cd) : NULL;
	if (common) {
		cleanup_free char *wt = path_join(gitdir, "config.worktree");
		protect_existing(p, wt);
	}
	protect_gitdir(p, common ? common : gitdir, 0);
}

void context_protect(const struct context *c, const struct config *cfg, struct profile *p)
{
	if (!config_protects(cfg, c->root, c->home))
		return;
	/* The repository the root is in: git looks upwards for .git, and so
	 * does this. */
	cleanup_free char *dir = xstrdup(c->root);
	for (;;) {
		cleanup_free char *dotgit = path_join(dir, ".git");
		cleanup_free char *canon = realpath(dotgit, NULL);
		struct stat st;
		if (canon && stat(canon, &st) == 0) {
			if (S_ISDIR(st.st_mode))
				protect_gitdir(p, canon, 0);
			else if (S_ISREG(st.st_mode))
				protect_gitfile(p, dir, canon);
			break;
		}
		if (strcmp(dir, "/") == 0)
			break;
		char *up = path_dirname(dir);
		free(dir);
		dir = up;
	}
	for (size_t i = 0; i < cfg->nprotect; i++) {
		cleanup_free char *path = path_join(c->root, cfg->protect[i]);
		protect_existing(p, path);
	}
}
