/* Reading a shell's manifest: apart from find.c so moat-wrapper, which
 * needs only this, does not link the shell search and its nix fallback. */
#include "base/fs.h"
#include "base/path.h"
#include "shells/shells.h"

int manifest_load(const char *shell_dir, struct manifest *m, struct error *err)
{
	cleanup_free char *path = path_join(shell_dir, MANIFEST_REL);
	cleanup_free char *buf = NULL;
	size_t len;
	/* Never through a symlink out of the shell: a manifest planted as a link
	 * to another file would be read, unconfined, and quoted in errors. */
	if (fs_read_beneath(shell_dir, MANIFEST_REL, MANIFEST_MAX, &buf, &len, err) < 0)
		return -1;
	return manifest_parse(buf, len, path, m, err);
}
