/* The pseudo-terminal between a session and the user's terminal, as sudo's
 * use_pty: the sandbox gets a terminal of its own, so nothing it leaves
 * behind can take the user's (read what they type next, push keystrokes
 * into it, join its foreground job), while everything a terminal does
 * (raw mode, window size, Ctrl-C, Ctrl-Z, job control) still works.
 * launch/ internal. */
#ifndef MOAT_LAUNCH_RELAY_H
#define MOAT_LAUNCH_RELAY_H

#include <stdbool.h>
#include <sys/types.h>
#include <termios.h>

#include "base/util.h"

struct relay {
	int master, slave; /* -1 when no standard descriptor is a terminal */
	char *slave_path;
	bool on_slave[3]; /* which of stdin, stdout, stderr the tool gets the slave for */
	int user_in;      /* the user's terminal to read keystrokes from, or -1 */
	int user_out;     /* the user's terminal to show the tool's output on */
	int user_tty;     /* one of them, for modes and window size */
	struct termios saved;
	bool raw;           /* the user's terminal is in raw mode now */
	char pending[4096]; /* keystrokes not yet taken by the pseudo-terminal */
	size_t npending;
	/* The tool's output showed a permission error, the way a refusal by
	 * the sandbox surfaces (moat run's --trace hint follows only then). */
	bool saw_refusal;
	char tail[15]; /* the last bytes shown, for words split between reads */
	size_t ntail;
	int wake_fd; /* readable, it ends relay_until_event too; -1 for none */
};

/* A pseudo-terminal like the user's (modes, window size), when any of
 * stdin, stdout and stderr is a terminal and own_pty says to make one.
 * Without, the relay only waits and passes signals on. */
int relay_open(struct relay *r, bool own_pty, struct error *err);

/* In the session's supervisor: a session of its own, whose controlling
 * terminal is the slave. The tool runs in a process group of that session
 * (not a session of its own): a group whose parent lies outside its session
 * is orphaned, and the kernel drops ^Z and every stop signal to it. */
int relay_take_terminal(struct relay *r);

/* In the tool's process: a process group of its own in the foreground of
 * the slave, and the slave as its stdin/stdout/stderr where those were the
 * user's terminal. The supervisor makes the tool's group the foreground
 * too (relay_foreground), so neither waits on the other. */
int relay_attach(struct relay *r);
void relay_foreground(struct relay *r, pid_t tool);

/* Relay until events_fd (the session's messages, launch/run.c) is readable
 * or closed (true), or r->wake_fd is readable (false: a hosts session's
 * first connection waits on it). Signals sent to moat are passed on to
 * session_pid. Works without a pseudo-terminal too (r->master == -1): then
 * it only waits and passes signals on. */
bool relay_until_event(struct relay *r, int events_fd, pid_t session_pid);

/* The tool stopped (Ctrl-Z): give the user's terminal back, stop moat the
 * same way, and once continued take the terminal again. */
void relay_suspend(struct relay *r, int sig);

/* What the tool wrote before it ended, then the user's terminal as it was. */
void relay_finish(struct relay *r);

#endif
