/* Where the programs live that the user runs unconfined: the system
 * directories and the directories on PATH. Sandboxed code that could
 * write there could replace a program the user runs outside the sandbox
 * later, so no write grant may be such a directory or lie in one, nor hold
 * a system directory; a PATH directory below a write grant (~/.cargo/bin
 * below ~/.cargo) stays read-only in the sandbox instead. */
#ifndef MOAT_CONTEXT_PROGRAMS_H
#define MOAT_CONTEXT_PROGRAMS_H

#include "profile/profile.h"

/* Why a write grant of path (canonical) would reach such programs, naming
 * the directory, or NULL. path_env is the PATH to judge by (NULL: none);
 * entries that are home or hold it (every grant would lie in them) and
 * relative ones are not judged. Raw, for error_set and the like (which
 * show names visibly). Caller frees. */
char *programs_write_refusal(const char *path, const char *path_env, const char *home);

/* Keep every PATH directory strictly below a write rule of p read-only
 * (profile_protect), made empty when absent, so that the grant cannot
 * plant a program there. */
void programs_protect(struct profile *p, const char *path_env, const char *home);

/* The hint for a refused write grant: where such programs go instead. */
extern const char programs_hint[];

#endif
