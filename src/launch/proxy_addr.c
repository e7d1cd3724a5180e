/* Where the hosts policy's proxy never connects (proxy_addr.h): loopback,
 * link-local, the clouds' metadata addresses, multicast, unspecified, and
 * this machine's own addresses, asked of the kernel at each connect. */
#include "launch/proxy_addr.h"

#include <errno.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/util.h"

/* ::ffff:a.b.c.d is a.b.c.d: rewritten in place (the addrinfo's buffer
 * holds a sockaddr_in6, larger) so that it is judged, and connected to,
 * as the IPv4 address it is, whatever the IPv6 rules below say. */
void proxy_unmap_v4(struct addrinfo *a)
{
	if (a->ai_family != AF_INET6)
		return;
	const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)a->ai_addr;
	if (!IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr))
		return;
	struct sockaddr_in s4 = {.sin_family = AF_INET, .sin_port = s6->sin6_port};
	memcpy(&s4.sin_addr, &s6->sin6_addr.s6_addr[12], 4);
	memcpy(a->ai_addr, &s4, sizeof(s4));
	a->ai_family = AF_INET, a->ai_addrlen = sizeof(s4);
}

/* Loopback, unspecified, multicast, broadcast, link-local (the metadata
 * address 169.254.169.254 among them) and the other clouds' metadata
 * addresses: Alibaba's 100.100.100.200 (the one address, not its
 * 100.64.0.0/10: that is carrier-grade NAT space, where Tailscale's
 * hosts live too) and Azure's WireServer 168.63.129.16. Private ranges
 * (10/8, 172.16/12, 192.168/16) stay reachable: a policy's name may
 * resolve there (docs/security.md). */
static bool v4_refused(uint32_t a)
{
	return (a >> 24) == 0 || (a >> 24) == 127 || (a >> 16) == 0xa9fe /* 169.254/16 */ ||
	       (a >> 28) == 0xe /* multicast */ || a == 0xffffffffu ||
	       a == 0x646464c8u /* 100.100.100.200 */ || a == 0xa83f8110u /* 168.63.129.16 */;
}

/* The IPv6 counterparts, and AWS's (fd00:ec2::254) and GCP's (fd20:ce::254)
 * metadata addresses; fc00::/7 otherwise stays reachable. ::a.b.c.d (v4
 * compatible, deprecated since RFC 4291) has no use but to disguise an
 * IPv4 address. v4-mapped ones were unmapped before (proxy_unmap_v4). (The
 * last group, 254, is hexadecimal: bytes 0x02 0x54.) */
static bool v6_refused(const struct in6_addr *a)
{
	static const uint8_t aws[16] = {0xfd, 0x00, 0x0e, 0xc2, [14] = 0x02, [15] = 0x54};
	static const uint8_t gcp[16] = {0xfd, 0x20, 0x00, 0xce, [14] = 0x02, [15] = 0x54};
	return IN6_IS_ADDR_UNSPECIFIED(a) || IN6_IS_ADDR_LOOPBACK(a) || IN6_IS_ADDR_LINKLOCAL(a) ||
	       IN6_IS_ADDR_MULTICAST(a) || IN6_IS_ADDR_V4COMPAT(a) || IN6_IS_ADDR_V4MAPPED(a) ||
	       memcmp(a, aws, 16) == 0 || memcmp(a, gcp, 16) == 0;
}

/* Whether the kernel would deliver a connection to sa here, on this
 * machine: asked per connect (RTM_GETROUTE), so that an address added
 * after the session started (a VPN, a container bridge) counts, and an
 * AnyIP route (`ip route add local 10.9.0.0/16 dev lo`) too, which no
 * list of interface addresses shows. Only a unicast route that leaves
 * the machine is not: a local, broadcast or unanswerable one is (fail
 * closed); no route at all is not, the connect fails anyway. */
static bool addr_is_local(const struct sockaddr *sa)
{
	struct {
		struct nlmsghdr h;
		struct rtmsg r;
		struct rtattr a;
		uint8_t dst[16];
	} q = {.h = {.nlmsg_type = RTM_GETROUTE, .nlmsg_flags = NLM_F_REQUEST},
	       .r = {.rtm_family = (uint8_t)sa->sa_family},
	       .a = {.rta_type = RTA_DST}};
	size_t n = sa->sa_family == AF_INET ? 4 : 16;
	memcpy(q.dst,
	       sa->sa_family == AF_INET
	           ? (const void *)&((const struct sockaddr_in *)sa)->sin_addr
	           : (const void *)&((const struct sockaddr_in6 *)sa)->sin6_addr,
	       n);
	q.r.rtm_dst_len = (uint8_t)(n * 8);
	q.a.rta_len = (unsigned short)RTA_LENGTH(n);
	q.h.nlmsg_len = (uint32_t)NLMSG_LENGTH(sizeof(q.r)) + RTA_ALIGN(q.a.rta_len);
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0)
		return true;
	union {
		struct nlmsghdr h;
		char buf[1024];
	} ans;
	ssize_t got = send(fd, &q, q.h.nlmsg_len, 0) < 0 ? -1 : recv(fd, &ans, sizeof(ans), 0);
	close(fd);
	if (got < (ssize_t)sizeof(ans.h) || !NLMSG_OK(&ans.h, (size_t)got))
		return true;
	if (ans.h.nlmsg_type == NLMSG_ERROR)
		return ((const struct nlmsgerr *)NLMSG_DATA(&ans.h))->error == 0;
	if (ans.h.nlmsg_type != RTM_NEWROUTE ||
	    ans.h.nlmsg_len < NLMSG_LENGTH(sizeof(struct rtmsg)))
		return true;
	return ((const struct rtmsg *)NLMSG_DATA(&ans.h))->rtm_type != RTN_UNICAST;
}

/* What a name an attacker controls could point at to reach the host. */
bool proxy_addr_refused(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return v4_refused(ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr)) ||
		       addr_is_local(sa);
	if (sa->sa_family == AF_INET6)
		return v6_refused(&((const struct sockaddr_in6 *)sa)->sin6_addr) ||
		       addr_is_local(sa);
	return true;
}
