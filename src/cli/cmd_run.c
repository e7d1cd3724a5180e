/* moat run [--trace [--json[=FILE]]] [SHELL...] -- CMD [ARG...]: one command
 * in the sandbox. moat execs the command itself, so its exit status, signals
 * and terminal are the command's own. With --trace moat stays as the
 * command's unconfined parent, follows it and reports what the sandbox
 * refused (src/trace/); --json makes that report JSON (docs/json.md), on
 * stderr in place of the text or, with =FILE, into FILE. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "cli/cli.h"
#include "context/own.h"
#include "context/settings.h"
#include "launch/launch.h"
#include "trace/trace.h"

struct traced {
	struct launch *l;
	char **cmd;
};

/* In the traced child: confine and exec, or say why not. */
static int exec_traced(void *arg)
{
	struct traced *t = arg;
	struct error err = {0};
	int status = launch_enter(t->l, t->cmd, &err);
	if (!err.msg[0])
		return status;
	/* The report says what to grant, and never a grant moat allow refuses. */
	err.hint[0] = '\0';
	return cli_fail(&err, status);
}

static void say_lingering(void *arg)
{
	(void)arg;
	fprintf(stderr, "moat: the command exited; waiting for the processes it started "
	                "(^C stops them)\n");
}

static int write_all(int fd, const char *s, size_t n)
{
	while (n) {
		ssize_t w = write(fd, s, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

/* json: NULL for the text report, "" for JSON on stderr, else a file. */
static int run_traced(struct launch *s, char **cmd, const char *json, struct error *err)
{
	/* Opened now, before the command runs: sandboxed code cannot swap the
	 * name for a link that would steer moat's write. */
	cleanup_close int json_fd = -1;
	if (json && *json &&
	    (json_fd = open(json, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644)) <
	        0) {
		error_set(err, "cannot open '%s': %s", json, strerror(errno));
		return EXIT_MOAT_FAILED;
	}
	struct traced t = {s, cmd};
	struct trace_opts o = {
	    .child = exec_traced, .arg = &t, .name = cmd[0], .lingering = say_lingering};
	struct trace_log log = {0};
	int wstatus = 0;
	if (trace_run(&o, &log, &wstatus, err) < 0) {
		trace_log_free(&log);
		return EXIT_MOAT_FAILED;
	}
	int status = WIFSIGNALED(wstatus) ? 128 + WTERMSIG(wstatus) : WEXITSTATUS(wstatus);
	cleanup_free char *config = settings_path(s->ctx.home);
	struct trace_facts f = {s->ctx.home, config, s->support.abi, status, NULL, NULL, 0};
	struct own_places own;
	own_gather_all(&own, s->ctx.home);
	own_canonicalize(&own);
	cleanup_free const char **own_paths = xcalloc(own.n + 1, sizeof(char *));
	cleanup_free const char **own_what = xcalloc(own.n + 1, sizeof(char *));
	for (size_t i = 0; i < own.n; i++) {
		own_paths[i] = own.v[i].canon ? own.v[i].canon : own.v[i].path;
		own_what[i] = own.v[i].what;
	}
	f.own = own_paths, f.own_what = own_what, f.nown = own.n;
	struct strbuf report = STRBUF_INIT, doc = STRBUF_INIT;
	if (!json || *json)
		trace_report(&log, &s->profile, &f, &report);
	if (json)
		trace_report_json(&log, &s->profile, &f, &doc);
	/* The report must not cost the command's status on a closed stderr. */
	signal(SIGPIPE, SIG_IGN);
	fputs(sb_str(&report), stderr);
	if (json && !*json)
		fputs(sb_str(&doc), stderr);
	if (json_fd >= 0 && write_all(json_fd, doc.buf, doc.len) < 0)
		fprintf(stderr, "moat: cannot write the JSON report to '%s': %s\n", json,
		        strerror(errno));
	sb_release(&report);
	sb_release(&doc);
	trace_log_free(&log);
	own_free(&own);
	return status;
}

int cmd_run(const struct cli_args *a, const struct global_opts *g)
{
	const struct command *self = cli_command("run");
	bool trace = a->given[OPT_TRACE];
	const char *json = a->value[OPT_JSON];
	if (a->dashdash < 0)
		return cli_usage_error(self, "missing '--' before the command");
	if (a->dashdash == a->noperands)
		return cli_usage_error(self, "no command after '--'");
	if (json && !trace)
		return cli_usage_error(self, "--json is an option of --trace");
	/* Shell names before "--", the command after it. */
	size_t nshells = (size_t)a->dashdash;
	char **cmd = a->operands + a->dashdash;

	struct error err = {0};
	struct launch l;
	int status = EXIT_MOAT_FAILED;
	if (launch_plan_session(&l, a->operands, nshells, &err) == 0) {
		cli_print_plan(&l, g);
		if (launch_set_command(&l, cmd[0], &err) < 0)
			status = err.status;
		else
			status =
			    trace ? run_traced(&l, cmd, json, &err) : launch_enter(&l, cmd, &err);
	}
	launch_free(&l);
	return err.msg[0] ? cli_fail(&err, status) : status;
}
