/* rename_exchange MODE A B: the rename and link calls a path trick needs.
 *
 *   exchange A B   renameat2(A, B, RENAME_EXCHANGE): swap two entries
 *   rename A B     renameat2(A, B, 0)
 *   link A B       linkat(A, B, 0): a second name for A's inode at B
 *   link-follow A B  linkat(A, B, AT_SYMLINK_FOLLOW)
 *
 * Prints "MODE: ok" or "MODE: <strerror>" (exit 1; 2 for usage). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: rename_exchange exchange|rename|link|link-follow A B\n");
		return 2;
	}
	const char *mode = argv[1], *a = argv[2], *b = argv[3];
	long r;
	if (strcmp(mode, "exchange") == 0)
		r = syscall(SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE);
	else if (strcmp(mode, "rename") == 0)
		r = syscall(SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b, 0);
	else if (strcmp(mode, "link") == 0)
		r = linkat(AT_FDCWD, a, AT_FDCWD, b, 0);
	else if (strcmp(mode, "link-follow") == 0)
		r = linkat(AT_FDCWD, a, AT_FDCWD, b, AT_SYMLINK_FOLLOW);
	else {
		fprintf(stderr, "rename_exchange: unknown mode '%s'\n", mode);
		return 2;
	}
	if (r < 0) {
		fprintf(stderr, "%s: %s\n", mode, strerror(errno));
		return 1;
	}
	printf("%s: ok\n", mode);
	return 0;
}
