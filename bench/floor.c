/* The floor: the least one extra exec can cost. A static binary (no dynamic
 * loader, no relocations) that does nothing but exec its arguments. */
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	execvp(argv[1], argv + 1);
	return 127;
}
