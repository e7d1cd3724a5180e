/* Where local shells live. On its own, so that moat-wrapper, which needs
 * only this of the shell-finding code, does not link the nix code. */
#include <stdlib.h>

#include "base/path.h"
#include "shells/shells.h"

char *shells_search_path(void)
{
	const char *env = getenv("MOAT_SHELLS_PATH");
	if (env && *env)
		return xstrdup(env);
	const char *data = getenv("XDG_DATA_HOME");
	if (data && data[0] == '/')
		return path_join(data, "moat/shells");
	const char *home = getenv("HOME");
	return path_join(home && *home ? home : "/nonexistent", ".local/share/moat/shells");
}
