/* lookup [-n N] PATH CMD [ARG...]: look PATH up once (an O_PATH open),
 * then exec CMD. Static, like the floor: bench/run times it with a shallow
 * and with the 128-deep root, and the difference is what a fresh process
 * pays to walk the deep path once, the least any check of that root can
 * cost on this machine (the deep-root goal is an absolute 100 us).
 *
 * With -n N, N stat calls of PATH/.git follow the lookup, each one name
 * from the directory already open, the .git absent: the least an upward
 * search for a repository costs, as git's and moat's make one such call a
 * level. Timed with N = 128 against N = 0, it is the floor under the
 * deep-root goal that no implementation of that search goes below here.
 * bench/run builds it with -D_GNU_SOURCE, for O_PATH. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = 0;
	if (argc > 2 && strcmp(argv[1], "-n") == 0) {
		n = strtol(argv[2], NULL, 10);
		argv += 2, argc -= 2;
	}
	if (argc < 3)
		return 2;
	int fd = open(argv[1], O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return 1;
	struct stat st;
	for (long i = 0; i < n; i++)
		if (fstatat(fd, ".git", &st, 0) == 0)
			return 1; /* not the absent name this measures */
	execvp(argv[2], argv + 2);
	return 127;
}
