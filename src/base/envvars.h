/* Every environment variable moat reads or hands to the tools it starts,
 * named once. moat sets MOAT_ROOT, MOAT_SANDBOX, MOAT_JAILBREAK and TMPDIR
 * for the tool; the user sets the rest. */
#ifndef MOAT_BASE_ENVVARS_H
#define MOAT_BASE_ENVVARS_H

/* Set by moat for the tool. */
#define ENV_ROOT "MOAT_ROOT" /* the sandbox root; the wrapper's input */
#define ENV_SANDBOX                                                                                \
	"MOAT_SANDBOX" /* "inside moat", a hint only: see sandbox_already_confined()               \
	                */
#define ENV_JAILBREAK "MOAT_JAILBREAK" /* colon list of binaries that skip the sandbox */
#define ENV_TMPDIR    "TMPDIR"         /* $MOAT_ROOT/.moat/tmp */

/* Read by moat. */
#define ENV_OVERRIDE_PREFIX "MOAT_ENV_"        /* MOAT_ENV_<NAME>=v sets NAME=v for the tool */
#define ENV_CONFIRM         "MOAT_CONFIRM"     /* never | always */
#define ENV_FLAKE           "MOAT_FLAKE"       /* flake reference for nix shells */
#define ENV_SHELLS_PATH     "MOAT_SHELLS_PATH" /* colon list of local shell directories */

#endif
