/* sock MODE [ARG]: unix socket attempts, one per run.
 *
 * Reaching a socket (ARG is a path, or a name for the abstract ones):
 *   connect PATH          socket(AF_UNIX, SOCK_STREAM) + connect, read the greeting
 *   connect-abstract NAME the same to the abstract name NAME
 *   socket-high PATH      socket() with bit 32 of the family set, then connect
 *   socket-i386 PATH      socket() through the i386 gate (int $0x80), then connect
 *   socketcall-i386 PATH  socketcall(SYS_SOCKET) through the i386 gate, then connect
 *   dgram-sendto PATH     socketpair(SOCK_DGRAM), sendto PATH
 *   dgram-connect PATH    socketpair(SOCK_DGRAM), connect to PATH, send
 *   raw-sendto PATH       socketpair(SOCK_RAW) (a datagram pair for AF_UNIX), sendto PATH
 *   stream-connect PATH   socketpair(SOCK_STREAM), connect one end to PATH
 *   stream-sendto PATH    socketpair(SOCK_STREAM), sendto PATH
 * Legitimate neighbours:
 *   socketpair TYPE       stream|seqpacket|dgram|raw: a pair passes a message
 *   pipe                  a pipe passes a message
 *   inet                  socket(AF_INET) (the network is open by design)
 *   selftest PATH         listen on PATH, connect to it, read the greeting
 * Servers (run outside the sandbox; greet every client, until killed):
 *   serve PATH | serve-abstract NAME | serve-dgram PATH (prints what it receives)
 *
 * Prints "MODE: ok[ detail]" and exits 0 on success, else "MODE: <strerror>"
 * on stderr and exits 1 (2 for usage). */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#define GREETING "HELLO-FROM-SERVER"

static const char *mode;

static int fail(const char *what, int e)
{
	fprintf(stderr, "%s: %s%s%s\n", mode, what, *what ? ": " : "", strerror(e));
	return 1;
}

static int ok(const char *detail)
{
	printf("%s: ok%s%s\n", mode, *detail ? " " : "", detail);
	return 0;
}

static socklen_t address(const char *name, int abstract, struct sockaddr_un *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	size_t n = strlen(name);
	if (n + 2 > sizeof(sa->sun_path)) {
		fprintf(stderr, "%s: name too long\n", mode);
		exit(2);
	}
	memcpy(sa->sun_path + (abstract ? 1 : 0), name, n);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + (abstract ? 1 : 1));
}

/* Connect fd to name and read the greeting: success only if it arrives. */
static int connect_and_read(int fd, const char *name, int abstract)
{
	struct sockaddr_un sa;
	socklen_t len = address(name, abstract, &sa);
	if (connect(fd, (struct sockaddr *)&sa, len) < 0)
		return fail("connect", errno);
	char buf[64] = {0};
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	if (n <= 0)
		return fail("read", n < 0 ? errno : EPIPE);
	buf[strcspn(buf, "\n")] = '\0';
	return ok(buf);
}

#if defined(__x86_64__)
static long int80(long nr, long a, long b, long c)
{
	long ret;
	__asm__ volatile("int $0x80"
	                 : "=a"(ret)
	                 : "a"(nr), "b"(a), "c"(b), "d"(c)
	                 : "memory", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15");
	return (int)ret;
}

static int socket_i386(int through_socketcall)
{
	if (!through_socketcall)
		return (int)int80(359, AF_UNIX, SOCK_STREAM, 0);
	uint32_t *args = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
	                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
	if (args == MAP_FAILED)
		return -ENOMEM;
	args[0] = AF_UNIX, args[1] = SOCK_STREAM, args[2] = 0;
	return (int)int80(102, 1 /* SYS_SOCKET */, (long)(uintptr_t)args, 0);
}
#else
static int socket_i386(int through_socketcall)
{
	(void)through_socketcall;
	return -ENOSYS;
}
#endif

static int datagram_to(const char *path, int type, int use_connect)
{
	int sv[2];
	if (socketpair(AF_UNIX, type, 0, sv) < 0)
		return fail("socketpair", errno);
	struct sockaddr_un sa;
	socklen_t len = address(path, 0, &sa);
	static const char msg[] = "MESSAGE-FROM-SANDBOX\n";
	if (use_connect) {
		if (connect(sv[0], (struct sockaddr *)&sa, len) < 0)
			return fail("connect", errno);
		if (send(sv[0], msg, sizeof(msg) - 1, 0) < 0)
			return fail("send", errno);
	} else if (sendto(sv[0], msg, sizeof(msg) - 1, 0, (struct sockaddr *)&sa, len) < 0) {
		return fail("sendto", errno);
	}
	return ok("sent");
}

static int pair(const char *type_name)
{
	int type = strcmp(type_name, "stream") == 0      ? SOCK_STREAM
	           : strcmp(type_name, "seqpacket") == 0 ? SOCK_SEQPACKET
	           : strcmp(type_name, "dgram") == 0     ? SOCK_DGRAM
	           : strcmp(type_name, "raw") == 0       ? SOCK_RAW
	                                                 : -1;
	if (type < 0) {
		fprintf(stderr, "%s: unknown type '%s'\n", mode, type_name);
		return 2;
	}
	int sv[2];
	if (socketpair(AF_UNIX, type | SOCK_CLOEXEC, 0, sv) < 0)
		return fail("socketpair", errno);
	char buf[8] = {0};
	if (write(sv[0], "ping", 4) != 4 || read(sv[1], buf, sizeof(buf)) != 4)
		return fail("exchange", errno);
	return ok(buf);
}

static int serve(const char *name, int abstract, int type)
{
	int fd = socket(AF_UNIX, type, 0);
	struct sockaddr_un sa;
	socklen_t len = address(name, abstract, &sa);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, len) < 0)
		return fail("bind", errno);
	if (type == SOCK_STREAM && listen(fd, 16) < 0)
		return fail("listen", errno);
	printf("listening\n");
	fflush(stdout);
	for (;;) {
		if (type == SOCK_DGRAM) {
			char buf[256];
			ssize_t n = recv(fd, buf, sizeof(buf), 0);
			if (n > 0) {
				fwrite(buf, 1, (size_t)n, stdout);
				fflush(stdout);
			}
			continue;
		}
		int c = accept(fd, NULL, NULL);
		if (c < 0)
			continue;
		if (write(c, GREETING "\n", sizeof(GREETING)) < 0)
			perror("write");
		printf("accepted\n");
		fflush(stdout);
		close(c);
	}
}

static int selftest(const char *path)
{
	int srv = socket(AF_UNIX, SOCK_STREAM, 0);
	if (srv < 0)
		return fail("socket", errno);
	struct sockaddr_un sa;
	socklen_t len = address(path, 0, &sa);
	unlink(path);
	if (bind(srv, (struct sockaddr *)&sa, len) < 0 || listen(srv, 1) < 0)
		return fail("bind", errno);
	int c = socket(AF_UNIX, SOCK_STREAM, 0);
	if (c < 0 || connect(c, (struct sockaddr *)&sa, len) < 0)
		return fail("connect", errno);
	int a = accept(srv, NULL, NULL);
	if (a < 0 || write(a, GREETING "\n", sizeof(GREETING)) < 0)
		return fail("accept", errno);
	char buf[64] = {0};
	if (read(c, buf, sizeof(buf) - 1) <= 0)
		return fail("read", errno);
	buf[strcspn(buf, "\n")] = '\0';
	unlink(path);
	return ok(buf);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: sock MODE [ARG]\n");
		return 2;
	}
	mode = argv[1];
	const char *arg = argc > 2 ? argv[2] : "";
	setvbuf(stdout, NULL, _IONBF, 0);
	if (strcmp(mode, "connect") == 0 || strcmp(mode, "connect-abstract") == 0) {
		int fd = socket(AF_UNIX, SOCK_STREAM, 0);
		if (fd < 0)
			return fail("socket", errno);
		return connect_and_read(fd, arg, mode[7] == '-');
	}
	if (strcmp(mode, "socket-high") == 0) {
		long fd = syscall(SYS_socket, (unsigned long)AF_UNIX | (1ul << 32), SOCK_STREAM, 0);
		if (fd < 0)
			return fail("socket", errno);
		return connect_and_read((int)fd, arg, 0);
	}
	if (strcmp(mode, "socket-i386") == 0 || strcmp(mode, "socketcall-i386") == 0) {
		int fd = socket_i386(mode[6] == 'c');
		if (fd < 0)
			return fail("socket", -fd);
		return connect_and_read(fd, arg, 0);
	}
	if (strcmp(mode, "dgram-sendto") == 0)
		return datagram_to(arg, SOCK_DGRAM, 0);
	if (strcmp(mode, "dgram-connect") == 0)
		return datagram_to(arg, SOCK_DGRAM, 1);
	if (strcmp(mode, "raw-sendto") == 0)
		return datagram_to(arg, SOCK_RAW, 0);
	if (strcmp(mode, "stream-connect") == 0)
		return datagram_to(arg, SOCK_STREAM, 1);
	if (strcmp(mode, "stream-sendto") == 0)
		return datagram_to(arg, SOCK_STREAM, 0);
	if (strcmp(mode, "socketpair") == 0)
		return pair(arg);
	if (strcmp(mode, "pipe") == 0) {
		int p[2];
		char buf[8] = {0};
		if (pipe(p) < 0 || write(p[1], "ping", 4) != 4 || read(p[0], buf, sizeof(buf)) != 4)
			return fail("pipe", errno);
		return ok(buf);
	}
	if (strcmp(mode, "inet") == 0) {
		int fd = socket(AF_INET, SOCK_STREAM, 0);
		return fd < 0 ? fail("socket", errno) : ok("");
	}
	if (strcmp(mode, "selftest") == 0)
		return selftest(arg);
	if (strcmp(mode, "serve") == 0)
		return serve(arg, 0, SOCK_STREAM);
	if (strcmp(mode, "serve-abstract") == 0)
		return serve(arg, 1, SOCK_STREAM);
	if (strcmp(mode, "serve-dgram") == 0)
		return serve(arg, 0, SOCK_DGRAM);
	fprintf(stderr, "sock: unknown mode '%s'\n", mode);
	return 2;
}
