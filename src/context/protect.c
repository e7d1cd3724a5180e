#include "context/protect.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/fs.h"
#include "base/path.h"
#include "base/platform.h"
#include "base/xdg.h"

/* Submodules inside submodules: git nests them as modules/a/modules/b. */
#define MAX_DEPTH 8

/* A path the sandbox could write: only those need protecting. */
static bool exposed(const struct profile *p, const char *path)
{
	return profile_allows_write(p, path);
}

/* Pin every writable directory between path and the root (or the write
 * grant it lies in): a protected path is a mount point, which cannot be
 * renamed, but its parent is an ordinary directory, which could be moved
 * aside and replaced by one holding a planted copy (.husky for
 * .husky/_, .git/modules for a submodule's git directory). Outermost
 * first: one that is absent is made, inside the one above it. */
static void pin_parents(struct profile *p, const char *path)
{
	cleanup_free char *dir = path_dirname(path);
	if (strcmp(dir, "/") == 0 || strcmp(dir, p->root) == 0 || !exposed(p, dir))
		return;
	pin_parents(p, dir);
	profile_protect(p, dir, PROTECT_PIN);
}

/* Protect path as kind, its parents pinned first. */
static void protect_path(struct profile *p, const char *path, enum protect_kind kind)
{
	pin_parents(p, path);
	profile_protect(p, path, kind);
}

static void protect_existing(struct profile *p, const char *path)
{
	struct stat st;
	cleanup_free char *canon = platform_canonical_path(path);
	if (canon && lstat(canon, &st) == 0 && exposed(p, canon))
		protect_path(p, canon, PROTECT_READ_ONLY);
}

/* dir/name as a directory or file: read-only when there, made empty and
 * then read-only when absent. A symlink is followed to what it names (the
 * link itself stays replaceable; see docs/security.md). */
static void protect_entry(struct profile *p, const char *dir, const char *name, bool is_dir)
{
	cleanup_free char *path = path_join(dir, name);
	struct stat st;
	if (lstat(path, &st) < 0)
		protect_path(p, path, is_dir ? PROTECT_MAKE_DIR : PROTECT_MAKE_FILE);
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
	protect_path(p, gitdir, PROTECT_PIN);
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
			/* commondir and gitdir say where that work tree's git
			 * reads its config and hooks, and where the tree is. */
			static const char *const names[] = {"config.worktree", "commondir",
			                                    "gitdir"};
			for (size_t i = 0; i < ARRAY_LEN(names); i++) {
				cleanup_free char *f = path_join(sub, names[i]);
				protect_existing(p, f);
			}
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
	return platform_canonical_path(full);
}

/* What git's config files say about more files it runs or reads:
 * core.hooksPath (a hooks directory, perhaps in the root: husky's) and
 * include.path / includeIf.<condition>.path (more config, perhaps a file
 * committed to the project). Those in a writable place are protected as
 * the config itself is. The scan is lenient where git is strict: a line it
 * cannot read is skipped, every includeIf counts, so nothing git reads is
 * missed. Commands named by other keys (core.fsmonitor, aliases, filters)
 * can only be set in these files, which are read-only. */
struct scan {
	struct profile *p;
	const char *home;
	const char *top; /* the worktree: relative hooksPath values start there */
	int depth;       /* include nesting */
};

#define MAX_INCLUDES 10

static void scan_config_file(struct scan *sc, const char *file);

/* "~/" expanded; relative to base otherwise. Not canonical: may not exist. */
static char *config_path(const struct scan *sc, const char *base, const char *value)
{
	if (value[0] == '~' && value[1] == '/')
		return path_expand_tilde(value, sc->home);
	return value[0] == '/' ? xstrdup(value) : path_join(base, value);
}

/* A hooks directory (core.hooksPath) or a config file (include.path) the
 * config names: read-only, or made empty when absent, with any absent
 * directories above it (pinned), so that the sandbox cannot make it (git
 * skips a missing include, and would read one made later). */
static void protect_named(struct scan *sc, const char *path, bool is_dir)
{
	struct stat st;
	if (lstat(path, &st) == 0) {
		protect_existing(sc->p, path);
		return;
	}
	struct error ignored;
	cleanup_free char *canon = fs_canonical_prefix(path, &ignored);
	/* A ".." left below the deepest existing directory could lead
	 * anywhere: such a path is not made. */
	if (canon && !path_refusal(canon) && strcmp(canon, sc->p->root) != 0 &&
	    exposed(sc->p, canon))
		protect_path(sc->p, canon, is_dir ? PROTECT_MAKE_DIR : PROTECT_MAKE_FILE);
}

static void on_config_value(struct scan *sc, const char *file, const char *section, const char *key,
                            const char *value)
{
	if (!*value)
		return;
	if (strcmp(section, "core") == 0 && strcmp(key, "hookspath") == 0) {
		cleanup_free char *hooks = config_path(sc, sc->top, value);
		protect_named(sc, hooks, true);
	} else if ((strcmp(section, "include") == 0 || strcmp(section, "includeif") == 0) &&
	           strcmp(key, "path") == 0 && sc->depth < MAX_INCLUDES) {
		cleanup_free char *dir = path_dirname(file);
		cleanup_free char *inc = config_path(sc, dir, value);
		protect_named(sc, inc, false);
		sc->depth++;
		scan_config_file(sc, inc);
		sc->depth--;
	}
}

static void lower(char *s)
{
	for (; *s; s++)
		if (*s >= 'A' && *s <= 'Z')
			*s = (char)(*s - 'A' + 'a');
}

/* One "key = value" line, from q to the end of the line. */
static void scan_entry(struct scan *sc, const char *file, const char *section, const char *q)
{
	char key[64], value[4096];
	size_t k = 0, v = 0;
	while ((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || (*q >= '0' && *q <= '9') ||
	       *q == '-')
		if (k < sizeof(key) - 1)
			key[k++] = *q++;
		else
			q++;
	key[k] = 0;
	lower(key);
	q += strspn(q, " \t");
	if (!k || *q != '=')
		return;
	q++;
	q += strspn(q, " \t");
	bool quoted = false;
	size_t keep = 0; /* the value's length up to its last character that counts */
	for (; *q && *q != '\n'; q++) {
		char c = *q;
		if (c == '"') {
			quoted = !quoted;
			keep = v;
			continue;
		}
		if (!quoted && (c == '#' || c == ';'))
			break;
		if (c == '\\' && q[1] && q[1] != '\n') {
			q++;
			c = *q == 'n' ? '\n' : *q == 't' ? '\t' : *q == 'b' ? '\b' : *q;
			if (v < sizeof(value) - 1)
				value[v++] = c;
			keep = v;
			continue;
		}
		if (v < sizeof(value) - 1)
			value[v++] = c;
		if (quoted || (c != ' ' && c != '\t' && c != '\r'))
			keep = v;
	}
	value[keep] = 0;
	on_config_value(sc, file, section, key, value);
}

static void scan_config_file(struct scan *sc, const char *file)
{
	struct error err = {0};
	cleanup_free char *buf = NULL;
	size_t len;
	struct stat st;
	/* Never a FIFO or a device the sandbox put there: it would hang us. */
	if (stat(file, &st) < 0 || !S_ISREG(st.st_mode))
		return;
	if (fs_read_file(file, 1 << 20, &buf, &len, &err) < 0) {
		error_clear(&err);
		return;
	}
	char section[64] = "";
	for (const char *line = buf; line && *line;) {
		const char *q = line + strspn(line, " \t\r");
		const char *nl = strchr(line, '\n');
		line = nl ? nl + 1 : NULL;
		if (*q == '[') {
			/* [section], [section "sub"] or [section.sub]: the name is
			 * what comes before the first space, quote, dot or ']'. */
			size_t n = strcspn(q + 1, " \t\".]\n");
			if (n >= sizeof(section))
				n = sizeof(section) - 1;
			memcpy(section, q + 1, n);
			section[n] = 0;
			lower(section);
			/* A key may follow the header on its line. */
			const char *end = strchr(q, ']');
			if (!end || (nl && end > nl))
				continue;
			q = end + 1 + strspn(end + 1, " \t");
		}
		if (*q && *q != '#' && *q != ';' && *q != '\n')
			scan_entry(sc, file, section, q);
	}
}

/* A .git file: "gitdir: <path>" names a linked worktree's git directory
 * (whose commondir file names the repository's) or, for a submodule, the
 * submodule's git directory under the superproject's modules/. */
/* The config files git reads for the worktree at top: the repository's
 * config and config.worktree, and the worktree's own config.worktree. */
static void scan_configs(struct scan *sc, const char *common, const char *gitdir)
{
	cleanup_free char *cfg = path_join(common, "config");
	cleanup_free char *wt = path_join(common, "config.worktree");
	cleanup_free char *own = gitdir ? path_join(gitdir, "config.worktree") : NULL;
	scan_config_file(sc, cfg);
	scan_config_file(sc, wt);
	if (own)
		scan_config_file(sc, own);
}

/* The system's and the user's config files, which git reads for every
 * repository: a relative core.hooksPath there (".githooks") names a
 * directory in each work tree, this one's too. */
static void scan_user_configs(struct scan *sc)
{
	const char *global = getenv("GIT_CONFIG_GLOBAL");
	cleanup_free char *config_home = xdg_dir(XDG_CONFIG, sc->home);
	cleanup_free char *xdg_cfg = path_join(config_home, "git/config");
	cleanup_free char *home_cfg = path_join(sc->home, ".gitconfig");
	scan_config_file(sc, "/etc/gitconfig");
	scan_config_file(sc, xdg_cfg);
	scan_config_file(sc, home_cfg);
	if (global && global[0] == '/')
		scan_config_file(sc, global);
}

static void protect_gitfile(struct scan *sc, const char *file)
{
	struct profile *p = sc->p;
	protect_existing(p, file);
	cleanup_free char *line = first_line(file);
	if (!line || strncmp(line, "gitdir:", 7) != 0)
		return;
	const char *v = line + 7;
	v += strspn(v, " \t");
	cleanup_free char *gitdir = resolve(sc->top, v);
	if (!gitdir)
		return;
	cleanup_free char *cdfile = path_join(gitdir, "commondir");
	cleanup_free char *cd = first_line(cdfile);
	cleanup_free char *common = cd ? resolve(gitdir, cd) : NULL;
	if (common) {
		cleanup_free char *wt = path_join(gitdir, "config.worktree");
		protect_existing(p, wt);
		/* A linked work tree's submodules keep their git directories in
		 * its own git directory, which the sandbox writes (ORIGIN_GIT). */
		cleanup_free char *modules = path_join(gitdir, "modules");
		protect_modules(p, modules, 0);
	}
	protect_gitdir(p, common ? common : gitdir, 0);
	scan_configs(sc, common ? common : gitdir, common ? gitdir : NULL);
}

/* The nearest directory from root (canonical) up that holds a .git (its
 * stat, links followed, in *st), or NULL. This runs in every wrapped tool's
 * start, so it costs one system call a level: fstatat(fd, "../../.git")
 * from a descriptor re-based every UP_BATCH levels, so that no lookup walks
 * more than that many "..". A path per level from "/" would cost the depth
 * squared, and a descriptor per level (openat "..", fstatat, close) three
 * calls a level: a root 128 directories deep took 1.2 ms that way. Batches
 * of 8 took 76 us for 145 levels, of 32 86 us (a process's first walk).
 * The directory is a prefix of root, cut in place: no allocation a level;
 * the walk starts from root_fd where there is one, not a lookup of its own. */
enum { UP_BATCH = 8 };
static char *find_dotgit(const char *root, int root_fd, struct stat *st)
{
	char rel[3 * UP_BATCH + sizeof ".git"];
	int fd = root_fd >= 0 ? fcntl(root_fd, F_DUPFD_CLOEXEC, 0)
	                      : openat(AT_FDCWD, root, O_LOOKUP | O_DIRECTORY | O_CLOEXEC);
	char *dir = xstrdup(root);
	size_t len = strlen(dir), up = 0; /* rel climbs up levels above fd */
	while (fd >= 0) {
		memcpy(rel + 3 * up, ".git", sizeof ".git");
		if (fstatat(fd, rel, st, 0) == 0) {
			close(fd);
			dir[len] = '\0';
			return dir;
		}
		if (len <= 1)
			break;
		while (len > 1 && dir[len - 1] != '/')
			len--;
		if (len > 1)
			len--; /* the slash before the last component, unless it is "/" */
		if (up == UP_BATCH) {
			rel[3 * up - 1] = '\0'; /* "../..": the new base */
			int base = openat(fd, rel, O_LOOKUP | O_DIRECTORY | O_CLOEXEC);
			close(fd);
			fd = base;
			up = 0;
		}
		memcpy(rel + 3 * up++, "../", 3);
	}
	if (fd >= 0)
		close(fd);
	free(dir);
	return NULL;
}

/* One repository: its work tree's top is dir, whose .git (a directory or
 * a .git file) st describes. */
static void protect_one(const struct context *c, struct profile *p, const char *dir,
                        const struct stat *st)
{
	cleanup_free char *dotgit = path_join(dir, ".git");
	cleanup_free char *canon = platform_canonical_path(dotgit);
	if (!canon)
		return;
	struct scan sc = {.p = p, .home = c->home, .top = dir};
	scan_user_configs(&sc);
	if (S_ISDIR(st->st_mode)) {
		protect_gitdir(p, canon, 0);
		scan_configs(&sc, canon, NULL);
	} else if (S_ISREG(st->st_mode)) {
		protect_gitfile(&sc, canon);
	}
}

/* The repository the root is in: git looks upwards for .git, and so does
 * this. */
static void protect_repository(const struct context *c, struct profile *p)
{
	struct stat st;
	cleanup_free char *dir = find_dotgit(c->root, c->root_fd, &st);
	if (dir)
		protect_one(c, p, dir, &st);
}

/* Repositories already inside the root, its own aside (a clone, a vendored
 * project, one a past session made): git runs their hooks for the user
 * who works in them later, outside. Looked for NESTED_DEPTH levels down
 * only, as this runs in every wrapped tool's start (docs/security.md: a
 * deeper one stays writable). Never into .git, node_modules (large, and
 * no project's own), nor a symlink: the walk stays in the root. A .git
 * link is followed, as git and find_dotgit follow it (a stat, nothing
 * opened). At the last level .git is looked up by path, one call a
 * directory; a directory swapped for a link since readdir only leads to
 * more protected, and only writable paths are. */
enum { NESTED_DEPTH = 2 };

static bool skipped(const struct dirent *e)
{
	const char *n = e->d_name;
	if (e->d_type != DT_DIR && e->d_type != DT_UNKNOWN)
		return true;
	return strcmp(n, ".") == 0 || strcmp(n, "..") == 0 || strcmp(n, ".git") == 0 ||
	       strcmp(n, "node_modules") == 0;
}

/* fd: a readable descriptor of dir, which this closes. */
static void protect_nested(const struct context *c, struct profile *p, int fd, const char *dir,
                           int depth)
{
	DIR *d = fdopendir(fd);
	if (!d) {
		close(fd);
		return;
	}
	struct dirent *e;
	while ((e = readdir(d))) {
		if (skipped(e))
			continue;
		struct stat st;
		if (e->d_type == DT_UNKNOWN &&
		    (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		     !S_ISDIR(st.st_mode)))
			continue;
		cleanup_free char *sub = path_join(dir, e->d_name);
		if (depth == NESTED_DEPTH) {
			char rel[sizeof e->d_name + sizeof "/.git"];
			snprintf(rel, sizeof rel, "%s/.git", e->d_name);
			if (fstatat(dirfd(d), rel, &st, 0) == 0)
				protect_one(c, p, sub, &st);
			continue;
		}
		int subfd =
		    openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (subfd < 0)
			continue;
		if (fstatat(subfd, ".git", &st, 0) == 0)
			protect_one(c, p, sub, &st);
		protect_nested(c, p, subfd, sub, depth + 1);
	}
	closedir(d);
}

static void protect_repositories_below(const struct context *c, struct profile *p)
{
	int fd = openat(c->root_fd >= 0 ? c->root_fd : AT_FDCWD, c->root_fd >= 0 ? "." : c->root,
	                O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0)
		protect_nested(c, p, fd, c->root, 1);
}

/* config.zon's .protect: read-only when there; when absent, noted for a
 * session to watch (an empty .envrc or tasks.json would not be harmless,
 * as an empty hooks directory is). */
static void protect_listed(const struct context *c, const struct config *cfg, struct profile *p)
{
	for (size_t i = 0; i < cfg->nprotect; i++) {
		cleanup_free char *path = path_join(c->root, cfg->protect[i]);
		struct stat st;
		if (lstat(path, &st) == 0) {
			protect_existing(p, path);
			continue;
		}
		struct error ignored;
		char *canon = fs_canonical_prefix(path, &ignored);
		if (!canon || path_refusal(canon) || !exposed(p, canon)) {
			free(canon);
			continue;
		}
		p->absent_protected =
		    xrealloc_array(p->absent_protected, p->nabsent_protected + 1, sizeof(char *));
		p->absent_protected[p->nabsent_protected++] = canon;
	}
}

void context_protect(const struct context *c, const struct config *cfg, struct profile *p)
{
	if (!config_protects(cfg, c->root, c->home))
		return;
	protect_repository(c, p);
	protect_repositories_below(c, p);
	protect_listed(c, cfg, p);
}
