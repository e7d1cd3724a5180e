/* moat allow --net [BIN POLICY...], moat allow -r --net BIN POLICY...: the
 * network policy of a binary, kept in config.zon's .net; and --net for moat
 * run and moat shell. One grammar (profile/netpolicy.h) for all of them. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/settings_edit.h"
#include "config/config.h"
#include "context/settings.h"
#include "shells/shells.h"

struct net_args {
	const char *bin;
	struct netpolicy items; /* what the command line names */
	bool remove;
	struct netpolicy result; /* bin's unscoped policy after the edit */
};

/* Two lists of one kind (ports, or hosts) merge; other levels replace. */
static bool lists_merge(const struct netpolicy *a, const struct netpolicy *b)
{
	return a->level == b->level && (a->level == NET_PORTS || a->level == NET_HOSTS);
}

/* bin's unscoped rules, as one policy (empty when there are none). */
static int current_policy(const char *buf, size_t len, const char *file, const char *bin,
                          struct netpolicy *out, struct error *err)
{
	struct config cfg;
	if (config_parse(buf, len, file, &cfg, err) < 0)
		return -1;
	*out = netpolicy_empty();
	bool any = false;
	for (size_t i = 0; i < cfg.nnet; i++) {
		if (cfg.net[i].ndirs || strcmp(cfg.net[i].bin, bin) != 0)
			continue;
		if (!any)
			*out = cfg.net[i].policy;
		else
			netpolicy_union(out, &cfg.net[i].policy);
		any = true;
	}
	config_free(&cfg);
	return 0;
}

/* Adding ports widens a ports policy, hosts a hosts one; anything else
 * replaces it (off, open, ports over hosts or the reverse). Removing
 * takes the named items out. */
static int edit_net(const char *buf, size_t len, const char *file, const char *home, void *arg,
                    struct strbuf *out, struct error *err)
{
	(void)home;
	struct net_args *n = arg;
	struct netpolicy p;
	if (current_policy(buf, len, file, n->bin, &p, err) < 0)
		return -1;
	if (n->remove) {
		if (!netpolicy_remove_item(&p, &n->items)) {
			sb_release(out);
			sb_add(out, buf, len);
			n->result = p;
			return 0;
		}
	} else if (!lists_merge(&n->items, &p)) {
		p = n->items;
	} else if (netpolicy_union(&p, &n->items) < 0) {
		error_set(
		    err, "too many ports or hosts for %s (at most %d ports of each kind, %d hosts)",
		    n->bin, NETPOLICY_MAX_PORTS, NETPOLICY_MAX_HOSTS);
		return -1;
	}
	n->result = p;
	return config_edit_net(buf, len, file, n->bin, &p, out, err);
}

static int list_net(const char *home, const struct global_opts *g)
{
	struct error err = {0};
	struct config cfg;
	if (settings_load(home, NULL, &cfg, &err) < 0)
		return cli_fail(&err, 1);
	for (size_t i = 0; i < cfg.nnet; i++) {
		const struct config_net *r = &cfg.net[i];
		struct strbuf p = STRBUF_INIT;
		netpolicy_format(&p, &r->policy, ' ');
		printf("%-12s net %s", r->bin, p.buf);
		for (size_t k = 0; k < r->ndirs; k++)
			printf("%s%s", k ? ", " : "  (only in ", r->dirs[k]);
		printf("%s\n", r->ndirs ? ")" : "");
		sb_release(&p);
	}
	if (!cfg.nnet) {
		cleanup_free char *file = settings_path(home);
		cli_info(g, "no network policies in %s: every tool's network is open", file);
	}
	config_free(&cfg);
	return 0;
}

/* The items of argv, each word a comma list. */
static int parse_items(char **words, int n, struct netpolicy *p, struct error *err)
{
	*p = netpolicy_empty();
	for (int i = 0; i < n; i++) {
		struct netpolicy one;
		if (netpolicy_parse(&one, words[i], err) < 0)
			return -1;
		if (i == 0) {
			*p = one;
			continue;
		}
		if (!lists_merge(&one, p)) {
			error_set(err,
			          "bad network policy: 'off' and 'open' stand alone, and ports "
			          "and hosts do not mix");
			error_hint(err,
			           "give 'off', 'open', ports such as 443 listen:3000, or hosts "
			           "such as registry.npmjs.org *.github.com");
			return -1;
		}
		if (netpolicy_union(p, &one) < 0) {
			error_set(err, "too many ports or hosts in the network policy");
			return -1;
		}
	}
	return 0;
}

int cmd_allow_net(const struct command *self, const struct cli_args *a, const struct global_opts *g)
{
	struct error err = {0};
	cleanup_free char *home = settings_home(&err);
	if (!home)
		return cli_fail(&err, 1);
	if (a->given[OPT_WRITE] || a->given[OPT_EXEC])
		return cli_usage_error(self, "--write and --exec are for paths, not --net");
	if (a->noperands == 0 && !a->given[OPT_REMOVE])
		return list_net(home, g);
	if (a->noperands < 2)
		return cli_usage_error(self, "want BIN and a policy: off, open, ports or hosts");
	struct net_args n = {.bin = a->operands[0], .remove = a->given[OPT_REMOVE]};
	if (strcmp(n.bin, "*") != 0) {
		const char *why = tool_name_refusal(n.bin);
		if (why) {
			error_set(&err, "bad binary name '%s': %s", n.bin, why);
			return cli_fail(&err, 1);
		}
	}
	if (parse_items(a->operands + 1, a->noperands - 1, &n.items, &err) < 0)
		return cli_fail(&err, 1);
	int rc = settings_edit(home, edit_net, &n, &err);
	if (rc < 0)
		return cli_fail(&err, 1);
	struct strbuf p = STRBUF_INIT;
	netpolicy_format(&p, &n.result, ' ');
	if (rc == 0 && n.remove)
		cli_info(g,
		         "%s's network policy holds none of that (policies limited by .dirs are "
		         "left alone)",
		         n.bin);
	else if (netpolicy_is_empty(&n.result))
		cli_info(g,
		         "%s's network policy removed: its network is open unless \"*\"'s is not",
		         n.bin);
	else
		cli_info(g, "%s's network: %s", n.bin, p.buf);
	sb_release(&p);
	return 0;
}

int cli_net_option(const struct cli_args *a, struct netpolicy *out)
{
	const char *v = a->value[OPT_NET];
	if (!v)
		return 0;
	struct error err = {0};
	if (netpolicy_parse(out, v, &err) < 0) {
		cli_fail(&err, EXIT_USAGE);
		return -1;
	}
	return 1;
}
