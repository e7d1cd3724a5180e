/* moat shell [SHELL...]: $SHELL under one profile for the whole session. */
#include <string.h>

#include "base/path.h"
#include "cli/cli.h"
#include "launch/launch.h"

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
	struct netpolicy net;
	int net_given = cli_net_option(a, &net);
	if (net_given < 0)
		return EXIT_USAGE;
	struct error err = {0};
	struct launch l;
	int status = EXIT_MOAT_FAILED;
	if (launch_plan_session(&l, a->operands, (size_t)a->noperands, g->here, &err) == 0) {
		if (net_given)
			l.profile.net = net;
		cli_print_plan(&l, g);
		const char *shell = getenv("SHELL");
		char *cmd[4];
		shell_command(shell && shell[0] == '/' ? shell : "/bin/sh", cmd);
		status = launch_set_command(&l, cmd[0], &err) < 0 ? err.status
		                                                  : launch_enter(&l, cmd, &err);
		cli_print_protected_written(&l, g);
	}
	launch_free(&l);
	return err.msg[0] ? cli_fail(&err, status) : status;
}
