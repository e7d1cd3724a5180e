#include "base/xdg.h"

#include <stdlib.h>

#include "base/path.h"
#include "base/util.h"

char *xdg_moat_dir(enum xdg_kind kind, const char *home)
{
	static const struct {
		const char *var, *fallback;
	} dirs[] = {
	    [XDG_CONFIG] = {"XDG_CONFIG_HOME", ".config/moat"},
	    [XDG_STATE] = {"XDG_STATE_HOME", ".local/state/moat"},
	    [XDG_DATA] = {"XDG_DATA_HOME", ".local/share/moat"},
	};
	/* The spec: a relative value is invalid and must be ignored. */
	const char *set = getenv(dirs[kind].var);
	if (set && set[0] == '/')
		return path_join(set, "moat");
	return path_join(home, dirs[kind].fallback);
}
