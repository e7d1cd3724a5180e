/* pty_session [-t SECONDS] -- CMD [ARG...]: run CMD on a new pseudo-terminal,
 * as the session leader with the terminal as its controlling terminal (what
 * a terminal emulator does for a login shell), and type into it.
 *
 * Lines on stdin are "DELAY_MS TEXT": after DELAY_MS more milliseconds, TEXT
 * and a newline are typed. A line "=MAX_MS TEXT" types nothing: it waits
 * until CMD has written TEXT (since the last such wait), or MAX_MS have
 * passed, and the delays after it count from then. So a script can type only
 * once a command has returned, however slow the machine. Everything CMD
 * writes to the terminal is copied to stdout. Exits with CMD's status, 124 on
 * timeout (default 30 s). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct keystrokes {
	long delay_ms; /* after the step before; for a wait, its longest */
	bool wait;     /* wait for text in the output instead of typing it */
	char *text;
};

/* Everything CMD has written, and how far waits have matched in it. */
static char *output;
static size_t output_len, matched;

static void remember_output(const char *buf, size_t n)
{
	char *grown = realloc(output, output_len + n);
	if (!grown)
		exit(2);
	output = grown;
	memcpy(output + output_len, buf, n);
	output_len += n;
}

/* True once TEXT is in the output past the last match, which it moves on. */
static bool written(const char *text)
{
	if (!output)
		return false;
	char *at = memmem(output + matched, output_len - matched, text, strlen(text));
	if (at)
		matched = (size_t)(at - output) + strlen(text);
	return at != NULL;
}

static long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static size_t read_script(struct keystrokes **out)
{
	size_t n = 0, cap = 0;
	char line[4096 + 1]; /* room for a newline the last line lacks */
	*out = NULL;
	while (fgets(line, sizeof(line) - 1, stdin)) {
		bool wait = line[0] == '=';
		char *end;
		long delay = strtol(line + wait, &end, 10);
		if (end == line + wait)
			continue;
		if (*end == ' ')
			end++;
		size_t len = strcspn(end, "\n");
		if (!wait)
			end[len++] = '\n'; /* typed with its newline */
		end[len] = '\0';
		if (n == cap) {
			cap = cap ? cap * 2 : 8;
			struct keystrokes *grown = realloc(*out, cap * sizeof(**out));
			if (!grown)
				exit(2);
			*out = grown;
		}
		(*out)[n].delay_ms = delay;
		(*out)[n].wait = wait;
		(*out)[n].text = strdup(end);
		n++;
	}
	return n;
}

static void child(int master, char **cmd)
{
	if (setsid() < 0) {
		perror("setsid");
		_exit(126);
	}
	int slave = open(ptsname(master), O_RDWR);
	if (slave < 0 || ioctl(slave, TIOCSCTTY, 0) < 0) {
		perror("pty slave");
		_exit(126);
	}
	struct winsize ws = {.ws_row = 24, .ws_col = 80};
	ioctl(slave, TIOCSWINSZ, &ws);
	dup2(slave, 0);
	dup2(slave, 1);
	dup2(slave, 2);
	if (slave > 2)
		close(slave);
	close(master);
	execvp(cmd[0], cmd);
	perror(cmd[0]);
	_exit(127);
}

int main(int argc, char **argv)
{
	int timeout = 30, i = 1;
	if (i + 1 < argc && strcmp(argv[i], "-t") == 0) {
		timeout = atoi(argv[i + 1]);
		i += 2;
	}
	if (i < argc && strcmp(argv[i], "--") == 0)
		i++;
	if (i >= argc) {
		fprintf(stderr, "usage: pty_session [-t SECONDS] -- CMD [ARG...] <script\n");
		return 2;
	}
	struct keystrokes *keys;
	size_t nkeys = read_script(&keys), next = 0;
	int master = posix_openpt(O_RDWR | O_NOCTTY);
	if (master < 0 || grantpt(master) < 0 || unlockpt(master) < 0) {
		perror("posix_openpt");
		return 2;
	}
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0)
		return 2;
	if (pid == 0)
		child(master, argv + i);

	long t = now_ms(), deadline = t + timeout * 1000L;
	long step_start = t; /* when the step before the next one ended */
	int status = -1;
	for (;;) {
		t = now_ms();
		while (next < nkeys) {
			struct keystrokes *k = &keys[next];
			bool due = t - step_start >= k->delay_ms;
			/* Not yet: a key before its time, a wait before its text
			 * or its time. */
			if (!due && (!k->wait || !written(k->text)))
				break;
			if (!k->wait && write(master, k->text, strlen(k->text)) < 0)
				break;
			/* A typed step ends when it was due, so that delays add up
			 * as written; a wait when it saw its text. */
			step_start = k->wait ? t : step_start + k->delay_ms;
			next++;
		}
		if (t > deadline) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			return 124;
		}
		struct pollfd p = {.fd = master, .events = POLLIN};
		if (poll(&p, 1, 20) > 0) {
			char buf[4096];
			ssize_t r = read(master, buf, sizeof(buf));
			if (r > 0) {
				remember_output(buf, (size_t)r);
				fwrite(buf, 1, (size_t)r, stdout);
				fflush(stdout);
			} else if (r < 0 && errno != EINTR && errno != EAGAIN && status >= 0) {
				break; /* EIO: the last holder of the terminal is gone */
			}
		}
		if (status < 0) {
			int st;
			if (waitpid(pid, &st, WNOHANG) == pid)
				status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		}
		if (status >= 0 && !(p.revents & POLLIN))
			break;
	}
	return status;
}
