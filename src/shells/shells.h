/* Shells: directories of wrapped tools.
 *
 *   <shell>/bin/<name>             symlink to moat-wrapper
 *   <shell>/share/moat/manifest    "<name>\t/absolute/real/path" per line
 *   <shell>/share/moat/env         optional "KEY=VALUE" lines
 *
 * The parsers are pure; the rest finds and writes shells on disk. A shell
 * under the project root can be rewritten by sandboxed code, so its files
 * are treated as hostile input. */
#ifndef MOAT_SHELLS_SHELLS_H
#define MOAT_SHELLS_SHELLS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/strbuf.h"
#include "base/util.h"
#include "profile/profile.h"

#define MANIFEST_REL "share/moat/manifest"
#define ENVFILE_REL  "share/moat/env"
#define MANIFEST_MAX (1u << 20)

struct manifest_entry {
	char *name;
	char *path;
};

struct manifest {
	struct manifest_entry *entries;
	size_t n;
};

int manifest_parse(const char *buf, size_t len, const char *file, struct manifest *out,
                   struct error *err);
const char *manifest_lookup(const struct manifest *m, const char *name);
void manifest_free(struct manifest *m);
/* Render a manifest back to its file format. Caller frees. */
char *manifest_format(const struct manifest *m);
/* Add or replace an entry. */
void manifest_set(struct manifest *m, const char *name, const char *path);

/* Parse an env file; $MOAT_ROOT and ${MOAT_ROOT} in values become root.
 * Blanks around a line, its name and its value are trimmed; a line that is
 * still not KEY=VALUE is skipped, with "FILE:LINE: ..." and a newline added
 * to warn (when not NULL) for the caller to print, as the original tool
 * skips it. Variables that steer moat itself (MOAT_*), the dynamic loader
 * (LD_*), HOME or TMPDIR are refused (-1): an env file may sit where
 * sandboxed code can write. */
int envfile_parse_warn(const char *buf, size_t len, const char *file, const char *root,
                       struct env_change **out, size_t *n, struct strbuf *warn, struct error *err);
/* envfile_parse_warn that drops the warnings. */
int envfile_parse(const char *buf, size_t len, const char *file, const char *root,
                  struct env_change **out, size_t *n, struct error *err);
void env_changes_free(struct env_change *env, size_t n);

/* Is NAME usable as a tool name (a single path component, printable)? */
const char *tool_name_refusal(const char *name);

/* Where local shells live: $MOAT_SHELLS_PATH, else $XDG_DATA_HOME/moat/shells,
 * else ~/.local/share/moat/shells of the real HOME. Caller frees. */
char *shells_search_path(const char *home);

/* The names of the local shells: each directory with a bin/ in an absolute
 * entry of the search path. NULL-terminated; free with path_list_free. */
char **shells_local_names(const char *home);

/* How shell_find turns a local candidate path (absolute) into the canonical
 * directory it will use: 0 with *canon (NULL and errno when nothing is there), or -1
 * with err to refuse it. NULL means realpath; a session passes a resolver
 * that refuses links planted where sandboxed code can write. */
typedef int shell_resolve_fn(const char *path, char **canon, void *arg, struct error *err);

/* Find a shell by name (a name with a slash is a path, FLAKE#ATTR a nix
 * flake, anything else is looked up on shells_search_path()) and check that
 * it has bin/. *dir gets the canonical shell directory, exactly as resolve
 * returned it: never resolved a second time. */
int shell_find(const char *name, const char *home, shell_resolve_fn *resolve, void *arg, char **dir,
               struct error *err);

/* Could a bare shell name resolve when used: a local shell, or one the
 * installed flake defines? 0, or -1 with shell_find's "unknown shell"
 * message. Paths, FLAKE#ATTR and, with MOAT_FLAKE set, every name pass:
 * only nix could tell, and this runs no nix. For moat link. */
int shell_check_name(const char *name, const char *home, struct error *err);

/* Does every entry of <shell_dir>/bin lead to a moat-wrapper? A dangling
 * link, a link elsewhere or an executable of its own would run the tool
 * unconfined from PATH (a dangling link is skipped and the next tool of
 * that name runs). *wrappers gets the distinct canonical moat-wrappers the
 * entries lead to (NULL-terminated; path_list_free). -1 with err naming the
 * broken entries (status EXIT_MOAT_FAILED). A readdir, then a readlink per
 * entry and a realpath per distinct link text. */
int shell_check_bin(const char *shell_dir, char ***wrappers, struct error *err);

/* Is canon (canonical) a moat-wrapper: a regular file of that name? */
bool shell_is_wrapper(const char *canon);

/* Load <shell_dir>/share/moat/manifest. */
int manifest_load(const char *shell_dir, struct manifest *m, struct error *err);

#endif
