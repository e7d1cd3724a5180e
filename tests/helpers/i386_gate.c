/* i386_gate: exit 0 when the i386 syscall gate (int $0x80) answers here.
 * Some hypervisors fault on it even where the kernel has IA32 emulation, and
 * then the i386 attacks cannot be tried at all: tests name it a prerequisite. */
#include <stdio.h>

int main(void)
{
#if defined(__x86_64__)
	long pid;
	__asm__ volatile("int $0x80"
	                 : "=a"(pid)
	                 : "a"(20L /* i386 getpid */)
	                 : "memory", "r8", "r9", "r10", "r11");
	printf("i386 getpid: %ld\n", pid);
	return pid > 0 ? 0 : 1;
#else
	return 1;
#endif
}
