/* moat allow [BIN PATH [--write|--unsafe-write] [--exec] [--dirs DIR]...]
 * and moat unallow BIN PATH: grants of paths outside the root, kept in
 * config.zon, each said with where it applies. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/fs.h"
#include "base/path.h"
#include "cli/cli.h"
#include "cli/settings_edit.h"
#include "config/config.h"
#include "context/context.h"
#include "context/own.h"
#include "context/programs.h"
#include "context/settings.h"
#include "profile/profile.h"
#include "profile/secrets.h"
#include "shells/shells.h"

struct grant_args {
	const char *bin;
	char *stored; /* as written to the file: "~" contracted */
	bool write, exec;
	char **dirs; /* --dirs, as written to the file: "~" contracted */
	size_t ndirs;
};

static void grant_args_free(struct grant_args *g)
{
	free(g->stored);
	for (size_t i = 0; i < g->ndirs; i++)
		free(g->dirs[i]);
	free(g->dirs);
}

/* --dirs DIR...: where the grant applies, each absolute (or ~/...), as
 * config.zon's .dirs wants them. */
static int parse_dirs(const struct cli_args *a, const char *home, struct grant_args *g,
                      struct error *err)
{
	for (const char **v = a->values[OPT_DIRS]; v && *v; v++) {
		cleanup_free char *expanded = path_expand_tilde(*v, home);
		const char *why = path_refusal(expanded);
		if (why) {
			error_set(err, "bad --dirs '%s': %s", *v, why);
			error_hint(err, "give an absolute directory or one starting with ~/");
			return -1;
		}
		cleanup_free char *norm = path_normalize(expanded);
		g->dirs = xrealloc_array(g->dirs, g->ndirs + 1, sizeof(char *));
		g->dirs[g->ndirs++] = path_contract_tilde(norm, home);
	}
	return 0;
}

/* "in every project", or "in projects under A, B": where a grant applies,
 * said whenever one is made (sessions take the union of every grant). */
static char *scope_text(const struct grant_args *g)
{
	if (!g->ndirs)
		return xstrdup("in every project");
	struct strbuf sb = STRBUF_INIT;
	sb_adds(&sb, "in projects under ");
	for (size_t i = 0; i < g->ndirs; i++)
		sb_addf(&sb, "%s%s", i ? ", " : "", g->dirs[i]);
	return sb_detach(&sb);
}

/* Check BIN and PATH as the seed says: relative paths, "..", quotes and
 * control characters, and $HOME or its ancestors are refused with why. */
static int parse_grant(const char *bin, const char *path, const char *home, struct grant_args *g,
                       struct error *err)
{
	if (strcmp(bin, "*") != 0) {
		const char *why = tool_name_refusal(bin);
		if (why)
			return error_set(err, "bad binary name '%s': %s", bin, why);
	}
	cleanup_free char *expanded = path_expand_tilde(path, home);
	const char *why = path_refusal(expanded);
	if (why) {
		error_set(err, "refusing to grant '%s': %s", path, why);
		if (expanded[0] != '/')
			error_hint(err, "give an absolute path or one starting with ~/");
		return -1;
	}
	cleanup_free char *norm = path_normalize(expanded);
	if (path_is_proc_pid(norm)) {
		error_set(err,
		          "refusing to grant '%s': it is one process's (/proc/PID), whose id "
		          "changes every run",
		          path);
		error_hint(err, "a sandboxed process reaches its own as /proc/self; others' stay "
		                "out of reach whatever is granted");
		return -1;
	}
	why = profile_grant_refusal(norm, home);
	if (why) {
		error_set(err, "refusing to grant '%s': %s", path, why);
		error_hint(
		    err,
		    "that would undo the sandbox; grant the directory a tool needs, e.g. ~/.cargo");
		return -1;
	}
	g->bin = bin;
	g->stored = path_contract_tilde(norm, home);
	return 0;
}

static int edit_allow(const char *buf, size_t len, const char *file, const char *home, void *arg,
                      struct strbuf *out, struct error *err)
{
	const struct grant_args *g = arg;
	return config_edit_allow_in(buf, len, file, home, g->bin, g->stored, g->write, g->exec,
	                            (const char *const *)g->dirs, g->ndirs, out, err);
}

static int edit_unallow(const char *buf, size_t len, const char *file, const char *home, void *arg,
                        struct strbuf *out, struct error *err)
{
	const struct grant_args *g = arg;
	return config_edit_unallow_in(buf, len, file, home, g->bin, g->stored,
	                              (const char *const *)g->dirs, g->ndirs, out, err);
}

/* --env: BIN NAME, a name or pattern of variables config.zon's .env passes. */
struct env_args {
	const char *bin, *name;
};

static int parse_env(const struct command *self, const struct cli_args *a, struct env_args *e,
                     struct error *err)
{
	if (a->given[OPT_WRITE] || a->given[OPT_EXEC])
		return cli_usage_error(self, "--env passes a variable: drop --%s",
		                       a->given[OPT_WRITE] ? "write" : "exec");
	if (a->noperands != 2)
		return cli_usage_error(self, "want BIN and NAME");
	e->bin = a->operands[0], e->name = a->operands[1];
	const char *why = strcmp(e->bin, "*") ? tool_name_refusal(e->bin) : NULL;
	if (why)
		return error_set(err, "bad binary name '%s': %s", e->bin, why), 1;
	why = secrets_name_refusal(e->name, true);
	if (why) {
		error_set(err, "bad variable name '%s': %s", e->name, why);
		error_hint(err, "write a name as GH_TOKEN, a pattern as '*_TOKEN'");
		return 1;
	}
	return 0;
}

static int edit_env(const char *buf, size_t len, const char *file, const char *home, void *arg,
                    struct strbuf *out, struct error *err)
{
	(void)home;
	const struct env_args *e = arg;
	return config_edit_env(buf, len, file, e->bin, e->name, out, err);
}

static int edit_unenv(const char *buf, size_t len, const char *file, const char *home, void *arg,
                      struct strbuf *out, struct error *err)
{
	(void)home;
	const struct env_args *e = arg;
	return config_edit_unenv(buf, len, file, e->bin, e->name, out, err);
}

/* moat allow [-r] --env BIN NAME. */
static int allow_env(const struct command *self, const struct cli_args *a,
                     const struct global_opts *g)
{
	struct error err = {0};
	struct env_args e;
	int rc = parse_env(self, a, &e, &err);
	if (rc)
		return err.msg[0] ? cli_fail(&err, 1) : rc;
	cleanup_free char *home = settings_home(&err);
	if (!home)
		return cli_fail(&err, 1);
	bool remove = a->given[OPT_REMOVE];
	rc = settings_edit(home, remove ? edit_unenv : edit_env, &e, &err);
	if (rc < 0)
		return cli_fail(&err, 1);
	if (remove && rc == 0) {
		error_set(&err, "%s is not passed to %s", e.name, e.bin);
		error_hint(&err,
		           "rules limited by .dirs are left alone; see 'moat allow' for the list");
		return cli_fail(&err, 1);
	}
	if (remove)
		cli_info(g, "%s is no longer passed to %s", e.name, e.bin);
	else
		cli_info(g, "%s %s to %s", rc ? "passing" : "already passed:", e.name, e.bin);
	return 0;
}

static void list_env(const struct config *cfg)
{
	for (size_t i = 0; i < cfg->nenv; i++) {
		const struct config_env *r = &cfg->env[i];
		for (size_t j = 0; j < r->nnames; j++) {
			printf("%-12s %-16s %s", r->bin, "env", r->names[j]);
			for (size_t k = 0; k < r->ndirs; k++)
				printf("%s%s", k ? ", " : "  (only in ", r->dirs[k]);
			printf("%s\n", r->ndirs ? ")" : "");
		}
	}
}

static int list_grants(const char *home, const struct global_opts *g)
{
	struct error err = {0};
	struct config cfg;
	if (settings_load(home, NULL, &cfg, &err) < 0)
		return cli_fail(&err, 1);
	for (size_t i = 0; i < cfg.nallow; i++) {
		const struct config_allow *r = &cfg.allow[i];
		const char *level = r->write ? (r->exec ? "read/write/exec" : "read/write")
		                             : (r->exec ? "read/exec" : "read");
		for (size_t j = 0; j < r->npaths; j++) {
			printf("%-12s %-16s %s", r->bin, level, r->paths[j]);
			for (size_t k = 0; k < r->ndirs; k++)
				printf("%s%s", k ? ", " : "  (only in ", r->dirs[k]);
			printf("%s\n", r->ndirs ? ")" : "");
		}
	}
	list_env(&cfg);
	if (!cfg.nallow && !cfg.nenv) {
		cleanup_free char *file = settings_path(home);
		cli_info(g, "no grants in %s", file);
	}
	config_free(&cfg);
	return 0;
}

/* moat unallow BIN PATH, or moat allow -r BIN PATH (self says which). */
static int unallow(const struct command *self, const struct cli_args *a,
                   const struct global_opts *g)
{
	if (a->noperands != 2)
		return cli_usage_error(self, "want BIN and PATH");
	struct error err = {0};
	cleanup_free char *home = settings_home(&err);
	if (!home)
		return cli_fail(&err, 1);
	struct grant_args ga = {0};
	if (parse_grant(a->operands[0], a->operands[1], home, &ga, &err) < 0 ||
	    parse_dirs(a, home, &ga, &err) < 0) {
		grant_args_free(&ga);
		return cli_fail(&err, 1);
	}
	int rc = settings_edit(home, edit_unallow, &ga, &err);
	/* Unscoped rules are the ones removed without --dirs: said as before. */
	cleanup_free char *scope = ga.ndirs ? scope_text(&ga) : xstrdup("");
	if (rc == 0) {
		error_set(&err, "no grant of %s to %s%s%s to remove", ga.stored, ga.bin,
		          *scope ? " " : "", scope);
		error_hint(&err, "a rule limited by .dirs is removed with the same --dirs; see "
		                 "'moat allow' for the list");
	} else if (rc == 1) {
		cli_info(g, "removed %s's grant of %s%s%s", ga.bin, ga.stored, *scope ? " " : "",
		         scope);
	}
	grant_args_free(&ga);
	return rc == 1 ? 0 : cli_fail(&err, 1);
}

/* A write grant where programs the user runs unconfined live (a system
 * or PATH directory) would let sandboxed code replace one: refused, or
 * made with --unsafe-write and a warning (each session warns again). */
static int judge_program_write(const char *shown, const char *full, const char *home, bool unsafe,
                               struct error *err)
{
	struct error ignored;
	cleanup_free char *canon = fs_canonical_prefix(full, &ignored);
	cleanup_free char *why = programs_write_refusal(canon ? canon : full, getenv("PATH"), home);
	if (!why)
		return 0;
	if (unsafe) {
		struct strbuf sb = STRBUF_INIT;
		sb_addf(&sb, "granting write access to '%s' (--unsafe-write): %s", shown, why);
		warning_print("moat", sb.buf);
		sb_release(&sb);
		return 0;
	}
	error_set(err, "refusing to grant write access to '%s': %s", shown, why);
	error_hint(err, "%s", programs_hint);
	error_hint(err, "or, knowing that, --unsafe-write grants it anyway (every session warns)");
	return -1;
}

/* A grant of a path that is not there does nothing until it is: said at
 * once, not found out from a refusal. A write grant's directory under
 * home is made when a session or the tool starts (launch/grantdirs.c). */
static void say_if_missing(const struct grant_args *ga, const char *home,
                           const struct global_opts *g)
{
	cleanup_free char *full = path_expand_tilde(ga->stored, home);
	struct stat st;
	if (stat(full, &st) == 0 || errno != ENOENT)
		return;
	if (ga->write && path_is_under(full, home) && strcmp(full, home) != 0) {
		cli_info(g, "'%s' does not exist yet: a session or the tool makes it (mode 0700)",
		         ga->stored);
		return;
	}
	struct strbuf sb = STRBUF_INIT;
	sb_addf(&sb, "'%s' does not exist: the grant gives nothing until it does", ga->stored);
	warning_print("moat", sb.buf);
	sb_release(&sb);
}

static const char *level_name(const struct grant_args *ga)
{
	return ga->write ? (ga->exec ? "read/write/exec" : "read/write")
	                 : (ga->exec ? "read/exec" : "read");
}

int cmd_allow(const struct cli_args *a, const struct global_opts *g)
{
	const struct command *self = cli_command("allow");
	if (a->given[OPT_DIRS] && (a->given[OPT_ENV] || a->given[OPT_NET]))
		return cli_usage_error(self, "--dirs limits a path grant: drop it or --%s",
		                       a->given[OPT_ENV] ? "env" : "net");
	if (a->given[OPT_ENV])
		return allow_env(self, a, g);
	if (a->given[OPT_NET])
		return cmd_allow_net(self, a, g);
	struct grant_args ga = {.write = a->given[OPT_WRITE] || a->given[OPT_UNSAFE_WRITE],
	                        .exec = a->given[OPT_EXEC]};
	if (a->given[OPT_REMOVE] && (ga.write || ga.exec))
		return cli_usage_error(self, "-r removes a grant whatever its level: drop --%s",
		                       ga.write ? "write" : "exec");
	if (a->given[OPT_REMOVE])
		return unallow(self, a, g);
	if (a->noperands > 2)
		return cli_usage_error(self, "too many arguments");
	struct error err = {0};
	cleanup_free char *home = settings_home(&err);
	if (!home)
		return cli_fail(&err, 1);
	if (a->noperands == 0 && !ga.write && !ga.exec && !a->given[OPT_DIRS])
		return list_grants(home, g);
	if (a->noperands != 2)
		return cli_usage_error(self, "want BIN and PATH");
	if (parse_grant(a->operands[0], a->operands[1], home, &ga, &err) < 0 ||
	    parse_dirs(a, home, &ga, &err) < 0) {
		grant_args_free(&ga);
		return cli_fail(&err, 1);
	}
	/* What sandboxed code can write must not hold moat's own files:
	 * config.zon rewritten there would widen every later sandbox. */
	if (ga.write) {
		cleanup_free char *full = path_expand_tilde(ga.stored, home);
		if (own_refuse_write_grant(a->operands[1], full, home, &err) < 0 ||
		    judge_program_write(a->operands[1], full, home, a->given[OPT_UNSAFE_WRITE],
		                        &err) < 0) {
			err.status = 0; /* a refused grant, as every other: status 1 */
			grant_args_free(&ga);
			return cli_fail(&err, 1);
		}
	}
	int rc = settings_edit(home, edit_allow, &ga, &err);
	cleanup_free char *scope = scope_text(&ga);
	if (rc >= 0) {
		cli_info(g, "%s %s %s access to %s %s", rc ? "granted" : "already granted:", ga.bin,
		         level_name(&ga), ga.stored, scope);
		say_if_missing(&ga, home, g);
	}
	grant_args_free(&ga);
	return rc < 0 ? cli_fail(&err, 1) : 0;
}

int cmd_unallow(const struct cli_args *a, const struct global_opts *g)
{
	return unallow(cli_command("unallow"), a, g);
}
