/* The moat command line: a table of commands, one file each. Only cli/ and
 * wrapper/ print to the user and choose exit statuses. */
#ifndef MOAT_CLI_CLI_H
#define MOAT_CLI_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "base/util.h"

#define MOAT_VERSION "0.1.0"

struct global_opts {
	bool verbose;     /* -v: say how shells, config and paths were resolved */
	bool quiet;       /* -q: no informational lines, only errors and warnings */
	bool here;        /* --here (run, shell, profile, check): cwd is the root */
	const char *prog; /* how moat was invoked (argv[0]), for lines to paste */
};

/* Every option any command takes; a command's table says which are its. */
enum cli_opt {
	OPT_VERBOSE,
	OPT_QUIET,
	OPT_HELP,
	OPT_VERSION,
	OPT_TRACE,
	OPT_FORMAT,
	OPT_ENV,
	OPT_WRITE,
	OPT_EXEC,
	OPT_REMOVE,
	OPT_ALL,
	OPT_JSON,
	OPT_HERE,
	OPT_NET,
	/* moat allow: a write grant where programs live; where a grant applies */
	OPT_UNSAFE_WRITE,
	OPT_DIRS,
	OPT__COUNT,
};

/* One option as the parser, --help, the man page test and the completions
 * see it. */
struct cli_option {
	enum cli_opt id;
	char short_name;            /* 0: long form only */
	const char *long_name;      /* NULL ends a table */
	const char *arg;            /* NULL: a flag; else the value's name ("FORMAT") */
	const char *help;           /* one line for --help */
	const char *const *choices; /* NULL or the values it accepts, NULL-terminated */
	bool repeat;                /* may be given more than once; every value kept */
	bool value_optional; /* --name alone is "", --name=VALUE gives one (never the next word) */
};

/* What the parser made of a command's arguments. Options may come before,
 * between or after operands; "--" ends them, and what follows it is operands
 * even when it starts with '-'. */
struct cli_args {
	char **operands; /* in order; points into argv */
	int noperands;
	int dashdash; /* index in operands where "--" stood, or -1 */
	int given[OPT__COUNT];
	const char *value[OPT__COUNT];   /* the last value given */
	const char **values[OPT__COUNT]; /* every value, for repeatable options */
};

/* How a command's operands are completed, one word per position, the last
 * one repeating when it ends in '*': shell, dir, file, bin, command,
 * allow-bin ('*' and programs on PATH), grant-target (an absolute or ~
 * path), grant-bin, grant-path, moat-command, or '-' for nothing to offer. */
struct command {
	const char *name;
	int (*run)(const struct cli_args *a, const struct global_opts *g);
	const char *usage;                /* synopsis lines, "\n" between them */
	const char *summary;              /* one line, lowercase, no final stop */
	const struct cli_option *options; /* the command's own; NULL or ended by long_name NULL */
	const char *example;
	const char *operands; /* for completion; see above */
	const char *removing; /* with -r: the command whose operands apply */
	bool hidden;          /* not listed (the completion helper) */
};

extern const struct command commands[];
/* moat itself: its options before a command name (--version, and the
 * global ones). */
extern const struct command moat_command;

/* moat's options, accepted before the command name and after it. */
extern const struct cli_option global_options[];

/* Print "moat: <err>" (+ hints) and return status (err->status wins). */
int cli_fail(const struct error *err, int status);
/* Print "moat CMD: <msg>" and the usage to stderr and return EXIT_USAGE. */
int cli_usage_error(const struct command *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
const struct command *cli_command(const char *name);
/* A command's full help: usage, summary, every option, an example. */
void cli_print_command_help(FILE *out, const struct command *cmd);
/* Flush stdout and report a write error (e.g. a closed pipe) as failure. */
int cli_finish(int status);
void cli_verbose(const struct global_opts *g, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* An informational line on stderr ("moat: granted ..."); -q silences it. */
void cli_info(const struct global_opts *g, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The options a command accepts: its own, then the global ones. Returns
 * the option at index i, or NULL past the end. */
const struct cli_option *cli_option_at(const struct command *cmd, size_t i);

/* Parse argv[1..argc) for cmd into a (freed with cli_args_free). Returns 0,
 * 1 when --help or --version was given (for the caller to print), or -1
 * with the usage error in err (for the caller to print with the usage:
 * the parser knows the options, main.c how to show them). With
 * first_operand, stop at the first operand (after a "--") and store its
 * index there: how moat's own options before the command name are read. */
int cli_parse(const struct command *cmd, int argc, char **argv, struct cli_args *a,
              struct global_opts *g, int *first_operand, struct error *err);
void cli_args_free(struct cli_args *a);

int cmd_run(const struct cli_args *a, const struct global_opts *g);
/* moat allow --net (cmd_allow_net.c). */
int cmd_allow_net(const struct command *self, const struct cli_args *a,
                  const struct global_opts *g);
/* --net POLICY of moat run and moat shell: 1 and *out when given, 0 when
 * not, -1 after printing why it does not parse. */
struct netpolicy;
int cli_net_option(const struct cli_args *a, struct netpolicy *out);
int cmd_shell(const struct cli_args *a, const struct global_opts *g);
int cmd_profile(const struct cli_args *a, const struct global_opts *g);
int cmd_wrap(const struct cli_args *a, const struct global_opts *g);
int cmd_allow(const struct cli_args *a, const struct global_opts *g);
int cmd_unallow(const struct cli_args *a, const struct global_opts *g);
int cmd_link(const struct cli_args *a, const struct global_opts *g);
int cmd_unlink(const struct cli_args *a, const struct global_opts *g);
int cmd_detect(const struct cli_args *a, const struct global_opts *g);
int cmd_check(const struct cli_args *a, const struct global_opts *g);
int cmd_update(const struct cli_args *a, const struct global_opts *g);
int cmd_pins(const struct cli_args *a, const struct global_opts *g);
int cmd_unpin(const struct cli_args *a, const struct global_opts *g);
int cmd_approvals(const struct cli_args *a, const struct global_opts *g);
int cmd_unapprove(const struct cli_args *a, const struct global_opts *g);
int cmd_help(const struct cli_args *a, const struct global_opts *g);
int cmd_version(const struct cli_args *a, const struct global_opts *g);
int cmd_complete(const struct cli_args *a, const struct global_opts *g);

struct launch;
/* Print what planning a launch found: warnings always, the informational
 * lines ("using shells ...") and, with -v, how things were resolved. Also
 * makes the plan print warnings that arise later, in launch_enter. */
void cli_print_plan(struct launch *l, const struct global_opts *g);

/* After a session (moat run, moat shell): the protected paths its commands
 * tried to change, and that they can be changed outside moat (cmd_run.c). */
void cli_print_protected_written(const struct launch *l, const struct global_opts *g);

struct config;
/* The sandbox root a run here would have (the top of the git work tree
 * around the current directory, or it; cfg's .root and here as for moat
 * run), for judging where sandboxed code can write; NULL when it could not
 * be a root. Caller frees. */
char *cli_project_root(const char *home, const struct config *cfg, bool here);

/* Route the nix code's progress, warnings and (with -v) nix's own output to
 * stderr, and answer what it asks (nix_setup.c); dry_run makes shell
 * resolution evaluate without building. */
void cli_nix_setup(const struct global_opts *g, bool dry_run);

#endif
