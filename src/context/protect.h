/* The protected paths of a project: files in a writable place that
 * something outside the sandbox later runs or trusts, kept read-only
 * inside it (git's hooks and config, and config.zon's .protect list). */
#ifndef MOAT_CONTEXT_PROTECT_H
#define MOAT_CONTEXT_PROTECT_H

#include "config/config.h"
#include "context/context.h"
#include "profile/profile.h"

/* Add the protected paths of the project at c->root to p (built from c):
 * for the repository the root is in (a .git directory, or a .git file
 * naming a linked worktree's or a submodule's git directory, whose common
 * directory is then the one protected): the git directory pinned, its
 * hooks/ and config read-only (made empty when absent, so the sandbox
 * cannot make them), and the same for every submodule's git directory
 * under modules/; a .git file itself read-only; the hooks directory named
 * by core.hooksPath and the files named by include.path and
 * includeIf.*.path in its config; the same for every other repository
 * already in the root, two levels down at most; then cfg's .protect
 * paths that exist. Only paths p lets the
 * sandbox write are protected: Landlock keeps the rest out of reach already. Nothing at all where
 * cfg opts out
 * (.unprotected). Reads the repository; changes nothing. */
void context_protect(const struct context *c, const struct config *cfg, struct profile *p);

#endif
