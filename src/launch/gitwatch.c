#include "launch/gitwatch.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

void gitwatch_start(struct gitwatch *w, const struct profile *p)
{
	*w = (struct gitwatch){0};
	for (size_t i = 0; i < p->nrules; i++) {
		const struct rule *r = &p->rules[i];
		if (r->protect != PROTECT_PIN)
			continue;
		cleanup_close int dfd = platform_open_path_no_symlinks("/", r->path + 1);
		struct stat st;
		if (dfd < 0 || !is_gitdir(dfd) ||
		    fstatat(dfd, "commondir", &st, AT_SYMLINK_NOFOLLOW) == 0)
			continue;
		w->dirs = xrealloc_array(w->dirs, w->n + 1, sizeof(*w->dirs));
		w->dirs[w->n++] = xstrdup(r->path);
	}
}

void gitwatch_end(struct gitwatch *w, struct strbuf *warnings)
{
	for (size_t i = 0; i < w->n; i++) {
		const char *dir = w->dirs[i];
		cleanup_close int dfd = platform_open_path_no_symlinks("/", dir + 1);
		struct stat st;
		if (dfd >= 0 && fstatat(dfd, "commondir", &st, AT_SYMLINK_NOFOLLOW) == 0) {
			bool moved = renameat(dfd, "commondir", dfd, "commondir.moat-planted") == 0;
			sb_addf(
			    warnings,
			    "the session made '%s/commondir', which sends git elsewhere for its "
			    "config and hooks; %s: look through '%s' for other changes\n",
			    dir, moved ? "moved it to commondir.moat-planted" : "remove it", dir);
		}
		free(w->dirs[i]);
	}
	free(w->dirs);
	*w = (struct gitwatch){0};
}
