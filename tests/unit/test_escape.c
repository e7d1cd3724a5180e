/* The one function that shows names moat did not choose on a terminal
 * (visible_add) and the one that writes them into JSON (json_add_string). */
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "base/util.h"
#include "report/json.h"
#include "tap.h"

struct vcase {
	const char *in;
	size_t len;               /* 0: strlen */
	const char *utf8, *plain; /* shown in a UTF-8 locale, and in any other */
	const char *name;
};

static const struct vcase vcases[] = {
    {"plain /path-1_2", 0, "plain /path-1_2", NULL, "printable ASCII passes"},
    {"a\x1b[31mb", 0, "a\\x1b[31mb", NULL, "ESC (C0)"},
    {"line\nforged", 0, "line\\x0aforged", NULL, "a newline cannot forge a line"},
    {"del\x7f", 0, "del\\x7f", NULL, "DEL"},
    {"back\\x1b", 0, "back\\x5cx1b", NULL, "a backslash is escaped, so \\xNN is never ambiguous"},
    {"csi\xc2\x9b"
     "31m",
     0, "csi\\xc2\\x9b31m", NULL, "U+009B (CSI) in UTF-8"},
    {"c1\xc2\x80\xc2\x9f", 0, "c1\\xc2\\x80\\xc2\\x9f", NULL, "the whole C1 range"},
    {"raw\x9b"
     "31m",
     0, "raw\\x9b31m", NULL, "a raw 0x9b byte"},
    {"raw\x85", 0, "raw\\x85", NULL, "a raw NEL byte"},
    {"rlo\xe2\x80\xae"
     "cod.exe",
     0, "rlo\\xe2\\x80\\xaecod.exe", NULL, "U+202E right-to-left override"},
    {"\xe2\x80\xaa\xe2\x80\xab\xe2\x80\xac\xe2\x80\xad", 0,
     "\\xe2\\x80\\xaa\\xe2\\x80\\xab\\xe2\\x80\\xac\\xe2\\x80\\xad", NULL, "U+202A-U+202D"},
    {"\xe2\x81\xa6\xe2\x81\xa9", 0, "\\xe2\\x81\\xa6\\xe2\\x81\\xa9", NULL,
     "U+2066 and U+2069 isolates"},
    {"\xe2\x80\x8e\xe2\x80\x8f\xd8\x9c", 0, "\\xe2\\x80\\x8e\\xe2\\x80\\x8f\\xd8\\x9c", NULL,
     "U+200E, U+200F, U+061C marks"},
    {"ls\xe2\x80\xa8ps\xe2\x80\xa9", 0, "ls\\xe2\\x80\\xa8ps\\xe2\\x80\\xa9", NULL,
     "line and paragraph separators"},
    {"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 0, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
     "caf\\xc3\\xa9 \\xe2\\x82\\xac \\xf0\\x9f\\x98\\x80",
     "other UTF-8 passes in a UTF-8 locale, every high byte is escaped elsewhere"},
    {"\xc4\x9b", 0, "\xc4\x9b", "\\xc4\\x9b",
     "U+011B ends in 0x9b: an 8-bit terminal would see CSI"},
    {"over\xc0\xaf", 0, "over\\xc0\\xaf", NULL, "an overlong form is not UTF-8"},
    {"sur\xed\xa0\x80", 0, "sur\\xed\\xa0\\x80", NULL, "a surrogate is not UTF-8"},
    {"big\xf4\x90\x80\x80", 0, "big\\xf4\\x90\\x80\\x80", NULL, "above U+10FFFF is not UTF-8"},
    {"cut\xe2\x80", 0, "cut\\xe2\\x80", NULL, "a cut sequence at the end"},
    {"cut\xe2\x80x", 0, "cut\\xe2\\x80x", NULL, "a cut sequence before ASCII"},
    {"nul\0after", 9, "nul\\x00after", NULL, "a NUL inside the length"},
};

static void test_visible(void)
{
	for (size_t i = 0; i < ARRAY_LEN(vcases); i++) {
		const struct vcase *c = &vcases[i];
		size_t len = c->len ? c->len : strlen(c->in);
		struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
		visible_add(&a, c->in, len, true);
		visible_add(&b, c->in, len, false);
		CHECK_STR(a.buf, c->utf8, c->name);
		char name[200];
		snprintf(name, sizeof(name), "%s (not a UTF-8 locale)", c->name);
		CHECK_STR(b.buf, c->plain ? c->plain : c->utf8, name);
		sb_release(&a);
		sb_release(&b);
	}
}

static void test_locale(void)
{
	static const struct {
		const char *all, *ctype, *lang;
		bool utf8;
	} cases[] = {
	    {NULL, NULL, NULL, false},
	    {NULL, NULL, "C.UTF-8", true},
	    {NULL, NULL, "en_US.utf8", true},
	    {NULL, "UTF-8", "C", true},
	    {"POSIX", NULL, "en_US.UTF-8", false},
	    {"", "de_DE.ISO-8859-1", "C.UTF-8", false},
	};
	const char *names[] = {"LC_ALL", "LC_CTYPE", "LANG"};
	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		const char *v[] = {cases[i].all, cases[i].ctype, cases[i].lang};
		for (int k = 0; k < 3; k++)
			v[k] ? setenv(names[k], v[k], 1) : unsetenv(names[k]);
		CHECK(visible_utf8_locale() == cases[i].utf8,
		      "locale %zu: LC_ALL=%s LC_CTYPE=%s LANG=%s", i, v[0] ? v[0] : "-",
		      v[1] ? v[1] : "-", v[2] ? v[2] : "-");
	}
	setenv("LANG", "C.UTF-8", 1);
	unsetenv("LC_ALL");
	unsetenv("LC_CTYPE");
	char *shown = visible_dup("x\xc2\x9b\xc3\xa9");
	CHECK_STR(shown, "x\\xc2\\x9b\xc3\xa9", "visible_dup follows the locale");
	free(shown);
	CHECK(visible_as_is("/home/u/caf\xc3\xa9"), "a UTF-8 name shows as is");
	CHECK(!visible_as_is("/home/u/\xe2\x80\xae"), "a bidi control does not");
}

struct jcase {
	const char *in;
	size_t len;
	const char *out;
	const char *name;
};

static const struct jcase jcases[] = {
    {"plain", 0, "\"plain\"", "plain"},
    {"q\"b\\s", 0, "\"q\\\"b\\\\s\"", "quote and backslash"},
    {"\n\t\x01\x1f", 0, "\"\\n\\t\\u0001\\u001f\"", "C0 controls"},
    {"\x7f", 0, "\"\\u007f\"", "DEL"},
    {"\xc2\x9b\xc2\x80", 0, "\"\\u009b\\u0080\"", "C1 controls"},
    {"\xe2\x80\xae\xe2\x81\xa6\xd8\x9c\xe2\x80\xa8", 0, "\"\\u202e\\u2066\\u061c\\u2028\"",
     "bidi controls and line separators"},
    {"caf\xc3\xa9\xf0\x9f\x98\x80", 0, "\"caf\xc3\xa9\xf0\x9f\x98\x80\"", "other UTF-8 as is"},
    {"a\x9b"
     "b\xff",
     0, "\"a\\ufffdb\\ufffd\"", "invalid bytes become U+FFFD"},
    {"over\xc0\xaf", 0, "\"over\\ufffd\\ufffd\"", "an overlong form is invalid"},
    {"n\0ul", 4, "\"n\\u0000ul\"", "NUL"},
};

static void test_json(void)
{
	for (size_t i = 0; i < ARRAY_LEN(jcases); i++) {
		const struct jcase *c = &jcases[i];
		struct strbuf sb = STRBUF_INIT;
		json_add_string(&sb, c->in, c->len ? c->len : strlen(c->in));
		CHECK_STR(sb.buf, c->out, c->name);
		sb_release(&sb);
	}
	struct strbuf sb = STRBUF_INIT;
	struct json j = {.out = &sb};
	json_begin_object(&j, NULL);
	json_int(&j, "version", 1);
	json_begin_array(&j, "list");
	json_string(&j, NULL, "a");
	json_null(&j, NULL);
	json_begin_object(&j, NULL);
	json_bool(&j, "t", true);
	json_string(&j, "n", NULL);
	json_end_object(&j);
	json_end_array(&j);
	json_begin_array(&j, "empty");
	json_end_array(&j);
	json_end_object(&j);
	CHECK_STR(sb.buf,
	          "{\"version\":1,\"list\":[\"a\",null,{\"t\":true,\"n\":null}],\"empty\":[]}",
	          "the writer keeps commas and nesting right");
	sb_release(&sb);
}

int main(void)
{
	test_visible();
	test_locale();
	test_json();
	return tap_done();
}
