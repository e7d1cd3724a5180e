/* config.zon as the context sees it: where it is, loading it safely, and
 * turning its grants into profile input. */
#ifndef MOAT_CONTEXT_SETTINGS_H
#define MOAT_CONTEXT_SETTINGS_H

#include "base/strbuf.h"
#include "base/util.h"
#include "config/config.h"
#include "context/context.h"

/* $XDG_CONFIG_HOME/moat/config.zon, else ~/.config/moat/config.zon, from the
 * real HOME. Caller frees. */
char *settings_path(const char *home);

/* Read path and parse it. A missing file is an empty config with an empty
 * buffer. The file's bytes are handed back (NUL-terminated, caller frees)
 * when buf_out is not NULL, so that an edit works on exactly what was checked. */
int settings_read(const char *path, struct config *out, char **buf_out, size_t *len_out,
                  struct error *err);

/* Load config.zon (a missing file is an empty config). A file that fails to
 * parse is an error. So is one under the sandbox root (root may be NULL),
 * where sandboxed code could rewrite its own grants. */
int settings_load(const char *home, const char *root, struct config *cfg, struct error *err);

/* Add the grants in force for binary bin (NULL: every grant, as a session
 * unions them) at the context's root, paths expanded and made canonical.
 * A granted path that does not exist yet is kept, in the canonical form it
 * will have (context_resolve_unplanted_absent): Seatbelt rules on it as the
 * original tool does, the Landlock backend gives it no rule, and `moat
 * profile` shows it as absent. One that leads through a symlink inside the
 * root or a write grant is skipped, with a line appended to warnings that says
 * why: one such link must not stop every tool in the project. A relative
 * path or one with ".." is refused before anything resolves it: resolved
 * against the current directory it would grant something else. */
int context_add_config_grants(struct context *c, const struct config *cfg, const char *bin,
                              struct strbuf *warnings, struct error *err);

/* Where sandboxed code can write, canonical: the root (if not NULL) and
 * every write grant in config.zon (of any binary, at any root: a process
 * left from another run may hold it). NULL-terminated, *n long; free with
 * context_free_areas. Loads home's record of past roots too
 * (context/pastroots.h), which context_writable_place consults. */
char **context_writable_areas(const char *root, const char *home, const struct config *cfg,
                              size_t *n);
void context_free_areas(char **areas, size_t n);

/* Set c->areas from the root and cfg's write grants, once per plan: the
 * grants, the shells and moat's own places are judged against them. */
void context_set_areas(struct context *c, const struct config *cfg);

/* shell_find's resolver (shell_resolve_fn) for a session or moat check:
 * context_resolve_unplanted against areas, a context_writable_areas list. */
int context_resolve_shell(const char *path, char **canon, void *areas, struct error *err);

/* The current directory as a sandbox root for the writable areas, or NULL
 * when it could not be one (HOME and its ancestors never are). */
const char *context_root_or_null(const char *cwd, const char *home);

/* Add config.zon's .sockets: unix sockets the sandbox may connect to. */
int context_add_config_sockets(struct context *c, const struct config *cfg, struct error *err);

#endif
