/* The backend interface: what the running kernel can enforce, and applying
 * a profile to the calling process. One implementation per platform
 * (landlock.c + seccomp.c on Linux, seatbelt.c on macOS), chosen by the
 * Makefile. */
#ifndef MOAT_SANDBOX_SANDBOX_H
#define MOAT_SANDBOX_SANDBOX_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "base/util.h"
#include "profile/profile.h"

struct sandbox_support {
	int abi;                /* Landlock ABI version, 0 when unavailable */
	char not_enforced[512]; /* what this ABI leaves open, then "; refused instead: "
	                         * and what moat refuses in its place; "" if nothing */
};

/* Learn what the kernel supports. Returns -1 with err (status 125 and a
 * hint) when no sandbox can be applied at all: moat never runs a tool
 * unconfined silently. */
int sandbox_probe(struct sandbox_support *s, struct error *err);

/* Say what is not enforced for a session that asks for its own PID
 * namespace: other processes are out of its reach whatever the ABI. */
void sandbox_note_own_pids(struct sandbox_support *s);

/* Confine the calling process (and all it will exec) to the profile:
 * no_new_privs, the seccomp filter, then one Landlock ruleset. Must be called
 * single-threaded, right before exec. root_fd, when not -1, is p->root
 * opened already (context.h): its rule is made on that, not on a lookup;
 * so is a rule that holds its path's descriptor (struct rule's held: a
 * grant's, close-on-exec, left for the exec to close). */
int sandbox_apply(const struct profile *p, const struct sandbox_support *s, int root_fd,
                  struct error *err);

/* -1 with err (status 125) when the kernel cannot enforce p's network
 * policy: ports below Landlock ABI 4. sandbox_apply checks it too. */
int sandbox_net_check(const struct profile *p, const struct sandbox_support *s, struct error *err);

/* In a session's supervisor, before sandbox_apply: for an off or hosts
 * policy, a network namespace of the session's own with its loopback up,
 * so that servers and clients inside the session still meet (p->net_own_ns
 * says it was made). Without one (no user namespace for an unprivileged
 * user) off is enforced by refusing IP sockets, loopback included, and
 * hosts is refused (sandbox_apply). */
void sandbox_own_network(struct profile *p);

/* Start a session's first process, which runs fn(arg) and exits with what
 * it returns. With want_isolation it gets its own world (Linux: PID, mount,
 * IPC and, for a user without CAP_SYS_ADMIN, user namespaces), and
 * *isolated (set before fn runs) says whether it did; where the kernel
 * refuses that world, nothing is started: -1 with errno, the refusal, and
 * whether a plain child will do instead (want_isolation false: a fork) is
 * the caller's to decide. macOS has no namespaces: a plain fork there, not
 * isolated. Isolated on Linux it shares the caller's memory, errno
 * included (PLATFORM_QUIET_RAW), so they take turns: while fn works the
 * caller only waits for its word, signals held; once the caller goes on,
 * fn reads nothing the caller changes and calls nothing but base/platform.h's
 * quiet calls and _exit. Returns the child's pid, -1 with errno when no
 * child could be made. */
pid_t sandbox_spawn(bool want_isolation, bool *isolated, int (*fn)(void *), void *arg);

/* In that child, before sandbox_apply: the session's mounts when isolated
 * (a /proc of its own, empty private /tmp, /var/tmp and /dev/shm with the
 * rules below them bound back in, read-only unless writable, and
 * ORIGIN_PROTECTED paths bound read-only). The ORIGIN_PRIVATE rules for
 * what could not be made private are dropped, so the host's stay denied.
 * Not isolated, it protects as sandbox_protect does and returns as it
 * does: 1 when protected paths stay writable. */
int sandbox_private_mounts(struct profile *p, bool isolated, struct error *err);

/* For moat-wrapper (and a session that could not get its own world), before
 * sandbox_apply: when the profile protects anything, a mount namespace of
 * this process's own (with a user namespace mapping only its ids, unless
 * root) with the protected paths bound onto themselves, read-only (or,
 * pinned, writable). Returns 0 when done or nothing is protected, 1 when
 * the kernel gives no namespace (user namespaces off, nested in a session's
 * Landlock domain, the user's namespace quota used up), with errno saying
 * why: the paths then stay as writable as the rest of the root, and
 * whether to go on so is the caller's decision; -1 with err when a mount
 * failed. */
int sandbox_protect(const struct profile *p, struct error *err);

/* Would a session here get its own world? Tried in a child process, so
 * the caller is left as it was; for `moat profile`. */
bool sandbox_isolation_works(void);

/* Would sandbox_protect find the mount namespace it needs? Tried in a
 * child process; for `moat check`: 0 when it would, else the kernel's
 * refusal (an errno). */
int sandbox_protection_refusal(void);

/* A warning for the user when the profile lets unix sockets through on a
 * kernel that cannot confine them by path (Landlock ABI < 9), or NULL. */
const char *sandbox_socket_warning(const struct profile *p, const struct sandbox_support *s);

/* Is this process already inside a moat sandbox for this root (NULL: for
 * any root)? The MOAT_SANDBOX variable says so only as a hint; the answer
 * comes from the kernel (paths outside the profile must be refused to us),
 * so a variable forged outside a sandbox cannot switch confinement off. */
bool sandbox_already_confined(const char *root, const char *home);

#endif
