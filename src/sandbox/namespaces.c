/* A session's own world on Linux: PID, mount and IPC namespaces (and, for
 * a user without CAP_SYS_ADMIN, a user namespace mapping only their own
 * ids), a fresh /proc, private /tmp, /var/tmp and /dev/shm, and protected
 * paths bound read-only. moat-wrapper comes here only for the protected
 * paths (sandbox_protect): a wrapped tool inside a session already has all
 * of it, and outside one the rest would double the wrapper's start-up
 * cost. */
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/path.h"
#include "base/platform.h"
#include "base/util.h"
#include "sandbox/caps.h"
#include "sandbox/sandbox.h"

/* The directories a session gets its own empty tmpfs on. */
static const char *const private_dirs[] = {"/tmp", "/var/tmp", "/dev/shm"};

static bool write_file(const char *path, const char *text)
{
	cleanup_close int fd = open(path, O_WRONLY | O_CLOEXEC);
	size_t len = strlen(text);
	return fd >= 0 && write(fd, text, len) == (ssize_t)len;
}

/* The child's user namespace sees our own ids as themselves, so files keep
 * their owner; every other id shows as the overflow id (nobody). */
static bool map_own_ids(pid_t child, uid_t uid, gid_t gid)
{
	char path[64], map[64];
	snprintf(path, sizeof(path), "/proc/%d/setgroups", (int)child);
	if (!write_file(path, "deny"))
		return false;
	snprintf(path, sizeof(path), "/proc/%d/uid_map", (int)child);
	snprintf(map, sizeof(map), "%u %u 1\n", (unsigned)uid, (unsigned)uid);
	if (!write_file(path, map))
		return false;
	snprintf(path, sizeof(path), "/proc/%d/gid_map", (int)child);
	snprintf(map, sizeof(map), "%u %u 1\n", (unsigned)gid, (unsigned)gid);
	return write_file(path, map);
}

/* Can we write id maps? Not inside a Landlock domain, where /proc is
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

/* What the child of a clone runs: after the parent has written its id
 * maps (go, in a new user namespace; else -1), fn. */
struct start {
	int (*fn)(void *);
	void *arg;
	int go[2];
};

static int start_child(void *data)
{
	struct start *s = data;
	if (s->go[0] >= 0) {
		char c;
		close(s->go[1]);
		if (read(s->go[0], &c, 1) != 1)
			_exit(EXIT_MOAT_FAILED);
		close(s->go[0]);
	}
	_exit(s->fn(s->arg));
}

/* The child shares our memory (CLONE_VM) where the supervisor's calls
 * leave errno alone (PLATFORM_QUIET_RAW): copying moat's memory for it,
 * and dropping the copy when it ends, cost an eighth of moat run's time.
 * Its own stack, guarded; the tool's process starts on it too. Not under
 * AddressSanitizer, which knows no stack but the thread's and faults on
 * this one. */
#if PLATFORM_QUIET_RAW && !defined(UNDER_ASAN)
#define SHARE_MEMORY CLONE_VM
#else
#define SHARE_MEMORY 0
#endif
/* The supervisor's stack, which the tool's process uses too until it execs:
 * they touch about 30 KiB of it. Under 2 MiB, so that the kernel places it
 * right below our other mappings rather than on a 2 MiB boundary of its
 * own, where its first page would need a page-table page of its own: on a
 * paravirtualized guest that costs some 80 us of every session's start.
 * The part they use is made present at once (platform_populate), not a
 * fault at a time. */
enum { CHILD_STACK = 1 << 20, STACK_USED = 64 * 1024 };

static pid_t clone_child(unsigned long flags, struct start *s)
{
	if (!(flags & CLONE_VM)) {
		/* Like fork: no new stack, the child continues from here. */
		pid_t pid = (pid_t)syscall(SYS_clone, flags | SIGCHLD, NULL, NULL, NULL, NULL);
		if (pid == 0)
			start_child(s);
		return pid;
	}
	static char *stack;
	if (!stack) {
		stack = mmap(NULL, CHILD_STACK, PROT_READ | PROT_WRITE,
		             MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
		if (stack == MAP_FAILED) {
			stack = NULL;
			return -1;
		}
		mprotect(stack, 4096, PROT_NONE); /* an overflow faults, not corrupts */
		platform_populate(stack + CHILD_STACK - STACK_USED, STACK_USED);
	}
	return clone(start_child, stack + CHILD_STACK, (int)(flags | SIGCHLD), s);
}

/* With CAP_SYS_ADMIN (root) no user namespace is needed, and none is made:
 * root in one would lose its hold (CAP_DAC_OVERRIDE) on files of unmapped
 * owners. Anyone else gets one, when the kernel lets them write its maps.
 * A user without CAP_SYS_ADMIN goes to it at once: the kernel refuses
 * them the other namespaces (copy_namespaces), but only once the clone
 * has copied the whole process: 30-60 us of every session's start. */
static pid_t clone_isolated(struct start *s)
{
	const unsigned long base = CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWIPC | SHARE_MEMORY;
	uid_t uid = geteuid();
	if (uid == 0 || caps_effective(CAP_SYS_ADMIN)) {
		pid_t pid = clone_child(base, s);
		if (pid >= 0 || errno != EPERM || uid == 0)
			return pid;
	}
	if (!can_map_ids())
		return -1;
	if (platform_pipe_cloexec(s->go) < 0)
		return -1;
	gid_t gid = getegid();
	pid_t pid = clone_child(base | CLONE_NEWUSER, s);
	close(s->go[0]);
	if (pid > 0 && !map_own_ids(pid, uid, gid)) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		errno = EPERM;
		pid = -1;
	}
	if (pid > 0 && write(s->go[1], "g", 1) != 1)
		pid = -1;
	close(s->go[1]);
	return pid;
}

pid_t sandbox_spawn(bool want_isolation, bool *isolated, int (*fn)(void *), void *arg)
{
	/* Not on our stack: a child sharing our memory reads it after we
	 * have returned. */
	static struct start s;
	s = (struct start){fn, arg, {-1, -1}};
	*isolated = want_isolation;
	if (want_isolation) {
		/* No fallback here: whether a session may run without its
		 * namespaces is the caller's decision (launch/isolation.c),
		 * made on errno. */
		pid_t pid = clone_isolated(&s);
		if (pid < 0)
			*isolated = false;
		return pid;
	}
	pid_t pid = fork();
	if (pid == 0)
		_exit(fn(arg));
	return pid;
}

/* Mount flags a bind of path must keep: in a user namespace the ones the
 * outer mount has are locked, and a remount that drops one fails. */
static unsigned long locked_flags(int fd)
{
	struct statvfs sv;
	if (fstatvfs(fd, &sv) < 0)
		return 0;
	unsigned long f = 0;
	if (sv.f_flag & ST_NOSUID)
		f |= MS_NOSUID;
	if (sv.f_flag & ST_NODEV)
		f |= MS_NODEV;
	if (sv.f_flag & ST_NOEXEC)
		f |= MS_NOEXEC;
	if (sv.f_flag & ST_RDONLY)
		f |= MS_RDONLY;
	return f;
}

/* Bind what fd holds onto target (made in the new tmpfs, or path itself);
 * read-only unless writable. The descriptor was opened before anything was
 * mounted over it, so the bind is of what the rule names. */
static int bind_fd(int fd, const char *target, bool writable, struct error *err)
{
	char src[64];
	snprintf(src, sizeof(src), "/proc/self/fd/%d", fd);
	if (mount(src, target, NULL, MS_BIND | MS_REC, NULL) < 0)
		return error_errno(err, "cannot bind '%s' into the sandbox", target);
	if (writable)
		return 0;
	unsigned long flags = MS_BIND | MS_REMOUNT | MS_RDONLY | locked_flags(fd);
	if (mount(NULL, target, NULL, flags, NULL) < 0)
		return error_errno(err, "cannot make '%s' read-only in the sandbox", target);
	return 0;
}

/* The mount point for a bind of fd at path inside a fresh tmpfs: its
 * parents as directories, itself as a directory or an empty file. */
static int make_mount_point(const char *path, int fd, struct error *err)
{
	struct stat st;
	if (fstat(fd, &st) < 0)
		return error_errno(err, "cannot stat '%s'", path);
	/* Made at once where its parent is there already (one grant after
	 * another in the same directory), else after its parents. */
	int rc = S_ISDIR(st.st_mode) ? mkdir(path, 0755) : mknod(path, S_IFREG | 0600, 0);
	if (rc < 0 && errno == ENOENT) {
		cleanup_free char *parent = path_dirname(path);
		if (fs_mkdir_p(parent, 0755, err) < 0)
			return -1;
		rc = S_ISDIR(st.st_mode) ? mkdir(path, 0755) : mknod(path, S_IFREG | 0600, 0);
	}
	if (rc < 0 && errno != EEXIST)
		return error_errno(err, "cannot make a mount point at '%s'", path);
	return 0;
}

struct carried {
	char *path;
	int fd;
	bool writable;
};

static void carried_free(struct carried *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(c[i].path);
		if (c[i].fd >= 0)
			close(c[i].fd);
	}
	free(c);
}

/* The rules below dir that must stay reachable under a new tmpfs there,
 * each opened now (no symlinks: the path is canonical). Returns false when
 * dir itself is granted (or lies below a grant): the user gave the host's
 * dir on purpose, so it is not replaced. */
static bool collect_carried(const struct profile *p, const char *dir, struct carried **out,
                            size_t *n)
{
	*out = NULL;
	*n = 0;
	for (size_t i = 0; i < p->nrules; i++) {
		const struct rule *r = &p->rules[i];
		/* Protected paths are bound after the tmpfs, through it. */
		if (r->origin == ORIGIN_PRIVATE || r->protect != PROTECT_NONE)
			continue;
		if (path_is_under(dir, r->path))
			return false;
		if (!path_is_under(r->path, dir))
			continue;
		int fd = platform_open_path_no_symlinks("/", r->path + 1);
		if (fd < 0) /* not there: no rule, nothing to carry */
			continue;
		*out = xrealloc_array(*out, *n + 1, sizeof(**out));
		(*out)[(*n)++] =
		    (struct carried){xstrdup(r->path), fd, (r->access & ACCESS_WRITE) != 0};
	}
	return true;
}

/* Parents before what lies below them (a path sorts before every path it
 * is a prefix of): bound the other way round, a read-only parent's mount
 * (a linked work tree's common worktrees/) would hide a writable child's
 * (its own worktrees/<name>) under it. */
static int by_path(const void *a, const void *b)
{
	return strcmp(((const struct carried *)a)->path, ((const struct carried *)b)->path);
}

/* An empty tmpfs on dir, with the rules below it bound back in (read-only
 * unless writable: the tmpfs rule itself is writable, and Landlock rights
 * are inherited down the path, so only the mount can keep a read-only
 * grant read-only). Returns 1 when dir is private, 0 when it stays the
 * host's (granted on purpose, or absent), -1 on failure. */
static int privatize(const struct profile *p, const char *dir, struct error *err)
{
	struct stat st;
	if (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
		return 0;
	struct carried *c;
	size_t n;
	if (!collect_carried(p, dir, &c, &n))
		return 0;
	if (n > 1)
		qsort(c, n, sizeof(*c), by_path);
	int rc = 1;
	if (mount("moat-tmp", dir, "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777") < 0)
		rc = error_errno(err, "cannot mount a private '%s'", dir);
	for (size_t i = 0; i < n && rc > 0; i++)
		if (make_mount_point(c[i].path, c[i].fd, err) < 0 ||
		    bind_fd(c[i].fd, c[i].path, c[i].writable, err) < 0)
			rc = -1;
	carried_free(c, n);
	return rc;
}

/* Make an absent protected path empty (a directory, also for a pinned
 * one, or a file), without following a symlink on the way, so that the
 * sandbox cannot make it. */
static int make_protected(const struct rule *r, struct error *err)
{
	cleanup_free char *dir = path_dirname(r->path);
	cleanup_close int dfd = platform_open_path_no_symlinks("/", dir + 1);
	const char *name = path_basename(r->path);
	int rc = -1;
	if (dfd >= 0 && (r->protect == PROTECT_MAKE_DIR || r->protect == PROTECT_PIN)) {
		cleanup_close int real = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		rc = real < 0 ? -1 : mkdirat(real, name, 0755);
	} else if (dfd >= 0) {
		cleanup_close int real = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		int fd = real < 0
		             ? -1
		             : openat(real, name,
		                      O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		rc = fd < 0 ? -1 : close(fd);
	}
	if (rc < 0 && errno != EEXIST)
		return error_errno(err, "cannot make '%s' to protect it", r->path);
	return 0;
}

/* A protected path (.git/hooks, .git/config, .protect) bound read-only onto
 * itself, or a pinned one (.git) writable, so that it cannot be renamed or
 * replaced. Both mounts go through descriptors opened without following
 * symlinks: sandboxed code left running may swap a component for a link
 * at any time. A path that is not there is skipped (nothing to protect),
 * unless it is to be made empty first: a pinned one is the absent parent
 * of such a path. */
static int protect(const struct rule *r, struct error *err)
{
	bool make = r->protect != PROTECT_READ_ONLY;
	cleanup_close int fd = platform_open_path_no_symlinks("/", r->path + 1);
	if (fd < 0 && errno == ENOENT && make) {
		if (make_protected(r, err) < 0)
			return -1;
		fd = platform_open_path_no_symlinks("/", r->path + 1);
	}
	if (fd < 0 && errno == ENOENT && !make)
		return 0;
	if (fd < 0)
		return error_errno(err, "cannot protect '%s'", r->path);
	char at[64];
	snprintf(at, sizeof(at), "/proc/self/fd/%d", fd);
	if (mount(at, at, NULL, MS_BIND | MS_REC, NULL) < 0)
		return error_errno(err, "cannot protect '%s'", r->path);
	if (r->protect == PROTECT_PIN)
		return 0;
	/* The new mount, as the path now leads to it. */
	cleanup_close int top = platform_open_path_no_symlinks("/", r->path + 1);
	if (top < 0)
		return error_errno(err, "cannot protect '%s'", r->path);
	snprintf(at, sizeof(at), "/proc/self/fd/%d", top);
	unsigned long flags = MS_BIND | MS_REMOUNT | MS_RDONLY | locked_flags(top);
	if (mount(NULL, at, NULL, flags, NULL) < 0)
		return error_errno(err, "cannot make '%s' read-only in the sandbox", r->path);
	return 0;
}

static int protect_all(const struct profile *p, struct error *err)
{
	for (size_t i = 0; i < p->nrules; i++)
		if (p->rules[i].protect != PROTECT_NONE && protect(&p->rules[i], err) < 0)
			return -1;
	return 0;
}

/* A mount namespace of our own, for the protected paths alone: root needs
 * no user namespace (and would lose its hold on files of unmapped owners
 * in one); anyone else gets one mapping only their own ids. *shared says
 * whether its mounts still share events with the host's: in a namespace
 * owned by a new user namespace the kernel has made them slaves already. */
static bool own_mount_namespace(bool *shared)
{
	uid_t uid = geteuid();
	gid_t gid = getegid();
	*shared = true;
	if (uid == 0 && unshare(CLONE_NEWNS) == 0)
		return true;
	/* Root refused for want of quota (ENOSPC) rather than of the right:
	 * that is the cause to report, not what a user namespace says. */
	if (uid == 0 && errno != EPERM)
		return false;
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0)
		return false;
	*shared = false;
	char map[64];
	if (!write_file("/proc/self/setgroups", "deny"))
		return false;
	snprintf(map, sizeof(map), "%u %u 1\n", (unsigned)uid, (unsigned)uid);
	if (!write_file("/proc/self/uid_map", map))
		return false;
	snprintf(map, sizeof(map), "%u %u 1\n", (unsigned)gid, (unsigned)gid);
	return write_file("/proc/self/gid_map", map);
}

int sandbox_protect(const struct profile *p, struct error *err)
{
	if (!profile_has_protected(p))
		return 0;
	bool shared;
	if (!own_mount_namespace(&shared))
		return 1;
	if (shared && mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return error_errno(err, "cannot make the sandbox's mounts private");
	return protect_all(p, err);
}

static void drop_private_rule(struct profile *p, const char *dir)
{
	for (size_t i = 0; i < p->nrules; i++)
		if (p->rules[i].origin == ORIGIN_PRIVATE && strcmp(p->rules[i].path, dir) == 0)
			p->rules[i].access = 0;
}

int sandbox_private_mounts(struct profile *p, bool isolated, struct error *err)
{
	if (!isolated) {
		for (size_t i = 0; i < ARRAY_LEN(private_dirs); i++)
			drop_private_rule(p, private_dirs[i]);
		return sandbox_protect(p, err);
	}
	/* The working directory, to enter again by path at the end: the tool
	 * would otherwise keep it on the mount it was on, under a private /tmp
	 * the host's, where nothing below it is protected. */
	cleanup_free char *cwd = getcwd(NULL, 0);
	/* Private propagation first: root's new namespace still shares mount
	 * events with the host's, and nothing here may appear there. */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return error_errno(err, "cannot make the sandbox's mounts private");
	/* Our PID namespace's /proc: only the sandbox's processes. */
	if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
		return error_errno(err, "cannot mount the sandbox's /proc");
	for (size_t i = 0; i < ARRAY_LEN(private_dirs); i++) {
		int rc = privatize(p, private_dirs[i], err);
		if (rc < 0)
			return -1;
		if (rc == 0)
			drop_private_rule(p, private_dirs[i]);
	}
	if (protect_all(p, err) < 0)
		return -1;
	if (cwd && chdir(cwd) < 0) {
		/* Not below the root (a cwd elsewhere in the host's /tmp): the
		 * tool starts where it was, where Landlock refuses it anyway. */
	}
	return 0;
}

/* Did child pid exit 0? */
static bool child_succeeded(pid_t pid)
{
	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return false;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static int try_private_mount(void *isolated)
{
	return *(bool *)isolated && mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0 ? 0 : 1;
}

bool sandbox_isolation_works(void)
{
	/* The child may share our memory, errno too: we only wait meanwhile,
	 * signals held so that the wait cannot fail (EINTR). */
	static bool isolated;
	sigset_t all, old;
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	pid_t pid = sandbox_spawn(true, &isolated, try_private_mount, &isolated);
	bool works = pid >= 0 && child_succeeded(pid);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return works;
}

int sandbox_protection_refusal(void)
{
	pid_t pid = fork();
	if (pid < 0)
		return errno;
	if (pid == 0) {
		bool shared;
		/* The kernel's refusal as the status: errno values fit. */
		_exit(own_mount_namespace(&shared) ? 0
		                                   : (errno > 0 && errno < 256 ? errno : EPERM));
	}
	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : EPERM;
}
