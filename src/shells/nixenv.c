/* The environment nix runs with: see shells/nixenv.h. */
#include "shells/nixenv.h"

#include <errno.h>
#include <string.h>

#include "base/path.h"
#include "base/platform.h"
#include "base/strbuf.h"

/* Variables whose values are paths (colon lists): a relative entry would
 * be read from the current directory, which is the project. */
static const char *const path_vars[] = {
    "NIX_CONF_DIR",  "NIX_USER_CONF_FILES", "NIX_SSL_CERT_FILE", "NIX_DAEMON_SOCKET_PATH",
    "NIX_STORE_DIR", "NIX_STATE_DIR",       "NIX_LOG_DIR",       "NIX_DATA_DIR",
    "NIX_BIN_DIR",   "NIX_LIBEXEC_DIR",     "XDG_CONFIG_HOME",   "XDG_CONFIG_DIRS",
    "LD_PRELOAD",    "LD_LIBRARY_PATH",     "LD_AUDIT",          "SSL_CERT_FILE",
    "SSL_CERT_DIR",  "CURL_CA_BUNDLE"};

static bool listed(const char *name, size_t len, const char *const *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strlen(v[i]) == len && memcmp(v[i], name, len) == 0)
			return true;
	return false;
}

/* path resolved as far as it exists, the rest appended: what a later
 * creation there would be judged as. */
static char *canonical_prefix(const char *path)
{
	cleanup_free char *norm = path_normalize(path);
	cleanup_free char *dir = xstrdup(norm);
	for (;;) {
		char *canon = platform_canonical_path(dir);
		if (canon) {
			const char *rest = norm + strlen(dir);
			if (!*rest)
				return canon;
			char *out = path_join(canon, rest + (*rest == '/'));
			free(canon);
			return out;
		}
		if (strcmp(dir, "/") == 0)
			return xstrdup(norm);
		char *up = path_dirname(dir);
		free(dir);
		dir = up;
	}
}

static bool writable_path(nix_writable_fn *writable, const char *path, char **why)
{
	if (!writable)
		return false;
	cleanup_free char *canon = canonical_prefix(path);
	return writable(canon, false, why);
}

/* PATH without the entries sandboxed code could have filled. */
static char *judged_path(const char *value, nix_writable_fn *writable, struct strbuf *dropped)
{
	struct strbuf sb = STRBUF_INIT;
	char **dirs = path_list_split(value, NULL);
	for (char **d = dirs; *d; d++) {
		cleanup_free char *why = NULL;
		if ((*d)[0] != '/')
			why = xstrdup("a relative PATH entry");
		else if (!writable_path(writable, *d, &why))
			why = NULL;
		else if (!why)
			why = xstrdup("where sandboxed code can write");
		if (why) {
			sb_addf(dropped, "%sPATH entry '%s' (%s)", dropped->len ? ", " : "", *d,
			        why);
			continue;
		}
		sb_addf(&sb, "%s%s", sb.len ? ":" : "", *d);
	}
	path_list_free(dirs);
	return sb_detach(&sb);
}

/* Each path in a variable's value: a token starting with '/', or, in a
 * variable of paths, any entry. -1 with err for one sandboxed code could
 * have written. */
static int check_value(const char *name, size_t nlen, const char *value, nix_writable_fn *writable,
                       struct error *err)
{
	bool paths = listed(name, nlen, path_vars, ARRAY_LEN(path_vars));
	const char *seps = paths ? ":" : ": \t\n;,=?&\"'";
	cleanup_free char *copy = xstrdup(value);
	for (char *save = NULL, *tok = strtok_r(copy, seps, &save); tok;
	     tok = strtok_r(NULL, seps, &save)) {
		cleanup_free char *why = NULL;
		if (paths && tok[0] != '/')
			why = xstrdup("a relative path, read from the current directory");
		else if (tok[0] == '/' && !writable_path(writable, tok, &why))
			continue;
		else if (tok[0] != '/')
			continue;
		error_set(err, "refusing to run nix with %.*s='%s': '%s' is %s", (int)nlen, name,
		          value, tok, why ? why : "where sandboxed code can write");
		error_hint(err, "nix and git run unconfined and read it: sandboxed code could "
		                "have written it");
		error_hint(err, "unset %.*s for moat, or point it where nothing sandboxed writes",
		           (int)nlen, name);
		err->status = EXIT_MOAT_FAILED;
		return -1;
	}
	return 0;
}

static bool checked(const char *name, size_t nlen)
{
	return (nlen > 4 && memcmp(name, "NIX_", 4) == 0) ||
	       listed(name, nlen, path_vars, ARRAY_LEN(path_vars));
}

char **nix_env_judge(const char *const *env, nix_writable_fn *writable, char **dropped,
                     struct error *err)
{
	size_t n = 0;
	while (env && env[n])
		n++;
	char **out = xcalloc(n + 2, sizeof(char *));
	size_t k = 0;
	struct strbuf gone = STRBUF_INIT;
	bool have_path = false;
	for (size_t i = 0; i < n; i++) {
		const char *eq = strchr(env[i], '=');
		if (!eq)
			continue;
		size_t nlen = (size_t)(eq - env[i]);
		if (nlen > 4 && memcmp(env[i], "GIT_", 4) == 0) {
			sb_addf(&gone, "%s%.*s", gone.len ? ", " : "", (int)nlen, env[i]);
			continue;
		}
		if (nlen == 4 && memcmp(env[i], "PATH", 4) == 0) {
			cleanup_free char *path = judged_path(eq + 1, writable, &gone);
			out[k++] = xasprintf("PATH=%s", path);
			have_path = true;
			continue;
		}
		if (checked(env[i], nlen) && check_value(env[i], nlen, eq + 1, writable, err) < 0) {
			sb_release(&gone);
			out[k] = NULL;
			nix_env_free(out);
			return NULL;
		}
		out[k++] = xstrdup(env[i]);
	}
	/* No PATH: nix and git would search the C library's default, which
	 * holds the current directory on some systems. */
	if (!have_path)
		out[k++] = xstrdup("PATH=/usr/local/bin:/usr/bin:/bin");
	out[k] = NULL;
	if (dropped)
		*dropped = sb_detach(&gone);
	else
		sb_release(&gone);
	return out;
}

void nix_env_free(char **env)
{
	for (size_t i = 0; env && env[i]; i++)
		free(env[i]);
	free(env);
}
