/* The launch: the last stage of moat, turning a context into a confined,
 * exec'd tool. `moat run`, `moat shell` and `moat-wrapper` each build a
 * plan (who runs what, where, under which profile) and then call the one
 * launch_enter(), so the order of the steps that confine a tool is written
 * once:
 *
 *   plan:  context (root, home, grants, shells) -> config.zon -> profile,
 *          the jailbreak and confirm decisions, MOAT_ENV_* collected
 *   enter: confirm -> (jailbreak: exec unconfined) -> close descriptors
 *          -> namespaces + sandbox -> TMPDIR, HOME override -> environment
 *          -> exec
 *
 * Planning only reads; nothing changes on disk or in the environment
 * before launch_enter. Messages for the user are collected in the plan and
 * printed by the front end (cli/ or wrapper/), which alone prints. */
#ifndef MOAT_LAUNCH_LAUNCH_H
#define MOAT_LAUNCH_LAUNCH_H

#include <stdbool.h>

#include "base/strbuf.h"
#include "base/util.h"
#include "config/config.h"
#include "context/context.h"
#include "launch/overrides.h"
#include "profile/profile.h"
#include "profile/secrets.h"
#include "sandbox/sandbox.h"

/* A wrapped tool, as moat-wrapper found it from argv[0]. */
struct tool {
	char *name;      /* the tool's name in its manifest */
	char *shell_dir; /* canonical shell directory */
	char *real;      /* the real binary, from the manifest */
	char *self;      /* canonical path of moat-wrapper itself */
};

struct launch {
	struct context ctx;
	struct config cfg;
	struct profile profile;
	struct sandbox_support support;
	struct env_overrides overrides; /* MOAT_ENV_*, applied right before exec */
	struct secrets secrets;         /* which variables are secrets, and passed (scrub.h) */
	char **scrubbed; /* the environment's entries scrub_apply removes, borrowed */

	char *unrooted;            /* a directory that can be no root, where ctx.root is NULL */
	char *exe;                 /* what is exec'd */
	char *name;                /* its name, for confirm and messages */
	const char *shell_dir;     /* a tool's shell, whose env file applies once confined */
	char *path;                /* a session's PATH: its shells' bin directories first */
	char *jailbreak_env;       /* a session's MOAT_JAILBREAK for the wrappers inside */
	const char *jailbreak_how; /* a jailbroken tool: who asked (config.zon, MOAT_JAILBREAK) */

	bool session;          /* moat run / moat shell: namespaces, descriptors closed */
	bool already_confined; /* a tool inside a session: no second layer */
	bool nested;           /* a session planned inside a sandbox: nothing runs unconfined */
	bool jailbroken;       /* a tool that runs unconfined */
	bool confirm;          /* ask on the terminal before it starts */
	bool shell_confirms;   /* a session: .confirm names one of its shells */
	/* moat run --trace with a hosts policy: where the session's proxy
	 * records the hosts it refused (proxy_read_refusals); 0 for none,
	 * never standard input. */
	int net_log_fd;
	/* A session's: the protected paths its commands tried to change, seen
	 * from their lock files once it ended (lockwatch.h), for the front end
	 * to name. */
	struct name_list protected_written;
	/* After a session on a terminal: its output showed a permission
	 * error, the way a refusal by the sandbox surfaces (launch/relay.c). */
	bool saw_refusal;
	/* A session alone on its .moat/tmp (launch_hold_tmpdir): the held
	 * directory, which its tool's process clears once confined; 0 for
	 * none, never standard input. */
	int tmp_clear_fd;

	/* For the front end to print: always, unless --quiet, and with -v. */
	struct strbuf warnings; /* one per line, printed as "<prog>: warning: ..." */
	struct strbuf info;     /* "moat: using shells ..." */
	struct strbuf notes;    /* how shells, config and paths were resolved */
	/* Set by the front end: prints warnings that arise in launch_enter
	 * (a damaged approvals store), before anything is asked. */
	void (*print_warnings)(const char *lines);
	/* Set by the front end under -v: prints notes that arise in
	 * launch_enter (a write grant's directory made). */
	void (*print_notes)(const char *lines);
};

/* moat run / moat shell / moat profile: the session for the current
 * directory and shells[0..n) (none: linked or detected ones). The root is
 * the top of the git work tree around the current directory, unless here
 * (--here) or config.zon's .root = "here" keep the current directory. */
int launch_plan_session(struct launch *l, char *const *shells, size_t n, bool here,
                        struct error *err);

/* The first steps of launch_plan_session, which moat check stops after
 * to judge against what a session started here would have: config.zon,
 * read once (l->cfg), the root (l->ctx.root, launch_project_root's with
 * here), the real HOME (l->ctx.home) and where sandboxed code can write
 * then (l->ctx.areas). Where the current directory can be no root (HOME,
 * a system directory), l->ctx.root is NULL, l->unrooted names it, and the
 * areas are the rest. -1 with err when HOME or the current directory
 * cannot be had (l->ctx.home NULL) or config.zon does not parse (no
 * areas). Freed with launch_free. */
int launch_plan_places(struct launch *l, bool here, struct error *err);

/* The root moat run, moat shell and moat profile confine a session
 * started in cwd to: the top of the git work tree around it, unless here
 * (--here) or cfg's .root = "here" keep cwd (context_project_root). moat
 * check has it from launch_plan_places, moat wrap and nix's judgments ask
 * it too (cli_project_root), so that they judge where sandboxed code can
 * write as a run here would. */
void launch_project_root(const char *cwd, const char *home, const struct config *cfg, bool here,
                         struct project_root *pr);

/* Is r a write grant whose directory, when missing, launch_enter makes
 * (one under HOME)? */
bool launch_grant_dir_to_make(const struct launch *l, const struct rule *r);

/* Choose the session's command: cmd[0] looked up on the session's PATH.
 * Fails with status 126 or 127 when there is nothing to run. */
int launch_set_command(struct launch *l, const char *cmd, struct error *err);

/* moat-wrapper: the plan for tool t under $MOAT_ROOT. */
int launch_plan_tool(struct launch *l, const struct tool *t, struct error *err);

/* Confine this process as planned and exec l->exe with argv. Returns only
 * on failure, with the exit status (125 moat failed, 126 cannot run, 127 not
 * found) and err. */
int launch_enter(struct launch *l, char **argv, struct error *err);

void launch_free(struct launch *l);

/* Is e the kernel's answer when the user's namespace quota is used up
 * (or memory short), rather than an environment without namespaces? */
bool launch_namespace_quota_error(int e);

/* Find cmd as execvp would, on the colon list path. Caller frees; NULL + err
 * (with status 126 or 127) when there is nothing to run. */
char *launch_find_command(const char *cmd, const char *path, struct error *err);

#endif
