/* ns_quota LIMIT CMD [ARG...]: run CMD in a user namespace of its own,
 * mapping only the caller's ids to themselves, where every
 * /proc/sys/user/max_*_namespaces is LIMIT. Those limits are per user
 * namespace and bind everything below it, so a test can use up "the
 * user's namespace quota" without touching the machine's (other users and
 * other tests keep theirs), and the quota is gone with CMD's processes.
 * Run as root, CMD is root there (with every capability); as anyone else,
 * CMD's exec drops them, as for that user on the host. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* The ids from before the unshare: until mapped, ours read as overflow. */
static int map_ids(uid_t uid, gid_t gid)
{
	char map[64];
	if (write_file("/proc/self/setgroups", "deny") < 0)
		return -1;
	snprintf(map, sizeof(map), "%u %u 1\n", (unsigned)uid, (unsigned)uid);
	if (write_file("/proc/self/uid_map", map) < 0)
		return -1;
	snprintf(map, sizeof(map), "%u %u 1\n", (unsigned)gid, (unsigned)gid);
	return write_file("/proc/self/gid_map", map);
}

int main(int argc, char **argv)
{
	static const char *const kinds[] = {"user", "mnt", "pid",    "ipc",
	                                    "uts",  "net", "cgroup", "time"};
	if (argc < 3) {
		fprintf(stderr, "usage: ns_quota LIMIT CMD [ARG...]\n");
		return 2;
	}
	uid_t uid = geteuid();
	gid_t gid = getegid();
	if (unshare(CLONE_NEWUSER) < 0) {
		fprintf(stderr, "ns_quota: unshare: %s\n", strerror(errno));
		return 2;
	}
	if (map_ids(uid, gid) < 0) {
		fprintf(stderr, "ns_quota: id maps: %s\n", strerror(errno));
		return 2;
	}
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		char path[64], value[32];
		snprintf(path, sizeof(path), "/proc/sys/user/max_%s_namespaces", kinds[i]);
		snprintf(value, sizeof(value), "%d\n", atoi(argv[1]));
		if (write_file(path, value) < 0 && errno != ENOENT) {
			fprintf(stderr, "ns_quota: %s: %s\n", path, strerror(errno));
			return 2;
		}
	}
	execvp(argv[2], argv + 2);
	fprintf(stderr, "ns_quota: %s: %s\n", argv[2], strerror(errno));
	return 127;
}
