/* launch_enter: the one order in which moat confines and starts a tool,
 * for `moat run`, `moat shell` and `moat-wrapper` alike: what is checked
 * and recorded first, then a session (run.c) or the tool's own start
 * (exec.c). */
#include "approvals/approvals.h"
#include "context/pastroots.h"
#include "launch/launch.h"
#include "launch/plan.h"
#include "launch/plantwatch.h"
#include "profile/netpolicy.h"

/* Ask before a listed binary starts, unless approved already. */
static int confirm(struct launch *l, struct error *err)
{
	const char *home_seen = l->overrides.home ? l->overrides.home : l->ctx.home;
	struct strbuf warnings = STRBUF_INIT;
	int rc = (l->session ? confirm_start_session : confirm_start)(
	    l->ctx.home, l->name, &l->profile, &l->support, home_seen, &warnings, err);
	if (warnings.len && l->print_warnings)
		l->print_warnings(warnings.buf);
	sb_release(&warnings);
	return rc;
}

/* Before anything runs, a jailbroken tool above all: what a wrapped tool
 * planted earlier and no mount could hold (launch/plantwatch.h). A
 * jailbroken tool does not start while such a plant is still there. */
static int sweep_plants(const struct launch *l, struct error *err)
{
	struct strbuf warnings = STRBUF_INIT;
	bool clean = plantwatch_sweep(&l->profile, &warnings);
	if (warnings.len && l->print_warnings)
		l->print_warnings(warnings.buf);
	sb_release(&warnings);
	if (clean || !l->jailbroken)
		return 0;
	error_set(err,
	          "refusing to run %s with no sandbox: a planted file git would follow is "
	          "still there (the warning above)",
	          l->name);
	err->status = EXIT_MOAT_FAILED;
	return -1;
}

/* Before the tool can write there: see context/pastroots.h. A nested
 * session writes only what its outer one was given, which recorded its
 * root. The record guards later runs, not this one, and the sandbox cannot
 * reach it: a state directory moat cannot write (no HOME) is said, not
 * fatal. */
static void record_root(const struct launch *l, struct error *err)
{
	if (past_roots_record(l->ctx.home, l->ctx.root, err) == 0 || !l->print_warnings)
		return;
	cleanup_free char *msg = xasprintf("%s; later runs will not know that sandboxed code "
	                                   "wrote there\n",
	                                   err->msg);
	l->print_warnings(msg);
	error_clear(err);
}

/* A wrapped tool outside a session has no proxy: a network namespace and a
 * proxy process for each start would cost a compiler call more than the
 * call itself. Refused, with the session that enforces the same policy. */
static int refuse_hosts_outside_session(const struct launch *l, char **argv, struct error *err)
{
	struct strbuf line = STRBUF_INIT;
	sb_adds(&line, "moat run --net ");
	netpolicy_format(&line, &l->profile.net, ',');
	sb_adds(&line, " --");
	for (char **a = argv; *a; a++) {
		sb_addc(&line, ' ');
		sb_add_shell_word(&line, a == argv ? l->name : *a);
	}
	error_set(err,
	          "cannot limit %s's network to named hosts outside a session: that needs "
	          "moat's proxy, which only moat run and moat shell start",
	          l->name);
	error_hint(err, "run it in one:  %s", line.buf);
	sb_release(&line);
	err->status = EXIT_MOAT_FAILED;
	return -1;
}

int launch_enter(struct launch *l, char **argv, struct error *err)
{
	/* What planning tried and got past (a pin file not there yet) is no
	 * failure: only what happens from here on is reported. */
	error_clear(err);
	if (!l->jailbroken && !l->already_confined &&
	    sandbox_net_check(&l->profile, &l->support, err) < 0)
		return EXIT_MOAT_FAILED;
	if (!l->session && !l->jailbroken && !l->already_confined &&
	    l->profile.net.level == NET_HOSTS && refuse_hosts_outside_session(l, argv, err) < 0)
		return EXIT_MOAT_FAILED;
	if (l->confirm && confirm(l, err) < 0)
		return EXIT_MOAT_FAILED;
	if (!l->already_confined && sweep_plants(l, err) < 0)
		return EXIT_MOAT_FAILED;
	if (!l->jailbroken && !l->already_confined) {
		if (!l->nested)
			record_root(l, err);
		launch_make_grant_dirs(l);
		launch_make_git_files(l);
		launch_unhold_protected(l);
		if (launch_break_hard_links(l, err) < 0)
			return EXIT_MOAT_FAILED;
	}
	if (l->session)
		return session_run(l, argv, err);
	return launch_exec(l, argv, err);
}
