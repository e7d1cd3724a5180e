/* launch_exec: the last step of every start, in the process that becomes
 * the tool: confine it (Landlock, the seccomp filter, TMPDIR), set its
 * environment and exec the file that was judged. launch_enter (enter.c)
 * comes here for a wrapped tool, a session's supervisor (run.c) for the
 * session's tool; neither is called from here. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include "base/envvars.h"
#include "base/fs.h"
#include "base/path.h"
#include "base/platform.h"
#include "launch/launch.h"
#include "launch/plan.h"
#include "launch/proxy.h"
#include "launch/scrub.h"
#include "shells/shells.h"

/* $root/.moat/tmp and $root/.moat/.gitignore ("*"). Made once the sandbox
 * is applied, so a symlink planted by sandboxed code at .moat cannot steer
 * these writes outside the root; never follows symlinks anyway. From the
 * root's descriptor where there is one: Landlock judges each call when it
 * is made, and a mount namespace entered since leaves the directory the
 * same. */
static int make_tmpdir(const struct context *c, struct error *err)
{
	const char *root = c->root;
	cleanup_close int rootfd = c->root_fd >= 0
	                               ? fcntl(c->root_fd, F_DUPFD_CLOEXEC, 0)
	                               : openat(AT_FDCWD, root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0)
		return error_errno(err, "cannot open '%s'", root);
	if (mkdirat(rootfd, ".moat", 0755) < 0 && errno != EEXIST)
		return error_errno(err, "cannot create '%s/.moat'", root);
	cleanup_close int moatfd =
	    openat(rootfd, ".moat", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (moatfd < 0)
		return error_errno(err, "cannot open '%s/.moat'", root);
	if (mkdirat(moatfd, "tmp", 0700) < 0 && errno != EEXIST)
		return error_errno(err, "cannot create '%s/.moat/tmp'", root);
	cleanup_close int fd = openat(moatfd, ".gitignore",
	                              O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0 && errno != EEXIST)
		return error_errno(err, "cannot create '%s/.moat/.gitignore'", root);
	/* "*" ignores the directory's contents and the .gitignore itself. */
	if (fd >= 0 && write(fd, "*\n", 2) != 2)
		return error_set(err, "cannot write '%s/.moat/.gitignore'", root);
	return 0;
}

/* MOAT_ENV_HOME is created if missing, inside the sandbox (it was checked
 * to be writable there), so tools that expect $HOME to exist work. */
static int make_home(const struct launch *l, struct error *err)
{
	const char *home = l->overrides.home;
	if (!home || fs_is_dir(home))
		return 0;
	return fs_mkdir_p(home, 0700, err);
}

static void apply_profile_env(const struct profile *p)
{
	for (size_t i = 0; i < p->nenv; i++) {
		if (p->env[i].value)
			setenv(p->env[i].name, p->env[i].value, 1);
		else
			unsetenv(p->env[i].name);
	}
}

static void print_env_refusal(const struct launch *l, const char *file, const char *name)
{
	cleanup_free char *msg = xasprintf(
	    "%s sets %s, a secret %s is not passed: left out (to pass it:  moat allow --env %s "
	    "%s)\n",
	    file, name, l->name, l->session ? "'*'" : l->name, name);
	l->print_warnings(msg);
}

/* share/moat/env: read once confined, never through a symlink out of the
 * shell, so a planted link cannot bring another project's secrets in;
 * MOAT_ENV_* applied after it still win. */
static int apply_shell_env(const struct launch *l, struct error *err)
{
	cleanup_free char *path = path_join(l->shell_dir, ENVFILE_REL);
	cleanup_free char *buf = NULL;
	size_t len;
	if (fs_read_beneath(l->shell_dir, ENVFILE_REL, MANIFEST_MAX, &buf, &len, err) < 0)
		return errno == ENOENT ? 0 : -1;
	struct env_change *env;
	size_t n;
	struct strbuf warnings = STRBUF_INIT;
	int rc = envfile_parse_warn(buf, len, path, l->ctx.root, &env, &n, &warnings, err);
	if (warnings.len && l->print_warnings)
		l->print_warnings(warnings.buf);
	sb_release(&warnings);
	if (rc < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (!scrub_refuses(l, env[i].name))
			setenv(env[i].name, env[i].value, 1);
		else if (l->print_warnings)
			print_env_refusal(l, path, env[i].name);
	}
	env_changes_free(env, n);
	return 0;
}

/* Explain why exec of l->exe failed with errno e, with a hint to grant it
 * only when the sandbox refused it: it is executable by its permissions
 * (access() is not judged by Landlock) and outside the root. */
static int exec_error(const struct launch *l, int e, struct error *err)
{
	error_set(err, "cannot run '%s': %s", l->exe, strerror(e));
	cleanup_free char *canon = platform_canonical_path(l->exe);
	struct stat st;
	if (e == EACCES && stat(l->exe, &st) == 0 && S_ISREG(st.st_mode) &&
	    access(l->exe, X_OK) == 0 && canon && !path_is_under(canon, l->ctx.root)) {
		/* Grant the directory, unless that would be home or above it. */
		cleanup_free char *dir = path_dirname(canon);
		const char *what = path_home_refusal(dir, l->ctx.home) ? canon : dir;
		error_hint(
		    err,
		    "the sandbox does not allow running it; to grant it:  moat allow %s %s --exec",
		    l->name, what);
	}
	err->status = e == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_RUN;
	return err->status;
}

/* A wrapped tool none of whose stdin, stdout and stderr is a terminal
 * drops its controlling terminal, so nothing it leaves behind can reach the
 * user's through /dev/tty. TIOCNOTTY rather than setsid(): the tool stays in
 * its job's process group (a job's leader could not setsid anyway), so ^C
 * at the terminal still reaches it. */
static void leave_terminal(void)
{
	int fd = openat(AT_FDCWD, "/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return;
	ioctl(fd, TIOCNOTTY);
	close(fd);
}

/* Is path read-only already: bound so by the moat session this one is
 * nested in, or on a read-only file system? */
static bool read_only_mount(const char *path)
{
	struct statvfs st;
	return statvfs(path, &st) == 0 && (st.f_flag & ST_RDONLY);
}

void launch_warn_unprotected(const struct launch *l, int e)
{
	const struct profile *p = &l->profile;
	const char *first = NULL;
	size_t n = 0;
	for (size_t i = 0; i < p->nrules; i++)
		if (p->rules[i].protect != PROTECT_NONE && p->rules[i].protect != PROTECT_PIN &&
		    !read_only_mount(p->rules[i].path) && n++ == 0)
			first = p->rules[i].path;
	if (!first || !l->print_warnings)
		return;
	const char *others = n > 1 ? " and the other protected paths" : "";
	const char *verb = n > 1 ? "stay" : "stays";
	/* Only what moat knows: the kernel's answer, and that namespaces
	 * never worked here (else launch_check_unisolated refused), or that
	 * this session is nested in another, whose sandbox allows no mounts
	 * and has left these writable. */
	cleanup_free char *msg =
	    l->nested
	        ? xasprintf("this session is nested in another moat session, which lets it make "
	                    "no mounts of its own: '%s'%s, which that session does not bind "
	                    "read-only, %s as writable as %s there\n",
	                    first, others, verb, n > 1 ? "they are" : "it is")
	        : xasprintf("no mount namespace here (the kernel refused one: %s; none ever worked "
	                    "for you here), so '%s'%s %s writable in the sandbox: what is planted "
	                    "there runs at your next git, outside it; 'moat check' explains\n",
	                    strerror(e), first, others, verb);
	l->print_warnings(msg);
}

/* The root was looked up before the protected paths were mounted, by
 * path (ctx.root_fd: the wrapper's at its start, a session's supervisor's
 * right before its mounts), and the root's Landlock rule comes from that
 * descriptor. Had the root been replaced in between (renamed away, another
 * made in its place), the tool would be granted the old tree while the
 * mounts guard the new one: the old tree's .git/hooks writable. Once the
 * path names the descriptor's directory again, the mounts are on that
 * tree, and move with it. */
static int check_root_unmoved(const struct context *c, struct error *err)
{
	struct stat held, named;
	if (c->root_fd < 0)
		return 0;
	if (fstat(c->root_fd, &held) == 0 && stat(c->root, &named) == 0 &&
	    held.st_dev == named.st_dev && held.st_ino == named.st_ino)
		return 0;
	error_set(err, "the sandbox root '%s' was moved or replaced while moat started", c->root);
	error_hint(err, "run the command again");
	err->status = EXIT_MOAT_FAILED;
	return -1;
}

/* The wrapper keeps the caller's descriptors (make passes its jobserver
 * that way); a session closed them all before it started. */
static int confine(struct launch *l, struct error *err)
{
	if (!l->session && !isatty(0) && !isatty(1) && !isatty(2))
		leave_terminal();
	/* A session bound its protected paths in its own world already. */
	int protect = l->session ? 0 : sandbox_protect(&l->profile, err);
	int refused = errno;
	if (protect > 0 && launch_check_unisolated(l, refused, err) < 0)
		return -1;
	if (protect < 0 || check_root_unmoved(&l->ctx, err) < 0)
		return -1;
	if (protect > 0)
		launch_warn_unprotected(l, refused);
	else if (!l->session && profile_has_protected(&l->profile))
		launch_namespaces_worked(l);
	if (sandbox_apply(&l->profile, &l->support, l->ctx.root_fd, err) < 0 ||
	    make_tmpdir(&l->ctx, err) < 0)
		return -1;
	launch_clear_tmpdir(l);
	apply_profile_env(&l->profile);
	if (l->profile.net_proxy_port)
		proxy_set_env(l->profile.net_proxy_port);
	return 0;
}

int launch_exec(struct launch *l, char **argv, struct error *err)
{
	if (!l->jailbroken && !l->already_confined && confine(l, err) < 0)
		return EXIT_MOAT_FAILED;
	if (make_home(l, err) < 0)
		return EXIT_MOAT_FAILED;
	scrub_apply(l);
	if (l->path)
		setenv("PATH", l->path, 1);
	if (l->jailbreak_env)
		setenv(ENV_JAILBREAK, l->jailbreak_env, 1);
	if (l->shell_dir && apply_shell_env(l, err) < 0)
		return EXIT_MOAT_FAILED;
	overrides_apply(&l->overrides);
	/* A session's start held its CPU (session_run): the tool and what it
	 * starts get all of the caller's. */
	platform_cpu_release();
	/* The file that was judged runs, opened once: a jailbroken tool's
	 * canonical path (tool.c) refusing any link, so a leftover process
	 * flipping one cannot swap in a script of its own. */
	platform_exec_file(l->exe, l->jailbroken, argv);
	return exec_error(l, errno, err);
}
