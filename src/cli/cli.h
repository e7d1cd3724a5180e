/* The moat command line: a table of commands, one file each. Only cli/ and
 * wrapper/ print to the user and choose exit statuses. */
#ifndef MOAT_CLI_CLI_H
#define MOAT_CLI_CLI_H

#include <stdbool.h>

#include "base/util.h"

#define MOAT_VERSION "0.1.0"

/* Exit statuses, as env(1), timeout(1) and docker use them. */
enum {
	EXIT_USAGE = 2,
	EXIT_MOAT_FAILED = 125, /* moat's own failure before the command ran */
	EXIT_CANNOT_RUN = 126,
	EXIT_NOT_FOUND = 127,
};

struct global_opts {
	bool verbose;
};

struct command {
	const char *name;
	int (*run)(int argc, char **argv, const struct global_opts *g);
	const char *usage; /* first line of -h: "moat run [SHELL...] -- CMD [ARG...]" */
	const char *summary;
};

extern const struct command commands[];

/* Print "moat: <err>" (+ hints) and return status (err->status wins). */
int cli_fail(const struct error *err, int status);
/* Print usage for cmd to stderr and return EXIT_USAGE. */
int cli_usage_error(const struct command *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
const struct command *cli_command(const char *name);
/* True when argv[1] asks for help; prints the command's help to stdout. */
bool cli_wants_help(int argc, char **argv, const struct command *cmd);
/* Flush stdout and report a write error (e.g. a closed pipe) as failure. */
int cli_finish(int status);
void cli_verbose(const struct global_opts *g, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

int cmd_run(int argc, char **argv, const struct global_opts *g);
int cmd_shell(int argc, char **argv, const struct global_opts *g);
int cmd_profile(int argc, char **argv, const struct global_opts *g);
int cmd_wrap(int argc, char **argv, const struct global_opts *g);
int cmd_allow(int argc, char **argv, const struct global_opts *g);
int cmd_unallow(int argc, char **argv, const struct global_opts *g);
int cmd_link(int argc, char **argv, const struct global_opts *g);
int cmd_unlink(int argc, char **argv, const struct global_opts *g);
int cmd_detect(int argc, char **argv, const struct global_opts *g);
int cmd_check(int argc, char **argv, const struct global_opts *g);
int cmd_update(int argc, char **argv, const struct global_opts *g);
int cmd_approvals(int argc, char **argv, const struct global_opts *g);
int cmd_unapprove(int argc, char **argv, const struct global_opts *g);

/* Route the nix code's progress, warnings and (with -v) nix's own output to
 * stderr; dry_run makes shell resolution evaluate without building. */
void cli_nix_setup(const struct global_opts *g, bool dry_run);

#endif
