/* Where moat keeps its files, by the XDG base directory rules: one lookup,
 * so config, state and data agree on where HOME comes from (the caller's
 * real HOME, passed in; never a HOME a tool was handed). */
#ifndef MOAT_BASE_XDG_H
#define MOAT_BASE_XDG_H

enum xdg_kind {
	XDG_CONFIG, /* $XDG_CONFIG_HOME, default ~/.config: config.zon */
	XDG_STATE,  /* $XDG_STATE_HOME, default ~/.local/state: approvals, pins */
	XDG_DATA,   /* $XDG_DATA_HOME, default ~/.local/share: local shells */
};

/* $XDG_<KIND>_HOME when that variable is an absolute path, else
 * <home>/<default>: where other programs' files are too (git's config).
 * Caller frees. */
char *xdg_dir(enum xdg_kind kind, const char *home);

/* $XDG_<KIND>_HOME/moat when that variable is an absolute path, else
 * <home>/<default>/moat. Caller frees. */
char *xdg_moat_dir(enum xdg_kind kind, const char *home);

#endif
