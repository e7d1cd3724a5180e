/* Where local shells live. On its own, so that moat-wrapper, which needs
 * only this of the shell-finding code, does not link the nix code. */
#include <dirent.h>
#include <stdlib.h>

#include "base/envvars.h"
#include "base/fs.h"
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

char **shells_local_names(const char *home)
{
	cleanup_free char *search = shells_search_path(home);
	char **dirs = path_list_split(search, NULL);
	char **names = xcalloc(1, sizeof(char *));
	size_t n = 0;
	for (char **dir = dirs; *dir; dir++) {
		DIR *d = (*dir)[0] == '/' ? opendir(*dir) : NULL;
		for (struct dirent *e; d && n < 1000 && (e = readdir(d));) {
			cleanup_free char *bin = xasprintf("%s/%s/bin", *dir, e->d_name);
			if (e->d_name[0] == '.' || tool_name_refusal(e->d_name) || !fs_is_dir(bin))
				continue;
			names = xrealloc_array(names, n + 2, sizeof(char *));
			names[n++] = xstrdup(e->d_name);
			names[n] = NULL;
		}
		if (d)
			closedir(d);
	}
	path_list_free(dirs);
	return names;
}
