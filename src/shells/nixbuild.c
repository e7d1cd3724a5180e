/* Consent for flakes sandboxed code can write, locking and building: see
 * shells/nix.c. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/envvars.h"
#include "base/fs.h"
#include "base/path.h"
#include "base/platform.h"
#include "shells/json.h"
#include "shells/nixpriv.h"
#include "shells/source.h"

/* --- flakes from places sandboxed code can write --------------------------- */

static char *url_escape(const char *s)
{
	struct strbuf sb = STRBUF_INIT;
	for (; *s; s++) {
		if (strchr("/+=&?#% ", *s))
			sb_addf(&sb, "%%%02X", (unsigned char)*s);
		else
			sb_addc(&sb, *s);
	}
	return sb_detach(&sb);
}

/* A direct child of the store, with a name moat takes. */
static bool is_store_path(const char *p)
{
	cleanup_free char *parent = p ? path_dirname(p) : NULL;
	return parent && strcmp(parent, nix_store_dir()) == 0 && !path_refusal(p);
}

/* s as a nix string literal. */
static void add_nix_string(struct strbuf *sb, const char *s)
{
	sb_addc(sb, '"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\' || (*s == '$' && s[1] == '{'))
			sb_addc(sb, '\\');
		sb_addc(sb, *s);
	}
	sb_addc(sb, '"');
}

/* nix copies a path: flake (or a bare path outside git) whole, .moat/
 * included: a session's TMPDIR, whose files would give the content a new
 * hash at every run and go to the world-readable store. So moat has nix
 * copy the directory without any .moat/ (as a git flake leaves them out,
 * ignored): builtins.path, in an expression of moat's, which evaluates
 * nothing of the flake. *ref: path:<that copy>, for the prefetch. */
static int copy_without_moat(const struct shell_ref *r, const char *root, char **ref,
                             struct error *err)
{
	struct strbuf expr = STRBUF_INIT;
	sb_adds(&expr, "builtins.path { path = /. + ");
	add_nix_string(&expr, root);
	sb_adds(&expr, "; name = \"source\"; filter = p: t: "
	               "!(t == \"directory\" && baseNameOf p == \".moat\"); }");
	const char *args[] = {"nix", "eval", "--impure", "--raw", "--expr", expr.buf, NULL};
	struct proc_result run;
	int rc = run_nix(args, r->shown, &run, err);
	sb_release(&expr);
	if (rc == 0 && run.status != 0) {
		rc = nix_failed(r, &run, err);
	} else if (rc == 0) {
		/* --raw: the path alone, no newline */
		if (is_store_path(run.out.buf))
			*ref = xasprintf("path:%s", run.out.buf);
		else
			rc = error_set(err,
			               "cannot use flake '%s': nix gave no store path for its copy",
			               r->flake);
	}
	proc_result_free(&run);
	return rc;
}

/* The flake nix is to evaluate for r: r->flake itself; or, for a local
 * flake where sandboxed code can write, nix's copy of it, once the user
 * agreed to that copy's hash. *approved says which (the copy has no
 * revision of its own). */
int trusted_flake(const struct shell_ref *r, char **eval, bool *approved, struct error *err)
{
	*approved = false;
	struct flake_local src;
	int local = flake_local_parse(r->flake, &src);
	if (local < 0) {
		error_set(err,
		          "cannot use flake '%s': moat cannot tell what nix would read from it (it "
		          "does not exist, or its dir= leads out of it)",
		          r->flake);
		error_hint(err, ENV_FLAKE " (or FLAKE in FLAKE#ATTR) must name a flake, e.g. "
		                          "github:you/shells or path:/abs/dir");
		err->status = EXIT_MOAT_FAILED;
		return -1;
	}
	if (!local) {
		*eval = xstrdup(r->flake);
		return 0;
	}
	cleanup_free char *why = NULL;
	bool writable =
	    nix_state.feedback.writable && (nix_state.feedback.writable(src.dir, true, &why) ||
	                                    nix_state.feedback.writable(src.root, true, &why));
	if (!writable) {
		flake_local_free(&src);
		*eval = xstrdup(r->flake);
		return 0;
	}
	cleanup_free char *copy = NULL;
	if (!src.git && fs_is_dir(src.root) && copy_without_moat(r, src.root, &copy, err) < 0) {
		flake_local_free(&src);
		return -1;
	}
	/* nix copies what it would evaluate, and evaluates nothing. */
	const char *args[] = {"nix", "flake", "prefetch", "--json", copy ? copy : r->flake, NULL};
	struct proc_result run;
	int rc = run_nix(args, r->shown, &run, err);
	cleanup_free char *hash = NULL, *store = NULL;
	if (rc == 0 && run.status != 0) {
		rc = nix_failed(r, &run, err);
	} else if (rc == 0) {
		hash = json_get_string(run.out.buf, run.out.len, "hash");
		store = json_get_string(run.out.buf, run.out.len, "storePath");
		if (!hash || !is_store_path(store) || strncmp(hash, "sha256-", 7) != 0)
			rc = error_set(
			    err,
			    "cannot use flake '%s': 'nix flake prefetch' gave no store path "
			    "and hash",
			    r->flake);
	}
	proc_result_free(&run);
	if (rc == 0) {
		struct nix_consent c = {r->shown, r->flake, src.dir, src.root, why, hash, store};
		if (!nix_state.feedback.consent) {
			rc = error_set(err, "refusing to evaluate flake '%s': %s", r->flake, why);
		} else if (nix_state.feedback.consent(&c, err) == 0) {
			cleanup_free char *h = url_escape(hash);
			cleanup_free char *d = url_escape(src.subdir);
			*eval = xasprintf("path:%s?narHash=%s%s%s", store, h,
			                  *src.subdir ? "&dir=" : "", d);
			*approved = true;
			nix_say_info("flake %s: content %s approved, evaluating nix's copy %s",
			             r->flake, hash, store);
		} else {
			rc = -1;
		}
	}
	flake_local_free(&src);
	return rc;
}

/* --- locking and building -------------------------------------------------- */

void lock_info_free(struct lock_info *li)
{
	free(li->url);
	free(li->rev);
	free(li->nar);
	free(li->type);
}

int nix_metadata(const struct shell_ref *r, bool refresh, struct lock_info *li, struct error *err)
{
	*li = (struct lock_info){0};
	cleanup_free char *flake = NULL;
	if (trusted_flake(r, &flake, &li->approved, err) < 0)
		return -1;
	const char *args[] = {"nix", "flake", "metadata", "--json", flake, NULL, NULL};
	if (refresh && !li->approved) {
		args[4] = "--refresh";
		args[5] = flake;
	}
	struct proc_result run;
	if (run_nix(args, r->shown, &run, err) < 0)
		return -1;
	int rc = 0;
	if (run.status != 0) {
		rc = nix_failed(r, &run, err);
	} else {
		li->url = json_get_string(run.out.buf, run.out.len, "url");
		li->rev = json_get_string(run.out.buf, run.out.len, "locked.rev");
		li->nar = json_get_string(run.out.buf, run.out.len, "locked.narHash");
		li->type = json_get_string(run.out.buf, run.out.len, "locked.type");
		if (!li->url) {
			bool approved = li->approved;
			lock_info_free(li);
			*li = (struct lock_info){.approved = approved};
			rc = error_set(err,
			               "cannot use flake '%s': 'nix flake metadata' gave no "
			               "locked URL",
			               r->flake);
		}
	}
	proc_result_free(&run);
	return rc;
}

const char *unpinnable_reason(const struct lock_info *li)
{
	if (li->approved)
		return "it lies where sandboxed code can write, so nix built the copy you "
		       "approved, "
		       "which has no revision";
	if (li->rev)
		return NULL;
	if (li->type && strcmp(li->type, "path") == 0)
		return "a path: reference has no revision";
	if (li->type && strcmp(li->type, "git") == 0)
		return "the git tree has uncommitted changes";
	return "the reference has no revision";
}

/* The shell moat makes around a plain package: $XDG_STATE_HOME/moat/wrapped/
 * <store path's name>-<hash of the wrapper>, bin/<tool> -> moat-wrapper for
 * each executable in the package's bin/, and the manifest. Made in a
 * private temporary directory and renamed into place, so it is whole or
 * absent. */
static char *package_shell_dir(const char *store)
{
	cleanup_free char *state = moat_state_dir(nix_state.feedback.home);
	return xasprintf("%s/wrapped/%s-%08x", state, path_basename(store),
	                 nix_fnv32(nix_state.feedback.wrapper ? nix_state.feedback.wrapper : ""));
}

static int fill_package_shell(const char *tmp, const char *store, size_t *ntools, struct error *err)
{
	cleanup_free char *bin = path_join(store, "bin");
	cleanup_free char *tbin = path_join(tmp, "bin");
	cleanup_free char *tshare = path_join(tmp, "share/moat");
	if (fs_mkdir_p(tbin, 0755, err) < 0 || fs_mkdir_p(tshare, 0755, err) < 0)
		return -1;
	struct dirent **names;
	int n = scandir(bin, &names, NULL, alphasort);
	if (n < 0)
		return error_errno(err, "cannot read '%s'", bin);
	struct manifest m = {0};
	int rc = 0;
	for (int i = 0; i < n; i++) {
		const char *name = names[i]->d_name;
		cleanup_free char *real = path_join(bin, name);
		cleanup_free char *link = path_join(tbin, name);
		if (rc == 0 && name[0] != '.' && !tool_name_refusal(name) &&
		    nix_executable_file(real)) {
			if (symlink(nix_state.feedback.wrapper, link) < 0)
				rc = error_errno(err, "cannot create '%s'", link);
			else
				manifest_set(&m, name, real);
		}
		free(names[i]);
	}
	free(names);
	*ntools = m.n;
	if (rc == 0) {
		cleanup_free char *text = manifest_format(&m);
		cleanup_free char *file = path_join(tmp, MANIFEST_REL);
		rc = fs_write_atomic(file, text, strlen(text), 0644, err);
	}
	manifest_free(&m);
	return rc;
}

/* Remove what fill_package_shell left in tmp (ours alone: mkdtemp): links
 * in bin/ and the manifest. */
static void remove_new_shell(const char *tmp)
{
	cleanup_free char *tbin = path_join(tmp, "bin");
	DIR *d = opendir(tbin);
	for (struct dirent *e; d && (e = readdir(d));) {
		cleanup_free char *p = path_join(tbin, e->d_name);
		if (e->d_name[0] != '.')
			unlink(p);
	}
	if (d)
		closedir(d);
	static const char *const rest[] = {MANIFEST_REL, "share/moat", "share", "bin", ""};
	for (size_t i = 0; i < ARRAY_LEN(rest); i++) {
		cleanup_free char *p = *rest[i] ? path_join(tmp, rest[i]) : xstrdup(tmp);
		if (unlink(p) < 0)
			rmdir(p);
	}
}

static int make_package_shell(const char *store, const char *dir, struct error *err)
{
	if (!nix_state.feedback.wrapper)
		return error_set(
		    err, "cannot wrap the package %s: moat-wrapper is not next to moat", store);
	cleanup_free char *parent = path_dirname(dir);
	if (fs_mkdir_p(parent, 0700, err) < 0)
		return -1;
	cleanup_free char *tmp = xasprintf("%s/.new-XXXXXX", parent);
	if (!mkdtemp(tmp))
		return error_errno(err, "cannot create a directory in '%s'", parent);
	chmod(tmp, 0755);
	size_t ntools = 0;
	int rc = fill_package_shell(tmp, store, &ntools, err);
	if (rc == 0 && ntools == 0)
		rc = error_set(err, "%s has a bin/ without executables: no tools to wrap", store);
	if (rc == 0 && rename(tmp, dir) < 0 && errno != EEXIST && errno != ENOTEMPTY)
		rc = error_errno(err, "cannot create '%s'", dir);
	if (fs_is_dir(tmp))
		remove_new_shell(tmp);
	return rc;
}

/* Is store a shell (bin/ and a manifest), or a plain package (bin/ alone)?
 * Only a direct child of the store counts: a pin pointing elsewhere (a
 * damaged or edited lock file) is not trusted. *dir gets the directory to
 * use: the store path itself, or the shell moat made around the package
 * (made now when make is set). */
int store_shell(const char *what, const char *store, bool make, char **dir, struct error *err)
{
	cleanup_free char *parent = path_dirname(store);
	if (strcmp(parent, nix_store_dir()) != 0 || path_refusal(store)) {
		error_set(err, "'%s' is not a store path but '%s'", what, store);
		error_hint(err, "a shell from a flake must be a derivation: a package with bin/, "
		                "or one made with moat.lib.<system>.sandbox.wrap { name; paths; }");
		return -1;
	}
	cleanup_free char *bin = path_join(store, "bin");
	cleanup_free char *manifest = path_join(store, MANIFEST_REL);
	if (!fs_is_dir(bin)) {
		error_set(err, "'%s' built %s, which is not a moat shell (no bin/)", what, store);
		error_hint(err,
		           "a shell is a package with bin/ (its tools are wrapped), or one made "
		           "with moat.lib.%s.sandbox.wrap { name; paths; }",
		           nix_system());
		return -1;
	}
	if (fs_exists(manifest)) {
		*dir = xstrdup(store);
		return 0;
	}
	cleanup_free char *wrapped = package_shell_dir(store);
	cleanup_free char *wbin = path_join(wrapped, "bin");
	if (!fs_is_dir(wbin)) {
		if (!make)
			return error_set(err, "the package %s is not wrapped yet", store);
		if (make_package_shell(store, wrapped, err) < 0)
			return -1;
		nix_say_info("wrapped the package %s as the shell %s", store, wrapped);
	}
	*dir = steal_ptr(&wrapped);
	return 0;
}

/* Build from#attr with an out-link (or only evaluate, for moat check). */
int nix_build(const struct shell_ref *r, const char *from, char **store, struct error *err)
{
	cleanup_free char *installable = xasprintf("%s#%s", from, r->attr);
	cleanup_free char *link = out_link(r);
	/* nix 2.8's evaluation cache reports a cached evaluation error as "not a
	 * derivation"; moat evaluates rarely, so it gives the cache up. */
	const char *args[9] = {"nix", "build", "--no-eval-cache"};
	size_t n = 3;
	if (nix_state.feedback.dry_run) {
		args[n++] = "--dry-run";
		args[n++] = "--json";
	} else {
		cleanup_free char *dir = path_dirname(link);
		if (fs_mkdir_p(dir, 0700, err) < 0)
			return -1;
		args[n++] = "--out-link";
		args[n++] = link;
		if (nix_state.feedback.verbose)
			args[n++] = "--print-build-logs";
	}
	args[n++] = installable;
	args[n] = NULL;
	struct proc_result run;
	if (run_nix(args, r->shown, &run, err) < 0)
		return -1;
	int rc = 0;
	cleanup_free char *what = xasprintf("%s#%s", r->flake, r->attr);
	if (run.status != 0) {
		rc = nix_failed(r, &run, err);
	} else if (nix_state.feedback.dry_run) {
		*store = json_get_string(run.out.buf, run.out.len, "0.outputs.out");
		if (!*store)
			rc = error_set(err, "'%s' has no output 'out'", installable);
	} else {
		char target[4096];
		ssize_t len = readlink(link, target, sizeof(target) - 1);
		if (len < 0) {
			rc = error_errno(err, "nix built '%s' but left no out-link '%s'",
			                 installable, link);
		} else {
			target[len] = '\0';
			*store = xstrdup(target);
			cleanup_free char *dir = NULL;
			rc = store_shell(what, *store, true, &dir, err);
			if (rc < 0) {
				/* Root no store path that is not a shell. */
				unlink(link);
				free(*store);
				*store = NULL;
			}
		}
	}
	proc_result_free(&run);
	return rc;
}
