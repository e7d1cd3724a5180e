/* Places sandboxed code can write, judged for something moat is about to
 * trust unconfined (a nix flake it would build, the nix binary it would
 * run): the root and write grants (context_writable_areas), and any past
 * sandbox root: those moat's record names (context/pastroots.h), and,
 * for roots of older moats, any directory with a .moat/ in it. A marker
 * counts where it is; where there is none, the record decides, since the
 * sandbox can delete its own marker. */
#include "context/writable.h"

#include <dirent.h>
#include <string.h>
#include <sys/stat.h>

#include "base/fs.h"
#include "base/path.h"
#include "context/pastroots.h"

#define BELOW_MAX_ENTRIES 20000
#define BELOW_MAX_DEPTH   16

/* Directories seen to hold no .moat/, nor any above them, this process.
 * moat judges its config, state and data directories and its binaries one
 * after another, and they share most of their ancestors. Such a directory
 * gains a .moat/ only by the user's hand or inside a writable area, which
 * context_writable_place judges first: the answer does not go stale. */
static char *clean_dirs[32];
static size_t nclean_dirs;

static bool known_clean(const char *dir)
{
	for (size_t i = 0; i < nclean_dirs; i++)
		if (strcmp(clean_dirs[i], dir) == 0)
			return true;
	return false;
}

static bool past_root_above(const char *path, char **why)
{
	char *seen[64];
	size_t nseen = 0;
	char *dir = xstrdup(path);
	bool found = false;
	while (!known_clean(dir)) {
		cleanup_free char *marker = path_join(dir, ".moat");
		if (fs_is_dir(marker)) {
			*why = xasprintf("under %s, a past sandbox root (it has .moat/)", dir);
			found = true;
			break;
		}
		char *up = strcmp(dir, "/") == 0 ? NULL : path_dirname(dir);
		if (nseen < ARRAY_LEN(seen))
			seen[nseen++] = dir;
		else
			free(dir);
		if (!(dir = up))
			break;
	}
	free(dir);
	for (size_t i = 0; i < nseen; i++) {
		if (!found && nclean_dirs < ARRAY_LEN(clean_dirs))
			clean_dirs[nclean_dirs++] = seen[i];
		else
			free(seen[i]);
	}
	return found;
}

struct below {
	size_t entries;
	char *found;
};

/* A .moat/ anywhere below dir (not into .git, not through links). */
static void walk_below(struct below *b, const char *dir, int depth)
{
	DIR *d = depth > BELOW_MAX_DEPTH ? NULL : opendir(dir);
	for (struct dirent *e; d && !b->found && (e = readdir(d));) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
		    strcmp(e->d_name, ".git") == 0)
			continue;
		if (++b->entries > BELOW_MAX_ENTRIES) {
			b->found =
			    xasprintf("%s holds more than %d files to search for past sandbox "
			              "roots",
			              dir, BELOW_MAX_ENTRIES);
			break;
		}
		cleanup_free char *child = path_join(dir, e->d_name);
		struct stat st;
		if (lstat(child, &st) < 0 || !S_ISDIR(st.st_mode))
			continue;
		if (strcmp(e->d_name, ".moat") == 0)
			b->found =
			    xasprintf("it holds %s, a past sandbox root (it has .moat/)", dir);
		else
			walk_below(b, child, depth + 1);
	}
	if (d)
		closedir(d);
}

bool context_writable_place(const char *path, bool below, const char *root,
                            const char *const *areas, size_t n, char **why)
{
	for (size_t i = 0; i < n; i++) {
		const char *kind =
		    root && strcmp(areas[i], root) == 0 ? "the sandbox root" : "the write grant";
		if (path_is_under(path, areas[i])) {
			*why = xasprintf("under %s %s", kind, areas[i]);
			return true;
		}
		if (below && path_is_under(areas[i], path)) {
			*why = xasprintf("it holds %s %s", kind, areas[i]);
			return true;
		}
	}
	if ((*why = past_roots_why(path, below)))
		return true;
	if (past_root_above(path, why))
		return true;
	if (!below)
		return false;
	struct below b = {0};
	walk_below(&b, path, 0);
	*why = b.found;
	return b.found != NULL;
}
