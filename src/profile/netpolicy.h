/* The network policy: what a sandboxed tool may reach, as pure data.
 *
 * Three levels, ordered from narrow to wide: off (no network; in a
 * session with a network namespace of its own, its loopback), ports (TCP
 * connect and listen on named ports only, every host alike: Landlock's
 * port rules have no address) and open (the default, as in the seed).
 * Named hosts (the proxy) come later: the syntax has room for them, and
 * netpolicy_parse refuses them until they are enforced.
 *
 * One grammar for every place a policy is written: `moat run --net`,
 * `moat allow --net` and the trace's suggestions. A policy is a list of
 * items separated by commas or given as separate words:
 *   off | open | PORT | connect:PORT | listen:PORT
 * (PORT alone is connect:PORT). config.zon spells the same as
 * `.off = true`, `.open = true`, `.connect = .{ 443 }`, `.listen = .{ 3000 }`. */
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
	NET_OPEN,
};

/* Fixed arrays: the wrapper builds this on every start and must not
 * allocate for it. More ports than this are refused with a hint. */
#define NETPOLICY_MAX_PORTS 32

struct netpolicy {
	enum net_level level;
	uint16_t connect[NETPOLICY_MAX_PORTS]; /* NET_PORTS: sorted, each once */
	size_t nconnect;
	uint16_t listen[NETPOLICY_MAX_PORTS];
	size_t nlisten;
};

/* The default: open. */
#define NETPOLICY_OPEN ((struct netpolicy){.level = NET_OPEN})

/* Add one item ("off", "open", "443", "connect:443", "listen:3000") to p,
 * which starts as netpolicy_empty(). Returns 0, or -1 with err (and a
 * hint) for a malformed item, a port out of range, a host name (not
 * enforced yet), or off/open mixed with ports. */
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

/* into = into ∪ add: open wins over ports wins over off; ports are merged.
 * Returns -1 when the merged port lists would overflow (then into is
 * open: never narrower than asked). */
int netpolicy_union(struct netpolicy *into, const struct netpolicy *add);

/* Does wide allow everything narrow does? */
bool netpolicy_covers(const struct netpolicy *wide, const struct netpolicy *narrow);

/* The policy in the grammar above ("off", "open", "443,listen:3000"), as
 * `moat allow --net BIN` takes it back (with commas as separators). */
void netpolicy_format(struct strbuf *out, const struct netpolicy *p, char sep);

/* "off", "ports", "open". */
const char *netpolicy_level_name(enum net_level level);

/* Is a port in the list? */
bool netpolicy_has_port(const struct netpolicy *p, bool listen, uint16_t port);

#endif
