/* statx(2) for judge.c, through the system call: musl (1.2.3, Debian 12)
 * has neither the wrapper nor struct statx, and the kernel's <linux/stat.h>
 * redefines what musl's <sys/stat.h> and <fcntl.h> define, so this file
 * takes both from the kernel's headers. */
#ifdef __linux__
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/fcntl.h> /* AT_FDCWD, AT_SYMLINK_NOFOLLOW */
#include <linux/stat.h>

#include "trace/linux.h"

static bool stat_x(const char *path, unsigned mask, struct statx *sx)
{
	return syscall(SYS_statx, AT_FDCWD, path, AT_SYMLINK_NOFOLLOW, mask, sx) == 0;
}

static bool attr_set(const char *path, uint64_t attrs)
{
	struct statx sx;
	return stat_x(path, 0, &sx) && (sx.stx_attributes & sx.stx_attributes_mask & attrs) != 0;
}

bool file_frozen(const char *path)
{
	return attr_set(path, STATX_ATTR_IMMUTABLE | STATX_ATTR_APPEND);
}

bool file_append_only(const char *path)
{
	return attr_set(path, STATX_ATTR_APPEND);
}

uint64_t file_mount_id(const char *path)
{
	struct statx sx;
	if (!stat_x(path, STATX_MNT_ID, &sx))
		return 0;
	return (sx.stx_mask & STATX_MNT_ID) ? sx.stx_mnt_id
	                                    : ((uint64_t)sx.stx_dev_major << 32 | sx.stx_dev_minor);
}
#endif
