/* The network policy: what a sandboxed tool may reach, as pure data.
 *
 * Four levels, ordered from narrow to wide: off (no network; in a
 * session with a network namespace of its own, its loopback), ports (TCP
 * connect and listen on named ports only, every host alike: Landlock's
 * port rules have no address), hosts (named hosts only, through moat's
 * proxy: a session alone can have one) and open (the default, as in the
 * seed). A union takes the wider level: ports joined with hosts is hosts,
 * and the ports are dropped (the proxy speaks HTTP, which a tool that
 * needs a bare TCP port does not).
 *
 * One grammar for every place a policy is written: `moat run --net`,
 * `moat allow --net` and the trace's suggestions. A policy is a list of
 * items separated by commas or given as separate words:
 *   off | open | PORT | connect:PORT | listen:PORT | HOST[:PORT]
 * (PORT alone is connect:PORT; HOST is a name such as example.org, or
 * *.example.org for its subdomains; without :PORT it means ports 80 and
 * 443). Ports and hosts do not mix in one policy. config.zon spells the
 * same as `.off = true`, `.open = true`, `.connect = .{ 443 }`,
 * `.listen = .{ 3000 }`, `.hosts = .{ "example.org", "*.example.org:8443" }`. */
#ifndef MOAT_PROFILE_NETPOLICY_H
#define MOAT_PROFILE_NETPOLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/strbuf.h"
#include "base/util.h"

/* Ordered: the union of two policies is the wider level. */
enum net_level {
	NET_OFF,
	NET_PORTS,
	NET_HOSTS,
	NET_OPEN,
};

/* Fixed arrays: the wrapper builds this on every start and must not
 * allocate for it. More ports than this are refused with a hint. */
#define NETPOLICY_MAX_PORTS 32
/* Hosts: at most this many, kept as one comma list in a fixed buffer. */
#define NETPOLICY_MAX_HOSTS 32
#define NETPOLICY_HOSTS_LEN 2048
/* A DNS name's longest text form. */
#define NETPOLICY_HOST_MAX 253

struct netpolicy {
	enum net_level level;
	uint16_t connect[NETPOLICY_MAX_PORTS]; /* NET_PORTS: sorted, each once */
	size_t nconnect;
	uint16_t listen[NETPOLICY_MAX_PORTS];
	size_t nlisten;
	/* NET_HOSTS: "example.org,*.example.org:8443", each item once, in
	 * lower case, in the order first given */
	char hosts[NETPOLICY_HOSTS_LEN];
	size_t nhosts;
};

/* The default: open. */
#define NETPOLICY_OPEN ((struct netpolicy){.level = NET_OPEN})

/* Add one item ("off", "open", "443", "connect:443", "listen:3000",
 * "example.org", "*.example.org:8443") to p, which starts as
 * netpolicy_empty(). Returns 0, or -1 with err (and a hint) for a
 * malformed item, a port out of range, a host with a scheme or a path, an
 * IP address where a host name belongs, or off/open mixed with others,
 * or ports mixed with hosts. */
int netpolicy_add_item(struct netpolicy *p, const char *item, struct error *err);

/* A policy being parsed: no item yet. */
struct netpolicy netpolicy_empty(void);

/* Parse a whole list: items separated by commas (one word of argv). An
 * empty list is an error. */
int netpolicy_parse(struct netpolicy *p, const char *list, struct error *err);

/* Is p still empty (no item was added)? */
bool netpolicy_is_empty(const struct netpolicy *p);

/* Add a port as connect (listen false) or listen; 0 when added or there
 * already, -1 when the list is full. Makes p a ports policy unless it is
 * open. */
int netpolicy_add_port(struct netpolicy *p, bool listen, uint16_t port);

/* Take item's port (or level) out of p; true when p held it. Used by
 * `moat allow -r --net`. */
bool netpolicy_remove_item(struct netpolicy *p, const struct netpolicy *item);

/* into = into ∪ add: the wider level wins (open, hosts, ports, off);
 * ports or hosts of one level are merged. Returns -1 when the merged lists
 * would overflow (then into is open: never narrower than asked). */
int netpolicy_union(struct netpolicy *into, const struct netpolicy *add);

/* Does wide allow everything narrow does? */
bool netpolicy_covers(const struct netpolicy *wide, const struct netpolicy *narrow);

/* The policy in the grammar above ("off", "open", "443,listen:3000"), as
 * `moat allow --net BIN` takes it back (with commas as separators). */
void netpolicy_format(struct strbuf *out, const struct netpolicy *p, char sep);

/* "off", "ports", "hosts", "open". */
const char *netpolicy_level_name(enum net_level level);

/* Is a port in the list? */
bool netpolicy_has_port(const struct netpolicy *p, bool listen, uint16_t port);

/* Does the hosts policy p allow host (a name, any case) on port? An item
 * without a port allows 80 and 443; "*.example.org" allows every name
 * below example.org, not example.org itself. */
bool netpolicy_allows_host(const struct netpolicy *p, const char *host, uint16_t port);

/* Call fn for each host item of p ("example.org:8443"), in order. */
void netpolicy_each_host(const struct netpolicy *p, void (*fn)(const char *item, void *arg),
                         void *arg);

#endif
