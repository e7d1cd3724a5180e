/* Local flake sources: the directory nix copies, and its fingerprint. */
#include "shells/source.h"

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/fs.h"
#include "base/path.h"
#include "base/platform.h"
#include "base/strbuf.h"
#include "base/util.h"

#define GIT_INDEX_MAX (64u << 20)

void flake_local_free(struct flake_local *src)
{
	free(src->dir);
	free(src->root);
	free(src->subdir);
	*src = (struct flake_local){0};
}

/* The value of key in a URL query ("a=1&dir=x%2Fy"), percent-decoded. */
static char *query_value(const char *query, const char *key)
{
	size_t klen = strlen(key);
	for (const char *p = query; p && *p; p = strchr(p, '&'), p = p ? p + 1 : NULL) {
		if (strncmp(p, key, klen) != 0 || p[klen] != '=')
			continue;
		struct strbuf sb = STRBUF_INIT;
		for (const char *v = p + klen + 1; *v && *v != '&'; v++) {
			unsigned hi, lo;
			if (*v == '%' && sscanf(v + 1, "%1x%1x", &hi, &lo) == 2) {
				sb_addc(&sb, (char)(hi * 16 + lo));
				v += 2;
			} else {
				sb_addc(&sb, *v);
			}
		}
		return sb_detach(&sb);
	}
	return NULL;
}

/* The nearest directory at or above dir holding .git, or NULL. */
static char *git_top(const char *dir)
{
	cleanup_free char *d = xstrdup(dir);
	for (;;) {
		cleanup_free char *dotgit = path_join(d, ".git");
		if (fs_exists(dotgit))
			return steal_ptr(&d);
		if (strcmp(d, "/") == 0)
			return NULL;
		char *up = path_dirname(d);
		free(d);
		d = up;
	}
}

static int fill(struct flake_local *out, const char *root, const char *subdir, bool git)
{
	cleanup_free char *croot = platform_canonical_path(root);
	if (!croot)
		return 0;
	cleanup_free char *dir = *subdir ? path_join(croot, subdir) : xstrdup(croot);
	cleanup_free char *cdir = platform_canonical_path(dir);
	if (!cdir || !path_is_under(cdir, croot))
		return 0;
	size_t n = strlen(croot);
	const char *rel = cdir + n + (strcmp(croot, "/") != 0 && cdir[n] == '/');
	*out = (struct flake_local){steal_ptr(&cdir), steal_ptr(&croot), xstrdup(rel), git};
	return 1;
}

/* --- what a reference names ----------------------------------------------- */

void flake_ref_free(struct flake_ref *r)
{
	free(r->scheme);
	free(r->path);
	free(r->query);
	free(r->subdir);
	*r = (struct flake_ref){0};
}

static bool all_of(const char *s, size_t n, const char *set)
{
	for (size_t i = 0; i < n; i++)
		if (!s[i] || !strchr(set, s[i]))
			return false;
	return true;
}

#define ALNUM "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

/* nix's registry form, id[/ref[/rev]]: a letter, then letters, digits, '_'
 * and '-'; after a '/', a git ref. A ref nix's own pattern might reject
 * (".." or "//" in it, a final '.' or '/') is no registry name for moat:
 * nix could read it as a path. */
static bool indirect_form(const char *s, size_t n)
{
	size_t id = strcspn(s, "/");
	if (id > n)
		id = n;
	if (!id || !strchr(ALNUM, s[0]) || (s[0] >= '0' && s[0] <= '9') ||
	    !all_of(s, id, ALNUM "_-"))
		return false;
	if (id == n)
		return true;
	const char *ref = s + id + 1;
	size_t len = n - id - 1;
	cleanup_free char *copy = xstrndup(ref, len);
	return len && strchr(ALNUM "@", ref[0]) && all_of(ref, len, ALNUM "_./@-") &&
	       !strstr(copy, "..") && !strstr(copy, "//") && !strstr(copy, "/.") &&
	       ref[len - 1] != '.' && ref[len - 1] != '/';
}

/* Schemes whose flakes nix fetches from elsewhere (or looks up, flake:). */
static bool remote_scheme(const char *scheme)
{
	static const char *const remote[] = {
	    "github",   "gitlab",        "sourcehut",    "flake",      "git",      "git+https",
	    "git+http", "git+ssh",       "hg+https",     "hg+http",    "hg+ssh",   "http",
	    "https",    "tarball+https", "tarball+http", "file+https", "file+http"};
	for (size_t i = 0; i < ARRAY_LEN(remote); i++)
		if (strcmp(scheme, remote[i]) == 0)
			return true;
	return false;
}

/* Schemes read from this machine's file system: path:, file: and every
 * fetcher over file (git+file:, hg+file:, tarball+file:, ...). */
static bool local_scheme(const char *scheme)
{
	size_t n = strlen(scheme);
	return strcmp(scheme, "path") == 0 || strcmp(scheme, "file") == 0 ||
	       (n > 5 && strcmp(scheme + n - 5, "+file") == 0);
}

static void refuse_ref(struct flake_ref *r, const char *why)
{
	flake_ref_free(r);
	r->kind = FLAKE_REF_REFUSED;
	r->why = why;
}

/* The number of dir= parameters in query, the last one's value in *dir. */
static int dir_params(const char *query, char **dir)
{
	int n = 0;
	for (const char *p = query; p && *p; p = strchr(p, '&'), p = p ? p + 1 : NULL)
		if (strncmp(p, "dir=", 4) == 0)
			n++;
	*dir = n ? query_value(query, "dir") : NULL;
	return n;
}

/* A local reference's path (from s, n bytes long, "?query" included). */
static void local_ref(struct flake_ref *r, const char *scheme, const char *s, size_t n)
{
	r->kind = FLAKE_REF_LOCAL;
	r->scheme = xstrdup(scheme);
	size_t plen = strcspn(s, "?");
	if (plen > n)
		plen = n;
	r->path = xstrndup(s, plen);
	r->query = plen < n ? xstrndup(s + plen + 1, n - plen - 1) : NULL;
	r->archive = strcmp(scheme, "file") == 0 || strcmp(scheme, "tarball+file") == 0;
	char *dir = NULL;
	int ndir = dir_params(r->query, &dir);
	r->subdir = dir ? dir : xstrdup("");
	if (!r->path[0])
		return refuse_ref(r, "it names no path");
	if (strchr(r->path, '%'))
		return refuse_ref(r, "its path is percent-encoded");
	if (*scheme && strcmp(scheme, "path") != 0 && r->path[0] != '/')
		return refuse_ref(r, "a file URL must name an absolute path");
	if (ndir > 1)
		return refuse_ref(r, "it has more than one dir=");
	if (r->subdir[0] == '/' || path_has_dotdot(r->subdir))
		return refuse_ref(r, "its dir= is absolute or has a '..' component");
}

void flake_ref_parse(const char *ref, struct flake_ref *out)
{
	*out = (struct flake_ref){0};
	size_t n = strcspn(ref, "#");
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)ref[i] < 0x20 || ref[i] == 0x7f)
			return refuse_ref(out, "it contains a control character");
	if (!n)
		return refuse_ref(out, "it is empty");
	if (ref[0] == '/' || ref[0] == '.')
		return local_ref(out, "", ref, n);
	if (indirect_form(ref, n)) {
		out->kind = FLAKE_REF_REMOTE;
		return;
	}
	size_t slen = strspn(ref, ALNUM "+.-");
	if (slen < n && ref[slen] == ':' && slen && strchr(ALNUM, ref[0]) &&
	    !(ref[0] >= '0' && ref[0] <= '9')) {
		cleanup_free char *scheme = xstrndup(ref, slen);
		if (remote_scheme(scheme)) {
			out->kind = FLAKE_REF_REMOTE;
			return;
		}
		if (!local_scheme(scheme))
			return refuse_ref(out, "moat does not know its scheme");
		const char *p = ref + slen + 1;
		if (strncmp(p, "//", 2) == 0) { /* file://HOST/path: only an empty host */
			if (p[2] != '/')
				return refuse_ref(out, "it names a host");
			p += 2;
		}
		if (strncmp(p, "//", 2) == 0) /* file:////x: a host, or a path? */
			return refuse_ref(out, "its path starts with '//'");
		return local_ref(out, scheme, p, n - (size_t)(p - ref));
	}
	if (memchr(ref, ':', n))
		return refuse_ref(out, "it is neither a path nor a URL moat knows");
	/* "a.b", "sub?dir=x", "x.y/z": nix takes these for relative paths. */
	local_ref(out, "", ref, n);
}

/* --- local sources ---------------------------------------------------------- */

/* A file nix fetches or unpacks: the file is what it reads. */
static int archive_source(const struct flake_ref *fr, struct flake_local *out)
{
	cleanup_free char *file = platform_canonical_path(fr->path);
	struct stat st;
	if (!file || stat(file, &st) < 0 || !S_ISREG(st.st_mode))
		return -1;
	*out = (struct flake_local){xstrdup(file), xstrdup(file), xstrdup(fr->subdir), false};
	return 1;
}

/* A bare path: nix looks for .git from the flake's directory up. */
static int bare_source(const struct flake_ref *fr, struct flake_local *out)
{
	cleanup_free char *dir = platform_canonical_path(fr->path);
	if (!dir)
		return -1;
	cleanup_free char *top = git_top(dir);
	if (!top)
		return fill(out, dir, fr->subdir, false) ? 1 : -1;
	size_t n = strlen(top);
	const char *rel = dir + n + (strcmp(top, "/") != 0 && dir[n] == '/');
	cleanup_free char *joined = *fr->subdir ? path_join(rel, fr->subdir) : xstrdup(rel);
	return fill(out, top, joined[0] == '/' ? joined + 1 : joined, true) ? 1 : -1;
}

int flake_local_parse(const char *ref, struct flake_local *out)
{
	*out = (struct flake_local){0};
	struct flake_ref fr;
	flake_ref_parse(ref, &fr);
	int rc = fr.kind == FLAKE_REF_REMOTE ? 0 : -1;
	if (fr.kind == FLAKE_REF_LOCAL && fr.path[0] == '/') {
		if (fr.archive)
			rc = archive_source(&fr, out);
		else if (!*fr.scheme)
			rc = bare_source(&fr, out);
		else
			rc = fill(out, fr.path, fr.subdir, strcmp(fr.scheme, "git+file") == 0) ? 1
			                                                                       : -1;
	}
	flake_ref_free(&fr);
	return rc;
}

/* --- the git index --------------------------------------------------------- */

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* git's offset varint (varint.c). */
static bool varint(const unsigned char **p, const unsigned char *end, size_t *out)
{
	if (*p >= end)
		return false;
	unsigned char c = *(*p)++;
	size_t v = c & 127;
	while (c & 128) {
		if (*p >= end || v > (SIZE_MAX >> 8))
			return false;
		c = *(*p)++;
		v = ((v + 1) << 7) + (c & 127);
	}
	*out = v;
	return true;
}

long git_index_paths(const unsigned char *buf, size_t len, git_index_fn *fn, void *arg)
{
	if (len < 12 + 20 || memcmp(buf, "DIRC", 4) != 0)
		return -1;
	uint32_t version = be32(buf + 4), count = be32(buf + 8);
	if (version < 2 || version > 4)
		return -1;
	const unsigned char *p = buf + 12, *end = buf + len - 20; /* the trailing checksum */
	struct strbuf path = STRBUF_INIT;
	long listed = 0;
	for (uint32_t i = 0; i < count; i++) {
		const unsigned char *entry = p;
		if (end - p < 62)
			goto bad;
		uint32_t mode = be32(p + 24);
		uint16_t flags = (uint16_t)(p[60] << 8 | p[61]);
		p += 62;
		bool extended = flags & 0x4000;
		if (extended) {
			if (version < 3 || end - p < 2)
				goto bad;
			bool skip_worktree = p[0] & 0x40;
			p += 2;
			if (skip_worktree)
				mode = 0; /* sparse: not in the work tree */
		}
		if (version == 4) {
			size_t strip;
			if (!varint(&p, end, &strip) || strip > path.len)
				goto bad;
			path.len -= strip;
		} else {
			path.len = 0;
		}
		const unsigned char *nul = memchr(p, '\0', (size_t)(end - p));
		if (!nul)
			goto bad;
		sb_add(&path, p, (size_t)(nul - p));
		p = nul + 1;
		if (version < 4) {
			size_t used = (size_t)(p - entry);
			size_t padded = (used + 7) & ~(size_t)7;
			if ((size_t)(end - entry) < padded)
				goto bad;
			p = entry + padded;
		}
		unsigned type = mode & 0170000;
		if (path.len && (type == 0100000 || type == 0120000)) {
			listed++;
			if (fn)
				fn(path.buf, path.len, arg);
		}
	}
	/* Extensions: a split index keeps entries elsewhere, which moat does
	 * not read. */
	while (end - p >= 8) {
		uint32_t size = be32(p + 4);
		if (memcmp(p, "link", 4) == 0)
			goto bad;
		if ((size_t)(end - p) - 8 < size)
			break;
		p += 8 + size;
	}
	sb_release(&path);
	return listed;
bad:
	sb_release(&path);
	return -1;
}

/* --- the fingerprint ------------------------------------------------------- */

struct fp {
	uint64_t h;
	const char *root;
	size_t files;
	bool too_many;
};

static void fp_mix(struct fp *f, const void *data, size_t n)
{
	const unsigned char *p = data;
	for (size_t i = 0; i < n; i++)
		f->h = (f->h ^ p[i]) * 1099511628211ull;
}

static void fp_file(struct fp *f, const char *rel, size_t len)
{
	if (++f->files > FINGERPRINT_MAX_FILES) {
		f->too_many = true;
		return;
	}
	cleanup_free char *rel0 = xstrndup(rel, len);
	cleanup_free char *abs = path_join(f->root, rel0);
	struct stat st;
	int64_t v[4] = {-1, 0, 0, 0};
	if (lstat(abs, &st) == 0) {
		struct timespec mtime = platform_mtime(&st);
		v[0] = (int64_t)(st.st_mode & (S_IFMT | 0111)), v[1] = (int64_t)st.st_size,
		v[2] = (int64_t)mtime.tv_sec, v[3] = (int64_t)mtime.tv_nsec;
	}
	fp_mix(f, rel, len);
	fp_mix(f, "", 1);
	fp_mix(f, v, sizeof(v));
}

static void fp_index_entry(const char *path, size_t len, void *arg)
{
	fp_file(arg, path, len);
}

/* Every file below rel (relative to f->root), sorted, but .git and .moat. */
static void fp_walk(struct fp *f, const char *rel, int depth)
{
	cleanup_free char *abs = *rel ? path_join(f->root, rel) : xstrdup(f->root);
	struct dirent **names;
	int n = depth > 64 ? -1 : scandir(abs, &names, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		const char *name = names[i]->d_name;
		bool skip = strcmp(name, ".") == 0 || strcmp(name, "..") == 0 ||
		            strcmp(name, ".git") == 0 || strcmp(name, ".moat") == 0;
		if (!skip && !f->too_many) {
			cleanup_free char *child = *rel ? path_join(rel, name) : xstrdup(name);
			cleanup_free char *child_abs = path_join(f->root, child);
			struct stat st;
			if (lstat(child_abs, &st) == 0 && S_ISDIR(st.st_mode))
				fp_walk(f, child, depth + 1);
			else
				fp_file(f, child, strlen(child));
		}
		free(names[i]);
	}
	if (n >= 0)
		free(names);
}

/* The git directory of a work tree: .git, or where a .git file points. */
static char *git_dir(const char *root)
{
	cleanup_free char *dotgit = path_join(root, ".git");
	if (fs_is_dir(dotgit))
		return steal_ptr(&dotgit);
	cleanup_free char *buf = NULL;
	size_t len;
	struct error ignored;
	if (fs_read_file(dotgit, 4096, &buf, &len, &ignored) < 0 ||
	    strncmp(buf, "gitdir: ", 8) != 0)
		return NULL;
	buf[strcspn(buf, "\r\n")] = '\0';
	return buf[8] == '/' ? xstrdup(buf + 8) : path_join(root, buf + 8);
}

static bool fp_git(struct fp *f)
{
	cleanup_free char *gd = git_dir(f->root);
	cleanup_free char *index = gd ? path_join(gd, "index") : NULL;
	cleanup_free char *buf = NULL;
	size_t len;
	struct error ignored;
	if (!index || fs_read_file(index, GIT_INDEX_MAX, &buf, &len, &ignored) < 0)
		return false;
	struct fp try = *f;
	if (git_index_paths((const unsigned char *)buf, len, fp_index_entry, &try) < 0)
		return false;
	*f = try;
	return true;
}

char *flake_fingerprint(const struct flake_local *src)
{
	struct fp f = {.h = 14695981039346656037ull, .root = src->root};
	if (!src->git || !fp_git(&f))
		fp_walk(&f, "", 0);
	if (f.too_many)
		return NULL;
	return xasprintf("fp1:%016llx", (unsigned long long)f.h);
}
