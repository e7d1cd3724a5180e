#include "launch/plan.h"

#include "context/protect.h"
#include "context/settings.h"

int plan_load_config(struct launch *l, struct error *err)
{
	cleanup_free char *path = settings_path(l->ctx.home);
	sb_addf(&l->notes, "config %s\n", path);
	return settings_load(l->ctx.home, l->ctx.root, &l->cfg, err);
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
	return 0;
}

void launch_free(struct launch *l)
{
	context_free(&l->ctx);
	config_free(&l->cfg);
	profile_free(&l->profile);
	overrides_free(&l->overrides);
	free(l->exe);
	free(l->name);
	free(l->path);
	free(l->jailbreak_env);
	sb_release(&l->warnings);
	sb_release(&l->info);
	sb_release(&l->notes);
	*l = (struct launch){0};
}
