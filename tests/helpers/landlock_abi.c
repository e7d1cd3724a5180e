/* landlock_abi: print the running kernel's Landlock ABI version (0 when
 * Landlock is unavailable), so tests can say what each kernel enforces. */
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#endif

int main(void)
{
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, 1u /* VERSION */);
	printf("%ld\n", abi < 0 ? 0 : abi);
	return 0;
}
