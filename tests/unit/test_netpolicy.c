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
	    {"example.org", "host lists are not enforced yet"},
	    {"example.org:443", "host lists are not enforced yet"},
	    {"*.example.org", "host lists are not enforced yet"},
	    {"10.0.0.1", "host lists are not enforced yet"},
	    {"https://example.org", "host lists are not enforced yet"},
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
	    {".{ .net = .{ .{ .bin = \"cc\", .hosts = .{ \"example.org\" } } } }",
	     "c.zon:1:39: '.hosts' is not enforced yet"},
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
	sb_release(&out);
}

int main(void)
{
	test_parse();
	test_union();
	test_config();
	test_config_errors();
	test_edit();
	return tap_done();
}
