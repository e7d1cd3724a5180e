/* moat run [--trace] [SHELL...] -- CMD [ARG...]: one command in the sandbox.
 * moat execs the command itself, so its exit status, signals and terminal are
 * the command's own. With --trace moat stays as the command's unconfined
 * parent, follows it and reports what the sandbox refused (src/trace/). */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "cli/session.h"
#include "trace/trace.h"

struct traced {
	struct session *s;
	char **cmd;
};

/* In the traced child: confine and exec, or say why not. */
static int exec_traced(void *arg)
{
	struct traced *t = arg;
	struct error err = {0};
	int status = session_exec(t->s, t->cmd, &err);
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

static int run_traced(struct session *s, char **cmd, struct error *err)
{
	struct traced t = {s, cmd};
	struct trace_opts o = {
	    .child = exec_traced, .arg = &t, .name = cmd[0], .lingering = say_lingering};
	struct trace_log log = {0};
	int wstatus = 0;
	if (trace_run(&o, &log, &wstatus, err) < 0) {
		trace_log_free(&log);
		return EXIT_MOAT_FAILED;
	}
	struct strbuf report = STRBUF_INIT;
	trace_report(&log, &s->profile, s->ctx.home, &report);
	/* The report must not cost the command's status on a closed stderr. */
	signal(SIGPIPE, SIG_IGN);
	fputs(report.buf, stderr);
	sb_release(&report);
	trace_log_free(&log);
	return WIFSIGNALED(wstatus) ? 128 + WTERMSIG(wstatus) : WEXITSTATUS(wstatus);
}

int cmd_run(const struct cli_args *a, const struct global_opts *g)
{
	const struct command *self = cli_command("run");
	bool trace = a->given[OPT_TRACE];
	if (a->dashdash < 0)
		return cli_usage_error(self, "missing '--' before the command");
	if (a->dashdash == a->noperands)
		return cli_usage_error(self, "no command after '--'");
	/* Shell names before "--", the command after it. */
	int nshells = a->dashdash;
	char **cmd = a->operands + a->dashdash;

	struct error err = {0};
	struct session s;
	if (session_open(&s, a->operands, nshells, g, &err) < 0)
		return cli_fail(&err, EXIT_MOAT_FAILED);
	int status = trace ? run_traced(&s, cmd, &err) : session_exec(&s, cmd, &err);
	session_close(&s);
	return err.msg[0] ? cli_fail(&err, status) : status;
}
