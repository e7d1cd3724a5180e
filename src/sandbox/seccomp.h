/* The seccomp filter every moat sandbox carries, for what Landlock cannot
 * express: keystroke injection into the terminal and opening files by
 * handle. */
#ifndef MOAT_SANDBOX_SECCOMP_H
#define MOAT_SANDBOX_SECCOMP_H

#include "base/util.h"

/* Install the filter on the calling thread (no_new_privs must be set). */
int seccomp_install(struct error *err);

#endif
