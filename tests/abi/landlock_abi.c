/* The test build's stand-in for src/sandbox/landlock_abi.c (see the
 * Makefile: $(B)/abi/moat and $(B)/abi/moat-wrapper, never installed):
 *
 *   MOAT_TEST_LANDLOCK_ABI=N   act as on Landlock ABI N (at most the
 *                              kernel's): ask for N's rights and scopes,
 *                              install N's seccomp filter, say what N
 *                              leaves open
 *   MOAT_TEST_LANDLOCK_LOG=F   append what sandbox_apply asks for to F,
 *                              a line each: "handled 0x...", "rule PATH
 *                              0x...", "seccomp.deny_path_truncate 1", ...
 *
 * tests/sandbox/abi.sh runs these binaries for every ABI. */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "sandbox/landlock.h"

int landlock_abi_in_effect(int kernel_abi)
{
	const char *want = getenv("MOAT_TEST_LANDLOCK_ABI");
	if (!want || !*want || kernel_abi == 0)
		return kernel_abi;
	int abi = atoi(want);
	return abi >= 1 && abi < kernel_abi ? abi : kernel_abi;
}

void landlock_note(const char *what, const char *path, uint64_t value)
{
	const char *log = getenv("MOAT_TEST_LANDLOCK_LOG");
	if (!log || !*log)
		return;
	int fd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	if (path)
		dprintf(fd, "%s %s 0x%" PRIx64 "\n", what, path, value);
	else
		dprintf(fd, "%s 0x%" PRIx64 "\n", what, value);
	close(fd);
}
