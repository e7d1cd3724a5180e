/* The context: facts gathered from the host (root, home, shells,
 * config grants) that the profile is built from. All of moat's I/O for
 * building a profile happens here, so profile/ stays pure. */
#ifndef MOAT_CONTEXT_CONTEXT_H
#define MOAT_CONTEXT_CONTEXT_H

#include <stdbool.h>
#include <stddef.h>

#include "base/util.h"
#include "profile/profile.h"

struct context {
	char *root;  /* canonical project root */
	int root_fd; /* a descriptor of it (O_LOOKUP) lookups below it start
	              * from, or -1: the wrapper resolved MOAT_ROOT once
	              * (platform_open_canonical), a session's supervisor
	              * opens it for the tool before its mounts (run.c);
	              * elsewhere it is named */
	char *home;  /* the real HOME, canonical when it exists */
	char *etc_links[16];
	size_t netc_links;
	char **shell_dirs; /* canonical */
	size_t nshell_dirs;
	char *wrapper;   /* canonical moat-wrapper that shells link to, or NULL */
	char **wrappers; /* other moat-wrappers the shells' bin/ entries lead to */
	size_t nwrappers;
	char **areas; /* where sandboxed code can write (context_set_areas), or NULL */
	size_t nareas;
	struct grant *grants;
	size_t ngrants;
	char **jailbreaks;
	size_t njailbreaks;
	char **sockets; /* canonical unix sockets let through on purpose */
	size_t nsockets;
	/* A linked git work tree's git directory outside the root
	 * (context_add_git_worktree): the rules git needs there, the common
	 * directory they are in, and the files of the work tree's git
	 * directory a session keeps read-only. */
	struct grant *git; /* bin unused */
	size_t ngit;
	char *git_common;
	char *git_module; /* a submodule's git directory, read/write (hooks, config protected) */
	char **git_protect;
	size_t ngit_protect;
};

/* The sandbox root for a session started in cwd (canonical). */
struct project_root {
	char *root;    /* canonical */
	char *top;     /* the git work tree's top above cwd, when there is one (used or not) */
	char *refused; /* why top is not the root (it could not be one), or NULL */
};

/* The root for moat run, moat shell and moat profile started in cwd: the
 * top of the git work tree around it (the nearest directory above holding
 * .git, found by lstat alone, never by running git; the search stops below
 * HOME, at / and at another file system, as git's does), else cwd. With
 * here, or when that top could not be a root (profile_refuse_root: HOME,
 * a shared or system directory), cwd; out->refused then says why. */
void context_project_root(const char *cwd, const char *home, bool here, struct project_root *out);
void project_root_free(struct project_root *r);

/* A root that is a submodule's work tree (its .git a file naming a git
 * directory M under a superproject's modules/, M's core.worktree pointing
 * back at root): M read/write, its hooks and config protected as any
 * writable git directory's (c->git_module).
 * A root that is a linked git work tree (`git worktree add`: its .git a
 * file naming a git directory W) whose W lies outside the root: when git
 * registered W for this work tree (W/gitdir points back at root/.git, W lies
 * in the common directory's worktrees/), add the rules git needs: W
 * read/write, the common directory's objects, refs and logs read/write, its
 * HEAD, packed-refs, config, info, worktrees and shallow read-only; never its
 * hooks. W's commondir, gitdir and config.worktree go to c->git_protect.
 * Paths are resolved refusing links planted in areas (the writable ones).
 * Returns NULL, or why a .git file was not followed (caller frees). */
char *context_add_git_worktree(struct context *c, const char *const *areas, size_t n);

/* Gather the facts for a sandbox rooted at root (already canonical: callers
 * have it from getcwd() or realpath()) for a user whose real home is home.
 * Refuses a root that is home or contains it. A NULL root gives a context
 * with none, for judging where a directory that can be no root stands
 * (moat check there). */
int context_init(struct context *c, const char *root, const char *home, struct error *err);
void context_add_shell(struct context *c, const char *dir);
/* A grant of path (taken: a thousand grants, a thousand copies fewer) to
 * bin; fd, when not -1, is path's descriptor from context_resolve_grant,
 * which the context then owns (context_close_held). */
void context_add_grant(struct context *c, const char *bin, char *path, unsigned access, int fd);
/* Close the grants' held descriptors (a call a run of consecutive ones),
 * and forget them: a rule made from the profile after this opens its path
 * again. context_close_held_fds closes them and changes nothing in c, for
 * a process that shares c's memory but has descriptors of its own. */
void context_close_held(struct context *c);
void context_close_held_fds(const struct context *c);
/* Close every descriptor from lowfd up but the grants' held ones and keep
 * (-1: none): false, having closed nothing, when the held ones were not
 * opened in order. */
bool context_close_unheld(const struct context *c, int lowfd, int keep);
void context_add_socket(struct context *c, const char *path);
/* A moat-wrapper a shell's tools lead to, which the sandbox must run. */
void context_add_wrapper(struct context *c, const char *path);
void context_free(struct context *c);

/* The platform moat runs on, whose profile it enforces. */
enum platform context_platform(void);

/* The profile for this context on a platform (context_platform() for
 * enforcement; macOS for `moat profile --format=sbpl` anywhere). */
int context_build_profile(const struct context *c, enum platform platform, struct profile *out,
                          struct error *err);

/* Resolve path (absolute) to the canonical form the sandbox will use, as
 * realpath would, but refuse a symlink that lies inside one of the writable
 * areas (canonical: the root, write grants): sandboxed code could have
 * planted it there to re-point the path, say at ~/.ssh, for the next run.
 * Symlinks elsewhere are the user's own and are followed, their targets
 * checked the same way. Each link is judged where it really is, so no
 * spelling of path or of an area (a linked HOME, "//", a trailing "/")
 * hides one, and *canon is built from what was checked, with no second
 * resolution for a link to be swapped into (the Landlock backend opens it
 * refusing symlinks below an area). *canon is NULL when path does not exist
 * (errno says why, as realpath's would).
 * Returns 0, or -1 with err (status EXIT_MOAT_FAILED). */
int context_resolve_unplanted(const char *path, const char *const *areas, size_t n,
                              const char *what, char **canon, struct error *err);

/* As context_resolve_unplanted, but a path that does not exist yet gets the
 * canonical form it will have: its deepest existing ancestor, resolved and
 * judged as above, with the missing rest appended (as
 * fs_canonical_prefix, which judges nothing). For Seatbelt, which rules
 * on a path before it exists; Landlock gives such a path no rule. *canon is
 * still NULL for a loop of links, a missing part under a file (ENOTDIR) or a
 * ".." after the missing part. */
int context_resolve_unplanted_absent(const char *path, const char *const *areas, size_t n,
                                     const char *what, char **canon, struct error *err);

/* The directory the last grant's path lies in, opened refusing every
 * link, for the next ones there: zeroed to start, freed with
 * context_lookup_dir_free. */
struct lookup_dir {
	char *path;
	int fd;
};
void context_lookup_dir_free(struct lookup_dir *d);

/* context_resolve_unplanted_absent for a grant, and *held: the descriptor
 * its one lookup opened (O_PATH, close-on-exec), or -1 when it followed a
 * link or the path is absent. The rule is made on *held (struct grant). A
 * grant in dirs's directory is looked up below it (one component). */
int context_resolve_grant(const char *path, const char *const *areas, size_t n,
                          struct lookup_dir *dirs, char **canon, int *held, struct error *err);

/* As context_resolve_unplanted, for what will run unconfined (a jailbroken
 * binary, its interpreter): refuse it when any part of it lies where
 * sandboxed code can write, not only a planted link. Each symlink met is
 * judged by the directory that holds it, and the end by itself, against
 * the root, the write grants and every past sandbox root
 * (context_writable_place), so neither the file nor any link on the way to
 * it can be replaced by sandboxed code; *canon then names a file only the
 * user (or root) can change. A path that does not exist yet is judged in
 * the form it will have (as context_resolve_unplanted_absent).
 * Returns 0, or -1 with err (status EXIT_MOAT_FAILED) saying which part. */
int context_resolve_unwritable(const char *path, const char *root, const char *const *areas,
                               size_t n, const char *what, char **canon, struct error *err);

/* The real HOME: $HOME, which must be set and absolute. */
const char *context_real_home(struct error *err);

#endif
