/* The profile builder: default rules, refusals, merging, env changes. */
#include <stdlib.h>

#include "base/path.h"
#include "profile/profile.h"
#include "sandbox/landlock.h"
#include "tap.h"

static const struct rule *find(const struct profile *p, const char *path)
{
	for (size_t i = 0; i < p->nrules; i++)
		if (strcmp(p->rules[i].path, path) == 0)
			return &p->rules[i];
	return NULL;
}

static const char *env(const struct profile *p, const char *name)
{
	for (size_t i = 0; i < p->nenv; i++)
		if (strcmp(p->env[i].name, name) == 0)
			return p->env[i].value;
	return NULL;
}

static void test_defaults(void)
{
	struct profile p;
	struct error err;
	struct profile_input in = {.root = "/home/u/proj", .home = "/home/u"};
	CHECK(profile_build(&in, &p, &err) == 0, "a project under home is accepted");
	const struct rule *r = find(&p, "/home/u/proj");
	CHECK(r && r->access == ACCESS_ALL && r->origin == ORIGIN_ROOT, "root is read/write/exec");
	CHECK(find(&p, "/usr") && find(&p, "/usr")->access == ACCESS_RX, "/usr is read/exec");
	CHECK(find(&p, "/etc") && find(&p, "/etc")->access == ACCESS_READ, "/etc is read only");
	CHECK(find(&p, "/dev/null") && (find(&p, "/dev/null")->access & ACCESS_WRITE),
	      "/dev/null writable");
	static const char *const denied[] = {"/home/u",  "/home", "/tmp",  "/var/tmp",
	                                     "/dev/shm", "/run",  "/root", "/mnt",
	                                     "/opt",     "/var",  "/"};
	for (size_t i = 0; i < ARRAY_LEN(denied); i++) {
		bool covered = false;
		for (size_t j = 0; j < p.nrules; j++)
			covered |= path_is_under(denied[i], p.rules[j].path);
		CHECK(!covered, "no rule covers %s", denied[i]);
	}
	CHECK_STR(env(&p, "TMPDIR"), "/home/u/proj/.moat/tmp", "TMPDIR is in the root");
	CHECK_STR(env(&p, "MOAT_ROOT"), "/home/u/proj", "MOAT_ROOT is set");
	CHECK(profile_allows_write(&p, "/home/u/proj/.moat/home"), "root subdirs are writable");
	CHECK(!profile_allows_write(&p, "/home/u/.cache"), "home is not writable");
	CHECK(!profile_allows_write(&p, "/usr/bin"), "system dirs are not writable");
	profile_free(&p);
}

static void test_refused_roots(void)
{
	static const char *const roots[] = {"/home/u",  "/home",        "/",
	                                    "relative", "/home/u/../x", "/home/u/p\"q"};
	for (size_t i = 0; i < ARRAY_LEN(roots); i++) {
		struct profile p;
		struct error err;
		struct profile_input in = {.root = roots[i], .home = "/home/u"};
		CHECK(profile_build(&in, &p, &err) < 0, "root %s is refused", roots[i]);
	}
	struct error err;
	profile_refuse_root("/home", "/home/u", &err);
	CHECK(strstr(err.msg, "contains your home directory") != NULL, "ancestor message: %s",
	      err.msg);
	profile_refuse_root("/home/u", "/home/u", &err);
	CHECK(strstr(err.msg, "is your home directory") != NULL, "home message: %s", err.msg);
}

static void test_grants(void)
{
	struct grant grants[] = {
	    {"git", "/home/u/.gitconfig", ACCESS_READ},
	    {"cargo", "/home/u/.cargo", ACCESS_RW},
	    {"cargo", "/home/u/.cargo", ACCESS_READ | ACCESS_EXEC},
	};
	struct profile_input in = {.root = "/home/u/proj",
	                           .home = "/home/u",
	                           .grants = grants,
	                           .ngrants = ARRAY_LEN(grants)};
	struct profile p;
	struct error err;
	CHECK(profile_build(&in, &p, &err) == 0, "grants build");
	const struct rule *r = find(&p, "/home/u/.cargo");
	CHECK(r && r->access == ACCESS_ALL, "two grants on one path merge to their union");
	CHECK(find(&p, "/home/u/.gitconfig")->access == ACCESS_READ, "read grant stays read");
	size_t n = 0;
	for (size_t i = 0; i < p.nrules; i++)
		n += strcmp(p.rules[i].path, "/home/u/.cargo") == 0;
	CHECK(n == 1, "one rule per path");
	profile_free(&p);

	static const char *const bad[] = {"/home/u", "/home", "/", "rel/x", "/a/../b", "/a/\nb"};
	for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
		struct grant g = {"x", bad[i], ACCESS_READ};
		struct profile_input in2 = {
		    .root = "/home/u/proj", .home = "/home/u", .grants = &g, .ngrants = 1};
		CHECK(profile_build(&in2, &p, &err) < 0, "grant of '%s' is refused", bad[i]);
	}
}

static void test_landlock_mapping(void)
{
	uint64_t rw = landlock_rights_for_access(ACCESS_RW);
	CHECK(!(rw & (LL_FS_MAKE_CHAR | LL_FS_MAKE_BLOCK)), "write never grants device creation");
	CHECK(rw & LL_FS_REFER, "write includes REFER so renames work");
	CHECK(!(landlock_rights_for_access(ACCESS_READ) & LL_FS_EXECUTE),
	      "read does not imply exec");
	CHECK(!(landlock_rights_for_access(ACCESS_RX) & LL_FS_WRITE_FILE),
	      "exec does not imply write");
	CHECK(landlock_rights_for_access(ACCESS_ALL) == (rw | LL_FS_EXECUTE),
	      "every writable rule gets the same rights, so renames never fail with EXDEV");
	CHECK(!(landlock_fs_rights_for_abi(1) & LL_FS_REFER), "ABI 1 lacks REFER");
	CHECK(landlock_fs_rights_for_abi(5) & LL_FS_IOCTL_DEV, "ABI 5 handles device ioctls");
}

static void test_private_ipc(void)
{
	struct profile p;
	struct error err;
	struct profile_input in = {.root = "/home/u/proj", .home = "/home/u"};
	CHECK(profile_build(&in, &p, &err) == 0 && !p.private_ipc,
	      "a built profile asks for no namespaces");
	profile_add_private_ipc(&p);
	const struct rule *r = find(&p, "/dev/shm");
	CHECK(p.private_ipc && r && r->access == ACCESS_RW && r->origin == ORIGIN_PRIVATE,
	      "a session's /dev/shm is read/write, marked private for the backend");
	CHECK(!profile_allows_write(&p, "/dev/shm/home"),
	      "the private /dev/shm is no place for a lasting HOME");
	CHECK_STR(origin_name(ORIGIN_PRIVATE), "private", "moat profile names it private");
	profile_free(&p);

	struct profile_input in_shm = {.root = "/dev/shm/proj", .home = "/home/u"};
	CHECK(profile_build(&in_shm, &p, &err) == 0, "a root in /dev/shm is accepted");
	profile_add_private_ipc(&p);
	CHECK(!p.private_ipc && find(&p, "/dev/shm/proj")->origin == ORIGIN_ROOT,
	      "no private /dev/shm over a root inside it, which it would hide");
	profile_free(&p);
}

int main(void)
{
	test_defaults();
	test_private_ipc();
	test_refused_roots();
	test_grants();
	test_landlock_mapping();
	return tap_done();
}
