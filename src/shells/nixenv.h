/* The environment nix runs with. moat starts nix unconfined, and nix
 * starts git (and git ssh, nix its build hook) by name from PATH, and both
 * read their configuration and helpers from variables. So nix gets an
 * environment moat judged, never the caller's as it stands:
 *   - PATH keeps only absolute entries that lie nowhere sandboxed code can
 *     write (the root, a write grant, a past root), as for nix itself;
 *   - every GIT_* variable is removed: git's config, its helpers and where
 *     it looks (GIT_DIR, GIT_CONFIG_*, GIT_SSH_COMMAND, GIT_ASKPASS,
 *     GIT_EXEC_PATH, ...) are set in git's own config files instead;
 *   - every NIX_* variable, and those naming files nix, git, curl and the
 *     dynamic loader read (XDG_CONFIG_HOME, XDG_CONFIG_DIRS, LD_PRELOAD,
 *     LD_LIBRARY_PATH, LD_AUDIT, SSL_CERT_FILE, SSL_CERT_DIR,
 *     CURL_CA_BUNDLE), is checked: an absolute path in its value that lies
 *     where sandboxed code can write refuses the run, as does a relative
 *     one in a variable that holds paths (it would be read from the current
 *     directory, the project).
 * docs/nix.md lists them. */
#ifndef MOAT_SHELLS_NIXENV_H
#define MOAT_SHELLS_NIXENV_H

#include <stdbool.h>

#include "base/util.h"

/* Could sandboxed code write path (canonical)? *why (caller frees) says where. */
typedef bool nix_writable_fn(const char *path, bool below, char **why);

/* The environment to start nix with, from env (NULL-terminated "K=V"),
 * judged by writable (NULL: nothing is writable). NULL with err (status
 * EXIT_MOAT_FAILED) when a variable must not reach nix; free with
 * nix_env_free. *dropped (caller frees, may be NULL) lists what was left
 * out, for -v. */
char **nix_env_judge(const char *const *env, nix_writable_fn *writable, char **dropped,
                     struct error *err);
void nix_env_free(char **env);

#endif
