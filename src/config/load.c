/* Reading config.zon: the one place in config/ that touches the file system,
 * kept apart so the parser and the edits stay pure. */
#include <errno.h>
#include <string.h>

#include "base/fs.h"
#include "config/config.h"

int config_load(const char *path, struct config *out, char **buf_out, size_t *len_out,
                struct error *err)
{
	char *buf = NULL;
	size_t len = 0;
	memset(out, 0, sizeof(*out));
	/* One byte over the limit, so the parser reports the size with the
	 * position format every other config error has. */
	if (fs_read_file(path, ZON_MAX_SIZE + 1, &buf, &len, err) < 0) {
		if (errno == EFBIG)
			return error_set(err, "%s:1:1: file is larger than %d bytes", path,
			                 ZON_MAX_SIZE);
		if (errno != ENOENT)
			return -1;
		error_clear(err);
		buf = xstrdup("");
		len = 0;
	}
	int rc = config_parse(buf, len, path, out, err);
	if (rc == 0 && buf_out) {
		*buf_out = buf;
		if (len_out)
			*len_out = len;
	} else {
		free(buf);
	}
	return rc;
}
