/* The ZON parser: what it accepts (as a compact dump of the tree), the exact
 * message and position of what it rejects, positions and spans, limits. */
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "config/zon.h"
#include "tap.h"

/* {name:value,...} for structs, [value,...] for tuples, strings quoted. */
static void dump(struct strbuf *sb, const struct zon_node *n)
{
	switch (n->kind) {
	case ZON_STRUCT:
	case ZON_TUPLE:
		sb_addc(sb, n->kind == ZON_STRUCT ? '{' : '[');
		for (size_t i = 0; i < n->nitems; i++) {
			if (i)
				sb_addc(sb, ',');
			if (n->items[i].name)
				sb_addf(sb, "%s:", n->items[i].name);
			dump(sb, &n->items[i]);
		}
		sb_addc(sb, n->kind == ZON_STRUCT ? '}' : ']');
		break;
	case ZON_STRING: zon_quote(sb, n->str, n->len); break;
	case ZON_INT: sb_addf(sb, "%lld", n->ival); break;
	case ZON_BOOL: sb_adds(sb, n->bval ? "true" : "false"); break;
	case ZON_NULL: sb_adds(sb, "null"); break;
	case ZON_ENUM: sb_addf(sb, ".%s", n->str); break;
	}
}

/* The dump, or "L:C: message". */
static char *parse(const char *text, size_t len)
{
	struct zon_node *root;
	struct zon_diag diag;
	struct strbuf sb = STRBUF_INIT;
	if (zon_parse(text, len, &root, &diag) < 0) {
		CHECK(root == NULL, "no tree after an error");
		sb_addf(&sb, "%d:%d: %s", diag.line, diag.col, diag.msg);
	} else if (!root) {
		sb_adds(&sb, "(blank)");
	} else {
		dump(&sb, root);
		zon_free(root);
	}
	return sb_detach(&sb);
}

static void test_accepts(void)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
	    {".{}", "{}"},
	    {".{ .a = 1, .b = \"x\", }", "{a:1,b:\"x\"}"},
	    {".{ \"a\", \"b\" }", "[\"a\",\"b\"]"},
	    {".{ .{}, .{ .x = .{ 1, 2, 3 } } }", "[{},{x:[1,2,3]}]"},
	    {".{ .@\"quoted field\" = true, .@\"if\" = false }", "{quoted field:true,if:false}"},
	    {".{ .n = null, .e = .foo, .q = .@\"a b\" }", "{n:null,e:.foo,q:.a b}"},
	    {".{ .a, .b }", "[.a,.b]"},
	    /* escapes */
	    {"\"\\n\\t\\r\\\\\\'\\\"\"", "\"\\n\\t\\r\\\\'\\\"\""},
	    {"\"\\x41\\x7a\"", "\"Az\""},
	    {"\"\\u{41}\\u{e9}\\u{20AC}\\u{1F600}\"", "\"Aé€😀\""},
	    {"\"\\u{0000041}\"", "\"A\""},
	    {"\"\\x00\"", "\"\\x00\""},
	    {"\"héllo wörld\"", "\"héllo wörld\""},
	    {"\"it's\"", "\"it's\""},
	    /* multiline strings: lines joined with \n, no escapes, no final newline */
	    {"\\\\first\n  \\\\ second \\n\n", "\"first\\n second \\\\n\""},
	    {".{ .s =\n    \\\\one\n    \\\\\n    \\\\three\n  ,\n}", "{s:\"one\\n\\nthree\"}"},
	    {"\\\\crlf\r\n\\\\x\r\n", "\"crlf\\nx\""},
	    /* integers */
	    {".{ 0, 42, -7, 1_000_000, 0xf_f, 0xFF, 0o17, 0b1010, -0x10 }",
	     "[0,42,-7,1000000,255,255,15,10,-16]"},
	    {"9223372036854775807", "9223372036854775807"},
	    {"-9223372036854775808", "-9223372036854775808"},
	    {"'a'", "97"},
	    {"'\\n'", "10"},
	    {"'é'", "233"},
	    {"'\\u{1F600}'", "128512"},
	    /* layout: comments, CRLF, a byte order mark, blank documents */
	    {"// c\n.{ // c\n  .a = 1, // c\n} // c", "{a:1}"},
	    {".{\r\n  .a = 1,\r\n}\r\n", "{a:1}"},
	    {"\xef\xbb\xbf.{}", "{}"},
	    {"", "(blank)"},
	    {"  // only\n\n// comments\n", "(blank)"},
	    {". {}", "{}"},
	    {"- 1", "-1"},
	};
	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		char *got = parse(cases[i].in, strlen(cases[i].in));
		char *name = xasprintf("accepts case %zu: %s", i, cases[i].want);
		CHECK_STR(got, cases[i].want, name);
		free(name);
		free(got);
	}
}

static void test_rejects(void)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
	    {".{", "1:3: end of file inside the '.{' opened at 1:1"},
	    {".{ .a = .{ 1,\n", "2:1: end of file inside the '.{' opened at 1:9"},
	    {".{ .a = 1 .b = 2 }", "1:11: expected ',' or '}' after an item, found '.'"},
	    {".{ .a = 1, 2 }", "1:12: expected a field '.name = value', found an integer"},
	    {".{ 1, .a = 2 }",
	     "1:7: a field '.name = value' among plain values; a '.{ }' holds one or the other"},
	    {".{ .a 1 }", "1:7: expected '=' after the field name, found an integer"},
	    {".{ .a = }", "1:9: expected a value, found '}'"},
	    {".{ .a = 1, }}", "1:13: expected end of file after the value, found '}'"},
	    {".{} .{}", "1:5: expected end of file after the value, found '.'"},
	    {"x", "1:1: expected a value, found 'x' (strings need double quotes: \"x\")"},
	    {"yes", "1:1: expected a value, found 'yes' (did you mean true?)"},
	    {".{ .a = off }", "1:9: expected a value, found 'off' (did you mean false?)"},
	    {"True", "1:1: expected a value, found 'True' (did you mean true?)"},
	    {".{ .a = cargo }",
	     "1:9: expected a value, found 'cargo' (strings need double quotes: \"cargo\")"},
	    {".5", "1:2: expected '{' or a name after '.', found an integer"},
	    {"{}", "1:1: expected a value, found '{'"},
	    {"@\"x\"", "1:1: expected a value, found a quoted name"},
	    {".{ .@\"\" = 1 }", "1:5: a name cannot be empty"},
	    {".{ .@\"a\\x00\" = 1 }", "1:5: a name cannot contain a NUL byte"},
	    {".{ .@x = 1 }", "1:5: expected '\"' after '@'"},
	    /* strings */
	    {"\"abc", "1:1: unterminated string"},
	    {"\"abc\n\"", "1:5: unterminated string"},
	    {"\"a\\qb\"", "1:3: invalid escape sequence '\\q'"},
	    {"\"\\x4\"", "1:2: expected two hex digits after '\\x'"},
	    {"\"\\u41\"", "1:2: expected '{' after '\\u'"},
	    {"\"\\u{}\"", "1:2: expected hex digits and '}' in '\\u{...}'"},
	    {"\"\\u{41\"", "1:2: expected hex digits and '}' in '\\u{...}'"},
	    {"\"\\u{d800}\"", "1:2: unicode escape is a surrogate half, not a character"},
	    {"\"\\u{DFFF}\"", "1:2: unicode escape is a surrogate half, not a character"},
	    {"\"\\u{110000}\"", "1:2: unicode escape is beyond U+10FFFF"},
	    {"\"\\u{ffffffffffffffffff}\"", "1:2: unicode escape is beyond U+10FFFF"},
	    {"\"tab\there\"",
	     "1:5: control character 0x09 in string (use an escape such as '\\t')"},
	    {"\"\xff\"", "1:2: invalid UTF-8 in string"},
	    {"\"\xc0\x80\"", "1:2: invalid UTF-8 in string"},         /* overlong */
	    {"\"\xed\xa0\x80\"", "1:2: invalid UTF-8 in string"},     /* surrogate */
	    {"\"\xf4\x90\x80\x80\"", "1:2: invalid UTF-8 in string"}, /* beyond U+10FFFF */
	    {"\"\xe2\x82\"", "1:2: invalid UTF-8 in string"},         /* truncated */
	    {"\\\\a\xff", "1:4: invalid UTF-8 in multiline string"},
	    {"\\\\a\x01", "1:4: control character 0x01 in multiline string"},
	    {"// \xfe\n.{}", "1:4: invalid UTF-8 in comment"},
	    {"''", "1:1: empty character literal"},
	    {"'ab'", "1:1: expected one character between single quotes"},
	    /* integers */
	    {"01", "1:1: leading zeros are not allowed in an integer"},
	    {"1.5", "1:1: floating-point numbers are not supported"},
	    {"1e3", "1:1: floating-point numbers are not supported"},
	    {"0x", "1:1: expected digits after '0x'"},
	    {"0b102", "1:5: invalid digit '2' in integer"},
	    {"12ab", "1:3: invalid digit 'a' in integer"},
	    {"1__0", "1:2: misplaced '_' in integer"},
	    {"1_", "1:2: misplaced '_' in integer"},
	    {"0x_1", "1:3: misplaced '_' in integer"},
	    {"9223372036854775808", "1:1: integer does not fit in 64 bits"},
	    {"-9223372036854775809", "1:1: integer does not fit in 64 bits"},
	    {"99999999999999999999999", "1:1: integer does not fit in 64 bits"},
	    {".{ .a = - }", "1:11: expected an integer after '-', found '}'"},
	    /* bytes that do not belong anywhere */
	    {"#", "1:1: unexpected character '#'"},
	    {"/x", "1:1: unexpected character '/'"},
	    {"\\x", "1:1: unexpected character '\\'"},
	    {".{ \xc3\xa9 }", "1:4: unexpected non-ASCII character outside a string"},
	    {".{ \xff }", "1:4: invalid UTF-8"},
	    {"\r.{}", "1:1: unexpected control character 0x0d"},
	    {".{\n  \x01 }", "2:3: unexpected control character 0x01"},
	};
	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		char *got = parse(cases[i].in, strlen(cases[i].in));
		char *name = xasprintf("rejects case %zu: %s", i, cases[i].want);
		CHECK_STR(got, cases[i].want, name);
		free(name);
		free(got);
	}
}

static void test_nul_and_limits(void)
{
	char *got = parse(".{ .a = \"x\0\" }", 14);
	CHECK_STR(got, "1:11: NUL byte in file", "a NUL byte is refused wherever it is");
	free(got);

	size_t big = ZON_MAX_SIZE + 1;
	char *buf = xmalloc(big);
	memset(buf, ' ', big);
	memcpy(buf, ".{}", 3);
	got = parse(buf, big);
	CHECK_STR(got, "1:1: file is larger than 1048576 bytes", "a file over 1 MiB is refused");
	free(got);
	got = parse(buf, big - 1);
	CHECK_STR(got, "{}", "a file of exactly 1 MiB is fine");
	free(got);
	free(buf);

	struct strbuf deep = STRBUF_INIT;
	for (int i = 0; i < ZON_MAX_DEPTH; i++)
		sb_adds(&deep, ".{ ");
	for (int i = 0; i < ZON_MAX_DEPTH; i++)
		sb_adds(&deep, "} ");
	struct zon_node *root;
	struct zon_diag diag;
	CHECK(zon_parse(deep.buf, deep.len, &root, &diag) == 0, "nesting %d deep is fine",
	      ZON_MAX_DEPTH);
	zon_free(root);
	sb_reset(&deep);
	for (int i = 0; i < 100000; i++)
		sb_adds(&deep, ".{");
	got = parse(deep.buf, deep.len);
	CHECK_STR(got, "1:129: nesting deeper than 64 levels",
	          "deep nesting is refused, not recursed");
	free(got);
	sb_release(&deep);
}

static void test_positions(void)
{
	const char *text = "// config\n"
	                   ".{\n"
	                   "    .jailbreak = .{ \"git\" }, // c\n"
	                   "\t.@\"x y\" = -3,\n"
	                   "    .s =\n"
	                   "        \\\\a\n"
	                   "        \\\\b\n"
	                   "    ,\n"
	                   "}\n";
	struct zon_node *root;
	struct zon_diag diag;
	if (!CHECK(zon_parse(text, strlen(text), &root, &diag) == 0 && root, "positions: parses"))
		return;
	CHECK(root->line == 2 && root->col == 1 && root->start == 10 && text[root->end - 1] == '}',
	      "root at 2:1, span ends at its '}'");
	CHECK(root->comma == ZON_NONE && root->item_start == root->start, "root has no comma");
	const struct zon_node *j = zon_field(root, "jailbreak");
	CHECK(j && j->name_line == 3 && j->name_col == 5, "field name at 3:5");
	CHECK(j && j->line == 3 && j->col == 18, "field value at 3:18");
	CHECK(j && text[j->item_start] == '.' && text[j->item_start + 1] == 'j',
	      "item starts at '.'");
	CHECK(j && !strncmp(text + j->start, ".{ \"git\" }", j->end - j->start) &&
	          j->end - j->start == 10,
	      "value span is '.{ \"git\" }'");
	CHECK(j && j->comma != ZON_NONE && text[j->comma] == ',', "comma offset recorded");
	CHECK(j && j->nitems == 1 && j->items[0].line == 3 && j->items[0].col == 21 &&
	          j->items[0].comma == ZON_NONE,
	      "tuple item at 3:21 without a comma");
	const struct zon_node *x = zon_field(root, "x y");
	CHECK(x && x->name_line == 4 && x->name_col == 2 && x->col == 12 && x->ival == -3 &&
	          x->end - x->start == 2,
	      "quoted field at 4:2, negative value spans '-3'");
	const struct zon_node *s = zon_field(root, "s");
	CHECK(s && s->line == 6 && s->col == 9 && !strcmp(s->str, "a\nb") &&
	          !strncmp(text + s->end - 3, "\\\\b", 3) && text[s->comma] == ',',
	      "multiline string starts at its first line and ends with its last");
	CHECK(zon_field(root, "nope") == NULL && zon_field(j, "x") == NULL, "zon_field misses");
	zon_free(root);
}

static void test_quote(void)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
	    {"plain", "\"plain\""},
	    {"a\"b\\c", "\"a\\\"b\\\\c\""},
	    {"\n\t\r\x01\x7f", "\"\\n\\t\\r\\x01\\x7f\""},
	    {"héllo", "\"héllo\""},
	    {"bad\xff", "\"bad\\xff\""},
	};
	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		struct strbuf sb = STRBUF_INIT;
		zon_quote(&sb, cases[i].in, strlen(cases[i].in));
		CHECK_STR(sb.buf, cases[i].want, "zon_quote");
		/* and it reads back as the same bytes */
		char *back = parse(sb.buf, sb.len);
		CHECK_STR(back, sb.buf, "zon_quote round trip");
		free(back);
		sb_release(&sb);
	}
	struct strbuf sb = STRBUF_INIT;
	zon_field_display(&sb, "paths");
	sb_addc(&sb, ' ');
	zon_field_display(&sb, "a b");
	CHECK_STR(sb.buf, ".paths .@\"a b\"", "field names for messages");
	sb_release(&sb);
}

int main(void)
{
	test_accepts();
	test_rejects();
	test_nul_and_limits();
	test_positions();
	test_quote();
	return tap_done();
}
