#include "launch/plan.h"

#include <stdlib.h>
#include <string.h>

#include "base/path.h"
#include "context/own.h"
#include "context/programs.h"
#include "context/protect.h"
#include "context/settings.h"

/* config.zon did not parse: if it lies where sandboxed code can write, that
 * is the news, not the syntax error sandboxed code may have made. */
static void explain_unparsable(struct launch *l, struct error *err)
{
	const char *root = l->ctx.root;
	struct own_places o;
	own_gather(&o, l->ctx.home, OWN_CONFIG);
	struct own_judge j = {.root = root, .areas = &root, .n = 1, .home = l->ctx.home};
	struct error placed = {0};
	if (own_check(&o, &j, &placed) < 0)
		*err = placed;
	own_free(&o);
}

int plan_read_config(struct launch *l, const char *home, struct error *err)
{
	cleanup_free char *path = settings_path(home);
	sb_addf(&l->notes, "config %s\n", path);
	return settings_read(path, &l->cfg, NULL, NULL, err);
}

int plan_use_config(struct launch *l, int read, struct error *err)
{
	if (read < 0) {
		explain_unparsable(l, err);
		return -1;
	}
	context_set_areas(&l->ctx, &l->cfg);
	return 0;
}

int plan_load_config(struct launch *l, struct error *err)
{
	return plan_use_config(l, plan_read_config(l, l->ctx.home, err), err);
}

int plan_check_own(struct launch *l, unsigned kinds, const char *const *binaries, size_t nbinaries,
                   struct error *err)
{
	struct own_places o;
	own_gather(&o, l->ctx.home, kinds);
	for (size_t i = 0; i < nbinaries; i++)
		if (binaries[i])
			own_add(&o, OWN_BINARY, path_basename(binaries[i]), binaries[i]);
	struct own_judge j = {.root = l->ctx.root,
	                      .areas = (const char *const *)l->ctx.areas,
	                      .n = l->ctx.nareas,
	                      .cfg = &l->cfg,
	                      .home = l->ctx.home};
	int rc = own_check(&o, &j, err);
	own_free(&o);
	return rc;
}

int plan_build_profile(struct launch *l, const char *bin, struct error *err)
{
	if (context_add_config_grants(&l->ctx, &l->cfg, bin, &l->warnings, err) < 0 ||
	    context_add_config_sockets(&l->ctx, &l->cfg, err) < 0 ||
	    sandbox_probe(&l->support, err) < 0)
		return -1;
	if (context_build_profile(&l->ctx, context_platform(), &l->profile, err) < 0)
		return -1;
	context_protect(&l->ctx, &l->cfg, &l->profile);
	programs_protect(&l->profile, getenv("PATH"), l->ctx.home);
	config_net_policy(&l->cfg, bin, l->ctx.root, l->ctx.home, &l->profile.net);
	return 0;
}

void launch_close_held(struct launch *l)
{
	context_close_held(&l->ctx);
	for (size_t i = 0; i < l->profile.nrules; i++)
		l->profile.rules[i].held = false;
}

void launch_free(struct launch *l)
{
	context_free(&l->ctx);
	config_free(&l->cfg);
	profile_free(&l->profile);
	overrides_free(&l->overrides);
	secrets_free(&l->secrets);
	free(l->scrubbed);
	free(l->unrooted);
	free(l->exe);
	free(l->name);
	free(l->path);
	free(l->jailbreak_env);
	name_list_free(&l->protected_written);
	sb_release(&l->warnings);
	sb_release(&l->info);
	sb_release(&l->notes);
	*l = (struct launch){0};
}
