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
#include <unistd.h>

#include "base/path.h"
#include "cli/cli.h"
#include "context/own.h"
#include "context/settings.h"
#include "launch/launch.h"
#include "launch/proxy.h"
#include "launch/scrub.h"
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

/* The report's last line when the command failed: the secrets its
 * environment lost (names only) and how to pass one. */
static void add_secrets_line(const struct launch *l, int status, struct strbuf *report)
{
	struct strbuf line = STRBUF_INIT;
	if (status != 0)
		scrub_hint(&l->profile, l->name, &line);
	if (line.len)
		sb_addf(report, "moat: %s\n", line.buf);
	sb_release(&line);
}

struct proxied {
	struct trace_log *log;
	const char *name;
};

/* One host the session's proxy refused: a refusal of the network policy
 * like a port's, for the session's command (the proxy cannot tell which
 * of its processes asked), whose rule joins the session's union. */
static void add_proxy_refusal(const char *host, unsigned port, void *arg)
{
	struct proxied *p = arg;
	cleanup_free char *item =
	    port == 80 || port == 443 ? xstrdup(host) : xasprintf("%s:%u", host, port);
	cleanup_free char *detail = xasprintf("%s port %u, refused by moat's proxy", host, port);
	struct trace_denial d = {.name = (char *)p->name,
	                         .op = TRACE_NET_CONNECT,
	                         .other = item,
	                         .detail = detail,
	                         .err = EACCES};
	trace_log_add(p->log, &d);
}

/* A hosts session's proxy records what it refused in a file of moat's
 * (launch.h, net_log_fd): read once the session is over. */
static void open_proxy_record(struct launch *s)
{
	if (s->profile.net.level == NET_HOSTS)
		s->net_log_fd = proxy_record_open();
}

/* How many refusals the record had no room for. */
static size_t read_proxy_record(struct launch *s, struct trace_log *log, const char *cmd)
{
	if (s->net_log_fd <= 0)
		return 0;
	const char *slash = strrchr(cmd, '/');
	struct proxied p = {log, slash ? slash + 1 : cmd};
	size_t more = proxy_read_refusals(s->net_log_fd, add_proxy_refusal, &p);
	close(s->net_log_fd);
	s->net_log_fd = 0;
	return more;
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
		error_errno(err, "cannot open '%s'", json);
		return EXIT_MOAT_FAILED;
	}
	struct traced t = {s, cmd};
	struct trace_opts o = {
	    .child = exec_traced, .arg = &t, .name = cmd[0], .lingering = say_lingering};
	struct trace_log log = {0};
	int wstatus = 0;
	open_proxy_record(s);
	if (trace_run(&o, &log, &wstatus, err) < 0) {
		trace_log_free(&log);
		return EXIT_MOAT_FAILED;
	}
	size_t unrecorded = read_proxy_record(s, &log, cmd[0]);
	int status = WIFSIGNALED(wstatus) ? 128 + WTERMSIG(wstatus) : WEXITSTATUS(wstatus);
	cleanup_free char *config = settings_path(s->ctx.home);
	struct trace_facts f = {
	    .home = s->ctx.home, .config = config, .abi = s->support.abi, .status = status};
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
	f.path_env = getenv("PATH");
	f.proxy_unrecorded = unrecorded;
	struct strbuf report = STRBUF_INIT, doc = STRBUF_INIT;
	if (!json || *json) {
		trace_report(&log, &s->profile, &f, &report);
		add_secrets_line(s, status, &report);
	}
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

/* Print a line to paste as it is, unless it holds what the terminal would
 * act on (control characters, bidirectional controls): then shown safely
 * (visible_add), since the words may come from anywhere. */
static void print_pasteable(const char *line)
{
	cleanup_free char *plain = xstrdup(line);
	for (char *c = plain; *c; c++)
		if (*c == '\\') /* shown as \x5c, yet harmless on a terminal */
			*c = '/';
	if (visible_as_is(plain))
		fprintf(stderr, "moat: %s\n", line);
	else
		note_print("moat", line);
}

/* After a command that failed on a terminal: the line that shows what the
 * sandbox refused, the same command under --trace, ready to paste. Not
 * with -q, nor with .trace_hint = false in config.zon. */
static void print_trace_hint(const struct cli_args *a, const struct global_opts *g,
                             const struct launch *l, int status)
{
	if (status == 0 || g->quiet || l->cfg.no_trace_hint || !isatty(STDERR_FILENO))
		return;
	struct strbuf line = STRBUF_INIT;
	const char *prog = g->prog && strchr(g->prog, '/') ? g->prog : "moat";
	sb_addf(&line, "exit status %d; to see what the sandbox refused:  ", status);
	sb_add_shell_word(&line, prog);
	sb_adds(&line, g->here ? " run --here --trace" : " run --trace");
	for (int i = 0; i < a->noperands; i++) {
		if (i == a->dashdash)
			sb_adds(&line, " --");
		sb_addc(&line, ' ');
		sb_add_shell_word(&line, a->operands[i]);
	}
	print_pasteable(line.buf);
	sb_release(&line);
}

/* After a command that failed on a terminal, with secrets taken out of its
 * environment: which, and the line that passes one (a token the command
 * needed is the likeliest reason it failed). Not with -q. */
static void print_secrets_hint(const struct global_opts *g, const struct launch *l, int status)
{
	if (status == 0 || g->quiet || !isatty(STDERR_FILENO))
		return;
	struct strbuf line = STRBUF_INIT;
	scrub_hint(&l->profile, l->name, &line);
	if (line.len)
		print_pasteable(line.buf);
	sb_release(&line);
}

/* After a session: each protected path a command tried to change (git's
 * lock file beside it, launch/lockwatch.h), which git reported only as
 * "Device or resource busy", and where the change can be made. Whatever
 * the status: husky exits 0 with its hooks unconfigured. Not with -q. */
void cli_print_protected_written(const struct launch *l, const struct global_opts *g)
{
	const struct name_list *w = &l->protected_written;
	if (g->quiet || !w->n)
		return;
	for (size_t i = 0; i < w->n; i++) {
		const char *shown = w->v[i];
		size_t n = strlen(l->ctx.root);
		if (path_is_under(shown, l->ctx.root) && shown[n] == '/')
			shown += n + 1;
		struct error err = {0};
		error_set(
		    &err,
		    "cannot change '%s' in the sandbox: moat protects it, since what it holds "
		    "runs outside the sandbox later",
		    shown);
		if (i == w->n - 1)
			error_hint(&err, "to change it, run the command outside moat");
		error_print("moat", &err);
	}
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

	struct netpolicy net;
	int net_given = cli_net_option(a, &net);
	if (net_given < 0)
		return EXIT_USAGE;

	struct error err = {0};
	struct launch l;
	int status = EXIT_MOAT_FAILED;
	if (launch_plan_session(&l, a->operands, nshells, g->here, &err) == 0) {
		if (net_given)
			l.profile.net = net;
		cli_print_plan(&l, g);
		if (launch_set_command(&l, cmd[0], &err) < 0)
			status = err.status;
		else if (trace)
			status = run_traced(&l, cmd, json, &err);
		else if ((status = launch_enter(&l, cmd, &err)) != 0 && !err.msg[0]) {
			print_trace_hint(a, g, &l, status);
			print_secrets_hint(g, &l, status);
		}
		cli_print_protected_written(&l, g);
	}
	launch_free(&l);
	return err.msg[0] ? cli_fail(&err, status) : status;
}
