/* moat wrap NAME [--env KEY=VALUE]... BIN...: make or update a local shell
 * (bin/<tool> -> moat-wrapper, the manifest, the env file) from binaries
 * already on this machine, the no-nix way to try moat. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/path.h"
#include "base/platform.h"
#include "base/strbuf.h"
#include "base/xdg.h"
#include "cli/cli.h"
#include "cli/settings_edit.h"
#include "config/config.h"
#include "context/context.h"
#include "context/own.h"
#include "context/settings.h"
#include "shells/shells.h"

/* moat-wrapper is libc-only and static: a few megabytes at most. */
#define WRAPPER_MAX (64u << 20)

struct wrap_args {
	const char *name;
	const char *const *env; /* KEY=VALUE */
	int nenv;
	const char *const *bins;
	int nbins;
};

static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

/* A directory on PATH that is itself a shell's bin/ holds wrappers, not
 * real binaries: skip it, or a shell would wrap a wrapper. */
static bool is_shell_bin(const char *dir)
{
	cleanup_free char *shell = path_dirname(dir);
	cleanup_free char *manifest = path_join(shell, MANIFEST_REL);
	return fs_exists(manifest);
}

static char *find_binary(const char *bin, const char *wrapper, struct error *err)
{
	cleanup_free char *found = NULL;
	if (strchr(bin, '/')) {
		found = fs_absolute(bin, err);
		if (!found)
			return NULL;
	} else {
		const char *path = getenv("PATH");
		char **dirs = path_list_split(path ? path : "", NULL);
		for (char **dir = dirs; *dir && !found; dir++) {
			if ((*dir)[0] != '/' || is_shell_bin(*dir))
				continue;
			cleanup_free char *cand = path_join(*dir, bin);
			struct stat st;
			if (stat(cand, &st) == 0 && S_ISREG(st.st_mode) && access(cand, X_OK) == 0)
				found = steal_ptr(&cand);
		}
		path_list_free(dirs);
		if (!found) {
			error_set(err, "cannot find '%s' on PATH", bin);
			return NULL;
		}
	}
	struct stat st;
	if (stat(found, &st) < 0 || !S_ISREG(st.st_mode) || access(found, X_OK) < 0) {
		error_set(err, "'%s' is not an executable file", found);
		return NULL;
	}
	cleanup_free char *canon = platform_canonical_path(found);
	if (same_file(found, wrapper) || (canon && shell_is_wrapper(canon))) {
		error_set(err, "'%s' is moat-wrapper itself", found);
		error_hint(err, "name the real binary, e.g. /usr/bin/%s", path_basename(found));
		return NULL;
	}
	const char *why = path_refusal(found);
	if (why && strstr(why, "control")) {
		error_set(err, "cannot wrap '%s': %s", found, why);
		return NULL;
	}
	return steal_ptr(&found);
}

/* The shell's directories, opened once. A project-local shell lives where
 * sandboxed code can write, and moat wrap runs unconfined: every step below
 * the shell directory goes through these fds and refuses symlinks, so a
 * planted link cannot send a read or a write outside the shell. */
struct shell_dirs {
	const char *path;
	char *moat_path; /* <shell>/share/moat, for messages */
	int shell, bin, share, moat;
};

/* What every judgment of moat wrap is made against, gathered once:
 * config.zon (its write grants and exec grants) and the root a run here
 * would have (cli_project_root: the git work tree's top, as moat run
 * takes it), NULL where the current directory could be none. */
struct wrap_places {
	const char *home;
	struct config cfg;
	char *root;
};

static int gather_places(struct wrap_places *w, const char *home, struct error *err)
{
	*w = (struct wrap_places){.home = home};
	cleanup_free char *cwd = fs_cwd(err);
	if (!cwd)
		return -1;
	if (settings_load(home, NULL, &w->cfg, err) < 0) {
		error_hint(err,
		           "moat wrap reads config.zon for its write grants; 'moat check' lists "
		           "every problem");
		return -1;
	}
	w->root = cli_project_root(home, &w->cfg, false);
	return 0;
}

static void places_free(struct wrap_places *w)
{
	config_free(&w->cfg);
	free(w->root);
}

/* The deepest existing ancestor of path (path itself if it exists),
 * resolved refusing links planted where sandboxed code can write: the
 * root a run here would have and config.zon's write grants. */
static char *resolve_existing(const char *path, const struct wrap_places *w, char **existing,
                              struct error *err)
{
	size_t nareas;
	char **areas = context_writable_areas(w->root, w->home, &w->cfg, &nareas);
	char *canon = NULL;
	*existing = xstrdup(path);
	while (context_resolve_unplanted(*existing, (const char *const *)areas, nareas, "the shell",
	                                 &canon, err) == 0 &&
	       !canon && strcmp(*existing, "/") != 0) {
		char *up = path_dirname(*existing);
		free(*existing);
		*existing = up;
	}
	context_free_areas(areas, nareas);
	return canon;
}

/* Open the shell directory, creating what is missing of it below its
 * deepest existing ancestor one component at a time, never through a link. */
static int open_shell_dir(const char *shell, const struct wrap_places *w, struct error *err)
{
	cleanup_free char *existing = NULL;
	cleanup_free char *canon = resolve_existing(shell, w, &existing, err);
	if (!canon)
		return -1;
	/* canon holds no link: refuse one swapped in since it was checked. */
	int fd = platform_open_path_no_symlinks("/", canon + 1);
	if (fd < 0)
		return error_set(err, "cannot open '%s': %s", canon,
		                 errno == ELOOP ? "it changed into a symlink while moat looked"
		                                : strerror(errno));
	cleanup_free char *made = xstrdup(existing);
	for (const char *rest = shell + strlen(existing); fd >= 0 && *rest;) {
		while (*rest == '/')
			rest++;
		size_t len = strcspn(rest, "/");
		if (!len)
			break;
		cleanup_free char *name = xstrndup(rest, len);
		int next = fs_subdir_at(fd, made, name, 0755, err);
		close(fd);
		fd = next;
		char *longer = path_join(made, name);
		free(made);
		made = longer;
		rest += len;
	}
	return fd;
}

static int open_shell_dirs(const char *shell, const struct wrap_places *w, struct shell_dirs *d,
                           struct error *err)
{
	d->path = shell;
	d->moat_path = path_join(shell, "share/moat");
	if ((d->shell = open_shell_dir(shell, w, err)) < 0)
		return -1;
	cleanup_free char *share = path_join(shell, "share");
	if ((d->bin = fs_subdir_at(d->shell, shell, "bin", 0755, err)) < 0 ||
	    (d->share = fs_subdir_at(d->shell, shell, "share", 0755, err)) < 0 ||
	    (d->moat = fs_subdir_at(d->share, share, "moat", 0755, err)) < 0)
		return -1;
	return 0;
}

static void close_shell_dirs(struct shell_dirs *d)
{
	int *fds[] = {&d->shell, &d->bin, &d->share, &d->moat};
	for (size_t i = 0; i < sizeof(fds) / sizeof(*fds); i++)
		if (*fds[i] >= 0)
			close(*fds[i]);
	free(d->moat_path);
}

/* Point bin/<tool> at the wrapper; replace whatever was there atomically. */
static int link_tool(const struct shell_dirs *d, const char *tool, const char *wrapper,
                     struct error *err)
{
	cleanup_free char *tmp = xasprintf(".%s.moat-new", tool);
	unlinkat(d->bin, tmp, 0);
	if (symlinkat(wrapper, d->bin, tmp) < 0)
		return error_set(err, "cannot create '%s/bin/%s': %s", d->path, tmp,
		                 strerror(errno));
	if (renameat(d->bin, tmp, d->bin, tool) < 0) {
		int e = errno;
		unlinkat(d->bin, tmp, 0);
		return error_set(err, "cannot create '%s/bin/%s': %s", d->path, tool, strerror(e));
	}
	return 0;
}

static int update_manifest(const struct shell_dirs *d, const struct wrap_args *a, char **reals,
                           struct error *err)
{
	struct manifest m = {0};
	const char *name = path_basename(MANIFEST_REL);
	struct stat st;
	if (fstatat(d->moat, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    manifest_load(d->path, &m, err) < 0)
		return -1;
	for (int i = 0; i < a->nbins; i++)
		manifest_set(&m, path_basename(reals[i]), reals[i]);
	cleanup_free char *text = manifest_format(&m);
	manifest_free(&m);
	return fs_write_atomic_at(d->moat, d->moat_path, name, text, strlen(text), 0644, err);
}

static int update_env(const struct shell_dirs *d, const struct wrap_args *a, struct error *err)
{
	if (!a->nenv)
		return 0;
	const char *name = path_basename(ENVFILE_REL);
	cleanup_free char *path = path_join(d->moat_path, name);
	cleanup_free char *old = NULL;
	size_t len = 0;
	if (fs_read_at(d->moat, d->moat_path, name, MANIFEST_MAX, &old, &len, err) < 0 &&
	    errno != ENOENT)
		return -1;
	struct strbuf text = STRBUF_INIT;
	if (old)
		sb_add(&text, old, len);
	if (text.len && text.buf[text.len - 1] != '\n')
		sb_addc(&text, '\n');
	for (int i = 0; i < a->nenv; i++)
		sb_addf(&text, "%s\n", a->env[i]);
	/* Check what we are about to write with the reader the wrapper uses. */
	struct env_change *env;
	size_t n;
	struct strbuf warn = STRBUF_INIT;
	int rc = envfile_parse_warn(text.buf, text.len, path, "${MOAT_ROOT}", &env, &n, &warn, err);
	/* Lines the wrapper skips are not carried over. */
	if (warn.len)
		warning_print("moat", sb_str(&warn));
	sb_release(&warn);
	if (rc == 0) {
		/* Later lines win; rewrite without duplicates. */
		struct strbuf out = STRBUF_INIT;
		for (size_t i = 0; i < n; i++) {
			bool later = false;
			for (size_t j = i + 1; j < n; j++)
				later |= strcmp(env[i].name, env[j].name) == 0;
			if (!later)
				sb_addf(&out, "%s=%s\n", env[i].name, env[i].value);
		}
		env_changes_free(env, n);
		rc = fs_write_atomic_at(d->moat, d->moat_path, name, out.buf, out.len, 0644, err);
		sb_release(&out);
	}
	sb_release(&text);
	return rc;
}

static int parse_wrap_args(const struct cli_args *args, struct wrap_args *a)
{
	const struct command *self = cli_command("wrap");
	a->env = args->values[OPT_ENV];
	a->nenv = args->given[OPT_ENV];
	for (int i = 0; i < a->nenv; i++)
		if (!strchr(a->env[i], '='))
			return cli_usage_error(self, "--env needs KEY=VALUE, not '%s'", a->env[i]);
	if (args->noperands == 0)
		return cli_usage_error(self, "missing the shell NAME");
	a->name = args->operands[0];
	a->bins = (const char *const *)args->operands + 1;
	a->nbins = args->noperands - 1;
	if (!a->nbins && !a->nenv)
		return cli_usage_error(self, "name at least one binary to wrap");
	return 0;
}

static char *shell_dir_for(const char *name, const char *home, struct error *err)
{
	if (strchr(name, '/'))
		return fs_absolute(name, err);
	const char *why = tool_name_refusal(name);
	if (why) {
		error_set(err, "bad shell name '%s': %s", name, why);
		return NULL;
	}
	cleanup_free char *search = shells_search_path(home);
	search[strcspn(search, ":")] = '\0'; /* the first directory */
	if (search[0] != '/') {
		error_set(err, "cannot make shell '%s' in '%s': not an absolute path", name,
		          search);
		error_hint(err,
		           "MOAT_SHELLS_PATH lists absolute directories (moat run skips others)");
		return NULL;
	}
	return path_join(search, name);
}

/* Check --env values with the reader the wrapper uses, before anything is
 * created: a refused value must leave no half-made shell behind. */
static int check_env_args(const struct wrap_args *a, struct error *err)
{
	struct strbuf text = STRBUF_INIT;
	for (int i = 0; i < a->nenv; i++)
		sb_addf(&text, "%s\n", a->env[i]);
	struct env_change *env;
	size_t n;
	struct strbuf warn = STRBUF_INIT;
	int rc = envfile_parse_warn(sb_str(&text), text.len, "--env", "${MOAT_ROOT}", &env, &n,
	                            &warn, err);
	if (rc == 0)
		env_changes_free(env, n);
	/* What the user typed is not skipped quietly, as a file's line is. */
	if (rc == 0 && warn.len) {
		int line = atoi(sb_str(&warn) + strlen("--env:"));
		rc = error_set(err, "--env '%s': expected KEY=VALUE with KEY a variable name",
		               a->env[line > 0 && line <= a->nenv ? line - 1 : 0]);
	}
	sb_release(&warn);
	sb_release(&text);
	return rc;
}

/* Does an exec grant in cfg for tool cover path here? */
static bool exec_granted(const struct config *cfg, const char *tool, const char *path,
                         const char *root, const char *home)
{
	struct config_grant *grants;
	size_t n = config_grants(cfg, tool, root, home, &grants);
	bool granted = false;
	for (size_t i = 0; i < n && !granted; i++)
		granted = grants[i].exec && grants[i].path[0] == '/' &&
		          path_is_under(path, grants[i].path);
	config_grants_free(grants, n);
	return granted;
}

/* A binary where the sandbox lets nothing run fails through its wrapper
 * with a refused exec, wherever it is started: say so now. Under the
 * project (the current directory's root) or an exec grant it runs; under
 * HOME or a temporary directory it does not. */
static void warn_if_unrunnable(const char *path, const struct wrap_places *w)
{
	static const char *const tmps[] = {"/tmp", "/var/tmp", "/dev/shm"};
	const char *tool = path_basename(path);
	const char *home = w->home, *root = w->root;
	/* Landlock judges the file a link leads to. */
	cleanup_free char *real = platform_canonical_path(path);
	if (!real || (root && path_is_under(real, root)) ||
	    exec_granted(&w->cfg, tool, real, root, home))
		return;
	cleanup_free char *msg = NULL;
	cleanup_free char *hint = NULL;
	if (path_is_under(real, home)) {
		cleanup_free char *dir = path_dirname(real);
		cleanup_free char *grant =
		    path_contract_tilde(strcmp(dir, home) == 0 ? real : dir, home);
		msg = xasprintf("'%s' lies in your home directory, where the sandbox runs nothing "
		                "outside the project: its wrapper will not run it",
		                real);
		hint = xasprintf("grant it: moat allow %s %s --exec", tool, grant);
	}
	for (size_t i = 0; !msg && i < sizeof(tmps) / sizeof(*tmps); i++) {
		if (!path_is_under(real, tmps[i]))
			continue;
		msg =
		    xasprintf("'%s' lies under %s, which the sandbox denies: its wrapper will not "
		              "run it",
		              real, tmps[i]);
		hint = xasprintf("install it outside %s (e.g. /usr/local/bin) and wrap it there",
		                 tmps[i]);
	}
	if (msg) {
		warning_print("moat", msg);
		fprintf(stderr, "hint: %s\n", hint);
	}
}

/* Is the moat-wrapper at path out of sandboxed code's reach (what stands
 * in refusing says what would be done with it)? */
static int judge_wrapper(const char *path, const struct wrap_places *w, bool with_root,
                         unsigned kinds, const char *refusing, struct error *err)
{
	/* Where sandboxed code can write, as a run here would see it:
	 * config.zon's write grants, past roots and, with_root, the root a
	 * run here would have. */
	const char *home = w->home, *root = with_root ? w->root : NULL;
	size_t n = 0;
	char **areas = context_writable_areas(root, home, &w->cfg, &n);
	struct own_places o;
	own_gather(&o, home, kinds);
	own_add(&o, OWN_BINARY, "moat-wrapper", path);
	struct own_judge j = {.root = root,
	                      .areas = (const char *const *)areas,
	                      .n = n,
	                      .cfg = &w->cfg,
	                      .home = home,
	                      .refusing = refusing};
	int rc = own_check(&o, &j, err);
	own_free(&o);
	context_free_areas(areas, n);
	return rc;
}

/* The moat-wrapper local shells link to: a copy of the one next to moat,
 * in moat's data directory (~/.local/share/moat/moat-wrapper). A link to
 * the one in a build tree would dangle after `make clean`, and a dangling
 * bin/ entry is skipped by the PATH lookup, so the real tool behind it
 * would run unconfined without a word. One copy per user, not one per
 * shell (it is over a megabyte, and copies per shell would each go stale
 * on their own): every moat wrap refreshes it, so after an upgrade one
 * moat wrap brings every shell up to date, and moat check says when it
 * differs from the moat-wrapper next to moat. Neither the one copied nor
 * the copy may lie where sandboxed code can write: the shells would run
 * whatever it put there. */
static char *install_wrapper(const char *wrapper, const struct wrap_places *w, struct error *err)
{
	/* The source is judged without the current directory as a root: a
	 * build tree is only at risk once a sandbox has run there, which
	 * records it as a past root (context/pastroots.h). */
	if (judge_wrapper(wrapper, w, false, 0, "refusing to link shells to it", err) < 0)
		return NULL;
	cleanup_free char *data = xdg_moat_dir(XDG_DATA, w->home);
	char *dest = path_join(data, "moat-wrapper");
	if (judge_wrapper(dest, w, true, OWN_DATA, "refusing to link shells there", err) < 0) {
		free(dest);
		return NULL;
	}
	cleanup_free char *want = NULL, *have = NULL;
	size_t nwant = 0, nhave = 0;
	struct error ignored;
	if (fs_read_file(wrapper, WRAPPER_MAX, &want, &nwant, err) < 0) {
		free(dest);
		return NULL;
	}
	if (fs_read_file(dest, WRAPPER_MAX, &have, &nhave, &ignored) == 0 && nhave == nwant &&
	    memcmp(have, want, nwant) == 0)
		return dest;
	if (fs_mkdir_p(data, 0755, err) < 0 || fs_write_atomic(dest, want, nwant, 0755, err) < 0) {
		free(dest);
		return NULL;
	}
	return dest;
}

/* Every other entry of bin/ that is a link to a moat-wrapper (this one, an
 * older copy, a build tree's that is gone) is pointed at the copy too. */
static int relink_wrappers(const struct shell_dirs *d, const char *installed, struct error *err)
{
	int fd = dup(d->bin);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	if (!dir) {
		if (fd >= 0)
			close(fd);
		return error_set(err, "cannot read '%s/bin': %s", d->path, strerror(errno));
	}
	int rc = 0;
	for (struct dirent *e; rc == 0 && (e = readdir(dir));) {
		char target[PATH_MAX];
		ssize_t n = e->d_name[0] == '.'
		                ? -1
		                : readlinkat(d->bin, e->d_name, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = '\0';
		if (strcmp(path_basename(target), "moat-wrapper") == 0 &&
		    strcmp(target, installed) != 0)
			rc = link_tool(d, e->d_name, installed, err);
	}
	closedir(dir);
	return rc;
}

static int wrap(const struct wrap_args *a, char **reals, struct error *err)
{
	if (check_env_args(a, err) < 0)
		return -1;
	cleanup_free char *self = platform_self_exe();
	cleanup_free char *self_dir = self ? path_dirname(self) : xstrdup(".");
	cleanup_free char *wrapper = path_join(self_dir, "moat-wrapper");
	if (access(wrapper, X_OK) < 0) {
		error_set(err, "cannot find moat-wrapper next to moat (%s)", wrapper);
		error_hint(err, "install both with 'make install'");
		return -1;
	}
	for (int i = 0; i < a->nbins; i++)
		if (!(reals[i] = find_binary(a->bins[i], wrapper, err)))
			return -1;
	cleanup_free char *home = settings_home(err);
	cleanup_free char *shell = home ? shell_dir_for(a->name, home, err) : NULL;
	struct wrap_places w = {0};
	if (!shell || gather_places(&w, home, err) < 0) {
		places_free(&w);
		return -1;
	}
	cleanup_free char *installed = install_wrapper(wrapper, &w, err);
	struct shell_dirs d = {.shell = -1, .bin = -1, .share = -1, .moat = -1};
	int rc = installed ? open_shell_dirs(shell, &w, &d, err) : -1;
	if (rc == 0)
		rc = update_env(&d, a, err);
	if (rc == 0)
		rc = update_manifest(&d, a, reals, err);
	for (int i = 0; rc == 0 && i < a->nbins; i++)
		rc = link_tool(&d, path_basename(reals[i]), installed, err);
	if (rc == 0)
		rc = relink_wrappers(&d, installed, err);
	close_shell_dirs(&d);
	if (rc == 0) {
		printf("%s\n", shell);
		for (int i = 0; i < a->nbins; i++)
			printf("  %-20s %s\n", path_basename(reals[i]), reals[i]);
		for (int i = 0; i < a->nbins; i++)
			warn_if_unrunnable(reals[i], &w);
	}
	places_free(&w);
	return rc < 0 ? -1 : 0;
}

int cmd_wrap(const struct cli_args *args, const struct global_opts *g)
{
	(void)g;
	struct wrap_args a = {0};
	int rc = parse_wrap_args(args, &a);
	if (rc == 0) {
		struct error err = {0};
		char **reals = xcalloc((size_t)a.nbins + 1, sizeof(char *));
		rc = wrap(&a, reals, &err) < 0 ? cli_fail(&err, 1) : 0;
		for (int i = 0; i < a.nbins; i++)
			free(reals[i]);
		free(reals);
	}
	return rc;
}
