/* How the nix code reaches the user, shared by every command that resolves
 * shells: progress and warnings on stderr, nix's own output with -v, an
 * indicator on a terminal, and the two judgements it asks of the command
 * line: where sandboxed code can write (for flakes and for nix itself), and
 * whether the user agrees to a flake's content from such a place. */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "approvals/approvals.h"
#include "base/fs.h"
#include "base/path.h"
#include "base/platform.h"
#include "base/strbuf.h"
#include "base/xdg.h"
#include "cli/cli.h"
#include "cli/settings_edit.h"
#include "config/config.h"
#include "context/own.h"
#include "context/settings.h"
#include "context/writable.h"
#include "launch/launch.h"
#include "shells/nix.h"

/* Set when an indicator line is on the terminal, to end it before any
 * other message. */
static bool status_shown;

static void end_status(void)
{
	if (status_shown) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
		status_shown = false;
	}
}

static void nix_progress(const char *msg)
{
	end_status();
	fprintf(stderr, "moat: %s\n", msg);
}

static void nix_warning(const char *msg)
{
	end_status();
	warning_print("moat", msg);
}

static void nix_info(const char *msg)
{
	end_status();
	fprintf(stderr, "moat: %s\n", msg);
}

static void nix_output(const char *buf, size_t len)
{
	fflush(stderr);
	(void)!write(STDERR_FILENO, buf, len);
}

static void nix_status(const char *line)
{
	if (!line) {
		end_status();
		return;
	}
	/* One line, cut to the terminal's usual width, drawn over the last. */
	fprintf(stderr, "\r\033[Kmoat: %.72s", line);
	fflush(stderr);
	status_shown = true;
}

/* Where sandboxed code can write, as a run here would see it: the current
 * directory as the root, config.zon's write grants, past roots. Gathered
 * once, when first asked. */
static struct {
	bool done;
	bool here; /* --here */
	char *home, *root;
	char **areas;
	size_t n;
} places;

static void gather_places(void)
{
	places.done = true;
	struct error err = {0};
	places.home = settings_home(&err);
	if (!places.home)
		return;
	struct config cfg;
	if (settings_load(places.home, NULL, &cfg, &err) < 0)
		memset(&cfg, 0, sizeof(cfg));
	places.root = cli_project_root(places.home, &cfg, places.here);
	places.areas = context_writable_areas(places.root, places.home, &cfg, &places.n);
	config_free(&cfg);
}

char *cli_project_root(const char *home, const struct config *cfg, bool here)
{
	struct error ignored;
	cleanup_free char *cwd = fs_cwd(&ignored);
	if (!cwd)
		return NULL;
	struct project_root pr;
	launch_project_root(cwd, home, cfg, here, &pr);
	const char *root = context_root_or_null(pr.root, home);
	char *out = root ? xstrdup(root) : NULL;
	project_root_free(&pr);
	return out;
}

static bool nix_writable(const char *path, bool below, char **why)
{
	if (!places.done)
		gather_places();
	return context_writable_place(path, below, places.root, (const char *const *)places.areas,
	                              places.n, why);
}

static int remember_flake(struct approval_store *st, void *arg)
{
	const struct nix_consent *c = arg;
	approvals_add_flake(st, c->root, c->hash, time(NULL));
	return 1;
}

static int nix_consent(const struct nix_consent *c, struct error *err)
{
	if (!places.done)
		gather_places();
	if (!places.home)
		return error_set(err, "cannot ask about flake '%s': HOME is not set", c->flake);
	struct approval_store st;
	struct error ignored = {0};
	if (approvals_load(places.home, &st, NULL, &ignored) == 0) {
		bool approved = approvals_flake_approved(&st, c->root, c->hash);
		approvals_free(&st);
		if (approved)
			return 0;
	}
	struct strbuf summary = STRBUF_INIT;
	sb_addf(&summary, "moat: the flake for '%s' lies where sandboxed code can write\n",
	        c->shell);
	sb_addf(&summary, "  flake    %s\n", c->flake);
	sb_addf(&summary, "  where    %s\n", c->why);
	if (strcmp(c->dir, c->root) != 0)
		sb_addf(&summary, "  copied   %s (the git work tree around it)\n", c->root);
	sb_addf(&summary, "  content  %s\n", c->hash);
	sb_addf(&summary, "           nix's hash of what it copied to %s\n", c->store);
	sb_addf(&summary, "nix would evaluate it and build what it says, outside the sandbox\n");
	end_status();
	int answer = confirm_ask(summary.buf);
	sb_release(&summary);
	if (answer < 0) {
		error_set(
		    err,
		    "refusing to evaluate flake '%s' for '%s': it lies where sandboxed code can "
		    "write (%s), and there is no terminal to confirm its content %s",
		    c->flake, c->shell, c->why, c->hash);
		error_hint(err, "run moat once from a terminal to approve this content; moat asks "
		                "again only when it changes");
		cleanup_free char *config_dir =
		    places.home ? xdg_moat_dir(XDG_CONFIG, places.home) : NULL;
		error_hint(err,
		           "or keep the flake where sandboxed code cannot write, e.g. under %s",
		           config_dir ? config_dir : "moat's config directory");
	} else if (answer == 0) {
		error_set(err, "flake '%s' was not evaluated: its content %s was not approved",
		          c->flake, c->hash);
	} else {
		/* A store we cannot write only costs a prompt next time. */
		approvals_update(places.home, remember_flake, (void *)c, &ignored);
		return 0;
	}
	err->status = EXIT_MOAT_FAILED;
	return -1;
}

void cli_nix_setup(const struct global_opts *g, bool dry_run)
{
	static char *wrapper, *home;
	struct error ignored;
	if (!wrapper)
		wrapper = own_wrapper_beside_moat(); /* a plain package's tools link to it */
	if (!home)
		home = settings_home(&ignored);
	places.here = g->here;
	const char *term = getenv("TERM");
	struct nix_feedback fb = {
	    .home = home,
	    .verbose = g->verbose,
	    .dry_run = dry_run,
	    .tty = isatty(STDERR_FILENO) && !(term && strcmp(term, "dumb") == 0),
	    .progress = g->quiet ? NULL : nix_progress,
	    .warning = nix_warning,
	    .info = nix_info,
	    .output = nix_output,
	    .status = nix_status,
	    .writable = nix_writable,
	    .consent = nix_consent,
	    .wrapper = wrapper,
	};
	nix_set_feedback(&fb);
}
