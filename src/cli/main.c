#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

/* Help text per command lives in docs/moat.1 too; keep them in step. */
const struct command commands[] = {
    {"run", cmd_run, "moat run [--trace] [SHELL...] -- CMD [ARG...]",
     "run one command in the sandbox and exit with its status"},
    {"shell", cmd_shell, "moat shell [SHELL...]", "start $SHELL in the sandbox"},
    {"profile", cmd_profile, "moat profile [--format=rules|sbpl] [SHELL...]",
     "print the rules run and shell would apply here"},
    {"wrap", cmd_wrap, "moat wrap NAME [--env KEY=VALUE]... BIN...",
     "create or update a local shell from binaries"},
    {"allow", cmd_allow, "moat allow [BIN PATH [--write] [--exec]]",
     "grant BIN access to PATH outside the root (no arguments: list grants)"},
    {"unallow", cmd_unallow, "moat unallow BIN PATH", "remove a grant"},
    {"link", cmd_link, "moat link [DIR SHELL...]",
     "use these shells for DIR when none are named (no arguments: list links)"},
    {"unlink", cmd_unlink, "moat unlink DIR", "forget DIR's link"},
    {"detect", cmd_detect, "moat detect [DIR]", "show the shells that would activate for DIR"},
    {"check", cmd_check, "moat check", "validate config.zon, its paths and its shells"},
    {"update", cmd_update, "moat update [SHELL...]",
     "move pinned nix shells to their flake's current revision"},
    {"approvals", cmd_approvals, "moat approvals", "list remembered confirm answers"},
    {"unapprove", cmd_unapprove, "moat unapprove [DIR | --all]",
     "forget confirm answers for DIR (default: here) or every project"},
    {NULL, NULL, NULL, NULL},
};

static void print_help(FILE *out)
{
	fprintf(out, "usage: moat [-v] <command> [<args>]\n\n"
	             "Run developer tools in a sandbox that denies file access by default: the\n"
	             "project (the current directory) is read/write, system directories are\n"
	             "read + exec, and $HOME, /tmp and other projects are unreadable.\n\n"
	             "commands:\n");
	for (const struct command *c = commands; c->name; c++)
		fprintf(out, "  %-9s %s\n", c->name, c->summary);
	fprintf(out, "\noptions:\n"
	             "  -v, --verbose  say how shells, config and paths were resolved\n"
	             "  -h, --help     show this help; 'moat <command> -h' for a command\n"
	             "  --version      print moat's version\n\n"
	             "See moat(1) for the environment variables and files.\n");
}

const struct command *cli_command(const char *name)
{
	for (const struct command *c = commands; c->name; c++)
		if (strcmp(c->name, name) == 0)
			return c;
	return NULL;
}

int cli_fail(const struct error *err, int status)
{
	error_print("moat", err);
	return err->status ? err->status : status;
}

int cli_usage_error(const struct command *cmd, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "moat %s: ", cmd->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nusage: %s\n", cmd->usage);
	return EXIT_USAGE;
}

bool cli_wants_help(int argc, char **argv, const struct command *cmd)
{
	if (argc < 2 || (strcmp(argv[1], "-h") != 0 && strcmp(argv[1], "--help") != 0))
		return false;
	printf("usage: %s\n\n%s.\n", cmd->usage, cmd->summary);
	return true;
}

int cli_finish(int status)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "moat: cannot write to standard output: %s\n", strerror(errno));
		return status ? status : 1;
	}
	return status;
}

void cli_verbose(const struct global_opts *g, const char *fmt, ...)
{
	if (!g->verbose)
		return;
	va_list ap;
	fprintf(stderr, "moat: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int main(int argc, char **argv)
{
	struct global_opts g = {0};
	int i = 1;
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "-v") == 0 || strcmp(argv[i], "--verbose") == 0) {
			g.verbose = true;
		} else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			print_help(stdout);
			return cli_finish(0);
		} else if (strcmp(argv[i], "--version") == 0) {
			printf("moat %s\n", MOAT_VERSION);
			return cli_finish(0);
		} else {
			fprintf(stderr, "moat: unknown option '%s'\n", argv[i]);
			print_help(stderr);
			return EXIT_USAGE;
		}
	}
	if (i == argc) {
		print_help(stderr);
		return EXIT_USAGE;
	}
	const struct command *cmd = cli_command(argv[i]);
	if (!cmd) {
		fprintf(stderr, "moat: '%s' is not a moat command\nhint: see 'moat --help'\n",
		        argv[i]);
		return EXIT_USAGE;
	}
	if (cli_wants_help(argc - i, argv + i, cmd))
		return cli_finish(0);
	cli_nix_setup(&g, false);
	return cli_finish(cmd->run(argc - i, argv + i, &g));
}
