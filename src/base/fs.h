/* File system helpers with the project's error conventions. */
#ifndef MOAT_BASE_FS_H
#define MOAT_BASE_FS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "base/util.h"

/* Read a whole regular file of at most max bytes. *data is NUL-terminated
 * and owned by the caller. Returns 0, or -1 with err set (errno kept). */
int fs_read_file(const char *path, size_t max, char **data, size_t *len, struct error *err);

/* The same for a file opened beneath dir (see platform_open_beneath): path
 * names it in messages. */
int fs_read_beneath(const char *dir, const char *rel, size_t max, char **data, size_t *len,
                    struct error *err);

/* Replace path with data so that a crash leaves either the old or the new
 * file, never half of one: temp file in the same directory, fsync, rename.
 * The mode of an existing file is kept; otherwise mode is used. */
int fs_write_atomic(const char *path, const void *data, size_t len, mode_t mode, struct error *err);

/* The same for the entry name of the directory dirfd, whose path dir names
 * it in messages. A symlink at name is replaced, never written through. */
int fs_write_atomic_at(int dirfd, const char *dir, const char *name, const void *data, size_t len,
                       mode_t mode, struct error *err);

/* Give the entry name of dirfd (a regular file, never followed through a
 * link) an inode of its own: a copy of any size, written beside it and
 * renamed over it, mode kept (and owner, for root). A file its owner
 * cannot read is made readable first. The file's other names keep the old
 * inode. */
int fs_copy_over_at(int dirfd, const char *dir, const char *name, struct error *err);

/* fs_read_file for the entry name of dirfd, refusing a symlink there. */
int fs_read_at(int dirfd, const char *dir, const char *name, size_t max, char **data, size_t *len,
               struct error *err);

/* Open the directory name inside dirfd, creating it with mode if missing,
 * for writing beneath it: refuses a symlink there, since whoever planted it
 * chose where the writes would land. Returns an fd, or -1 with err. */
int fs_subdir_at(int dirfd, const char *dir, const char *name, mode_t mode, struct error *err);

/* Take an exclusive lock for changing path: on "<path>.lock" beside it,
 * since path itself is replaced by rename. Creates the directory (0700) if
 * needed. Returns the lock's fd (close it to unlock), or -1 with err. */
int fs_lock_beside(const char *path, struct error *err);

/* mkdir -p with the given mode for new directories. */
int fs_mkdir_p(const char *path, mode_t mode, struct error *err);

/* The canonical current directory, or NULL with a message that says why
 * (for example a directory deleted under the caller). */
char *fs_cwd(struct error *err);

/* Make a path absolute against the current directory without resolving
 * symlinks, and normalize it. Caller frees. */
char *fs_absolute(const char *path, struct error *err);

bool fs_is_dir(const char *path);
bool fs_exists(const char *path);

/* The canonical form of a path that may not exist yet: its deepest existing
 * ancestor resolved, the rest appended. Caller frees; NULL + err if relative. */
char *fs_canonical_prefix(const char *path, struct error *err);

#endif
