/* io_uring_open MODE ARG: file and socket operations submitted through
 * io_uring (raw syscalls, no liburing), which never pass through the
 * syscalls a seccomp filter sees.
 *
 *   open PATH     IORING_OP_OPENAT + IORING_OP_READ: print the file's first line
 *   socket PATH   IORING_OP_SOCKET(AF_UNIX) + IORING_OP_CONNECT to PATH, read
 *
 * Prints "MODE: ok <data>" and exits 0, else "MODE: <step>: <strerror>" and
 * exits 1 (2 for usage). "setup" failing means io_uring itself is refused. */
#include <errno.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

struct ring {
	int fd;
	unsigned *sq_tail, *sq_mask, *sq_array, *cq_head, *cq_tail, *cq_mask;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
};

static const char *mode;

static int fail(const char *step, int e)
{
	fprintf(stderr, "%s: %s: %s\n", mode, step, strerror(e));
	return 1;
}

static int ring_setup(struct ring *r)
{
	struct io_uring_params p;
	memset(&p, 0, sizeof(p));
	long fd = syscall(__NR_io_uring_setup, 4, &p);
	if (fd < 0)
		return -errno;
	r->fd = (int)fd;
	size_t sq_len = p.sq_off.array + p.sq_entries * sizeof(unsigned);
	size_t cq_len = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	if (p.features & IORING_FEAT_SINGLE_MMAP)
		sq_len = cq_len = sq_len > cq_len ? sq_len : cq_len;
	char *sq = mmap(NULL, sq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd,
	                IORING_OFF_SQ_RING);
	if (sq == MAP_FAILED)
		return -errno;
	char *cq = sq;
	if (!(p.features & IORING_FEAT_SINGLE_MMAP)) {
		cq = mmap(NULL, cq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd,
		          IORING_OFF_CQ_RING);
		if (cq == MAP_FAILED)
			return -errno;
	}
	r->sqes = mmap(NULL, p.sq_entries * sizeof(struct io_uring_sqe), PROT_READ | PROT_WRITE,
	               MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_SQES);
	if (r->sqes == MAP_FAILED)
		return -errno;
	r->sq_tail = (unsigned *)(sq + p.sq_off.tail);
	r->sq_mask = (unsigned *)(sq + p.sq_off.ring_mask);
	r->sq_array = (unsigned *)(sq + p.sq_off.array);
	r->cq_head = (unsigned *)(cq + p.cq_off.head);
	r->cq_tail = (unsigned *)(cq + p.cq_off.tail);
	r->cq_mask = (unsigned *)(cq + p.cq_off.ring_mask);
	r->cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);
	return 0;
}

/* Submit one request and wait for its completion; returns cqe->res. */
static int submit(struct ring *r, const struct io_uring_sqe *sqe)
{
	unsigned tail = *r->sq_tail, index = tail & *r->sq_mask;
	r->sqes[index] = *sqe;
	r->sq_array[index] = index;
	__atomic_store_n(r->sq_tail, tail + 1, __ATOMIC_RELEASE);
	if (syscall(__NR_io_uring_enter, r->fd, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0) < 0)
		return -errno;
	unsigned head = __atomic_load_n(r->cq_head, __ATOMIC_ACQUIRE);
	if (head == __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE))
		return -EAGAIN;
	int res = r->cqes[head & *r->cq_mask].res;
	__atomic_store_n(r->cq_head, head + 1, __ATOMIC_RELEASE);
	return res;
}

static int print_first_line(struct ring *r, int fd)
{
	char buf[128] = {0};
	struct io_uring_sqe sqe = {.opcode = IORING_OP_READ, .fd = fd};
	sqe.addr = (uint64_t)(uintptr_t)buf;
	sqe.len = sizeof(buf) - 1;
	int n = submit(r, &sqe);
	if (n < 0)
		return fail("read", -n);
	buf[strcspn(buf, "\n")] = '\0';
	printf("%s: ok %s\n", mode, buf);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: io_uring_open open|socket PATH\n");
		return 2;
	}
	mode = argv[1];
	struct ring r;
	int e = ring_setup(&r);
	if (e < 0)
		return fail("setup", -e);
	if (strcmp(mode, "open") == 0) {
		struct io_uring_sqe sqe = {.opcode = IORING_OP_OPENAT, .fd = AT_FDCWD};
		sqe.addr = (uint64_t)(uintptr_t)argv[2];
		sqe.open_flags = O_RDONLY;
		int fd = submit(&r, &sqe);
		if (fd < 0)
			return fail("openat", -fd);
		return print_first_line(&r, fd);
	}
	if (strcmp(mode, "socket") == 0) {
		struct io_uring_sqe sqe = {.opcode = IORING_OP_SOCKET, .fd = AF_UNIX};
		sqe.off = SOCK_STREAM;
		int fd = submit(&r, &sqe);
		if (fd < 0)
			return fail("socket", -fd);
		struct sockaddr_un sa = {.sun_family = AF_UNIX};
		snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", argv[2]);
		struct io_uring_sqe conn = {.opcode = IORING_OP_CONNECT, .fd = fd};
		conn.addr = (uint64_t)(uintptr_t)&sa;
		conn.off = sizeof(sa);
		int rc = submit(&r, &conn);
		if (rc < 0)
			return fail("connect", -rc);
		return print_first_line(&r, fd);
	}
	fprintf(stderr, "io_uring_open: unknown mode '%s'\n", mode);
	return 2;
}
