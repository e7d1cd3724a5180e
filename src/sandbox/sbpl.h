/* The macOS rendering of a profile: Seatbelt's profile language (SBPL).
 *
 * Pure string work, built and tested on every platform: `moat profile
 * --format=sbpl` prints it anywhere, and seatbelt.c (Darwin only) compiles
 * and applies it. The mapping from the model, in short:
 *
 *   the root            (subpath (param "MOAT_ROOT")), the value passed
 *                       to the compiler as a parameter (sbpl_params())
 *   other rules         (subpath "...") for directories, except rules of
 *                       origin DEVICE and TERMINAL: (literal "...")
 *   READ                file-read*
 *   WRITE               file* on a subpath (create, remove, rename, ...);
 *                       file-write-data on a literal (a device's data,
 *                       never its node)
 *   EXEC                process-exec and file-map-executable
 *   IOCTL               file-ioctl
 *   jailbreaks          (allow process-exec (literal "...") (with no-sandbox))
 *   network             (allow network*)
 *
 * plus (version 1), (deny default), (import "bsd.sb"), process-fork,
 * signals within the sandbox and sysctl-read. docs/macos.md says why. */
#ifndef MOAT_SANDBOX_SBPL_H
#define MOAT_SANDBOX_SBPL_H

#include <stdbool.h>
#include <stddef.h>

#include "base/envvars.h"
#include "base/strbuf.h"
#include "base/util.h"
#include "profile/profile.h"

/* The operations seatbelt.c asks the kernel about (sandbox_check) to tell
 * that a process is confined: here so that test_sbpl_names.c checks them
 * against the names macOS knows, with everything sbpl_render writes. */
#define SBPL_CHECK_READ_OP  "file-read-data"
#define SBPL_CHECK_WRITE_OP "file-write-data"

/* The parameter that carries the root; SBPL refers to it as (param "MOAT_ROOT"). */
#define SBPL_ROOT_PARAM ENV_ROOT /* named as the variable the tools get */

/* Render p as SBPL, appended to out. Deterministic: the same profile always
 * gives the same bytes. Every path (root, rules, jailbreaks) is checked
 * first, by path_refusal() and for normal form (no "." component, repeated
 * or trailing slash); a refused one is an error naming the path and the
 * reason, and then nothing at all is appended to out. Accepts a profile built
 * for either platform (one built for Linux says so in a comment).
 * Returns 0, or -1 with err set. */
int sbpl_render(const struct profile *p, struct strbuf *out, struct error *err);

/* A parameter the rendered profile refers to, which the compiler must be
 * given (libsandbox's sandbox_set_param(), or `sandbox-exec -D name=value`). */
struct sbpl_param {
	const char *name;
	const char *value; /* points into the profile */
};

#define SBPL_MAX_PARAMS 1

/* Fill params for p and return how many there are (today: the root). */
size_t sbpl_params(const struct profile *p, struct sbpl_param params[SBPL_MAX_PARAMS]);

/* The profile line a libsandbox compile error points at ("... at <input
 * string>, line 5" or "<input string>:5:1: ..."), or 0 when it names none. */
unsigned sbpl_error_line(const char *message);

/* A copy of line n (1-based) of text, without its newline, or NULL when
 * text has fewer lines. Caller frees. */
char *sbpl_line(const char *text, unsigned n);

#endif
