/* A private /dev/shm and System V IPC for a session's sandbox. */
#ifndef MOAT_SANDBOX_NAMESPACES_H
#define MOAT_SANDBOX_NAMESPACES_H

#include <stdbool.h>

/* Move the calling process into its own IPC and mount namespaces with an
 * empty tmpfs on /dev/shm, so POSIX semaphores and shared memory (Python's
 * multiprocessing, test databases) work without reaching the host's. Root
 * needs no user namespace; anyone else gets one that maps only their own
 * uid and gid. Returns true when /dev/shm is now private; false when the
 * kernel refused a step (user namespaces disabled, or already inside a
 * Landlock domain, which forbids mounts), in which case /dev/shm must stay
 * denied. Must be called single-threaded, before Landlock. */
bool ns_private_ipc(void);

#endif
