#include "context/grants.h"

int context_add_config_grants(struct context *c, const char *bin, struct error *err)
{
	/* Wired to config.zon in the config change; until then there are none. */
	(void)c, (void)bin, (void)err;
	return 0;
}
