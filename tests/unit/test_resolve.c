/* context_resolve_unplanted: the same canonical path as realpath for every
 * way a path can be spelled, except that a symlink lying inside a writable
 * area is refused wherever the walk meets it. */
#include <errno.h>
#include <stdlib.h>

#include "base/util.h"
#include "context/context.h"
#include "tap.h"

static char dir[] = "/tmp/moat-test-resolve.XXXXXX";

static void sh(const char *script)
{
	char *cmd = xasprintf("cd %s && %s", dir, script);
	if (system(cmd) != 0)
		abort();
	free(cmd);
}

static int resolve(const char *rel, char **canon)
{
	char *path = xasprintf("%s/%s", dir, rel);
	char *area = xasprintf("%s/area", dir);
	const char *areas[] = {area};
	struct error err = {0};
	errno = 0;
	int rc = context_resolve_unplanted(path, areas, 1, "to grant", canon, &err);
	free(path);
	free(area);
	return rc;
}

int main(void)
{
	if (!mkdtemp(dir))
		abort();
	sh("mkdir -p real/sub area/inner && ln -s real link && ln -s \"$PWD/real\" abs &&"
	   " ln -s real/../real/sub dotdot && ln -s ../real area/planted && ln -s area/planted "
	   "into &&"
	   " ln -s loop2 loop1 && ln -s loop1 loop2 && ln -s area/inner to-area && ln -s ../link "
	   "real/up");
	static const char *const same[] = {
	    "real/sub",    "link/sub",       "abs/sub",          "dotdot",     "to-area",
	    "real/up/sub", ".//real/./sub/", "link/../link/sub", "area/inner",
	};
	for (size_t i = 0; i < sizeof(same) / sizeof(*same); i++) {
		char *canon = NULL;
		char *path = xasprintf("%s/%s", dir, same[i]);
		char *want = realpath(path, NULL);
		int rc = resolve(same[i], &canon);
		CHECK(rc == 0 && canon && want && strcmp(canon, want) == 0,
		      "%s resolves as realpath does (%s)", same[i], canon ? canon : "NULL");
		free(canon), free(path), free(want);
	}
	static const char *const refused[] = {"area/planted", "area/planted/sub", "into/sub"};
	for (size_t i = 0; i < sizeof(refused) / sizeof(*refused); i++) {
		char *canon = NULL;
		CHECK(resolve(refused[i], &canon) == -1 && !canon,
		      "%s is refused: a link inside the area", refused[i]);
	}
	char *canon = NULL;
	CHECK(resolve("missing/x", &canon) == 0 && !canon && errno == ENOENT,
	      "a missing path: NULL, ENOENT");
	CHECK(resolve("loop1", &canon) == 0 && !canon && errno == ELOOP,
	      "a loop of links: NULL, ELOOP");
	sh("cd .. && rm -rf \"$OLDPWD\"");
	return tap_done();
}
