/* The few process facts that differ between Linux and macOS, one file per
 * platform (platform_linux.c, platform_darwin.c), chosen by the Makefile. */
#ifndef MOAT_BASE_PLATFORM_H
#define MOAT_BASE_PLATFORM_H

#include <fcntl.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

/* Open flag for a directory used only to look names up in: O_PATH on
 * Linux (no read permission needed), a plain read-only open on macOS,
 * which has no O_PATH. */
#ifdef O_PATH
#define O_LOOKUP O_PATH
#else
#define O_LOOKUP O_RDONLY
#endif

/* Was moat built for macOS? Then the profile it enforces is built for
 * macOS (context_platform). */
bool platform_is_macos(void);

/* The canonical path of the running executable. Caller frees; NULL on failure. */
char *platform_self_exe(void);

/* The canonical path of an existing file, as realpath(3) gives it. On
 * Linux the kernel names it once (an O_PATH descriptor read back through
 * /proc/self/fd) instead of a readlink per component, which on a root 128
 * directories deep cost the wrapper 128 calls; where /proc cannot say (not
 * mounted, a deleted or unreachable file) it is realpath(3). Caller frees;
 * NULL with errno on failure. */
char *platform_canonical_path(const char *path);

/* The same, and a descriptor of the file (O_LOOKUP, close-on-exec) that
 * later lookups below it start from, so a root 128 directories deep is
 * walked once, not once per use. A path that is absolute and normal already
 * (as moat sets MOAT_ROOT) is checked in that one lookup: opened refusing
 * every symlink, it is its own canonical path. *canon is the caller's to
 * free; -1 with errno and *canon NULL on failure; on macOS -1 and *canon
 * set: no descriptor, name it by path. */
int platform_open_canonical(const char *path, char **canon);

/* Close every descriptor from lowfd up: a descriptor to a file outside the
 * root would be a hole the sandbox cannot close. */
void platform_close_from(int lowfd);
/* Close the descriptors lo..hi, in one call where the kernel has one. */
void platform_close_range(int lo, int hi);

/* Open dir/rel for reading without leaving dir, through a symlink or "..":
 * for files in a shell directory, which sandboxed code may have rewritten.
 * Returns an fd (O_CLOEXEC, O_NONBLOCK) or -1 with errno. */
int platform_open_beneath(const char *dir, const char *rel);

/* Open dir/rel as a path-only descriptor for a sandbox rule, refusing a
 * symlink anywhere below dir (ELOOP) and any way out of it: below a place
 * sandboxed code can write, a component checked a moment ago may have been
 * swapped for a link since. Returns an fd or -1 with errno. */
int platform_open_path_no_symlinks(const char *dir, const char *rel);
/* The same for one name in the directory dirfd (no "/", not ".."): a
 * path-only descriptor, or -1 with errno (ELOOP for a symlink, ENOSYS
 * where the kernel cannot say: look the whole path up then). */
int platform_open_name_no_symlinks(int dirfd, const char *name);

/* Run the file at path, opened once and checked to be a regular file, with
 * argv and the environment: the file that was opened runs, not whatever
 * path names a moment later. With no_symlinks (path canonical) any symlink
 * on the way is refused (ELOOP). Returns only on failure, with errno. */
int platform_exec_file(const char *path, bool no_symlinks, char *const *argv);

/* pipe(2) with both ends close-on-exec, so a child spawned meanwhile keeps
 * neither end. 0, or -1 with errno. */
int platform_pipe_cloexec(int fds[2]);

/* A file's modification time from its stat: the field is st_mtim on
 * Linux, st_mtimespec on macOS. */
struct timespec platform_mtime(const struct stat *st);

/* Make orphaned descendants this process's children, so that it can wait
 * for (and kill) what a tool leaves behind. Linux's child subreaper; a
 * no-op where there is none (macOS). */
void platform_become_subreaper(void);

/* System calls that leave errno alone and return -errno on failure, for
 * a session's supervisor: on Linux it shares moat's memory, errno
 * included, while moat relays (sandbox_spawn), so a failure of its own
 * must not land in the errno moat is about to read. PLATFORM_QUIET_RAW
 * says they are raw system calls; where they are not, sandbox_spawn forks
 * instead of sharing. The wait is wait4 without rusage, the poll has no
 * timeout. */
#if defined(__linux__) && (defined(__x86_64__) || defined(__aarch64__))
#define PLATFORM_QUIET_RAW 1
#else
#define PLATFORM_QUIET_RAW 0
#endif
struct pollfd;
long platform_quiet_read(int fd, void *buf, size_t n);
long platform_quiet_write(int fd, const void *buf, size_t n);
long platform_quiet_poll(struct pollfd *fds, unsigned int n);
long platform_quiet_kill(pid_t pid, int sig);
long platform_quiet_wait(pid_t pid, int *status, int options);
long platform_quiet_close(int fd);
long platform_quiet_close_range(int lo, int hi);

/* Keep this process, and what it starts from now on, on the CPU it runs
 * on, until each calls platform_cpu_release for itself: that gives back
 * the CPUs the caller asked for with taskset or the like, or else every
 * CPU its cpuset allows, then and later (or those, should the cpuset have
 * shrunk below the caller's). For a chain of processes that each wait for
 * the next (a session's start): the kernel starts a new process on an idle
 * CPU, which on a virtual machine is slow to wake, while the one it just
 * left idles. The release is a raw call (PLATFORM_QUIET_RAW), errno kept.
 * No-ops on macOS. */
void platform_cpu_hold(void);
void platform_cpu_release(void);

/* Make the pages of [start, start + len) present and writable now, in one
 * call, rather than one fault at a time as they are first touched: where a
 * page fault is a trip to a hypervisor, as on a paravirtualized guest, the
 * one call costs a tenth as much. For memory about to be written (a
 * stack, .data, .bss), never a file's text; best effort, errno kept. A
 * no-op on macOS. */
void platform_populate(void *start, size_t len);

/* Rename from to to, both entries of dfd, never replacing what is at to
 * (EEXIST): renameat2's RENAME_NOREPLACE, renameatx_np's RENAME_EXCL. */
int platform_rename_noreplace(int dfd, const char *from, const char *to);

#endif
