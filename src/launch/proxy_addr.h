/* Where the hosts policy's proxy never connects, whatever name led there:
 * loopback, link-local, the clouds' metadata addresses, multicast,
 * unspecified, v4-compatible IPv6, and this machine's own addresses (the
 * kernel is asked at each connect, so an address added during the session
 * counts too). Linux only, as the proxy. */
#ifndef MOAT_LAUNCH_PROXY_ADDR_H
#define MOAT_LAUNCH_PROXY_ADDR_H

#include <netdb.h>
#include <stdbool.h>

/* ::ffff:a.b.c.d becomes a.b.c.d, in place, so that it is judged and
 * connected to as the IPv4 address it is. */
void proxy_unmap_v4(struct addrinfo *a);

/* Is sa a destination the proxy refuses? (After proxy_unmap_v4.) */
bool proxy_addr_refused(const struct sockaddr *sa);

#endif
