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

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>

extern char **environ;

#include "base/fs.h"
#include "base/path.h"
#include "base/platform.h"
#include "base/strbuf.h"
#include "shells/json.h"
#include "shells/nixenv.h"
#include "shells/proc.h"
#include "shells/shells.h"
#include "shells/source.h"

static struct nix_feedback feedback;

/* Why the last resolution failed, for the caller's wording. */
static enum nix_unknown last_failure;

void nix_set_feedback(const struct nix_feedback *fb)
{
	feedback = *fb;
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

static void progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void progress(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	say(feedback.progress, fmt, ap);
	va_end(ap);
}

static void warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void warning(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	say(feedback.warning, fmt, ap);
	va_end(ap);
}

static void info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void info(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	say(feedback.verbose ? feedback.info : NULL, fmt, ap);
	va_end(ap);
}

static void report_pin_warnings(const struct pins *p)
{
	for (size_t i = 0; i < p->nwarnings; i++)
		warning("%s", p->warnings[i]);
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
			error_set(err, "cannot use flake '%s': %s", ref, strerror(errno));
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
	const char *env = getenv("MOAT_FLAKE");
	return env && *env;
}

char *nix_default_flake(struct error *err)
{
	if (moat_flake_set())
		return canonical_flake(getenv("MOAT_FLAKE"), err);
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

/* --- which nix ------------------------------------------------------------- */

static struct {
	bool done;
	int start_errno; /* ENOENT when there is none */
	char *path;
	const char *how;
	struct strbuf skipped;
	struct error err; /* MOAT_NIX refused */
} located;

/* Could sandboxed code have put (or redirected) this nix there? */
static bool planted(const char *dir, const char *bin, char **why)
{
	cleanup_free char *cdir = platform_canonical_path(dir);
	cleanup_free char *cbin = platform_canonical_path(bin);
	if (!feedback.writable)
		return false;
	if (cdir && feedback.writable(cdir, false, why))
		return true;
	return cbin && feedback.writable(cbin, false, why);
}

static bool executable_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

static void locate(void)
{
	located.done = true;
	located.skipped = (struct strbuf)STRBUF_INIT;
	const char *env = getenv("MOAT_NIX");
	if (env && *env) {
		located.how = "MOAT_NIX";
		cleanup_free char *why = NULL;
		cleanup_free char *dir = path_dirname(env);
		if (env[0] != '/')
			error_set(&located.err, "MOAT_NIX=%s is not an absolute path", env);
		else if (!executable_file(env))
			error_set(&located.err, "MOAT_NIX=%s is not an executable file", env);
		else if (planted(dir, env, &why))
			error_set(
			    &located.err,
			    "refusing MOAT_NIX=%s: it lies where sandboxed code can write (%s)",
			    env, why);
		else
			located.path = xstrdup(env);
		if (!located.path)
			error_hint(&located.err,
			           "point MOAT_NIX at nix's binary, e.g. /usr/bin/nix");
		return;
	}
	located.how = "PATH";
	located.start_errno = ENOENT;
	const char *path = getenv("PATH");
	char **dirs = path_list_split(path && *path ? path : "/usr/local/bin:/usr/bin:/bin", NULL);
	for (char **dir = dirs; *dir; dir++) {
		const char *p = *dir;
		cleanup_free char *cand = path_join(*p ? p : ".", "nix");
		if (!executable_file(cand))
			continue;
		cleanup_free char *why = NULL;
		if (p[0] != '/')
			why = xstrdup("a relative PATH entry");
		else if (!planted(p, cand, &why))
			why = NULL;
		else if (!why)
			why = xstrdup("where sandboxed code can write");
		if (why) {
			sb_addf(&located.skipped, "%s%s (%s)", located.skipped.len ? "\n" : "",
			        cand, why);
			continue;
		}
		located.path = steal_ptr(&cand);
		located.start_errno = 0;
		break;
	}
	path_list_free(dirs);
}

int nix_locate(struct nix_location *loc, struct error *err)
{
	if (!located.done)
		locate();
	*loc = (struct nix_location){located.path, located.how, sb_str(&located.skipped)};
	if (located.err.msg[0]) {
		*err = located.err;
		return -1;
	}
	return 0;
}

/* --- shell references ------------------------------------------------------ */

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
	*r = (struct shell_ref){0};
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

static uint32_t fnv32(const char *s)
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
static char *out_link_for(const char *name, const char *attr)
{
	cleanup_free char *safe = safe_name(attr);
	cleanup_free char *state = moat_state_dir(feedback.home);
	return xasprintf("%s/gcroots/%s-%08x", state, safe, fnv32(name));
}

static char *out_link(const struct shell_ref *r)
{
	return out_link_for(r->name, r->attr);
}

/* --- running nix ----------------------------------------------------------- */

/* What a nix run has said so far, line by line: for the indicator and to
 * notice a substituter that cannot be reached. */
struct watch {
	const char *shown;  /* the shell, for the indicator */
	struct strbuf line; /* the incomplete last line */
	char *doing;        /* what nix last said it does: "building foo" */
	char drawn[256];    /* the indicator as last drawn, "" when none */
};

/* Once per moat: the settings that stop the retries are the user's to set. */
static bool warned_unreachable;

static void watch_line(struct watch *w, const char *line)
{
	const char *dl = strstr(line, "unable to download '");
	if (dl && strstr(line, "retrying") && !warned_unreachable) {
		warned_unreachable = true;
		const char *url = dl + 20;
		size_t ulen = strcspn(url, "'");
		const char *reason = url + ulen + (url[ulen] == '\'');
		reason += strspn(reason, ": ");
		size_t rlen = strcspn(reason, ";");
		warning("nix cannot reach %.*s (%.*s) and keeps retrying: this can take a while",
		        (int)ulen, url, (int)rlen, reason);
		warning(
		    "if this machine is offline or that cache is not needed, set 'substituters =' "
		    "(empty) in nix.conf, or for one run: NIX_CONFIG='substituters =' moat ...");
	}
	static const char *const verbs[] = {"building '", "copying path '", "copying '",
	                                    "fetching '", "downloading '"};
	for (size_t i = 0; i < ARRAY_LEN(verbs); i++) {
		const char *v = strstr(line, verbs[i]);
		if (v != line)
			continue;
		/* "building '/nix/store/abc-name.drv'..." -> "building name" */
		const char *what = line + strlen(verbs[i]);
		const char *base = what;
		for (const char *c = what; *c && *c != '\''; c++)
			if (*c == '/')
				base = c + 1;
		const char *dash = strchr(base, '-');
		if (dash && dash < base + 40 && strchr(base, '\''))
			base = dash + 1;
		size_t n = strcspn(base, "'");
		if (n > 4 && strncmp(base + n - 4, ".drv", 4) == 0)
			n -= 4;
		free(w->doing);
		w->doing = xasprintf("%.*s %.*s", (int)(strcspn(verbs[i], " '")), verbs[i],
		                     (int)(n > 60 ? 60 : n), base);
		break;
	}
}

static void nix_stderr(const char *buf, size_t len, void *arg)
{
	struct watch *w = arg;
	if (feedback.verbose && feedback.output)
		feedback.output(buf, len);
	for (size_t i = 0; i < len; i++) {
		if (buf[i] != '\n') {
			if (w->line.len < 4096)
				sb_addc(&w->line, buf[i]);
			continue;
		}
		watch_line(w, sb_str(&w->line));
		sb_reset(&w->line);
	}
}

/* A build over a second gets a line on the terminal that says it is alive. */
static void nix_tick(unsigned elapsed_ms, void *arg)
{
	struct watch *w = arg;
	if (!feedback.tty || feedback.verbose || !feedback.status || elapsed_ms < 1000)
		return;
	char line[256];
	snprintf(line, sizeof(line), "%s... %us%s%s", w->shown, elapsed_ms / 1000,
	         w->doing ? ": " : "", w->doing ? w->doing : "");
	if (strcmp(line, w->drawn) != 0)
		feedback.status(line);
	memcpy(w->drawn, line, sizeof(line));
}

/* Run nix with args (args[0] is "nix"). Returns -1 only when nix could not
 * be started; a nix that fails has r->status != 0. shown names the shell
 * for the indicator. */
static int run_nix(const char *const *args, const char *shown, struct proc_result *r,
                   struct error *err)
{
	*r = (struct proc_result){.out = STRBUF_INIT, .err = STRBUF_INIT};
	struct nix_location loc;
	if (nix_locate(&loc, err) < 0) {
		last_failure = NIX_FOUND_OR_FAILED;
		return -1;
	}
	if (!loc.path) {
		last_failure = NIX_NO_NIX;
		error_set(err, "nix is not installed (no 'nix' on PATH)");
		if (*loc.skipped)
			error_hint(err, "skipped, as sandboxed code could have put it there: %s",
			           loc.skipped);
		error_hint(err, "install nix (on Debian: apt-get install nix-bin), or make a "
		                "local shell with: moat wrap NAME /path/to/tool...");
		return -1;
	}
	static bool said;
	if (!said) {
		said = true;
		info("nix: %s (%s)", loc.path,
		     strcmp(loc.how, "PATH") == 0 ? "first on PATH" : loc.how);
		if (*loc.skipped)
			info("nix: skipped, as sandboxed code could have put it there: %s",
			     loc.skipped);
	}
	cleanup_free char *dropped = NULL;
	char **env = nix_env_judge((const char *const *)environ, feedback.writable, &dropped, err);
	if (!env) {
		last_failure = NIX_FOUND_OR_FAILED;
		return -1;
	}
	static bool said_env;
	if (!said_env && *dropped)
		info("nix: left out of its environment: %s", dropped);
	said_env = true;
	struct watch w = {.shown = shown, .line = STRBUF_INIT, .drawn = ""};
	struct proc_hooks hooks = {
	    .on_stderr = nix_stderr, .on_tick = nix_tick, .tick_ms = 250, .arg = &w, .env = env};
	int start_errno;
	int rc = proc_run(loc.path, args, &hooks, r, &start_errno, err);
	nix_env_free(env);
	if (w.drawn[0])
		feedback.status(NULL);
	sb_release(&w.line);
	free(w.doing);
	if (rc < 0 && start_errno)
		error_set(err, "cannot run nix (%s): %s", loc.path, strerror(start_errno));
	return rc;
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
		last_failure = NIX_NO_ATTR;
		error_set(err, "unknown shell '%s': flake '%s' has no attribute '%s'", r->shown,
		          r->flake, r->attr);
		error_hint(err, "nix looked for packages.%s.%s and legacyPackages.%s.%s",
		           nix_system(), r->attr, nix_system(), r->attr);
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

/* The flake nix is to evaluate for r: r->flake itself; or, for a local
 * flake where sandboxed code can write, nix's copy of it, once the user
 * agreed to that copy's hash. *approved says which (the copy has no
 * revision of its own). */
static int trusted_flake(const struct shell_ref *r, char **eval, bool *approved, struct error *err)
{
	*approved = false;
	struct flake_local src;
	int local = flake_local_parse(r->flake, &src);
	if (local < 0) {
		error_set(err,
		          "cannot use flake '%s': moat cannot tell what nix would read from it (it "
		          "does not exist, or its dir= leads out of it)",
		          r->flake);
		err->status = EXIT_MOAT_FAILED;
		return -1;
	}
	if (!local) {
		*eval = xstrdup(r->flake);
		return 0;
	}
	cleanup_free char *why = NULL;
	bool writable = feedback.writable && (feedback.writable(src.dir, true, &why) ||
	                                      feedback.writable(src.root, true, &why));
	if (!writable) {
		flake_local_free(&src);
		*eval = xstrdup(r->flake);
		return 0;
	}
	/* nix copies what it would evaluate, and evaluates nothing. */
	const char *args[] = {"nix", "flake", "prefetch", "--json", r->flake, NULL};
	struct proc_result run;
	int rc = run_nix(args, r->shown, &run, err);
	cleanup_free char *hash = NULL, *store = NULL;
	if (rc == 0 && run.status != 0) {
		rc = nix_failed(r, &run, err);
	} else if (rc == 0) {
		hash = json_get_string(run.out.buf, run.out.len, "hash");
		store = json_get_string(run.out.buf, run.out.len, "storePath");
		cleanup_free char *parent = store ? path_dirname(store) : NULL;
		if (!hash || !store || strcmp(parent, store_dir()) != 0 || path_refusal(store) ||
		    strncmp(hash, "sha256-", 7) != 0)
			rc = error_set(
			    err,
			    "cannot use flake '%s': 'nix flake prefetch' gave no store path "
			    "and hash",
			    r->flake);
	}
	proc_result_free(&run);
	if (rc == 0) {
		struct nix_consent c = {r->shown, r->flake, src.dir, src.root, why, hash, store};
		if (!feedback.consent) {
			rc = error_set(err, "refusing to evaluate flake '%s': %s", r->flake, why);
		} else if (feedback.consent(&c, err) == 0) {
			cleanup_free char *h = url_escape(hash);
			cleanup_free char *d = url_escape(src.subdir);
			*eval = xasprintf("path:%s?narHash=%s%s%s", store, h,
			                  *src.subdir ? "&dir=" : "", d);
			*approved = true;
			info("flake %s: content %s approved, evaluating nix's copy %s", r->flake,
			     hash, store);
		} else {
			rc = -1;
		}
	}
	flake_local_free(&src);
	return rc;
}

/* --- locking and building -------------------------------------------------- */

struct lock_info {
	char *url; /* locked URL */
	char *rev; /* NULL when the reference cannot be pinned */
	char *nar;
	char *type;
	bool approved; /* a copy the user agreed to */
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

static const char *unpinnable_reason(const struct lock_info *li)
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
	cleanup_free char *state = moat_state_dir(feedback.home);
	return xasprintf("%s/wrapped/%s-%08x", state, path_basename(store),
	                 fnv32(feedback.wrapper ? feedback.wrapper : ""));
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
		return error_set(err, "cannot read '%s': %s", bin, strerror(errno));
	struct manifest m = {0};
	int rc = 0;
	for (int i = 0; i < n; i++) {
		const char *name = names[i]->d_name;
		cleanup_free char *real = path_join(bin, name);
		cleanup_free char *link = path_join(tbin, name);
		if (rc == 0 && name[0] != '.' && !tool_name_refusal(name) &&
		    executable_file(real)) {
			if (symlink(feedback.wrapper, link) < 0)
				rc =
				    error_set(err, "cannot create '%s': %s", link, strerror(errno));
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
	if (!feedback.wrapper)
		return error_set(
		    err, "cannot wrap the package %s: moat-wrapper is not next to moat", store);
	cleanup_free char *parent = path_dirname(dir);
	if (fs_mkdir_p(parent, 0700, err) < 0)
		return -1;
	cleanup_free char *tmp = xasprintf("%s/.new-XXXXXX", parent);
	if (!mkdtemp(tmp))
		return error_set(err, "cannot create a directory in '%s': %s", parent,
		                 strerror(errno));
	chmod(tmp, 0755);
	size_t ntools = 0;
	int rc = fill_package_shell(tmp, store, &ntools, err);
	if (rc == 0 && ntools == 0)
		rc = error_set(err, "%s has a bin/ without executables: no tools to wrap", store);
	if (rc == 0 && rename(tmp, dir) < 0 && errno != EEXIST && errno != ENOTEMPTY)
		rc = error_set(err, "cannot create '%s': %s", dir, strerror(errno));
	if (fs_is_dir(tmp))
		remove_new_shell(tmp);
	return rc;
}

/* Is store a shell (bin/ and a manifest), or a plain package (bin/ alone)?
 * Only a direct child of the store counts: a pin pointing elsewhere (a
 * damaged or edited lock file) is not trusted. *dir gets the directory to
 * use: the store path itself, or the shell moat made around the package
 * (made now when make is set). */
static int store_shell(const char *what, const char *store, bool make, char **dir,
                       struct error *err)
{
	cleanup_free char *parent = path_dirname(store);
	if (strcmp(parent, store_dir()) != 0 || path_refusal(store)) {
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
		info("wrapped the package %s as the shell %s", store, wrapped);
	}
	*dir = steal_ptr(&wrapped);
	return 0;
}

/* Build from#attr with an out-link (or only evaluate, for moat check). */
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
	if (run_nix(args, r->shown, &run, err) < 0)
		return -1;
	int rc = 0;
	cleanup_free char *what = xasprintf("%s#%s", r->flake, r->attr);
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

/* The fingerprint of a local flake, or "-". */
static char *source_of(const char *flake)
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
static int resolve_fresh(const struct shell_ref *r, bool refresh, struct pin *out,
                         const char **unpinnable, struct error *err)
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

static void pin_release(struct pin *p)
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
	cleanup_free char *what = xasprintf("%s#%s", r->flake, r->attr);
	struct error ignored;
	if (old && store_shell(what, old->store, true, dir, &ignored) == 0) {
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
			fresh = pin_copy(old);
			free(fresh.store);
			fresh.store = store;
		}
	} else {
		rc = resolve_fresh(r, false, &fresh, &unpinnable, err);
	}
	if (rc == 0 && !feedback.dry_run)
		rc = save_pin(pins_path, &pins, &fresh, err);
	if (rc == 0 && feedback.dry_run)
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
	info("shell %s: pinned from '%s' at %s", r->shown, pin->flake, pin->rev);
	if (strcmp(pin->source, "-") == 0)
		return;
	cleanup_free char *now = source_of(pin->flake);
	if (strcmp(now, pin->source) != 0)
		progress("%s: the flake '%s' changed since it was pinned; to use the change: moat "
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
	last_failure = NIX_FOUND_OR_FAILED;
	if (unknown)
		*unknown = NIX_FOUND_OR_FAILED;
	cleanup_free char *state = moat_state_dir(feedback.home);
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
		if (rc < 0 && last_failure == NIX_NO_NIX && strchr(name, '#')) {
			error_wrap(err, "cannot build shell '%s'", name);
		}
		if (unknown && !strchr(name, '#'))
			*unknown = last_failure;
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

/* --- moat update and moat pins --------------------------------------------- */

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
	free(c->stale);
	*c = (struct nix_pin_change){0};
}

/* For a bare name, the flake it resolves in now, when that is not the one
 * it was pinned from (NULL when it is, or for FLAKE#ATTR). */
static char *stale_flake(const struct pin *pin)
{
	if (strchr(pin->name, '#'))
		return NULL;
	struct error ignored;
	char *now = nix_default_flake(&ignored);
	if (now && strcmp(now, pin->flake) == 0) {
		free(now);
		return NULL;
	}
	return now ? now : xstrdup("none (MOAT_FLAKE is not set and no flake is installed)");
}

/* The name a shell is pinned under: FLAKE#ATTR with its flake made
 * canonical (".#x" -> "/abs#x"), as resolving it pins it. */
static char *pin_key(const char *name)
{
	struct shell_ref k;
	struct error ignored;
	if (!strchr(name, '#') || shell_ref_parse(name, &k, &ignored) < 0)
		return xstrdup(name);
	char *key = steal_ptr(&k.name);
	shell_ref_free(&k);
	return key;
}

int nix_update(const char *name, bool follow, struct nix_pin_change *chg, struct error *err)
{
	*chg = (struct nix_pin_change){0};
	cleanup_free char *state = moat_state_dir(feedback.home);
	cleanup_free char *pins_path = path_join(state, "pins");
	int lock = lock_pins(state, err);
	if (lock < 0)
		return -1;
	struct pins pins;
	struct shell_ref r = {0};
	struct pin fresh = {0};
	cleanup_free char *key = NULL;
	int rc = -1;
	if (pins_load(pins_path, &pins, err) < 0)
		goto out;
	key = pin_key(name);
	const struct pin *old = pins_lookup(&pins, key);
	if (!old) {
		error_set(err, "no pinned shell '%s'", name);
		error_hint(err,
		           "a shell is pinned when first used, e.g. by: moat shell %s; "
		           "'moat pins' lists the pins",
		           name);
		goto out;
	}
	chg->old_rev = short_rev(old->rev);
	chg->old_store = xstrdup(old->store);
	chg->flake = xstrdup(old->flake);
	chg->stale = stale_flake(old);
	if (chg->stale && !follow) {
		rc = 0;
		goto out;
	}
	/* A bare name follows MOAT_FLAKE as moat shell would resolve it now. */
	if (shell_ref_parse(strchr(name, '#') ? old->name : old->attr, &r, err) < 0)
		goto out;
	free(chg->flake);
	chg->flake = xstrdup(r.flake);
	free(chg->stale);
	chg->stale = NULL;
	progress("updating %s...", name);
	if (resolve_fresh(&r, true, &fresh, &chg->unpinnable, err) < 0 ||
	    save_pin(pins_path, &pins, &fresh, err) < 0)
		goto out;
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
	cleanup_free char *state = moat_state_dir(feedback.home);
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

int nix_pins_info(struct nix_pin_info **v, size_t *n, struct error *err)
{
	cleanup_free char *state = moat_state_dir(feedback.home);
	cleanup_free char *pins_path = path_join(state, "pins");
	struct pins pins;
	if (pins_load(pins_path, &pins, err) < 0)
		return -1;
	report_pin_warnings(&pins);
	*v = xcalloc(pins.n ? pins.n : 1, sizeof(**v));
	*n = pins.n;
	for (size_t i = 0; i < pins.n; i++) {
		const struct pin *p = &pins.v[i];
		struct nix_pin_info *o = &(*v)[i];
		cleanup_free char *bin = path_join(p->store, "bin");
		cleanup_free char *manifest = path_join(p->store, MANIFEST_REL);
		*o = (struct nix_pin_info){
		    .name = xstrdup(p->name),
		    .flake = xstrdup(p->flake),
		    .attr = xstrdup(p->attr),
		    .rev = xstrdup(p->rev),
		    .store = xstrdup(p->store),
		    .stale = stale_flake(p),
		    .collected = !fs_is_dir(bin),
		    .package = fs_is_dir(bin) && !fs_exists(manifest),
		};
		if (strcmp(p->source, "-") != 0) {
			cleanup_free char *now = source_of(p->flake);
			o->changed = strcmp(now, p->source) != 0;
		}
	}
	pins_free(&pins);
	return 0;
}

void nix_pins_info_free(struct nix_pin_info *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].flake);
		free(v[i].attr);
		free(v[i].rev);
		free(v[i].store);
		free(v[i].stale);
	}
	free(v);
}

static void drop_pin(struct pins *pins, struct pin *p, size_t *dropped)
{
	cleanup_free char *link = out_link_for(p->name, p->attr);
	unlink(link);
	cleanup_free char *name = xstrdup(p->name);
	pins_drop(pins, name);
	(*dropped)++;
}

int nix_unpin(const char *const *names, size_t n, size_t *dropped, struct error *err)
{
	*dropped = 0;
	cleanup_free char *state = moat_state_dir(feedback.home);
	cleanup_free char *pins_path = path_join(state, "pins");
	int lock = lock_pins(state, err);
	if (lock < 0)
		return -1;
	struct pins pins;
	int rc = pins_load(pins_path, &pins, err);
	struct strbuf missing = STRBUF_INIT;
	while (rc == 0 && !names && pins.n)
		drop_pin(&pins, &pins.v[0], dropped);
	for (size_t i = 0; rc == 0 && names && i < n; i++) {
		cleanup_free char *key = pin_key(names[i]);
		struct pin *p = pins_lookup(&pins, key);
		if (!p)
			p = pins_lookup(&pins, names[i]);
		if (p)
			drop_pin(&pins, p, dropped);
		else
			sb_addf(&missing, "%s'%s'", missing.len ? ", " : "", names[i]);
	}
	if (rc == 0 && *dropped)
		rc = pins_save(pins_path, &pins, err);
	if (rc == 0 && missing.len) {
		rc = error_set(err, "no pinned shell %s", missing.buf);
		error_hint(err, "'moat pins' lists the pins");
	}
	sb_release(&missing);
	pins_free(&pins);
	close(lock);
	return rc;
}
