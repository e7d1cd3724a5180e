/* A tiny TAP producer for table-driven C unit tests.
 *
 *   CHECK(cond, "name %d", i);      one test point
 *   CHECK_STR(got, want, "name");   string equality, printing both on failure
 *   return tap_done();              exit status: 0 when every point passed
 *
 * tests/run-suite counts the "ok" / "not ok" lines. */
#ifndef MOAT_TESTS_TAP_H
#define MOAT_TESTS_TAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static int tap_count, tap_failed;

__attribute__((format(printf, 4, 5))) static bool tap_check(bool ok, const char *file, int line,
                                                            const char *fmt, ...)
{
	va_list ap;
	printf("%sok %d - ", ok ? "" : "not ", ++tap_count);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!ok) {
		tap_failed++;
		printf("#   failed at %s:%d\n", file, line);
	}
	fflush(stdout);
	return ok;
}

static inline bool tap_str(const char *got, const char *want, const char *file, int line,
                           const char *name)
{
	bool ok = (got == NULL && want == NULL) || (got && want && strcmp(got, want) == 0);
	tap_check(ok, file, line, "%s", name);
	if (!ok)
		printf("#   got:  %s%s%s\n#   want: %s%s%s\n", got ? "'" : "", got ? got : "NULL",
		       got ? "'" : "", want ? "'" : "", want ? want : "NULL", want ? "'" : "");
	return ok;
}

#define CHECK(cond, ...)           tap_check((cond), __FILE__, __LINE__, __VA_ARGS__)
#define CHECK_STR(got, want, name) tap_str((got), (want), __FILE__, __LINE__, (name))

static inline int tap_done(void)
{
	printf("1..%d\n", tap_count);
	return tap_failed ? 1 : 0;
}

#endif
