/* The Landlock ABI moat acts on: the running kernel's. A file of its own so
 * that the test build (make check builds it in $(B)/abi/) can link
 * tests/abi/landlock_abi.c in its place and act as on any older ABI; a
 * release build has no such switch, nor any variable that flips it. */
#include "sandbox/landlock.h"

int landlock_abi_in_effect(int kernel_abi)
{
	return kernel_abi;
}

void landlock_note(const char *what, const char *path, uint64_t value)
{
	(void)what, (void)path, (void)value;
}
