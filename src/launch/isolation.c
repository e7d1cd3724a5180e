/* Fail closed: when the kernel refuses a session (or a wrapped tool) the
 * namespaces moat planned, may it go on without them? Only where this
 * user's environment has never given them. Sandboxed code can use up the
 * user's namespace quota (it is counted per user, across every user
 * namespace), and it must not be able to turn the next session's
 * isolation off that way: a refusal for want of quota, or a refusal where
 * namespaces worked before, stops moat instead. That they worked is kept
 * in moat's state directory, which no sandbox can write (plan_check_own),
 * so sandboxed code can neither forge nor erase it. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/path.h"
#include "base/xdg.h"
#include "launch/launch.h"
#include "launch/plan.h"

#define WORKED_FILE "namespaces-worked"

static const char worked_text[] =
    "# moat had namespaces here: it refuses to run without them from now on.\n"
    "# Delete this file only if namespaces were switched off on purpose.\n";

static char *worked_path(const struct launch *l)
{
	cleanup_free char *dir = xdg_moat_dir(XDG_STATE, l->ctx.home);
	return path_join(dir, WORKED_FILE);
}

/* The kernel's answers when the user's namespaces are counted out
 * (/proc/sys/user/max_*_namespaces: ENOSPC; a user namespace deeper than
 * 32: EUSERS) or memory is short: not an environment without namespaces. */
bool launch_namespace_quota_error(int e)
{
	return e == ENOSPC || e == EUSERS || e == EAGAIN || e == ENOMEM;
}

void launch_namespaces_worked(const struct launch *l)
{
	if (!l->ctx.home)
		return;
	/* One call on every start once recorded. */
	cleanup_free char *path = worked_path(l);
	if (access(path, F_OK) == 0)
		return;
	/* A HOME that does not exist is not made by this. */
	if (!fs_is_dir(l->ctx.home))
		return;
	/* Not recorded is only a fallback not yet closed: no error to show. */
	struct error ignored = {0};
	cleanup_free char *dir = path_dirname(path);
	if (fs_mkdir_p(dir, 0700, &ignored) == 0)
		fs_write_atomic(path, worked_text, sizeof(worked_text) - 1, 0600, &ignored);
}

/* What the tool would lose, for the refusal's message. */
static const char *what_is_lost(const struct launch *l)
{
	return l->session ? "its .git/hooks and other protected paths would be writable, what it "
	                    "leaves running could outlive it, and the host's /tmp would be visible"
	                  : "its .git/hooks and other protected paths would be writable";
}

int launch_check_unisolated(const struct launch *l, int e, struct error *err)
{
	/* The outer session's namespaces and sandbox hold what this one
	 * would have held. */
	if (l->nested)
		return 0;
	const char *who = l->session ? "this session" : l->name;
	if (launch_namespace_quota_error(e)) {
		error_set(err, "cannot give %s its namespaces: %s", who, strerror(e));
		error_hint(
		    err,
		    "your namespace quota is used up (/proc/sys/user/max_*_namespaces): end "
		    "the processes that hold namespaces ('lsns' lists them), then run it again");
		error_hint(err, "moat does not run it without them: %s", what_is_lost(l));
		err->status = EXIT_MOAT_FAILED;
		return -1;
	}
	cleanup_free char *path = l->ctx.home ? worked_path(l) : NULL;
	if (!path || access(path, F_OK) < 0)
		return 0;
	error_set(err, "cannot give %s its namespaces: %s", who, strerror(e));
	error_hint(err,
	           "moat had them for you before ('%s'), so it does not run it without them: %s",
	           path, what_is_lost(l));
	error_hint(err, "if namespaces were switched off on purpose, delete that file to run "
	                "with less isolation");
	err->status = EXIT_MOAT_FAILED;
	return -1;
}
