#include "cli/settings_edit.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/fs.h"
#include "base/path.h"
#include "base/platform.h"
#include "config/config.h"
#include "context/context.h"
#include "context/settings.h"

char *settings_home(struct error *err)
{
	const char *home = context_real_home(err);
	if (!home)
		return NULL;
	char *canon = platform_canonical_path(home);
	return canon ? canon : path_normalize(home);
}

int settings_edit(const char *home, settings_edit_fn *fn, void *arg, struct error *err)
{
	cleanup_free char *path = settings_path(home);
	cleanup_close int lock = fs_lock_beside(path, err);
	if (lock < 0)
		return -1;
	cleanup_free char *buf = NULL;
	size_t len = 0;
	if (fs_read_file(path, ZON_MAX_SIZE, &buf, &len, err) < 0) {
		if (errno != ENOENT)
			return -1;
		buf = xstrdup("");
		len = 0;
	}
	struct strbuf out = STRBUF_INIT;
	int rc = fn(buf, len, path, home, arg, &out, err);
	/* A config.zon that is a link into the user's dotfiles (stow, chezmoi)
	 * stays one: the file it points at is replaced, not the link. */
	cleanup_free char *target = platform_canonical_path(path);
	if (rc == 1 && fs_write_atomic(target ? target : path, out.buf, out.len, 0600, err) < 0)
		rc = -1;
	sb_release(&out);
	return rc;
}
