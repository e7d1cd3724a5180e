/* The one option parser every command uses, driven by the command table.
 *
 * Not getopt_long: its state is global and reset differently by glibc
 * (optind = 0) and the BSDs and macOS (optreset), POSIXLY_CORRECT in the
 * user's environment changes whether options may follow operands, and its
 * messages are its own. A table also renders --help and the completions,
 * so what the parser accepts is what those list. The rules are GNU's:
 * "--name value" and "--name=value", "-x" clusters ("-rv"), options before,
 * between or after operands, "--" ends them. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

/* The options every command takes, which the parser acts on itself
 * (take, cli_parse). */
const struct cli_option global_options[] = {
    {.id = OPT_VERBOSE,
     .short_name = 'v',
     .long_name = "verbose",
     .help = "say how shells, config and paths were resolved"},
    {.id = OPT_QUIET,
     .short_name = 'q',
     .long_name = "quiet",
     .help = "print no informational lines, only errors and warnings"},
    {.id = OPT_HELP, .short_name = 'h', .long_name = "help", .help = "show this help"},
    {.long_name = NULL},
};

const struct cli_option *cli_option_at(const struct command *cmd, size_t i)
{
	size_t own = 0;
	while (cmd->options && cmd->options[own].long_name)
		own++;
	if (i < own)
		return &cmd->options[i];
	i -= own;
	for (size_t j = 0; global_options[j].long_name; j++)
		if (j == i)
			return &global_options[j];
	return NULL;
}

static const struct cli_option *find_long(const struct command *cmd, const char *name, size_t len)
{
	for (size_t i = 0; cli_option_at(cmd, i); i++) {
		const struct cli_option *o = cli_option_at(cmd, i);
		if (strlen(o->long_name) == len && strncmp(o->long_name, name, len) == 0)
			return o;
	}
	return NULL;
}

static const struct cli_option *find_short(const struct command *cmd, char c)
{
	for (size_t i = 0; cli_option_at(cmd, i); i++)
		if (cli_option_at(cmd, i)->short_name == c)
			return cli_option_at(cmd, i);
	return NULL;
}

/* "format" from "FORMAT", for "unknown format 'x'". */
static void arg_noun(char *out, size_t size, const char *arg)
{
	size_t i = 0;
	for (; arg[i] && arg[i] != '=' && i + 1 < size; i++)
		out[i] = (char)(arg[i] >= 'A' && arg[i] <= 'Z' ? arg[i] - 'A' + 'a' : arg[i]);
	out[i] = '\0';
}

static int take(const struct cli_option *o, const char *value, struct cli_args *a,
                struct global_opts *g, int argc, struct error *err)
{
	if (o->choices && value) {
		bool known = false;
		for (const char *const *c = o->choices; *c && !known; c++)
			known = strcmp(*c, value) == 0;
		if (!known) {
			char noun[32], want[128] = "";
			arg_noun(noun, sizeof(noun), o->arg);
			for (const char *const *c = o->choices; *c; c++)
				snprintf(want + strlen(want), sizeof(want) - strlen(want), "%s%s",
				         c == o->choices ? ""
				         : c[1]          ? ", "
				                         : " or ",
				         *c);
			return error_set(err, "unknown %s '%s' (want %s)", noun, value, want);
		}
	}
	if (o->repeat) {
		if (!a->values[o->id])
			a->values[o->id] = xcalloc((size_t)argc + 1, sizeof(char *));
		a->values[o->id][a->given[o->id]] = value;
	}
	a->given[o->id]++;
	a->value[o->id] = value;
	if (o->id == OPT_VERBOSE)
		g->verbose = true, g->quiet = false;
	else if (o->id == OPT_QUIET)
		g->quiet = true, g->verbose = false;
	return 0;
}

/* One "--name[=value]" at argv[*i]; may consume argv[*i + 1]. */
static int parse_long(const struct command *cmd, int argc, char **argv, int *i, struct cli_args *a,
                      struct global_opts *g, struct error *err)
{
	const char *name = argv[*i] + 2;
	const char *eq = strchr(name, '=');
	size_t len = eq ? (size_t)(eq - name) : strlen(name);
	const struct cli_option *o = find_long(cmd, name, len);
	if (!o)
		return error_set(err, "unknown option '--%.*s'", (int)len, name);
	const char *value = NULL;
	if (!o->arg && eq)
		return error_set(err, "option '--%s' takes no value", o->long_name);
	if (o->arg) {
		if (eq)
			value = eq + 1;
		else if (o->value_optional)
			value = "";
		else if (*i + 1 < argc)
			value = argv[++*i];
		else
			return error_set(err, "option '--%s' needs %s", o->long_name, o->arg);
	}
	return take(o, value, a, g, argc, err);
}

/* One "-abc" cluster at argv[*i]; an option with a value takes the rest of
 * the cluster or the next argument. */
static int parse_short(const struct command *cmd, int argc, char **argv, int *i, struct cli_args *a,
                       struct global_opts *g, struct error *err)
{
	for (const char *p = argv[*i] + 1; *p; p++) {
		const struct cli_option *o = find_short(cmd, *p);
		if (!o)
			return error_set(err, "unknown option '-%c'", *p);
		const char *value = NULL;
		if (o->arg) {
			if (p[1])
				value = p + 1;
			else if (*i + 1 < argc)
				value = argv[++*i];
			else
				return error_set(err, "option '-%c' needs %s", *p, o->arg);
		}
		if (take(o, value, a, g, argc, err) != 0)
			return -1;
		if (value)
			break;
	}
	return 0;
}

int cli_parse(const struct command *cmd, int argc, char **argv, struct cli_args *a,
              struct global_opts *g, int *first_operand, struct error *err)
{
	memset(a, 0, sizeof(*a));
	a->dashdash = -1;
	a->operands = xcalloc((size_t)argc + 1, sizeof(char *));
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];
		int rc = 0;
		if (first_operand && (arg[0] != '-' || arg[1] == '\0' || strcmp(arg, "--") == 0)) {
			*first_operand = i + (strcmp(arg, "--") == 0);
			return 0;
		}
		if (a->dashdash >= 0 || arg[0] != '-' || arg[1] == '\0')
			a->operands[a->noperands++] = argv[i];
		else if (strcmp(arg, "--") == 0)
			a->dashdash = a->noperands;
		else if (arg[1] == '-')
			rc = parse_long(cmd, argc, argv, &i, a, g, err);
		else
			rc = parse_short(cmd, argc, argv, &i, a, g, err);
		if (rc != 0)
			return rc;
		if (a->given[OPT_HELP] || a->given[OPT_VERSION])
			return 1;
	}
	if (first_operand)
		*first_operand = argc;
	return 0;
}

void cli_args_free(struct cli_args *a)
{
	free(a->operands);
	for (size_t i = 0; i < OPT__COUNT; i++)
		free(a->values[i]);
	memset(a, 0, sizeof(*a));
}
