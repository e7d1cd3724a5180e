/* Shells from nix flakes: pins first, the nix CLI when there is no usable pin.
 *
 * The fast path (a pin whose store path exists) reads one small file and
 * stats a few paths (and, for a local flake, the files it holds, to say when
 * it changed); nix is started only to resolve a shell for the first time, to
 * rebuild a collected store path, by moat update, and by moat check. nix is
 * a binary chosen once (nix_locate), run with an argv array, its stdin on
 * /dev/null and its stderr captured, so that its failures reach the user as
 * one clear message (or, with -v, pass through as they happen).
 *
 * A local flake where sandboxed code can write is never evaluated as it
 * stands: nix copies it to the store (nix flake prefetch: a copy, no
 * evaluation), the user agrees to that copy's hash, and nix evaluates the
 * copy, which nothing can change any more. */
#include "shells/nix.h"
#include "base/envvars.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "base/fs.h"
#include "base/path.h"
#include "base/platform.h"
#include "shells/nixpriv.h"
#include "shells/source.h"

struct nix_state nix_state;

void nix_set_feedback(const struct nix_feedback *fb)
{
	nix_state.feedback = *fb;
}

static void say(void (*fn)(const char *), const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));
static void say(void (*fn)(const char *), const char *fmt, va_list ap)
{
	if (!fn)
		return;
	char msg[1024];
	vsnprintf(msg, sizeof(msg), fmt, ap);
	fn(msg);
}

void nix_say_progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void nix_say_progress(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	say(nix_state.feedback.progress, fmt, ap);
	va_end(ap);
}

void nix_say_warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void nix_say_warning(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	say(nix_state.feedback.warning, fmt, ap);
	va_end(ap);
}

void nix_say_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void nix_say_info(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	say(nix_state.feedback.verbose ? nix_state.feedback.info : NULL, fmt, ap);
	va_end(ap);
}

void report_pin_warnings(const struct pins *p)
{
	for (size_t i = 0; i < p->nwarnings; i++)
		nix_say_warning("%s", p->warnings[i]);
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

const char *nix_store_dir(void)
{
	const char *s = getenv("NIX_STORE_DIR");
	return s && s[0] == '/' ? s : "/nix/store";
}

/* A reference nix would read from the file system is judged as local
 * wherever it lies (trusted_flake); one moat cannot classify is refused
 * (shells/source.h). A relative path means the caller's directory now;
 * pins outlive that, so it is made absolute, its query kept (".",
 * ".?dir=sub", "path:./x?ref=y"). */
static char *canonical_flake(const char *ref, struct error *err)
{
	struct flake_ref fr;
	flake_ref_parse(ref, &fr);
	char *out = NULL;
	if (fr.kind == FLAKE_REF_REFUSED) {
		error_set(err, "refusing flake '%s': %s", ref, fr.why);
		error_hint(err, "name a local flake as ./dir, /abs/dir or path:/abs/dir, a remote "
		                "one as e.g. github:owner/repo");
	} else if (fr.kind == FLAKE_REF_REMOTE || fr.path[0] == '/') {
		out = xstrdup(ref);
	} else {
		cleanup_free char *abs = platform_canonical_path(fr.path);
		if (!abs)
			error_errno(err, "cannot use flake '%s'", ref);
		else
			out = xasprintf("%s%s%s%s%s", fr.scheme, *fr.scheme ? ":" : "", abs,
			                fr.query ? "?" : "", fr.query ? fr.query : "");
	}
	flake_ref_free(&fr);
	return out;
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
			return platform_canonical_path(dir);
	}
	return NULL;
}

static bool moat_flake_set(void)
{
	const char *env = getenv(ENV_FLAKE);
	return env && *env;
}

char *nix_default_flake(struct error *err)
{
	if (moat_flake_set())
		return canonical_flake(getenv(ENV_FLAKE), err);
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

void nix_free_names(char **names)
{
	for (size_t i = 0; names && names[i]; i++)
		free(names[i]);
	free(names);
}

/* The installed flake's shells are the attributes of its nix/shells.nix,
 * one "  NAME = wrap {" line each: read, never evaluated, so that a name it
 * does not have costs no nix (which would fetch nixpkgs to find out). */
char **nix_installed_shells(void)
{
	cleanup_free char *flake = installed_flake();
	cleanup_free char *file = flake ? path_join(flake, "nix/shells.nix") : NULL;
	cleanup_free char *buf = NULL;
	size_t len, n = 0;
	struct error ignored;
	if (!file || fs_read_file(file, 1u << 20, &buf, &len, &ignored) < 0)
		return NULL;
	char **names = xcalloc(1, sizeof(char *));
	for (char *line = buf, *nl; line; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		if (strncmp(line, "  ", 2) != 0 || line[2] == ' ')
			continue;
		char *name = line + 2;
		size_t k = strspn(
		    name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-");
		if (k && strncmp(name + k, " = wrap ", 8) == 0) {
			names = xrealloc_array(names, n + 2, sizeof(char *));
			names[n++] = xstrndup(name, k);
			names[n] = NULL;
		}
	}
	return names;
}

static bool installed_has(const char *name)
{
	char **names = nix_installed_shells();
	bool found = false;
	for (size_t i = 0; names && names[i] && !found; i++)
		found = strcmp(names[i], name) == 0;
	nix_free_names(names);
	return found;
}

/* --- shell references ------------------------------------------------------ */

void shell_ref_free(struct shell_ref *r)
{
	free(r->name);
	free(r->flake);
	free(r->attr);
	free(r->shown);
	*r = (struct shell_ref){0};
}

int shell_ref_parse(const char *name, struct shell_ref *r, struct error *err)
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

uint32_t nix_fnv32(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static char *safe_name(const char *s)
{
	struct strbuf sb = STRBUF_INIT;
	for (const char *c = s; *c && sb.len < 64; c++)
		sb_addc(
		    &sb,
		    strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-", *c)
		        ? *c
		        : '_');
	return sb_detach(&sb);
}

/* $XDG_STATE_HOME/moat/gcroots/<attr>-<hash of the name>: one out-link per
 * pin, which nix registers as a garbage-collection root. */
char *out_link_for(const char *name, const char *attr)
{
	cleanup_free char *safe = safe_name(attr);
	cleanup_free char *state = moat_state_dir(nix_state.feedback.home);
	return xasprintf("%s/gcroots/%s-%08x", state, safe, nix_fnv32(name));
}

char *out_link(const struct shell_ref *r)
{
	return out_link_for(r->name, r->attr);
}

/* --- pins ------------------------------------------------------------------ */

/* Serialize resolutions: a second moat waits, then finds the first one's pin. */
int lock_pins(const char *state, struct error *err)
{
	cleanup_free char *pins = path_join(state, "pins");
	return fs_lock_beside(pins, err);
}

static bool pin_matches(const struct pin *pin, const struct shell_ref *r)
{
	return pin && strcmp(pin->flake, r->flake) == 0 && strcmp(pin->attr, r->attr) == 0;
}

/* The fingerprint of a local flake, or "-". */
char *source_of(const char *flake)
{
	struct flake_local src;
	if (flake_local_parse(flake, &src) <= 0)
		return xstrdup("-");
	char *fp = flake_fingerprint(&src);
	flake_local_free(&src);
	return fp ? fp : xstrdup("-");
}

/* Resolve r afresh: lock the flake, build from the locked URL (so the pin
 * records what was built), and fill *out. */
int resolve_fresh(const struct shell_ref *r, bool refresh, struct pin *out, const char **unpinnable,
                  struct error *err)
{
	/* Taken before nix reads the flake: an edit made meanwhile shows. */
	cleanup_free char *source = source_of(r->flake);
	struct lock_info li;
	if (nix_metadata(r, refresh, &li, err) < 0)
		return -1;
	char *store = NULL;
	if (nix_build(r, li.url, &store, err) < 0) {
		lock_info_free(&li);
		return -1;
	}
	*unpinnable = unpinnable_reason(&li);
	bool revision = li.rev && !li.approved;
	*out = (struct pin){
	    .name = xstrdup(r->name),
	    .flake = xstrdup(r->flake),
	    .attr = xstrdup(r->attr),
	    .locked = xstrdup(revision ? li.url : "-"),
	    .rev = xstrdup(li.rev   ? li.rev
	                   : li.nar ? li.nar
	                            : "unknown"),
	    .store = store,
	    .source = steal_ptr(&source),
	};
	lock_info_free(&li);
	return 0;
}

void pin_release(struct pin *p)
{
	free(p->name);
	free(p->flake);
	free(p->attr);
	free(p->locked);
	free(p->rev);
	free(p->store);
	free(p->source);
	*p = (struct pin){0};
}

static struct pin pin_copy(const struct pin *p)
{
	return (struct pin){xstrdup(p->name),
	                    xstrdup(p->flake),
	                    xstrdup(p->attr),
	                    xstrdup(p->locked),
	                    xstrdup(p->rev),
	                    xstrdup(p->store),
	                    xstrdup(p->source ? p->source : "-")};
}

int save_pin(const char *path, struct pins *pins, const struct pin *pin, struct error *err)
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
	cleanup_free char *what = xasprintf("%s#%s", r->flake, r->attr);
	struct error ignored;
	if (old && store_shell(what, old->store, true, dir, &ignored) == 0) {
		pins_free(&pins);
		return 0;
	}
	if (!nix_state.feedback.dry_run)
		nix_say_progress("building %s...", r->shown);
	struct pin fresh = {0};
	const char *unpinnable = NULL;
	int rc;
	if (old && strcmp(old->locked, "-") != 0) {
		/* The store path was collected: rebuild the pinned revision. */
		char *store = NULL;
		rc = nix_build(r, old->locked, &store, err);
		if (rc == 0) {
			fresh = pin_copy(old);
			free(fresh.store);
			fresh.store = store;
		}
	} else {
		rc = resolve_fresh(r, false, &fresh, &unpinnable, err);
	}
	if (rc == 0 && !nix_state.feedback.dry_run)
		rc = save_pin(pins_path, &pins, &fresh, err);
	if (rc == 0 && nix_state.feedback.dry_run)
		*dir = steal_ptr(&fresh.store);
	else if (rc == 0)
		rc = store_shell(what, fresh.store, true, dir, err);
	pin_release(&fresh);
	pins_free(&pins);
	return rc;
}

/* A pin from a local flake whose files changed since: say so, cheaply. */
static void notice_changes(const struct pin *pin, const struct shell_ref *r)
{
	nix_say_info("shell %s: pinned from '%s' at %s", r->shown, pin->flake, pin->rev);
	if (strcmp(pin->source, "-") == 0)
		return;
	cleanup_free char *now = source_of(pin->flake);
	if (strcmp(now, pin->source) != 0)
		nix_say_progress(
		    "%s: the flake '%s' changed since it was pinned; to use the change: moat "
		    "update %s",
		    r->shown, pin->flake, r->shown);
}

/* Is a bare name something a flake is configured for? MOAT_FLAKE names one
 * for every name; the flake installed with moat only for the shells it
 * has. Anything else is a typo or a local shell that is not there: say so
 * without starting nix, which could spend a network time-out finding out. */
static bool flake_configured(const char *name)
{
	return strchr(name, '#') || moat_flake_set() || installed_has(name);
}

int nix_shell_find(const char *name, char **dir, enum nix_unknown *unknown, struct error *err)
{
	struct shell_ref r;
	nix_state.last_failure = NIX_FOUND_OR_FAILED;
	if (unknown)
		*unknown = NIX_FOUND_OR_FAILED;
	cleanup_free char *state = moat_state_dir(nix_state.feedback.home);
	cleanup_free char *pins_path = path_join(state, "pins");
	if (!flake_configured(name)) {
		if (unknown)
			*unknown = NIX_NO_FLAKE;
		return error_set(err, "unknown shell '%s'", name);
	}
	if (shell_ref_parse(name, &r, err) < 0)
		return -1;
	struct pins pins;
	int rc = -1;
	/* The fast path: no lock, no nix. */
	if (pins_load(pins_path, &pins, err) == 0) {
		report_pin_warnings(&pins);
		const struct pin *pin = pins_lookup(&pins, r.name);
		cleanup_free char *what = xasprintf("%s#%s", r.flake, r.attr);
		struct error ignored;
		if (pin_matches(pin, &r) &&
		    store_shell(what, pin->store, true, dir, &ignored) == 0) {
			notice_changes(pin, &r);
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
		if (rc < 0 && nix_state.last_failure == NIX_NO_NIX && strchr(name, '#')) {
			error_wrap(err, "cannot build shell '%s'", name);
		}
		if (unknown && !strchr(name, '#'))
			*unknown = nix_state.last_failure;
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
