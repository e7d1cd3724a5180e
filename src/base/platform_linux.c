#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/path.h"
#include "base/platform.h"

/* Not in musl 1.2.3's headers (Debian 12); Linux 5.14 and later. */
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

void platform_populate(void *start, size_t len)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t from = (uintptr_t)start & ~(page - 1);
	uintptr_t to = ((uintptr_t)start + len + page - 1) & ~(page - 1);
	int saved = errno; /* an older kernel says EINVAL: then pages fault in as before */
	madvise((void *)from, to - from, MADV_POPULATE_WRITE);
	errno = saved;
}

/* The writable segment of our own image: .data, whose pages are copied on
 * their first write, and .bss. Its relro part is left out, as glibc makes
 * it read-only. */
static int populate_own_data(struct dl_phdr_info *info, size_t size, void *unused)
{
	(void)size, (void)unused;
	uintptr_t relro_end = 0;
	for (size_t i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_GNU_RELRO)
			relro_end = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr +
			            info->dlpi_phdr[i].p_memsz;
	for (size_t i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_W))
			continue;
		uintptr_t from = info->dlpi_addr + ph->p_vaddr;
		uintptr_t to = from + ph->p_memsz;
		if (relro_end > from)
			from = relro_end;
		if (to > from)
			platform_populate((void *)from, to - from);
	}
	return 1; /* the executable comes first; nothing after it */
}

/* How much of the stack moat's own work runs in: a session touches about
 * 30 KiB of it. */
enum { STACK_AHEAD = 64 * 1024 };

/* Before main and any malloc, in moat and moat-wrapper alike; an exec
 * starts a fresh address space, so no tool ever sees any of this.
 *
 * Keep malloc's heap off brk. A static PIE's brk lies apart from every
 * other mapping, so the first heap page there needs page-table pages of
 * its own: on a paravirtualized guest, whose page tables the host shadows,
 * that costs 100 us of a 1.5 ms exec, in every wrapped tool's start. An
 * inaccessible page where brk begins makes brk fail, and malloc (musl's and
 * glibc's alike) then takes its memory from mmap, beside the binary.
 *
 * Then make present, in two calls, the memory a start is about to touch
 * one page at a time: our own .data and .bss and the stack's next 64 KiB.
 * On such a guest every page fault is a trip to the host, some 10 us each,
 * while populating costs under 1 us a page. Only memory about to be
 * written: the text's pages may be cold (a host reclaiming the guest's
 * memory drops them), and populating the whole text could read from disk
 * what is never run. */
__attribute__((constructor)) static void prepare_memory(void)
{
	void *brk_start = (void *)syscall(SYS_brk, 0);
	mmap(brk_start, 1, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	dl_iterate_phdr(populate_own_data, NULL);
	/* The frame's address, not a local's: AddressSanitizer may keep
	 * locals on a stack of its own. */
	uintptr_t frame = (uintptr_t)__builtin_frame_address(0);
	platform_populate((void *)(frame - STACK_AHEAD), STACK_AHEAD);
}

/* What the kernel names a /proc magic link (canonical already), or
 * realpath(fallback) where it cannot (a deleted or unreachable file). */
static char *proc_link_path(const char *link, const char *fallback)
{
	char buf[PATH_MAX];
	ssize_t n = readlink(link, buf, sizeof(buf));
	static const char deleted[] = " (deleted)";
	size_t dl = sizeof(deleted) - 1;
	if (n <= 0 || (size_t)n >= sizeof(buf) || buf[0] != '/' ||
	    ((size_t)n >= dl && memcmp(buf + n - dl, deleted, dl) == 0))
		return realpath(fallback, NULL);
	buf[n] = '\0';
	return strdup(buf);
}

/* Read once: a process's executable is fixed until it execs, and a
 * session asks for it three times (a /proc lookup each). */
char *platform_self_exe(void)
{
	static char *self;
	if (!self)
		self = proc_link_path("/proc/self/exe", "/proc/self/exe");
	return self ? strdup(self) : NULL;
}

#ifndef SYS_openat2
#define SYS_openat2 437
#endif
#define MOAT_RESOLVE_NO_MAGICLINKS 0x02
#define MOAT_RESOLVE_NO_SYMLINKS   0x04
#define MOAT_RESOLVE_BENEATH       0x08

struct moat_open_how {
	uint64_t flags, mode, resolve;
};

/* path, when it is absolute, normal and free of symlinks; else -1. */
static int open_if_canonical(const char *path)
{
	char *norm = path[0] == '/' && !path_has_dotdot(path) ? path_normalize(path) : NULL;
	bool normal = norm && strcmp(norm, path) == 0;
	free(norm);
	if (!normal)
		return -1;
	struct moat_open_how how = {.flags = O_PATH | O_CLOEXEC,
	                            .resolve = MOAT_RESOLVE_NO_SYMLINKS};
	return (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));
}

int platform_open_canonical(const char *path, char **canon)
{
	int fd = open_if_canonical(path);
	if (fd >= 0) {
		*canon = strdup(path);
	} else if ((fd = openat(AT_FDCWD, path, O_PATH | O_CLOEXEC)) >= 0) {
		char link[32];
		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		*canon = proc_link_path(link, path);
	} else {
		*canon = NULL;
		return -1;
	}
	if (!*canon) {
		int saved = errno;
		close(fd);
		errno = saved;
		return -1;
	}
	return fd;
}

char *platform_canonical_path(const char *path)
{
	char *canon;
	int fd = platform_open_canonical(path, &canon);
	if (fd >= 0)
		close(fd);
	return canon;
}

static int openat2_in(const char *dir, const char *rel, uint64_t flags, uint64_t resolve)
{
	struct moat_open_how how = {.flags = flags, .resolve = resolve};
	/* Beneath "/" with no symlinks at all is the absolute path with no
	 * symlinks: one call, not three, for each of a thousand rules. (The
	 * current root, never a descriptor kept from before a mount
	 * namespace changed it.) */
	char abs[PATH_MAX];
	int dfd = AT_FDCWD;
	const char *path = abs;
	if (strcmp(dir, "/") == 0 && (resolve & MOAT_RESOLVE_NO_SYMLINKS) && rel[0] &&
	    rel[0] != '/' && (size_t)snprintf(abs, sizeof(abs), "/%s", rel) < sizeof(abs)) {
		how.resolve &= ~(uint64_t)MOAT_RESOLVE_BENEATH;
	} else {
		/* O_PATH: a sandboxed caller may not read dir (say "/"), only
		 * below it. */
		dfd = openat(AT_FDCWD, dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (dfd < 0)
			return -1;
		path = rel;
	}
	/* EAGAIN: a rename or mount anywhere on the system raced a ".." in
	 * the lookup, which RESOLVE_BENEATH then cannot vouch for. Try again
	 * a few times; the callers then take the walk without openat2. */
	int fd = -1;
	for (int tries = 0; tries < 8; tries++) {
		fd = (int)syscall(SYS_openat2, dfd, path, &how, sizeof(how));
		if (fd >= 0 || errno != EAGAIN)
			break;
	}
	int saved = errno;
	if (dfd != AT_FDCWD)
		close(dfd);
	errno = saved;
	return fd;
}

static int walk_no_symlinks(const char *dir, const char *rel, int last_flags);

int platform_open_name_no_symlinks(int dirfd, const char *name)
{
	struct moat_open_how how = {.flags = O_PATH | O_CLOEXEC,
	                            .resolve = MOAT_RESOLVE_BENEATH | MOAT_RESOLVE_NO_SYMLINKS};
	if (!name[0] || strchr(name, '/') || strcmp(name, "..") == 0) {
		errno = EXDEV;
		return -1;
	}
	return (int)syscall(SYS_openat2, dirfd, name, &how, sizeof(how));
}

int platform_open_beneath(const char *dir, const char *rel)
{
	const int flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK;
	int fd = openat2_in(dir, rel, flags, MOAT_RESOLVE_BENEATH | MOAT_RESOLVE_NO_MAGICLINKS);
	/* A sandbox's own seccomp filter answers openat2 with ENOSYS. */
	if (fd < 0 && (errno == ENOSYS || errno == EPERM || errno == EAGAIN))
		return walk_no_symlinks(dir, rel, flags);
	return fd;
}

/* Without openat2 (a container's seccomp profile may refuse it, and moat's
 * own does): one component at a time, O_NOFOLLOW, checking each is no
 * symlink; the last one opened with last_flags. */
static int walk_no_symlinks(const char *dir, const char *rel, int last_flags)
{
	/* As openat2 with RESOLVE_BENEATH: nothing absolute, nothing empty. */
	if (rel[0] == '/' || rel[0] == '\0') {
		errno = rel[0] ? EXDEV : ENOENT;
		return -1;
	}
	int fd = openat(AT_FDCWD, dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	for (const char *p = rel; fd >= 0 && *p;) {
		size_t len = strcspn(p, "/");
		char name[NAME_MAX + 1];
		if (len > NAME_MAX || (len == 2 && p[0] == '.' && p[1] == '.')) {
			close(fd);
			errno = len > NAME_MAX ? ENAMETOOLONG : EXDEV;
			return -1;
		}
		memcpy(name, p, len);
		name[len] = '\0';
		bool dir_wanted = p[len] == '/'; /* "file/" is ENOTDIR, as for openat2 */
		p += len + strspn(p + len, "/");
		if (!len || strcmp(name, ".") == 0)
			continue;
		bool last = *p == '\0';
		int next = openat(fd, name, (last ? last_flags : O_PATH | O_CLOEXEC) | O_NOFOLLOW);
		struct stat st;
		if (next >= 0 && fstat(next, &st) == 0 &&
		    (S_ISLNK(st.st_mode) || (dir_wanted && !S_ISDIR(st.st_mode)))) {
			close(next);
			next = -1;
			errno = S_ISLNK(st.st_mode) ? ELOOP : ENOTDIR;
		}
		int saved = errno;
		close(fd);
		errno = saved;
		fd = next;
	}
	return fd;
}

int platform_open_path_no_symlinks(const char *dir, const char *rel)
{
	int fd = openat2_in(dir, rel, O_PATH | O_CLOEXEC,
	                    MOAT_RESOLVE_BENEATH | MOAT_RESOLVE_NO_SYMLINKS);
	if (fd < 0 && (errno == ENOSYS || errno == EPERM || errno == EAGAIN))
		return walk_no_symlinks(dir, rel, O_PATH | O_CLOEXEC);
	return fd;
}

#ifndef SYS_execveat
#define SYS_execveat 322
#endif

extern char **environ;

int platform_exec_file(const char *path, bool no_symlinks, char *const *argv)
{
	int fd = no_symlinks && path[0] == '/'
	             ? platform_open_path_no_symlinks("/", path[1] ? path + 1 : ".")
	             : openat(AT_FDCWD, path, O_PATH | O_CLOEXEC);
	if (fd < 0)
		return -1;
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		errno = S_ISDIR(st.st_mode) ? EISDIR : EACCES;
		return -1;
	}
	syscall(SYS_execveat, fd, "", argv, environ, AT_EMPTY_PATH);
	int e = errno;
	close(fd);
	/* A script: its interpreter would be handed /dev/fd/N, which this
	 * close-on-exec descriptor no longer names by then, so the kernel
	 * fails with ENOENT before anything runs. Exec it by path instead.
	 * That path reaches the same file: for a jailbroken tool it was judged
	 * to pass through nothing sandboxed code can write (and opened refusing
	 * links), so only the user could have changed it; for a confined one
	 * Landlock judges whatever is executed. (Keeping the descriptor open
	 * across exec would hand the tool an fd and show its script as
	 * /dev/fd/N.) A missing ELF interpreter fails the same way again. */
	if (e == ENOENT || e == ENOSYS) {
		execv(path, argv);
		e = errno;
	}
	errno = e;
	return -1;
}

void platform_close_range(int lo, int hi)
{
	if (syscall(SYS_close_range, (unsigned)lo, (unsigned)hi, 0) == 0)
		return;
	/* Kernels before 5.9: close them one by one. */
	long max = sysconf(_SC_OPEN_MAX);
	max = max > 0 ? max : 65536;
	for (long fd = lo; fd <= hi && fd < max; fd++)
		close((int)fd);
}

void platform_close_from(int lowfd)
{
	platform_close_range(lowfd, INT_MAX);
}

/* The calls themselves, with no errno (PLATFORM_QUIET_RAW). */
#if defined(__x86_64__)
static long quiet_call(long nr, long a, long b, long c, long d, long e)
{
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	long ret;
	__asm__ volatile("syscall"
	                 : "=a"(ret)
	                 : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8)
	                 : "rcx", "r11", "memory");
	return ret;
}
#elif defined(__aarch64__)
static long quiet_call(long nr, long a, long b, long c, long d, long e)
{
	register long x8 __asm__("x8") = nr;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;
	register long x4 __asm__("x4") = e;
	__asm__ volatile("svc 0"
	                 : "+r"(x0)
	                 : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4)
	                 : "memory");
	return x0;
}
#else
/* Not raw: sandbox_spawn does not share memory here, so this is enough. */
static long quiet_call(long nr, long a, long b, long c, long d, long e)
{
	int saved = errno;
	long ret = syscall(nr, a, b, c, d, e);
	if (ret < 0)
		ret = -errno;
	errno = saved;
	return ret;
}
#endif

/* What platform_cpu_hold took, for platform_cpu_release: written before a
 * session's supervisor and tool exist, only read once they do, each for
 * itself (they share this memory). */
static struct {
	cpu_set_t given_back; /* the CPUs a session's processes get back */
	bool held;            /* held on one CPU: something to give back */
} cpu_hold;

void platform_cpu_hold(void)
{
	int cpu = sched_getcpu();
	if (cpu < 0 || cpu >= CPU_SETSIZE ||
	    sched_getaffinity(0, sizeof(cpu_hold.given_back), &cpu_hold.given_back) < 0)
		return;
	/* Since Linux 6.2 the kernel keeps the mask a process last asked for
	 * (inherited by what it starts), and when its cpuset changes allows it
	 * no more than that. A caller that never asked is allowed its whole
	 * cpuset: asking for every CPU gives it just that, so it gets back
	 * every CPU, and a cpuset widened during the session widens the tool
	 * too. One that asked for fewer (taskset) gets those back. */
	cpu_set_t every, allowed;
	memset(&every, 0xff, sizeof(every));
	if (sched_setaffinity(0, sizeof(every), &every) == 0 &&
	    sched_getaffinity(0, sizeof(allowed), &allowed) >= 0 &&
	    CPU_EQUAL(&allowed, &cpu_hold.given_back))
		cpu_hold.given_back = every;
	cpu_set_t one;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	cpu_hold.held = sched_setaffinity(0, sizeof(one), &one) == 0;
}

void platform_cpu_release(void)
{
	if (!cpu_hold.held)
		return;
	if (quiet_call(SYS_sched_setaffinity, 0, sizeof(cpu_hold.given_back),
	               (long)&cpu_hold.given_back, 0, 0) == 0)
		return;
	/* The cpuset changed meanwhile and allows none of them: every CPU,
	 * which the kernel cuts down to what the cpuset allows. */
	cpu_set_t every;
	memset(&every, 0xff, sizeof(every));
	quiet_call(SYS_sched_setaffinity, 0, sizeof(every), (long)&every, 0, 0);
}

long platform_quiet_read(int fd, void *buf, size_t n)
{
	return quiet_call(SYS_read, fd, (long)buf, (long)n, 0, 0);
}

long platform_quiet_write(int fd, const void *buf, size_t n)
{
	return quiet_call(SYS_write, fd, (long)buf, (long)n, 0, 0);
}

long platform_quiet_poll(struct pollfd *fds, unsigned int n)
{
	/* ppoll: aarch64 has no poll; no timeout, no signal mask. */
	return quiet_call(SYS_ppoll, (long)fds, n, 0, 0, 8);
}

long platform_quiet_kill(pid_t pid, int sig)
{
	return quiet_call(SYS_kill, pid, sig, 0, 0, 0);
}

long platform_quiet_wait(pid_t pid, int *status, int options)
{
	return quiet_call(SYS_wait4, pid, (long)status, options, 0, 0);
}

long platform_quiet_close(int fd)
{
	return quiet_call(SYS_close, fd, 0, 0, 0, 0);
}

long platform_quiet_close_range(int lo, int hi)
{
	long rc = quiet_call(SYS_close_range, lo, hi, 0, 0, 0);
	for (int fd = lo; rc < 0 && fd <= hi; fd++) /* before 5.9 */
		quiet_call(SYS_close, fd, 0, 0, 0, 0);
	return 0;
}

int platform_pipe_cloexec(int fds[2])
{
	return pipe2(fds, O_CLOEXEC);
}

bool platform_is_macos(void)
{
	return false;
}

struct timespec platform_mtime(const struct stat *st)
{
	return st->st_mtim;
}

void platform_become_subreaper(void)
{
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
}

/* Through the system call: musl (1.2.3, Debian 12) has no renameat2(). */
int platform_rename_noreplace(int dfd, const char *from, const char *to)
{
	const unsigned noreplace = 1; /* RENAME_NOREPLACE */
	return (int)syscall(SYS_renameat2, dfd, from, dfd, to, noreplace);
}
