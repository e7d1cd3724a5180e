/* inet MODE [ADDR PORT]: IP socket attempts for the network policy tests,
 * one per run. ADDR is numeric (127.0.0.1, 10.x.y.z, ::1).
 *
 * Servers (run outside or inside the sandbox, until killed):
 *   tcp-serve ADDR PORT    listen and greet every client
 *   udp-serve ADDR PORT    say "udp-serve: ready" once bound, then print each
 *                          datagram received, flushed
 * Attempts:
 *   tcp-connect ADDR PORT  connect and read the greeting (retries a refused
 *                          connection for 3 s, for a server just started)
 *   tcp-listen ADDR PORT   bind and listen
 *   tcp-fastopen ADDR PORT sendto(MSG_FASTOPEN): a connect without connect()
 *   udp-send ADDR PORT     sendto a datagram
 *   raw                    socket(AF_INET, SOCK_RAW, IPPROTO_ICMP)
 *   ping                   socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP)
 *   packet                 socket(AF_PACKET, SOCK_RAW)
 *   netlink                socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE)
 *   sctp                   socket(AF_INET, SOCK_STREAM, IPPROTO_SCTP)
 *
 * Prints "MODE: ok[ detail]" and exits 0 on success, else "MODE: <why>" on
 * stderr and exits 1 (2 for usage). */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define GREETING "HELLO-FROM-INET"

#ifndef MSG_FASTOPEN
#define MSG_FASTOPEN 0x20000000
#endif

static const char *mode;

static int fail(const char *what, int e)
{
	fprintf(stderr, "%s: %s: %s\n", mode, what, strerror(e));
	return 1;
}

static int ok(const char *detail)
{
	printf("%s: ok%s%s\n", mode, *detail ? " " : "", detail);
	fflush(stdout);
	return 0;
}

static socklen_t address(const char *addr, const char *port, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	int p = atoi(port);
	struct sockaddr_in *in = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;
	if (inet_pton(AF_INET, addr, &in->sin_addr) == 1) {
		in->sin_family = AF_INET;
		in->sin_port = htons((uint16_t)p);
		return sizeof(*in);
	}
	if (inet_pton(AF_INET6, addr, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons((uint16_t)p);
		return sizeof(*in6);
	}
	fprintf(stderr, "%s: bad address %s\n", mode, addr);
	exit(2);
}

static int new_socket(const struct sockaddr_storage *ss, int type, int *fd)
{
	*fd = socket(ss->ss_family, type | SOCK_CLOEXEC, 0);
	return *fd < 0 ? fail("socket", errno) : 0;
}

static int serve_tcp(const struct sockaddr_storage *ss, socklen_t len)
{
	int fd, one = 1;
	if (new_socket(ss, SOCK_STREAM, &fd))
		return 1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (const struct sockaddr *)ss, len) < 0)
		return fail("bind", errno);
	if (listen(fd, 16) < 0)
		return fail("listen", errno);
	for (;;) {
		int c = accept(fd, NULL, NULL);
		if (c < 0)
			continue;
		if (write(c, GREETING "\n", sizeof(GREETING)) < 0) {
			/* the client left */
		}
		close(c);
	}
}

static int serve_udp(const struct sockaddr_storage *ss, socklen_t len)
{
	int fd;
	if (new_socket(ss, SOCK_DGRAM, &fd))
		return 1;
	if (bind(fd, (const struct sockaddr *)ss, len) < 0)
		return fail("bind", errno);
	/* A datagram sent before the bind is lost: the tests wait for this. */
	printf("udp-serve: ready\n");
	fflush(stdout);
	for (;;) {
		char buf[128];
		ssize_t n = recv(fd, buf, sizeof(buf) - 1, 0);
		if (n <= 0)
			continue;
		buf[n] = '\0';
		printf("%s\n", buf);
		fflush(stdout);
	}
}

static int read_greeting(int fd)
{
	char buf[64] = {0};
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	if (n <= 0)
		return fail("read", n < 0 ? errno : EPIPE);
	buf[strcspn(buf, "\n")] = '\0';
	return ok(buf);
}

static int tcp_connect(const struct sockaddr_storage *ss, socklen_t len)
{
	for (int tries = 0;; tries++) {
		int fd;
		if (new_socket(ss, SOCK_STREAM, &fd))
			return 1;
		if (connect(fd, (const struct sockaddr *)ss, len) == 0)
			return read_greeting(fd);
		int e = errno;
		close(fd);
		if (e != ECONNREFUSED || tries == 30)
			return fail("connect", e);
		nanosleep(&(struct timespec){0, 100000000}, NULL);
	}
}

static int tcp_listen(const struct sockaddr_storage *ss, socklen_t len)
{
	int fd;
	if (new_socket(ss, SOCK_STREAM, &fd))
		return 1;
	if (bind(fd, (const struct sockaddr *)ss, len) < 0)
		return fail("bind", errno);
	if (listen(fd, 1) < 0)
		return fail("listen", errno);
	return ok("");
}

static int tcp_fastopen(const struct sockaddr_storage *ss, socklen_t len)
{
	int fd;
	if (new_socket(ss, SOCK_STREAM, &fd))
		return 1;
	if (sendto(fd, "x", 1, MSG_FASTOPEN, (const struct sockaddr *)ss, len) < 0)
		return fail("sendto", errno);
	return read_greeting(fd);
}

static int udp_send(const struct sockaddr_storage *ss, socklen_t len)
{
	int fd;
	if (new_socket(ss, SOCK_DGRAM, &fd))
		return 1;
	if (sendto(fd, "DATAGRAM-FROM-INET", 18, 0, (const struct sockaddr *)ss, len) < 0)
		return fail("sendto", errno);
	return ok("");
}

static int just_socket(int family, int type, int protocol)
{
	int fd = socket(family, type | SOCK_CLOEXEC, protocol);
	if (fd < 0)
		return fail("socket", errno);
	close(fd);
	return ok("");
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	mode = argv[1];
	if (strcmp(mode, "raw") == 0)
		return just_socket(AF_INET, SOCK_RAW, IPPROTO_ICMP);
	if (strcmp(mode, "ping") == 0)
		return just_socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP);
	if (strcmp(mode, "packet") == 0)
		return just_socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
	if (strcmp(mode, "netlink") == 0)
		return just_socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE);
	if (strcmp(mode, "sctp") == 0)
		return just_socket(AF_INET, SOCK_STREAM, IPPROTO_SCTP);
	if (argc != 4)
		return 2;
	struct sockaddr_storage ss;
	socklen_t len = address(argv[2], argv[3], &ss);
	static const struct {
		const char *name;
		int (*fn)(const struct sockaddr_storage *, socklen_t);
	} modes[] = {
	    {"tcp-serve", serve_tcp},   {"udp-serve", serve_udp}, {"tcp-connect", tcp_connect},
	    {"tcp-listen", tcp_listen}, {"udp-send", udp_send},   {"tcp-fastopen", tcp_fastopen},
	};
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if (strcmp(mode, modes[i].name) == 0)
			return modes[i].fn(&ss, len);
	return 2;
}
