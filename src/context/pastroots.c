/* The record of past sandbox roots, in moat's state directory. */
#include "context/pastroots.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/path.h"
#include "base/strbuf.h"
#include "base/xdg.h"

/* Read once per process: moat judges many places against it (its own
 * files, nix, flakes, jailbreaks), and only this process adds to it. */
static struct {
	bool loaded;
	char *failed; /* why it could not be read, or NULL */
	char *buf;    /* the entries, each ended by NUL */
	size_t len;
} record;

static char *record_path(const char *home)
{
	cleanup_free char *state = xdg_moat_dir(XDG_STATE, home);
	return path_join(state, PAST_ROOTS_FILE);
}

/* The file's entries: 0 with an empty record when there is none. */
static int read_record(const char *path, char **buf, size_t *len, struct error *err)
{
	*buf = NULL;
	*len = 0;
	if (fs_read_file(path, PAST_ROOTS_MAX, buf, len, err) == 0)
		return 0;
	if (errno != ENOENT)
		return -1;
	error_clear(err);
	return 0;
}

/* Refused although its mode lets us read it: by a sandbox around this
 * process (a wrapped tool inside a session), where nothing moat decides
 * runs unconfined. A mode the sandbox changed (chmod is not a Landlock
 * right) does not pass for this, and is a failure. */
static bool denied_by_sandbox(const char *path, int err)
{
	struct stat st;
	return err == EACCES && stat(path, &st) == 0 && st.st_uid == geteuid() &&
	       (st.st_mode & S_IRUSR);
}

void past_roots_load(const char *home)
{
	if (record.loaded || !home)
		return;
	record.loaded = true;
	cleanup_free char *path = record_path(home);
	struct error err = {0};
	if (read_record(path, &record.buf, &record.len, &err) < 0 &&
	    !denied_by_sandbox(path, errno))
		record.failed = xstrdup(err.msg);
}

/* Calls fn on each recorded root until it returns true; that root. */
static const char *find_entry(bool (*fn)(const char *entry, const char *path), const char *path)
{
	for (size_t i = 0; i < record.len; i += strlen(record.buf + i) + 1)
		if (record.buf[i] == '/' && fn(record.buf + i, path))
			return record.buf + i;
	return NULL;
}

static bool entry_holds(const char *entry, const char *path)
{
	return path_is_under(path, entry);
}

static bool entry_below(const char *entry, const char *path)
{
	return path_is_under(entry, path);
}

char *past_roots_why(const char *path, bool below)
{
	if (!record.loaded)
		return xstrdup("perhaps under a past sandbox root (moat did not read its record "
		               "of them)");
	if (record.failed)
		return xasprintf("perhaps under a past sandbox root (moat cannot read its record "
		                 "of them: %s)",
		                 record.failed);
	const char *r = find_entry(entry_holds, path);
	if (r)
		return xasprintf("under %s, a past sandbox root", r);
	r = below ? find_entry(entry_below, path) : NULL;
	return r ? xasprintf("it holds %s, a past sandbox root", r) : NULL;
}

/* The record as it is on disk, without the roots under root, plus root. */
static void add_root(struct strbuf *out, const char *buf, size_t len, const char *root)
{
	for (size_t i = 0; i < len; i += strlen(buf + i) + 1)
		if (buf[i] == '/' && !path_is_under(buf + i, root))
			sb_add(out, buf + i, strlen(buf + i) + 1);
	sb_add(out, root, strlen(root) + 1);
}

static int record_failed(const char *root, const char *path, struct error *err)
{
	cleanup_free char *cause = xstrdup(err->msg);
	return error_set(err, "cannot record the sandbox root '%s' in '%s': %s", root, path, cause);
}

int past_roots_record(const char *home, const char *root, struct error *err)
{
	past_roots_load(home);
	if (!record.failed && find_entry(entry_holds, root))
		return 0;
	cleanup_free char *path = record_path(home);
	cleanup_close int lock = fs_lock_beside(path, err);
	cleanup_free char *buf = NULL;
	size_t len;
	if (lock < 0 || read_record(path, &buf, &len, err) < 0)
		return record_failed(root, path, err);
	struct strbuf sb = STRBUF_INIT;
	add_root(&sb, buf, len, root);
	if (fs_write_atomic(path, sb.buf, sb.len, 0600, err) < 0) {
		sb_release(&sb);
		return record_failed(root, path, err);
	}
	free(record.buf);
	free(record.failed);
	record.failed = NULL;
	record.len = sb.len;
	record.buf = sb_detach(&sb);
	return 0;
}
