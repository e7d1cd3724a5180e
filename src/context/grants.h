/* Grants from config.zon, added to a context. */
#ifndef MOAT_CONTEXT_GRANTS_H
#define MOAT_CONTEXT_GRANTS_H

#include "base/util.h"
#include "context/context.h"

/* Add the config's grants for binary bin (NULL: every grant, as a session
 * unions them) that apply at the context's root, with paths expanded and
 * made canonical. A config that fails to parse is an error. */
int context_add_config_grants(struct context *c, const char *bin, struct error *err);

#endif
