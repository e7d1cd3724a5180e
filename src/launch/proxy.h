/* The hosts policy's proxy: an HTTP proxy that runs outside the sandbox,
 * in the host's network namespace and outside the session's PID
 * namespace, as a child of moat, and accepts on a socket the session's
 * supervisor made inside the session's own network namespace (whose
 * loopback is all the tool has). It allows the
 * policy's hosts and nothing else. See docs/security.md, The network
 * policy. */
#ifndef MOAT_LAUNCH_PROXY_H
#define MOAT_LAUNCH_PROXY_H

#include <stdint.h>
#include <sys/types.h>

#include "profile/netpolicy.h"

/* In moat, before the session's supervisor: the channel the supervisor
 * sends the listening socket on (chan[0], proxy_hand_listener) and moat
 * takes it from (chan[1], proxy_take_listener): the socket pair holds it
 * until then.
 * 0, or -1 with both -1. */
int proxy_channel(int chan[2]);

/* In moat, once the session's tool runs: the listening socket the
 * supervisor sent on chan (already there, so never waited for), or -1;
 * chan is closed. */
int proxy_take_listener(int chan);

/* In moat, at the tool's first connection (listener readable): fork the
 * proxy (*pid), which accepts on listener. log_fd, when not -1, is where
 * it records each refused host (proxy_read_refusals). 0, or -1. */
int proxy_start(const struct netpolicy *policy, int log_fd, int listener, pid_t *pid);

/* In the supervisor, inside the session's network namespace: a listening
 * socket on 127.0.0.1, sent to moat over chan, which this closes. The
 * socket's port, or 0 when it could not be made or sent (no proxy then
 * starts). */
uint16_t proxy_hand_listener(int chan);

/* In the tool's process: HTTP_PROXY and the other variables tools read to
 * use the proxy on port. */
void proxy_set_env(uint16_t port);

/* moat's side, before the session: a file for the proxy's record of
 * refusals, which the tool never has (close-on-exec); 0 when none. */
int proxy_record_open(void);

/* moat's side, after the session: each host:port the proxy refused, once.
 * How many refusals the record had no room for. */
size_t proxy_read_refusals(int log_fd, void (*fn)(const char *host, unsigned port, void *arg),
                           void *arg);

#endif
