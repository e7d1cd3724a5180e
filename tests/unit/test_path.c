#include <stdlib.h>

#include "base/path.h"
#include "tap.h"

static void test_is_under(void)
{
	static const struct {
		const char *path, *dir;
		bool want;
	} cases[] = {
	    {"/a/b", "/a/b", true},    {"/a/b/c", "/a/b", true}, {"/a/bc", "/a/b", false},
	    {"/a", "/a/b", false},     {"/anything", "/", true}, {"/a/b/", "/a/b/", true},
	    {"/a/b/c", "/a/b/", true}, {"/", "/a", false},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CHECK(path_is_under(cases[i].path, cases[i].dir) == cases[i].want,
		      "path_is_under(%s, %s) is %d", cases[i].path, cases[i].dir, cases[i].want);
}

static void test_refusal(void)
{
	static const struct {
		const char *path;
		bool refused;
	} cases[] = {
	    {"/home/u/.cache", false}, {"relative/x", true}, {"/a/../b", true},
	    {"/a/..", true},           {"/a/..b", false},    {"/a/b..", false},
	    {"/a/\"q", true},          {"/a/'q", true},      {"/a/\\b", true},
	    {"/a/\nb", true},          {"/a/\x7f", true},    {"/with space", false},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CHECK((path_refusal(cases[i].path) != NULL) == cases[i].refused,
		      "path_refusal case %zu", i);
}

static void test_tilde(void)
{
	char *s;
	CHECK_STR(s = path_expand_tilde("~/.cargo", "/home/u"), "/home/u/.cargo", "expand ~/x"),
	    free(s);
	CHECK_STR(s = path_expand_tilde("~", "/home/u"), "/home/u", "expand ~"), free(s);
	CHECK_STR(s = path_expand_tilde("~user/x", "/home/u"), "~user/x", "~user is left alone"),
	    free(s);
	CHECK_STR(s = path_contract_tilde("/home/u/.cargo", "/home/u"), "~/.cargo", "contract"),
	    free(s);
	CHECK_STR(s = path_contract_tilde("/home/u", "/home/u"), "~", "contract home"), free(s);
	CHECK_STR(s = path_contract_tilde("/home/uu/x", "/home/u"), "/home/uu/x", "not a prefix"),
	    free(s);
	CHECK_STR(s = path_contract_tilde("/home/u", "/home/u/"), "~",
	          "home with a trailing slash"),
	    free(s);
	CHECK_STR(s = path_contract_tilde("/home/u/x", "/home/u/"), "~/x",
	          "under home with a slash"),
	    free(s);
}

static void test_normalize_and_names(void)
{
	char *s;
	CHECK_STR(s = path_normalize("//a/./b//c/"), "/a/b/c", "normalize"), free(s);
	CHECK_STR(s = path_normalize("/"), "/", "normalize root"), free(s);
	CHECK_STR(s = path_dirname("/a/b"), "/a", "dirname"), free(s);
	CHECK_STR(s = path_dirname("/a"), "/", "dirname of top"), free(s);
	CHECK_STR(s = path_dirname("a"), ".", "dirname of bare"), free(s);
	CHECK_STR(path_basename("/a/b"), "b", "basename");
	CHECK_STR(s = path_join("/a/", "/b"), "/a/b", "join"), free(s);
	CHECK_STR(s = path_join("/a", "b/c"), "/a/b/c", "join without slashes"), free(s);
	CHECK_STR(s = path_join("/", "//b"), "/b", "join onto the root"), free(s);
	CHECK_STR(s = path_join("", "b"), "/b", "join onto nothing"), free(s);
	CHECK_STR(s = path_join("a", ""), "a/", "join nothing"), free(s);
}

int main(void)
{
	test_is_under();
	test_refusal();
	test_tilde();
	test_normalize_and_names();
	return tap_done();
}
