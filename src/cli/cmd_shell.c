/* moat shell [SHELL...]: $SHELL under one profile for the whole session. */
#include <string.h>

#include "base/path.h"
#include "cli/session.h"

/* The user's rc files are outside the sandbox and unreadable there, so each
 * shell is started without them (no "Permission denied" noise) and with a
 * prompt that says it is sandboxed. */
static void shell_command(const char *shell, char **cmd)
{
	const char *name = path_basename(shell);
	int n = 0;
	cmd[n++] = (char *)shell;
	if (strcmp(name, "bash") == 0) {
		cmd[n++] = (char *)"--norc";
		cmd[n++] = (char *)"--noprofile";
		setenv("PS1", "(moat) \\w \\$ ", 1);
	} else if (strcmp(name, "zsh") == 0) {
		cmd[n++] = (char *)"-f";
		setenv("PS1", "(moat) %~ %# ", 1);
	} else if (strcmp(name, "fish") == 0) {
		cmd[n++] = (char *)"--no-config";
	} else {
		unsetenv("ENV"); /* sh, dash, ksh read $ENV when interactive */
		setenv("PS1", "(moat) $ ", 1);
	}
	cmd[n] = NULL;
}

int cmd_shell(const struct cli_args *a, const struct global_opts *g)
{
	struct error err = {0};
	struct session s;
	if (session_open(&s, a->operands, a->noperands, g, &err) < 0)
		return cli_fail(&err, EXIT_MOAT_FAILED);
	const char *shell = getenv("SHELL");
	char *cmd[4];
	shell_command(shell && shell[0] == '/' ? shell : "/bin/sh", cmd);
	s.profile.job_control = true;
	int status = session_exec(&s, cmd, &err);
	session_close(&s);
	return cli_fail(&err, status);
}
