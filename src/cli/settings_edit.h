/* Editing config.zon from the command line: locked, atomic, and never on a
 * file that does not parse (the config/ edit functions refuse those). */
#ifndef MOAT_CLI_SETTINGS_EDIT_H
#define MOAT_CLI_SETTINGS_EDIT_H

#include "base/strbuf.h"
#include "base/util.h"

/* One edit: buf/len is the current file (len 0 when missing). Returns 1 when
 * out holds a changed file, 0 when nothing changes, -1 on error. */
typedef int settings_edit_fn(const char *buf, size_t len, const char *file, const char *home,
                             void *arg, struct strbuf *out, struct error *err);

/* Run fn on config.zon under an exclusive lock (so two edits at the same
 * moment both land) and replace the file atomically when it changed.
 * Returns what fn returned. */
int settings_edit(const char *home, settings_edit_fn *fn, void *arg, struct error *err);

/* The real HOME, canonical when it exists. Caller frees; NULL + err. */
char *settings_home(struct error *err);

#endif
