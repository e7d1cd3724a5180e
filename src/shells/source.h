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

/* What a flake reference names, as nix (2.8 and later) parses it: a
 * registry name ("nixpkgs", "foo/branch"), a URL of a scheme (github:,
 * https:, path:, git+file:, ...), else a path, relative or absolute, with
 * or without a ?query ("./x", ".?dir=sub", "a.b", "sub?ref=x"). Everything
 * nix reads from this machine's file system is LOCAL, whatever its form;
 * what moat cannot classify for certain is REFUSED and never reaches nix.
 * Pure (no file system), for hostile input: fuzzed. */
enum flake_ref_kind {
	FLAKE_REF_REFUSED, /* moat cannot tell what nix would read */
	FLAKE_REF_REMOTE,  /* fetched from elsewhere, or a registry name */
	FLAKE_REF_LOCAL,   /* read from this machine's file system */
};

struct flake_ref {
	enum flake_ref_kind kind;
	const char *why; /* REFUSED: why, a static string */
	/* LOCAL only: */
	char *scheme; /* "path", "git+file", "tarball+file", ..., "" for a bare path */
	char *path;   /* as written: absolute, or relative (a bare path or path:) */
	char *query;  /* what follows '?' (before any '#'), or NULL */
	char *subdir; /* the flake's directory in what nix copies (dir=), "" when none */
	bool archive; /* a file nix fetches or unpacks (file:, tarball+file:) */
};

void flake_ref_parse(const char *ref, struct flake_ref *out);
void flake_ref_free(struct flake_ref *r);

struct flake_local {
	char *dir;    /* canonical directory holding flake.nix (an archive: the file) */
	char *root;   /* canonical root of what nix copies: dir, the git work tree, the file */
	char *subdir; /* dir relative to root ("" when the same) */
	bool git;
};

/* 1 with *out filled when ref is a local flake (flake_ref_parse) and what
 * nix would read from it exists, 0 when ref is not local (github:, a
 * registry name, ...), -1 when it is local but moat cannot tell what nix
 * would read: relative, missing, or a dir= leading out of it. */
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
