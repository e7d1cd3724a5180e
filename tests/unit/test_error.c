/* struct error's texts: short ones whole; a longer one keeps its head and
 * its tail, so the reason after a long path survives, and no UTF-8
 * character is cut in two. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "tap.h"

/* Is s valid UTF-8 (no stray or cut continuation bytes)? */
static bool valid_utf8(const char *s)
{
	size_t len = strlen(s);
	for (size_t i = 0; i < len;) {
		uint32_t cp;
		size_t n = utf8_char((const unsigned char *)s + i, len - i, &cp);
		if (!n)
			return false;
		i += n;
	}
	return true;
}

static char *repeat(const char *unit, size_t times)
{
	size_t ulen = strlen(unit);
	char *s = malloc(ulen * times + 1);
	for (size_t i = 0; i < times; i++)
		memcpy(s + i * ulen, unit, ulen);
	s[ulen * times] = '\0';
	return s;
}

int main(void)
{
	struct error err;
	error_set(&err, "refusing '%s': %s", "/short/path", "name too long");
	CHECK_STR(err.msg, "refusing '/short/path': name too long", "a short message is whole");

	char *path = repeat("/a", 3000);
	error_set(&err, "refusing '%s': %s", path, "name too long");
	size_t len = strlen(err.msg);
	CHECK(len == sizeof(err.msg) - 1, "a long message fills its buffer (%zu)", len);
	CHECK(strncmp(err.msg, "refusing '/a/a", 14) == 0, "and keeps its head");
	CHECK(strstr(err.msg, "...") != NULL, "with ... where it was cut");
	const char *reason = "/a': name too long";
	CHECK(strcmp(err.msg + len - strlen(reason), reason) == 0,
	      "and keeps the reason after the path: '%s'", err.msg + len - strlen(reason));
	free(path);

	for (int shift = 0; shift < 3; shift++) {
		char *wide = repeat("\xc3\xa9\xe2\x82\xac", 1500); /* é€: 2 and 3 bytes */
		error_set(&err, "%.*s%s: cut %d", shift, "xx", wide, shift);
		CHECK(valid_utf8(err.msg), "no UTF-8 character cut in two (shift %d)", shift);
		char want[32];
		snprintf(want, sizeof(want), ": cut %d", shift);
		CHECK(strcmp(err.msg + strlen(err.msg) - strlen(want), want) == 0,
		      "the tail is kept (shift %d)", shift);
		free(wide);
	}

	error_hint(&err, "first %s", "line");
	error_hint(&err, "second");
	CHECK_STR(err.hint, "first line\nsecond", "hints add up, a line each");
	char *long_hint = repeat("x", 5000);
	error_hint(&err, "%s the end", long_hint);
	CHECK(strncmp(err.hint, "first line\nsecond\nxxx", 21) == 0 &&
	          strcmp(err.hint + strlen(err.hint) - 8, " the end") == 0 &&
	          strlen(err.hint) == sizeof(err.hint) - 1,
	      "a long hint line keeps the lines before it and its own end");
	free(long_hint);

	/* error_wrap: a prefix in front, the hint and status kept, and a long
	 * message's own reason (its tail) still there. */
	char *long_msg = repeat("y", 2040);
	error_set(&err, "%s: the reason", long_msg);
	error_hint(&err, "the hint");
	err.status = 7;
	error_wrap(&err, "cannot build shell '%s'", "s#x");
	CHECK(strncmp(err.msg, "cannot build shell 's#x': yyy", 29) == 0, "wrapped: '%.40s'",
	      err.msg);
	CHECK(strcmp(err.msg + strlen(err.msg) - 12, ": the reason") == 0,
	      "a long wrapped message keeps its reason");
	CHECK_STR(err.hint, "the hint", "and its hint");
	CHECK(err.status == 7, "and its status");
	free(long_msg);
	/* error_errno: a failed call's message, errno's text after it, kept
	 * whole behind a long path, and errno left for the caller. */
	errno = ENOENT;
	error_errno(&err, "cannot open '%s'", "/x");
	CHECK_STR(err.msg, "cannot open '/x': No such file or directory",
	          "error_errno: the message, then errno's text");
	CHECK(errno == ENOENT, "error_errno leaves errno as it was");
	char *deep = repeat("/\xc3\xa9", 1500);
	errno = EACCES;
	error_errno(&err, "cannot open '%s'", deep);
	const char *denied = ": Permission denied";
	len = strlen(err.msg);
	CHECK(len < sizeof(err.msg) && len > strlen(denied) &&
	          strcmp(err.msg + len - strlen(denied), denied) == 0 && valid_utf8(err.msg),
	      "error_errno: a long path loses its end, never the reason or a character");
	free(deep);

	return tap_done();
}
