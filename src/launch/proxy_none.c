/* The hosts policy's proxy where moat has none (macOS): a hosts policy is
 * refused before a session starts (sandbox_net_check), so none of this is
 * reached; it keeps the one session code path building. */
#include "launch/proxy.h"

#include <unistd.h>

int proxy_channel(int chan[2])
{
	chan[0] = chan[1] = -1;
	return -1;
}

int proxy_take_listener(int chan)
{
	close(chan);
	return -1;
}

int proxy_start(const struct netpolicy *policy, int log_fd, int listener, pid_t *pid)
{
	(void)policy, (void)log_fd, (void)listener, (void)pid;
	return -1;
}

uint16_t proxy_hand_listener(int chan)
{
	close(chan);
	return 0;
}

void proxy_set_env(uint16_t port)
{
	(void)port;
}

int proxy_record_open(void)
{
	return 0;
}

size_t proxy_read_refusals(int log_fd, void (*fn)(const char *host, unsigned port, void *arg),
                           void *arg)
{
	(void)log_fd, (void)fn, (void)arg;
	return 0;
}
