/* moat update [NAME...]: move pinned nix shells to their flake's current
 * revision, one "name: old -> new" line per shell. Also home to how the nix
 * code reports progress, since every command that resolves shells shares it. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "shells/nix.h"

static void nix_progress(const char *msg)
{
	fprintf(stderr, "moat: %s\n", msg);
}

static void nix_warning(const char *msg)
{
	fprintf(stderr, "moat: warning: %s\n", msg);
}

static void nix_output(const char *buf, size_t len)
{
	fflush(stderr);
	(void)!write(STDERR_FILENO, buf, len);
}

void cli_nix_setup(const struct global_opts *g, bool dry_run)
{
	struct nix_feedback fb = {
	    .verbose = g->verbose,
	    .dry_run = dry_run,
	    .progress = g->quiet ? NULL : nix_progress,
	    .warning = nix_warning,
	    .output = nix_output,
	};
	nix_set_feedback(&fb);
}

static int update_one(const char *name, const struct global_opts *g)
{
	struct nix_pin_change chg;
	struct error err = {0};
	if (nix_update(name, &chg, &err) < 0)
		return cli_fail(&err, 1);
	if (strcmp(chg.old_rev, chg.new_rev) == 0 && strcmp(chg.old_store, chg.new_store) == 0)
		printf("%s: %s (unchanged)\n", name, chg.new_rev);
	else
		printf("%s: %s -> %s\n", name, chg.old_rev, chg.new_rev);
	if (chg.unpinnable)
		fprintf(stderr,
		        "moat: %s: '%s' cannot be pinned to a revision (%s); the pin holds "
		        "only the store path\n",
		        name, chg.flake, chg.unpinnable);
	cli_verbose(g, "%s: %s -> %s", name, chg.old_store, chg.new_store);
	nix_pin_change_free(&chg);
	return 0;
}

int cmd_update(const struct cli_args *a, const struct global_opts *g)
{
	int status = 0;
	if (a->noperands) {
		for (int i = 0; i < a->noperands; i++)
			if (update_one(a->operands[i], g) != 0)
				status = 1;
		return status;
	}
	char **names;
	size_t n;
	struct error err = {0};
	if (nix_pinned_names(&names, &n, &err) < 0)
		return cli_fail(&err, 1);
	if (n == 0)
		cli_info(g, "no pinned shells: nix shells are pinned when first used");
	for (size_t i = 0; i < n; i++) {
		if (update_one(names[i], g) != 0)
			status = 1;
		free(names[i]);
	}
	free(names);
	return status;
}
