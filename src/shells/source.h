/* Local flakes: where nix takes a flake on this machine from, and a cheap
 * fingerprint of it.
 *
 * A local flake reference ("path:/abs", "git+file:///abs", or a bare
 * absolute path) names a directory holding flake.nix; nix copies a source
 * tree around it to the store before it evaluates anything: the directory
 * itself for path:, the whole git work tree (its tracked files) for git. A
 * bare path is a git flake when it or a parent holds .git, as nix decides.
 *
 * The fingerprint is what moat compares on every run of a shell pinned from
 * a local flake, to say that the flake changed since (no nix on that path):
 * the size and modification time of every file nix would copy, hashed (the
 * tracked files of the git index, else every file below the root but .git
 * and .moat). It notices edits; it is no security boundary (the consent for
 * flakes in writable places hashes the content nix copied). */
#ifndef MOAT_SHELLS_SOURCE_H
#define MOAT_SHELLS_SOURCE_H

#include <stdbool.h>
#include <stddef.h>

struct flake_local {
	char *dir;    /* canonical directory holding flake.nix */
	char *root;   /* canonical root of what nix copies: dir, or the git work tree */
	char *subdir; /* dir relative to root ("" when the same) */
	bool git;
};

/* 1 with *out filled when ref is a local flake whose directory exists, 0
 * when ref is not local (github:, a registry name, ...) or not there. */
int flake_local_parse(const char *ref, struct flake_local *out);
void flake_local_free(struct flake_local *src);

/* "fp1:<16 hex digits>", or NULL when the tree is too large to fingerprint
 * cheaply (more than FINGERPRINT_MAX_FILES files). Caller frees. */
#define FINGERPRINT_MAX_FILES 20000
char *flake_fingerprint(const struct flake_local *src);

/* The paths a git index lists, in index order (pure, for hostile input:
 * the index lives in the work tree's .git, which sandboxed code can write).
 * Calls fn for each regular file or symlink entry (gitlinks and entries of
 * a sparse directory are left out). Returns the count, or -1 when buf is
 * not an index moat reads (versions 2 to 4, no split index). */
typedef void git_index_fn(const char *path, size_t len, void *arg);
long git_index_paths(const unsigned char *buf, size_t len, git_index_fn *fn, void *arg);

#endif
