/* Does a shell's bin/ lead to moat-wrapper, every entry of it? A shell is
 * on PATH (in a session, or exported by the user), and an entry that does
 * not is a silent hole there: a dangling link is skipped by the PATH
 * lookup, so the next tool of that name on PATH runs unconfined; a program
 * of its own runs unconfined itself. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/path.h"
#include "base/platform.h"
#include "base/strbuf.h"
#include "shells/shells.h"

#define SHOWN_MAX 4

bool shell_is_wrapper(const char *canon)
{
	struct stat st;
	return strcmp(path_basename(canon), "moat-wrapper") == 0 && stat(canon, &st) == 0 &&
	       S_ISREG(st.st_mode);
}

struct bin_check {
	char **wrappers; /* distinct, canonical; NULL-terminated */
	size_t nwrappers;
	struct strbuf broken; /* "name (why), ..." */
	size_t nbroken;
	char *last_target; /* the last link's text, and what it came to */
	char *last_why;    /* NULL: it leads to a wrapper */
};

static void add_wrapper(struct bin_check *c, const char *canon)
{
	for (size_t i = 0; i < c->nwrappers; i++)
		if (strcmp(c->wrappers[i], canon) == 0)
			return;
	c->wrappers = xrealloc_array(c->wrappers, c->nwrappers + 2, sizeof(char *));
	c->wrappers[c->nwrappers++] = xstrdup(canon);
	c->wrappers[c->nwrappers] = NULL;
}

static void add_broken(struct bin_check *c, const char *name, const char *why)
{
	if (c->nbroken++ < SHOWN_MAX)
		sb_addf(&c->broken, "%s%s (%s)", c->nbroken > 1 ? ", " : "", name, why);
}

/* Why the link bin/name (whose text is target) does not lead to a
 * moat-wrapper, or NULL when it does. Links of one shell mostly share one
 * target: it is resolved once. */
static const char *judge_link(struct bin_check *c, const char *bin, const char *name,
                              const char *target)
{
	if (c->last_target && strcmp(c->last_target, target) == 0)
		return c->last_why;
	free(c->last_target);
	free(c->last_why);
	c->last_target = xstrdup(target);
	c->last_why = NULL;
	cleanup_free char *link = path_join(bin, name);
	cleanup_free char *canon = platform_canonical_path(link);
	if (!canon)
		c->last_why = xasprintf("a link to %s, which %s", target,
		                        errno == ENOENT ? "is not there" : strerror(errno));
	else if (!shell_is_wrapper(canon))
		c->last_why = xasprintf("a link to %s, not to moat-wrapper", canon);
	else
		add_wrapper(c, canon);
	return c->last_why;
}

static void check_entry(struct bin_check *c, int dfd, const char *bin, const struct dirent *e)
{
	const char *name = e->d_name;
	unsigned char type = e->d_type;
	struct stat st;
	if (type == DT_UNKNOWN) {
		if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			return;
		type = S_ISLNK(st.st_mode) ? DT_LNK : S_ISREG(st.st_mode) ? DT_REG : DT_DIR;
	}
	if (type == DT_LNK) {
		char target[PATH_MAX];
		ssize_t n = readlinkat(dfd, name, target, sizeof(target) - 1);
		if (n <= 0)
			return; /* gone meanwhile */
		target[n] = '\0';
		const char *why = judge_link(c, bin, name, target);
		if (why)
			add_broken(c, name, why);
		return;
	}
	/* Only a file something could execute matters on PATH. */
	if (type == DT_REG && fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISREG(st.st_mode) && (st.st_mode & 0111))
		add_broken(c, name, "a program of its own, not a link to moat-wrapper");
}

int shell_check_bin(const char *shell_dir, char ***wrappers, struct error *err)
{
	cleanup_free char *bin = path_join(shell_dir, "bin");
	struct bin_check c = {.wrappers = xcalloc(1, sizeof(char *)), .broken = STRBUF_INIT};
	int dfd = open(bin, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
	if (!d) {
		if (dfd >= 0)
			close(dfd);
		error_errno(err, "cannot read '%s'", bin);
		path_list_free(c.wrappers);
		return -1;
	}
	for (struct dirent *e; (e = readdir(d));)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			check_entry(&c, dirfd(d), bin, e);
	closedir(d);
	free(c.last_target);
	free(c.last_why);
	int rc = 0;
	if (c.nbroken) {
		error_set(err,
		          "shell '%s' has %zu %s in bin/ that %s not lead to moat-wrapper: %s%s",
		          shell_dir, c.nbroken, c.nbroken == 1 ? "entry" : "entries",
		          c.nbroken == 1 ? "does" : "do", sb_str(&c.broken),
		          c.nbroken > SHOWN_MAX ? ", ..." : "");
		error_hint(err,
		           "with bin/ on PATH they would run unconfined (a dangling link is "
		           "skipped, and the next tool of that name on PATH runs); wrap them again "
		           "with 'moat wrap', or remove them");
		err->status = EXIT_MOAT_FAILED;
		path_list_free(c.wrappers);
		rc = -1;
	} else {
		*wrappers = c.wrappers;
	}
	sb_release(&c.broken);
	return rc;
}
