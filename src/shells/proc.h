/* Running a helper program (nix) and collecting what it says.
 *
 * The program is started by absolute path (never looked up on PATH here:
 * the caller decides which binary it trusts), with an argv array, its stdin
 * on /dev/null and its stdout and stderr captured. Hooks see stderr as it
 * arrives and a tick while the program runs, so the caller can stream
 * progress, draw an indicator or notice trouble, without printing here. */
#ifndef MOAT_SHELLS_PROC_H
#define MOAT_SHELLS_PROC_H

#include <stdbool.h>
#include <stddef.h>

#include "base/strbuf.h"
#include "base/util.h"

struct proc_hooks {
	/* Each chunk of stderr as it is read. */
	void (*on_stderr)(const char *buf, size_t len, void *arg);
	/* Every tick_ms while the program runs, with the time since it started. */
	void (*on_tick)(unsigned elapsed_ms, void *arg);
	unsigned tick_ms; /* 0: no ticks */
	void *arg;
	char *const *env; /* the program's environment; NULL: moat's own */
};

struct proc_result {
	struct strbuf out, err;
	int status; /* exit status, or 128 + the signal that ended it */
};

/* Run exe (an absolute path) with argv (argv[0] is what the program sees as
 * its name). Returns 0 once it ran, whatever its status; -1 with err when it
 * could not be started, *start_errno then saying why (ENOENT: no such file).
 * The result is empty on failure and must be freed either way. */
int proc_run(const char *exe, const char *const *argv, const struct proc_hooks *hooks,
             struct proc_result *r, int *start_errno, struct error *err);
void proc_result_free(struct proc_result *r);

#endif
