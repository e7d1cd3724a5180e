/* Access sets, widening, and the approvals store's format. */
#include <stdlib.h>

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

static void test_summary(void)
{
	struct profile p = {0};
	p.root = (char *)"/home/u/proj";
	p.network = true;
	profile_add_rule(&p, "/home/u/.npmrc", ACCESS_READ, ORIGIN_GRANT, "npm");
	char *jb = (char *)"/usr/bin/npm";
	p.jailbreaks = &jb;
	p.njailbreaks = 1;
	struct access_set s;
	access_set_from_profile(&s, &p, "/home/u/proj/.moat/home");
	struct strbuf out = STRBUF_INIT;
	confirm_summary(&out, "npm", &p, &s);
	CHECK_STR(out.buf,
	          "moat: about to run npm in /home/u/proj\n"
	          "  read/write/exec  /home/u/proj\n"
	          "  HOME             /home/u/proj/.moat/home\n"
	          "  read             /home/u/.npmrc\n"
	          "  jailbreak        /usr/bin/npm  UNSANDBOXED\n"
	          "  network          allowed\n"
	          "nothing else outside those paths is readable\n",
	          "the summary has the seed's shape");
	sb_release(&out);
	access_set_free(&s);
	p.jailbreaks = NULL;
	p.njailbreaks = 0;
	p.root = NULL;
	profile_free(&p);
}

int main(void)
{
	test_covers();
	test_store_roundtrip();
	test_summary();
	return tap_done();
}
