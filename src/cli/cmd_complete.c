/* moat __complete -- moat WORD... CURRENT: what the shell completion scripts
 * (completions/) offer for CURRENT. One line per candidate, "word" or
 * "word<TAB>description", already filtered by CURRENT's prefix; a line
 * ":files", ":dirs" or ":commands" asks the shell for its own completion of
 * that kind. The scripts stay thin so commands, options and their values
 * come from the command table, and cannot drift from what the parser takes. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/path.h"
#include "cli/cli.h"
#include "cli/settings_edit.h"
#include "config/config.h"
#include "context/settings.h"
#include "shells/shells.h"

static void offer(const char *cur, const char *word, const char *descr)
{
	if (strncmp(word, cur, strlen(cur)) != 0 || strchr(word, '\n'))
		return;
	if (descr)
		printf("%s\t%s\n", word, descr);
	else
		printf("%s\n", word);
}

static void offer_commands(const char *cur)
{
	for (const struct command *c = commands; c->name; c++)
		if (!c->hidden)
			offer(cur, c->name, c->summary);
}

static void offer_options(const struct command *cmd, const char *cur)
{
	for (size_t i = 0; cli_option_at(cmd, i); i++) {
		const struct cli_option *o = cli_option_at(cmd, i);
		char word[64];
		/* An optional value (--json) is most often left out. */
		snprintf(word, sizeof(word), "--%s%s", o->long_name,
		         o->arg && !o->value_optional ? "=" : "");
		offer(cur, word, o->help);
	}
}

/* The names of local shells: directories with a bin/ in MOAT_SHELLS_PATH. */
static void offer_shells(const char *cur)
{
	struct error ignored;
	cleanup_free char *home = settings_home(&ignored);
	char **names = home ? shells_local_names(home) : NULL;
	for (char **name = names; name && *name; name++)
		offer(cur, *name, NULL);
	path_list_free(names);
}

/* Grants unallow can remove (rules without .dirs): their binaries, or the
 * paths granted to bin. */
static void offer_grants(const char *cur, const char *bin)
{
	struct error err = {0};
	cleanup_free char *home = settings_home(&err);
	struct config cfg;
	if (!home || settings_load(home, NULL, &cfg, &err) < 0)
		return;
	for (size_t i = 0; i < cfg.nallow; i++) {
		const struct config_allow *r = &cfg.allow[i];
		bool seen = false;
		for (size_t j = 0; j < i && !bin; j++)
			seen |= !cfg.allow[j].ndirs && strcmp(cfg.allow[j].bin, r->bin) == 0;
		if (r->ndirs || seen || (bin && strcmp(r->bin, bin) != 0))
			continue;
		if (!bin)
			offer(cur, r->bin, NULL);
		for (size_t j = 0; bin && j < r->npaths; j++)
			offer(cur, r->paths[j], NULL);
	}
	config_free(&cfg);
}

static void offer_links(const char *cur)
{
	struct error err = {0};
	cleanup_free char *home = settings_home(&err);
	struct config cfg;
	if (!home || settings_load(home, NULL, &cfg, &err) < 0)
		return;
	for (size_t i = 0; i < cfg.nlinks; i++)
		offer(cur, cfg.links[i].dir, NULL);
	config_free(&cfg);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* An executable regular file name in the directory dfd, as execvp would
 * run it: a shell's keywords, builtins and functions are no program a
 * grant could name. */
static bool is_program(int dfd, const char *name)
{
	struct stat st;
	return fstatat(dfd, name, &st, 0) == 0 && S_ISREG(st.st_mode) &&
	       faccessat(dfd, name, X_OK, 0) == 0;
}

static void add_programs_in(const char *dir, const char *cur, char ***v, size_t *n)
{
	DIR *d = dir[0] == '/' ? opendir(dir) : NULL;
	for (struct dirent *e; d && (e = readdir(d));) {
		if (e->d_name[0] == '.' || strncmp(e->d_name, cur, strlen(cur)) != 0 ||
		    !is_program(dirfd(d), e->d_name))
			continue;
		*v = xrealloc_array(*v, *n + 1, sizeof(**v));
		(*v)[(*n)++] = xstrdup(e->d_name);
	}
	if (d)
		closedir(d);
}

/* The programs on PATH named cur...: what moat allow's BIN names, a name
 * without a slash. Relative PATH entries are left out, as the sandbox
 * looks no program up there. */
static void offer_programs(const char *cur)
{
	const char *path = getenv("PATH");
	char **dirs = path_list_split(path ? path : "", NULL);
	char **v = NULL;
	size_t n = 0;
	for (char **dir = dirs; *dir; dir++)
		add_programs_in(*dir, cur, &v, &n);
	path_list_free(dirs);
	if (n)
		qsort(v, n, sizeof(*v), by_name);
	for (size_t i = 0; i < n; i++)
		if (i == 0 || strcmp(v[i], v[i - 1]) != 0)
			offer(cur, v[i], NULL);
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* A path moat allow takes: absolute or under ~, which the shell completes
 * once it starts so; a relative one is refused, so none is offered. With
 * --env the operand is a variable's name, with --net a policy: no path. */
static void offer_grant_target(const char *cur, const struct cli_args *a)
{
	if (a->given[OPT_NET]) {
		offer(cur, "off", NULL);
		offer(cur, "open", NULL);
		return;
	}
	if (a->given[OPT_ENV])
		return;
	if (cur[0] == '/' || cur[0] == '~') {
		printf(":files\n");
		return;
	}
	offer(cur, "/", NULL);
	offer(cur, "~/", NULL);
}

/* The kind of operand at index n in spec ("dir shell*"); "-" for none. */
static void operand_kind(const char *spec, int n, char *kind, size_t size)
{
	for (const char *p = spec;;) {
		size_t len = strcspn(p, " ");
		bool repeats = len && p[len - 1] == '*';
		if (n == 0 || repeats) {
			snprintf(kind, size, "%.*s", (int)(len - repeats), p);
			return;
		}
		if (!p[len]) {
			snprintf(kind, size, "-");
			return;
		}
		p += len + 1, n--;
	}
}

static void offer_operand(const char *kind, const char *cur, const struct cli_args *a, int first)
{
	if (strcmp(kind, "shell") == 0) {
		offer_shells(cur);
		if (strchr(cur, '/'))
			printf(":dirs\n");
	} else if (strcmp(kind, "dir") == 0) {
		printf(":dirs\n");
	} else if (strcmp(kind, "linked-dir") == 0) {
		offer_links(cur);
		printf(":dirs\n");
	} else if (strcmp(kind, "file") == 0) {
		printf(":files\n");
	} else if (strcmp(kind, "allow-bin") == 0) {
		offer(cur, "*", "every binary");
		offer_programs(cur);
	} else if (strcmp(kind, "grant-target") == 0) {
		offer_grant_target(cur, a);
	} else if (strcmp(kind, "bin") == 0) {
		offer(cur, "*", "every binary");
		printf(":commands\n");
	} else if (strcmp(kind, "grant-bin") == 0) {
		offer_grants(cur, NULL);
	} else if (strcmp(kind, "grant-path") == 0) {
		offer_grants(cur, a->operands[first]);
	} else if (strcmp(kind, "moat-command") == 0) {
		offer_commands(cur);
	}
}

/* After "--format", or in "--format=": the option's values. Returns true
 * when cur is such a value. */
static bool offer_value(const struct command *cmd, const char *prev, const char *cur)
{
	const struct cli_option *o = NULL;
	const char *value = cur, *prefix = "";
	const char *eq = strchr(cur, '=');
	for (size_t i = 0; !o && cli_option_at(cmd, i); i++) {
		const struct cli_option *c = cli_option_at(cmd, i);
		if (!c->arg)
			continue;
		if (cur[0] == '-' && cur[1] == '-' && eq &&
		    strncmp(cur + 2, c->long_name, (size_t)(eq - cur - 2)) == 0 &&
		    strlen(c->long_name) == (size_t)(eq - cur - 2))
			o = c, value = eq + 1, prefix = cur;
		else if (prev && prev[0] == '-' && prev[1] == '-' &&
		         strcmp(prev + 2, c->long_name) == 0)
			o = c;
	}
	if (!o)
		return false;
	for (const char *const *v = o->choices; v && *v; v++) {
		char word[256];
		snprintf(word, sizeof(word), "%.*s%s", (int)(value - prefix), prefix, *v);
		offer(cur, word, NULL);
	}
	return true;
}

static const struct cli_option *takes_value(const struct command *cmd, const char *word)
{
	for (size_t i = 0; cli_option_at(cmd, i); i++) {
		const struct cli_option *o = cli_option_at(cmd, i);
		if (o->arg && word[0] == '-' && word[1] == '-' &&
		    strcmp(word + 2, o->long_name) == 0)
			return o;
	}
	return NULL;
}

static void complete_command(const struct command *cmd, char **words, int n, const char *cur)
{
	/* Operands so far, as the parser would see them. */
	struct cli_args a = {.operands = xcalloc((size_t)n + 1, sizeof(char *)), .dashdash = -1};
	for (int i = 0; i < n; i++) {
		const char *w = words[i];
		if (a.dashdash < 0 && strcmp(w, "--") == 0) {
			a.dashdash = a.noperands;
		} else if (a.dashdash < 0 && w[0] == '-' && w[1]) {
			if (takes_value(cmd, w))
				i++;
			else if (strcmp(w, "-r") == 0 || strcmp(w, "--remove") == 0)
				a.given[OPT_REMOVE]++;
			else if (strcmp(w, "--env") == 0 || strcmp(w, "--net") == 0)
				a.given[w[2] == 'e' ? OPT_ENV : OPT_NET]++;
		} else {
			a.operands[a.noperands++] = words[i];
		}
	}
	const char *prev = n ? words[n - 1] : NULL;
	if (a.dashdash < 0 && (prev && takes_value(cmd, prev) ? offer_value(cmd, prev, cur)
	                                                      : offer_value(cmd, NULL, cur))) {
		free(a.operands);
		return;
	}
	if (a.dashdash < 0 && cur[0] == '-') {
		offer_options(cmd, cur);
		if (cmd->run == cmd_run)
			offer(cur, "--", "the command follows");
	} else if (cmd->run == cmd_run && a.dashdash >= 0) {
		printf("%s\n", a.noperands == a.dashdash ? ":commands" : ":files");
	} else {
		const struct command *as =
		    a.given[OPT_REMOVE] && cmd->removing ? cli_command(cmd->removing) : cmd;
		char kind[32];
		operand_kind(as->operands, a.noperands, kind, sizeof(kind));
		offer_operand(kind, cur, &a, 0);
	}
	free(a.operands);
}

int cmd_complete(const struct cli_args *a, const struct global_opts *g)
{
	(void)g;
	/* operands: moat WORD... CURRENT */
	if (a->noperands < 2)
		return cli_usage_error(cli_command("__complete"),
		                       "want the words of a command line");
	char **words = a->operands + 1;
	int n = a->noperands - 2; /* complete words after "moat" */
	const char *cur = a->operands[a->noperands - 1];
	int i = 0;
	while (i < n && words[i][0] == '-')
		i++;
	if (i == n) {
		if (cur[0] == '-')
			offer_options(&moat_command, cur);
		else
			offer_commands(cur);
		return 0;
	}
	const struct command *cmd = cli_command(words[i]);
	if (cmd && !cmd->hidden)
		complete_command(cmd, words + i + 1, n - i - 1, cur);
	return 0;
}
