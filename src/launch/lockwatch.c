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
	int wd = inotify_add_watch(w->fd, dir, IN_MODIFY | IN_MOVED_FROM | IN_ONLYDIR);
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

/* name, made in dir: the lock of which protected rule of p, or -1. */
static ssize_t lock_of(const struct profile *p, const char *dir, const char *name)
{
	size_t len = strlen(name);
	if (len <= 5 || strcmp(name + len - 5, ".lock"))
		return -1;
	for (size_t i = 0; i < p->nrules; i++) {
		const struct rule *r = &p->rules[i];
		if (r->origin != ORIGIN_PROTECTED)
			continue;
		const char *base = path_basename(r->path);
		cleanup_free char *parent = path_dirname(r->path);
		if (strlen(base) == len - 5 && !strncmp(base, name, len - 5) &&
		    !strcmp(parent, dir))
			return (ssize_t)i;
	}
	return -1;
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

/* What happened to each protected rule's lock: written, renamed. */
enum { LOCK_WRITTEN = 1, LOCK_RENAMED = 2 };

static void read_events(struct lockwatch *w, const struct profile *p, unsigned char *seen)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t n;
	while ((n = read(w->fd, buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR))
		for (ssize_t off = 0; off < n;) {
			const struct inotify_event *e = (const struct inotify_event *)(buf + off);
			const char *dir = watch_dir_of(w, e->wd);
			ssize_t i = dir && e->len ? lock_of(p, dir, e->name) : -1;
			if (i >= 0)
				seen[i] |= e->mask & IN_MOVED_FROM ? LOCK_RENAMED : LOCK_WRITTEN;
			off += (ssize_t)(sizeof(*e) + e->len);
		}
}

/* A lock written and never renamed is a change git could not make: on
 * the read-only bind the rename over the file fails. One that was renamed
 * made it (a session without a mount namespace protects nothing), and
 * one never written was given up before any change (git config --unset
 * of an absent key locks the file, finds nothing, and removes the lock). */
void lockwatch_end(struct lockwatch *w, const struct profile *p, struct name_list *written)
{
	if (w->fd >= 0) {
		cleanup_free unsigned char *seen = xcalloc(p->nrules, 1);
		read_events(w, p, seen);
		for (size_t i = 0; i < p->nrules; i++)
			if (seen[i] == LOCK_WRITTEN)
				name_list_add(written, p->rules[i].path, strlen(p->rules[i].path));
	}
	free_watch(w);
}
