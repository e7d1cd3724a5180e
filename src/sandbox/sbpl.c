/* The SBPL renderer (see sbpl.h for the mapping) and a reader for its own
 * output, used by the tests to check the rendering against the model. */
#include "sandbox/sbpl.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "base/path.h"

/* ---- rendering ---------------------------------------------------------- */

static bool rule_is_root(const struct profile *p, const struct rule *r)
{
	return r->origin == ORIGIN_ROOT && strcmp(r->path, p->root) == 0;
}

/* The operations that access amounts to on one path. A subpath is a
 * directory, so write means everything under it: file* (create, remove,
 * rename, ...). A literal is a device, so write means its data only: an open
 * for writing, never unlinking or re-moding the node, which is also what a
 * Landlock rule on a file can grant. file* implies neither process-exec nor
 * file-map-executable, so exec always names both. */
static void render_ops(struct strbuf *sb, unsigned access, bool literal)
{
	const char *sep = "";
	if ((access & ACCESS_RW) == ACCESS_RW && !literal) {
		sb_adds(sb, "file*");
		sep = " ";
	} else {
		if (access & ACCESS_READ) {
			sb_adds(sb, "file-read*");
			sep = " ";
		}
		if (access & ACCESS_WRITE) {
			sb_addf(sb, "%s%s", sep, literal ? "file-write-data" : "file-write*");
			sep = " ";
		}
	}
	if (access & ACCESS_IOCTL) {
		sb_addf(sb, "%sfile-ioctl", sep);
		sep = " ";
	}
	if (access & ACCESS_EXEC)
		sb_addf(sb, "%sprocess-exec file-map-executable", sep);
}

/* Rules are grouped by what they grant, broadest first, so the profile reads
 * as a list of levels. A group is (level, literal, ioctl); groups are rendered
 * in index order and rules within one in model order, so the output depends
 * only on the profile. */
static const unsigned level_order[] = {
    ACCESS_ALL,   ACCESS_RX,   ACCESS_RW, ACCESS_READ, ACCESS_WRITE | ACCESS_EXEC,
    ACCESS_WRITE, ACCESS_EXEC, 0,
};

#define NGROUPS (ARRAY_LEN(level_order) * 4)

static size_t group_of(const struct rule *r)
{
	size_t rank = ARRAY_LEN(level_order) - 1;
	for (size_t i = 0; i < ARRAY_LEN(level_order); i++) {
		if ((r->access & ACCESS_ALL) == level_order[i]) {
			rank = i;
			break;
		}
	}
	return rank * 4 + (profile_rule_is_file(r) ? 2 : 0) + ((r->access & ACCESS_IOCTL) ? 1 : 0);
}

/* A name from config.zon in a comment: a newline would end the comment and
 * let the rest be read as SBPL, so control characters become '?'. */
static void add_comment_text(struct strbuf *sb, const char *s)
{
	for (const unsigned char *c = (const unsigned char *)s; *c; c++)
		sb_addc(sb, (*c < 0x20 || *c == 0x7f) ? '?' : (char)*c);
}

static void render_rule_comment(struct strbuf *sb, const struct rule *r)
{
	sb_addf(sb, " ; %s", origin_name(r->origin));
	if (r->origin == ORIGIN_GRANT && r->bin) {
		if (strcmp(r->bin, "*") == 0) {
			sb_adds(sb, " for every binary");
		} else {
			sb_adds(sb, " for ");
			add_comment_text(sb, r->bin);
		}
	}
}

static void render_group(struct strbuf *sb, const struct profile *p, size_t group)
{
	size_t count = 0, last = 0;
	for (size_t i = 0; i < p->nrules; i++) {
		const struct rule *r = &p->rules[i];
		if (!rule_is_root(p, r) && (r->access & (ACCESS_ALL | ACCESS_IOCTL)) &&
		    group_of(r) == group) {
			count++;
			last = i;
		}
	}
	if (count == 0)
		return;

	const struct rule *first = NULL;
	for (size_t i = 0; i <= last; i++) {
		const struct rule *r = &p->rules[i];
		if (rule_is_root(p, r) || !(r->access & (ACCESS_ALL | ACCESS_IOCTL)) ||
		    group_of(r) != group)
			continue;
		/* The model does not say whether a path is a file or a
		 * directory. Devices and terminals are files by construction,
		 * so they get (literal ...); every other rule gets (subpath
		 * ...), which also matches a file of exactly that name (nothing
		 * can lie beneath a file), so it is right for both. */
		bool literal = profile_rule_is_file(r);
		if (!first) {
			first = r;
			sb_addf(sb, "\n; %s%s, %s\n(allow ", access_name(r->access),
			        (r->access & ACCESS_IOCTL) ? " + ioctl" : "",
			        literal ? "these files only" : "each path and everything under it");
			render_ops(sb, r->access, literal);
			sb_addc(sb, '\n');
		}
		sb_addf(sb, "\t(%s \"%s\")%s", literal ? "literal" : "subpath", r->path,
		        i == last ? ")" : "");
		render_rule_comment(sb, r);
		sb_addc(sb, '\n');
	}
}

/* path for an error message: control characters shown as escapes, so that
 * the message cannot rewrite the terminal it is printed on. */
static void add_shown_path(struct strbuf *sb, const char *path)
{
	for (const unsigned char *c = (const unsigned char *)path; *c; c++) {
		if (*c == '\n')
			sb_adds(sb, "\\n");
		else if (*c == '\t')
			sb_adds(sb, "\\t");
		else if (*c < 0x20 || *c == 0x7f)
			sb_addf(sb, "\\x%02x", *c);
		else
			sb_addc(sb, (char)*c);
	}
}

/* SBPL strings cannot carry quotes, backslashes or control characters
 * safely, and the sandbox compares canonical paths, so a relative path, a
 * ".." or "." component or a stray slash would compile to a rule that
 * silently matches nothing. */
static int check_path(const char *what, const char *path, struct error *err)
{
	const char *why = path_refusal(path);
	cleanup_free char *normal = NULL;
	if (!why) {
		normal = path_normalize(path);
		if (strcmp(normal, path) != 0)
			why = "it is not in normal form (a '.' component, a repeated or trailing "
			      "slash)";
	}
	if (!why)
		return 0;
	struct strbuf shown = STRBUF_INIT;
	add_shown_path(&shown, path);
	error_set(err, "cannot render the %s path '%s' as SBPL: %s", what, sb_str(&shown), why);
	error_hint(err,
	           "sandbox rules need canonical absolute paths without quotes, backslashes or "
	           "control characters");
	sb_release(&shown);
	return -1;
}

static int check_paths(const struct profile *p, struct error *err)
{
	if (!p->root)
		return error_set(err, "cannot render a profile without a root as SBPL");
	if (check_path("root", p->root, err) < 0)
		return -1;
	for (size_t i = 0; i < p->nrules; i++)
		if (check_path(origin_name(p->rules[i].origin), p->rules[i].path, err) < 0)
			return -1;
	for (size_t i = 0; i < p->njailbreaks; i++)
		if (check_path("jailbreak", p->jailbreaks[i], err) < 0)
			return -1;
	return 0;
}

static void render_header(struct strbuf *sb, const struct profile *p)
{
	sb_adds(sb,
	        "; moat sandbox profile for macOS (Seatbelt), rendered from the profile model.\n"
	        "; The compiler is given these parameters:\n");
	struct sbpl_param params[SBPL_MAX_PARAMS];
	size_t n = sbpl_params(p, params);
	for (size_t i = 0; i < n; i++)
		sb_addf(sb, ";   %s=%s\n", params[i].name, params[i].value);
	sb_adds(sb, "; To try it by hand: sandbox-exec -D " SBPL_ROOT_PARAM
	            "=<root> -f <this file> <command>\n");
	if (p->platform == PLATFORM_LINUX)
		sb_adds(
		    sb,
		    "; Note: this profile was built for Linux; its system paths are Linux's.\n");
	sb_adds(sb,
	        "(version 1)\n"
	        "(deny default)\n"
	        "; dyld, sysctl and mach-lookup plumbing; it grants no data reads under /Users\n"
	        "(import \"bsd.sb\")\n"
	        "\n"
	        "; processes may fork, and signal only processes in this sandbox\n"
	        "(allow process-fork)\n"
	        "(allow signal (target same-sandbox))\n"
	        "(allow sysctl-read)\n");
}

static void render_root(struct strbuf *sb, const struct profile *p)
{
	for (size_t i = 0; i < p->nrules; i++) {
		const struct rule *r = &p->rules[i];
		if (!rule_is_root(p, r) || !(r->access & (ACCESS_ALL | ACCESS_IOCTL)))
			continue;
		sb_addf(sb, "\n; the project root: %s%s\n(allow ", access_name(r->access),
		        (r->access & ACCESS_EXEC) ? ", so what is built there runs" : "");
		render_ops(sb, r->access, false);
		sb_adds(sb, " (subpath (param \"" SBPL_ROOT_PARAM "\")))\n");
	}
}

/* Seatbelt denies network* by default; open allows it all, ports their
 * TCP ports on every host (as Landlock: no address), off nothing. Seatbelt
 * has no network namespace, so off denies localhost too (docs/macos.md). */
static void render_network(struct strbuf *sb, const struct netpolicy *n, uint16_t proxy_port)
{
	if (n->level == NET_OPEN) {
		sb_adds(sb, "\n; network: open by design; the sandbox limits what can be read, "
		            "not where it is sent\n(allow network*)\n");
		return;
	}
	if (n->level == NET_OFF) {
		sb_adds(sb, "\n; network: off\n(deny network*)\n");
		return;
	}
	if (n->level == NET_HOSTS) {
		/* Seatbelt names no host: only the proxy's port can be allowed
		 * (docs/macos.md), once a session has one. */
		sb_adds(sb, "\n; network: named hosts only, judged by moat's proxy on localhost\n");
		if (proxy_port)
			sb_addf(sb, "(allow network-outbound (remote tcp \"localhost:%u\"))\n",
			        proxy_port);
		else
			sb_adds(sb, "; (the proxy's port is chosen when a session starts)\n");
		return;
	}
	sb_adds(sb, "\n; network: TCP ports only, to and on any host\n");
	for (size_t i = 0; i < n->nconnect; i++)
		sb_addf(sb, "(allow network-outbound (remote tcp \"*:%u\"))\n", n->connect[i]);
	for (size_t i = 0; i < n->nlisten; i++)
		sb_addf(sb,
		        "(allow network-bind (local tcp \"*:%u\"))\n"
		        "(allow network-inbound (local tcp \"*:%u\"))\n",
		        n->listen[i], n->listen[i]);
}

int sbpl_render(const struct profile *p, struct strbuf *out, struct error *err)
{
	if (check_paths(p, err) < 0)
		return -1;

	struct strbuf sb = STRBUF_INIT;
	render_header(&sb, p);
	render_root(&sb, p);
	for (size_t g = 0; g < NGROUPS; g++)
		render_group(&sb, p, g);
	render_network(&sb, &p->net, p->net_proxy_port);
	if (p->njailbreaks)
		sb_adds(&sb, "\n; jailbreaks: these binaries, and everything they run, are not "
		             "sandboxed at all\n");
	for (size_t i = 0; i < p->njailbreaks; i++)
		sb_addf(&sb, "(allow process-exec (literal \"%s\") (with no-sandbox))\n",
		        p->jailbreaks[i]);

	sb_add(out, sb.buf, sb.len);
	sb_release(&sb);
	return 0;
}

size_t sbpl_params(const struct profile *p, struct sbpl_param params[SBPL_MAX_PARAMS])
{
	if (!p->root)
		return 0;
	params[0] = (struct sbpl_param){SBPL_ROOT_PARAM, p->root};
	return 1;
}

/* ---- compile errors ----------------------------------------------------- */

static unsigned number_at(const char *s)
{
	if (*s < '0' || *s > '9')
		return 0;
	char *end;
	unsigned long n = strtoul(s, &end, 10);
	return n > UINT_MAX ? 0 : (unsigned)n;
}

unsigned sbpl_error_line(const char *message)
{
	static const char *const markers[] = {", line ", "<input string>:"};
	for (size_t i = 0; i < ARRAY_LEN(markers); i++) {
		const char *at = strstr(message, markers[i]);
		if (at)
			return number_at(at + strlen(markers[i]));
	}
	return 0;
}

char *sbpl_line(const char *text, unsigned n)
{
	if (n == 0)
		return NULL;
	for (unsigned line = 1; line < n; line++) {
		text = strchr(text, '\n');
		if (!text)
			return NULL;
		text++;
	}
	if (*text == '\0')
		return NULL;
	return xstrndup(text, strcspn(text, "\n"));
}
