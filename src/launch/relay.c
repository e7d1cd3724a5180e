#include "launch/relay.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "base/platform.h"

/* Signals reach the loop through a pipe: a handler only writes one byte. */
static int signal_pipe[2] = {-1, -1};

/* Without libc's errno: an isolated session's supervisor shares moat's
 * memory until the tool runs, and this handler may interrupt it there. */
static void on_signal(int sig)
{
	unsigned char c = (unsigned char)sig;
	/* Full: the loop is behind anyway. */
	platform_quiet_write(signal_pipe[1], &c, 1);
}

static const int relayed_signals[] = {SIGWINCH, SIGINT,  SIGTERM, SIGHUP,
                                      SIGQUIT,  SIGCONT, SIGUSR1, SIGUSR2};

static void catch_signals(void)
{
	if (signal_pipe[0] < 0 && platform_pipe_cloexec(signal_pipe) == 0) {
		fcntl(signal_pipe[0], F_SETFL, O_NONBLOCK);
		fcntl(signal_pipe[1], F_SETFL, O_NONBLOCK);
	}
	struct sigaction sa = {.sa_handler = on_signal};
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < ARRAY_LEN(relayed_signals); i++)
		sigaction(relayed_signals[i], &sa, NULL);
}

static bool is_foreground(int tty)
{
	return tcgetpgrp(tty) == getpgrp();
}

static void copy_window_size(const struct relay *r)
{
	struct winsize ws;
	if (ioctl(r->user_tty, TIOCGWINSZ, &ws) == 0)
		ioctl(r->master, TIOCSWINSZ, &ws);
}

/* Raw mode: every keystroke, Ctrl-C included, goes to the pseudo-terminal,
 * whose own line discipline (a copy of the user's modes) then acts on it. */
static void enter_raw(struct relay *r)
{
	if (r->raw || r->user_in < 0 || !is_foreground(r->user_in))
		return;
	struct termios t = r->saved;
	cfmakeraw(&t);
	t.c_cc[VMIN] = 1;
	t.c_cc[VTIME] = 0;
	r->raw = tcsetattr(r->user_in, TCSADRAIN, &t) == 0;
}

static void leave_raw(struct relay *r)
{
	if (r->raw)
		tcsetattr(r->user_in, TCSADRAIN, &r->saved);
	r->raw = false;
}

int relay_open(struct relay *r, bool own_pty, struct error *err)
{
	*r = (struct relay){.master = -1,
	                    .slave = -1,
	                    .user_in = -1,
	                    .user_out = -1,
	                    .user_tty = -1,
	                    .wake_fd = -1};
	for (int fd = 0; fd <= 2 && own_pty; fd++) {
		r->on_slave[fd] = isatty(fd);
		if (r->on_slave[fd] && r->user_tty < 0)
			r->user_tty = fd;
	}
	catch_signals();
	if (r->user_tty < 0)
		return 0;
	const char *tty = r->on_slave[0] ? NULL : ttyname(r->user_tty);
	r->user_in = r->on_slave[0] ? 0 : tty ? open(tty, O_RDONLY | O_NOCTTY | O_CLOEXEC) : -1;
	r->user_out = r->on_slave[1] ? 1 : r->on_slave[2] ? 2 : r->user_tty;
	r->master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	const char *name = r->master >= 0 && grantpt(r->master) == 0 && unlockpt(r->master) == 0
	                       ? ptsname(r->master)
	                       : NULL;
	if (!name)
		return error_errno(err, "cannot make a pseudo-terminal for the sandbox");
	r->slave_path = xstrdup(name);
	r->slave = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (r->slave < 0)
		return error_errno(err, "cannot open '%s'", name);
	if (tcgetattr(r->user_tty, &r->saved) == 0)
		tcsetattr(r->slave, TCSANOW, &r->saved);
	copy_window_size(r);
	fcntl(r->master, F_SETFL, O_NONBLOCK);
	return 0;
}

int relay_take_terminal(struct relay *r)
{
	if (setsid() < 0)
		return -1;
	return r->slave < 0 ? 0 : ioctl(r->slave, TIOCSCTTY, 0);
}

void relay_foreground(struct relay *r, pid_t tool)
{
	setpgid(tool, tool);
	if (r->slave < 0)
		return;
	/* From a process not in the foreground this stops it (SIGTTOU). */
	struct sigaction ign = {.sa_handler = SIG_IGN}, old;
	sigemptyset(&ign.sa_mask);
	sigaction(SIGTTOU, &ign, &old);
	tcsetpgrp(r->slave, tool);
	sigaction(SIGTTOU, &old, NULL);
}

int relay_attach(struct relay *r)
{
	relay_foreground(r, getpid());
	if (r->slave < 0)
		return 0;
	for (int fd = 0; fd <= 2; fd++)
		if (r->on_slave[fd] && dup2(r->slave, fd) < 0)
			return -1;
	close(r->slave);
	close(r->master);
	r->slave = r->master = -1;
	return 0;
}

static bool write_all(int fd, const char *buf, size_t n)
{
	while (n) {
		ssize_t w = write(fd, buf, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EAGAIN) {
			struct pollfd p = {.fd = fd, .events = POLLOUT};
			poll(&p, 1, -1);
			continue;
		}
		if (w <= 0)
			return false;
		buf += w;
		n -= (size_t)w;
	}
	return true;
}

/* What the errors of a refusal (EACCES, EPERM) print as: strerror's words
 * and the names runtimes show. None is longer than relay.tail plus one. */
static const char *const refusal_words[] = {"ermission denied", "ot permitted", "EACCES", "EPERM"};

static bool holds_refusal(const char *s, size_t n)
{
	for (size_t i = 0; i < ARRAY_LEN(refusal_words); i++)
		if (memmem(s, n, refusal_words[i], strlen(refusal_words[i])))
			return true;
	return false;
}

/* Look for a refusal's words in what the tool wrote, across reads: the
 * last bytes of one read are looked at again with the next one's first. */
static void watch_refusals(struct relay *r, const char *buf, size_t n)
{
	enum { KEEP = sizeof(r->tail) };
	char edge[2 * KEEP];
	size_t head = n < KEEP ? n : KEEP;
	memcpy(edge, r->tail, r->ntail);
	memcpy(edge + r->ntail, buf, head);
	r->saw_refusal = holds_refusal(edge, r->ntail + head) || holds_refusal(buf, n);
	/* The next tail: the last KEEP bytes of buf, or of edge when buf is
	 * shorter (edge then holds all of it, after the old tail). */
	size_t nedge = r->ntail + head;
	r->ntail = nedge < KEEP ? nedge : KEEP;
	memcpy(r->tail, n >= KEEP ? buf + n - KEEP : edge + nedge - r->ntail, r->ntail);
}

/* The tool's output to the user's terminal. False once the slave side is
 * gone (every process holding it has exited). */
static bool pump_output(struct relay *r)
{
	char buf[16384];
	ssize_t n = read(r->master, buf, sizeof(buf));
	if (n > 0) {
		write_all(r->user_out, buf, (size_t)n);
		if (!r->saw_refusal)
			watch_refusals(r, buf, (size_t)n);
		return true;
	}
	return n < 0 && (errno == EAGAIN || errno == EINTR);
}

/* Keystrokes, held until the pseudo-terminal takes them so that a tool
 * that does not read cannot stall its own output. */
static void pump_input(struct relay *r)
{
	if (r->master < 0 || r->user_in < 0)
		return;
	if (r->npending == 0) {
		ssize_t n = read(r->user_in, r->pending, sizeof(r->pending));
		if (n > 0)
			r->npending = (size_t)n;
		else if (n == 0 || (errno != EAGAIN && errno != EINTR))
			r->user_in = -1; /* the user's terminal hung up */
		return;
	}
	ssize_t w = write(r->master, r->pending, r->npending);
	if (w > 0) {
		memmove(r->pending, r->pending + w, r->npending - (size_t)w);
		r->npending -= (size_t)w;
	}
}

static void handle_signal(struct relay *r, int sig, pid_t session_pid)
{
	if (sig == SIGWINCH && r->master >= 0) {
		copy_window_size(r);
	} else if (sig == SIGCONT) {
		/* Brought back to the foreground (fg): the terminal is ours again. */
		if (r->master >= 0) {
			enter_raw(r);
			copy_window_size(r);
		}
	} else if (sig != SIGWINCH) {
		kill(session_pid, sig);
	}
}

static void close_master(struct relay *r)
{
	if (r->master >= 0)
		close(r->master);
	r->master = -1;
}

bool relay_until_event(struct relay *r, int events_fd, pid_t session_pid)
{
	enter_raw(r);
	for (;;) {
		bool reading = r->master >= 0 && r->raw && r->user_in >= 0 && !r->npending;
		struct pollfd p[5] = {
		    {.fd = events_fd, .events = POLLIN},
		    {.fd = signal_pipe[0], .events = POLLIN},
		    {.fd = r->master, .events = POLLIN | (r->npending ? POLLOUT : 0)},
		    {.fd = reading ? r->user_in : -1, .events = POLLIN},
		    {.fd = r->wake_fd, .events = POLLIN},
		};
		if (poll(p, 5, -1) < 0 && errno != EINTR)
			return true;
		if (p[0].revents)
			return true;
		if (p[4].revents)
			return false;
		unsigned char sig;
		if (p[1].revents & POLLIN)
			while (read(signal_pipe[0], &sig, 1) == 1)
				handle_signal(r, sig, session_pid);
		if ((p[2].revents & (POLLIN | POLLHUP | POLLERR)) && !pump_output(r))
			close_master(r);
		if ((p[2].revents & POLLOUT) || (p[3].revents & (POLLIN | POLLHUP)))
			pump_input(r);
	}
}

void relay_suspend(struct relay *r, int sig)
{
	leave_raw(r);
	/* Stop as the tool did, so the user's shell takes the terminal back;
	 * kill() returns once the user continues us (fg). */
	kill(getpid(), sig == SIGSTOP ? SIGSTOP : SIGTSTP);
	if (r->master >= 0) {
		enter_raw(r);
		copy_window_size(r);
	}
}

void relay_finish(struct relay *r)
{
	/* The session has ended and its processes are gone or going: take what
	 * is left in the pseudo-terminal, for a moment at most. */
	while (r->master >= 0) {
		struct pollfd p = {.fd = r->master, .events = POLLIN};
		if (poll(&p, 1, 200) <= 0 || !pump_output(r))
			close_master(r);
	}
	leave_raw(r);
	if (r->slave >= 0)
		close(r->slave);
	free(r->slave_path);
	r->slave_path = NULL;
	r->slave = -1;
}
