/* moat-wrapper: what every tool in a shell is a symlink to.
 *
 *   argv[0] -> the shell's manifest -> the real binary   (here)
 *   -> plan -> confirm, confine, environment, exec      (src/launch/)
 *
 * It runs on every tool invocation, so it stays libc-only and does as little
 * as it can: inside a moat session (verified with the kernel, not trusted from
 * the environment) it applies no second layer. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "base/fs.h"
#include "base/path.h"
#include "base/platform.h"
#include "launch/launch.h"
#include "shells/shells.h"

static const char prog[] = "moat-wrapper";

static int check_not_wrapper(const struct tool *t, struct error *err);

static int fail(const struct error *err, int status)
{
	error_print(prog, err);
	return err->status ? err->status : status;
}

/* Is link a tool of a shell: does the manifest of the shell holding its
 * directory (the directory resolved, so a symlinked bin/ works) list its
 * name? The first reason it is not is kept in err, for the error message. */
static bool try_tool_link(const char *link, struct tool *t, struct error *err, bool *have_err)
{
	cleanup_free char *dir = path_dirname(link);
	cleanup_free char *dir_canon = platform_canonical_path(dir);
	if (!dir_canon) {
		if (!*have_err)
			error_errno(err, "cannot resolve '%s'", dir), *have_err = true;
		return false;
	}
	cleanup_free char *shell = path_dirname(dir_canon);
	struct manifest m;
	struct error why;
	if (manifest_load(shell, &m, &why) < 0) {
		if (!*have_err && fs_exists(link))
			*err = why, *have_err = true;
		return false;
	}
	const char *name = path_basename(link);
	const char *real = manifest_lookup(&m, name);
	if (real) {
		t->name = xstrdup(name);
		t->shell_dir = xstrdup(shell);
		t->real = xstrdup(real);
	} else if (!*have_err) {
		error_set(err, "'%s' is not in the manifest of shell '%s'", name, shell);
		error_hint(err, "add it with: moat wrap %s /path/to/%s", shell, name);
		*have_err = true;
	}
	manifest_free(&m);
	return real != NULL;
}

/* Follow symlinks from path one hop at a time until a hop is a shell's tool:
 * a user's own symlink to a wrapped tool works like the tool. */
static bool walk_to_tool(const char *path, struct tool *t, struct error *err, bool *have_err)
{
	cleanup_free char *cur = xstrdup(path);
	for (int hops = 0; hops < 40; hops++) {
		if (try_tool_link(cur, t, err, have_err))
			return true;
		char target[PATH_MAX];
		ssize_t n = readlink(cur, target, sizeof(target) - 1);
		if (n < 0)
			return false;
		target[n] = '\0';
		cleanup_free char *dir = path_dirname(cur);
		free(cur);
		cur = target[0] == '/' ? path_normalize(target) : path_join(dir, target);
	}
	return false;
}

/* Which tool we are, from how we were invoked: a path in argv[0] is where
 * the walk starts (its final symlink, which points at moat-wrapper, is not
 * resolved: its name is the tool's); a bare name starts from the first
 * PATH entry holding it, as execvp would have found it. */
static int resolve_tool(const char *argv0, struct tool *t, struct error *err)
{
	const char *why = tool_name_refusal(path_basename(argv0));
	if (why)
		return error_set(err, "cannot run '%s': %s", argv0, why);
	bool have_err = false;
	if (strchr(argv0, '/')) {
		cleanup_free char *abs = fs_absolute(argv0, err);
		if (!abs)
			return -1;
		if (walk_to_tool(abs, t, err, &have_err))
			return check_not_wrapper(t, err);
	} else {
		const char *path = getenv("PATH");
		char **dirs = path_list_split(path ? path : "", NULL);
		bool found = false;
		for (char **dir = dirs; *dir && !found; dir++) {
			cleanup_free char *cand = (*dir)[0] == '/' ? path_join(*dir, argv0) : NULL;
			found = cand && fs_exists(cand) && walk_to_tool(cand, t, err, &have_err);
		}
		path_list_free(dirs);
		if (found)
			return check_not_wrapper(t, err);
	}
	if (!have_err) {
		error_set(err, "cannot find the shell that provides '%s'", argv0);
		error_hint(err, "invoke it through a shell's bin/ directory, by path or on PATH");
	}
	return -1;
}

/* The manifest must name a real binary, not moat-wrapper itself (a loop). */
static int check_not_wrapper(const struct tool *t, struct error *err)
{
	struct stat real, self;
	if (stat(t->real, &real) < 0) {
		int e = errno;
		error_set(err, "cannot run '%s': '%s': %s", t->name, t->real, strerror(e));
		err->status = e == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_RUN;
		return -1;
	}
	/* Another shell's tool leads to a moat-wrapper too, maybe another copy
	 * (moat wrap installs one per user): a link is followed to its name. */
	struct stat link;
	cleanup_free char *canon = lstat(t->real, &link) == 0 && S_ISLNK(link.st_mode)
	                               ? platform_canonical_path(t->real)
	                               : xstrdup(t->real);
	if ((t->self && stat(t->self, &self) == 0 && real.st_dev == self.st_dev &&
	     real.st_ino == self.st_ino) ||
	    (canon && shell_is_wrapper(canon))) {
		error_set(err, "'%s' in the manifest points back at moat-wrapper", t->name);
		error_hint(err, "the manifest must name the real binary, e.g. /usr/bin/%s",
		           t->name);
		err->status = EXIT_CANNOT_RUN;
		return -1;
	}
	return 0;
}

static void print_warnings(const char *lines)
{
	warning_print(prog, lines);
}

static void tool_free(struct tool *t)
{
	free(t->name);
	free(t->shell_dir);
	free(t->real);
	free(t->self);
}

int main(int argc, char **argv)
{
	(void)argc;
	struct error err = {0};
	struct tool tool = {0};
	struct launch l = {0};
	int status = EXIT_MOAT_FAILED;
	if (!argv[0] || !argv[0][0]) {
		error_set(&err, "called without a name (empty argv[0])");
		return fail(&err, status);
	}
	tool.self = platform_self_exe();
	if (resolve_tool(argv[0], &tool, &err) == 0 && launch_plan_tool(&l, &tool, &err) == 0) {
		print_warnings(sb_str(&l.warnings));
		l.print_warnings = print_warnings;
		/* Tools find their own files from argv[0] (gcc its cc1, python
		 * its venv): point it at the real binary's directory, under the
		 * name it was invoked by, which multi-call tools (busybox,
		 * clang++) dispatch on. */
		cleanup_free char *dir = path_dirname(tool.real);
		argv[0] = xasprintf("%s/%s", dir, path_basename(argv[0]));
		status = launch_enter(&l, argv, &err);
		free(argv[0]);
	}
	launch_free(&l);
	tool_free(&tool);
	return fail(&err, status);
}
