/* moat profile [SHELL...]: the rules moat run and moat shell would apply in
 * the current directory, printed from the same profile they enforce. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "base/strbuf.h"
#include "cli/cli.h"
#include "launch/launch.h"
#include "report/profile_view.h"
#include "sandbox/sbpl.h"

/* The rules, or with json the JSON document (docs/json.md), rendered by
 * src/report/ from the profile and what only the host can tell. */
static void print_rules(const struct launch *s, bool json)
{
	const struct profile *p = &s->profile;
	bool *absent = xcalloc(p->nrules, sizeof(bool));
	bool *to_make = xcalloc(p->nrules, sizeof(bool));
	for (size_t i = 0; i < p->nrules; i++) {
		struct stat st;
		/* A held descriptor is the path, found by the plan already. */
		absent[i] = !p->rules[i].held && stat(p->rules[i].path, &st) != 0;
		to_make[i] = absent[i] && launch_grant_dir_to_make(s, &p->rules[i]);
	}
	struct profile_facts f = {
	    .absent = absent,
	    .to_make = to_make,
	    .abi = s->support.abi,
	    .not_enforced = s->support.not_enforced,
	    .socket_warning = sandbox_socket_warning(p, &s->support),
	    .isolated = p->isolate && sandbox_isolation_works(),
	};
	struct strbuf out = STRBUF_INIT;
	(json ? profile_render_json : profile_render_text)(p, &f, &out);
	fputs(sb_str(&out), stdout);
	sb_release(&out);
	free(absent);
	free(to_make);
}

/* What macOS would enforce for this context: the same facts rendered by the
 * SBPL backend, so one config means the same thing on both systems. */
static int print_sbpl(const struct launch *s, struct error *err)
{
	struct profile mac;
	if (context_build_profile(&s->ctx, PLATFORM_MACOS, &mac, err) < 0)
		return -1;
	mac.net = s->profile.net; /* the session's network policy, as on Linux */
	struct strbuf out = STRBUF_INIT;
	int rc = sbpl_render(&mac, &out, err);
	if (rc == 0)
		fputs(sb_str(&out), stdout);
	sb_release(&out);
	profile_free(&mac);
	return rc;
}

int cmd_profile(const struct cli_args *a, const struct global_opts *g)
{
	const char *format = a->given[OPT_JSON]     ? "json"
	                     : a->value[OPT_FORMAT] ? a->value[OPT_FORMAT]
	                                            : "rules";
	if (a->given[OPT_JSON] && a->value[OPT_FORMAT] && strcmp(a->value[OPT_FORMAT], "json") != 0)
		return cli_usage_error(cli_command("profile"), "--json and --format=%s disagree",
		                       a->value[OPT_FORMAT]);
	struct error err = {0};
	struct launch s;
	int rc = launch_plan_session(&s, a->operands, (size_t)a->noperands, g->here, &err);
	if (rc == 0) {
		cli_print_plan(&s, g);
		rc = strcmp(format, "sbpl") == 0
		         ? print_sbpl(&s, &err)
		         : (print_rules(&s, strcmp(format, "json") == 0), 0);
	}
	launch_free(&s);
	return rc < 0 ? cli_fail(&err, 1) : 0;
}
