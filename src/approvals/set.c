/* Access sets and the confirm summary: pure. */
#include <stdio.h>
#include <string.h>

#include "approvals/approvals.h"
#include "base/path.h"

static void add_item(struct access_set *set, enum access_item_kind kind, unsigned access,
                     const char *path)
{
	set->items = xrealloc_array(set->items, set->n + 1, sizeof(*set->items));
	set->items[set->n++] = (struct access_item){kind, access, xstrdup(path)};
}

static void add_host_item(const char *item, void *set)
{
	char one[NETPOLICY_HOST_MAX + 16];
	snprintf(one, sizeof(one), "host:%s", item);
	add_item(set, ITEM_NET, 0, one);
}

/* One item per port or host, so that a new one asks again and a dropped
 * one does not; a level's name for the rest (ports or hosts after off is
 * new, as is open after anything). */
static void add_net_items(struct access_set *set, const struct netpolicy *n)
{
	if (n->level == NET_HOSTS) {
		netpolicy_each_host(n, add_host_item, set);
		return;
	}
	if (n->level != NET_PORTS) {
		add_item(set, ITEM_NET, 0, netpolicy_level_name(n->level));
		return;
	}
	char item[24];
	for (size_t i = 0; i < n->nconnect; i++) {
		snprintf(item, sizeof(item), "connect:%u", n->connect[i]);
		add_item(set, ITEM_NET, 0, item);
	}
	for (size_t i = 0; i < n->nlisten; i++) {
		snprintf(item, sizeof(item), "listen:%u", n->listen[i]);
		add_item(set, ITEM_NET, 0, item);
	}
}

void access_set_from_profile(struct access_set *set, const struct profile *p, const char *home_seen)
{
	*set = (struct access_set){0};
	add_item(set, ITEM_HOME, 0, home_seen);
	/* A linked git work tree's rules widen access beyond the root as a
	 * grant does, and are asked about as one. */
	for (size_t i = 0; i < p->nrules; i++)
		if (p->rules[i].origin == ORIGIN_GRANT || p->rules[i].origin == ORIGIN_GIT)
			add_item(set, ITEM_GRANT, p->rules[i].access & ACCESS_ALL,
			         p->rules[i].path);
	/* By the right, not the origin: a socket listed on a granted path
	 * shares the grant's rule. */
	for (size_t i = 0; i < p->nrules; i++)
		if (p->rules[i].access & ACCESS_CONNECT)
			add_item(set, ITEM_SOCKET, ACCESS_CONNECT, p->rules[i].path);
	for (size_t i = 0; i < p->njailbreaks; i++)
		add_item(set, ITEM_JAILBREAK, 0, p->jailbreaks[i]);
	for (size_t i = 0; i < p->secrets_passed.n; i++)
		add_item(set, ITEM_SECRET, 0, p->secrets_passed.v[i]);
	add_net_items(set, &p->net);
}

void access_set_free(struct access_set *set)
{
	for (size_t i = 0; i < set->n; i++)
		free(set->items[i].path);
	free(set->items);
	*set = (struct access_set){0};
}

static bool item_covered(const struct access_set *approved, const struct access_item *want)
{
	for (size_t i = 0; i < approved->n; i++) {
		const struct access_item *a = &approved->items[i];
		if (a->kind != want->kind)
			continue;
		/* A socket rule on a directory reaches the sockets below it. */
		if (want->kind == ITEM_GRANT || want->kind == ITEM_SOCKET) {
			if (path_is_under(want->path, a->path) && !(want->access & ~a->access))
				return true;
		} else if (strcmp(a->path, want->path) == 0) {
			return true;
		}
	}
	return false;
}

/* off widens nothing; a port is covered by itself or open; open by open.
 * An approval holding no network item predates the policy: it was given
 * with the network open. */
static bool net_item_covered(const struct access_set *approved, const struct access_item *want)
{
	bool any = false;
	if (strcmp(want->path, "off") == 0)
		return true;
	for (size_t i = 0; i < approved->n; i++) {
		const struct access_item *a = &approved->items[i];
		if (a->kind != ITEM_NET)
			continue;
		any = true;
		if (strcmp(a->path, "open") == 0 || strcmp(a->path, want->path) == 0)
			return true;
	}
	return !any;
}

bool access_set_covers(const struct access_set *approved, const struct access_set *wanted)
{
	for (size_t i = 0; i < wanted->n; i++)
		if (wanted->items[i].kind == ITEM_NET
		        ? !net_item_covered(approved, &wanted->items[i])
		        : !item_covered(approved, &wanted->items[i]))
			return false;
	return true;
}

/* "  LABEL            PATH", the path shown safely. */
static void add_line(struct strbuf *out, const char *label, const char *path, const char *after)
{
	sb_addf(out, "  %-16s ", label);
	visible_add(out, path, strlen(path), visible_utf8_locale());
	sb_addf(out, "%s\n", after);
}

void confirm_summary(struct strbuf *out, const char *bin, const struct profile *p,
                     const struct access_set *set, const struct confirm_notes *notes)
{
	bool utf8 = visible_utf8_locale(), sockets = false;
	sb_adds(out, "moat: about to run ");
	visible_add(out, bin, strlen(bin), utf8);
	sb_adds(out, " in ");
	visible_add(out, p->root, strlen(p->root), utf8);
	sb_addc(out, '\n');
	add_line(out, "read/write/exec", p->root, "");
	for (size_t i = 0; i < set->n; i++) {
		const struct access_item *it = &set->items[i];
		if (it->kind == ITEM_HOME)
			add_line(out, access_name(profile_access_at(p, it->path) & ACCESS_ALL),
			         it->path, "  HOME");
		else if (it->kind == ITEM_GRANT)
			add_line(out, access_name(it->access), it->path, "");
		else if (it->kind == ITEM_SOCKET)
			add_line(out, "connect", it->path, ""), sockets = true;
		else if (it->kind == ITEM_SECRET)
			add_line(out, "secret", it->path, "  passed from your environment");
		else if (it->kind == ITEM_NET)
			continue; /* the network line below says it whole */
		else if (notes->session)
			add_line(out, "jailbreak", it->path,
			         "  not in this session: runs confined here (unsandboxed only "
			         "through its wrapper outside moat run and moat shell)");
		else
			add_line(out, "jailbreak", it->path, "  UNSANDBOXED");
	}
	int abi = notes->sockets_unconfined_abi;
	if (sockets && abi)
		sb_addf(out,
		        "  %-16s every pathname unix socket%s: Landlock ABI %d cannot confine them "
		        "by path\n",
		        "connect", abi < 6 ? " and abstract socket" : "", abi);
	struct strbuf net = STRBUF_INIT;
	if (p->net.level == NET_OPEN)
		sb_adds(&net, "allowed");
	else if (p->net.level == NET_PORTS)
		sb_adds(&net, "TCP ports only: ");
	else if (p->net.level == NET_HOSTS)
		sb_adds(&net, "these hosts only, through moat's proxy: ");
	else
		sb_adds(&net, "off");
	if (p->net.level == NET_PORTS || p->net.level == NET_HOSTS)
		netpolicy_format(&net, &p->net, ',');
	sb_addf(out, "  %-16s %s\n", "network", net.buf);
	sb_release(&net);
	/* The system's directories are readable too (moat profile lists
	 * them): the last line must not claim that nothing else is. */
	sb_adds(out, "nothing else is readable but system directories (/usr, /etc, ...)");
	if (sockets && abi)
		sb_adds(out, ", and any unix socket can be connected to (the ssh-agent's, D-Bus, "
		             "docker.sock)");
	else if (sockets)
		sb_adds(out, "; no other socket can be connected to");
	sb_addc(out, '\n');
}
