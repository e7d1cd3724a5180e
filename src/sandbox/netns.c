/* A session's own network namespace, for an off or hosts policy: nothing
 * but a loopback of its own, so a test server and its client inside the
 * session still meet while nothing outside can be reached (for hosts, but
 * through the proxy, whose socket the supervisor makes on that loopback:
 * launch/proxy.c). Made by the session's
 * supervisor, which holds the capabilities of its user namespace (or is
 * root) until the tool's process drops them. */
#include <net/if.h>
#include <sched.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sandbox/sandbox.h"

/* A new namespace's lo is down: bring it up (SIOCSIFFLAGS, as `ip link set
 * lo up` does). A failure leaves the namespace empty all the same. */
static void loopback_up(void)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	struct ifreq ifr;
	memset(&ifr, 0, sizeof(ifr));
	memcpy(ifr.ifr_name, "lo", 3);
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) == 0) {
		ifr.ifr_flags |= IFF_UP;
		ioctl(fd, SIOCSIFFLAGS, &ifr);
	}
	close(fd);
}

void sandbox_own_network(struct profile *p)
{
	if ((p->net.level != NET_OFF && p->net.level != NET_HOSTS) || p->net_own_ns)
		return;
	/* Refused without CAP_SYS_ADMIN over our user namespace (a session
	 * that got none): seccomp and Landlock then refuse IP sockets. */
	if (unshare(CLONE_NEWNET) < 0)
		return;
	loopback_up();
	p->net_own_ns = true;
}
