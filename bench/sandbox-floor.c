/* sandbox-floor CMD [ARG...]: the kernel work of a `moat run` start and
 * nothing else, then exec CMD. bench/run times it beside moat run and
 * bubblewrap: what it adds is the least moat run's design can cost on this
 * machine, and what moat run adds beyond it is moat's own work (arguments,
 * config, planning, the checks of what it trusts). Run as root: it makes
 * its namespaces without a user namespace.
 *
 * The same steps, in the same processes, as src/launch/run.c: a supervisor
 * cloned into PID, mount and IPC namespaces, sharing our memory; a private
 * /proc, tmpfs /tmp, /var/tmp and /dev/shm, the working directory bound back
 * over the new /tmp; the tool vforked, in a process group of its own, with the
 * default profile's Landlock rules (16: all but the two on moat-wrapper's
 * own files), the bounding set dropped, no_new_privs and a 161-instruction seccomp filter; the
 * supervisor reaps it and reports its status through a pipe, on which we wait. No config, no
 * planning, no checks, no terminal. Any step failing exits 125. */
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static int report[2];
static char *root;
static char **tool_argv;

static void fail(void)
{
	_exit(125);
}

/* Everything Landlock handles at this ABI, as moat asks for. */
static __u64 handled_access(void)
{
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
	if (abi < 1)
		fail();
	__u64 all = (1ULL << 13) - 1;
	if (abi >= 2)
		all |= 1ULL << 13; /* REFER */
	if (abi >= 3)
		all |= 1ULL << 14; /* TRUNCATE */
	if (abi >= 5)
		all |= 1ULL << 15; /* IOCTL_DEV */
	return all;
}

static void add_rule(int ruleset, const char *path, __u64 access)
{
	int fd = open(path, O_PATH | O_CLOEXEC);
	if (fd < 0)
		return; /* absent here, as moat skips it */
	struct stat st;
	if (fstat(fd, &st) < 0)
		fail();
	struct landlock_path_beneath_attr rule = {.allowed_access = access, .parent_fd = fd};
	if (!S_ISDIR(st.st_mode))
		rule.allowed_access &= LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |
		                       LANDLOCK_ACCESS_FS_READ_FILE | (1ULL << 14) | (1ULL << 15);
	if (syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0) < 0)
		fail();
	close(fd);
}

static void confine(void)
{
	__u64 all = handled_access();
	struct landlock_ruleset_attr attr = {.handled_access_fs = all};
	int ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0);
	if (ruleset < 0)
		fail();
	const __u64 rx =
	    LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR;
	const __u64 rw = all & ~(__u64)LANDLOCK_ACCESS_FS_EXECUTE;
	add_rule(ruleset, root, all);
	static const char *const system[] = {"/usr", "/nix/store", "/etc", "/proc", "/sys"};
	for (size_t i = 0; i < sizeof(system) / sizeof(*system); i++)
		add_rule(ruleset, system[i], rx);
	static const char *const devices[] = {"/dev/null",   "/dev/zero",    "/dev/full",
	                                      "/dev/random", "/dev/urandom", "/dev/tty",
	                                      "/dev/ptmx"};
	for (size_t i = 0; i < sizeof(devices) / sizeof(*devices); i++)
		add_rule(ruleset, devices[i], rw);
	static const char *const scratch[] = {"/tmp", "/var/tmp", "/dev/shm"};
	for (size_t i = 0; i < sizeof(scratch) / sizeof(*scratch); i++)
		add_rule(ruleset, scratch[i], rw);
	for (int cap = 0; prctl(PR_CAPBSET_DROP, cap) == 0; cap++)
		;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    syscall(SYS_landlock_restrict_self, ruleset, 0) < 0)
		fail();
	/* As long as moat's filter; every call takes the first branch out. */
	static struct sock_filter filter[161];
	filter[0] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0);
	for (unsigned i = 1; i < 160; i++)
		filter[i] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0, 159 - i, 0);
	filter[160] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	struct sock_fprog prog = {.len = 161, .filter = filter};
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0)
		fail();
}

/* mkdir -p: the new /tmp is empty. */
static void make_dirs(const char *path)
{
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s", path);
	for (char *slash = dir + 1; (slash = strchr(slash, '/')); *slash++ = '/') {
		*slash = '\0';
		mkdir(dir, 0755);
	}
	mkdir(dir, 0755);
}

static void private_mounts(void)
{
	int rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	char self[32];
	snprintf(self, sizeof(self), "/proc/self/fd/%d", rootfd);
	if (rootfd < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0 ||
	    mount("t", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777") < 0)
		fail();
	/* The working directory back over the new /tmp, where it was under it. */
	if (strncmp(root, "/tmp/", 5) == 0) {
		make_dirs(root);
		if (mount(self, root, NULL, MS_BIND | MS_REC, NULL) < 0)
			fail();
	}
	close(rootfd);
	if (mount("t", "/var/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777") < 0 ||
	    mount("t", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777") < 0 ||
	    chdir(root) < 0)
		fail();
}

static int supervisor(void *unused)
{
	(void)unused;
	private_mounts();
	setsid();
	pid_t tool = vfork();
	if (tool == 0) {
		setpgid(0, 0);
		confine();
		execvp(tool_argv[0], tool_argv);
		_exit(127);
	}
	int status = 125 << 8;
	if (tool > 0)
		waitpid(tool, &status, 0);
	write(report[1], &status, sizeof(status));
	_exit(0);
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	tool_argv = argv + 1;
	root = getcwd(NULL, 0);
	enum { STACK = 1 << 20 };
	char *stack = malloc(STACK);
	if (!root || !stack || pipe2(report, O_CLOEXEC) < 0)
		return 125;
	if (clone(supervisor, stack + STACK,
	          CLONE_VM | CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWIPC | SIGCHLD, NULL) < 0)
		return 125;
	close(report[1]);
	int status;
	if (read(report[0], &status, sizeof(status)) != sizeof(status))
		return 125;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
