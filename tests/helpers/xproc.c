/* xproc MODE [ARGS]: calls that reach another process of the same user
 * without a path, so Landlock does not judge them (issue 12), one per run.
 *
 * Victims (run outside the sandbox):
 *   victim KEY             copy KEY to the heap, print "PID ADDR" (ADDR: the
 *                          page holding it) and spin on the CPU until killed
 *   victim-sleep           print "PID ADDR" (a page of its heap) and sleep
 *                          until killed
 * Attacks on PID (each has an "-i386" twin through int $0x80, same args):
 *   prlimit-core PID       RLIMIT_CORE unlimited + RLIMIT_CPU 1 s soft, 10 s
 *                          hard: the busy victim dumps core (SIGXCPU) in its cwd
 *   prlimit-kill PID       RLIMIT_CPU 1 s hard: the kernel SIGKILLs it
 *   nice PID               setpriority(PRIO_PROCESS, PID, 19)
 *   nice-pgrp PGID         setpriority(PRIO_PGRP, PGID, 19)
 *   nice-user UID          setpriority(PRIO_USER, UID, 19): every process of UID
 *   ioprio PID             ioprio_set(IOPRIO_WHO_PROCESS, PID, idle class)
 *   ioprio-pgrp PGID       ioprio_set(IOPRIO_WHO_PGRP, ...)
 *   ioprio-user UID        ioprio_set(IOPRIO_WHO_USER, ...)
 *   setpgid PGID           setpgid(0, PGID): join that process group
 *   setpgid-session        setpgid(0, getsid(0)): join the session leader's group
 * Attacks without an i386 twin:
 *   sched-idle PID         sched_setscheduler(PID, SCHED_IDLE)
 *   affinity PID           sched_setaffinity(PID, {first allowed CPU})
 *   kill PID               kill(PID, SIGTERM)
 *   kcmp PID               kcmp(self, PID, KCMP_VM)
 *   setns PID              setns(open /proc/PID/ns/user, CLONE_NEWUSER)
 *   setns-pidfd PID        setns(pidfd_open(PID), CLONE_NEWUSER)
 *   madvise PID ADDR       process_madvise(pidfd, ADDR, MADV_COLD)
 *   move_pages PID ADDR    move_pages(PID, ADDR) in query mode (its NUMA node)
 *   chdir-core DIR KEY     hold KEY, raise RLIMIT_CORE, chdir DIR, die of SIGSEGV
 *   repoint TYPE PATH      socketpair(AF_UNIX, TYPE), close the peer, connect
 *                          the left end to PATH and send a line (TYPE: stream,
 *                          seqpacket, dgram)
 *   mq-send NAME TEXT      create POSIX message queue /NAME (0600), send TEXT
 *   mq-read NAME           open /NAME and print one message
 *   mq-unlink NAME
 * What must keep working (legitimate neighbours):
 *   self                   prlimit64 (pid 0 and getpid()), setpriority and
 *                          ioprio_set (who 0 and getpid()) on the caller; in
 *                          a child, setpgid(0, getpgrp()), setpgid(0, 0),
 *                          setpgid(getpid(), getpid())
 *   child-pgid             fork; setpgid(child, child) from parent and child:
 *                          what a job-control shell does for every job
 *   child-self             fork, and run "self" in the child: calls on itself
 *                          by its own pid, which is not the pid moat started
 *   child-pgid-dash        fork; the child calls setpgid(0, getpid()), as
 *                          dash's job control does for every job
 *   threads                four threads: sched_setaffinity on each thread's
 *                          tid, pthread_setaffinity_np, setpriority(who 0) in
 *                          the thread
 *   ioprio-get PID         print "ioprio-get: ok CLASS"
 *
 * xproc --as UID MODE ...: first become UID (setresgid, setresuid: root
 * only), as root in a sandbox can, to reach that user's processes.
 *
 * Prints "MODE: ok[ detail]" and exits 0 on success, else
 * "MODE: <step>: <strerror>" on stderr and exits 1 (2 for usage). */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <mqueue.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define IOPRIO_WHO_PROCESS 1
#define IOPRIO_WHO_PGRP    2
#define IOPRIO_WHO_USER    3
#define IOPRIO_CLASS_IDLE  3
#define IOPRIO_CLASS_SHIFT 13
#define KCMP_VM            1
#define MADV_COLD_ADVICE   20
#ifndef SYS_process_madvise
#define SYS_process_madvise 440
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

/* i386 syscall numbers (arch/x86/entry/syscalls/syscall_32.tbl). */
#define I386_PRLIMIT64   340
#define I386_SETPRIORITY 97
#define I386_IOPRIO_SET  289
#define I386_SETPGID     57

static const char *mode;

static int fail(const char *step, int e)
{
	fprintf(stderr, "%s: %s: %s\n", mode, step, strerror(e));
	return 1;
}

static int ok(const char *detail)
{
	printf("%s: ok%s%s\n", mode, *detail ? " " : "", detail);
	return 0;
}

/* --- the two gates ------------------------------------------------------- */

struct rlimit64_abi {
	uint64_t cur, max;
};

#if defined(__x86_64__)
#define HAVE_I386 1
static long int80(long nr, long a, long b, long c, long d)
{
	long ret;
	__asm__ volatile("int $0x80"
	                 : "=a"(ret)
	                 : "a"(nr), "b"(a), "c"(b), "d"(c), "S"(d)
	                 : "memory", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15");
	return (int)ret;
}

/* i386 pointers are 32 bits wide: arguments must live below 4 GiB. */
static void *low_page(void)
{
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT,
	               -1, 0);
	return p == MAP_FAILED ? NULL : p;
}
#else
#define HAVE_I386 0
static long int80(long nr, long a, long b, long c, long d)
{
	(void)nr, (void)a, (void)b, (void)c, (void)d;
	return -ENOSYS;
}
static void *low_page(void)
{
	return NULL;
}
#endif

/* Each call returns 0 or -errno, whichever gate it went through. */
static long native_or_i386(int i386, long nr64, long nr32, long a, long b, long c, long d)
{
	if (i386)
		return HAVE_I386 ? int80(nr32, a, b, c, d) : -ENOSYS;
	long r = syscall(nr64, a, b, c, d);
	return r < 0 ? -errno : r;
}

static long set_rlimit(int i386, pid_t pid, int resource, uint64_t cur, uint64_t max)
{
	struct rlimit64_abi *lim, stack;
	lim = i386 ? low_page() : &stack;
	if (!lim)
		return -ENOMEM;
	lim->cur = cur, lim->max = max;
	return native_or_i386(i386, SYS_prlimit64, I386_PRLIMIT64, pid, resource,
	                      (long)(uintptr_t)lim, 0);
}

static long set_priority(int i386, int which, long who, int prio)
{
	return native_or_i386(i386, SYS_setpriority, I386_SETPRIORITY, which, who, prio, 0);
}

static long set_ioprio(int i386, int which, long who)
{
	return native_or_i386(i386, SYS_ioprio_set, I386_IOPRIO_SET, which, who,
	                      IOPRIO_CLASS_IDLE << IOPRIO_CLASS_SHIFT, 0);
}

static long set_pgid(int i386, long pid, long pgid)
{
	return native_or_i386(i386, SYS_setpgid, I386_SETPGID, pid, pgid, 0, 0);
}

static int report(const char *step, long r)
{
	return r < 0 ? fail(step, (int)-r) : ok("");
}

/* --- victims ------------------------------------------------------------- */

_Noreturn static void victim(const char *key)
{
	size_t n = strlen(key) + 1;
	char *page = aligned_alloc(4096, 4096);
	if (!page || n > 4096)
		exit(2);
	memcpy(page, key, n);
	printf("%d %p\n", (int)getpid(), (void *)page);
	fflush(stdout);
	for (volatile unsigned long spin = 0;; spin++)
		page[n] = (char)spin; /* keep the page (and the key) live */
}

_Noreturn static void victim_sleep(void)
{
	char *page = aligned_alloc(4096, 4096);
	if (!page)
		exit(2);
	strcpy(page, "VICTIM-PAGE");
	printf("%d %p\n", (int)getpid(), (void *)page);
	fflush(stdout);
	for (;;)
		pause();
}

/* --- attacks without an i386 twin ---------------------------------------- */

static int sched_idle(pid_t pid)
{
	struct sched_param sp = {0};
	return report("sched_setscheduler",
	              sched_setscheduler(pid, SCHED_IDLE, &sp) < 0 ? -errno : 0);
}

static int first_cpu(cpu_set_t *set)
{
	cpu_set_t mine;
	if (sched_getaffinity(0, sizeof(mine), &mine) < 0)
		return -1;
	CPU_ZERO(set);
	for (int c = 0; c < CPU_SETSIZE; c++) {
		if (CPU_ISSET(c, &mine)) {
			CPU_SET(c, set);
			return c;
		}
	}
	return -1;
}

static int affinity(pid_t pid)
{
	cpu_set_t set;
	if (first_cpu(&set) < 0)
		return fail("sched_getaffinity", errno);
	return report("sched_setaffinity",
	              sched_setaffinity(pid, sizeof(set), &set) < 0 ? -errno : 0);
}

static int kill_one(pid_t pid)
{
	return report("kill", kill(pid, SIGTERM) < 0 ? -errno : 0);
}

static int kcmp_vm(pid_t pid)
{
	long r = syscall(SYS_kcmp, getpid(), pid, KCMP_VM, 0, 0);
	if (r < 0)
		return fail("kcmp", errno);
	char detail[32];
	snprintf(detail, sizeof(detail), "%ld", r);
	return ok(detail);
}

static int join_userns(pid_t pid, int by_pidfd)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/ns/user", (int)pid);
	int fd = by_pidfd ? (int)syscall(SYS_pidfd_open, pid, 0) : open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fail(by_pidfd ? "pidfd_open" : "open", errno);
	if (setns(fd, CLONE_NEWUSER) < 0)
		return fail("setns", errno);
	return ok("joined its user namespace");
}

static int madvise_other(pid_t pid, uintptr_t addr)
{
	int fd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (fd < 0)
		return fail("pidfd_open", errno);
	struct iovec iov = {(void *)addr, 4096};
	if (syscall(SYS_process_madvise, fd, &iov, 1, MADV_COLD_ADVICE, 0) < 0)
		return fail("process_madvise", errno);
	return ok("");
}

static int query_pages(pid_t pid, uintptr_t addr)
{
	void *page = (void *)(addr & ~(uintptr_t)4095);
	int status = -1;
	if (syscall(SYS_move_pages, pid, 1, &page, NULL, &status, 0) < 0)
		return fail("move_pages", errno);
	if (status < 0)
		return fail("move_pages status", -status);
	char detail[32];
	snprintf(detail, sizeof(detail), "node %d", status);
	return ok(detail);
}

static int core_outside(const char *dir, const char *key)
{
	char *held = strdup(key);
	struct rlimit inf = {RLIM_INFINITY, RLIM_INFINITY};
	if (!held)
		return 2;
	if (setrlimit(RLIMIT_CORE, &inf) < 0) {
		struct rlimit cur;
		getrlimit(RLIMIT_CORE, &cur);
		cur.rlim_cur = cur.rlim_max;
		setrlimit(RLIMIT_CORE, &cur);
	}
	if (chdir(dir) < 0)
		return fail("chdir", errno);
	printf("%s: dumping in %s\n", mode, dir);
	fflush(stdout);
	signal(SIGSEGV, SIG_DFL);
	raise(SIGSEGV);
	return fail("raise", EINVAL);
}

static int repoint(const char *type_name, const char *path)
{
	int type = strcmp(type_name, "stream") == 0      ? SOCK_STREAM
	           : strcmp(type_name, "seqpacket") == 0 ? SOCK_SEQPACKET
	           : strcmp(type_name, "dgram") == 0     ? SOCK_DGRAM
	                                                 : -1;
	if (type < 0)
		return 2;
	int sv[2];
	if (socketpair(AF_UNIX, type, 0, sv) < 0)
		return fail("socketpair", errno);
	close(sv[1]);
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	if (strlen(path) >= sizeof(sa.sun_path))
		return 2;
	strcpy(sa.sun_path, path);
	static const char msg[] = "MESSAGE-FROM-SANDBOX\n";
	if (type == SOCK_DGRAM) {
		/* The first send notices the dead peer and disconnects the end. */
		send(sv[0], "x", 1, MSG_DONTWAIT);
	}
	if (connect(sv[0], (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int e = errno;
		if (sendto(sv[0], msg, sizeof(msg) - 1, MSG_NOSIGNAL, (struct sockaddr *)&sa,
		           sizeof(sa)) < 0)
			return fail("connect and sendto", e);
		return ok("sent with sendto");
	}
	if (send(sv[0], msg, sizeof(msg) - 1, MSG_NOSIGNAL) < 0)
		return fail("send", errno);
	char buf[64] = {0};
	if (type != SOCK_DGRAM && read(sv[0], buf, sizeof(buf) - 1) > 0) {
		buf[strcspn(buf, "\n")] = '\0';
		return ok(buf);
	}
	return ok("sent");
}

static int mq(const char *what, const char *name, const char *text)
{
	char qname[256];
	snprintf(qname, sizeof(qname), "/%s", name);
	if (strcmp(what, "unlink") == 0)
		return report("mq_unlink", mq_unlink(qname) < 0 ? -errno : 0);
	if (strcmp(what, "send") == 0) {
		struct mq_attr attr = {.mq_maxmsg = 4, .mq_msgsize = 128};
		mqd_t q = mq_open(qname, O_CREAT | O_WRONLY, 0600, &attr);
		if (q == (mqd_t)-1)
			return fail("mq_open", errno);
		if (mq_send(q, text, strlen(text), 0) < 0)
			return fail("mq_send", errno);
		return ok("");
	}
	mqd_t q = mq_open(qname, O_RDONLY | O_NONBLOCK);
	if (q == (mqd_t)-1)
		return fail("mq_open", errno);
	char buf[129] = {0};
	if (mq_receive(q, buf, 128, NULL) < 0)
		return fail("mq_receive", errno);
	return ok(buf);
}

/* --- what keeps working -------------------------------------------------- */

static int self_calls(void)
{
	pid_t me = getpid();
	struct rlimit64_abi old;
	if (syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, NULL, &old) < 0)
		return fail("prlimit64 read", errno);
	struct rlimit64_abi lower = {old.cur > 64 ? old.cur - 1 : old.cur, old.max};
	if (syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, &lower, NULL) < 0)
		return fail("prlimit64(0)", errno);
	if (syscall(SYS_prlimit64, me, RLIMIT_NOFILE, &lower, NULL) < 0)
		return fail("prlimit64(getpid())", errno);
	if (setpriority(PRIO_PROCESS, 0, 1) < 0)
		return fail("setpriority(0)", errno);
	if (setpriority(PRIO_PROCESS, (id_t)me, 2) < 0)
		return fail("setpriority(getpid())", errno);
	if (syscall(SYS_ioprio_set, IOPRIO_WHO_PROCESS, 0,
	            IOPRIO_CLASS_IDLE << IOPRIO_CLASS_SHIFT) < 0)
		return fail("ioprio_set(0)", errno);
	if (syscall(SYS_ioprio_set, IOPRIO_WHO_PROCESS, me,
	            IOPRIO_CLASS_IDLE << IOPRIO_CLASS_SHIFT) < 0)
		return fail("ioprio_set(getpid())", errno);
	/* setpgid in a child: a session leader (the tool may be one) cannot
	 * change its group at all. */
	pid_t pid = fork();
	if (pid < 0)
		return fail("fork", errno);
	if (pid == 0) {
		if (setpgid(0, getpgrp()) < 0)
			_exit(fail("setpgid(0, getpgrp())", errno));
		if (setpgid(0, 0) < 0)
			_exit(fail("setpgid(0, 0)", errno));
		if (setpgid(getpid(), getpid()) < 0)
			_exit(fail("setpgid(getpid(), getpid())", errno));
		_exit(0);
	}
	int st;
	waitpid(pid, &st, 0);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return 1;
	return ok("");
}

static int child_pgid(void)
{
	int go[2];
	if (pipe(go) < 0)
		return fail("pipe", errno);
	pid_t pid = fork();
	if (pid < 0)
		return fail("fork", errno);
	if (pid == 0) {
		close(go[1]);
		char c;
		int e = setpgid(getpid(), getpid()) < 0 ? errno : 0;
		if (read(go[0], &c, 1) < 0)
			_exit(100);
		_exit(e);
	}
	close(go[0]);
	long r = setpgid(pid, pid) < 0 ? -errno : 0;
	close(go[1]);
	int st;
	waitpid(pid, &st, 0);
	if (r < 0)
		return fail("setpgid(child, child) in the parent", (int)-r);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return fail("setpgid(getpid(), getpid()) in the child",
		            WIFEXITED(st) ? WEXITSTATUS(st) : EINTR);
	return ok("");
}

static int in_child(int (*fn)(void))
{
	pid_t pid = fork();
	if (pid < 0)
		return fail("fork", errno);
	if (pid == 0)
		_exit(fn());
	int st;
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

static int own_group(void)
{
	return report("setpgid(0, getpid())", setpgid(0, getpid()) < 0 ? -errno : 0);
}

static void *thread_main(void *arg)
{
	long *err = arg;
	cpu_set_t set;
	if (first_cpu(&set) < 0 ||
	    sched_setaffinity((pid_t)syscall(SYS_gettid), sizeof(set), &set) < 0)
		*err = errno ? errno : EINVAL;
	else if (setpriority(PRIO_PROCESS, 0, 3) < 0)
		*err = errno;
	struct timespec ts = {0, 50 * 1000 * 1000};
	nanosleep(&ts, NULL);
	return NULL;
}

static int threads(void)
{
	pthread_t t[4];
	long err[4] = {0};
	for (int i = 0; i < 4; i++) {
		if (pthread_create(&t[i], NULL, thread_main, &err[i]) != 0)
			return fail("pthread_create", EAGAIN);
	}
	cpu_set_t set;
	first_cpu(&set);
	for (int i = 0; i < 4; i++) {
		int e = pthread_setaffinity_np(t[i], sizeof(set), &set);
		if (e)
			return fail("pthread_setaffinity_np", e);
	}
	for (int i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		if (err[i])
			return fail("sched_setaffinity/setpriority in a thread", (int)err[i]);
	}
	return ok("");
}

static int ioprio_get(pid_t pid)
{
	long r = syscall(SYS_ioprio_get, IOPRIO_WHO_PROCESS, pid);
	if (r < 0)
		return fail("ioprio_get", errno);
	char detail[32];
	snprintf(detail, sizeof(detail), "%ld", r >> IOPRIO_CLASS_SHIFT);
	return ok(detail);
}

/* --- dispatch ------------------------------------------------------------ */

static int gated(const char *base, int i386, const char *arg)
{
	long n = arg ? strtol(arg, NULL, 10) : 0;
	if (strcmp(base, "prlimit-core") == 0) {
		long r = set_rlimit(i386, (pid_t)n, RLIMIT_CORE, RLIM_INFINITY, RLIM_INFINITY);
		if (r < 0)
			return fail("prlimit64 RLIMIT_CORE", (int)-r);
		return report("prlimit64 RLIMIT_CPU",
		              set_rlimit(i386, (pid_t)n, RLIMIT_CPU, 1, 10));
	}
	if (strcmp(base, "prlimit-kill") == 0)
		return report("prlimit64 RLIMIT_CPU", set_rlimit(i386, (pid_t)n, RLIMIT_CPU, 1, 1));
	if (strcmp(base, "nice") == 0)
		return report("setpriority", set_priority(i386, PRIO_PROCESS, n, 19));
	if (strcmp(base, "nice-pgrp") == 0)
		return report("setpriority", set_priority(i386, PRIO_PGRP, n, 19));
	if (strcmp(base, "nice-user") == 0)
		return report("setpriority", set_priority(i386, PRIO_USER, n, 19));
	if (strcmp(base, "ioprio") == 0)
		return report("ioprio_set", set_ioprio(i386, IOPRIO_WHO_PROCESS, n));
	if (strcmp(base, "ioprio-pgrp") == 0)
		return report("ioprio_set", set_ioprio(i386, IOPRIO_WHO_PGRP, n));
	if (strcmp(base, "ioprio-user") == 0)
		return report("ioprio_set", set_ioprio(i386, IOPRIO_WHO_USER, n));
	if (strcmp(base, "setpgid") == 0)
		return report("setpgid", set_pgid(i386, 0, n));
	if (strcmp(base, "setpgid-session") == 0)
		return report("setpgid", set_pgid(i386, 0, getsid(0)));
	return -1;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: xproc MODE [ARGS]\n");
		return 2;
	}
	mode = argv[1];
	setvbuf(stdout, NULL, _IONBF, 0);
	if (strcmp(mode, "--as") == 0 && argc > 3) {
		uid_t uid = (uid_t)strtoul(argv[2], NULL, 10);
		setgroups(0, NULL); /* best effort: a user namespace may deny it */
		if (setresgid(uid, uid, uid) < 0 || setresuid(uid, uid, uid) < 0)
			return fail("setresuid", errno);
		argv += 2, argc -= 2;
		mode = argv[1];
	}
	const char *a = argc > 2 ? argv[2] : NULL, *b = argc > 3 ? argv[3] : NULL;
	long n = a ? strtol(a, NULL, 10) : 0;

	char base[64];
	snprintf(base, sizeof(base), "%s", mode);
	size_t len = strlen(base);
	int i386 = len > 5 && strcmp(base + len - 5, "-i386") == 0;
	if (i386)
		base[len - 5] = '\0';
	int r = gated(base, i386, a);
	if (r >= 0)
		return r;

	if (strcmp(mode, "victim") == 0 && a)
		victim(a);
	if (strcmp(mode, "victim-sleep") == 0)
		victim_sleep();
	if (strcmp(mode, "sched-idle") == 0 && a)
		return sched_idle((pid_t)n);
	if (strcmp(mode, "affinity") == 0 && a)
		return affinity((pid_t)n);
	if (strcmp(mode, "kill") == 0 && a)
		return kill_one((pid_t)n);
	if (strcmp(mode, "kcmp") == 0 && a)
		return kcmp_vm((pid_t)n);
	if (strcmp(mode, "setns") == 0 && a)
		return join_userns((pid_t)n, 0);
	if (strcmp(mode, "setns-pidfd") == 0 && a)
		return join_userns((pid_t)n, 1);
	if (strcmp(mode, "madvise") == 0 && b)
		return madvise_other((pid_t)n, (uintptr_t)strtoull(b, NULL, 16));
	if (strcmp(mode, "move_pages") == 0 && b)
		return query_pages((pid_t)n, (uintptr_t)strtoull(b, NULL, 16));
	if (strcmp(mode, "chdir-core") == 0 && b)
		return core_outside(a, b);
	if (strcmp(mode, "repoint") == 0 && b)
		return repoint(a, b);
	if (strncmp(mode, "mq-", 3) == 0 && a)
		return mq(mode + 3, a, b ? b : "");
	if (strcmp(mode, "self") == 0)
		return self_calls();
	if (strcmp(mode, "child-pgid") == 0)
		return child_pgid();
	if (strcmp(mode, "threads") == 0)
		return threads();
	if (strcmp(mode, "child-self") == 0)
		return in_child(self_calls);
	if (strcmp(mode, "child-pgid-dash") == 0)
		return in_child(own_group);
	if (strcmp(mode, "ioprio-get") == 0 && a)
		return ioprio_get((pid_t)n);
	fprintf(stderr, "xproc: unknown mode or missing argument '%s'\n", mode);
	return 2;
}
