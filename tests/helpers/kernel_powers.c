/* kernel_powers MODE: the calls through which root reaches past every
 * filesystem rule, made so they cannot do harm if they succeed.
 *
 *   init_module    load 64 bytes of garbage as a module (never loads)
 *   finit_module   the same from an empty file (/dev/null)
 *   kexec_load     with invalid flags (rejected after the permission check)
 *   iopl           iopl(0): lower the I/O privilege level to what it is
 *   ioperm         ioperm(0x80, 1, 0): turn port access off
 *   bpf            create a one-entry BPF array map, then close it
 *
 * Prints "MODE: ok" or "MODE: <strerror>" (exit 1). Inside moat every one must
 * be "Operation not permitted", whoever runs it: a different error would
 * mean the kernel, not the filter, decided. */
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static long call(const char *mode)
{
	static char garbage[64];
	if (strcmp(mode, "init_module") == 0)
		return syscall(SYS_init_module, garbage, sizeof(garbage), "");
	if (strcmp(mode, "finit_module") == 0) {
		int fd = open("/dev/null", O_RDONLY);
		return syscall(SYS_finit_module, fd, "", 0);
	}
	if (strcmp(mode, "kexec_load") == 0)
		return syscall(SYS_kexec_load, 0, 0, NULL, 0x7fff0000ul);
#ifdef SYS_iopl
	if (strcmp(mode, "iopl") == 0)
		return syscall(SYS_iopl, 0);
	if (strcmp(mode, "ioperm") == 0)
		return syscall(SYS_ioperm, 0x80, 1, 0);
#endif
	if (strcmp(mode, "bpf") == 0) {
		union bpf_attr attr;
		memset(&attr, 0, sizeof(attr));
		attr.map_type = BPF_MAP_TYPE_ARRAY;
		attr.key_size = 4;
		attr.value_size = 4;
		attr.max_entries = 1;
		long fd = syscall(SYS_bpf, BPF_MAP_CREATE, &attr, sizeof(attr));
		if (fd >= 0)
			close((int)fd);
		return fd;
	}
	errno = EINVAL;
	return -2;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: kernel_powers MODE\n");
		return 2;
	}
	long r = call(argv[1]);
	if (r == -2) {
		fprintf(stderr, "kernel_powers: unknown mode '%s'\n", argv[1]);
		return 2;
	}
	if (r < 0) {
		fprintf(stderr, "%s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	printf("%s: ok\n", argv[1]);
	return 0;
}
