/* moat profile [SHELL...]: the rules moat run and moat shell would apply in
 * the current directory, printed from the same profile they enforce. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/session.h"

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
		printf("env %s=%s\n", p->env[i].name, p->env[i].value ? p->env[i].value : "(unset)");
	printf("kernel: Landlock ABI %d\n", s->support.abi);
	printf("not enforced: %s\n", s->support.not_enforced[0] ? s->support.not_enforced : "nothing");
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
	if (strcmp(format, "rules") != 0)
		return cli_usage_error(self, "unknown format '%s' (want rules)", format);
	struct error err = {0};
	struct session s;
	if (session_open(&s, argv + first, argc - first, g, &err) < 0)
		return cli_fail(&err, 1);
	print_rules(&s);
	session_close(&s);
	return 0;
}
