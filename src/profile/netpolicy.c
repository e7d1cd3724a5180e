/* The network policy model: parsing one grammar, union, coverage. Pure. */
#include "profile/netpolicy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct netpolicy netpolicy_empty(void)
{
	/* Ports with none listed: what a list holds before its first item. */
	return (struct netpolicy){.level = NET_PORTS};
}

bool netpolicy_is_empty(const struct netpolicy *p)
{
	return (p->level == NET_PORTS && p->nconnect == 0 && p->nlisten == 0) ||
	       (p->level == NET_HOSTS && p->nhosts == 0);
}

const char *netpolicy_level_name(enum net_level level)
{
	static const char *const names[] = {"off", "ports", "hosts", "open"};
	return names[level];
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

/* The hosts list's items, one at a time: each is the text up to the
 * next comma. */
static const char *next_host(const char *s, size_t *len)
{
	if (!*s)
		return NULL;
	*len = strcspn(s, ",");
	return s;
}

static bool has_host(const struct netpolicy *p, const char *item, size_t n)
{
	size_t len;
	for (const char *h = p->hosts; (h = next_host(h, &len)); h += len + (h[len] == ','))
		if (len == n && memcmp(h, item, n) == 0)
			return true;
	return false;
}

/* Append a canonical item once; -1 when the list is full. */
static int insert_host(struct netpolicy *p, const char *item, size_t n)
{
	if (has_host(p, item, n))
		return 0;
	size_t used = strlen(p->hosts);
	if (p->nhosts == NETPOLICY_MAX_HOSTS || used + n + 2 > sizeof(p->hosts))
		return -1;
	if (used)
		p->hosts[used++] = ',';
	memcpy(p->hosts + used, item, n);
	p->hosts[used + n] = '\0';
	p->nhosts++;
	return 0;
}

void netpolicy_each_host(const struct netpolicy *p, void (*fn)(const char *item, void *arg),
                         void *arg)
{
	char one[NETPOLICY_HOST_MAX + 8];
	size_t len;
	for (const char *h = p->hosts; (h = next_host(h, &len)); h += len + (h[len] == ',')) {
		if (len >= sizeof(one))
			continue; /* never stored */
		memcpy(one, h, len);
		one[len] = '\0';
		fn(one, arg);
	}
}

static int bad_host(struct error *err, const char *item, const char *why, const char *hint)
{
	error_set(err, "bad network policy item '%s': %s", item, why);
	error_hint(err, "%s", hint);
	return -1;
}

/* A name as DNS spells it: labels of letters, digits, '-' and '_', 1 to 63
 * long, not starting or ending with '-'; all digits in the last label
 * would make it an IPv4 address. */
static int check_name(const char *name, size_t n, const char *item, struct error *err)
{
	static const char hint[] = "name a host, e.g. registry.npmjs.org or *.github.com:443";
	if (n == 0 || n > NETPOLICY_HOST_MAX)
		return bad_host(err, item, "not a host name", hint);
	size_t label = 0;
	bool digits_only = true;
	for (size_t i = 0; i <= n; i++) {
		char c = i < n ? name[i] : '.';
		if (c == '.') {
			if (label == 0 || label > 63 || name[i - 1] == '-' ||
			    name[i - label] == '-')
				return bad_host(err, item, "not a host name", hint);
			if (i < n)
				label = 0, digits_only = true;
			continue;
		}
		bool digit = c >= '0' && c <= '9';
		if (!digit && !(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z') && c != '-' &&
		    c != '_')
			return bad_host(err, item, "not a host name", hint);
		digits_only &= digit;
		label++;
	}
	if (digits_only)
		return bad_host(err, item,
		                "an IP address where a host name belongs: the proxy judges names, "
		                "and a tool that connects to an address directly has no route",
		                "name the host (e.g. registry.npmjs.org), or use 'open'");
	return 0;
}

/* HOST[:PORT], HOST a name or *.name: refused with a hint for what people
 * paste by mistake (a URL, a path, an address). */
static int add_host(struct netpolicy *p, const char *item, struct error *err)
{
	if (strstr(item, "://"))
		return bad_host(err, item, "a URL where a host name belongs",
		                "write the host alone, e.g. registry.npmjs.org (a port as :8443)");
	if (strchr(item, '/'))
		return bad_host(err, item, "a path where a host name belongs",
		                "the proxy judges hosts, not paths: write the host alone");
	if (strchr(item, '[') || strchr(item, ':') != strrchr(item, ':'))
		return bad_host(err, item,
		                "an IP address where a host name belongs: the proxy judges names",
		                "name the host (e.g. registry.npmjs.org), or use 'open'");
	const char *colon = strchr(item, ':');
	size_t n = colon ? (size_t)(colon - item) : strlen(item);
	uint16_t port = 0;
	if (colon && parse_port(colon + 1, item, &port, err) < 0)
		return -1;
	const char *name = item;
	if (strncmp(name, "*.", 2) == 0)
		name += 2, n -= 2;
	if (n && name[n - 1] == '.')
		n--; /* the root's dot: example.org. is example.org */
	if (check_name(name, n, item, err) < 0)
		return -1;
	char canon[NETPOLICY_HOST_MAX + 8];
	int len = snprintf(canon, sizeof(canon), "%s%.*s", name != item ? "*." : "", (int)n, name);
	for (int i = 0; i < len; i++)
		if (canon[i] >= 'A' && canon[i] <= 'Z')
			canon[i] = (char)(canon[i] - 'A' + 'a');
	if (port)
		len += snprintf(canon + len, sizeof(canon) - (size_t)len, ":%u", port);
	p->level = NET_HOSTS;
	if (insert_host(p, canon, (size_t)len) < 0) {
		error_set(err, "too many hosts in the network policy (at most %d, %d bytes)",
		          NETPOLICY_MAX_HOSTS, NETPOLICY_HOSTS_LEN);
		error_hint(err, "name a parent domain once, e.g. *.example.org, or use 'open'");
		return -1;
	}
	return 0;
}

/* Does name (n bytes) equal or, for a "*." pattern, lie below pattern? */
static bool name_matches(const char *pattern, size_t plen, const char *name, size_t n)
{
	if (plen > 2 && pattern[0] == '*' && pattern[1] == '.') {
		plen -= 1; /* ".example.org": a suffix, after at least one label */
		pattern += 1;
		return n > plen && strncasecmp(name + n - plen, pattern, plen) == 0;
	}
	return n == plen && strncasecmp(name, pattern, n) == 0;
}

bool netpolicy_allows_host(const struct netpolicy *p, const char *host, uint16_t port)
{
	if (p->level == NET_OPEN)
		return true;
	if (p->level != NET_HOSTS)
		return false;
	size_t n = strlen(host);
	if (n && host[n - 1] == '.')
		n--;
	size_t len;
	for (const char *h = p->hosts; (h = next_host(h, &len)); h += len + (h[len] == ',')) {
		const char *colon = memchr(h, ':', len);
		size_t plen = colon ? (size_t)(colon - h) : len;
		unsigned want = colon ? (unsigned)strtoul(colon + 1, NULL, 10) : 0;
		bool port_ok = want ? port == want : port == 80 || port == 443;
		if (port_ok && name_matches(h, plen, host, n))
			return true;
	}
	return false;
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

/* A host item: anything but a keyword, a port or connect:/listen:PORT. */
static bool is_host_item(const char *item)
{
	return strncmp(item, "listen:", 7) != 0 && strncmp(item, "connect:", 8) != 0 &&
	       item[strspn(item, "0123456789")] != '\0';
}

static int refuse_mix(const struct netpolicy *p, const char *item, struct error *err)
{
	error_set(err, "bad network policy: '%s' cannot be combined with '%s'", item,
	          netpolicy_level_name(p->level));
	error_hint(err, "give 'off' or 'open' alone, a list of ports such as 443,listen:3000, "
	                "or a list of hosts such as example.org,*.github.com");
	return -1;
}

int netpolicy_add_item(struct netpolicy *p, const char *item, struct error *err)
{
	if (strcmp(item, "off") == 0 || strcmp(item, "open") == 0)
		return set_level(p, item[1] == 'f' ? NET_OFF : NET_OPEN, item, err);
	if (!*item) {
		error_set(err, "bad network policy: an empty item");
		error_hint(err, "separate items with one comma: 443,listen:3000");
		return -1;
	}
	bool host = is_host_item(item);
	if (!netpolicy_is_empty(p) && p->level != (host ? NET_HOSTS : NET_PORTS))
		return refuse_mix(p, item, err);
	if (host)
		return add_host(p, item, err);
	bool listen = strncmp(item, "listen:", 7) == 0;
	const char *port = listen ? item + 7 : strncmp(item, "connect:", 8) == 0 ? item + 8 : item;
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

/* Take item's hosts out of p. */
static bool remove_hosts(struct netpolicy *p, const struct netpolicy *item)
{
	struct netpolicy kept = {.level = NET_HOSTS};
	size_t len;
	for (const char *h = p->hosts; (h = next_host(h, &len)); h += len + (h[len] == ','))
		if (!has_host(item, h, len))
			insert_host(&kept, h, len);
	bool had = kept.nhosts != p->nhosts;
	*p = kept;
	return had;
}

bool netpolicy_remove_item(struct netpolicy *p, const struct netpolicy *item)
{
	if (item->level == NET_HOSTS)
		return p->level == NET_HOSTS && remove_hosts(p, item);
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
	if (into->level == NET_HOSTS) {
		size_t len;
		for (const char *h = add->hosts; (h = next_host(h, &len));
		     h += len + (h[len] == ','))
			if (insert_host(into, h, len) < 0)
				goto full;
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
	if (wide->level != narrow->level)
		return netpolicy_is_empty(narrow);
	if (narrow->level == NET_HOSTS) {
		/* Item by item, as written: a new item asks again. */
		size_t len;
		for (const char *h = narrow->hosts; (h = next_host(h, &len));
		     h += len + (h[len] == ','))
			if (!has_host(wide, h, len))
				return false;
		return true;
	}
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
	if (p->level == NET_HOSTS && p->nhosts) {
		for (const char *h = p->hosts; *h; h++)
			sb_addc(out, *h == ',' ? sep : *h);
		return;
	}
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
