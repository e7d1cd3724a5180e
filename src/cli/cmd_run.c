/* moat run [SHELL...] -- CMD [ARG...]: one command in the sandbox. moat
 * execs the command itself, so its exit status, signals and terminal are the
 * command's own. */
#include <string.h>

#include "cli/session.h"

int cmd_run(int argc, char **argv, const struct global_opts *g)
{
	const struct command *self = cli_command("run");
	int dashes = 0;
	for (int i = 1; i < argc && !dashes; i++) {
		if (strcmp(argv[i], "--") == 0)
			dashes = i;
		else if (argv[i][0] == '-')
			return cli_usage_error(self, "unknown option '%s'", argv[i]);
	}
	if (!dashes)
		return cli_usage_error(self, "missing '--' before the command");
	if (dashes == argc - 1)
		return cli_usage_error(self, "no command after '--'");

	struct error err = {0};
	struct session s;
	if (session_open(&s, argv + 1, dashes - 1, g, &err) < 0)
		return cli_fail(&err, EXIT_MOAT_FAILED);
	int status = session_exec(&s, argv + dashes + 1, &err);
	session_close(&s);
	return cli_fail(&err, status);
}
