/* context_resolve_unplanted: the same canonical path as realpath for every
 * way a path can be spelled, except that a symlink lying inside a writable
 * area is refused wherever the walk meets it. context_resolve_unplanted_absent:
 * the same, and a path not there yet gets the form it will have, its existing
 * part judged all the same. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/fs.h"
#include "base/util.h"
#include "context/context.h"
#include "context/pastroots.h"
#include "context/writable.h"
#include "tap.h"

static char dir[] = "/tmp/moat-test-resolve.XXXXXX";

static void sh(const char *script)
{
	char *cmd = xasprintf("cd %s && %s", dir, script);
	if (system(cmd) != 0)
		abort();
	free(cmd);
}

static int resolve_with(int (*fn)(const char *, const char *const *, size_t, const char *, char **,
                                  struct error *),
                        const char *rel, char **canon)
{
	char *path = xasprintf("%s/%s", dir, rel);
	char *area = xasprintf("%s/area", dir);
	const char *areas[] = {area};
	struct error err = {0};
	errno = 0;
	int rc = fn(path, areas, 1, "to grant", canon, &err);
	int e = errno;
	free(path);
	free(area);
	errno = e;
	return rc;
}

static int resolve(const char *rel, char **canon)
{
	return resolve_with(context_resolve_unplanted, rel, canon);
}

static int resolve_absent(const char *rel, char **canon)
{
	return resolve_with(context_resolve_unplanted_absent, rel, canon);
}

static void test_absent(void)
{
	static const struct {
		const char *rel, *want; /* want: relative to the real dir; NULL: no path */
	} cases[] = {
	    {"missing", "missing"},
	    {"missing/x/y", "missing/x/y"},
	    {"link/sub/new/./file", "real/sub/new/file"},
	    {".//real//new/", "real/new"},
	    {"abs/new", "real/new"},
	    {"dangling/x", "real/gone/x"}, /* the user's own dangling link, followed */
	    {"area/inner/new", "area/inner/new"},
	    {"real/sub", "real/sub"},  /* there: as realpath */
	    {"missing/../real", NULL}, /* ".." above a part not there yet */
	    {"file/x", NULL},          /* ENOTDIR: never a directory */
	    {"loop1", NULL},
	};
	char *real_dir = realpath(dir, NULL);
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		char *canon = NULL;
		int rc = resolve_absent(cases[i].rel, &canon);
		char *want = cases[i].want ? xasprintf("%s/%s", real_dir, cases[i].want) : NULL;
		CHECK(rc == 0 && (want ? canon && strcmp(canon, want) == 0 : !canon),
		      "absent ok: %s gives %s (got %s)", cases[i].rel, want ? want : "no path",
		      canon ? canon : "NULL");
		free(canon), free(want);
	}
	/* The existing part is judged as before: a planted link is refused,
	 * whatever is missing after it. */
	static const char *const refused[] = {"area/planted/new", "into/new/deeper",
	                                      "area/planted"};
	for (size_t i = 0; i < sizeof(refused) / sizeof(*refused); i++) {
		char *canon = NULL;
		CHECK(resolve_absent(refused[i], &canon) == -1 && !canon,
		      "absent ok: %s is refused: a link inside the area", refused[i]);
	}
	char *canon = NULL;
	CHECK(resolve("missing/x", &canon) == 0 && !canon, "control: without absent ok, no path");
	free(real_dir);
}

/* A directory under a past sandbox root is writable, one beside it not,
 * however the judgements interleave: directories found clean are
 * remembered (writable.c), and that must never hide a past root. */
static void test_past_roots(void)
{
	sh("mkdir -p clean/a past/.moat past/b recorded/b state/moat");
	/* moat's record names recorded (context/pastroots.h); past has an
	 * older moat's marker. Before the record is read, nothing is clean. */
	char *why = NULL;
	char *clean = xasprintf("%s/clean", dir);
	CHECK(context_writable_place(clean, false, NULL, NULL, 0, &why) && why &&
	          strstr(why, "did not read its record"),
	      "with the record unread, every place counts as written (%s)", why ? why : "-");
	free(why);
	char *state = xasprintf("%s/state", dir);
	setenv("XDG_STATE_HOME", state, 1);
	char *recorded = xasprintf("%s/recorded", dir);
	struct error err;
	CHECK(past_roots_record("/nonexistent-home", recorded, &err) == 0, "a root is recorded");
	CHECK(past_roots_record("/nonexistent-home", recorded, &err) == 0, "again: nothing to do");
	char *file = xasprintf("%s/moat/roots", state);
	char *text = NULL;
	size_t len = 0;
	CHECK(fs_read_file(file, 4096, &text, &len, &err) == 0 && len == strlen(recorded) + 1 &&
	          memcmp(text, recorded, len) == 0,
	      "the record holds it once, NUL-ended");
	free(text), free(file), free(recorded), free(state), free(clean);
	static const struct {
		const char *rel;
		bool writable;
	} cases[] = {{"clean/a", false}, {"past/b", true},     {"clean/a", false},
	             {"past", true},     {"clean", false},     {"past/b", true},
	             {"recorded", true}, {"recorded/b", true}, {"clean", false}};
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		char *path = xasprintf("%s/%s", dir, cases[i].rel);
		why = NULL;
		bool w = context_writable_place(path, false, NULL, NULL, 0, &why);
		CHECK(w == cases[i].writable && (!w || (why && strstr(why, "past sandbox root"))),
		      "%s is %s (%s)", cases[i].rel,
		      cases[i].writable ? "writable" : "not writable", why ? why : "-");
		free(path), free(why);
	}
	char *top = xasprintf("%s/clean", dir);
	CHECK(context_writable_place(top, true, NULL, NULL, 0, &why) == false, "clean holds none");
	free(why), free(top);
	top = xasprintf("%s", dir);
	CHECK(context_writable_place(top, true, NULL, NULL, 0, &why) && why &&
	          strstr(why, "it holds ") && strstr(why, "a past sandbox root"),
	      "with below, a directory holding a recorded root is writable (%s)", why ? why : "-");
	free(why), free(top);
}

int main(void)
{
	if (!mkdtemp(dir))
		abort();
	sh("mkdir -p real/sub area/inner && ln -s real link && ln -s \"$PWD/real\" abs &&"
	   " ln -s real/../real/sub dotdot && ln -s ../real area/planted && ln -s area/planted "
	   "into &&"
	   " ln -s loop2 loop1 && ln -s loop1 loop2 && ln -s area/inner to-area && ln -s ../link "
	   "real/up &&"
	   " ln -s real/gone dangling && touch file");
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
	test_absent();
	test_past_roots();
	sh("cd .. && rm -rf \"$OLDPWD\"");
	return tap_done();
}
