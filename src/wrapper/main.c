/* moat-wrapper: what every tool in a shell is a symlink to.
 *
 *   argv[0] -> the shell's manifest -> the real binary
 *   -> share/moat/env, MOAT_ENV_* -> profile -> confine -> exec
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
#include "context/context.h"
#include "sandbox/sandbox.h"
#include "shells/shells.h"
#include "wrapper/wrapper.h"

extern char **environ;

static const char prog[] = "moat-wrapper";

static int fail(const struct error *err, int status)
{
	error_print(prog, err);
	return err->status ? err->status : status;
}

/* The shell's bin directory, from how we were invoked: an absolute or
 * relative argv[0] names it directly (the final symlink is not resolved: it
 * points at moat-wrapper, not at the shell); a bare name is looked up on
 * PATH, taking the first directory whose manifest lists it. */
static char *find_bin_dir(const char *argv0, const char *name, struct error *err)
{
	if (strchr(argv0, '/')) {
		cleanup_free char *abs = fs_absolute(argv0, err);
		return abs ? path_dirname(abs) : NULL;
	}
	const char *path = getenv("PATH");
	cleanup_free char *copy = xstrdup(path ? path : "");
	for (char *dir = copy, *colon; dir; dir = colon ? colon + 1 : NULL) {
		colon = strchr(dir, ':');
		if (colon)
			*colon = '\0';
		if (dir[0] != '/')
			continue;
		cleanup_free char *shell = path_dirname(dir);
		struct manifest m;
		struct error ignored;
		if (manifest_load(shell, &m, &ignored) < 0)
			continue;
		bool listed = manifest_lookup(&m, name) != NULL;
		manifest_free(&m);
		if (listed)
			return xstrdup(dir);
	}
	error_set(err, "cannot find a shell that provides '%s' on PATH", name);
	error_hint(err, "invoke it by its path in a shell's bin/ directory, or put that directory on PATH");
	return NULL;
}

/* Resolve argv[0] to the real binary and the canonical shell directory. */
static int resolve_tool(const char *argv0, struct tool *t, struct error *err)
{
	t->name = path_basename(argv0);
	const char *why = tool_name_refusal(t->name);
	if (why)
		return error_set(err, "cannot run '%s': %s", argv0, why);
	cleanup_free char *bin_dir = find_bin_dir(argv0, t->name, err);
	if (!bin_dir)
		return -1;
	cleanup_free char *shell = path_dirname(bin_dir);
	t->shell_dir = realpath(shell, NULL);
	if (!t->shell_dir)
		return error_set(err, "cannot resolve shell directory '%s': %s", shell, strerror(errno));
	struct manifest m;
	if (manifest_load(t->shell_dir, &m, err) < 0)
		return -1;
	const char *real = manifest_lookup(&m, t->name);
	if (!real) {
		manifest_free(&m);
		error_set(err, "'%s' is not in the manifest of shell '%s'", t->name, t->shell_dir);
		error_hint(err, "add it with: moat wrap <shell> /path/to/%s", t->name);
		return -1;
	}
	t->real = xstrdup(real);
	manifest_free(&m);
	return check_not_wrapper(t, err);
}

int check_not_wrapper(const struct tool *t, struct error *err)
{
	struct stat real, self;
	if (stat(t->real, &real) < 0) {
		error_set(err, "cannot run '%s': '%s': %s", t->name, t->real, strerror(errno));
		err->status = errno == ENOENT ? 127 : 126;
		return -1;
	}
	if (stat("/proc/self/exe", &self) == 0 && real.st_dev == self.st_dev && real.st_ino == self.st_ino) {
		error_set(err, "'%s' in the manifest points back at moat-wrapper", t->name);
		error_hint(err, "the manifest must name the real binary, e.g. /usr/bin/%s", t->name);
		err->status = 126;
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	(void)argc;
	struct error err = {0};
	struct tool tool = {0};
	if (!argv[0] || !argv[0][0]) {
		error_set(&err, "called without a name (empty argv[0])");
		return fail(&err, 125);
	}
	if (resolve_tool(argv[0], &tool, &err) < 0)
		return fail(&err, 125);

	struct invocation inv = {0};
	if (invocation_read_env(&inv, &err) < 0 || apply_shell_env(&tool, &inv, &err) < 0 ||
	    apply_moat_env(&inv, &err) < 0)
		return fail(&err, 125);

	if (run_sandboxed(&tool, &inv, &err) < 0)
		return fail(&err, 125);

	execv(tool.real, argv);
	int e = errno;
	error_set(&err, "cannot run '%s': %s", tool.real, strerror(e));
	if (e == EACCES)
		error_hint(&err, "if the sandbox refused it, grant it: moat allow %s %s --exec", tool.name,
			   tool.real);
	return fail(&err, e == ENOENT ? 127 : 126);
}
