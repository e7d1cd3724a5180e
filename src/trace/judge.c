/* Was a failed syscall the sandbox's doing? The tracer runs unconfined with
 * the command's own credentials, so it asks the kernel the same question
 * without the sandbox: faccessat(AT_EACCESS) on the path the process meant,
 * plus the rules access() does not cover (sticky directories, protected
 * hard links, mount boundaries for EXDEV). Only when ordinary permissions
 * would have allowed the operation is it reported. A file that is missing,
 * or that permissions deny, never is. Nothing is opened for writing and
 * nothing is created: the checks have no side effects.
 *
 * The path is resolved as the process saw it (relative to its cwd or dirfd
 * through /proc/TID, /proc/self meaning the process) and made canonical,
 * because Landlock judges the file a path leads to and `moat allow` grants
 * canonical paths. The last component is not followed where the syscall
 * does not follow it (unlink, mkdir, O_CREAT|O_EXCL, ...). */
#ifdef __linux__
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/path.h"
#include "base/platform.h"
#include "trace/linux.h"

#define CHUNK 4096 /* no read crosses a (4 KiB or larger) page boundary */

static bool read_mem(pid_t tid, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = {buf, len};
	struct iovec remote = {(void *)(uintptr_t)addr, len};
	ssize_t n = process_vm_readv(tid, &local, 1, &remote, 1, 0);
	if (n == (ssize_t)len)
		return true;
	if (n >= 0 || errno != EPERM)
		return false;
	/* A process that is not dumpable (it ran an unreadable binary) refuses
	 * process_vm_readv to a non-root tracer; PTRACE_PEEKDATA still works. */
	for (size_t off = 0; off < len; off += sizeof(long)) {
		errno = 0;
		long word = ptrace(PTRACE_PEEKDATA, tid, (void *)(uintptr_t)(addr + off), NULL);
		if (errno)
			return false;
		size_t part = len - off < sizeof(long) ? len - off : sizeof(long);
		memcpy((char *)buf + off, &word, part);
	}
	return true;
}

/* A NUL-terminated string of at most size - 1 bytes from the tracee. */
bool trace_read_string(pid_t tid, uint64_t addr, char *buf, size_t size)
{
	size_t got = 0;
	while (got < size - 1) {
		size_t left = CHUNK - (size_t)((addr + got) % CHUNK);
		if (left > size - 1 - got)
			left = size - 1 - got;
		if (!read_mem(tid, addr + got, buf + got, left))
			return false;
		if (memchr(buf + got, '\0', left))
			return true;
		got += left;
	}
	return false;
}

static char *proc_link(pid_t tid, const char *what)
{
	char link[64], target[PATH_MAX];
	if (!fmt_fits(link, sizeof(link), "/proc/%d/%s", (int)tid, what))
		return NULL;
	ssize_t n = readlink(link, target, sizeof(target) - 1);
	if (n < 0)
		return NULL;
	target[n] = '\0';
	return xstrdup(target);
}

/* The rest of path after prefix, when prefix is a whole leading part of it. */
static const char *after(const char *path, const char *prefix)
{
	size_t n = strlen(prefix);
	return strncmp(path, prefix, n) == 0 && (path[n] == '/' || !path[n]) ? path + n : NULL;
}

/* "/proc/self/x" in the tracee means the tracee, not us; so do /dev/fd/N
 * and /dev/stdin, which lead there. */
static char *as_tracee(pid_t tid, pid_t pid, const char *path)
{
	static const char *const stdio[] = {"/dev/stdin", "/dev/stdout", "/dev/stderr"};
	const char *rest;
	if ((rest = after(path, "/proc/self")))
		return xasprintf("/proc/%d%s", (int)pid, rest);
	if ((rest = after(path, "/proc/thread-self")))
		return xasprintf("/proc/%d/task/%d%s", (int)pid, (int)tid, rest);
	if ((rest = after(path, "/dev/fd")))
		return xasprintf("/proc/%d/fd%s", (int)pid, rest);
	for (int i = 0; i < 3; i++)
		if ((rest = after(path, stdio[i])))
			return xasprintf("/proc/%d/fd/%d%s", (int)pid, i, rest);
	return xstrdup(path);
}

/* Canonical form of an absolute path, following its last component or not. */
static char *canonical(const char *full, bool follow)
{
	struct error ignored;
	const char *base = path_basename(full);
	if (!follow && *base && strcmp(base, ".") != 0 && strcmp(base, "..") != 0) {
		cleanup_free char *dir = path_dirname(full);
		cleanup_free char *cdir = fs_canonical_prefix(dir, &ignored);
		return cdir ? path_join(cdir, base) : xstrdup(full);
	}
	char *c = fs_canonical_prefix(full, &ignored);
	if (!c)
		return xstrdup(full);
	/* realpath stops at a dangling link; the kernel follows it (and an
	 * O_CREAT open creates its target), so follow it here too. */
	char target[PATH_MAX];
	for (int hops = 0; hops < 40; hops++) {
		ssize_t n = readlink(c, target, sizeof(target) - 1);
		if (n <= 0)
			break;
		target[n] = '\0';
		cleanup_free char *dir = path_dirname(c);
		cleanup_free char *next =
		    target[0] == '/' ? xstrdup(target) : path_join(dir, target);
		char *again = fs_canonical_prefix(next, &ignored);
		if (!again)
			break;
		free(c);
		c = again;
	}
	return c;
}

/* The path a process meant with (dirfd, path); relative as given when its
 * directory cannot be known (a dirfd that is a pipe, a process gone). */
char *trace_resolve(pid_t tid, pid_t pid, int dirfd, const char *path, bool follow)
{
	cleanup_free char *full = NULL;
	if (path[0] == '/') {
		full = xstrdup(path);
	} else {
		char what[32];
		if (dirfd == AT_FDCWD)
			snprintf(what, sizeof(what), "cwd");
		else
			snprintf(what, sizeof(what), "fd/%d", dirfd);
		cleanup_free char *base = proc_link(tid, what);
		if (!base || base[0] != '/')
			return xstrdup(*path ? path : (base ? base : "?"));
		full = *path ? path_join(base, path) : steal_ptr(&base);
	}
	cleanup_free char *own = as_tracee(tid, pid, full);
	return canonical(own, follow);
}

static bool may(const char *path, int mode)
{
	return faccessat(AT_FDCWD, path, mode, AT_EACCESS) == 0;
}

/* Could an entry be made in path's directory? (may() refuses an
 * immutable directory.) */
static bool dir_writable(const char *path, struct stat *dir)
{
	cleanup_free char *d = path_dirname(path);
	return may(d, W_OK | X_OK) && stat(d, dir) == 0;
}

/* The uid file access is checked with: ours, or the tracee's (judge_as). */
static uid_t fsuid(void)
{
	return (uid_t)setfsuid((uid_t)-1); /* an invalid uid changes nothing */
}

/* In a sticky directory only the owner of the entry or of the directory
 * (or root) may remove or replace it; access() does not check that. */
static bool sticky_allows(const struct stat *dir, const struct stat *entry)
{
	uid_t me = fsuid();
	return !(dir->st_mode & S_ISVTX) || me == 0 || entry->st_uid == me || dir->st_uid == me;
}

static int sysctl_level(const char *path)
{
	char buf[16] = "";
	cleanup_close int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || read(fd, buf, sizeof(buf) - 1) <= 0)
		return 0;
	return atoi(buf);
}

/* fs.protected_regular and fs.protected_fifos: opening with O_CREAT an
 * existing file that someone else owns, in a sticky directory anyone (or,
 * at level 2, the group) may write, is refused to everyone, root included. */
static bool protected_create(const char *path, const struct stat *st)
{
	const char *knob = S_ISREG(st->st_mode)    ? "/proc/sys/fs/protected_regular"
	                   : S_ISFIFO(st->st_mode) ? "/proc/sys/fs/protected_fifos"
	                                           : NULL;
	struct stat dir;
	cleanup_free char *d = path_dirname(path);
	if (!knob || stat(d, &dir) < 0 || !(dir.st_mode & S_ISVTX) || st->st_uid == dir.st_uid ||
	    st->st_uid == fsuid())
		return false;
	int level = sysctl_level(knob);
	return (level >= 1 && (dir.st_mode & S_IWOTH)) || (level >= 2 && (dir.st_mode & S_IWGRP));
}

/* Could the entry at path be removed or replaced? */
static bool removable(const char *path, struct stat *entry)
{
	struct stat dir;
	cleanup_free char *d = path_dirname(path);
	return lstat(path, entry) == 0 && dir_writable(path, &dir) && sticky_allows(&dir, entry) &&
	       !file_frozen(path) && !file_frozen(d);
}

/* Rename and link refuse to cross mounts with EXDEV on their own; Landlock
 * uses EXDEV too, for a move that would gain rights. */
static bool same_mount(const char *a, const char *b)
{
	cleanup_free char *da = path_dirname(a);
	cleanup_free char *db = path_dirname(b);
	uint64_t ma = file_mount_id(da), mb = file_mount_id(db);
	return ma && ma == mb;
}

int trace_open_regular(const char *path)
{
	if (path[0] != '/')
		return -1;
	/* O_PATH runs no driver's open and waits for no FIFO writer; refusing
	 * every symlink keeps a component swapped for a link (to /dev, say)
	 * from leading anywhere else. The canonical path holds none. */
	int pfd = platform_open_path_no_symlinks("/", path[1] ? path + 1 : ".");
	if (pfd < 0)
		return -1;
	struct stat st;
	int fd = -1;
	if (fstat(pfd, &st) == 0 && S_ISREG(st.st_mode)) {
		/* Reopening the O_PATH descriptor opens that very inode, never
		 * whatever the path names by now. */
		char self[64];
		snprintf(self, sizeof(self), "/proc/self/fd/%d", pfd);
		fd = open(self, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
		struct stat again;
		if (fd >= 0 && (fstat(fd, &again) < 0 || again.st_dev != st.st_dev ||
		                again.st_ino != st.st_ino)) {
			close(fd);
			fd = -1;
		}
	}
	close(pfd);
	return fd;
}

/* The first line of a script names its interpreter; the kernel refuses
 * the exec when that may not run. Returns it canonical, or NULL. The
 * tracer is unconfined (root, perhaps): the file is opened once, and only
 * when it is a regular file (trace_open_regular), so a file swapped after
 * the checks cannot make it open a device or a FIFO. */
static char *interpreter(const char *path)
{
	char line[256];
	cleanup_close int fd = trace_open_regular(path);
	if (fd < 0)
		return NULL;
	ssize_t n = read(fd, line, sizeof(line) - 1);
	if (n < 3 || line[0] != '#' || line[1] != '!')
		return NULL;
	line[n] = '\0';
	char *p = line + 2;
	p += strspn(p, " \t");
	p[strcspn(p, " \t\n")] = '\0';
	return p[0] == '/' ? canonical(p, true) : NULL;
}

struct verdict {
	enum trace_op op;
	char *path;
	char *other;
	char *detail;
};

static bool judge_open(const char *path, uint64_t flags, struct verdict *v)
{
	if (flags & O_PATH)
		return false; /* Landlock does not check O_PATH opens */
	struct stat st;
	int acc = (int)(flags & O_ACCMODE);
	if ((flags & O_TMPFILE) == O_TMPFILE) {
		v->op = TRACE_WRITE; /* an unnamed file in directory path */
		return may(path, W_OK | X_OK);
	}
	if (stat(path, &st) == 0) {
		bool rd = acc != O_WRONLY, wr = acc != O_RDONLY || (flags & O_TRUNC);
		v->op = wr ? TRACE_WRITE : S_ISDIR(st.st_mode) ? TRACE_LIST : TRACE_READ;
		if (wr && S_ISDIR(st.st_mode))
			return false; /* EISDIR */
		/* An append-only file may only be opened to append. */
		if (wr && (!(flags & O_APPEND) || (flags & O_TRUNC)) && file_append_only(path))
			return false;
		if ((flags & O_CREAT) && protected_create(path, &st))
			return false;
		return may(path, (rd ? R_OK : 0) | (wr ? W_OK : 0));
	}
	if (errno != ENOENT || !(flags & O_CREAT))
		return false; /* missing, or unreachable by ordinary permissions */
	struct stat dir;
	v->op = TRACE_CREATE;
	return dir_writable(path, &dir);
}

static bool judge_exec(const char *path, struct verdict *v)
{
	struct stat st;
	v->op = TRACE_EXEC;
	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode) || !may(path, X_OK))
		return false;
	v->other = interpreter(path);
	if (v->other && (stat(v->other, &st) < 0 || !S_ISREG(st.st_mode) || !may(v->other, X_OK)))
		return false;
	return true;
}

static bool judge_create(const char *path, enum trace_op op, struct verdict *v)
{
	struct stat st, dir;
	v->op = op;
	if (lstat(path, &st) == 0)
		return false; /* EEXIST would have come first */
	return dir_writable(path, &dir);
}

static bool judge_rename(const char *from, const char *to, int err, struct verdict *v)
{
	struct stat src, dst;
	v->op = TRACE_RENAME;
	if (!removable(from, &src))
		return false;
	if (lstat(to, &dst) == 0 ? !removable(to, &dst) : !dir_writable(to, &dst))
		return false;
	cleanup_free char *a = path_dirname(from);
	cleanup_free char *b = path_dirname(to);
	/* A directory that changes parent has its ".." rewritten. */
	if (S_ISDIR(src.st_mode) && strcmp(a, b) != 0 && !may(from, W_OK))
		return false;
	return err != EXDEV || same_mount(from, to);
}

static bool judge_link(const char *from, const char *to, int err, struct verdict *v)
{
	struct stat src, dir;
	v->op = TRACE_LINK;
	if (lstat(from, &src) < 0 || S_ISDIR(src.st_mode) || !dir_writable(to, &dir) ||
	    file_frozen(from))
		return false;
	/* fs.protected_hardlinks (on by default): a link to someone else's file
	 * needs read and write access to it. */
	uid_t me = fsuid();
	if (me != 0 && src.st_uid != me &&
	    (!S_ISREG(src.st_mode) || (src.st_mode & S_ISUID) || !may(from, R_OK | W_OK)))
		return false;
	return err != EXDEV || same_mount(from, to);
}

/* The unix socket path bind() would create, or NULL (abstract, unnamed). */
static char *socket_path(pid_t tid, uint64_t addr, uint64_t len)
{
	struct sockaddr_un sun;
	if (len <= offsetof(struct sockaddr_un, sun_path) || len > sizeof(sun))
		return NULL;
	memset(&sun, 0, sizeof(sun));
	if (!read_mem(tid, addr, &sun, (size_t)len) || sun.sun_family != AF_UNIX ||
	    !sun.sun_path[0])
		return NULL;
	sun.sun_path[sizeof(sun.sun_path) - 1] = '\0';
	return xstrdup(sun.sun_path);
}

/* The port of an AF_INET or AF_INET6 address, or 0. */
static unsigned inet_port(pid_t tid, uint64_t addr, uint64_t len)
{
	struct sockaddr_in6 sa; /* the port sits where it does in sockaddr_in */
	if (len < sizeof(struct sockaddr_in) || len > sizeof(struct sockaddr_storage))
		return 0;
	memset(&sa, 0, sizeof(sa));
	if (!read_mem(tid, addr, &sa, len < sizeof(sa) ? (size_t)len : sizeof(sa)) ||
	    (sa.sin6_family != AF_INET && sa.sin6_family != AF_INET6))
		return 0;
	return ntohs(sa.sin6_port);
}

/* A TCP port the network policy refused: Landlock's EACCES (connect or
 * bind), or, in a session's own network namespace under off, a network
 * that is not there (ENETUNREACH). A bind below the unprivileged port
 * start fails for want of a capability, which no policy gives. */
static bool judge_net(pid_t tid, const struct sc_desc *d, const uint64_t args[6], int err,
                      struct verdict *v)
{
	unsigned port = inet_port(tid, args[d->path], args[d->flags]);
	bool bind = d->kind == SC_BIND;
	if (!port || !(err == EACCES || (!bind && err == ENETUNREACH)) || (bind && port < 1024))
		return false;
	v->op = bind ? TRACE_NET_LISTEN : TRACE_NET_CONNECT;
	v->detail = xasprintf("TCP port %u", port);
	v->other = xasprintf("%s%u", bind ? "listen:" : "", port);
	return true;
}

static int fd_arg(signed char i, const uint64_t args[6])
{
	return i == NONE ? AT_FDCWD : (int)(uint32_t)args[i];
}

static bool judge(pid_t tid, pid_t pid, const struct sc_desc *d, const uint64_t args[6], int err,
                  struct verdict *v)
{
	char p1[PATH_MAX], p2[PATH_MAX];
	uint64_t flags = d->flags == NONE ? 0 : args[d->flags];
	if (d->kind == SC_CONNECT || (d->kind == SC_BIND && inet_port(tid, args[d->path], flags)))
		return judge_net(tid, d, args, err, v);
	if (d->kind == SC_BIND) {
		cleanup_free char *sock = socket_path(tid, args[d->path], flags);
		if (!sock)
			return false;
		v->path = trace_resolve(tid, pid, AT_FDCWD, sock, false);
		return judge_create(v->path, TRACE_BIND, v);
	}
	if (!trace_read_string(tid, args[d->path], p1, sizeof(p1)))
		return false;
	int dirfd = fd_arg(d->dirfd, args);
	switch (d->kind) {
	case SC_OPENAT2:
		if (!read_mem(tid, flags, &flags, sizeof(flags)))
			return false;
		/* fall through */
	case SC_OPEN:
	case SC_CREAT: {
		if (d->kind == SC_CREAT)
			flags = O_CREAT | O_WRONLY | O_TRUNC;
		bool excl = (flags & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL);
		v->path = trace_resolve(tid, pid, dirfd, p1, !(flags & O_NOFOLLOW) && !excl);
		return judge_open(v->path, flags, v);
	}
	case SC_TRUNCATE:
		v->path = trace_resolve(tid, pid, dirfd, p1, true);
		return judge_open(v->path, O_WRONLY, v);
	case SC_EXEC:
		v->path = trace_resolve(tid, pid, dirfd, p1, true);
		return judge_exec(v->path, v);
	case SC_MKDIR:
		v->path = trace_resolve(tid, pid, dirfd, p1, false);
		return judge_create(v->path, TRACE_MKDIR, v);
	case SC_MKNOD:
		v->path = trace_resolve(tid, pid, dirfd, p1, false);
		/* Device nodes need CAP_MKNOD before any path is looked at. */
		if ((S_ISCHR(flags) || S_ISBLK(flags)) && fsuid() != 0)
			return false;
		return judge_create(v->path, TRACE_CREATE, v);
	case SC_SYMLINK:
		v->path = trace_resolve(tid, pid, dirfd, p1, false);
		return judge_create(v->path, TRACE_SYMLINK, v);
	case SC_UNLINK:
	case SC_RMDIR: {
		struct stat st;
		bool rmdir = d->kind == SC_RMDIR || (flags & AT_REMOVEDIR);
		v->op = TRACE_REMOVE;
		v->path = trace_resolve(tid, pid, dirfd, p1, false);
		return removable(v->path, &st) && S_ISDIR(st.st_mode) == rmdir;
	}
	case SC_RENAME:
	case SC_LINK:
		if (!trace_read_string(tid, args[d->path2], p2, sizeof(p2)))
			return false;
		bool follow = d->kind == SC_LINK && (flags & AT_SYMLINK_FOLLOW);
		v->path = *p1 ? trace_resolve(tid, pid, dirfd, p1, follow)
		              : trace_resolve(tid, pid, dirfd, "", true); /* AT_EMPTY_PATH */
		v->other = trace_resolve(tid, pid, fd_arg(d->dirfd2, args), p2, false);
		return d->kind == SC_RENAME ? judge_rename(v->path, v->other, err, v)
		                            : judge_link(v->path, v->other, err, v);
	case SC_BIND:
	case SC_CONNECT: break;
	}
	return false;
}

struct ids {
	uid_t fsuid;
	gid_t fsgid;
	gid_t groups[NGROUPS_MAX > 256 ? 256 : NGROUPS_MAX];
	int ngroups;
};

/* The fs ids and groups of tid, from /proc/TID/status. */
static bool tracee_ids(pid_t tid, struct ids *ids)
{
	char path[64], line[4096];
	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	FILE *f = fopen(path, "re");
	if (!f)
		return false;
	int found = 0;
	unsigned a, b, c, d;
	*ids = (struct ids){0};
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Uid: %u %u %u %u", &a, &b, &c, &d) == 4)
			ids->fsuid = d, found++;
		else if (sscanf(line, "Gid: %u %u %u %u", &a, &b, &c, &d) == 4)
			ids->fsgid = d, found++;
		else if (strncmp(line, "Groups:", 7) == 0) {
			char *p = line + 7, *end;
			for (unsigned long g; ids->ngroups < (int)ARRAY_LEN(ids->groups); p = end) {
				g = strtoul(p, &end, 10);
				if (end == p)
					break;
				ids->groups[ids->ngroups++] = (gid_t)g;
			}
			found++;
		}
	}
	fclose(f);
	return found == 3;
}

static bool same_ids(const struct ids *t)
{
	gid_t mine[ARRAY_LEN(t->groups)];
	int n = getgroups((int)ARRAY_LEN(mine), mine);
	if (t->fsuid != geteuid() || t->fsgid != getegid() || n != t->ngroups)
		return false;
	for (int i = 0; i < n; i++) {
		bool found = false;
		for (int j = 0; j < n && !found; j++)
			found = mine[i] == t->groups[j];
		if (!found)
			return false;
	}
	return true;
}

/* Judge as the tracee: a command that dropped root inside the sandbox
 * (apt's _apt methods, say) is checked with its own ids. Only root can take
 * other ids; anyone else shares the tracee's, which cannot have changed. */
static bool judge_as(pid_t tid, pid_t pid, const struct sc_desc *d, const uint64_t args[6], int err,
                     struct verdict *v)
{
	struct ids t;
	if (geteuid() != 0 || !tracee_ids(tid, &t) || same_ids(&t))
		return judge(tid, pid, d, args, err, v);
	gid_t saved[ARRAY_LEN(t.groups)];
	int nsaved = getgroups((int)ARRAY_LEN(saved), saved);
	if (nsaved < 0 || setgroups((size_t)t.ngroups, t.groups) < 0)
		return false;
	setfsgid(t.fsgid);
	setfsuid(t.fsuid);
	bool denied = judge(tid, pid, d, args, err, v);
	setfsuid(0);
	setfsgid(getegid());
	if (setgroups((size_t)nsaved, saved) < 0)
		abort(); /* the tracer must not go on with the wrong groups */
	return denied;
}

void trace_judge(pid_t tid, pid_t pid, const char *name, const char *tool, const struct sc_desc *d,
                 const uint64_t args[6], int err, struct trace_log *log)
{
	struct verdict v = {0};
	if (judge_as(tid, pid, d, args, err, &v)) {
		struct trace_denial td = {.pid = pid,
		                          .name = (char *)name,
		                          .tool = (char *)tool,
		                          .op = v.op,
		                          .path = v.path,
		                          .other = v.other,
		                          .detail = v.detail,
		                          .err = err};
		trace_record(log, &td);
	}
	free(v.path);
	free(v.other);
	free(v.detail);
}
#endif
