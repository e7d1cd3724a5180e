/* moat link [DIR SHELL...], moat unlink DIR and moat detect [DIR]: which
 * shells a project gets when none are named. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fs.h"
#include "base/path.h"
#include "base/platform.h"
#include "cli/cli.h"
#include "cli/settings_edit.h"
#include "config/config.h"
#include "context/settings.h"
#include "shells/shells.h"

struct link_args {
	char *dir;
	const char *const *shells;
	size_t nshells;
};

/* DIR made absolute, and canonical when it exists, so it matches the root
 * that moat run computes from the current directory. */
static char *link_dir(const char *dir, struct error *err)
{
	char *canon = platform_canonical_path(dir);
	if (canon)
		return canon;
	return fs_absolute(dir, err);
}

static int edit_link(const char *buf, size_t len, const char *file, const char *home, void *arg,
                     struct strbuf *out, struct error *err)
{
	const struct link_args *a = arg;
	return config_edit_link(buf, len, file, home, a->dir, a->shells, a->nshells, out, err);
}

static int edit_unlink(const char *buf, size_t len, const char *file, const char *home, void *arg,
                       struct strbuf *out, struct error *err)
{
	const struct link_args *a = arg;
	return config_edit_unlink(buf, len, file, home, a->dir, out, err);
}

static int list_links(const char *home, const struct global_opts *g)
{
	struct error err = {0};
	struct config cfg;
	if (settings_load(home, NULL, &cfg, &err) < 0)
		return cli_fail(&err, 1);
	for (size_t i = 0; i < cfg.nlinks; i++) {
		printf("%s", cfg.links[i].dir);
		for (size_t j = 0; j < cfg.links[i].nshells; j++)
			printf(" %s", cfg.links[i].shells[j]);
		printf("\n");
	}
	if (!cfg.nlinks) {
		cleanup_free char *file = settings_path(home);
		cli_info(g, "no links in %s", file);
	}
	config_free(&cfg);
	return 0;
}

/* moat unlink DIR, or moat link -r DIR (self says which). A directory with
 * no link is what the user asked for already: not an error. */
static int unlink_dir(const struct command *self, const struct cli_args *a,
                      const struct global_opts *g)
{
	if (a->noperands != 1)
		return cli_usage_error(self, "want DIR");
	struct error err = {0};
	cleanup_free char *home = settings_home(&err);
	if (!home)
		return cli_fail(&err, 1);
	struct link_args la = {link_dir(a->operands[0], &err), NULL, 0};
	if (!la.dir)
		return cli_fail(&err, 1);
	int rc = settings_edit(home, edit_unlink, &la, &err);
	if (rc >= 0)
		cli_info(g, "%s %s", rc ? "unlinked" : "no link to remove for", la.dir);
	free(la.dir);
	return rc < 0 ? cli_fail(&err, 1) : 0;
}

int cmd_link(const struct cli_args *a, const struct global_opts *g)
{
	const struct command *self = cli_command("link");
	if (a->given[OPT_REMOVE])
		return unlink_dir(self, a, g);
	struct error err = {0};
	cleanup_free char *home = settings_home(&err);
	if (!home)
		return cli_fail(&err, 1);
	if (a->noperands == 0)
		return list_links(home, g);
	if (a->noperands < 2)
		return cli_usage_error(self, "name at least one shell for %s", a->operands[0]);
	for (int i = 1; i < a->noperands; i++) {
		const char *name = a->operands[i];
		const char *why = strchr(name, '/') ? NULL : tool_name_refusal(name);
		if (why)
			return cli_usage_error(self, "bad shell name '%s': %s", name, why);
	}
	/* A typo linked would fail every later run there, far from here. */
	for (int i = 1; i < a->noperands; i++)
		if (shell_check_name(a->operands[i], home, &err) < 0)
			return cli_fail(&err, 1);
	struct link_args la = {link_dir(a->operands[0], &err), (const char *const *)a->operands + 1,
	                       (size_t)a->noperands - 1};
	if (!la.dir)
		return cli_fail(&err, 1);
	if (!fs_exists(la.dir)) {
		struct strbuf sb = STRBUF_INIT;
		sb_addf(&sb, "'%s' does not exist: the link applies once it does", la.dir);
		warning_print("moat", sb.buf);
		sb_release(&sb);
	}
	int rc = settings_edit(home, edit_link, &la, &err);
	if (rc >= 0)
		cli_info(g, "%s %s", rc ? "linked" : "already linked:", la.dir);
	free(la.dir);
	return rc < 0 ? cli_fail(&err, 1) : 0;
}

int cmd_unlink(const struct cli_args *a, const struct global_opts *g)
{
	return unlink_dir(cli_command("unlink"), a, g);
}

static bool marker_exists(const char *dir, const char *marker, void *unused)
{
	(void)unused;
	cleanup_free char *p = path_join(dir, marker);
	return fs_exists(p);
}

int cmd_detect(const struct cli_args *a, const struct global_opts *g)
{
	(void)g;
	if (a->noperands > 1)
		return cli_usage_error(cli_command("detect"), "want at most one DIR");
	struct error err = {0};
	cleanup_free char *home = settings_home(&err);
	if (!home)
		return cli_fail(&err, 1);
	const char *named = a->noperands ? a->operands[0] : NULL;
	cleanup_free char *dir = named ? platform_canonical_path(named) : fs_cwd(&err);
	if (!dir) {
		if (named)
			error_set(&err, "cannot use '%s': no such directory", named);
		return cli_fail(&err, 1);
	}
	struct config cfg;
	if (settings_load(home, NULL, &cfg, &err) < 0)
		return cli_fail(&err, 1);
	const char **shells;
	size_t n;
	enum config_shells_from from =
	    config_detect_shells(&cfg, dir, home, marker_exists, NULL, &shells, &n);
	printf("shells:");
	for (size_t i = 0; i < n; i++)
		printf(" %s", shells[i]);
	printf("%s\n", from == CONFIG_SHELLS_LINK     ? " (linked)"
	               : from == CONFIG_SHELLS_DETECT ? " (detected)"
	                                              : " none");
	printf("default:");
	for (size_t i = 0; i < cfg.ndefault; i++)
		printf(" %s", cfg.default_shells[i]);
	printf("%s\n", cfg.ndefault ? "" : " none");
	free(shells);
	config_free(&cfg);
	return 0;
}
