/* Is a path somewhere sandboxed code could have written? */
#ifndef MOAT_CONTEXT_WRITABLE_H
#define MOAT_CONTEXT_WRITABLE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/util.h"

/* Whether path (canonical) lies under one of areas (context_writable_areas,
 * with root the sandbox root among them or NULL) or under a past sandbox
 * root (one moat's record names, or a directory with an old .moat/ marker
 * in it, at path or above); with below,
 * also whether one of them lies under path (searched to a bounded size: a
 * tree too large to search counts as holding one). *why (caller frees) says
 * which, e.g. "under the sandbox root /home/you/proj". */
bool context_writable_place(const char *path, bool below, const char *root,
                            const char *const *areas, size_t n, char **why);

#endif
