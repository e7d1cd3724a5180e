/* The network policy: its one grammar, union, coverage, and config.zon's
 * .net rules (profile/netpolicy.c, config/config.c). */
#include <string.h>

#include "config/config.h"
#include "profile/netpolicy.h"
#include "tap.h"

static char *fmt(const struct netpolicy *p)
{
	struct strbuf sb = STRBUF_INIT;
	netpolicy_format(&sb, p, ',');
	return sb_detach(&sb);
}

static void test_parse(void)
{
	static const struct {
		const char *in, *want;
	} good[] = {
	    {"off", "off"},
	    {"open", "open"},
	    {"443", "443"},
	    {"connect:443", "443"},
	    {"8080,443,443", "443,8080"},
	    {"listen:3000,22", "22,listen:3000"},
	    {"1,65535", "1,65535"},
	    {"example.org", "example.org"},
	    {"Registry.NPMjs.org,*.GitHub.com:443", "registry.npmjs.org,*.github.com:443"},
	    {"example.org.,example.org", "example.org"},
	    {"localhost:8080", "localhost:8080"},
	    {"a-b_c.example", "a-b_c.example"},
	    {"1password.com", "1password.com"},
	};
	for (size_t i = 0; i < ARRAY_LEN(good); i++) {
		struct netpolicy p;
		struct error err = {0};
		int rc = netpolicy_parse(&p, good[i].in, &err);
		char *got = fmt(&p);
		CHECK(rc == 0, "'%s' parses", good[i].in);
		CHECK_STR(got, good[i].want, "and reads back");
		free(got);
	}
	static const struct {
		const char *in, *msg;
	} bad[] = {
	    {"", "an empty item"},
	    {"443,", "an empty item"},
	    {"0", "out of range"},
	    {"65536", "out of range"},
	    {"99999999999", "not a port number"},
	    {"listen:", "not a port number"},
	    {"connect:-1", "not a port number"},
	    {"off,443", "cannot be combined"},
	    {"443,open", "cannot be combined"},
	    {"https://example.org", "a URL where a host name belongs"},
	    {"example.org/path", "a path where a host name belongs"},
	    {"example.org:0", "out of range"},
	    {"example.org:65536", "out of range"},
	    {"example.org:http", "not a port number"},
	    {"10.0.0.1", "an IP address where a host name belongs"},
	    {"10.0.0.1:443", "an IP address where a host name belongs"},
	    {"::1", "an IP address where a host name belongs"},
	    {"[::1]:443", "an IP address where a host name belongs"},
	    {"*", "not a host name"},
	    {"*.", "not a host name"},
	    {"a..b", "not a host name"},
	    {"-a.org", "not a host name"},
	    {"a-.org", "not a host name"},
	    {"ex ample.org", "not a host name"},
	    {"example.org,443", "cannot be combined with 'hosts'"},
	    {"443,example.org", "cannot be combined with 'ports'"},
	    {"off,example.org", "cannot be combined"},
	    {"example.org,open", "cannot be combined"},
	};
	for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
		struct netpolicy p;
		struct error err = {0};
		CHECK(netpolicy_parse(&p, bad[i].in, &err) < 0 && strstr(err.msg, bad[i].msg) &&
		          err.hint[0],
		      "'%s' is refused: %s (got '%s')", bad[i].in, bad[i].msg, err.msg);
	}
}

static struct netpolicy parsed(const char *s)
{
	struct netpolicy p;
	struct error err = {0};
	netpolicy_parse(&p, s, &err);
	return p;
}

static void test_union(void)
{
	static const struct {
		const char *a, *b, *want;
	} cases[] = {
	    {"off", "off", "off"},
	    {"off", "443", "443"},
	    {"443", "off", "443"},
	    {"443", "open", "open"},
	    {"open", "443", "open"},
	    {"off", "open", "open"},
	    {"443,listen:80", "22,443", "22,443,listen:80"},
	    {"off", "a.org", "a.org"},
	    {"443", "a.org", "a.org"},
	    {"a.org", "443", "a.org"},
	    {"a.org", "open", "open"},
	    {"a.org,b.org", "b.org,*.c.org:8443", "a.org,b.org,*.c.org:8443"},
	};
	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		struct netpolicy a = parsed(cases[i].a), b = parsed(cases[i].b);
		netpolicy_union(&a, &b);
		char *got = fmt(&a);
		CHECK_STR(got, cases[i].want, "union");
		free(got);
	}
	struct netpolicy full = netpolicy_empty(), more = netpolicy_empty();
	for (uint16_t p = 1; p <= NETPOLICY_MAX_PORTS; p++)
		netpolicy_add_port(&full, false, p);
	netpolicy_add_port(&more, false, 1000);
	CHECK(netpolicy_union(&full, &more) < 0 && full.level == NET_OPEN,
	      "a union that overflows is open, never narrower");
	struct netpolicy p = parsed("443,8080,listen:3000"), drop = parsed("8080");
	CHECK(netpolicy_remove_item(&p, &drop) && p.nconnect == 1 && p.connect[0] == 443,
	      "removing a port keeps the rest");
	struct netpolicy off = parsed("off"), item = parsed("off");
	CHECK(netpolicy_remove_item(&off, &item) && netpolicy_is_empty(&off), "removing off");
	struct netpolicy h = parsed("a.org,b.org"), hdrop = parsed("a.org");
	char *left = (netpolicy_remove_item(&h, &hdrop), fmt(&h));
	CHECK_STR(left, "b.org", "removing a host keeps the rest");
	free(left);
	struct netpolicy many = netpolicy_empty();
	struct error err = {0};
	char name[32];
	for (int i = 0; i < NETPOLICY_MAX_HOSTS; i++) {
		snprintf(name, sizeof(name), "h%d.example", i);
		netpolicy_add_item(&many, name, &err);
	}
	CHECK(netpolicy_add_item(&many, "one-more.example", &err) < 0 && err.hint[0],
	      "too many hosts are refused with a hint");
	struct netpolicy one = parsed("one-more.example");
	CHECK(netpolicy_union(&many, &one) < 0 && many.level == NET_OPEN,
	      "a union of hosts that overflows is open, never narrower");
}

static void test_covers(void)
{
	static const struct {
		const char *wide, *narrow;
		bool covers;
	} cases[] = {
	    {"a.org,b.org", "b.org", true},
	    {"a.org", "a.org,b.org", false}, /* a new host asks again */
	    {"a.org", "443", false},         /* hosts to ports: any host on 443 */
	    {"443", "a.org", false},         /* ports to hosts */
	    {"off", "a.org", false},         /* off to anything */
	    {"a.org", "off", true},
	    {"open", "a.org", true},
	    {"a.org", "open", false},
	    {"*.a.org", "x.a.org", false}, /* as written: asked again */
	};
	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		struct netpolicy w = parsed(cases[i].wide), n = parsed(cases[i].narrow);
		CHECK(netpolicy_covers(&w, &n) == cases[i].covers, "'%s' %s '%s'", cases[i].wide,
		      cases[i].covers ? "covers" : "does not cover", cases[i].narrow);
	}
}

static void test_allows_host(void)
{
	struct netpolicy p = parsed("registry.npmjs.org,*.github.com,localhost:8080");
	static const struct {
		const char *host;
		uint16_t port;
		bool allowed;
	} cases[] = {
	    {"registry.npmjs.org", 443, true},
	    {"registry.npmjs.org", 80, true},
	    {"REGISTRY.npmjs.org.", 443, true},
	    {"registry.npmjs.org", 8443, false},
	    {"npmjs.org", 443, false},
	    {"evil-registry.npmjs.org", 443, false},
	    {"registry.npmjs.org.evil.com", 443, false},
	    {"api.github.com", 443, true},
	    {"a.b.github.com", 443, true},
	    {"github.com", 443, false}, /* *.x is below x only */
	    {"evilgithub.com", 443, false},
	    {"localhost", 8080, true},
	    {"localhost", 443, false},
	};
	for (size_t i = 0; i < ARRAY_LEN(cases); i++)
		CHECK(netpolicy_allows_host(&p, cases[i].host, cases[i].port) == cases[i].allowed,
		      "%s:%u is %s", cases[i].host, cases[i].port,
		      cases[i].allowed ? "allowed" : "refused");
	struct netpolicy ports = parsed("443");
	CHECK(!netpolicy_allows_host(&ports, "a.org", 443), "a ports policy names no host");
}

static const char *cfg_text =
    ".{ .net = .{\n"
    "    .{ .bin = \"*\", .off = true },\n"
    "    .{ .bin = \"npm\", .connect = .{ 443 } },\n"
    "    .{ .bin = \"vite\", .listen = .{ 5173 }, .dirs = .{ \"/src/web\" } },\n"
    "    .{ .bin = \"curl\", .open = true },\n"
    "} }\n";

static char *policy_for(const struct config *cfg, const char *bin, const char *root)
{
	struct netpolicy p;
	config_net_policy(cfg, bin, root, "/home/u", &p);
	return fmt(&p);
}

static void test_config(void)
{
	struct config cfg;
	struct error err = {0};
	CHECK(config_parse(cfg_text, strlen(cfg_text), "c.zon", &cfg, &err) == 0, "config parses");
	static const struct {
		const char *bin, *root, *want;
	} cases[] = {
	    {"cc", "/p", "off"},    {"npm", "/p", "443"},
	    {"vite", "/p", "off"},  {"vite", "/src/web/app", "listen:5173"},
	    {"curl", "/p", "open"}, {NULL, "/p", "open"},
	};
	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		char *got = policy_for(&cfg, cases[i].bin, cases[i].root);
		CHECK_STR(got, cases[i].want, cases[i].bin ? cases[i].bin : "a session");
		free(got);
	}
	config_free(&cfg);
	const char *some = ".{ .net = .{ .{ .bin = \"cc\", .off = true } } }";
	config_parse(some, strlen(some), "c.zon", &cfg, &err);
	char *got = policy_for(&cfg, NULL, "/p");
	CHECK_STR(got, "open", "a session with no \"*\" rule is open: it runs unlisted tools");
	free(got);
	got = policy_for(&cfg, "make", "/p");
	CHECK_STR(got, "open", "a tool no rule names is open");
	free(got);
	config_free(&cfg);
	const char *star = ".{ .net = .{ .{ .bin = \"*\", .off = true }, "
	                   ".{ .bin = \"npm\", .connect = .{ 443 } } } }";
	config_parse(star, strlen(star), "c.zon", &cfg, &err);
	got = policy_for(&cfg, NULL, "/p");
	CHECK_STR(got, "443", "a session gets the union of every rule");
	free(got);
	config_free(&cfg);
	const char *hosts =
	    ".{ .net = .{ .{ .bin = \"*\", .hosts = .{ \"a.org\" } }, "
	    ".{ .bin = \"npm\", .hosts = .{ \"registry.npmjs.org\", \"*.b.org:8443\" } }, "
	    ".{ .bin = \"psql\", .connect = .{ 5432 } } } }";
	CHECK(config_parse(hosts, strlen(hosts), "c.zon", &cfg, &err) == 0, ".hosts parses");
	got = policy_for(&cfg, "npm", "/p");
	CHECK_STR(got, "a.org,registry.npmjs.org,*.b.org:8443", "npm: \"*\"'s hosts and its own");
	free(got);
	got = policy_for(&cfg, NULL, "/p");
	CHECK_STR(got, "a.org,registry.npmjs.org,*.b.org:8443",
	          "a session: hosts win over ports, and the hosts merge");
	free(got);
	config_free(&cfg);
}

static void test_config_errors(void)
{
	static const struct {
		const char *text, *msg;
	} bad[] = {
	    {".{ .net = .{ .{ .bin = \"cc\" } } }", "c.zon:1:14: a net rule needs exactly one"},
	    {".{ .net = .{ .{ .bin = \"cc\", .off = true, .open = true } } }", "exactly one"},
	    {".{ .net = .{ .{ .bin = \"cc\", .off = true, .connect = .{ 1 } } } }", "exactly one"},
	    {".{ .net = .{ .{ .bin = \"cc\",\n .connect = .{ 443, 70000 } } } }",
	     "c.zon:2:21: port 70000 in '.connect' is out of range"},
	    {".{ .net = .{ .{ .bin = \"cc\", .listen = .{ 0 } } } }", "out of range"},
	    {".{ .net = .{ .{ .bin = \"cc\", .connect = .{ \"443\" } } } }",
	     "expected a port number"},
	    {".{ .net = .{ .{ .bin = \"cc\", .connect = .{} } } }", "is empty"},
	    {".{ .net = .{ .{ .bin = \"cc\", .hosts = .{ \"https://example.org\" } } } }",
	     "c.zon:1:42: bad network policy item 'https://example.org': a URL"},
	    {".{ .net = .{ .{ .bin = \"cc\",\n .hosts = .{ \"a.org\", \"10.1.2.3\" } } } }",
	     "c.zon:2:23: bad network policy item '10.1.2.3': an IP address"},
	    {".{ .net = .{ .{ .bin = \"cc\", .hosts = .{ \"a.org:99999\" } } } }", "out of range"},
	    {".{ .net = .{ .{ .bin = \"cc\", .hosts = .{ \"443\" } } } }", "is a port, not a host"},
	    {".{ .net = .{ .{ .bin = \"cc\", .hosts = .{ 443 } } } }", "expected a host name"},
	    {".{ .net = .{ .{ .bin = \"cc\", .hosts = .{} } } }", "'.hosts' is empty"},
	    {".{ .net = .{ .{ .bin = \"cc\", .hosts = .{ \"a.org\" }, .connect = .{ 1 } } } }",
	     "exactly one"},
	    {".{ .net = .{ .{ .bin = \"cc\", .off = true, .port = 1 } } }", "unknown key '.port'"},
	    {".{ .net = .{ .{ .off = true } } }", "net rule without '.bin'"},
	    {".{ .net = .{ .{ .bin = \"cc\", .off = true, .dirs = .{ \"rel\" } } } }",
	     "not an absolute path"},
	};
	for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
		struct config cfg;
		struct error err = {0};
		CHECK(config_parse(bad[i].text, strlen(bad[i].text), "c.zon", &cfg, &err) < 0 &&
		          strstr(err.msg, bad[i].msg),
		      "refused: %s (got '%s')", bad[i].msg, err.msg);
	}
}

static void test_edit(void)
{
	struct strbuf out = STRBUF_INIT;
	struct error err = {0};
	struct netpolicy p = parsed("443");
	const char *start =
	    ".{\n    .net = .{ .{ .bin = \"npm\", .off = true }, .{ .bin = \"npm\", "
	    ".open = true } },\n}\n";
	CHECK(config_edit_net(start, strlen(start), "c.zon", "npm", &p, &out, &err) == 1,
	      "an edit of npm's policy");
	CHECK(strstr(out.buf, ".{ .bin = \"npm\", .connect = .{ 443 } }") &&
	          !strstr(out.buf, ".open"),
	      "rewrites the first rule and drops the second");
	struct strbuf again = STRBUF_INIT;
	CHECK(config_edit_net(out.buf, out.len, "c.zon", "npm", &p, &again, &err) == 0,
	      "the same policy again changes nothing");
	struct netpolicy none = netpolicy_empty();
	CHECK(config_edit_net(out.buf, out.len, "c.zon", "npm", &none, &again, &err) == 1 &&
	          !strstr(again.buf, "npm"),
	      "an empty policy removes the rule");
	sb_release(&again);
	CHECK(config_edit_net("", 0, "c.zon", "cc", &p, &again, &err) == 1 &&
	          strstr(again.buf, ".net = .{"),
	      "a new file gets a .net list");
	sb_release(&again);
	struct netpolicy h = parsed("registry.npmjs.org,*.b.org:8443");
	CHECK(
	    config_edit_net("", 0, "c.zon", "npm", &h, &again, &err) == 1 &&
	        strstr(
	            again.buf,
	            ".{ .bin = \"npm\", .hosts = .{ \"registry.npmjs.org\", \"*.b.org:8443\" } }"),
	    "hosts are written as .hosts");
	struct config cfg;
	CHECK(config_parse(again.buf, again.len, "c.zon", &cfg, &err) == 0 && cfg.nnet == 1 &&
	          netpolicy_covers(&cfg.net[0].policy, &h) &&
	          netpolicy_covers(&h, &cfg.net[0].policy),
	      "and read back as written");
	config_free(&cfg);
	sb_release(&again);
	sb_release(&out);
}

int main(void)
{
	test_parse();
	test_union();
	test_covers();
	test_allows_host();
	test_config();
	test_config_errors();
	test_edit();
	return tap_done();
}
