/* moat profile [SHELL...]: the rules moat run and moat shell would apply in
 * the current directory, printed from the same profile they enforce. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "base/strbuf.h"
#include "cli/session.h"
#include "sandbox/sbpl.h"

static void print_rules(const struct session *s)
{
	const struct profile *p = &s->profile;
	for (size_t i = 0; i < p->nrules; i++) {
		const struct rule *r = &p->rules[i];
		struct stat st;
		const char *absent = stat(r->path, &st) == 0 ? "" : " (absent, no rule)";
		char why[300];
		if (r->origin == ORIGIN_GRANT)
			snprintf(why, sizeof(why), "grant for %s", r->bin ? r->bin : "*");
		else
			snprintf(why, sizeof(why), "%s", origin_name(r->origin));
		printf("%-40s %-16s %s%s\n", r->path, access_name(r->access), why, absent);
	}
	for (size_t i = 0; i < p->njailbreaks; i++)
		printf("%-40s %-16s %s\n", p->jailbreaks[i], "UNSANDBOXED", "jailbreak");
	printf("%-40s %-16s %s\n", "network", "open", "by design");
	for (size_t i = 0; i < p->nenv; i++)
		printf("env %s=%s\n", p->env[i].name,
		       p->env[i].value ? p->env[i].value : "(unset)");
	const char *socket_warning = sandbox_socket_warning(p, &s->support);
	if (socket_warning)
		printf("unix sockets: all reachable: %s\n", socket_warning);
	else if (s->support.abi < 9)
		printf("unix sockets: new AF_UNIX sockets refused (Landlock ABI < 9 cannot confine "
		       "them by "
		       "path); socketpair and pipes work\n");
	else
		printf("unix sockets: only those under the root and .sockets in config.zon\n");
	if (!p->private_ipc)
		printf("ipc: shared with your processes, /dev/shm as the rules say (a rule lies in "
		       "/dev/shm, which a private one would hide)\n");
	else
		printf("ipc: %s\n",
		       sandbox_private_ipc_works()
		           ? "private /dev/shm and System V IPC (own namespaces)"
		           : "/dev/shm denied, System V IPC shared with your processes (no "
		             "namespaces here: user namespaces are off, root lacks "
		             "CAP_SYS_ADMIN, or this is a sandbox already)");
	printf("kernel: Landlock ABI %d\n", s->support.abi);
	printf("not enforced: %s\n",
	       s->support.not_enforced[0] ? s->support.not_enforced : "nothing");
}

/* What macOS would enforce for this context: the same facts rendered by the
 * SBPL backend, so one config means the same thing on both systems. */
static int print_sbpl(const struct session *s, struct error *err)
{
	struct profile mac;
	if (context_build_profile(&s->ctx, PLATFORM_MACOS, &mac, err) < 0)
		return -1;
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
	const char *format = a->value[OPT_FORMAT] ? a->value[OPT_FORMAT] : "rules";
	struct error err = {0};
	struct session s;
	if (session_open(&s, a->operands, a->noperands, g, &err) < 0)
		return cli_fail(&err, 1);
	int rc = strcmp(format, "sbpl") == 0 ? print_sbpl(&s, &err) : (print_rules(&s), 0);
	session_close(&s);
	return rc < 0 ? cli_fail(&err, 1) : 0;
}
