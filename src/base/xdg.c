#include "base/xdg.h"

#include <stdlib.h>

#include "base/path.h"
#include "base/util.h"

static const struct {
	const char *var, *fallback;
} dirs[] = {
    [XDG_CONFIG] = {"XDG_CONFIG_HOME", ".config"},
    [XDG_STATE] = {"XDG_STATE_HOME", ".local/state"},
    [XDG_DATA] = {"XDG_DATA_HOME", ".local/share"},
};

char *xdg_dir(enum xdg_kind kind, const char *home)
{
	/* The spec: a relative value is invalid and must be ignored. */
	const char *set = getenv(dirs[kind].var);
	if (set && set[0] == '/')
		return xstrdup(set);
	return path_join(home, dirs[kind].fallback);
}

char *xdg_moat_dir(enum xdg_kind kind, const char *home)
{
	cleanup_free char *dir = xdg_dir(kind, home);
	return path_join(dir, "moat");
}
