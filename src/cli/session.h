/* What moat run, moat shell and moat profile share: one profile for the
 * whole session, built from the current directory and the named shells. */
#ifndef MOAT_CLI_SESSION_H
#define MOAT_CLI_SESSION_H

#include "cli/cli.h"
#include "config/config.h"
#include "context/context.h"
#include "context/env.h"
#include "profile/profile.h"
#include "sandbox/sandbox.h"

struct session {
	struct context ctx;
	struct config cfg;
	struct profile profile;
	struct sandbox_support support;
	char *path;                     /* PATH inside: the shells' bin directories first */
	struct env_overrides overrides; /* MOAT_ENV_*, applied right before exec */
};

/* Build the session for the current directory and shells[0..n). */
int session_open(struct session *s, char **shells, int nshells, const struct global_opts *g,
                 struct error *err);
void session_close(struct session *s);

/* Confine this process and exec cmd (resolved on the session PATH). Returns
 * only on failure, with an exit status: 125 moat failed, 126 cannot run,
 * 127 not found. */
int session_exec(struct session *s, char **cmd, struct error *err);

/* Find cmd as execvp would, on path. Caller frees; NULL + err (with status
 * 126 or 127) when there is nothing to run. */
char *session_resolve_command(const char *cmd, const char *path, struct error *err);

#endif
