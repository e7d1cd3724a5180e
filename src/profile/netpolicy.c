/* The network policy model: parsing one grammar, union, coverage. Pure. */
#include "profile/netpolicy.h"

#include <string.h>

struct netpolicy netpolicy_empty(void)
{
	/* Ports with none listed: what a list holds before its first item. */
	return (struct netpolicy){.level = NET_PORTS};
}

bool netpolicy_is_empty(const struct netpolicy *p)
{
	return p->level == NET_PORTS && p->nconnect == 0 && p->nlisten == 0;
}

const char *netpolicy_level_name(enum net_level level)
{
	return level == NET_OFF ? "off" : level == NET_PORTS ? "ports" : "open";
}

static bool in_list(const uint16_t *v, size_t n, uint16_t port)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == port)
			return true;
	return false;
}

bool netpolicy_has_port(const struct netpolicy *p, bool listen, uint16_t port)
{
	return listen ? in_list(p->listen, p->nlisten, port)
	              : in_list(p->connect, p->nconnect, port);
}

/* Sorted insert, each port once, so two policies compare and print alike. */
static int insert_port(uint16_t *v, size_t *n, uint16_t port)
{
	if (in_list(v, *n, port))
		return 0;
	if (*n == NETPOLICY_MAX_PORTS)
		return -1;
	size_t i = *n;
	while (i > 0 && v[i - 1] > port) {
		v[i] = v[i - 1];
		i--;
	}
	v[i] = port;
	(*n)++;
	return 0;
}

int netpolicy_add_port(struct netpolicy *p, bool listen, uint16_t port)
{
	if (p->level == NET_OPEN)
		return 0;
	p->level = NET_PORTS;
	return listen ? insert_port(p->listen, &p->nlisten, port)
	              : insert_port(p->connect, &p->nconnect, port);
}

/* A port as written: decimal digits only, 1..65535. */
static int parse_port(const char *s, const char *item, uint16_t *out, struct error *err)
{
	unsigned long v = 0;
	size_t n = strspn(s, "0123456789");
	if (n == 0 || s[n] != '\0' || n > 5) {
		error_set(err, "bad network policy item '%s': '%s' is not a port number", item, s);
		error_hint(err,
		           "write a port as a number from 1 to 65535, e.g. 443 or listen:3000");
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		v = v * 10 + (unsigned long)(s[i] - '0');
	if (v == 0 || v > 65535) {
		error_set(err, "bad network policy item '%s': port %lu is out of range", item, v);
		error_hint(err, "a port is a number from 1 to 65535");
		return -1;
	}
	*out = (uint16_t)v;
	return 0;
}

/* Anything with a letter or a dot that is no keyword would name a host:
 * refused until hosts are enforced, never widened to open. */
static int refuse_host(const char *item, struct error *err)
{
	error_set(err, "cannot limit the network to '%s': host lists are not enforced yet", item);
	error_hint(err, "use 'off', or TCP ports: PORT (connect) and listen:PORT, e.g. 443");
	return -1;
}

static int set_level(struct netpolicy *p, enum net_level level, const char *item, struct error *err)
{
	if (netpolicy_is_empty(p) || p->level == level) {
		*p = (struct netpolicy){.level = level};
		return 0;
	}
	error_set(err, "bad network policy: '%s' cannot be combined with other items", item);
	error_hint(err, "give 'off' or 'open' alone, or a list of ports such as 443,listen:3000");
	return -1;
}

int netpolicy_add_item(struct netpolicy *p, const char *item, struct error *err)
{
	if (strcmp(item, "off") == 0 || strcmp(item, "open") == 0)
		return set_level(p, item[1] == 'f' ? NET_OFF : NET_OPEN, item, err);
	if (p->level != NET_PORTS) {
		error_set(err, "bad network policy: '%s' cannot be combined with '%s'", item,
		          netpolicy_level_name(p->level));
		error_hint(err, "give 'off' or 'open' alone, or a list of ports such as 443");
		return -1;
	}
	bool listen = strncmp(item, "listen:", 7) == 0;
	const char *port = listen ? item + 7 : strncmp(item, "connect:", 8) == 0 ? item + 8 : item;
	if (port == item && !*item) {
		error_set(err, "bad network policy: an empty item");
		error_hint(err, "separate items with one comma: 443,listen:3000");
		return -1;
	}
	if (port == item && item[strspn(item, "0123456789")] != '\0')
		return refuse_host(item, err);
	uint16_t v;
	if (parse_port(port, item, &v, err) < 0)
		return -1;
	if (netpolicy_add_port(p, listen, v) < 0) {
		error_set(err,
		          "too many ports in the network policy (at most %d to connect to and "
		          "%d to listen on)",
		          NETPOLICY_MAX_PORTS, NETPOLICY_MAX_PORTS);
		error_hint(err, "a tool that needs that many may need 'open'");
		return -1;
	}
	return 0;
}

int netpolicy_parse(struct netpolicy *p, const char *list, struct error *err)
{
	*p = netpolicy_empty();
	const char *s = list;
	for (;;) {
		size_t n = strcspn(s, ",");
		char *item = xstrndup(s, n);
		int rc = netpolicy_add_item(p, item, err);
		free(item);
		if (rc < 0)
			return -1;
		if (!s[n])
			return 0;
		s += n + 1;
	}
}

bool netpolicy_remove_item(struct netpolicy *p, const struct netpolicy *item)
{
	if (item->level != NET_PORTS) {
		bool had = p->level == item->level;
		if (had)
			*p = netpolicy_empty();
		return had;
	}
	bool had = false;
	for (int listen = 0; listen < 2; listen++) {
		uint16_t *v = listen ? p->listen : p->connect;
		size_t *n = listen ? &p->nlisten : &p->nconnect;
		const uint16_t *drop = listen ? item->listen : item->connect;
		size_t ndrop = listen ? item->nlisten : item->nconnect;
		for (size_t i = 0; i < *n;) {
			if (p->level == NET_PORTS && in_list(drop, ndrop, v[i])) {
				memmove(&v[i], &v[i + 1], (*n - i - 1) * sizeof(*v));
				(*n)--;
				had = true;
			} else {
				i++;
			}
		}
	}
	return had;
}

int netpolicy_union(struct netpolicy *into, const struct netpolicy *add)
{
	if (add->level < into->level || into->level == NET_OPEN)
		return 0;
	if (add->level > into->level) {
		/* off's nothing, or ports under open: nothing of into to keep */
		*into = *add;
		return 0;
	}
	if (into->level != NET_PORTS)
		return 0;
	for (size_t i = 0; i < add->nconnect; i++)
		if (insert_port(into->connect, &into->nconnect, add->connect[i]) < 0)
			goto full;
	for (size_t i = 0; i < add->nlisten; i++)
		if (insert_port(into->listen, &into->nlisten, add->listen[i]) < 0)
			goto full;
	return 0;
full:
	*into = NETPOLICY_OPEN;
	return -1;
}

bool netpolicy_covers(const struct netpolicy *wide, const struct netpolicy *narrow)
{
	if (wide->level == NET_OPEN || narrow->level == NET_OFF)
		return true;
	if (narrow->level == NET_OPEN || wide->level == NET_OFF)
		return false;
	for (size_t i = 0; i < narrow->nconnect; i++)
		if (!in_list(wide->connect, wide->nconnect, narrow->connect[i]))
			return false;
	for (size_t i = 0; i < narrow->nlisten; i++)
		if (!in_list(wide->listen, wide->nlisten, narrow->listen[i]))
			return false;
	return true;
}

void netpolicy_format(struct strbuf *out, const struct netpolicy *p, char sep)
{
	if (p->level != NET_PORTS || netpolicy_is_empty(p)) {
		sb_adds(out, p->level == NET_OPEN ? "open" : "off");
		return;
	}
	for (size_t i = 0; i < p->nconnect; i++)
		sb_addf(out, "%s%u", i ? (char[]){sep, '\0'} : "", p->connect[i]);
	for (size_t i = 0; i < p->nlisten; i++)
		sb_addf(out, "%slisten:%u", i || p->nconnect ? (char[]){sep, '\0'} : "",
		        p->listen[i]);
}
