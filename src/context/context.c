#include "context/context.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/path.h"
#include "base/platform.h"
#include "context/writable.h"

/* /etc entries that DNS, TLS and time need; on some systems they are
 * symlinks to files outside /etc (resolv.conf -> /run/systemd/...). */
static const char *const etc_needed[] = {
    "/etc/resolv.conf",
    "/etc/hosts",
    "/etc/nsswitch.conf",
    "/etc/host.conf",
    "/etc/gai.conf",
    "/etc/localtime",
    "/etc/timezone",
    "/etc/ssl/certs/ca-certificates.crt",
    "/etc/pki/tls/certs/ca-bundle.crt",
};

/* The writable area strictly containing path, or NULL. */
static const char *area_around(const char *path, const char *const *areas, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (path_is_under(path, areas[i]) && strcmp(path, areas[i]) != 0)
			return areas[i];
	return NULL;
}

/* Take the first component off *rest into a new string; NULL at the end. */
static char *next_component(const char **rest)
{
	while (**rest == '/')
		(*rest)++;
	size_t len = strcspn(*rest, "/");
	if (!len)
		return NULL;
	char *c = xstrndup(*rest, len);
	*rest += len;
	return c;
}

/* The canonical form a missing path will have: the resolved part, then the
 * missing component and the rest as they are. NULL (errno ENOENT) when the
 * rest steps back with "..": above a component that is not there yet, what
 * ".." will mean is not known. */
static char *absent_form(const char *resolved, const char *missing, const char *rest)
{
	char *out = path_join(resolved, missing);
	for (char *c; (c = next_component(&rest)); free(c)) {
		if (strcmp(c, ".") == 0)
			continue;
		if (strcmp(c, "..") == 0) {
			free(c), free(out);
			errno = ENOENT;
			return NULL;
		}
		char *longer = path_join(out, c);
		free(out);
		out = longer;
	}
	return out;
}

/* Who judges the links a resolution meets, and what it is for. */
struct link_judge {
	const char *const *areas; /* the root and write grants, canonical */
	size_t n;
	const char *root; /* with past roots: judge with context_writable_place */
	bool past_roots;  /* also refuse links (and the end) under a past root */
	const char *what; /* "the shell", "to grant", "to jailbreak cat" */
};

/* May sandboxed code have planted the link cand? Inside a writable area
 * (the link's own directory is writable there), or, when asked, in a
 * directory under a past root. -1 with err, naming the place. */
static int judge_link(const struct link_judge *j, const char *path, const char *cand,
                      struct error *err)
{
	const char *area = area_around(cand, j->areas, j->n);
	if (area) {
		error_set(err,
		          "refusing %s '%s': '%s' is a symlink inside '%s', where sandboxed code "
		          "can write",
		          j->what, path, cand, area);
		error_hint(err,
		           "name the real directory, or remove the link if you did not make it");
		err->status = EXIT_MOAT_FAILED;
		return -1;
	}
	cleanup_free char *dir = j->past_roots ? path_dirname(cand) : NULL;
	cleanup_free char *why = NULL;
	if (dir && context_writable_place(dir, false, j->root, j->areas, j->n, &why)) {
		error_set(err,
		          "refusing %s '%s': '%s' is a symlink %s, where sandboxed code can write",
		          j->what, path, cand, why);
		err->status = EXIT_MOAT_FAILED;
		return -1;
	}
	return 0;
}

/* With held, *held is the descriptor the common case below opened (-1
 * where there was none), for the sandbox to rule on: a grant then costs
 * one lookup, not two, and its rule is on what was checked here. */
/* path (absolute, no "..") opened refusing every link: below the
 * directory dirs opened last when it is path's too (grants are often
 * siblings: one component looked up, not all), else from "/". */
static int open_no_symlinks(const char *path, struct lookup_dir *dirs)
{
	const char *slash = strrchr(path, '/');
	size_t len = (size_t)(slash - path);
	if (!dirs || slash == path || !slash[1])
		return platform_open_path_no_symlinks("/", path + 1);
	if (!dirs->path || strlen(dirs->path) != len || strncmp(dirs->path, path, len) != 0) {
		context_lookup_dir_free(dirs);
		dirs->path = xstrndup(path, len);
		dirs->fd = platform_open_path_no_symlinks("/", dirs->path + 1);
	}
	int fd = dirs->fd >= 0 ? platform_open_name_no_symlinks(dirs->fd, slash + 1) : -1;
	return fd >= 0 ? fd : platform_open_path_no_symlinks("/", path + 1);
}

void context_lookup_dir_free(struct lookup_dir *d)
{
	if (d->path && d->fd >= 0)
		close(d->fd);
	free(d->path);
	*d = (struct lookup_dir){0};
}

static int resolve_unplanted(const char *path, const struct link_judge *j, bool keep_absent,
                             char **canon, int *held, struct lookup_dir *dirs, struct error *err)
{
	*canon = NULL;
	if (held)
		*held = -1;
	/* The common case in one call: a path with no link anywhere in it is
	 * its own canonical form (a grant, a thousand times over). */
	if (path[0] == '/' && path[1] && !path_has_dotdot(path)) {
		int fd = open_no_symlinks(path, dirs);
		if (fd >= 0) {
			if (held)
				*held = fd;
			else
				close(fd);
			*canon = path_normalize(path);
			return 0;
		}
	}
	char *resolved = xstrdup("/");
	char *todo = xstrdup(path);
	const char *rest = todo;
	int hops = 0;
	for (char *c; (c = next_component(&rest)); free(c)) {
		if (strcmp(c, ".") == 0)
			continue;
		char *cand = strcmp(c, "..") == 0 ? path_dirname(resolved) : path_join(resolved, c);
		struct stat st;
		bool there = lstat(cand, &st) == 0;
		if (!there || (S_ISLNK(st.st_mode) && ++hops > 40)) {
			/* not there, or a loop of links: no rule, as for realpath;
			 * or, if asked, the form a path not there yet will have */
			int e = there ? ELOOP : errno;
			if (e == ENOENT && keep_absent)
				*canon = absent_form(resolved, c, rest);
			free(cand), free(c), free(todo), free(resolved);
			errno = e;
			return 0;
		}
		if (!S_ISLNK(st.st_mode)) {
			free(resolved);
			resolved = cand;
			continue;
		}
		if (judge_link(j, path, cand, err) < 0) {
			free(cand), free(c), free(todo), free(resolved);
			return -1;
		}
		/* The user's own link: go on from its target, which is checked
		 * the same way (it may lead into a writable area). */
		char target[PATH_MAX];
		ssize_t len = readlink(cand, target, sizeof(target) - 1);
		free(cand);
		if (len <= 0) { /* gone since lstat: not there, never skipped over */
			int e = len == 0 ? ENOENT : errno;
			free(c), free(todo), free(resolved);
			errno = e;
			return 0;
		}
		target[len] = '\0';
		char *next = xasprintf("%s/%s", target, rest);
		free(todo);
		todo = next;
		rest = todo;
		if (target[0] == '/') {
			free(resolved);
			resolved = xstrdup("/");
		}
	}
	free(todo);
	*canon = resolved;
	return 0;
}

int context_resolve_unplanted(const char *path, const char *const *areas, size_t n,
                              const char *what, char **canon, struct error *err)
{
	struct link_judge j = {areas, n, NULL, false, what};
	return resolve_unplanted(path, &j, false, canon, NULL, NULL, err);
}

int context_resolve_unplanted_absent(const char *path, const char *const *areas, size_t n,
                                     const char *what, char **canon, struct error *err)
{
	struct link_judge j = {areas, n, NULL, false, what};
	return resolve_unplanted(path, &j, true, canon, NULL, NULL, err);
}

int context_resolve_grant(const char *path, const char *const *areas, size_t n,
                          struct lookup_dir *dirs, char **canon, int *held, struct error *err)
{
	struct link_judge j = {areas, n, NULL, false, "to grant"};
	return resolve_unplanted(path, &j, true, canon, held, dirs, err);
}

int context_resolve_unwritable(const char *path, const char *root, const char *const *areas,
                               size_t n, const char *what, char **canon, struct error *err)
{
	struct link_judge j = {areas, n, root, true, what};
	if (resolve_unplanted(path, &j, true, canon, NULL, NULL, err) < 0)
		return -1;
	if (!*canon)
		return 0;
	cleanup_free char *why = NULL;
	if (!context_writable_place(*canon, false, root, areas, n, &why))
		return 0;
	error_set(err, "refusing %s: '%s' lies %s, where sandboxed code can write", what, *canon,
	          why);
	err->status = EXIT_MOAT_FAILED;
	free(*canon);
	*canon = NULL;
	return -1;
}

const char *context_real_home(struct error *err)
{
	const char *home = getenv("HOME");
	if (!home || home[0] != '/') {
		error_set(err, "HOME is %s", home ? "not an absolute path" : "not set");
		error_hint(err, "moat needs the real HOME to keep it out of the sandbox; set HOME");
		err->status = EXIT_MOAT_FAILED;
		return NULL;
	}
	return home;
}

static void gather_etc_links(struct context *c)
{
	for (size_t i = 0; i < ARRAY_LEN(etc_needed) && c->netc_links < ARRAY_LEN(c->etc_links);
	     i++) {
		struct stat st;
		/* Only a symlink can lead outside /etc; most entries are not one. */
		if (lstat(etc_needed[i], &st) < 0 || !S_ISLNK(st.st_mode))
			continue;
		char *target = platform_canonical_path(etc_needed[i]);
		if (target && !profile_defaults_read(context_platform(), target) &&
		    !path_refusal(target))
			c->etc_links[c->netc_links++] = target;
		else
			free(target);
	}
}

int context_init(struct context *c, const char *root, const char *home, struct error *err)
{
	*c = (struct context){.root_fd = -1};
	c->root = root ? xstrdup(root) : NULL;
	char *home_canon = platform_canonical_path(home);
	c->home = home_canon ? home_canon : path_normalize(home);
	if (root && profile_refuse_root(c->root, c->home, err) < 0) {
		context_free(c);
		return -1;
	}
	gather_etc_links(c);
	return 0;
}

void context_add_shell(struct context *c, const char *dir)
{
	c->shell_dirs = xrealloc_array(c->shell_dirs, c->nshell_dirs + 1, sizeof(char *));
	c->shell_dirs[c->nshell_dirs++] = xstrdup(dir);
}

void context_add_grant(struct context *c, const char *bin, char *path, unsigned access, int fd)
{
	c->grants = xrealloc_array(c->grants, c->ngrants + 1, sizeof(*c->grants));
	c->grants[c->ngrants++] =
	    (struct grant){xstrdup(bin), path, access, .held = fd >= 0, .fd = fd};
}

/* The grants' held descriptors come in runs of consecutive numbers, in
 * the order they were opened (each the lowest free one): a call closes a
 * run. fn gets each run [lo, hi]; false when they are out of order. */
static bool held_runs(const struct context *c, void (*fn)(int lo, int hi))
{
	int lo = -1, hi = -1;
	for (size_t i = 0; i < c->ngrants; i++) {
		const struct grant *g = &c->grants[i];
		if (!g->held)
			continue;
		if (g->fd <= hi)
			return false;
		if (g->fd != hi + 1 || lo < 0) {
			if (lo >= 0 && fn)
				fn(lo, hi);
			lo = g->fd;
		}
		hi = g->fd;
	}
	if (lo >= 0 && fn)
		fn(lo, hi);
	return true;
}

void context_close_held_fds(const struct context *c)
{
	if (!held_runs(c, platform_close_range))
		for (size_t i = 0; i < c->ngrants; i++)
			if (c->grants[i].held)
				close(c->grants[i].fd);
}

void context_close_held(struct context *c)
{
	context_close_held_fds(c);
	for (size_t i = 0; i < c->ngrants; i++)
		c->grants[i].held = false;
}

/* For context_close_unheld: the next descriptor not yet judged, and the
 * one besides the held ones to keep (-1: none). */
static int unheld_from, unheld_keep;

/* Close lo..hi, but unheld_keep. */
static void close_but_kept(int lo, int hi)
{
	if (unheld_keep >= lo && unheld_keep <= hi) {
		if (unheld_keep > lo)
			platform_close_range(lo, unheld_keep - 1);
		lo = unheld_keep + 1;
	}
	if (lo <= hi)
		platform_close_range(lo, hi);
}

static void close_below_run(int lo, int hi)
{
	if (lo > unheld_from)
		close_but_kept(unheld_from, lo - 1);
	unheld_from = hi + 1;
}

bool context_close_unheld(const struct context *c, int lowfd, int keep)
{
	if (!held_runs(c, NULL))
		return false;
	unheld_from = lowfd, unheld_keep = keep;
	held_runs(c, close_below_run);
	close_but_kept(unheld_from, INT_MAX);
	return true;
}

void context_add_socket(struct context *c, const char *path)
{
	c->sockets = xrealloc_array(c->sockets, c->nsockets + 1, sizeof(char *));
	c->sockets[c->nsockets++] = xstrdup(path);
}

void context_add_wrapper(struct context *c, const char *path)
{
	if (c->wrapper && strcmp(c->wrapper, path) == 0)
		return;
	for (size_t i = 0; i < c->nwrappers; i++)
		if (strcmp(c->wrappers[i], path) == 0)
			return;
	c->wrappers = xrealloc_array(c->wrappers, c->nwrappers + 1, sizeof(char *));
	c->wrappers[c->nwrappers++] = xstrdup(path);
}

void context_free(struct context *c)
{
	for (size_t i = 0; i < c->nwrappers; i++)
		free(c->wrappers[i]);
	free(c->wrappers);
	for (size_t i = 0; i < c->nareas; i++)
		free(c->areas[i]);
	free(c->areas);
	for (size_t i = 0; i < c->nsockets; i++)
		free(c->sockets[i]);
	free(c->sockets);
	if (c->root && c->root_fd >= 0) /* never initialised: all zero */
		close(c->root_fd);
	free(c->root);
	free(c->home);
	for (size_t i = 0; i < c->netc_links; i++)
		free(c->etc_links[i]);
	for (size_t i = 0; i < c->nshell_dirs; i++)
		free(c->shell_dirs[i]);
	context_close_held(c);
	for (size_t i = 0; i < c->ngrants; i++) {
		free((char *)c->grants[i].bin);
		free((char *)c->grants[i].path);
	}
	for (size_t i = 0; i < c->njailbreaks; i++)
		free(c->jailbreaks[i]);
	free(c->shell_dirs);
	free(c->grants);
	free(c->jailbreaks);
	free(c->wrapper);
	for (size_t i = 0; i < c->ngit; i++)
		free((char *)c->git[i].path);
	free(c->git);
	free(c->git_common);
	free(c->git_module);
	for (size_t i = 0; i < c->ngit_protect; i++)
		free(c->git_protect[i]);
	free(c->git_protect);
	*c = (struct context){0};
}

enum platform context_platform(void)
{
	return platform_is_macos() ? PLATFORM_MACOS : PLATFORM_LINUX;
}

int context_build_profile(const struct context *c, enum platform platform, struct profile *out,
                          struct error *err)
{
	/* The wrappers the shells lead to run like the shells themselves. */
	size_t nshells = c->nshell_dirs + c->nwrappers;
	cleanup_free const char **shells = xcalloc(nshells + 1, sizeof(char *));
	for (size_t i = 0; i < c->nshell_dirs; i++)
		shells[i] = c->shell_dirs[i];
	for (size_t i = 0; i < c->nwrappers; i++)
		shells[c->nshell_dirs + i] = c->wrappers[i];
	struct profile_input in = {
	    .platform = platform,
	    .root = c->root,
	    .home = c->home,
	    .etc_links = (const char *const *)c->etc_links,
	    .netc_links = c->netc_links,
	    .grants = c->grants,
	    .ngrants = c->ngrants,
	    .jailbreaks = (const char *const *)c->jailbreaks,
	    .njailbreaks = c->njailbreaks,
	    .shell_dirs = shells,
	    .nshell_dirs = nshells,
	    .wrapper = c->wrapper,
	    .sockets = (const char *const *)c->sockets,
	    .nsockets = c->nsockets,
	    .git = c->git,
	    .ngit = c->ngit,
	};
	return profile_build(&in, out, err);
}
