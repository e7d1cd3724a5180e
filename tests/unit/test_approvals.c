/* Access sets, widening, and the approvals store's format. */
#include <stdlib.h>
#include <string.h>

#include "approvals/approvals.h"
#include "tap.h"

static void set_of(struct access_set *s, const char *home, const char *const *grants,
                   const unsigned *levels, size_t n, const char *jailbreak)
{
	*s = (struct access_set){0};
	struct profile p = {0};
	p.root = (char *)"/home/u/proj";
	for (size_t i = 0; i < n; i++)
		profile_add_rule(&p, grants[i], levels[i], ORIGIN_GRANT, "x");
	if (jailbreak) {
		char *jb = (char *)jailbreak;
		p.jailbreaks = &jb;
		p.njailbreaks = 1;
		access_set_from_profile(s, &p, home);
		p.jailbreaks = NULL;
		p.njailbreaks = 0;
	} else {
		access_set_from_profile(s, &p, home);
	}
	p.root = NULL;
	profile_free(&p);
}

static void test_covers(void)
{
	static const char *const one[] = {"/home/u/.npm"};
	static const char *const parent[] = {"/home/u/.cache"};
	static const char *const child[] = {"/home/u/.cache/zig"};
	static const unsigned r[] = {ACCESS_READ}, rw[] = {ACCESS_RW};
	struct access_set a, b;

	set_of(&a, "/home/u", one, r, 1, NULL);
	set_of(&b, "/home/u", one, r, 1, NULL);
	CHECK(access_set_covers(&a, &b), "the same set is covered");
	access_set_free(&b);
	set_of(&b, "/home/u", NULL, NULL, 0, NULL);
	CHECK(access_set_covers(&a, &b), "a narrower set (no grant) is covered");
	CHECK(!access_set_covers(&b, &a), "a new grant is a widening");
	access_set_free(&b);
	set_of(&b, "/home/u", one, rw, 1, NULL);
	CHECK(!access_set_covers(&a, &b), "a wider level is a widening");
	access_set_free(&b);
	set_of(&b, "/home/u/proj/.moat/home", one, r, 1, NULL);
	CHECK(!access_set_covers(&a, &b), "another HOME is a change");
	access_set_free(&b);
	set_of(&b, "/home/u", one, r, 1, "/usr/bin/git");
	CHECK(!access_set_covers(&a, &b), "a new jailbreak is a widening");
	access_set_free(&b);
	access_set_free(&a);

	set_of(&a, "/home/u", parent, rw, 1, NULL);
	set_of(&b, "/home/u", child, r, 1, NULL);
	CHECK(access_set_covers(&a, &b),
	      "a path under an approved one, at a lower level, is covered");
	CHECK(!access_set_covers(&b, &a), "the parent is not covered by the child");
	access_set_free(&a);
	access_set_free(&b);
}

static void test_store_roundtrip(void)
{
	const char text[] =
	    "# a comment\n"
	    "approval\t1700000000\t/home/u/proj\tnpm\thome=/home/u\tgrant:rw=/home/u/.npm"
	    "\tjailbreak=/usr/bin/git\n"
	    "garbage\n"
	    "approval\tsoon\t/x\tnpm\n"
	    "approval\t1\t/x\tnpm\tgrant:rwz=/y\n"
	    "approval\t1\trelative\tnpm\n";
	struct approval_store st;
	size_t damaged;
	approvals_parse(text, sizeof(text) - 1, &st, &damaged);
	CHECK(st.n == 1, "one good approval");
	CHECK(damaged == 4, "four damaged lines (comments do not count): %zu", damaged);
	CHECK(st.nforeign == 5, "damaged lines and the comment are kept");
	if (st.n == 1) {
		CHECK_STR(st.approvals[0].root, "/home/u/proj", "root");
		CHECK(st.approvals[0].set.n == 3, "three items");
		CHECK(st.approvals[0].set.items[1].access == ACCESS_RW, "grant level");
	}
	char *out = approvals_format(&st);
	CHECK(strstr(out, "garbage\n") && strstr(out, "# a comment\n"),
	      "format keeps what it did not understand");
	CHECK(strstr(out,
	             "approval\t1700000000\t/home/u/proj\tnpm\thome=/home/u\tgrant:rw=/home/u/.npm"
	             "\tjailbreak=/usr/bin/git\n") != NULL,
	      "format writes the approval back unchanged");
	struct access_set s;
	static const char *const npm[] = {"/home/u/.npm"};
	static const unsigned r[] = {ACCESS_READ};
	set_of(&s, "/home/u", npm, r, 1, NULL);
	CHECK(approvals_covers(&st, "/home/u/proj", "npm", &s),
	      "the stored set covers a narrower one");
	CHECK(!approvals_covers(&st, "/home/u/proj", "pip", &s), "another binary is not approved");
	CHECK(!approvals_covers(&st, "/home/u/other", "npm", &s), "another root is not approved");
	approvals_add(&st, "/home/u/proj", "npm", 5, &s);
	CHECK(st.n == 1, "a new answer replaces the old one for the same pair");
	CHECK(approvals_forget(&st, "/home/u/other") == 0, "forgetting another root drops nothing");
	CHECK(approvals_forget(&st, NULL) == 1, "forgetting all drops everything");
	access_set_free(&s);
	free(out);
	approvals_free(&st);
}

static void test_sockets(void)
{
	struct profile p = {0};
	p.root = (char *)"/home/u/proj";
	struct access_set none, one, two;
	access_set_from_profile(&none, &p, "/home/u");
	profile_add_rule(&p, "/run/user/1/agent.sock", ACCESS_CONNECT, ORIGIN_SOCKET, NULL);
	access_set_from_profile(&one, &p, "/home/u");
	CHECK(one.n == 3 && one.items[1].kind == ITEM_SOCKET,
	      "a listed socket is in the access set");
	CHECK(!access_set_covers(&none, &one), "adding a socket is a widening: it asks again");
	CHECK(access_set_covers(&one, &none), "dropping it is not");
	profile_add_rule(&p, "/home/u/.ssh/agent.sock", ACCESS_CONNECT, ORIGIN_SOCKET, NULL);
	access_set_from_profile(&two, &p, "/home/u");
	CHECK(!access_set_covers(&one, &two), "a second socket asks again");
	access_set_free(&two);
	/* A socket listed on a granted path shares the grant's rule. */
	profile_add_rule(&p, "/home/u/.cache/run", ACCESS_READ, ORIGIN_GRANT, "x");
	profile_add_rule(&p, "/home/u/.cache/run", ACCESS_CONNECT, ORIGIN_SOCKET, NULL);
	access_set_from_profile(&two, &p, "/home/u");
	bool grant = false, socket = false;
	for (size_t i = 0; i < two.n; i++) {
		grant |= two.items[i].kind == ITEM_GRANT &&
		         strcmp(two.items[i].path, "/home/u/.cache/run") == 0;
		socket |= two.items[i].kind == ITEM_SOCKET &&
		          strcmp(two.items[i].path, "/home/u/.cache/run") == 0;
	}
	CHECK(socket,
	      "a socket on a granted path is still a socket item (the right, not the origin)");
	(void)grant;

	/* The store: socket= round-trips; an old line (no sockets) still parses. */
	struct approval_store st = {0};
	approvals_add(&st, "/home/u/proj", "npm", 7, &one);
	char *text = approvals_format(&st);
	CHECK(strstr(text, "\tsocket=/run/user/1/agent.sock\tnet=off\n") != NULL,
	      "the store writes socket=PATH");
	struct approval_store back;
	size_t damaged;
	approvals_parse(text, strlen(text), &back, &damaged);
	CHECK(back.n == 1 && damaged == 0, "and reads it back");
	CHECK(approvals_covers(&back, "/home/u/proj", "npm", &one),
	      "the read-back approval covers the socket");
	approvals_free(&back);
	const char old[] = "approval\t1700000000\t/home/u/proj\tnpm\thome=/home/u\n";
	approvals_parse(old, sizeof(old) - 1, &back, &damaged);
	CHECK(back.n == 1 && damaged == 0, "a store written before sockets parses");
	CHECK(approvals_covers(&back, "/home/u/proj", "npm", &none),
	      "and still approves the set without sockets");
	CHECK(!approvals_covers(&back, "/home/u/proj", "npm", &one),
	      "but not one that lists a socket");
	approvals_free(&back);
	const char bad[] = "approval\t1\t/x\tnpm\tsocket=relative\n";
	approvals_parse(bad, sizeof(bad) - 1, &back, &damaged);
	CHECK(back.n == 0 && damaged == 1, "a socket= that is not an absolute path is damaged");
	approvals_free(&back);
	free(text);
	approvals_free(&st);
	access_set_free(&none);
	access_set_free(&one);
	access_set_free(&two);
	p.root = NULL;
	profile_free(&p);
}

static void test_summary(void)
{
	struct profile p = {0};
	p.root = (char *)"/home/u/proj";
	p.net = NETPOLICY_OPEN;
	profile_add_rule(&p, "/home/u/proj", ACCESS_ALL, ORIGIN_ROOT, NULL);
	profile_add_rule(&p, "/home/u/.npmrc", ACCESS_READ, ORIGIN_GRANT, "npm");
	char *jb = (char *)"/usr/bin/npm";
	p.jailbreaks = &jb;
	p.njailbreaks = 1;
	struct access_set s;
	access_set_from_profile(&s, &p, "/home/u/proj/.moat/home");
	struct strbuf out = STRBUF_INIT;
	struct confirm_notes wrapper = {0}, session = {.session = true};
	confirm_summary(&out, "npm", &p, &s, &wrapper);
	CHECK_STR(out.buf,
	          "moat: about to run npm in /home/u/proj\n"
	          "  read/write/exec  /home/u/proj\n"
	          "  read/write/exec  /home/u/proj/.moat/home  HOME\n"
	          "  read             /home/u/.npmrc\n"
	          "  jailbreak        /usr/bin/npm  UNSANDBOXED\n"
	          "  network          allowed\n"
	          "nothing else is readable but system directories (/usr, /etc, ...)\n",
	          "the summary has the seed's shape, HOME's access on its line");
	sb_reset(&out);
	confirm_summary(&out, "npm", &p, &s, &session);
	CHECK(strstr(out.buf,
	             "  jailbreak        /usr/bin/npm  not in this session: runs confined "
	             "here (unsandboxed only through its wrapper outside moat run and moat "
	             "shell)\n") != NULL,
	      "in a session a jailbreak is said not to apply");
	CHECK(!strstr(out.buf, "UNSANDBOXED"), "and is never called UNSANDBOXED there");
	access_set_free(&s);
	p.jailbreaks = NULL;
	p.njailbreaks = 0;

	/* Sockets: listed, and the last line no longer claims nothing else. */
	profile_add_rule(&p, "/run/user/1/agent.sock", ACCESS_CONNECT, ORIGIN_SOCKET, NULL);
	access_set_from_profile(&s, &p, "/home/u");
	sb_reset(&out);
	struct confirm_notes abi7 = {.sockets_unconfined_abi = 7}, abi9 = {0};
	confirm_summary(&out, "npm", &p, &s, &abi7);
	CHECK_STR(out.buf,
	          "moat: about to run npm in /home/u/proj\n"
	          "  read/write/exec  /home/u/proj\n"
	          "  none             /home/u  HOME\n"
	          "  read             /home/u/.npmrc\n"
	          "  connect          /run/user/1/agent.sock\n"
	          "  connect          every pathname unix socket: Landlock ABI 7 cannot confine "
	          "them by path\n"
	          "  network          allowed\n"
	          "nothing else is readable but system directories (/usr, /etc, ...), and any "
	          "unix socket can be connected to (the ssh-agent's, D-Bus, docker.sock)\n",
	          "below ABI 9 a listed socket is shown with what it really opens");
	sb_reset(&out);
	confirm_summary(&out, "npm", &p, &s, &abi9);
	CHECK(strstr(out.buf, "  connect          /run/user/1/agent.sock\n") &&
	          strstr(out.buf, "\nnothing else is readable but system directories (/usr, "
	                          "/etc, ...); no other socket can be connected to\n"),
	      "from ABI 9 only the listed socket");
	access_set_free(&s);

	/* A root named with C1 and bidi controls is shown, not obeyed. */
	p.root = (char *)"/home/u/x\xc2\x9b"
	                 "31m\xe2\x80\xaeyz\x9b";
	access_set_from_profile(&s, &p, "/home/u");
	sb_reset(&out);
	confirm_summary(&out, "np\x1bm", &p, &s, &wrapper);
	CHECK(strstr(out.buf,
	             "about to run np\\x1bm in /home/u/x\\xc2\\x9b31m\\xe2\\x80\\xaeyz\\x9b\n") !=
	          NULL,
	      "C1, bidi and raw 0x9b bytes are escaped in the prompt");
	bool raw = false;
	for (const unsigned char *c = (const unsigned char *)out.buf; *c; c++)
		raw |= *c == 0x1b || *c == 0x9b || *c == 0xc2 || *c == 0xe2;
	CHECK(!raw, "no raw control byte is left");
	access_set_free(&s);
	sb_release(&out);
	p.root = NULL;
	profile_free(&p);
}

/* Flake approvals: one line per flake directory, kept by an old reader. */
static void test_flake_approvals(void)
{
	struct approval_store st = {0};
	const char *h1 = "sha256-ab/c+d=", *h2 = "sha256-XYZ/=";
	approvals_add_flake(&st, "/home/u/proj", h1, 1700000000);
	CHECK(approvals_flake_approved(&st, "/home/u/proj", h1), "an added flake is approved");
	CHECK(!approvals_flake_approved(&st, "/home/u/proj", h2), "other content is not");
	CHECK(!approvals_flake_approved(&st, "/home/u/other", h1),
	      "nor the same content elsewhere");
	struct access_set none = {0};
	approvals_add(&st, "/home/u/proj", "npm", 1700000001, &none);
	CHECK(!approvals_covers(&st, "/home/u/proj", "flake", &none),
	      "a flake approval starts no binary");
	char *text = approvals_format(&st);
	CHECK_STR(text,
	          "approval\t1700000000\t/home/u/proj\tflake:sha256-ab_c+d=\n"
	          "approval\t1700000001\t/home/u/proj\tnpm\n",
	          "stored as an approval line, '/' written '_'");
	struct approval_store again;
	size_t damaged;
	approvals_parse(text, strlen(text), &again, &damaged);
	CHECK(damaged == 0 && again.n == 2, "it parses back, as any approval line");
	CHECK(approvals_flake_approved(&again, "/home/u/proj", h1),
	      "still approved after a round trip");
	char *h = again.n ? approvals_flake_hash(&again.approvals[0]) : NULL;
	CHECK_STR(h, h1, "the hash comes back with its '/'");
	free(h);
	h = again.n > 1 ? approvals_flake_hash(&again.approvals[1]) : NULL;
	CHECK(h == NULL, "a binary's approval has no flake hash");
	approvals_free(&again);
	free(text);
	approvals_add_flake(&st, "/home/u/proj", h2, 1700000002);
	CHECK(approvals_flake_approved(&st, "/home/u/proj", h2) &&
	          !approvals_flake_approved(&st, "/home/u/proj", h1) && st.n == 2,
	      "a new answer for the directory replaces the old, and keeps the rest");
	CHECK(approvals_forget(&st, "/home/u/proj") == 2 && st.n == 0,
	      "moat unapprove DIR forgets it with the rest");
	approvals_free(&st);
	/* A file from before flake approvals is read as it was. */
	const char old[] = "approval\t1\t/home/u/proj\tnpm\thome=/home/u\n";
	approvals_parse(old, sizeof(old) - 1, &again, &damaged);
	CHECK(damaged == 0 && again.n == 1 && !approvals_flake_approved(&again, "/home/u/proj", h1),
	      "an older store: nothing approved by accident");
	approvals_free(&again);
}

/* The network policy in approvals: off -> ports -> open widens, a new port
 * widens, fewer ports do not; an approval from before the policy (no net
 * item) was given with the network open. */
static bool net_covers(const char *approved, const char *wanted)
{
	struct profile a = {.root = (char *)"/p"}, w = {.root = (char *)"/p"};
	struct error err = {0};
	if (netpolicy_parse(&a.net, approved, &err) < 0 ||
	    netpolicy_parse(&w.net, wanted, &err) < 0)
		return false;
	struct access_set sa, sw;
	access_set_from_profile(&sa, &a, "/h");
	access_set_from_profile(&sw, &w, "/h");
	bool covers = access_set_covers(&sa, &sw);
	access_set_free(&sa);
	access_set_free(&sw);
	return covers;
}

static void test_net(void)
{
	CHECK(net_covers("off", "off"), "off covers off");
	CHECK(!net_covers("off", "443"), "off to ports asks again");
	CHECK(!net_covers("443", "open"), "ports to open asks again");
	CHECK(!net_covers("off", "open"), "off to open asks again");
	CHECK(!net_covers("443", "443,8080"), "a new port asks again");
	CHECK(!net_covers("443", "listen:443"), "listening is not connecting");
	CHECK(net_covers("443,8080", "443"), "fewer ports do not ask");
	CHECK(net_covers("open", "443"), "open covers ports");
	CHECK(net_covers("443", "off"), "narrowing to off does not ask");
	CHECK(!net_covers("a.org", "a.org,b.org"), "a new host asks again");
	CHECK(!net_covers("443", "a.org"), "ports to hosts asks again");
	CHECK(!net_covers("off", "a.org"), "off to hosts asks again");
	CHECK(!net_covers("a.org", "open"), "hosts to open asks again");
	CHECK(net_covers("a.org,b.org", "b.org"), "fewer hosts do not ask");

	struct profile p = {.root = (char *)"/p"};
	struct error err = {0};
	netpolicy_parse(&p.net, "443,listen:3000", &err);
	struct access_set set;
	access_set_from_profile(&set, &p, "/h");
	struct approval_store st = {0};
	approvals_add(&st, "/p", "npm", 7, &set);
	char *text = approvals_format(&st);
	CHECK(strstr(text, "\tnet=connect:443\tnet=listen:3000\n") != NULL,
	      "the store writes net=connect:PORT and net=listen:PORT");
	struct approval_store back;
	size_t damaged = 0;
	approvals_parse(text, strlen(text), &back, &damaged);
	CHECK(damaged == 0 && approvals_covers(&back, "/p", "npm", &set),
	      "and reads them back, covering the set");
	approvals_free(&back);
	const char *old = "approval\t7\t/p\tnpm\thome=/h\n";
	approvals_parse(old, strlen(old), &back, &damaged);
	CHECK(approvals_covers(&back, "/p", "npm", &set),
	      "an approval from before the policy was given with the network open");
	approvals_free(&back);
	const char *bad = "approval\t7\t/p\tnpm\thome=/h\tnet=connect:99999\n";
	approvals_parse(bad, strlen(bad), &back, &damaged);
	CHECK(damaged == 1, "a net item out of range is damaged");
	approvals_free(&back);
	struct profile h = {.root = (char *)"/p"};
	netpolicy_parse(&h.net, "registry.npmjs.org,*.b.org:8443", &err);
	struct access_set hset;
	access_set_from_profile(&hset, &h, "/h");
	struct approval_store hst = {0};
	approvals_add(&hst, "/p", "npm", 7, &hset);
	char *htext = approvals_format(&hst);
	CHECK(strstr(htext, "\tnet=host:registry.npmjs.org\tnet=host:*.b.org:8443\n") != NULL,
	      "the store writes net=host:HOST[:PORT]");
	approvals_parse(htext, strlen(htext), &back, &damaged);
	CHECK(damaged == 0 && approvals_covers(&back, "/p", "npm", &hset),
	      "and reads them back, covering the set");
	approvals_free(&back);
	const char *badhost = "approval\t7\t/p\tnpm\thome=/h\tnet=host:http://x.org\n";
	approvals_parse(badhost, strlen(badhost), &back, &damaged);
	CHECK(damaged == 1, "a host item the grammar refuses is damaged");
	approvals_free(&back);
	free(htext);
	approvals_free(&hst);
	access_set_free(&hset);
	free(text);
	approvals_free(&st);
	access_set_free(&set);
}

int main(void)
{
	test_covers();
	test_flake_approvals();
	test_store_roundtrip();
	test_sockets();
	test_summary();
	test_net();
	return tap_done();
}
