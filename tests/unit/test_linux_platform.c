/* Linux's own platform code: malloc kept off brk (platform_linux.c, for
 * every process linked with it, moat and moat-wrapper among them), and
 * platform_open_path_no_symlinks without openat2, as a container's seccomp
 * profile might leave it: the fallback walk must answer as openat2 does.
 * Linux only (the Makefile builds tests/unit/test_linux_*.c on Linux alone). */
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "platform_opens.h"

#ifndef SYS_openat2
#define SYS_openat2 437
#endif

/* Does /proc/self/maps name the brk heap? */
static bool heap_mapped(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	if (!f)
		abort();
	char line[512];
	bool heap = false;
	while (!heap && fgets(line, sizeof(line), f))
		heap = strstr(line, "[heap]") != NULL;
	fclose(f);
	return heap;
}

/* platform_linux.c's constructor has run by main: brk cannot grow, so
 * malloc's memory, small blocks and large, comes from mmap. */
static void check_heap_off_brk(void)
{
	long start = syscall(SYS_brk, 0);
	CHECK(syscall(SYS_brk, start + 4096) == start, "brk cannot grow");
	void *volatile blocks[64];
	for (size_t i = 0; i < 64; i++)
		blocks[i] = malloc(i * 1000 + 16);
	CHECK(!heap_mapped(), "malloc made no [heap] mapping");
	for (size_t i = 0; i < 64; i++)
		free(blocks[i]);
}

/* openat2 answers ENOSYS from here on. */
static void refuse_openat2(void)
{
	struct sock_filter code[] = {
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat2, 0, 1),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {.len = sizeof(code) / sizeof(*code), .filter = code};
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0)
		abort();
}

int main(void)
{
	check_heap_off_brk();
	opens_make_tree();
	opens_check("openat2");
	refuse_openat2();
	CHECK(syscall(SYS_openat2, AT_FDCWD, "/", NULL, 0) < 0 && errno == ENOSYS,
	      "openat2 is now refused");
	opens_check("the fallback walk");
	opens_remove_tree();
	return tap_done();
}
