/* moat update [NAME...]: move pinned nix shells to their flake's current
 * revision, one "name: old -> new" line per shell. A pin whose flake is no
 * longer the one its name resolves in (MOAT_FLAKE changed) is stale: moat
 * update leaves it alone and says so, unless it is named. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "shells/nix.h"

static int update_one(const char *name, bool named, const struct global_opts *g)
{
	struct nix_pin_change chg;
	struct error err = {0};
	if (nix_update(name, named, &chg, &err) < 0)
		return cli_fail(&err, 1);
	if (chg.stale) {
		printf(
		    "%s: stale, left alone: pinned from '%s', but the name now resolves in '%s'\n",
		    name, chg.flake, chg.stale);
		fprintf(stderr,
		        "hint: 'moat update %s' resolves it there; 'moat unpin %s' drops it\n",
		        name, name);
		nix_pin_change_free(&chg);
		return 0;
	}
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
			if (update_one(a->operands[i], true, g) != 0)
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
		fflush(stdout);
		if (update_one(names[i], false, g) != 0)
			status = 1;
		free(names[i]);
	}
	free(names);
	return status;
}
