/* Landlock's kernel interface, declared here because Debian 12's
 * <linux/landlock.h> stops at ABI 2. Values are the kernel's UAPI. */
#ifndef MOAT_SANDBOX_LANDLOCK_H
#define MOAT_SANDBOX_LANDLOCK_H

#include <stdint.h>

#include "profile/profile.h"

#define LL_CREATE_RULESET_VERSION (1u << 0)
#define LL_RULE_PATH_BENEATH      1

#define LL_FS_EXECUTE      (1ull << 0)
#define LL_FS_WRITE_FILE   (1ull << 1)
#define LL_FS_READ_FILE    (1ull << 2)
#define LL_FS_READ_DIR     (1ull << 3)
#define LL_FS_REMOVE_DIR   (1ull << 4)
#define LL_FS_REMOVE_FILE  (1ull << 5)
#define LL_FS_MAKE_CHAR    (1ull << 6)
#define LL_FS_MAKE_DIR     (1ull << 7)
#define LL_FS_MAKE_REG     (1ull << 8)
#define LL_FS_MAKE_SOCK    (1ull << 9)
#define LL_FS_MAKE_FIFO    (1ull << 10)
#define LL_FS_MAKE_BLOCK   (1ull << 11)
#define LL_FS_MAKE_SYM     (1ull << 12)
#define LL_FS_REFER        (1ull << 13) /* ABI 2 */
#define LL_FS_TRUNCATE     (1ull << 14) /* ABI 3 */
#define LL_FS_IOCTL_DEV    (1ull << 15) /* ABI 5 */
#define LL_FS_RESOLVE_UNIX (1ull << 16) /* ABI 9: connect to pathname unix sockets */

#define LL_RULE_NET_PORT   2           /* ABI 4 */
#define LL_NET_BIND_TCP    (1ull << 0) /* ABI 4 */
#define LL_NET_CONNECT_TCP (1ull << 1) /* ABI 4 */
/* The first ABI that judges TCP bind and connect, by port alone. */
#define LL_ABI_NET_TCP 4

#define LL_SCOPE_ABSTRACT_UNIX_SOCKET (1ull << 0) /* ABI 6 */
#define LL_SCOPE_SIGNAL               (1ull << 1) /* ABI 6 */

/* Rights that may be given on a regular file (the rest need a directory). */
#define LL_FS_FILE_RIGHTS                                                                          \
	(LL_FS_EXECUTE | LL_FS_WRITE_FILE | LL_FS_READ_FILE | LL_FS_TRUNCATE | LL_FS_IOCTL_DEV |   \
	 LL_FS_RESOLVE_UNIX)

struct ll_ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net; /* ABI 4; only for an off or ports policy */
	uint64_t scoped;             /* ABI 6 */
};

struct ll_path_beneath_attr {
	uint64_t allowed_access;
	int32_t parent_fd;
} __attribute__((packed));

struct ll_net_port_attr {
	uint64_t allowed_access;
	uint64_t port;
} __attribute__((packed));

/* The ABI moat acts on, given the kernel's (src/sandbox/landlock_abi.c: the
 * kernel's; the test build's stand-in can lower it). */
int landlock_abi_in_effect(int kernel_abi);

/* Records what sandbox_apply asks of the kernel, for the test build's
 * checks; does nothing in a release build. path may be NULL. */
void landlock_note(const char *what, const char *path, uint64_t value);

/* Filesystem rights the kernel of a given ABI knows. */
/* The ruleset attribute for a kernel of this ABI: every right and scope moat
 * uses that it knows. */
struct ll_ruleset_attr landlock_attr_for_abi(int abi);
uint64_t landlock_fs_rights_for_abi(int abi);

/* The Landlock rights one profile access level maps to (pure). MAKE_CHAR and
 * MAKE_BLOCK are never given: a device node made inside the root would be
 * a door to the raw disk or to kernel memory. */
uint64_t landlock_rights_for_access(unsigned access);

#endif
