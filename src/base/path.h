/* Pure path arithmetic on strings: no system calls, so it is unit-testable
 * and safe to use from profile/ and config/. */
#ifndef MOAT_BASE_PATH_H
#define MOAT_BASE_PATH_H

#include <stdbool.h>
#include <stddef.h>

/* True when path is dir itself or lies beneath it ("/a/bc" is not under "/a/b"). */
bool path_is_under(const char *path, const char *dir);

/* "a" + "b" -> "a/b", without doubling a slash. Caller frees. */
char *path_join(const char *a, const char *b);

/* Everything before the last slash ("/" for "/x", "." for "x"). Caller frees. */
char *path_dirname(const char *path);

/* The part after the last slash; points into path. */
const char *path_basename(const char *path);

/* Does s end with suffix ("pre-commit.sample", ".sample")? */
bool path_has_suffix(const char *s, const char *suffix);

/* Has path a ".." component? */
bool path_has_dotdot(const char *path);

/* Why a path cannot be used as a sandbox rule, or NULL when it can:
 * relative, containing a ".." component, quotes, backslashes or control
 * characters. Each would otherwise match nothing or break a rendered profile. */
const char *path_refusal(const char *path);

/* "~" or "~/x" -> home-based path; others copied. Caller frees. */
char *path_expand_tilde(const char *path, const char *home);

/* The inverse, for storing paths portably: "/home/u/x" -> "~/x". Caller frees. */
char *path_contract_tilde(const char *path, const char *home);

/* Remove "." components, repeated and trailing slashes of an absolute path
 * (".." is left alone: it is refused, not interpreted). Caller frees. */
char *path_normalize(const char *path);

/* Why path may not be a sandbox root or grant because of home: "it is your
 * home directory", "it contains your home directory", or NULL. Such a path
 * would undo the profile: everything home is meant to withhold. */
const char *path_home_refusal(const char *path, const char *home);

/* Split a colon-separated list (PATH, MOAT_SHELLS_PATH, MOAT_JAILBREAK)
 * into its entries, empty ones kept as "". NULL-terminated; *n entries (n
 * may be NULL). Free with path_list_free. */
char **path_list_split(const char *list, size_t *n);
void path_list_free(char **entries);

/* Is path /proc/PID or below it: one process's files, whose id changes
 * from run to run, so that no grant of it means anything the next time? */
bool path_is_proc_pid(const char *path);

#endif
