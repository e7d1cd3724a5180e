/* The hosts policy's proxy (proxy.h). One process, one epoll loop,
 * nonblocking sockets, two bounded buffers and two pipes a connection: it
 * reads a request's head, judges the host, connects, then splices bytes
 * both ways without reading them.
 *
 * It speaks CONNECT host:port (a tunnel: TLS goes through untouched) and
 * absolute-URI requests (GET http://host/path HTTP/1.1), whose request
 * line it rewrites to origin form, with "Connection: close": one request
 * per connection, so that a client cannot send a second request for
 * another host down a connection judged for the first (it would reach the
 * first host's server anyway). Names are resolved as the system does
 * (getaddrinfo: /etc/hosts, then DNS), here, outside the sandbox; an
 * address on loopback, link-local, a cloud's metadata address, multicast,
 * unspecified or one of this machine's own (asked of the kernel at each
 * connect) is never connected to, whatever name led there. Resolving blocks the loop: a slow DNS
 * answer holds every other connection's bytes meanwhile (docs/security.md). */
#include "launch/proxy.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/platform.h"
#include "base/util.h"
#include "launch/proxy_addr.h"

/* Per connection two buffers of BUF bytes (the request's head must fit in
 * one) and two pipes (a pipe holds 64 KiB by default); at most MAX_CONNS
 * connections, fewer when the descriptor limit is lower (six each):
 * 32 MiB of buffers at worst, and the pipes' pages. */
enum { BUF = 16384, MAX_CONNS = 1024, MAX_RECORDED = 256, CHUNK = 65536 };

/* One direction. What moat itself says or rewrote goes first, from buf
 * (the rest of a request's head, a rewritten request, the 200 of a
 * CONNECT); the tunnel's bytes then go through the pipe by splice, from
 * one socket to the other without being copied to the proxy or read. */
struct half {
	char buf[BUF];
	size_t off, len; /* bytes buf[off, len) wait to be written */
	int pipe[2];
	size_t piped;   /* bytes in the pipe */
	bool full;      /* the pipe took nothing while the socket had bytes */
	bool eof, shut; /* the reader's end of file; passed on as shutdown(SHUT_WR) */
};

enum state { S_HEAD, S_CONNECTING, S_TUNNEL };

struct conn {
	int client, upstream;
	enum state state;
	bool tunnel_reply; /* CONNECT: "200 Connection established" once connected */
	struct half up;    /* client -> upstream; the request's head while S_HEAD */
	struct half down;  /* upstream -> client */
	struct addrinfo *ai, *next;
	/* Per side (0 the client, 1 upstream): in the epoll set, and hung up
	 * (the peer closed both ways, or reset): a hung-up socket is reported
	 * at every wait, so one with nothing to do leaves the set. */
	bool watched[2], hup[2];
	uint32_t events[2]; /* what the set holds for each: no call when unchanged */
	bool dead;          /* closed; freed after the batch of events that named it */
	struct conn *next_dead;
};

struct proxy {
	const struct netpolicy *policy;
	int epoll, listener, log;
	size_t nconns, max_conns;
	struct conn *dead; /* closed during this batch of events */
	unsigned long recorded[MAX_RECORDED];
	size_t nrecorded;
	size_t unrecorded; /* refusals once the record was full */
	off_t end;         /* of the record's lines */
};

/* --- the record of refusals ------------------------------------------- */

static unsigned long hash_host(const char *host, unsigned port)
{
	unsigned long h = 5381 + port;
	for (const char *c = host; *c; c++)
		h = h * 33 + (unsigned char)(*c | 0x20);
	return h;
}

/* The record is best effort: a failed write leaves the refusal standing. */
static void record_line(struct proxy *px, const char *line, size_t n, bool advance)
{
	if (pwrite(px->log, line, n, px->end) == (ssize_t)n && advance)
		px->end += (off_t)n;
}

/* "host port\n", once each, and only a host `moat allow --net` takes:
 * what the trace turns into that line. Once MAX_RECORDED are, a line
 * "+N\n" after them, rewritten in place, counts the refusals left out:
 * the trace says that some are missing rather than that there were none. */
static void record_refusal(struct proxy *px, const char *host, unsigned port)
{
	if (px->log < 0)
		return;
	unsigned long h = hash_host(host, port);
	for (size_t i = 0; i < px->nrecorded; i++)
		if (px->recorded[i] == h)
			return;
	struct netpolicy check = netpolicy_empty();
	struct error ignored;
	if (netpolicy_add_item(&check, host, &ignored) < 0 || check.level != NET_HOSTS)
		return;
	char line[NETPOLICY_HOST_MAX + 16];
	int n;
	if (px->nrecorded == MAX_RECORDED)
		n = snprintf(line, sizeof(line), "+%zu\n", ++px->unrecorded);
	else
		n = snprintf(line, sizeof(line), "%s %u\n", host, port);
	if (n <= 0 || (size_t)n >= sizeof(line))
		return;
	if (px->nrecorded < MAX_RECORDED)
		px->recorded[px->nrecorded++] = h;
	record_line(px, line, (size_t)n, !px->unrecorded);
}

int proxy_record_open(void)
{
	int fd = memfd_create("moat-proxy-refusals", MFD_CLOEXEC);
	return fd > 0 ? fd : 0;
}

size_t proxy_read_refusals(int log_fd, void (*fn)(const char *host, unsigned port, void *arg),
                           void *arg)
{
	static char buf[MAX_RECORDED * (NETPOLICY_HOST_MAX + 8) + 32];
	size_t more = 0;
	ssize_t n = pread(log_fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	for (char *line = buf, *end; (end = strchr(line, '\n')); line = end + 1) {
		*end = '\0';
		if (*line == '+') {
			more = strtoul(line + 1, NULL, 10);
			continue;
		}
		char *sp = strrchr(line, ' ');
		if (!sp)
			continue;
		*sp = '\0';
		unsigned long port = strtoul(sp + 1, NULL, 10);
		if (port > 0 && port < 65536)
			fn(line, (unsigned)port, arg);
	}
	return more;
}

/* --- connections ------------------------------------------------------- */

/* epoll's data: the connection, its low bit set for the upstream side. */
static void watch_fd(struct proxy *px, int fd, void *tag, uint32_t events, int op)
{
	struct epoll_event ev = {.events = events, .data.ptr = tag};
	epoll_ctl(px->epoll, op, fd, &ev);
}

static bool can_read(const struct half *h)
{
	return !h->eof && !h->full;
}

static bool has_output(const struct half *h)
{
	return h->len > h->off || h->piped;
}

static void set_events(struct proxy *px, struct conn *c, int side, uint32_t events)
{
	int fd = side ? c->upstream : c->client;
	if (!events && c->hup[side]) {
		if (c->watched[side])
			epoll_ctl(px->epoll, EPOLL_CTL_DEL, fd, NULL);
		c->watched[side] = false;
		return;
	}
	if (c->watched[side] && c->events[side] == events)
		return;
	watch_fd(px, fd, (char *)c + side, events,
	         c->watched[side] ? EPOLL_CTL_MOD : EPOLL_CTL_ADD);
	c->watched[side] = true;
	c->events[side] = events;
}

static void watch(struct proxy *px, struct conn *c)
{
	uint32_t cl = 0, up = 0;
	if (c->state == S_HEAD)
		cl = EPOLLIN;
	if (c->state == S_CONNECTING)
		up = EPOLLOUT;
	if (c->state == S_TUNNEL) {
		cl = (can_read(&c->up) ? EPOLLIN : 0) | (has_output(&c->down) ? EPOLLOUT : 0);
		up = (can_read(&c->down) ? EPOLLIN : 0) | (has_output(&c->up) ? EPOLLOUT : 0);
	}
	set_events(px, c, 0, cl);
	if (c->upstream >= 0)
		set_events(px, c, 1, up);
}

/* Closed now, freed once the batch of events is done with: a later event
 * of the same batch may name it. */
static void conn_close(struct proxy *px, struct conn *c)
{
	close(c->client);
	if (c->upstream >= 0)
		close(c->upstream);
	for (int i = 0; i < 2; i++) {
		if (c->up.pipe[i] >= 0)
			close(c->up.pipe[i]);
		if (c->down.pipe[i] >= 0)
			close(c->down.pipe[i]);
	}
	if (c->ai)
		freeaddrinfo(c->ai);
	c->dead = true;
	c->next_dead = px->dead;
	px->dead = c;
	px->nconns--;
}

static void bury(struct proxy *px)
{
	while (px->dead) {
		struct conn *c = px->dead;
		px->dead = c->next_dead;
		free(c);
	}
}

/* A short answer, then the end: the client's socket is fresh and empty,
 * so one nonblocking write takes it whole. */
static void reply_close(struct proxy *px, struct conn *c, int code, const char *reason)
{
	const char *what = code == 403   ? "Forbidden"
	                   : code == 502 ? "Bad Gateway"
	                   : code == 503 ? "Service Unavailable"
	                                 : "Bad Request";
	char msg[512];
	int body = (int)strlen(reason) + 7;
	int n = snprintf(msg, sizeof(msg),
	                 "HTTP/1.1 %d %s\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n"
	                 "Connection: close\r\n\r\nmoat: %s\n",
	                 code, what, body, reason);
	if (n > 0 &&
	    write(c->client, msg, (size_t)n < sizeof(msg) ? (size_t)n : sizeof(msg) - 1) < 0) {
		/* the client is gone: nothing to tell */
	}
	conn_close(px, c);
}

/* No candidate connected. An address moat refuses gets the same answer
 * as one that did not answer: a name that leads to 403 for the host's own
 * addresses and 502 for others would map them for a client that can
 * point a name (DNS) where it likes. */
static void reply_unreachable(struct proxy *px, struct conn *c)
{
	reply_close(px, c, 502,
	            "cannot connect to the host (moat never connects to loopback, link-local, "
	            "metadata or this machine's own addresses)");
}

/* Try the candidates from c->next on; false when none is left. */
static bool connect_next(struct proxy *px, struct conn *c)
{
	for (; c->next; c->next = c->next->ai_next) {
		struct addrinfo *a = c->next;
		proxy_unmap_v4(a);
		if (proxy_addr_refused(a->ai_addr))
			continue;
		int fd = socket(a->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (fd < 0)
			continue;
		if (connect(fd, a->ai_addr, a->ai_addrlen) < 0 && errno != EINPROGRESS) {
			close(fd);
			continue;
		}
		c->next = a->ai_next;
		c->upstream = fd;
		c->state = S_CONNECTING;
		c->watched[1] = c->hup[1] = false;
		watch(px, c);
		return true;
	}
	return false;
}

/* host:port, as the request names it: a name (or an address, which no
 * policy item matches). false when malformed. */
static bool split_authority(char *auth, unsigned default_port, char **host, unsigned *port)
{
	char *colon = strrchr(auth, ':');
	*port = default_port;
	if (colon) {
		char *end;
		unsigned long p = strtoul(colon + 1, &end, 10);
		if (*end || p == 0 || p > 65535 || end == colon + 1)
			return false;
		*port = (unsigned)p, *colon = '\0';
	}
	*host = auth;
	size_t n = strlen(auth);
	return n > 0 && n <= NETPOLICY_HOST_MAX &&
	       strspn(auth, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_") ==
	           n;
}

/* Judge the host, resolve it, and start connecting; or answer and close. */
static void open_upstream(struct proxy *px, struct conn *c, const char *host, unsigned port)
{
	if (!netpolicy_allows_host(px->policy, host, (uint16_t)port)) {
		record_refusal(px, host, port);
		char why[NETPOLICY_HOST_MAX + 96];
		snprintf(why, sizeof(why), "%s port %u is not in this session's network policy",
		         host, port);
		reply_close(px, c, 403, why);
		return;
	}
	char service[8];
	snprintf(service, sizeof(service), "%u", port);
	struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
	if (getaddrinfo(host, service, &hints, &c->ai) != 0) {
		c->ai = NULL;
		reply_close(px, c, 502, "cannot resolve the host");
		return;
	}
	c->next = c->ai;
	if (!connect_next(px, c))
		reply_unreachable(px, c);
}

/* Drop Connection, Proxy-Connection and Keep-Alive lines: the rewritten
 * request asks for one response, then the end. And Host, which
 * rewrite_request sets to the URL's: the host judged is the one served,
 * not another virtual host of the same front end (domain fronting). */
static bool hop_header(const char *line, size_t n)
{
	static const char *const names[] = {
	    "connection:", "proxy-connection:", "keep-alive:", "host:"};
	for (size_t i = 0; i < ARRAY_LEN(names); i++) {
		size_t k = strlen(names[i]);
		if (n >= k && strncasecmp(line, names[i], k) == 0)
			return true;
	}
	return false;
}

/* GET http://host[:port]/path HTTP/1.1 -> GET /path HTTP/1.1 and Host:
 * host[:port], with the rest of the head (less hop headers and the
 * client's Host) and what followed it. */
static bool rewrite_request(struct half *h, size_t head_len, const char *method, const char *path,
                            const char *version, const char *authority, const char *headers)
{
	static char out[BUF];
	int n = snprintf(out, sizeof(out), "%s %s %s\r\nHost: %s\r\n", method, *path ? path : "/",
	                 version, authority);
	if (n < 0 || (size_t)n >= sizeof(out))
		return false;
	size_t len = (size_t)n;
	for (const char *line = headers, *end; *line && (end = strstr(line, "\r\n"));
	     line = end + 2) {
		size_t ln = (size_t)(end - line);
		if (ln == 0 || hop_header(line, ln))
			continue;
		if (len + ln + 2 > sizeof(out))
			return false;
		memcpy(out + len, line, ln);
		memcpy(out + len + ln, "\r\n", 2);
		len += ln + 2;
	}
	static const char tail[] = "Connection: close\r\n\r\n";
	size_t rest = h->len - head_len;
	if (len + sizeof(tail) - 1 + rest > sizeof(out))
		return false;
	memcpy(out + len, tail, sizeof(tail) - 1);
	len += sizeof(tail) - 1;
	memcpy(out + len, h->buf + head_len, rest);
	memcpy(h->buf, out, len + rest);
	h->off = 0, h->len = len + rest;
	return true;
}

/* The whole head is in c->up: parse its request line. */
static void take_head(struct proxy *px, struct conn *c, size_t head_len)
{
	/* Parsed as a C string: a NUL would end it early (no CRLF left to
	 * find), and no HTTP head holds one (RFC 9110 5.5). */
	if (memchr(c->up.buf, '\0', head_len)) {
		reply_close(px, c, 400, "a NUL in the request's head");
		return;
	}
	char line[BUF];
	memcpy(line, c->up.buf, head_len);
	line[head_len] = '\0';
	char *headers = strstr(line, "\r\n");
	*headers = '\0';
	headers += 2;
	char *method = line, *target = strchr(method, ' ');
	char *version = target ? strchr(target + 1, ' ') : NULL;
	if (!version || strncmp(version + 1, "HTTP/1.", 7) != 0) {
		reply_close(px, c, 400, "not an HTTP/1 request");
		return;
	}
	*target++ = '\0', *version++ = '\0';
	char *host;
	unsigned port;
	if (strcmp(method, "CONNECT") == 0) {
		if (!split_authority(target, 0, &host, &port) || port == 0) {
			reply_close(px, c, 400, "CONNECT wants host:port");
			return;
		}
		/* What the client sent after the head goes up the tunnel. */
		memmove(c->up.buf, c->up.buf + head_len, c->up.len - head_len);
		c->up.len -= head_len;
		c->tunnel_reply = true;
	} else if (strncasecmp(target, "http://", 7) == 0) {
		char *auth = target + 7, *slash = strchr(auth, '/');
		char path[BUF], authority[NETPOLICY_HOST_MAX + 8];
		snprintf(path, sizeof(path), "%s", slash ? slash : "/");
		if (slash)
			*slash = '\0';
		snprintf(authority, sizeof(authority), "%s", auth);
		if (!split_authority(auth, 80, &host, &port) ||
		    !rewrite_request(&c->up, head_len, method, path, version, authority, headers)) {
			reply_close(px, c, 400, "bad or too long request");
			return;
		}
	} else {
		reply_close(px, c, 400,
		            "moat's proxy takes CONNECT host:port and http://host/ URLs only");
		return;
	}
	open_upstream(px, c, host, port);
}

static void read_head(struct proxy *px, struct conn *c)
{
	ssize_t n = read(c->client, c->up.buf + c->up.len, BUF - 1 - c->up.len);
	if (n <= 0) {
		if (n == 0 || (errno != EAGAIN && errno != EINTR))
			conn_close(px, c);
		return;
	}
	c->up.len += (size_t)n;
	char *end = memmem(c->up.buf, c->up.len, "\r\n\r\n", 4);
	if (end)
		take_head(px, c, (size_t)(end - c->up.buf) + 4);
	else if (c->up.len == BUF - 1)
		reply_close(px, c, 400, "the request's head is too long");
}

static void connected(struct proxy *px, struct conn *c)
{
	int e = 0;
	socklen_t len = sizeof(e);
	getsockopt(c->upstream, SOL_SOCKET, SO_ERROR, &e, &len);
	if (e) {
		close(c->upstream); /* which takes it out of the epoll set */
		c->upstream = -1;
		if (!connect_next(px, c))
			reply_unreachable(px, c);
		return;
	}
	if (pipe2(c->up.pipe, O_NONBLOCK | O_CLOEXEC) < 0 ||
	    pipe2(c->down.pipe, O_NONBLOCK | O_CLOEXEC) < 0) {
		reply_close(px, c, 503, "out of descriptors");
		return;
	}
	c->state = S_TUNNEL;
	if (c->tunnel_reply) {
		static const char ok[] = "HTTP/1.1 200 Connection established\r\n\r\n";
		memcpy(c->down.buf, ok, sizeof(ok) - 1);
		c->down.len = sizeof(ok) - 1;
	}
	watch(px, c);
}

/* What buf holds, written; false on an error that ends the connection. */
static bool flush_buffer(int to, struct half *h)
{
	while (h->len > h->off) {
		ssize_t n = write(to, h->buf + h->off, h->len - h->off);
		if (n < 0)
			return errno == EAGAIN || errno == EINTR;
		h->off += (size_t)n;
	}
	h->off = h->len = 0;
	return true;
}

/* Bytes waiting on a socket: whether an EAGAIN from splice meant an empty
 * socket or a full pipe. */
static int pending(int fd)
{
	int n = 0;
	return ioctl(fd, FIONREAD, &n) == 0 ? n : 0;
}

/* Move what can be moved from one side to the other: -1 on an error that
 * ends the connection, 1 when something moved. */
static int pump(int from, int to, struct half *h)
{
	size_t had = h->off + h->len + h->piped;
	bool eof = h->eof;
	if (!flush_buffer(to, h))
		return -1;
	if (can_read(h)) {
		ssize_t n =
		    splice(from, NULL, h->pipe[1], NULL, CHUNK, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
		if (n > 0)
			h->piped += (size_t)n;
		else if (n == 0)
			h->eof = true;
		else if (errno == EAGAIN)
			/* Bytes that arrived after the splice look the same as a
			 * full pipe; an empty pipe is never full, and taken for one
			 * it would leave the connection watched for nothing. */
			h->full = h->piped > 0 && pending(from) > 0;
		else if (errno != EINTR)
			return -1;
	}
	if (h->piped && h->len == h->off) {
		ssize_t n =
		    splice(h->pipe[0], NULL, to, NULL, h->piped, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
		if (n > 0)
			h->piped -= (size_t)n, h->full = false;
		else if (n < 0 && errno != EAGAIN && errno != EINTR)
			return -1;
	}
	if (h->eof && !has_output(h) && !h->shut) {
		shutdown(to, SHUT_WR);
		h->shut = true;
	}
	return had != h->off + h->len + h->piped || eof != h->eof;
}

/* A few rounds a wake-up: a bulk transfer moves more than one buffer
 * between waits, and one connection still cannot hold the loop long. */
static void tunnel(struct proxy *px, struct conn *c)
{
	for (int round = 0; round < 8; round++) {
		int up = pump(c->client, c->upstream, &c->up);
		int down = up < 0 ? -1 : pump(c->upstream, c->client, &c->down);
		if (down < 0 || (c->up.shut && c->down.shut)) {
			conn_close(px, c);
			return;
		}
		if (!up && !down)
			break;
	}
	watch(px, c);
}

static void accept_one(struct proxy *px)
{
	int fd = accept4(px->listener, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0)
		return;
	struct conn *c = px->nconns < px->max_conns ? calloc(1, sizeof(*c)) : NULL;
	if (!c) {
		static const char busy[] = "HTTP/1.1 503 Service Unavailable\r\nContent-Length: "
		                           "0\r\nConnection: close\r\n\r\n";
		if (write(fd, busy, sizeof(busy) - 1) < 0) {
			/* gone already */
		}
		close(fd);
		return;
	}
	px->nconns++;
	c->client = fd, c->upstream = -1, c->state = S_HEAD;
	c->up.pipe[0] = c->up.pipe[1] = c->down.pipe[0] = c->down.pipe[1] = -1;
	watch(px, c);
}

static void on_event(struct proxy *px, struct epoll_event *ev)
{
	if (ev->data.ptr == px) {
		accept_one(px);
		return;
	}
	uintptr_t tag = (uintptr_t)ev->data.ptr;
	struct conn *c = (struct conn *)(tag & ~(uintptr_t)1);
	if (c->dead)
		return;
	if (ev->events & (EPOLLHUP | EPOLLERR))
		c->hup[tag & 1] = true;
	if (c->state == S_HEAD && !(tag & 1))
		read_head(px, c);
	else if (c->state == S_CONNECTING && (tag & 1))
		connected(px, c);
	else if (c->state == S_TUNNEL)
		tunnel(px, c);
	else if (ev->events & (EPOLLHUP | EPOLLERR))
		conn_close(px, c); /* the client left while we connected */
}

/* --- the process ------------------------------------------------------- */

int proxy_take_listener(int chan)
{
	char data;
	char control[CMSG_SPACE(sizeof(int))];
	struct iovec iov = {.iov_base = &data, .iov_len = 1};
	struct msghdr m = {.msg_iov = &iov,
	                   .msg_iovlen = 1,
	                   .msg_control = control,
	                   .msg_controllen = sizeof(control)};
	ssize_t n = recvmsg(chan, &m, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
	close(chan);
	struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
	if (n != 1 || !cm || cm->cmsg_type != SCM_RIGHTS)
		return -1;
	int fd;
	memcpy(&fd, CMSG_DATA(cm), sizeof(fd));
	return fd;
}

/* Nothing of moat's but the listener and the record: not the terminal,
 * not the caller's output (a `$(moat run ...)` would wait for it). Killed
 * with moat. */
static void become_proxy(int *listener, int *log_fd)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	prctl(PR_SET_DUMPABLE, 0);
	setpgid(0, 0); /* out of the terminal's signals: ^C is the tool's */
	/* moat's handlers (the relay's) write to a pipe closed below, whose
	 * number an accepted socket may take: a `pkill moat` would write a byte
	 * into a tunnel and leave the proxy running. The defaults, before the
	 * signals are let through. */
	for (int sig = 1; sig < NSIG; sig++)
		signal(sig, SIG_DFL);
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_IGN);
	int c = fcntl(*listener, F_DUPFD_CLOEXEC, 100);
	int l = *log_fd >= 0 ? fcntl(*log_fd, F_DUPFD_CLOEXEC, 100) : -1;
	int null = openat(AT_FDCWD, "/dev/null", O_RDWR | O_CLOEXEC);
	for (int fd = 0; fd <= 2; fd++)
		dup2(null, fd);
	*listener = dup3(c, 3, O_CLOEXEC);
	*log_fd = l >= 0 ? dup3(l, 4, O_CLOEXEC) : -1;
	platform_close_from(l >= 0 ? 5 : 4);
}

/* Six descriptors a connection, and a few of its own: the soft limit
 * raised to the hard one, and the connections held to what it allows, so
 * that accept never fails for want of a descriptor (the listener would
 * stay readable, and the loop spin). */
static size_t connections_allowed(void)
{
	struct rlimit r;
	if (getrlimit(RLIMIT_NOFILE, &r) < 0)
		return 64;
	r.rlim_cur = r.rlim_max;
	setrlimit(RLIMIT_NOFILE, &r);
	getrlimit(RLIMIT_NOFILE, &r);
	rlim_t n = r.rlim_cur > 32 ? (r.rlim_cur - 32) / 6 : 1;
	return n < MAX_CONNS ? (size_t)n : MAX_CONNS;
}

static void serve(const struct netpolicy *policy, int listener, int log_fd)
{
	static struct proxy px;
	px = (struct proxy){.policy = policy,
	                    .listener = listener,
	                    .log = log_fd,
	                    .max_conns = connections_allowed()};
	px.epoll = epoll_create1(EPOLL_CLOEXEC);
	if (px.listener < 0 || px.epoll < 0)
		_exit(1);
	fcntl(px.listener, F_SETFL, O_NONBLOCK);
	watch_fd(&px, px.listener, &px, EPOLLIN, EPOLL_CTL_ADD);
	struct epoll_event ev[64];
	for (;;) {
		int n = epoll_wait(px.epoll, ev, ARRAY_LEN(ev), -1);
		if (n < 0 && errno != EINTR)
			_exit(1);
		for (int i = 0; i < n; i++)
			on_event(&px, &ev[i]);
		bury(&px);
	}
}

int proxy_channel(int chan[2])
{
	chan[0] = chan[1] = -1;
	return socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, chan);
}

int proxy_start(const struct netpolicy *policy, int log_fd, int listener, pid_t *pid_out)
{
	pid_t pid = fork();
	if (pid == 0) {
		become_proxy(&listener, &log_fd);
		serve(policy, listener, log_fd);
	}
	if (pid < 0)
		return -1;
	*pid_out = pid;
	return 0;
}

uint16_t proxy_hand_listener(int chan)
{
	uint16_t port = 0;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(a);
	if (fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0 && listen(fd, 512) == 0 &&
	    getsockname(fd, (struct sockaddr *)&a, &len) == 0) {
		char data = 'L';
		char control[CMSG_SPACE(sizeof(int))] = {0};
		struct iovec iov = {.iov_base = &data, .iov_len = 1};
		struct msghdr m = {.msg_iov = &iov,
		                   .msg_iovlen = 1,
		                   .msg_control = control,
		                   .msg_controllen = sizeof(control)};
		struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
		cm->cmsg_level = SOL_SOCKET, cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &fd, sizeof(fd));
		if (sendmsg(chan, &m, 0) == 1)
			port = ntohs(a.sin_port);
	}
	if (fd >= 0)
		close(fd);
	close(chan);
	return port;
}

void proxy_set_env(uint16_t port)
{
	static const char *const names[] = {
	    "HTTP_PROXY",  "HTTPS_PROXY", "ALL_PROXY",        "http_proxy",
	    "https_proxy", "all_proxy",   "npm_config_proxy", "npm_config_https_proxy",
	};
	char url[40];
	snprintf(url, sizeof(url), "http://127.0.0.1:%u", port);
	for (size_t i = 0; i < ARRAY_LEN(names); i++)
		setenv(names[i], url, 1);
	setenv("NO_PROXY", "localhost,127.0.0.1,::1", 1);
	setenv("no_proxy", "localhost,127.0.0.1,::1", 1);
	/* node >= 24 sends fetch() and http through the variables above only
	 * when asked to; older ones ignore it. */
	setenv("NODE_USE_ENV_PROXY", "1", 1);
}
