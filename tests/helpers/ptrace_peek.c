/* ptrace_peek MODE [PID ADDR]: reach into another process's memory and files.
 *
 *   target            print "PID ADDR" (ADDR holds the string PTRACE-SECRET),
 *                     then sleep until killed: the victim
 *   ptrace PID ADDR   PTRACE_ATTACH + PTRACE_PEEKDATA at ADDR
 *   vm_read PID ADDR  process_vm_readv at ADDR
 *   mem PID ADDR      pread /proc/PID/mem at ADDR
 *   pidfd_getfd PID   pidfd_open + pidfd_getfd(fd 0): steal a descriptor
 *   child MODE        fork a victim of our own and run MODE against it: the
 *                     legitimate neighbour (a debugger inside the sandbox)
 *
 * Prints "MODE: ok <what was read>" and exits 0, else "MODE: <strerror>"
 * and exits 1 (2 for usage). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

static char secret[16] = "PTRACE-SECRET";
static const char *mode;

static int fail(const char *step, int e)
{
	fprintf(stderr, "%s: %s: %s\n", mode, step, strerror(e));
	return 1;
}

static int ok(const char *what)
{
	printf("%s: ok %.13s\n", mode, what);
	return 0;
}

static int by_ptrace(pid_t pid, uintptr_t addr)
{
	if (ptrace(PTRACE_ATTACH, pid, 0, 0) < 0)
		return fail("attach", errno);
	waitpid(pid, NULL, __WALL);
	errno = 0;
	long word[2];
	word[0] = ptrace(PTRACE_PEEKDATA, pid, (void *)addr, 0);
	word[1] = ptrace(PTRACE_PEEKDATA, pid, (void *)(addr + sizeof(long)), 0);
	int e = errno;
	ptrace(PTRACE_DETACH, pid, 0, 0);
	if (e)
		return fail("peek", e);
	return ok((const char *)word);
}

static int by_vm_read(pid_t pid, uintptr_t addr)
{
	char buf[16] = {0};
	struct iovec local = {buf, 15}, remote = {(void *)addr, 15};
	if (process_vm_readv(pid, &local, 1, &remote, 1, 0) < 0)
		return fail("process_vm_readv", errno);
	return ok(buf);
}

static int by_mem(pid_t pid, uintptr_t addr)
{
	char path[64], buf[16] = {0};
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return fail("open", errno);
	if (pread(fd, buf, 15, (off_t)addr) < 0)
		return fail("pread", errno);
	return ok(buf);
}

static int by_pidfd(pid_t pid)
{
	long pidfd = syscall(SYS_pidfd_open, pid, 0);
	if (pidfd < 0)
		return fail("pidfd_open", errno);
	long fd = syscall(SYS_pidfd_getfd, pidfd, 0, 0);
	if (fd < 0)
		return fail("pidfd_getfd", errno);
	return ok("got fd 0");
}

static int attack(const char *m, pid_t pid, uintptr_t addr)
{
	mode = m;
	if (strcmp(m, "ptrace") == 0)
		return by_ptrace(pid, addr);
	if (strcmp(m, "vm_read") == 0)
		return by_vm_read(pid, addr);
	if (strcmp(m, "mem") == 0)
		return by_mem(pid, addr);
	if (strcmp(m, "pidfd_getfd") == 0)
		return by_pidfd(pid);
	fprintf(stderr, "ptrace_peek: unknown mode '%s'\n", m);
	return 2;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: ptrace_peek MODE [PID ADDR]\n");
		return 2;
	}
	mode = argv[1];
	setvbuf(stdout, NULL, _IONBF, 0);
	if (strcmp(mode, "target") == 0) {
		printf("%d %p\n", (int)getpid(), (void *)secret);
		for (;;)
			pause();
	}
	if (strcmp(mode, "child") == 0 && argc > 2) {
		pid_t pid = fork();
		if (pid == 0) {
			for (;;)
				pause();
		}
		/* Yama's ptrace_scope=1 lets a parent trace its child: the same
		 * relation a debugger inside the sandbox has with its debuggee. */
		int rc = attack(argv[2], pid, (uintptr_t)secret);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return rc;
	}
	if (argc < 3)
		return 2;
	return attack(mode, (pid_t)atoi(argv[2]),
	              argc > 3 ? (uintptr_t)strtoull(argv[3], NULL, 16) : 0);
}
