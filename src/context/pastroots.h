/* The record of past sandbox roots: every directory a sandbox was given to
 * write, kept in moat's state directory ($XDG_STATE_HOME/moat/roots),
 * outside every root and grant. What sandboxed code wrote there may be
 * trusted unconfined later (a nix on PATH, a flake, a jailbroken binary),
 * so moat judges those places by this record. It used to judge them by a
 * .moat/ directory inside the root, which the sandbox itself can delete;
 * such markers still count (context/writable.c), their absence proves
 * nothing.
 *
 * The file holds canonical absolute paths, each ended by a NUL byte (a
 * path may hold any other byte). A root already under a recorded one is
 * not added, and a new root drops the recorded ones under it, so the file
 * stays as small as the user's set of projects: one read on every start of
 * moat and moat-wrapper. */
#ifndef MOAT_CONTEXT_PASTROOTS_H
#define MOAT_CONTEXT_PASTROOTS_H

#include <stdbool.h>

#include "base/util.h"

#define PAST_ROOTS_FILE "roots"
#define PAST_ROOTS_MAX  (4u << 20)

/* Read the record of the user whose real home is home, once per process
 * (later calls return at once). A missing file is an empty record. */
void past_roots_load(const char *home);

/* Why path (canonical) must count as a place a sandbox wrote, by the
 * record alone: "under R, a past sandbox root" (path at or below a
 * recorded root R), with below also "it holds R, a past sandbox root";
 * "perhaps under a past sandbox root (moat cannot read its record ...)"
 * when the record was never loaded or could not be read (fail closed);
 * NULL when none applies. Caller frees. */
char *past_roots_why(const char *path, bool below);

/* Add root (canonical) to home's record before a sandbox writes there:
 * atomically (under a lock, temp file, fsync, rename). Nothing to do
 * when root lies under a recorded root already. -1 with err when the
 * record cannot be written. */
int past_roots_record(const char *home, const char *root, struct error *err);

#endif
