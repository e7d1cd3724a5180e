#include "sandbox/namespaces.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/util.h"
#include "sandbox/sandbox.h"

static bool write_file(const char *path, const char *text)
{
	cleanup_close int fd = open(path, O_WRONLY | O_CLOEXEC);
	size_t len = strlen(text);
	return fd >= 0 && write(fd, text, len) == (ssize_t)len;
}

/* The new user namespace sees our own ids as themselves, so files keep
 * their owner; every other id shows as the overflow id (nobody). */
static bool map_own_ids(uid_t uid, gid_t gid)
{
	char map[64];
	if (!write_file("/proc/self/setgroups", "deny"))
		return false;
	snprintf(map, sizeof(map), "%u %u 1\n", (unsigned)uid, (unsigned)uid);
	if (!write_file("/proc/self/uid_map", map))
		return false;
	snprintf(map, sizeof(map), "%u %u 1\n", (unsigned)gid, (unsigned)gid);
	return write_file("/proc/self/gid_map", map);
}

/* Can we write our id maps? Not inside a Landlock domain, where /proc is
 * read-only; and a user namespace without maps would show every file, ours
 * too, as owned by nobody. Opening the file tells before anything changes. */
static bool can_map_ids(void)
{
	int fd = open("/proc/self/uid_map", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

static bool enter_namespaces(void)
{
	/* With CAP_SYS_ADMIN (root) no user namespace is needed, and none is
	 * made, not even for a root without CAP_SYS_ADMIN: root in one would
	 * lose its hold (CAP_DAC_OVERRIDE) on files of unmapped owners. */
	if (unshare(CLONE_NEWNS | CLONE_NEWIPC) == 0)
		return true;
	if (errno != EPERM || geteuid() == 0 || !can_map_ids())
		return false;
	uid_t uid = geteuid();
	gid_t gid = getegid();
	return unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWIPC) == 0 && map_own_ids(uid, gid);
}

bool ns_private_ipc(void)
{
	if (!enter_namespaces())
		return false;
	/* Private propagation first: root's new namespace still shares mount
	 * events with the host's, and the tmpfs must not appear there. */
	return mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0 &&
	       mount("moat-shm", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777") == 0;
}

bool sandbox_private_ipc_works(void)
{
	pid_t pid = fork();
	if (pid < 0)
		return false;
	if (pid == 0)
		_exit(ns_private_ipc() ? 0 : 1);
	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return false;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}
