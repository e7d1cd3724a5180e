/* moat's entry point and its command table. Each command's flags live in its
 * row, as git's do: the one option parser (options.c), --help, the
 * completions (cmd_complete.c) and tests/cli/help.sh all read them here. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "launch/launch.h"

/* moat itself, for the options before a command name. */
static const struct cli_option moat_options[] = {
    {.id = OPT_VERSION, .long_name = "version", .help = "print moat's version"},
    {.long_name = NULL},
};
const struct command moat_command = {"moat",
                                     NULL,
                                     "moat [-v | -q] <command> [<args>]",
                                     "run developer tools in a sandbox",
                                     moat_options,
                                     "moat -v run -- make",
                                     "moat-command",
                                     NULL,
                                     true};

static const char *const formats[] = {"rules", "json", "sbpl", NULL};

#define HERE_OPTION                                                                                \
	{                                                                                          \
		.id = OPT_HERE, .long_name = "here",                                               \
		.help = "the current directory is the root, not the top of the git work tree "     \
		        "around it"                                                                \
	}

#define NET_OPTION                                                                                 \
	{                                                                                          \
		.id = OPT_NET, .long_name = "net", .arg = "POLICY",                                \
		.help = "the network for this session instead of config.zon's: off, open, TCP "    \
		        "ports (443,listen:3000) or hosts (registry.npmjs.org,*.github.com:443)"   \
	}

static const struct cli_option run_options[] = {
    HERE_OPTION,
    NET_OPTION,
    {.id = OPT_TRACE,
     .long_name = "trace",
     .help = "report what the sandbox refused, with a 'moat allow' line for each"},
    {.id = OPT_JSON,
     .long_name = "json",
     .arg = "FILE",
     .help =
         "with --trace: the report as JSON, on stderr or (--json=FILE) into FILE (docs/json.md)",
     .value_optional = true},
    {.long_name = NULL},
};
static const struct cli_option shell_options[] = {
    HERE_OPTION,
    NET_OPTION,
    {.long_name = NULL},
};
static const struct cli_option profile_options[] = {
    HERE_OPTION,
    {.id = OPT_FORMAT,
     .long_name = "format",
     .arg = "FORMAT",
     .help = "rules (default): one rule per line; json: the same as JSON (docs/json.md); sbpl: the "
             "macOS "
             "Seatbelt profile",
     .choices = formats},
    {.id = OPT_JSON, .long_name = "json", .help = "the same as --format json"},
    {.long_name = NULL},
};
static const struct cli_option wrap_options[] = {
    {.id = OPT_ENV,
     .long_name = "env",
     .arg = "KEY=VALUE",
     .help = "add KEY=VALUE to the shell's share/moat/env (repeatable)",
     .repeat = true},
    {.long_name = NULL},
};
static const struct cli_option check_options[] = {
    HERE_OPTION,
    {.long_name = NULL},
};
static const struct cli_option allow_options[] = {
    {.id = OPT_WRITE, .long_name = "write", .help = "grant read/write instead of read"},
    {.id = OPT_EXEC, .long_name = "exec", .help = "also let BIN run programs from PATH"},
    {.id = OPT_UNSAFE_WRITE,
     .long_name = "unsafe-write",
     .help = "--write even on a system or PATH directory, whose programs you run unconfined"},
    {.id = OPT_DIRS,
     .long_name = "dirs",
     .arg = "DIR",
     .help = "apply the grant only in projects under DIR (repeatable; default: every project)",
     .repeat = true},
    {.id = OPT_ENV,
     .long_name = "env",
     .help = "pass the secret variable NAME (or pattern) to BIN: moat allow --env BIN NAME"},
    {.id = OPT_NET,
     .long_name = "net",
     .help = "set BIN's network instead: off, open, TCP ports (443 listen:3000) or hosts "
             "(registry.npmjs.org *.github.com:443); -r removes"},
    {.id = OPT_REMOVE,
     .short_name = 'r',
     .long_name = "remove",
     .help = "remove BIN's grant of PATH (with --env: of NAME) instead (as unallow)"},
    {.long_name = NULL},
};
static const struct cli_option link_options[] = {
    {.id = OPT_REMOVE,
     .short_name = 'r',
     .long_name = "remove",
     .help = "forget DIR's link instead (as unlink)"},
    {.long_name = NULL},
};
static const struct cli_option approvals_options[] = {
    {.id = OPT_REMOVE,
     .short_name = 'r',
     .long_name = "remove",
     .help = "forget the answers for DIR (default: here) instead (as unapprove)"},
    {.id = OPT_ALL, .long_name = "all", .help = "with -r: for every project"},
    {.long_name = NULL},
};
static const struct cli_option unpin_options[] = {
    {.id = OPT_ALL, .long_name = "all", .help = "drop every pin"},
    {.long_name = NULL},
};
static const struct cli_option unapprove_options[] = {
    {.id = OPT_ALL, .long_name = "all", .help = "forget the answers for every project"},
    {.long_name = NULL},
};

/* Help text per command lives in docs/moat.1 and README.md too; keep them
 * in step (tests/cli/help.sh checks the options). */
const struct command commands[] = {
    {"run", cmd_run,
     "moat run [--here] [--net POLICY] [--trace [--json[=FILE]]] [SHELL...] -- CMD [ARG...]",
     "run one command in the sandbox and exit with its status", run_options,
     "moat run --trace -- make test", "shell*", NULL, false},
    {"shell", cmd_shell, "moat shell [--here] [--net POLICY] [SHELL...]",
     "start your $SHELL in the sandbox, with the named shells' tools first on PATH", shell_options,
     "moat shell tools", "shell*", NULL, false},
    {"profile", cmd_profile, "moat profile [--here] [--json | --format=rules|json|sbpl] [SHELL...]",
     "print the rules run and shell would apply here", profile_options,
     "moat profile --format sbpl", "shell*", NULL, false},
    {"wrap", cmd_wrap, "moat wrap NAME [--env KEY=VALUE]... BIN...",
     "create or update a local shell (a set of wrapped tools) from binaries", wrap_options,
     "moat wrap cc gcc make", "shell bin*", NULL, false},
    {"allow", cmd_allow,
     "moat allow [BIN PATH [--write] [--exec] [--dirs DIR]...]\nmoat allow --env BIN NAME\n"
     "moat allow -r [--env] BIN PATH|NAME [--dirs DIR]...\n"
     "moat allow --net [BIN off|open|PORT|listen:PORT|HOST[:PORT]...]\n"
     "moat allow -r --net BIN POLICY...",
     "grant BIN access to PATH outside the root, in every project, or with --dirs in projects "
     "under DIR (no arguments: list grants)",
     allow_options, "moat allow cargo ~/.cargo --write --exec", "allow-bin grant-target", "unallow",
     false},
    {"unallow", cmd_unallow, "moat unallow BIN PATH", "remove a grant", NULL,
     "moat unallow cargo ~/.cargo", "grant-bin grant-path", NULL, false},
    {"link", cmd_link, "moat link [DIR SHELL...]\nmoat link -r DIR",
     "use these shells for DIR when none are named (no arguments: list links)", link_options,
     "moat link . rust go", "dir shell*", "unlink", false},
    {"unlink", cmd_unlink, "moat unlink DIR", "forget DIR's link", NULL, "moat unlink .",
     "linked-dir", NULL, false},
    {"detect", cmd_detect, "moat detect [DIR]", "show the shells that would activate for DIR", NULL,
     "moat detect -v ~/src/project", "dir", NULL, false},
    {"check", cmd_check, "moat check [--here]", "validate config.zon, its paths and its shells",
     check_options, "moat check", "-", NULL, false},
    {"update", cmd_update, "moat update [SHELL...]",
     "move pinned nix shells to their flake's current revision", NULL, "moat update rust", "shell*",
     NULL, false},
    {"pins", cmd_pins, "moat pins", "list pinned nix shells: flake, revision, store path", NULL,
     "moat pins", "-", NULL, false},
    {"unpin", cmd_unpin, "moat unpin NAME... | --all", "drop pinned nix shells", unpin_options,
     "moat unpin rust", "shell*", NULL, false},
    {"approvals", cmd_approvals, "moat approvals\nmoat approvals -r [DIR | --all]",
     "list remembered confirm answers", approvals_options, "moat approvals -r --all", "-",
     "unapprove", false},
    {"unapprove", cmd_unapprove, "moat unapprove [DIR | --all]",
     "forget confirm answers for DIR (default: here) or every project", unapprove_options,
     "moat unapprove ~/src/project", "dir", NULL, false},
    {"help", cmd_help, "moat help [COMMAND]", "show moat's help, or a command's", NULL,
     "moat help allow", "moat-command", NULL, false},
    {"version", cmd_version, "moat version", "print moat's version", NULL, "moat version", "-",
     NULL, false},
    {"__complete", cmd_complete, "moat __complete -- moat WORD...",
     "print completions for the last WORD (used by the shell completion scripts)", NULL,
     "moat __complete -- moat run --tr", "-", NULL, true},
    {NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, false},
};

static void print_options(FILE *out, const struct command *cmd)
{
	for (size_t i = 0; cli_option_at(cmd, i); i++) {
		const struct cli_option *o = cli_option_at(cmd, i);
		char left[64];
		/* An optional value is only ever --name=VALUE: the next word
		 * stays an operand (moat run's shells), so help shows that form. */
		const char *sep = !o->arg ? "" : o->value_optional ? "[=" : " ";
		snprintf(left, sizeof(left), "%c%c%c --%s%s%s%s", o->short_name ? '-' : ' ',
		         o->short_name ? o->short_name : ' ', o->short_name ? ',' : ' ',
		         o->long_name, sep, o->arg ? o->arg : "", o->value_optional ? "]" : "");
		fprintf(out, "  %-22s %s\n", left, o->help);
	}
}

static void print_help(FILE *out)
{
	fprintf(out, "usage: moat [-v | -q] <command> [<args>]\n\n"
	             "Run developer tools in a sandbox that denies file access by default: the\n"
	             "project (the top of the git work tree, else the current directory) is\n"
	             "read/write, system directories are read + exec, /tmp is the session's\n"
	             "own, and $HOME, the host's /tmp and other projects are unreadable. A shell\n"
	             "NAME is a set of wrapped tools (see 'moat help wrap'); 'moat shell' starts\n"
	             "your $SHELL in the sandbox.\n\n"
	             "commands:\n");
	for (const struct command *c = commands; c->name; c++)
		if (!c->hidden)
			fprintf(out, "  %-10s %s\n", c->name, c->summary);
	fprintf(out, "\noptions (-v, -q and -h also after the command name):\n");
	print_options(out, &moat_command);
	fprintf(out, "\nSee 'moat help <command>' for a command's options and moat(1) for the\n"
	             "environment variables and files.\n");
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

static void print_usage_lines(FILE *out, const struct command *cmd)
{
	const char *prefix = "usage: ";
	for (const char *p = cmd->usage; *p;) {
		size_t n = strcspn(p, "\n");
		fprintf(out, "%s%.*s\n", prefix, (int)n, p);
		prefix = "   or: ";
		p += n + (p[n] == '\n');
	}
}

int cli_usage_error(const struct command *cmd, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, cmd == &moat_command ? "moat: " : "moat %s: ", cmd->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (cmd == &moat_command) {
		print_help(stderr);
		return EXIT_USAGE;
	}
	print_usage_lines(stderr, cmd);
	fprintf(stderr, "see 'moat help %s'\n", cmd->name);
	return EXIT_USAGE;
}

void cli_print_command_help(FILE *out, const struct command *cmd)
{
	print_usage_lines(out, cmd);
	fprintf(out, "\n%c%s.\n\noptions:\n", cmd->summary[0] - 'a' + 'A', cmd->summary + 1);
	print_options(out, cmd);
	fprintf(out, "\nexample:\n  %s\n", cmd->example);
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
	/* It shows paths (the root, shells) a directory's name chose. */
	va_list ap;
	char *line;
	va_start(ap, fmt);
	int n = vasprintf(&line, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	cleanup_free char *shown = visible_dup(line);
	free(line);
	fprintf(stderr, "moat: %s\n", shown);
}

static void print_warnings(const char *lines)
{
	warning_print("moat", lines);
}

static void print_notes(const char *lines)
{
	note_print("moat", lines);
}

void cli_print_plan(struct launch *l, const struct global_opts *g)
{
	if (g->verbose)
		note_print("moat", sb_str(&l->notes));
	if (!g->quiet)
		note_print("moat", sb_str(&l->info));
	print_warnings(sb_str(&l->warnings));
	l->print_warnings = print_warnings;
	if (g->verbose)
		l->print_notes = print_notes;
}

void cli_info(const struct global_opts *g, const char *fmt, ...)
{
	if (g->quiet)
		return;
	va_list ap;
	fprintf(stderr, "moat: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* "'rn' is not a moat command", with the nearest command (at most 2
 * edits, 1 for short names) as git does; EXIT_USAGE. */
static int unknown_command(const char *name)
{
	size_t limit = strlen(name) <= 3 ? 1 : 2, best = limit + 1;
	const char *near = NULL;
	for (const struct command *c = commands; c->name; c++) {
		size_t d = c->hidden ? best : edit_distance(name, c->name);
		if (d < best)
			best = d, near = c->name;
	}
	struct error err = {0};
	error_set(&err, "'%s' is not a moat command", name);
	if (near)
		error_hint(&err, "did you mean '%s'?", near);
	error_hint(&err, "see 'moat --help'");
	error_print("moat", &err);
	return EXIT_USAGE;
}

int cmd_help(const struct cli_args *a, const struct global_opts *g)
{
	(void)g;
	const struct command *self = cli_command("help");
	if (a->noperands > 1)
		return cli_usage_error(self, "too many arguments");
	if (a->noperands == 0) {
		print_help(stdout);
		return 0;
	}
	const struct command *cmd = cli_command(a->operands[0]);
	if (!cmd || cmd->hidden)
		return unknown_command(a->operands[0]);
	cli_print_command_help(stdout, cmd);
	return 0;
}

int cmd_version(const struct cli_args *a, const struct global_opts *g)
{
	(void)g;
	if (a->noperands)
		return cli_usage_error(cli_command("version"), "unexpected argument '%s'",
		                       a->operands[0]);
	printf("moat %s\n", MOAT_VERSION);
	return 0;
}

int main(int argc, char **argv)
{
	struct global_opts g = {0};
	struct cli_args a;
	int i = argc;
	/* moat's own options, up to the command name. */
	struct error err = {0};
	int rc = cli_parse(&moat_command, argc, argv, &a, &g, &i, &err);
	bool version = a.given[OPT_VERSION];
	cli_args_free(&a);
	if (rc == 1) {
		if (version)
			printf("moat %s\n", MOAT_VERSION);
		else
			print_help(stdout);
		return cli_finish(0);
	}
	if (rc != 0)
		return cli_usage_error(&moat_command, "%s", err.msg);
	if (i == argc) {
		print_help(stderr);
		return EXIT_USAGE;
	}
	const struct command *cmd = cli_command(argv[i]);
	if (!cmd)
		return unknown_command(argv[i]);
	rc = cli_parse(cmd, argc - i, argv + i, &a, &g, NULL, &err);
	g.here = a.given[OPT_HERE];
	g.prog = argv[0];
	if (rc == 0) {
		if (cmd->run != cmd_help && cmd->run != cmd_version && cmd->run != cmd_complete)
			cli_nix_setup(&g, false);
		rc = cmd->run(&a, &g);
	} else if (rc == 1) {
		cli_print_command_help(stdout, cmd);
		rc = 0;
	} else {
		rc = cli_usage_error(cmd, "%s", err.msg);
	}
	cli_args_free(&a);
	return cli_finish(rc);
}
