/* moat pins: the nix shells moat has pinned, each with its flake, revision
 * and store path, and what is off about it (stale, collected, changed,
 * a wrapped package); moat unpin NAME... | --all drops pins. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "shells/nix.h"

static void print_pin(const struct nix_pin_info *p, const struct global_opts *g)
{
	size_t revlen = strncmp(p->rev, "sha256-", 7) == 0 ? 7 + 12 : 12;
	printf("%s  %s  %.*s  %s\n", p->name, p->flake,
	       g->verbose ? (int)strlen(p->rev) : (int)revlen, p->rev, p->store);
	if (p->stale)
		printf("  stale: the name now resolves in '%s' (moat update %s resolves it there, "
		       "moat unpin %s drops it)\n",
		       p->stale, p->name, p->name);
	if (p->collected)
		printf("  collected: the store path is gone; the next use rebuilds it\n");
	if (p->changed)
		printf("  changed: the flake changed since it was pinned (moat update %s uses the "
		       "change)\n",
		       p->name);
	if (p->package)
		printf("  package: a plain package, its bin/ wrapped by moat\n");
}

int cmd_pins(const struct cli_args *a, const struct global_opts *g)
{
	if (a->noperands)
		return cli_usage_error(cli_command("pins"), "unexpected argument '%s'",
		                       a->operands[0]);
	struct nix_pin_info *v;
	size_t n;
	struct error err = {0};
	if (nix_pins_info(&v, &n, &err) < 0)
		return cli_fail(&err, 1);
	for (size_t i = 0; i < n; i++)
		print_pin(&v[i], g);
	if (!n)
		fprintf(stderr, "moat: no pinned shells: nix shells are pinned when first used\n");
	nix_pins_info_free(v, n);
	return 0;
}

int cmd_unpin(const struct cli_args *a, const struct global_opts *g)
{
	bool all = a->given[OPT_ALL];
	if (all == (a->noperands > 0))
		return cli_usage_error(cli_command("unpin"),
		                       all ? "give NAME... or --all, not both"
		                           : "give the pins to drop, or --all");
	size_t dropped;
	struct error err = {0};
	int rc = nix_unpin(all ? NULL : (const char *const *)a->operands, (size_t)a->noperands,
	                   &dropped, &err);
	if (dropped || rc == 0)
		cli_info(g, "dropped %zu pin%s", dropped, dropped == 1 ? "" : "s");
	if (rc < 0)
		return cli_fail(&err, 1);
	return 0;
}
