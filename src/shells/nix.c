/* Shells from nix flakes: pins first, the nix CLI when there is no usable pin.
 *
 * The fast path (a pin whose store path exists) reads one small file and
 * stats a few paths; nix is started only to resolve a shell for the first
 * time, to rebuild a collected store path, by moat update, and by moat check.
 * nix runs through posix_spawnp with an argv array, its stdin on /dev/null
 * and its stderr captured, so that its failures reach the user as one clear
 * message (or, with -v, pass through as they happen). */
#include "shells/nix.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include "base/fs.h"
#include "base/path.h"
#include "base/platform.h"
#include "base/strbuf.h"
#include "shells/json.h"
#include "shells/proc.h"
#include "shells/shells.h"

static struct nix_feedback feedback;

/* Why the last resolution failed, to word the error for a bare shell name
 * that is neither local nor in the flake. */
static enum { FAIL_OTHER, FAIL_NO_NIX, FAIL_NO_ATTR } last_failure;

void nix_set_feedback(const struct nix_feedback *fb)
{
	feedback = *fb;
}

static void progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void progress(const char *fmt, ...)
{
	if (!feedback.progress)
		return;
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	feedback.progress(msg);
}

static void report_pin_warnings(const struct pins *p)
{
	for (size_t i = 0; feedback.warning && i < p->nwarnings; i++)
		feedback.warning(p->warnings[i]);
}

/* --- where things are ------------------------------------------------------ */

const char *nix_system(void)
{
	static char sys[64];
	struct utsname u;
	if (sys[0])
		return sys;
	if (uname(&u) < 0)
		return "unknown-system";
	const char *cpu = u.machine;
	if (strcmp(cpu, "arm64") == 0)
		cpu = "aarch64";
	const char *os = strcmp(u.sysname, "Darwin") == 0 ? "darwin" : "linux";
	if (!fmt_fits(sys, sizeof(sys), "%s-%s", cpu, os))
		return "unknown-system";
	return sys;
}

static const char *store_dir(void)
{
	const char *s = getenv("NIX_STORE_DIR");
	return s && s[0] == '/' ? s : "/nix/store";
}

/* A relative directory means the caller's directory now; pins outlive that,
 * so make it absolute ("." and "path:./x", not "github:..."). */
static char *canonical_flake(const char *ref, struct error *err)
{
	const char *scheme = strncmp(ref, "path:", 5) == 0 ? "path:" : "";
	const char *p = ref + strlen(scheme);
	bool relative = p[0] == '.' || (*scheme && p[0] != '/');
	if (!relative || strchr(p, '?'))
		return xstrdup(ref);
	cleanup_free char *abs = realpath(p, NULL);
	if (!abs) {
		error_set(err, "cannot use flake '%s': %s", ref, strerror(errno));
		return NULL;
	}
	return xasprintf("%s%s", scheme, abs);
}

/* The installed flake: <bindir>/../share/moat/flake.nix; in a build tree
 * (build/moat), the source tree's own flake.nix one level up. */
static char *installed_flake(void)
{
	cleanup_free char *self = platform_self_exe();
	if (!self)
		return NULL;
	cleanup_free char *bindir = path_dirname(self);
	static const char *const cands[] = {"../share/moat", ".."};
	for (size_t i = 0; i < ARRAY_LEN(cands); i++) {
		cleanup_free char *dir = path_join(bindir, cands[i]);
		cleanup_free char *file = path_join(dir, "flake.nix");
		if (fs_exists(file))
			return realpath(dir, NULL);
	}
	return NULL;
}

char *nix_default_flake(struct error *err)
{
	const char *env = getenv("MOAT_FLAKE");
	if (env && *env)
		return canonical_flake(env, err);
	char *flake = installed_flake();
	if (!flake) {
		error_set(err,
		          "no flake to look shells up in: MOAT_FLAKE is not set and no flake.nix "
		          "is installed next to moat");
		error_hint(err, "set MOAT_FLAKE to a flake reference, e.g. github:you/shells or "
		                "path:/abs/dir");
	}
	return flake;
}

struct shell_ref {
	char *name; /* the pin's key: "rust", or "<canonical flake>#attr" */
	char *flake;
	char *attr;
	char *shown; /* what the user wrote, for messages */
};

static void shell_ref_free(struct shell_ref *r)
{
	free(r->name);
	free(r->flake);
	free(r->attr);
	free(r->shown);
}

static int shell_ref_parse(const char *name, struct shell_ref *r, struct error *err)
{
	*r = (struct shell_ref){.shown = xstrdup(name)};
	const char *hash = strchr(name, '#');
	if (hash) {
		if (hash == name || !hash[1]) {
			error_set(err, "bad shell '%s': want FLAKE#ATTRIBUTE", name);
			goto fail;
		}
		cleanup_free char *flake = xstrndup(name, (size_t)(hash - name));
		r->flake = canonical_flake(flake, err);
		if (!r->flake)
			goto fail;
		r->attr = xstrdup(hash + 1);
		r->name = xasprintf("%s#%s", r->flake, r->attr);
	} else {
		r->flake = nix_default_flake(err);
		if (!r->flake)
			goto fail;
		r->attr = xstrdup(name);
		r->name = xstrdup(name);
	}
	for (const unsigned char *c = (const unsigned char *)r->name; *c; c++)
		if (*c < 0x20 || *c == 0x7f) {
			error_set(err, "bad shell name: it contains a control character");
			goto fail;
		}
	return 0;
fail:
	shell_ref_free(r);
	return -1;
}

/* $XDG_STATE_HOME/moat/gcroots/<attr>-<hash of the name>: one out-link per
 * pin, which nix registers as a garbage-collection root. */
static char *out_link(const struct shell_ref *r)
{
	uint32_t h = 2166136261u;
	for (const char *c = r->name; *c; c++)
		h = (h ^ (unsigned char)*c) * 16777619u;
	struct strbuf sb = STRBUF_INIT;
	for (const char *c = r->attr; *c && sb.len < 64; c++)
		sb_addc(
		    &sb,
		    strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-", *c)
		        ? *c
		        : '_');
	cleanup_free char *state = moat_state_dir();
	char *link = xasprintf("%s/gcroots/%s-%08x", state, sb_str(&sb), h);
	sb_release(&sb);
	return link;
}

/* --- running nix ----------------------------------------------------------- */

static void nix_stderr(const char *buf, size_t len, void *arg)
{
	(void)arg;
	if (feedback.verbose && feedback.output)
		feedback.output(buf, len);
}

/* The nix on PATH, the first executable "nix" in an entry (posix_spawnp's
 * rule). NULL when there is none. */
static char *find_nix(void)
{
	const char *path = getenv("PATH");
	cleanup_free char *copy = xstrdup(path && *path ? path : "/usr/local/bin:/usr/bin:/bin");
	for (char *p = copy, *colon; p; p = colon ? colon + 1 : NULL) {
		colon = strchr(p, ':');
		if (colon)
			*colon = '\0';
		cleanup_free char *cand = path_join(*p ? p : ".", "nix");
		if (access(cand, X_OK) == 0 && !fs_is_dir(cand))
			return steal_ptr(&cand);
	}
	return NULL;
}

/* Run nix with args (args[0] is "nix"). Returns -1 only when nix could not
 * be started; a nix that fails has r->status != 0. */
static int run_nix(const char *const *args, struct proc_result *r, struct error *err)
{
	cleanup_free char *nix = find_nix();
	int start_errno = ENOENT;
	struct proc_hooks hooks = {.on_stderr = nix_stderr};
	if (nix && proc_run(nix, args, &hooks, r, &start_errno, err) == 0)
		return 0;
	if (!nix)
		*r = (struct proc_result){.out = STRBUF_INIT, .err = STRBUF_INIT};
	if (start_errno == ENOENT) {
		last_failure = FAIL_NO_NIX;
		error_set(err, "nix is not installed (no 'nix' on PATH)");
		error_hint(err, "install nix (on Debian: apt-get install nix-bin), or make a "
		                "local shell with: moat wrap NAME /path/to/tool...");
		return -1;
	}
	if (start_errno)
		return error_set(err, "cannot run nix: %s", strerror(start_errno));
	return -1;
}

/* nix's first "error: ..." line, or its last line when it printed none. */
static char *nix_error_line(const struct proc_result *r)
{
	const char *s = sb_str(&r->err);
	const char *line = NULL;
	for (const char *p = s; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (strncmp(p, "error: ", 7) == 0) {
			line = p + 7;
			break;
		}
		if (*p != '\n' && *p != ' ')
			line = p;
	}
	if (!line)
		return xasprintf("nix exited with status %d", r->status);
	char *out = xstrndup(line, strcspn(line, "\n"));
	size_t n = strlen(out);
	while (n && strchr(" ;:", out[n - 1]))
		out[--n] = '\0';
	return out;
}

/* Turn a failed nix run into one message and a hint. */
static int nix_failed(const struct shell_ref *r, const struct proc_result *run, struct error *err)
{
	const char *text = sb_str(&run->err);
	cleanup_free char *line = nix_error_line(run);
	if (strstr(text, "experimental Nix feature")) {
		error_set(err, "cannot build shell '%s': nix has flakes turned off (%s)", r->shown,
		          line);
		error_hint(err, "add 'experimental-features = nix-command flakes' to "
		                "~/.config/nix/nix.conf or /etc/nix/nix.conf");
		return -1;
	}
	if (strstr(text, "does not provide attribute")) {
		last_failure = FAIL_NO_ATTR;
		error_set(err, "unknown shell '%s': flake '%s' has no attribute '%s'", r->shown,
		          r->flake, r->attr);
		error_hint(err, "nix looked for packages.%s.%s and legacyPackages.%s.%s",
		           nix_system(), r->attr, nix_system(), r->attr);
		if (!strchr(r->shown, '#'))
			error_hint(err,
			           "set MOAT_FLAKE to a flake that defines it, or make a local "
			           "shell with: moat wrap %s /path/to/tool...",
			           r->attr);
		return -1;
	}
	if (strstr(text, "does not contain a 'flake.nix'") || strstr(text, "getting status of") ||
	    strstr(text, "cannot find flake") || strstr(text, "unsupported flake") ||
	    strstr(text, "is not a valid URL") || strstr(text, "cannot parse flake")) {
		error_set(err, "cannot use flake '%s': %s", r->flake, line);
		error_hint(err, "MOAT_FLAKE (or FLAKE in FLAKE#ATTR) must name a flake, e.g. "
		                "github:you/shells or path:/abs/dir");
		return -1;
	}
	error_set(err, "cannot build shell '%s' from flake '%s': %s", r->shown, r->flake, line);
	if (feedback.verbose)
		error_hint(err, "nix's output is above");
	else
		error_hint(err, "see nix's own output with: moat -v ...");
	return -1;
}

struct lock_info {
	char *url; /* locked URL */
	char *rev; /* NULL when the reference cannot be pinned */
	char *nar;
	char *type;
};

static void lock_info_free(struct lock_info *li)
{
	free(li->url);
	free(li->rev);
	free(li->nar);
	free(li->type);
}

static int nix_metadata(const struct shell_ref *r, bool refresh, struct lock_info *li,
                        struct error *err)
{
	const char *args[] = {"nix", "flake", "metadata", "--json", r->flake, NULL, NULL};
	if (refresh) {
		args[4] = "--refresh";
		args[5] = r->flake;
	}
	struct proc_result run;
	if (run_nix(args, &run, err) < 0)
		return -1;
	int rc = 0;
	*li = (struct lock_info){0};
	if (run.status != 0) {
		rc = nix_failed(r, &run, err);
	} else {
		li->url = json_get_string(run.out.buf, run.out.len, "url");
		li->rev = json_get_string(run.out.buf, run.out.len, "locked.rev");
		li->nar = json_get_string(run.out.buf, run.out.len, "locked.narHash");
		li->type = json_get_string(run.out.buf, run.out.len, "locked.type");
		if (!li->url) {
			lock_info_free(li);
			rc = error_set(err,
			               "cannot use flake '%s': 'nix flake metadata' gave no "
			               "locked URL",
			               r->flake);
		}
	}
	proc_result_free(&run);
	return rc;
}

static const char *unpinnable_reason(const struct lock_info *li)
{
	if (li->rev)
		return NULL;
	if (li->type && strcmp(li->type, "path") == 0)
		return "a path: reference has no revision";
	if (li->type && strcmp(li->type, "git") == 0)
		return "the git tree has uncommitted changes";
	return "the reference has no revision";
}

/* Does a store path hold a shell? Only a direct child of the store counts:
 * a pin pointing elsewhere (a damaged or edited lock file) is not trusted. */
static int check_store_shell(const struct shell_ref *r, const char *store, struct error *err)
{
	cleanup_free char *parent = path_dirname(store);
	if (strcmp(parent, store_dir()) != 0 || path_refusal(store)) {
		error_set(err, "'%s#%s' is not a store path but '%s'", r->flake, r->attr, store);
		error_hint(err,
		           "a shell from a flake must be a derivation, e.g. "
		           "moat.lib.%s.sandbox.wrap { name; paths; }",
		           nix_system());
		return -1;
	}
	cleanup_free char *bin = path_join(store, "bin");
	cleanup_free char *manifest = path_join(store, MANIFEST_REL);
	if (!fs_is_dir(bin) || !fs_exists(manifest)) {
		error_set(err, "'%s#%s' built %s, which is not a moat shell (no %s)", r->flake,
		          r->attr, store, fs_is_dir(bin) ? MANIFEST_REL : "bin/");
		error_hint(err, "define the shell with moat.lib.%s.sandbox.wrap { name; paths; }",
		           nix_system());
		return -1;
	}
	return 0;
}

static bool store_shell_ok(const struct shell_ref *r, const char *store)
{
	struct error ignored;
	return check_store_shell(r, store, &ignored) == 0;
}

/* Build from@attr with an out-link (or only evaluate, for moat check). */
static int nix_build(const struct shell_ref *r, const char *from, char **store, struct error *err)
{
	cleanup_free char *installable = xasprintf("%s#%s", from, r->attr);
	cleanup_free char *link = out_link(r);
	/* nix 2.8's evaluation cache reports a cached evaluation error as "not a
	 * derivation"; moat evaluates rarely, so it gives the cache up. */
	const char *args[9] = {"nix", "build", "--no-eval-cache"};
	size_t n = 3;
	if (feedback.dry_run) {
		args[n++] = "--dry-run";
		args[n++] = "--json";
	} else {
		cleanup_free char *dir = path_dirname(link);
		if (fs_mkdir_p(dir, 0700, err) < 0)
			return -1;
		args[n++] = "--out-link";
		args[n++] = link;
		if (feedback.verbose)
			args[n++] = "--print-build-logs";
	}
	args[n++] = installable;
	args[n] = NULL;
	struct proc_result run;
	if (run_nix(args, &run, err) < 0)
		return -1;
	int rc = 0;
	if (run.status != 0) {
		rc = nix_failed(r, &run, err);
	} else if (feedback.dry_run) {
		*store = json_get_string(run.out.buf, run.out.len, "0.outputs.out");
		if (!*store)
			rc = error_set(err, "'%s' has no output 'out'", installable);
	} else {
		char target[4096];
		ssize_t len = readlink(link, target, sizeof(target) - 1);
		if (len < 0) {
			rc = error_set(err, "nix built '%s' but left no out-link '%s': %s",
			               installable, link, strerror(errno));
		} else {
			target[len] = '\0';
			*store = xstrdup(target);
			rc = check_store_shell(r, *store, err);
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

/* --- pins ------------------------------------------------------------------ */

/* Serialize resolutions: a second moat waits, then finds the first one's pin. */
static int lock_pins(const char *state, struct error *err)
{
	cleanup_free char *pins = path_join(state, "pins");
	return fs_lock_beside(pins, err);
}

static bool pin_matches(const struct pin *pin, const struct shell_ref *r)
{
	return pin && strcmp(pin->flake, r->flake) == 0 && strcmp(pin->attr, r->attr) == 0;
}

/* Resolve r afresh: lock the flake, build from the locked URL (so the pin
 * records what was built), and fill *out. */
static int resolve_fresh(const struct shell_ref *r, bool refresh, struct pin *out,
                         const char **unpinnable, struct error *err)
{
	struct lock_info li;
	if (nix_metadata(r, refresh, &li, err) < 0)
		return -1;
	char *store = NULL;
	if (nix_build(r, li.url, &store, err) < 0) {
		lock_info_free(&li);
		return -1;
	}
	*unpinnable = unpinnable_reason(&li);
	*out = (struct pin){
	    .name = xstrdup(r->name),
	    .flake = xstrdup(r->flake),
	    .attr = xstrdup(r->attr),
	    .locked = xstrdup(li.rev ? li.url : "-"),
	    .rev = xstrdup(li.rev   ? li.rev
	                   : li.nar ? li.nar
	                            : "unknown"),
	    .store = store,
	};
	lock_info_free(&li);
	return 0;
}

static void pin_release(struct pin *p)
{
	free(p->name);
	free(p->flake);
	free(p->attr);
	free(p->locked);
	free(p->rev);
	free(p->store);
}

static int save_pin(const char *path, struct pins *pins, const struct pin *pin, struct error *err)
{
	if (pins_set(pins, pin, err) < 0)
		return -1;
	return pins_save(path, pins, err);
}

/* The slow path, under the lock: the pin may have appeared meanwhile. */
static int resolve_locked(const struct shell_ref *r, const char *pins_path, char **dir,
                          struct error *err)
{
	struct pins pins;
	if (pins_load(pins_path, &pins, err) < 0)
		return -1;
	const struct pin *old = pins_lookup(&pins, r->name);
	if (!pin_matches(old, r))
		old = NULL;
	if (old && store_shell_ok(r, old->store)) {
		*dir = xstrdup(old->store);
		pins_free(&pins);
		return 0;
	}
	if (!feedback.dry_run)
		progress("building %s...", r->shown);
	struct pin fresh = {0};
	const char *unpinnable = NULL;
	int rc;
	if (old && strcmp(old->locked, "-") != 0) {
		/* The store path was collected: rebuild the pinned revision. */
		char *store = NULL;
		rc = nix_build(r, old->locked, &store, err);
		if (rc == 0) {
			fresh = (struct pin){xstrdup(old->name), xstrdup(old->flake),
			                     xstrdup(old->attr), xstrdup(old->locked),
			                     xstrdup(old->rev),  store};
		}
	} else {
		rc = resolve_fresh(r, false, &fresh, &unpinnable, err);
	}
	if (rc == 0 && !feedback.dry_run)
		rc = save_pin(pins_path, &pins, &fresh, err);
	if (rc == 0)
		*dir = steal_ptr(&fresh.store);
	pin_release(&fresh);
	pins_free(&pins);
	return rc;
}

/* A bare name that is neither a local shell nor in the flake: say both. */
static int unknown_shell(const char *name, const char *flake, struct error *err)
{
	cleanup_free char *search = shells_search_path();
	if (last_failure == FAIL_NO_NIX)
		error_set(err,
		          "unknown shell '%s': it is not a local shell, and nix is not installed "
		          "to build it from flake '%s'",
		          name, flake);
	else if (last_failure == FAIL_NO_ATTR)
		error_set(err,
		          "unknown shell '%s': it is not a local shell, and flake '%s' has no "
		          "attribute '%s'",
		          name, flake, name);
	else
		error_set(err,
		          "unknown shell '%s': it is not a local shell, and there is no flake "
		          "to look it up in (MOAT_FLAKE is not set)",
		          name);
	error_hint(err, "looked for a local shell in %s (MOAT_SHELLS_PATH)", search);
	if (last_failure == FAIL_NO_ATTR)
		error_hint(err, "nix looked for packages.%s.%s and legacyPackages.%s.%s",
		           nix_system(), name, nix_system(), name);
	error_hint(err, "make a local shell with: moat wrap %s /path/to/tool...", name);
	if (last_failure == FAIL_NO_NIX)
		error_hint(err, "or install nix (on Debian: apt-get install nix-bin)");
	else
		error_hint(err, "or set MOAT_FLAKE to a flake that defines it");
	return -1;
}

int nix_shell_find(const char *name, char **dir, struct error *err)
{
	struct shell_ref r;
	last_failure = FAIL_OTHER;
	if (shell_ref_parse(name, &r, err) < 0)
		return strchr(name, '#') || getenv("MOAT_FLAKE") ? -1
		                                                 : unknown_shell(name, "", err);
	cleanup_free char *state = moat_state_dir();
	cleanup_free char *pins_path = path_join(state, "pins");
	struct pins pins;
	int rc = -1;
	/* The fast path: no lock, no nix. */
	if (pins_load(pins_path, &pins, err) == 0) {
		report_pin_warnings(&pins);
		const struct pin *pin = pins_lookup(&pins, r.name);
		if (pin_matches(pin, &r) && store_shell_ok(&r, pin->store)) {
			*dir = xstrdup(pin->store);
			rc = 0;
		}
		pins_free(&pins);
	}
	if (rc < 0) {
		int lock = lock_pins(state, err);
		if (lock >= 0) {
			rc = resolve_locked(&r, pins_path, dir, err);
			close(lock);
		}
		if (rc < 0 && !strchr(name, '#') && last_failure != FAIL_OTHER) {
			unknown_shell(name, r.flake, err);
		} else if (rc < 0 && last_failure == FAIL_NO_NIX) {
			char msg[sizeof(err->msg)];
			memcpy(msg, err->msg, sizeof(msg));
			fmt_fits(err->msg, sizeof(err->msg), "cannot build shell '%s': %s", name,
			         msg);
		}
	}
	shell_ref_free(&r);
	return rc;
}

int nix_check_flake(const char *flake, char **locked, struct error *err)
{
	struct shell_ref r = {.name = (char *)flake,
	                      .flake = (char *)flake,
	                      .attr = (char *)"",
	                      .shown = (char *)flake};
	struct lock_info li;
	if (nix_metadata(&r, false, &li, err) < 0)
		return -1;
	*locked = steal_ptr(&li.url);
	lock_info_free(&li);
	return 0;
}

/* --- moat update ----------------------------------------------------------- */

static char *short_rev(const char *rev)
{
	if (!rev)
		return NULL;
	size_t n = strncmp(rev, "sha256-", 7) == 0 ? 7 + 12 : 12;
	return xstrndup(rev, n);
}

void nix_pin_change_free(struct nix_pin_change *c)
{
	free(c->old_rev);
	free(c->new_rev);
	free(c->old_store);
	free(c->new_store);
	free(c->flake);
	*c = (struct nix_pin_change){0};
}

int nix_update(const char *name, struct nix_pin_change *chg, struct error *err)
{
	*chg = (struct nix_pin_change){0};
	cleanup_free char *state = moat_state_dir();
	cleanup_free char *pins_path = path_join(state, "pins");
	int lock = lock_pins(state, err);
	if (lock < 0)
		return -1;
	struct pins pins;
	struct shell_ref r = {0};
	struct pin fresh = {0};
	int rc = -1;
	if (pins_load(pins_path, &pins, err) < 0)
		goto out;
	const struct pin *old = pins_lookup(&pins, name);
	if (!old) {
		error_set(err, "no pinned shell '%s'", name);
		error_hint(err, "a shell is pinned when first used, e.g. by: moat shell %s", name);
		goto out;
	}
	chg->old_rev = short_rev(old->rev);
	chg->old_store = xstrdup(old->store);
	/* A bare name follows MOAT_FLAKE as moat shell would resolve it now. */
	if (shell_ref_parse(strchr(name, '#') ? name : old->attr, &r, err) < 0)
		goto out;
	progress("updating %s...", name);
	if (resolve_fresh(&r, true, &fresh, &chg->unpinnable, err) < 0 ||
	    save_pin(pins_path, &pins, &fresh, err) < 0)
		goto out;
	chg->flake = xstrdup(r.flake);
	chg->new_rev = short_rev(fresh.rev);
	chg->new_store = xstrdup(fresh.store);
	rc = 0;
out:
	if (rc < 0)
		nix_pin_change_free(chg);
	pin_release(&fresh);
	shell_ref_free(&r);
	pins_free(&pins);
	close(lock);
	return rc;
}

int nix_pinned_names(char ***names, size_t *n, struct error *err)
{
	cleanup_free char *state = moat_state_dir();
	cleanup_free char *pins_path = path_join(state, "pins");
	struct pins pins;
	if (pins_load(pins_path, &pins, err) < 0)
		return -1;
	report_pin_warnings(&pins);
	*names = xcalloc(pins.n + 1, sizeof(char *));
	for (size_t i = 0; i < pins.n; i++)
		(*names)[i] = xstrdup(pins.v[i].name);
	*n = pins.n;
	pins_free(&pins);
	return 0;
}
