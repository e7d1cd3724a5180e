/* moat profile [SHELL...]: the rules moat run and moat shell would apply in
 * the current directory, printed from the same profile they enforce. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "base/strbuf.h"
#include "cli/cli.h"
#include "launch/launch.h"
#include "sandbox/sbpl.h"

static void print_rules(const struct launch *s)
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
		printf("env %s=%s\n", p->env[i].name, p->env[i].value ? p->env[i].value : "(unset)");
	const char *socket_warning = sandbox_socket_warning(p, &s->support);
	if (socket_warning)
		printf("unix sockets: all reachable: %s\n", socket_warning);
	else if (s->support.abi < 9)
		printf("unix sockets: new AF_UNIX sockets refused (Landlock ABI < 9 cannot confine them by "
		       "path); socketpair and pipes work\n");
	else
		printf("unix sockets: only those under the root and .sockets in config.zon\n");
	printf("isolation: %s\n", sandbox_isolation_works()
					? "own PID, mount and IPC namespaces: a /proc of its own, private /tmp, "
					  "/var/tmp and /dev/shm, protected paths read-only"
					: "none here (nested in a session, user namespaces off, or root without "
					  "CAP_SYS_ADMIN): the host's /tmp, /var/tmp and /dev/shm stay denied, "
					  "System V IPC is shared, protected paths are not read-only");
	printf("terminal: its own pseudo-terminal, relayed to yours\n");
	printf("kernel: Landlock ABI %d\n", s->support.abi);
	printf("not enforced: %s\n", s->support.not_enforced[0] ? s->support.not_enforced : "nothing");
}

/* What macOS would enforce for this context: the same facts rendered by the
 * SBPL backend, so one config means the same thing on both systems. */
static int print_sbpl(const struct launch *s, struct error *err)
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

int cmd_profile(int argc, char **argv, const struct global_opts *g)
{
	const struct command *self = cli_command("profile");
	const char *format = "rules";
	int first = 1;
	for (; first < argc && argv[first][0] == '-'; first++) {
		if (strncmp(argv[first], "--format=", 9) == 0)
			format = argv[first] + 9;
		else
			return cli_usage_error(self, "unknown option '%s'", argv[first]);
	}
	if (strcmp(format, "rules") != 0 && strcmp(format, "sbpl") != 0)
		return cli_usage_error(self, "unknown format '%s' (want rules or sbpl)", format);
	struct error err = {0};
	struct launch s;
	int rc = launch_plan_session(&s, argv + first, (size_t)(argc - first), &err);
	if (rc == 0) {
		cli_print_plan(&s, g);
		rc = strcmp(format, "sbpl") == 0 ? print_sbpl(&s, &err) : (print_rules(&s), 0);
	}
	launch_free(&s);
	return rc < 0 ? cli_fail(&err, 1) : 0;
}
