/* moat approvals and moat unapprove [DIR | --all]: what confirm answers are
 * remembered, and forgetting them. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "approvals/approvals.h"
#include "base/fs.h"
#include "base/platform.h"
#include "cli/cli.h"
#include "cli/settings_edit.h"

static void print_approval(const struct approval *a)
{
	char date[32];
	struct tm tm;
	strftime(date, sizeof(date), "%Y-%m-%d %H:%M", localtime_r(&a->when, &tm));
	cleanup_free char *root = visible_dup(a->root);
	cleanup_free char *flake = approvals_flake_hash(a);
	if (flake) {
		printf("%s  flake %s  %s\n", root, flake, date);
		return;
	}
	cleanup_free char *bin = visible_dup(a->bin);
	printf("%s  %s  %s\n", root, bin, date);
	for (size_t i = 0; i < a->set.n; i++) {
		const struct access_item *it = &a->set.items[i];
		const char *what = it->kind == ITEM_HOME     ? "HOME"
		                   : it->kind == ITEM_GRANT  ? access_name(it->access)
		                   : it->kind == ITEM_SOCKET ? "connect"
		                   : it->kind == ITEM_SECRET ? "secret"
		                   : it->kind == ITEM_NET    ? "network"
		                                             : "jailbreak";
		cleanup_free char *path = visible_dup(it->path);
		printf("  %-16s %s%s\n", what, path,
		       it->kind == ITEM_JAILBREAK ? "  UNSANDBOXED" : "");
	}
}

struct forget {
	const char *root; /* NULL: all */
	size_t dropped;
};

static int forget(struct approval_store *st, void *arg)
{
	struct forget *f = arg;
	f->dropped = approvals_forget(st, f->root);
	return f->dropped ? 1 : 0;
}

/* moat unapprove [DIR | --all], or moat approvals -r [DIR | --all]. */
static int unapprove(const struct command *self, const struct cli_args *a,
                     const struct global_opts *g)
{
	bool all = a->given[OPT_ALL];
	if (a->noperands > 1)
		return cli_usage_error(self, "too many arguments");
	const char *dir = a->noperands ? a->operands[0] : NULL;
	if (all && dir)
		return cli_usage_error(self, "give DIR or --all, not both");
	struct error err = {0};
	cleanup_free char *home = settings_home(&err);
	if (!home)
		return cli_fail(&err, 1);
	cleanup_free char *root = NULL;
	if (!all) {
		root = dir ? platform_canonical_path(dir) : fs_cwd(&err);
		if (!root && dir)
			root = fs_absolute(dir, &err);
		if (!root)
			return cli_fail(&err, 1);
	}
	struct forget f = {root, 0};
	if (approvals_update(home, forget, &f, &err) < 0)
		return cli_fail(&err, 1);
	cleanup_free char *shown = root ? visible_dup(root) : NULL;
	if (!f.dropped) {
		error_set(&err, "no approvals for %s", root ? root : "any project");
		error_hint(&err, "'moat approvals' lists the projects that have some");
		return cli_fail(&err, 1);
	}
	cli_info(g, "forgot %zu approval(s)%s%s", f.dropped, root ? " for " : "",
	         root ? shown : "");
	return 0;
}

int cmd_approvals(const struct cli_args *a, const struct global_opts *g)
{
	const struct command *self = cli_command("approvals");
	if (a->given[OPT_REMOVE])
		return unapprove(self, a, g);
	if (a->given[OPT_ALL])
		return cli_usage_error(self, "--all goes with -r");
	if (a->noperands)
		return cli_usage_error(self, "unexpected argument '%s'", a->operands[0]);
	struct error err = {0};
	cleanup_free char *home = settings_home(&err);
	if (!home)
		return cli_fail(&err, 1);
	struct approval_store st;
	struct strbuf warn = STRBUF_INIT;
	if (approvals_load(home, &st, &warn, &err) < 0)
		return cli_fail(&err, 1);
	if (warn.len)
		warning_print("moat", warn.buf);
	sb_release(&warn);
	for (size_t i = 0; i < st.n; i++)
		print_approval(&st.approvals[i]);
	if (!st.n)
		cli_info(g, "no approvals remembered");
	approvals_free(&st);
	return 0;
}

int cmd_unapprove(const struct cli_args *a, const struct global_opts *g)
{
	return unapprove(cli_command("unapprove"), a, g);
}
