#include "cli/settings_edit.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>

#include "base/fs.h"
#include "base/path.h"
#include "config/config.h"
#include "context/context.h"
#include "context/settings.h"

char *settings_home(struct error *err)
{
	const char *home = context_real_home(err);
	if (!home)
		return NULL;
	char *canon = realpath(home, NULL);
	return canon ? canon : path_normalize(home);
}

int settings_edit(const char *home, settings_edit_fn *fn, void *arg, struct error *err)
{
	cleanup_free char *path = settings_path(home);
	cleanup_free char *dir = path_dirname(path);
	if (fs_mkdir_p(dir, 0700, err) < 0)
		return -1;
	/* The lock lives beside the file: the file itself is replaced by rename. */
	cleanup_free char *lock_path = xasprintf("%s.lock", path);
	cleanup_close int lock = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (lock < 0)
		return error_set(err, "cannot open '%s': %s", lock_path, strerror(errno));
	while (flock(lock, LOCK_EX) < 0)
		if (errno != EINTR)
			return error_set(err, "cannot lock '%s': %s", lock_path, strerror(errno));
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
	if (rc == 1 && fs_write_atomic(path, out.buf, out.len, 0600, err) < 0)
		rc = -1;
	sb_release(&out);
	return rc;
}
