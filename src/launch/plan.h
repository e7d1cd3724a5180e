/* What the session and tool plans share (launch/ internal). */
#ifndef MOAT_LAUNCH_PLAN_H
#define MOAT_LAUNCH_PLAN_H

#include "launch/launch.h"

/* config.zon for l->ctx's home, and the writable areas it makes
 * (l->ctx.areas). A file that does not parse is an error, which says so
 * when it lies where sandboxed code can write. */
int plan_load_config(struct launch *l, struct error *err);
/* Its two halves, for a session, whose root depends on the file (.root):
 * read into l->cfg (-1 with err when it does not parse), then, the root
 * known, the areas set or the failure explained (read: what the first
 * returned, err: its error). */
int plan_read_config(struct launch *l, const char *home, struct error *err);
int plan_use_config(struct launch *l, int read, struct error *err);

/* moat's own places of kinds (context/own.h) and the binaries given (NULL
 * entries skipped), judged against l->ctx.areas and past roots: -1 with
 * err (status 125) for the first that sandboxed code could write. */
int plan_check_own(struct launch *l, unsigned kinds, const char *const *binaries, size_t nbinaries,
                   struct error *err);

/* The grants in force for bin (NULL: all, as a session unions them), the
 * sockets, the kernel's support, and the profile from l->ctx. */
int plan_build_profile(struct launch *l, const char *bin, struct error *err);

/* Close the grants' descriptors held since planning (context_close_held),
 * and rule on their paths by lookup from now on. */
void launch_close_held(struct launch *l);

/* Make the directories of write grants that do not exist yet (mode 0700,
 * never through a link, never below where sandboxed code can write), so that
 * the sandbox can rule on them; one that cannot be made is a warning, and
 * its grant has no rule. One stat per write grant when they exist. */
void launch_make_grant_dirs(struct launch *l);

/* A linked git work tree's files kept read-only (l->ctx.git_protect) that
 * are missing, made empty: config.worktree, which git reads once
 * extensions.worktreeConfig is on, would otherwise be sandboxed code's to
 * create in the writable git directory, and point git run later outside the
 * sandbox at hooks of its choosing. An empty one changes nothing for git. */
void launch_make_git_files(struct launch *l);

/* Say that the protected paths stay writable: the kernel gave no mount
 * namespace to bind them read-only in (sandbox_protect returned 1, errno
 * e), once launch_check_unisolated has let that pass; or, nested in
 * another session, that session's sandbox allowed none. Paths already
 * read-only (the outer session's binds) are not named. */
void launch_warn_unprotected(const struct launch *l, int e);

/* The kernel refused the namespaces l planned, with errno e: 0 when the
 * tool may go on without them (nested in a session, or an environment
 * that has never given this user namespaces), -1 with err (status 125)
 * when the refusal is a quota or resource error, or namespaces worked for
 * this user before (launch/isolation.c). */
int launch_check_unisolated(const struct launch *l, int e, struct error *err);

/* The namespaces worked: recorded once in moat's state directory, so that
 * a later refusal stops moat (launch_check_unisolated). */
void launch_namespaces_worked(const struct launch *l);

/* Give each protected file, and each file below a protected directory,
 * with other names (hard links) an inode of its own, so the read-only bind
 * cannot be written around (launch/hardlinks.c), with a warning for each.
 * -1 with err (status 125) for one that cannot be. */
int launch_break_hard_links(const struct launch *l, struct error *err);

/* A grant at or below a protected path is looked up again for its rule:
 * launch_break_hard_links may give the file there a new inode, and the
 * descriptor held since planning would keep the old one, the other name's. */
void launch_unhold_protected(struct launch *l);

/* Confine this process as planned (unless jailbroken or confined already),
 * make TMPDIR and the HOME override, set the environment and exec l->exe.
 * Returns only on failure, with the exit status and err. */
int launch_exec(struct launch *l, char **argv, struct error *err);

/* A session's hold on $root/.moat/tmp (launch/tmpdir.c), made if missing:
 * a shared lock for as long as the returned descriptor (close-on-exec)
 * stays open, or -1. When no other session holds it, l->tmp_clear_fd is
 * set, and launch_clear_tmpdir, in the tool's process once confined,
 * removes what earlier sessions left there (never following a link), then
 * lets others share it. */
int launch_hold_tmpdir(struct launch *l);
void launch_clear_tmpdir(struct launch *l);

/* A session: moat relays the terminal and waits while the tool runs in a
 * world of its own (launch/run.c). Returns the tool's exit status, 125
 * when the session could not start; a tool's death by signal is moat's. */
int session_run(struct launch *l, char **argv, struct error *err);

#endif
