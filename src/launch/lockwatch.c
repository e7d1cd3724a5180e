#include "launch/lockwatch.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "base/path.h"
#include "base/util.h"

static bool watched(const struct lockwatch *w, const char *dir)
{
	for (size_t i = 0; i < w->n; i++)
		if (!strcmp(w->dirs[i], dir))
			return true;
	return false;
}

static void watch_dir(struct lockwatch *w, char *dir)
{
	if (watched(w, dir)) {
		free(dir);
		return;
	}
	int wd = inotify_add_watch(w->fd, dir, IN_CREATE | IN_ONLYDIR);
	if (wd < 0) {
		free(dir);
		return;
	}
	w->wds = xrealloc_array(w->wds, w->n + 1, sizeof(*w->wds));
	w->dirs = xrealloc_array(w->dirs, w->n + 1, sizeof(*w->dirs));
	w->wds[w->n] = wd;
	w->dirs[w->n++] = dir;
}

/* Read-only protected paths only: a pinned directory can be written. */
void lockwatch_start(struct lockwatch *w, const struct profile *p)
{
	*w = (struct lockwatch){.fd = -1};
	for (size_t i = 0; i < p->nrules; i++) {
		const struct rule *r = &p->rules[i];
		if (r->origin != ORIGIN_PROTECTED)
			continue;
		if (w->fd < 0 && (w->fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK)) < 0)
			return;
		watch_dir(w, path_dirname(r->path));
	}
}

static const char *watch_dir_of(const struct lockwatch *w, int wd)
{
	for (size_t i = 0; i < w->n; i++)
		if (w->wds[i] == wd)
			return w->dirs[i];
	return NULL;
}

static bool listed(const struct name_list *l, const char *s)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], s))
			return true;
	return false;
}

/* name, made in dir: the lock of which protected path, if any? */
static void note_lock(const struct profile *p, const char *dir, const char *name,
                      struct name_list *written)
{
	size_t len = strlen(name);
	if (len <= 5 || strcmp(name + len - 5, ".lock"))
		return;
	for (size_t i = 0; i < p->nrules; i++) {
		const struct rule *r = &p->rules[i];
		if (r->origin != ORIGIN_PROTECTED || listed(written, r->path))
			continue;
		const char *base = path_basename(r->path);
		cleanup_free char *parent = path_dirname(r->path);
		if (strlen(base) == len - 5 && !strncmp(base, name, len - 5) &&
		    !strcmp(parent, dir))
			name_list_add(written, r->path, strlen(r->path));
	}
}

static void free_watch(struct lockwatch *w)
{
	for (size_t i = 0; i < w->n; i++)
		free(w->dirs[i]);
	free(w->dirs);
	free(w->wds);
	if (w->fd >= 0)
		close(w->fd);
	*w = (struct lockwatch){.fd = -1};
}

void lockwatch_end(struct lockwatch *w, const struct profile *p, struct name_list *written)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t n;
	while (w->fd >= 0 && ((n = read(w->fd, buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR)))
		for (ssize_t off = 0; off < n;) {
			const struct inotify_event *e = (const struct inotify_event *)(buf + off);
			const char *dir = watch_dir_of(w, e->wd);
			if (dir && e->len && (e->mask & IN_CREATE))
				note_lock(p, dir, e->name, written);
			off += (ssize_t)(sizeof(*e) + e->len);
		}
	free_watch(w);
}
