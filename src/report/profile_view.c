#include "report/profile_view.h"

#include <string.h>

#include "report/json.h"

/* "network  off|ports|open  why": ports listed as `moat allow --net`
 * takes them. */
static void add_network(struct strbuf *out, const struct netpolicy *n, int width)
{
	struct strbuf what = STRBUF_INIT;
	if (n->level == NET_PORTS || n->level == NET_HOSTS)
		netpolicy_format(&what, n, ',');
	else
		sb_adds(&what, n->level == NET_OPEN
		                   ? "by design, unless config.zon's .net or --net "
		                     "narrows it"
		                   : "no network (a session: its own loopback)");
	sb_addf(out, "%-*s %-16s %s\n", width, "network", netpolicy_level_name(n->level), what.buf);
	sb_release(&what);
}

static void json_ports(struct json *j, const char *key, const uint16_t *v, size_t n)
{
	json_begin_array(j, key);
	for (size_t i = 0; i < n; i++)
		json_int(j, NULL, v[i]);
	json_end_array(j);
}

static void json_host(const char *item, void *j)
{
	json_string(j, NULL, item);
}

static void json_network(struct json *j, const struct netpolicy *n)
{
	json_string(j, "network", netpolicy_level_name(n->level));
	json_ports(j, "network_connect", n->connect, n->level == NET_PORTS ? n->nconnect : 0);
	json_ports(j, "network_listen", n->listen, n->level == NET_PORTS ? n->nlisten : 0);
	json_begin_array(j, "network_hosts");
	netpolicy_each_host(n, json_host, j);
	json_end_array(j);
}

/* What a jailbreak listed here does. `moat profile` shows what moat run and
 * moat shell apply: inside them Landlock cannot be lifted, so the binary
 * runs confined; only its wrapper, started outside a session, runs it
 * unsandboxed. */
static const char jailbreak_here[] = "confined in moat run and moat shell; unsandboxed when its "
                                     "wrapper runs outside a session";

static void add_shown(struct strbuf *out, const char *s, bool utf8)
{
	visible_add(out, s, strlen(s), utf8);
}

/* "%-*s " for a name shown safely: the padding counts what is shown. */
static void add_padded(struct strbuf *out, const char *s, int width, bool utf8)
{
	size_t before = out->len;
	add_shown(out, s, utf8);
	for (size_t n = out->len - before; n < (size_t)width; n++)
		sb_addc(out, ' ');
	sb_addc(out, ' ');
}

/* The path column's width: the longest path as shown, at least 40, so
 * that one long path does not push its row's access and origin out of
 * line with every other row's. */
static int path_width(const struct profile *p, bool utf8)
{
	size_t width = 40;
	struct strbuf shown = STRBUF_INIT;
	for (size_t i = 0; i < p->nrules + p->njailbreaks; i++) {
		sb_reset(&shown);
		add_shown(&shown, i < p->nrules ? p->rules[i].path : p->jailbreaks[i - p->nrules],
		          utf8);
		if (shown.len > width)
			width = shown.len;
	}
	sb_release(&shown);
	return (int)width;
}

static const char *isolation_text(bool isolated)
{
	return isolated
	           ? "own PID, mount and IPC namespaces: a /proc of its own, private /tmp, "
	             "/var/tmp and /dev/shm, protected paths read-only"
	           : "none here (nested in a session, user namespaces off, or root without "
	             "CAP_SYS_ADMIN): the host's /tmp, /var/tmp and /dev/shm stay denied, System V "
	             "IPC is shared, protected paths are not read-only";
}

/* "secrets removed: A, B": names only, never a value. */
static void add_names(struct strbuf *out, const char *what, const struct name_list *l, bool utf8)
{
	if (!l->n)
		return;
	sb_addf(out, "secrets %s: ", what);
	for (size_t i = 0; i < l->n; i++) {
		if (i)
			sb_adds(out, ", ");
		add_shown(out, l->v[i], utf8);
	}
	sb_addc(out, '\n');
}

static void add_secrets_text(struct strbuf *out, const struct profile *p, bool utf8)
{
	add_names(out, "removed", &p->secrets_removed, utf8);
	add_names(out, "passed", &p->secrets_passed, utf8);
	if (!p->secrets_removed.n && !p->secrets_passed.n)
		sb_adds(out, "secrets: none in the environment\n");
}

static void json_names(struct json *j, const char *key, const struct name_list *l)
{
	json_begin_array(j, key);
	for (size_t i = 0; i < l->n; i++)
		json_string(j, NULL, l->v[i]);
	json_end_array(j);
}

void profile_render_text(const struct profile *p, const struct profile_facts *f, struct strbuf *out)
{
	bool utf8 = visible_utf8_locale();
	int width = path_width(p, utf8);
	for (size_t i = 0; i < p->nrules; i++) {
		const struct rule *r = &p->rules[i];
		add_padded(out, r->path, width, utf8);
		sb_addf(out, "%-16s ", access_name(r->access));
		if (r->origin == ORIGIN_GRANT) {
			sb_adds(out, "grant for ");
			add_shown(out, r->bin ? r->bin : "*", utf8);
		} else {
			sb_adds(out, origin_name(r->origin));
		}
		if (!f->absent || !f->absent[i])
			sb_adds(out, "\n");
		else if (f->to_make && f->to_make[i])
			sb_adds(out, " (absent, made when the session starts)\n");
		else
			sb_adds(out, " (absent, no rule)\n");
	}
	for (size_t i = 0; i < p->njailbreaks; i++) {
		add_padded(out, p->jailbreaks[i], width, utf8);
		sb_addf(out, "%-16s %s\n", "jailbreak", jailbreak_here);
	}
	add_network(out, &p->net, width);
	for (size_t i = 0; i < p->nenv; i++) {
		sb_adds(out, "env ");
		add_shown(out, p->env[i].name, utf8);
		sb_addc(out, '=');
		add_shown(out, p->env[i].value ? p->env[i].value : "(unset)", utf8);
		sb_addc(out, '\n');
	}
	add_secrets_text(out, p, utf8);
	if (f->socket_warning)
		sb_addf(out, "unix sockets: all reachable: %s\n", f->socket_warning);
	else if (f->abi < 9)
		sb_adds(
		    out,
		    "unix sockets: new AF_UNIX sockets refused (Landlock ABI < 9 cannot confine "
		    "them by path); socketpair and pipes work\n");
	else
		sb_adds(out,
		        "unix sockets: only those under the root, write grants and .sockets in "
		        "config.zon\n");
	sb_addf(out, "isolation: %s\n", isolation_text(f->isolated));
	sb_addf(out, "ipc: %s\n",
	        f->isolated ? "private /dev/shm and System V IPC (own namespaces)"
	                    : "/dev/shm denied, System V IPC shared with your processes");
	sb_adds(out, "terminal: its own pseudo-terminal, relayed to yours\n");
	sb_addf(out, "kernel: Landlock ABI %d\n", f->abi);
	sb_addf(out, "not enforced: %s\n", f->not_enforced[0] ? f->not_enforced : "nothing");
}

void json_access(struct json *j, const char *key, unsigned access)
{
	static const struct {
		unsigned bit;
		const char *name;
	} names[] = {
	    {ACCESS_READ, "read"},   {ACCESS_WRITE, "write"},     {ACCESS_EXEC, "exec"},
	    {ACCESS_IOCTL, "ioctl"}, {ACCESS_CONNECT, "connect"},
	};
	json_begin_array(j, key);
	for (size_t i = 0; i < ARRAY_LEN(names); i++)
		if (access & names[i].bit)
			json_string(j, NULL, names[i].name);
	json_end_array(j);
}

static const char *sockets_state(const struct profile_facts *f)
{
	if (f->socket_warning)
		return "all"; /* listed, and this kernel cannot tell one from another */
	return f->abi < 9 ? "none" : "by-path";
}

void profile_render_json(const struct profile *p, const struct profile_facts *f, struct strbuf *out)
{
	struct json j = {.out = out};
	json_begin_object(&j, NULL);
	json_int(&j, "version", MOAT_JSON_VERSION);
	json_string(&j, "kind", "profile");
	json_string(&j, "platform", p->platform == PLATFORM_MACOS ? "macos" : "linux");
	json_string(&j, "root", p->root);
	json_begin_array(&j, "rules");
	for (size_t i = 0; i < p->nrules; i++) {
		const struct rule *r = &p->rules[i];
		json_begin_object(&j, NULL);
		json_string(&j, "path", r->path);
		json_access(&j, "access", r->access);
		json_string(&j, "origin", origin_name(r->origin));
		json_string(&j, "bin", r->origin == ORIGIN_GRANT ? (r->bin ? r->bin : "*") : NULL);
		json_bool(&j, "exists", !(f->absent && f->absent[i]));
		json_end_object(&j);
	}
	json_end_array(&j);
	json_begin_array(&j, "jailbreaks");
	for (size_t i = 0; i < p->njailbreaks; i++) {
		json_begin_object(&j, NULL);
		json_string(&j, "path", p->jailbreaks[i]);
		json_string(&j, "in_session", "confined");
		json_string(&j, "wrapper_outside_session", "unsandboxed");
		json_end_object(&j);
	}
	json_end_array(&j);
	json_begin_array(&j, "env");
	for (size_t i = 0; i < p->nenv; i++) {
		json_begin_object(&j, NULL);
		json_string(&j, "name", p->env[i].name);
		json_string(&j, "value", p->env[i].value);
		json_end_object(&j);
	}
	json_end_array(&j);
	json_begin_object(&j, "secrets");
	json_names(&j, "removed", &p->secrets_removed);
	json_names(&j, "passed", &p->secrets_passed);
	json_end_object(&j);
	json_network(&j, &p->net);
	json_string(&j, "unix_sockets", sockets_state(f));
	json_string(&j, "isolation", f->isolated ? "namespaces" : "none");
	json_string(&j, "ipc", f->isolated ? "private" : "unavailable");
	json_string(&j, "terminal", "own");
	json_begin_object(&j, "kernel");
	json_int(&j, "landlock_abi", f->abi);
	json_string(&j, "not_enforced", f->not_enforced[0] ? f->not_enforced : NULL);
	json_end_object(&j);
	json_end_object(&j);
	sb_addc(out, '\n');
}
