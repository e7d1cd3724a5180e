/* Linux's own platform code: malloc kept off brk and the memory a start
 * writes made present before main (platform_linux.c, for every process
 * linked with it, moat and moat-wrapper among them), and
 * platform_open_path_no_symlinks without openat2, as a container's seccomp
 * profile might leave it: the fallback walk must answer as openat2 does.
 * Linux only (the Makefile builds tests/unit/test_linux_*.c on Linux alone). */
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/mman.h>
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

/* How many pages of [start, start + len) are in memory, page-aligned. */
static size_t pages_present(uintptr_t start, size_t len)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), n = len / page, present = 0;
	unsigned char *vec = calloc(n, 1);
	if (!vec || mincore((void *)start, len, vec) < 0)
		abort();
	for (size_t i = 0; i < n; i++)
		present += vec[i] & 1;
	free(vec);
	return present;
}

static char untouched_bss[16 * 4096];

/* The constructor made .bss and the stack's next 64 KiB present: a start
 * takes no fault a page there. Checked before anything here touches them;
 * the control shows mincore reports a fresh page as absent. */
static void check_populated(void)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	char *fresh =
	    mmap(NULL, 4 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(fresh != MAP_FAILED && pages_present((uintptr_t)fresh, 4 * page) == 0,
	      "control: a fresh anonymous mapping is absent before its first touch");
	munmap(fresh, 4 * page);
	uintptr_t from = ((uintptr_t)untouched_bss + page - 1) & ~(page - 1);
	uintptr_t to = ((uintptr_t)untouched_bss + sizeof(untouched_bss)) & ~(page - 1);
	size_t n = (to - from) / page;
	CHECK(pages_present(from, to - from) == n,
	      ".bss is present before its first touch (%zu pages)", n);
	uintptr_t frame = (uintptr_t)__builtin_frame_address(0) & ~(page - 1);
	uintptr_t below = frame - 48 * 1024;
	CHECK(pages_present(below, 32 * 1024) == 32 * 1024 / page,
	      "the stack 16-48 KiB below main's frame is present before its first touch");
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
	check_populated();
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
