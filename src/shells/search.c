/* Where local shells live. On its own, so that moat-wrapper, which needs
 * only this of the shell-finding code, does not link the nix code. */
#include <stdlib.h>

#include "base/envvars.h"
#include "base/path.h"
#include "base/xdg.h"
#include "shells/shells.h"

char *shells_search_path(const char *home)
{
	const char *env = getenv(ENV_SHELLS_PATH);
	if (env && *env)
		return xstrdup(env);
	cleanup_free char *data = xdg_moat_dir(XDG_DATA, home);
	return path_join(data, "shells");
}
