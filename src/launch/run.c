/* A session (moat run, moat shell) as three processes:
 *
 *   moat            unconfined: relays the terminal, passes signals on,
 *                   and ends as the tool ended (its status, or its signal)
 *    `- supervisor  the session's first process: PID 1 of its own PID
 *                   namespace where the kernel allows, in its own mount and
 *                   IPC namespaces; makes the private mounts, starts the
 *                   tool, reaps, reports the tool's stops and its end.
 *                   Unconfined but unreachable: the tool cannot signal PID 1
 *                   of its namespace, and Landlock keeps it from tracing a
 *                   process outside its domain.
 *        `- tool    its own session on the sandbox's pseudo-terminal,
 *                   confined right before exec (launch_exec)
 *
 * When the tool ends, the supervisor kills and reaps everything the tool
 * left behind, reports, and (isolated) exits once moat has, else at once.
 * moat returns on that report, without waiting for the exit: PID 1's
 * exit tears the mount namespace down, which waits for an expedited RCU
 * grace period (some 70 us on a 2-core VM), and nothing of the tool's is
 * left by then (the namespaces themselves are, until the supervisor's
 * exit has run, some 100-300 us after moat's). The supervisor waits for
 * moat to go first so that the memory they share is torn down by its
 * exit, after moat has returned, and not by moat's: about 200 us of every
 * session on a paravirtualized guest, where the host shadows each page
 * table. (moat runs one session, so nothing else takes the supervisor's
 * stack meanwhile.)
 *
 * Isolated, the supervisor shares moat's memory (sandbox_spawn), and the
 * tool's process the supervisor's until it execs (vfork): nothing is
 * copied only to be dropped. So they take turns: moat waits, signals held,
 * until the supervisor says the tool runs ('R'); from then on the
 * supervisor keeps to descriptors of its own and quiet calls. What the
 * tool's process set before exec stays in moat's memory: its environment
 * (setenv), of which moat reads only the locale afterwards, to print the
 * names in its warnings, escaped either way. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/platform.h"
#include "launch/launch.h"
#include "launch/lockwatch.h"
#include "launch/plan.h"
#include "launch/plantwatch.h"
#include "launch/proxy.h"
#include "launch/relay.h"

/* What the supervisor tells moat. */
struct event {
	char kind; /* 'R' the tool runs, 'S' it stopped (value: the signal), 'X'
	            * it ended (value: its wait status), 'E' moat failed (an
	            * error follows) */
	int value;
};

struct channels {
	int events[2];  /* supervisor and tool -> moat */
	int control[2]; /* moat -> supervisor: 'c' continue the stopped tool */
};

/* An event and its error, if any, in one write: a process killed between
 * two writes would leave moat waiting for the rest of a message while the
 * supervisor, having reported the end, waits for moat. One write into a
 * pipe with room for it is never cut short. If it fails, moat is gone:
 * nobody to tell. */
static void send_event(int fd, char kind, int value, const struct error *err)
{
	struct {
		struct event e;
		struct error err; /* copied only when sent: no 4 KB cleared a turn */
	} m;
	_Static_assert(sizeof(m) == sizeof(struct event) + sizeof(struct error),
	               "moat reads the event, then the error, with nothing between");
	m.e = (struct event){kind, value};
	if (err)
		m.err = *err;
	platform_quiet_write(fd, &m, err ? sizeof(m) : sizeof(m.e));
}

/* In the tool's process: a session of its own on the sandbox's terminal,
 * then the same confinement and exec as every other launch. It runs in the
 * supervisor's memory (vfork), so what the supervisor reads later stays
 * untouched: the relay attached is a copy. */
static void start_tool(struct launch *l, const struct relay *r, char **argv, int events)
{
	struct error err = {0};
	struct relay own = *r;
	if (relay_attach(&own) < 0) {
		error_errno(&err, "cannot give the sandbox its own terminal");
		send_event(events, 'E', EXIT_MOAT_FAILED, &err);
		_exit(EXIT_MOAT_FAILED);
	}
	int status = launch_exec(l, argv, &err);
	send_event(events, 'E', status, &err);
	_exit(status);
}

static int supervisor_signal_pipe[2] = {-1, -1};

static void on_supervisor_signal(int sig)
{
	unsigned char c = (unsigned char)sig;
	/* Full: SIGCHLD is level-triggered by waitpid anyway. */
	platform_quiet_write(supervisor_signal_pipe[1], &c, 1);
}

static void catch_supervisor_signals(void)
{
	static const int sigs[] = {SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};
	if (platform_pipe_cloexec(supervisor_signal_pipe) < 0)
		return;
	/* Drained until empty, so never blocking. */
	fcntl(supervisor_signal_pipe[0], F_SETFL, O_NONBLOCK);
	fcntl(supervisor_signal_pipe[1], F_SETFL, O_NONBLOCK);
	struct sigaction sa = {.sa_handler = on_supervisor_signal};
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < ARRAY_LEN(sigs); i++)
		sigaction(sigs[i], &sa, NULL);
}

/* Reap everything; true once the tool itself has ended (*status). */
static bool reap(pid_t tool, int events, int *status)
{
	int st;
	long pid;
	while ((pid = platform_quiet_wait(-1, &st, WNOHANG | WUNTRACED)) > 0) {
		if (pid != tool)
			continue;
		if (WIFSTOPPED(st)) {
			send_event(events, 'S', WSTOPSIG(st), NULL);
			continue;
		}
		*status = st;
		return true;
	}
	return false;
}

/* The supervisor's loop: wait for the tool, pass signals and "continue" on
 * to its process group. Returns the tool's wait status. */
static int supervise(pid_t tool, int events, int control)
{
	int status = 0;
	int signals = supervisor_signal_pipe[0];
	for (;;) {
		struct pollfd p[2] = {{.fd = signals, .events = POLLIN},
		                      {.fd = control, .events = POLLIN}};
		long n = platform_quiet_poll(p, 2);
		if (n < 0 && n != -EINTR)
			break;
		unsigned char sig;
		while ((p[0].revents & POLLIN) && platform_quiet_read(signals, &sig, 1) == 1)
			if (sig != SIGCHLD && platform_quiet_kill(-tool, sig) < 0)
				platform_quiet_kill(tool, sig);
		if (reap(tool, events, &status))
			return status;
		char c;
		if ((p[1].revents & (POLLIN | POLLHUP)) &&
		    platform_quiet_read(control, &c, 1) != 1) {
			/* moat is gone: so is the session */
			platform_quiet_kill(-tool, SIGKILL);
			platform_quiet_kill(tool, SIGKILL);
			control = -1;
		} else if (p[1].revents & POLLIN) {
			platform_quiet_kill(-tool, SIGCONT);
		}
	}
	return status;
}

/* PID 1 of the session's namespace: everything else in it, down to the
 * last process, killed and reaped. A fork racing the kill fails (the
 * kernel refuses a fork while a fatal signal is pending), and orphans
 * come to PID 1 to be reaped, so when wait has no child left, the
 * namespace holds nothing but the supervisor. That is also how most
 * sessions end, with the tool reaped and nothing left: then there is no
 * kill(-1) at all, which walks every process on the system (25 us a
 * session here). __WALL: a child cloned with no exit signal is reaped
 * too. Anywhere but as PID 1, kill(-1) would reach every process of the
 * user: never. */
#ifndef __WALL
#define __WALL 0 /* not Linux: no namespace, never called */
#endif
static void end_namespace(void)
{
	int st;
	if (getpid() != 1 || platform_quiet_wait(-1, &st, __WALL | WNOHANG) == -ECHILD)
		return;
	platform_quiet_kill(-1, SIGKILL);
	long r;
	while ((r = platform_quiet_wait(-1, &st, __WALL)) > 0 || r == -EINTR)
		;
}

/* SIGKILL to each child of ours, as /proc lists them: how many are still
 * there, or -1 when the list cannot be read. */
static int kill_children(void)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/task/%d/children", (int)getpid());
	cleanup_free char *buf = NULL;
	size_t len;
	struct error ignored;
	if (fs_read_file(path, 1 << 16, &buf, &len, &ignored) < 0)
		return -1;
	int n = 0;
	for (char *p = buf, *end; *p; p = end) {
		long pid = strtol(p, &end, 10);
		if (end == p)
			break; /* not a pid list: stop rather than spin */
		if (pid > 0)
			n += kill((pid_t)pid, SIGKILL) == 0 || errno != ESRCH;
	}
	return n;
}

/* Without a PID namespace nothing kills what the tool left behind when the
 * supervisor ends. As the subreaper of everything the tool started, the
 * supervisor kills its children and reaps, round after round: a grandchild
 * whose parent was alive at one kill comes to it when that parent dies,
 * and is killed in the next round. No child left (ECHILD) means no
 * descendant left, as an orphan below it can only come to it. moat runs
 * its end check (plantwatch_end) after this, so nothing is left to plant
 * after the check. */
static void kill_leftovers(void)
{
	for (;;) {
		int killed = kill_children();
		if (killed < 0)
			return;
		/* Nothing listed: only an orphan that came since, or none; look
		 * again rather than wait for one that may never end. */
		int st;
		if (waitpid(-1, &st, __WALL | (killed ? 0 : WNOHANG)) < 0 && errno != EINTR)
			return; /* ECHILD: nothing is left */
	}
}

/* The caller's stdin, stdout and stderr, let go before the report that
 * lets moat return: `$(moat run ...)` and a pipeline wait for their end
 * of file, which moat's exit then gives, not the supervisor's after it. */
static void let_go_of_caller(void)
{
	for (int fd = 0; fd <= 2; fd++)
		platform_quiet_close(fd);
}

/* Until moat has exited: its end of the events pipe closes then (moat
 * keeps it open until its exit for this, follow), which the pipe's
 * writer learns as POLLERR. Asked for no event, poll returns on that
 * alone (or POLLNVAL, or an error): no timeout, nothing to spin on. */
static void outlast_moat(int events)
{
	struct pollfd p = {.fd = events, .events = 0};
	while (platform_quiet_poll(&p, 1) == -EINTR)
		;
}

/* The session's network: for off and hosts, a namespace of its own; for
 * hosts, a socket made inside it for moat's proxy (struct proxy_slot),
 * sent to moat on the proxy's channel. Without the namespace moat gets
 * nothing and starts no proxy, and the port stays 0: sandbox_apply then
 * refuses the hosts policy. */
static void start_network(struct launch *l, int proxy)
{
	struct profile *p = &l->profile;
	sandbox_own_network(p);
	if (proxy < 0)
		return;
	if (p->net_own_ns)
		p->net_proxy_port = proxy_hand_listener(proxy);
	else
		close(proxy);
}

struct supervisor_args {
	struct launch *l;
	struct relay *r;
	char **argv;
	const bool *isolated;
	const struct channels *ch;
	int proxy; /* a hosts session's channel to its proxy, or -1 */
};

/* What it reads of moat's memory, it reads before 'R'. */
static int supervisor(void *data)
{
	const struct supervisor_args *a = data;
	struct launch *l = a->l;
	struct relay *r = a->r;
	const struct channels *ch = a->ch;
	bool isolated = *a->isolated;
	int events = ch->events[1], control = ch->control[0];
	close(ch->events[0]);
	close(ch->control[1]);
	if (r->user_in > 2)
		close(r->user_in); /* the user's terminal is moat's to read, not the sandbox's */
	struct error err = {0};
	/* The root as the mounts find it, looked up before them: the tool's
	 * rule for the root comes from this descriptor, and the tool checks
	 * that the path still names it (launch_exec), so that a root swapped
	 * for another directory while the session starts cannot leave the
	 * mounts on one tree and the grant on the other. */
	int root_fd = platform_open_path_no_symlinks("/", l->ctx.root[1] ? l->ctx.root + 1 : ".");
	start_network(l, a->proxy);
	int mounts = sandbox_private_mounts(&l->profile, isolated, &err);
	if (mounts < 0) {
		send_event(events, 'E', EXIT_MOAT_FAILED, &err);
		_exit(EXIT_MOAT_FAILED);
	}
	/* Nested, the outer session keeps its own root's paths read-only:
	 * the warning names only those it left writable. Allowed to start
	 * without namespaces (session_run), a session whose mount namespace
	 * is then refused for another cause is judged again. */
	int refused = errno;
	if (mounts > 0 && launch_check_unisolated(l, refused, &err) < 0) {
		send_event(events, 'E', EXIT_MOAT_FAILED, &err);
		_exit(EXIT_MOAT_FAILED);
	}
	if (mounts > 0)
		launch_warn_unprotected(l, refused);
	if (!isolated)
		platform_become_subreaper();
	if (relay_take_terminal(r) < 0) {
		error_errno(&err, "cannot give the sandbox its own terminal");
		send_event(events, 'E', EXIT_MOAT_FAILED, &err);
		_exit(EXIT_MOAT_FAILED);
	}
	catch_supervisor_signals();
	/* moat waits until 'R': the descriptor is the tool's until it execs,
	 * and moat's context never sees it. */
	l->ctx.root_fd = root_fd;
	/* vfork, not fork: the supervisor waits until the tool has exec'd
	 * anyway, and copying its memory only to drop it at exec cost an
	 * eighth of moat run's overhead (bench/timeit, on a machine where
	 * every page fault is a hypervisor trip). */
	pid_t tool = vfork();
	if (tool == 0) {
		close(control);
		start_tool(l, r, a->argv, events);
	}
	platform_cpu_release();
	l->ctx.root_fd = -1;
	if (root_fd >= 0)
		close(root_fd);
	/* The grants' descriptors were the tool's rules; l is read, not
	 * changed: moat closes its own copies (session_run). */
	context_close_held_fds(&l->ctx);
	if (tool > 0)
		relay_foreground(r, tool);
	/* The terminal is the tool's now: held here, it would keep the
	 * pseudo-terminal open after everything in the sandbox has exited. */
	if (r->slave >= 0)
		close(r->slave), close(r->master);
	if (tool < 0) {
		error_errno(&err, "cannot start the tool");
		send_event(events, 'E', EXIT_MOAT_FAILED, &err);
		_exit(EXIT_MOAT_FAILED);
	}
	send_event(events, 'R', 0, NULL);
	int status = supervise(tool, events, control);
	if (isolated) {
		end_namespace();
		let_go_of_caller();
	} else {
		kill_leftovers(); /* forked, so free to use libc */
	}
	send_event(events, 'X', status, NULL);
	if (isolated)
		outlast_moat(events);
	_exit(0);
}

/* The tool died of a signal: so does moat, as its caller would have seen
 * without moat (a shell prints "Segmentation fault", $? is 128+N). */
static void die_as(int sig)
{
	struct rlimit no_core = {0, 0};
	setrlimit(RLIMIT_CORE, &no_core); /* the tool's core, if any, is the tool's */
	signal(sig, SIG_DFL);
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
}

static void resume(const struct channels *ch)
{
	if (write(ch->control[1], "c", 1) < 0) {
		/* the supervisor is gone; its end is on the way */
	}
}

/* Until the tool runs, the supervisor (isolated: in moat's memory) has
 * moat to itself: moat waits for its first word ('R', 'E', or its end)
 * with every signal held, so that not even a handler runs meanwhile. */
static void wait_for_start(int events)
{
	sigset_t all, old;
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	struct pollfd p = {.fd = events, .events = POLLIN};
	while (poll(&p, 1, -1) < 0 && errno == EINTR)
		;
	sigprocmask(SIG_SETMASK, &old, NULL);
}

/* All n bytes of a message part, or false at the pipe's end: a read cut
 * short (a signal: a resize, ^C) is taken up again, never mistaken for
 * the next event. */
static bool read_whole(int fd, void *buf, size_t n)
{
	char *p = buf;
	while (n) {
		ssize_t got = read(fd, p, n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return false;
		p += got;
		n -= (size_t)got;
	}
	return true;
}

static void close_events(struct channels *ch)
{
	if (ch->events[0] >= 0)
		close(ch->events[0]);
	ch->events[0] = -1;
}

/* A hosts session's proxy (launch/proxy.h), forked by moat at the tool's
 * first connection: until then the kernel queues it on the listener, which
 * moat watches (relay_until_event's wake_fd). A session that connects
 * nowhere forks none (on a machine where a fork costs a millisecond, that
 * was most of what a hosts session added to `moat run`). In the host's
 * network, outside the session's PID namespace, so the tool can neither
 * see nor signal it; killed at the session's end, not waited for (on a
 * loaded machine, waiting for one more process to be scheduled and torn
 * down cost about 10 ms a session): init reaps it. */
struct proxy_slot {
	const struct launch *l;
	int listener; /* moat's copy, until the proxy is forked; else -1 */
	pid_t pid;    /* the proxy, or -1 */
};

static void fork_proxy(struct proxy_slot *px, struct relay *r)
{
	const struct launch *l = px->l;
	proxy_start(&l->profile.net, l->net_log_fd > 0 ? l->net_log_fd : -1, px->listener,
	            &px->pid);
	close(px->listener);
	px->listener = r->wake_fd = -1;
}

static void end_proxy(struct proxy_slot *px)
{
	if (px->listener >= 0)
		close(px->listener);
	if (px->pid <= 0)
		return;
	kill(px->pid, SIGKILL);
	waitpid(px->pid, NULL, WNOHANG);
}

/* moat's side: relay and wait for the supervisor's events. */
static int follow(struct relay *r, pid_t pid, bool isolated, struct channels *ch,
                  struct proxy_slot *px, struct error *err)
{
	int wstatus = -1;
	while (wstatus < 0) {
		if (!relay_until_event(r, ch->events[0], pid)) {
			fork_proxy(px, r);
			continue;
		}
		struct event e;
		struct error sent; /* taken only whole */
		if (!read_whole(ch->events[0], &e, sizeof(e)))
			break;
		if (e.kind == 'E' && read_whole(ch->events[0], &sent, sizeof(sent)))
			*err = sent, err->status = e.value;
		else if (e.kind == 'S' && r->master >= 0)
			relay_suspend(r, e.value), resume(ch); /* once the user continues moat */
		else if (e.kind == 'X')
			wstatus = e.value;
	}
	relay_finish(r);
	/* Isolated, the tool's end ('X') comes once the namespace is empty,
	 * and the supervisor then waits for moat to exit (outlast_moat): our
	 * end of the events pipe stays open until then, and the supervisor is
	 * left running (init's, or a subreaper's, once moat has exited).
	 * Otherwise it is waited for; isolated, with that end closed first,
	 * as a supervisor waiting to outlast moat would wait for this wait. */
	bool outlasts = isolated && wstatus >= 0;
	if (isolated && !outlasts)
		close_events(ch);
	while (waitpid(pid, NULL, outlasts ? WNOHANG : 0) < 0 && errno == EINTR)
		;
	if (!outlasts)
		close_events(ch);
	if (err->msg[0])
		return err->status ? err->status : EXIT_MOAT_FAILED;
	if (wstatus < 0) {
		error_set(err, "the sandbox's supervisor ended unexpectedly");
		return err->status = EXIT_MOAT_FAILED;
	}
	if (WIFSIGNALED(wstatus))
		die_as(WTERMSIG(wstatus));
	return WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
}

/* The supervisor in a world of its own or, where the kernel refuses that
 * and launch_check_unisolated lets it go on without, a plain child:
 * -1 with err when it does not. *refused: the kernel's refusal, or 0. */
static pid_t spawn_supervisor(struct launch *l, struct supervisor_args *args, bool *isolated,
                              int *refused, struct error *err)
{
	*refused = 0;
	pid_t pid = sandbox_spawn(l->profile.isolate, isolated, supervisor, args);
	if (pid >= 0 || !l->profile.isolate)
		return pid;
	*refused = errno;
	if (launch_check_unisolated(l, *refused, err) < 0)
		return -1;
	return sandbox_spawn(false, isolated, supervisor, args);
}

/* The warning where Landlock cannot keep a session without a PID
 * namespace from signalling the user's other processes. */
static void warn_no_pid_namespace(const struct launch *l, int refused)
{
	if (l->support.abi >= 6 || !l->print_warnings)
		return;
	cleanup_free char *why = l->nested ? xstrdup("nested in a session")
	                         : refused
	                             ? xasprintf("the kernel refused it: %s", strerror(refused))
	                             : xstrdup("this system has none");
	cleanup_free char *msg =
	    xasprintf("this session has no PID namespace of its own (%s): on this kernel's "
	              "Landlock ABI it can signal your other processes\n",
	              why);
	l->print_warnings(msg);
}

/* A descriptor to a file outside would be a hole Landlock cannot close:
 * all from 3 up go, but the grants' held ones (the rules of the tool,
 * made before its exec) and the proxy's record of refusals, all
 * close-on-exec: the tool never has them. Where the held ones were not
 * opened in order, they go too (their rules look their paths up), and the
 * record is kept as 3. */
static void close_inherited(struct launch *l)
{
	if (context_close_unheld(&l->ctx, 3, l->net_log_fd > 0 ? l->net_log_fd : -1))
		return;
	launch_close_held(l);
	if (l->net_log_fd > 0 && l->net_log_fd != 3)
		/* dup2 and then FD_CLOEXEC, not Linux's dup3: this file builds
		 * for macOS too. */
		l->net_log_fd =
		    dup2(l->net_log_fd, 3) == 3 && fcntl(3, F_SETFD, FD_CLOEXEC) == 0 ? 3 : 0;
	platform_close_from(l->net_log_fd > 0 ? 4 : 3);
}

int session_run(struct launch *l, char **argv, struct error *err)
{
	close_inherited(l);
	int tmp_held = launch_hold_tmpdir(l);
	int proxy[2] = {-1, -1};
	if (l->profile.net.level == NET_HOSTS)
		proxy_channel(proxy);
	struct relay r;
	struct channels ch;
	/* Nested, the terminal is the outer session's pseudo-terminal already,
	 * and its sandbox refuses a new one's slave: the tool keeps it. */
	if (relay_open(&r, !l->nested, err) < 0 || platform_pipe_cloexec(ch.events) < 0 ||
	    platform_pipe_cloexec(ch.control) < 0) {
		if (!err->msg[0])
			error_errno(err, "cannot start the session");
		relay_finish(&r);
		if (tmp_held >= 0)
			close(tmp_held);
		return EXIT_MOAT_FAILED;
	}
	if (r.slave_path)
		profile_add_rule(&l->profile, r.slave_path, ACCESS_RW | ACCESS_IOCTL,
		                 ORIGIN_TERMINAL, NULL);
	struct plantwatch watch;
	plantwatch_start(&watch, &l->profile);
	struct lockwatch locks;
	lockwatch_start(&locks, &l->profile);
	bool isolated = false;
	int refused;
	struct supervisor_args args = {l, &r, argv, &isolated, &ch, proxy[0]};
	/* moat waits for the supervisor, the supervisor for the tool's process
	 * (vfork), which runs until its exec: one runs at a time, so they run
	 * on this CPU rather than each on a fresh one (platform_cpu_hold). Each
	 * gives the CPUs back once its part is done, the tool's process right
	 * before its exec (launch_exec). */
	platform_cpu_hold();
	pid_t pid = spawn_supervisor(l, &args, &isolated, &refused, err);
	int spawn_errno = errno;
	close(ch.events[1]);
	close(ch.control[0]);
	if (proxy[0] >= 0)
		close(proxy[0]); /* the supervisor's copy is the one it sends on */
	if (pid > 0)
		wait_for_start(ch.events[0]);
	launch_close_held(l);
	platform_cpu_release();
	struct proxy_slot px = {l, -1, -1};
	if (proxy[1] >= 0)
		px.listener = r.wake_fd =
		    pid > 0 ? proxy_take_listener(proxy[1]) : (close(proxy[1]), -1);
	if (pid > 0 && isolated)
		launch_namespaces_worked(l);
	else if (pid > 0)
		warn_no_pid_namespace(l, refused);
	int status = EXIT_MOAT_FAILED;
	if (pid < 0) {
		if (!err->msg[0])
			error_set(err, "cannot start the session: %s", strerror(spawn_errno));
		relay_finish(&r);
	} else {
		/* It closes events[0], or leaves it to moat's exit. */
		status = follow(&r, pid, isolated, &ch, &px, err);
		l->saw_refusal = r.saw_refusal;
		close(ch.control[1]);
	}
	end_proxy(&px);
	lockwatch_end(&locks, &l->profile, &l->protected_written);
	struct strbuf planted = STRBUF_INIT;
	plantwatch_end(&watch, &planted);
	if (planted.len && l->print_warnings)
		l->print_warnings(planted.buf);
	sb_release(&planted);
	if (tmp_held >= 0)
		close(tmp_held);
	return status;
}
