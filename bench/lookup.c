/* lookup PATH CMD [ARG...]: look PATH up once (an O_PATH open), then exec
 * CMD. Static, like the floor: bench/run times it with a shallow and with
 * the 128-deep root, and the difference is what a fresh process pays to
 * walk the deep path once, the least any check of that root can cost on
 * this machine (the deep-root goal is an absolute 100 us). bench/run builds
 * it with -D_GNU_SOURCE, for O_PATH. */
#include <fcntl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	if (open(argv[1], O_PATH | O_CLOEXEC) < 0)
		return 1;
	execvp(argv[2], argv + 2);
	return 127;
}
