/* Every environment variable moat reads or hands to the tools it starts,
 * named once. moat sets MOAT_ROOT, MOAT_SANDBOX, MOAT_JAILBREAK and TMPDIR
 * for the tool; the user sets the rest. */
#ifndef MOAT_BASE_ENVVARS_H
#define MOAT_BASE_ENVVARS_H

/* Set by moat for the tool. */
#define ENV_ROOT "MOAT_ROOT" /* the sandbox root; the wrapper's input */
/* Set inside every sandbox moat makes, holding the root: "inside moat", a
 * hint, never proof (see sandbox_already_confined()). */
#define ENV_SANDBOX   "MOAT_SANDBOX"
#define ENV_JAILBREAK "MOAT_JAILBREAK" /* colon list of binaries that skip the sandbox */
#define ENV_TMPDIR    "TMPDIR"         /* $MOAT_ROOT/.moat/tmp */

/* Every variable of moat's own starts so: none reaches the tool, and none
 * may be set through MOAT_ENV_. */
#define ENV_PREFIX "MOAT_"

/* Read by moat. */
#define ENV_OVERRIDE_PREFIX "MOAT_ENV_"        /* MOAT_ENV_<NAME>=v sets NAME=v for the tool */
#define ENV_HOME_OVERRIDE   "MOAT_ENV_HOME"    /* the tool's HOME: the one override moat checks */
#define ENV_CONFIRM         "MOAT_CONFIRM"     /* never | always */
#define ENV_FLAKE           "MOAT_FLAKE"       /* flake reference for nix shells */
#define ENV_SHELLS_PATH     "MOAT_SHELLS_PATH" /* colon list of local shell directories */
#define ENV_NIX             "MOAT_NIX"         /* the nix binary to use */

#endif
