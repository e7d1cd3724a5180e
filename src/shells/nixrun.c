/* Which nix moat runs, and running it: see shells/nix.c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/envvars.h"
#include "base/path.h"
#include "base/platform.h"
#include "shells/nixenv.h"
#include "shells/nixpriv.h"

extern char **environ;

/* --- which nix ------------------------------------------------------------- */

/* Could sandboxed code have put (or redirected) this nix there? */
static bool planted(const char *dir, const char *bin, char **why)
{
	cleanup_free char *cdir = platform_canonical_path(dir);
	cleanup_free char *cbin = platform_canonical_path(bin);
	if (!nix_state.feedback.writable)
		return false;
	if (cdir && nix_state.feedback.writable(cdir, false, why))
		return true;
	return cbin && nix_state.feedback.writable(cbin, false, why);
}

bool nix_executable_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

static void locate(void)
{
	nix_state.located.done = true;
	nix_state.located.skipped = (struct strbuf)STRBUF_INIT;
	const char *env = getenv(ENV_NIX);
	if (env && *env) {
		nix_state.located.how = ENV_NIX;
		cleanup_free char *why = NULL;
		cleanup_free char *dir = path_dirname(env);
		if (env[0] != '/')
			error_set(&nix_state.located.err, ENV_NIX "=%s is not an absolute path",
			          env);
		else if (!nix_executable_file(env))
			error_set(&nix_state.located.err, ENV_NIX "=%s is not an executable file",
			          env);
		else if (planted(dir, env, &why))
			error_set(
			    &nix_state.located.err,
			    "refusing MOAT_NIX=%s: it lies where sandboxed code can write (%s)",
			    env, why);
		else
			nix_state.located.path = xstrdup(env);
		if (!nix_state.located.path)
			error_hint(&nix_state.located.err,
			           "point MOAT_NIX at nix's binary, e.g. /usr/bin/nix");
		return;
	}
	nix_state.located.how = "PATH";
	nix_state.located.start_errno = ENOENT;
	const char *path = getenv("PATH");
	char **dirs = path_list_split(path && *path ? path : "/usr/local/bin:/usr/bin:/bin", NULL);
	for (char **dir = dirs; *dir; dir++) {
		const char *p = *dir;
		cleanup_free char *cand = path_join(*p ? p : ".", "nix");
		if (!nix_executable_file(cand))
			continue;
		cleanup_free char *why = NULL;
		if (p[0] != '/')
			why = xstrdup("a relative PATH entry");
		else if (!planted(p, cand, &why))
			why = NULL;
		else if (!why)
			why = xstrdup("where sandboxed code can write");
		if (why) {
			sb_addf(&nix_state.located.skipped, "%s%s (%s)",
			        nix_state.located.skipped.len ? "\n" : "", cand, why);
			continue;
		}
		nix_state.located.path = steal_ptr(&cand);
		nix_state.located.start_errno = 0;
		break;
	}
	path_list_free(dirs);
}

int nix_locate(struct nix_location *loc, struct error *err)
{
	if (!nix_state.located.done)
		locate();
	*loc = (struct nix_location){nix_state.located.path, nix_state.located.how,
	                             sb_str(&nix_state.located.skipped)};
	if (nix_state.located.err.msg[0]) {
		*err = nix_state.located.err;
		return -1;
	}
	return 0;
}

/* --- running nix ----------------------------------------------------------- */

/* What a nix run has said so far, line by line: for the indicator and to
 * notice a download (a cache, the flake registry) it cannot make. */
struct watch {
	const char *shown;  /* the shell, for the indicator */
	struct strbuf line; /* the incomplete last line */
	char *doing;        /* what nix last said it does: "building foo" */
	char drawn[256];    /* the indicator as last drawn, "" when none */
};

/* The setting a download nix keeps retrying comes from, told by its URL
 * (url, n bytes): a binary cache's files, or the global flake registry
 * (nix's default, https://channels.nixos.org/flake-registry.json, or
 * another *registry*.json). What else nix fetches (a flake's input) no
 * setting stops: nothing is said of it. */
static void say_what_stops(const char *url, size_t n)
{
	cleanup_free char *u = xasprintf("%.*s", (int)n, url);
	if (path_has_suffix(u, "/nix-cache-info") || path_has_suffix(u, ".narinfo") ||
	    strstr(u, "/nar/"))
		nix_say_warning("if this machine is offline or that cache is not needed, set "
		                "'substituters =' (empty) in nix.conf, or for one run: "
		                "NIX_CONFIG='substituters =' moat ...");
	else if (path_has_suffix(u, ".json") && strstr(path_basename(u), "registry"))
		nix_say_warning(
		    "that is nix's flake registry, fetched to look up a flake named "
		    "without a URL (such as 'nixpkgs'); if this machine is offline, set "
		    "'flake-registry' in nix.conf to a local file holding "
		    "{\"flakes\":[],\"version\":2}, or give that flake a full URL");
}

static void watch_line(struct watch *w, const char *line)
{
	const char *dl = strstr(line, "unable to download '");
	if (dl && strstr(line, "retrying") && !nix_state.warned_unreachable) {
		nix_state.warned_unreachable = true;
		const char *url = dl + 20;
		size_t ulen = strcspn(url, "'");
		const char *reason = url + ulen + (url[ulen] == '\'');
		reason += strspn(reason, ": ");
		size_t rlen = strcspn(reason, ";");
		nix_say_warning(
		    "nix cannot reach %.*s (%.*s) and keeps retrying: this can take a while",
		    (int)ulen, url, (int)rlen, reason);
		say_what_stops(url, ulen);
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
	if (nix_state.feedback.verbose && nix_state.feedback.output)
		nix_state.feedback.output(buf, len);
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
	if (!nix_state.feedback.tty || nix_state.feedback.verbose || !nix_state.feedback.status ||
	    elapsed_ms < 1000)
		return;
	char line[256];
	snprintf(line, sizeof(line), "%s... %us%s%s", w->shown, elapsed_ms / 1000,
	         w->doing ? ": " : "", w->doing ? w->doing : "");
	if (strcmp(line, w->drawn) != 0)
		nix_state.feedback.status(line);
	memcpy(w->drawn, line, sizeof(line));
}

/* Run nix with args (args[0] is "nix"). Returns -1 only when nix could not
 * be started; a nix that fails has r->status != 0. shown names the shell
 * for the indicator. */
int run_nix(const char *const *args, const char *shown, struct proc_result *r, struct error *err)
{
	*r = (struct proc_result){.out = STRBUF_INIT, .err = STRBUF_INIT};
	struct nix_location loc;
	if (nix_locate(&loc, err) < 0) {
		nix_state.last_failure = NIX_FOUND_OR_FAILED;
		return -1;
	}
	if (!loc.path) {
		nix_state.last_failure = NIX_NO_NIX;
		error_set(err, "nix is not installed (no 'nix' on PATH)");
		if (*loc.skipped)
			error_hint(err, "skipped, as sandboxed code could have put it there: %s",
			           loc.skipped);
		error_hint(err, "install nix (on Debian: apt-get install nix-bin), or make a "
		                "local shell with: moat wrap NAME /path/to/tool...");
		return -1;
	}
	if (!nix_state.said_nix) {
		nix_state.said_nix = true;
		nix_say_info("nix: %s (%s)", loc.path,
		             strcmp(loc.how, "PATH") == 0 ? "first on PATH" : loc.how);
		if (*loc.skipped)
			nix_say_info("nix: skipped, as sandboxed code could have put it there: %s",
			             loc.skipped);
	}
	cleanup_free char *dropped = NULL;
	char **env =
	    nix_env_judge((const char *const *)environ, nix_state.feedback.writable, &dropped, err);
	if (!env) {
		nix_state.last_failure = NIX_FOUND_OR_FAILED;
		return -1;
	}
	if (!nix_state.said_env && *dropped)
		nix_say_info("nix: left out of its environment: %s", dropped);
	nix_state.said_env = true;
	struct watch w = {.shown = shown, .line = STRBUF_INIT, .drawn = ""};
	struct proc_hooks hooks = {
	    .on_stderr = nix_stderr, .on_tick = nix_tick, .tick_ms = 250, .arg = &w, .env = env};
	int start_errno;
	int rc = proc_run(loc.path, args, &hooks, r, &start_errno, err);
	nix_env_free(env);
	if (w.drawn[0])
		nix_state.feedback.status(NULL);
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
int nix_failed(const struct shell_ref *r, const struct proc_result *run, struct error *err)
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
		nix_state.last_failure = NIX_NO_ATTR;
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
		error_hint(err, ENV_FLAKE " (or FLAKE in FLAKE#ATTR) must name a flake, e.g. "
		                          "github:you/shells or path:/abs/dir");
		return -1;
	}
	error_set(err, "cannot build shell '%s' from flake '%s': %s", r->shown, r->flake, line);
	if (nix_state.feedback.verbose)
		error_hint(err, "nix's output is above");
	else
		error_hint(err, "see nix's own output with: moat -v ...");
	return -1;
}
