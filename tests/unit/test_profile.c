/* The profile builder: default rules, refusals, merging, env changes. */
#include <stdio.h>
#include <stdlib.h>

#include "base/path.h"
#include "profile/profile.h"
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
	profile_refuse_root("/data", "/data/u", &err);
	CHECK(strstr(err.msg, "contains your home directory") != NULL, "ancestor message: %s",
	      err.msg);
	profile_refuse_root("/home/u", "/home/u", &err);
	CHECK(strstr(err.msg, "is your home directory") != NULL, "home message: %s", err.msg);

	/* Shared system directories: refused as themselves, or with all below. */
	static const char *const shared[] = {
	    "/",        "/tmp",         "/var/tmp",
	    "/dev/shm", "/etc",         "/etc/ssl",
	    "/usr",     "/usr/local",   "/usr/local/src/x",
	    "/var",     "/var/lib",     "/opt",
	    "/srv",     "/run",         "/run/user/1000",
	    "/mnt",     "/media",       "/proc",
	    "/proc/1",  "/sys",         "/boot",
	    "/nix",     "/nix/store/x", "/home",
	    "/dev",     "/bin",         "/lib64",
	};
	for (size_t i = 0; i < ARRAY_LEN(shared); i++) {
		error_clear(&err);
		CHECK(profile_refuse_root(shared[i], "/home/u", &err) < 0 &&
		          strstr(err.msg, "directory") && err.status == EXIT_MOAT_FAILED,
		      "shared %s refused: %s", shared[i], err.msg);
	}
	static const char *const projects[] = {
	    "/tmp/tmp.x1",    "/var/tmp/build",   "/dev/shm/proj",
	    "/srv/www/app",   "/opt/project",     "/var/lib/jenkins/workspace/app",
	    "/mnt/data/repo", "/home/other/proj", "/work/main",
	};
	for (size_t i = 0; i < ARRAY_LEN(projects); i++)
		CHECK(profile_refuse_root(projects[i], "/home/u", &err) == 0, "project %s accepted",
		      projects[i]);
}

static void test_grants(void)
{
	struct grant grants[] = {
	    {.bin = "git", .path = "/home/u/.gitconfig", .access = ACCESS_READ},
	    {.bin = "cargo", .path = "/home/u/.cargo", .access = ACCESS_RW},
	    {.bin = "cargo", .path = "/home/u/.cargo", .access = ACCESS_READ | ACCESS_EXEC},
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
		struct grant g = {.bin = "x", .path = bad[i], .access = ACCESS_READ};
		struct profile_input in2 = {
		    .root = "/home/u/proj", .home = "/home/u", .grants = &g, .ngrants = 1};
		CHECK(profile_build(&in2, &p, &err) < 0, "grant of '%s' is refused", bad[i]);
	}
}

/* 3,000 grants on 1,000 paths (each path three times, the second widening
 * it): one rule per path, in first-seen order, with the union of access and
 * the widening grant named as its origin. The index is rebuilt as it grows,
 * so this crosses several resizes. */
static void test_many_grants(void)
{
	enum { N = 1000 };
	static char paths[N][32];
	static struct grant grants[3 * N];
	for (size_t i = 0; i < N; i++) {
		snprintf(paths[i], sizeof(paths[i]), "/srv/g/%04zu", i);
		grants[i] = (struct grant){.bin = "a", .path = paths[i], .access = ACCESS_READ};
		grants[N + i] =
		    (struct grant){.bin = "b", .path = paths[N - 1 - i], .access = ACCESS_RW};
		grants[2 * N + i] =
		    (struct grant){.bin = "c", .path = paths[i], .access = ACCESS_READ};
	}
	struct profile_input in = {
	    .root = "/home/u/proj", .home = "/home/u", .grants = grants, .ngrants = 3 * N};
	struct profile p;
	struct error err;
	CHECK(profile_build(&in, &p, &err) == 0, "3,000 grants build");
	size_t first = p.nrules, bad = 0;
	for (size_t i = 0; i < p.nrules; i++)
		if (strncmp(p.rules[i].path, "/srv/g/", 7) == 0 && first == p.nrules)
			first = i;
	CHECK(p.nrules - first == N, "one rule per path (%zu)", p.nrules - first);
	for (size_t i = 0; i < N && first + i < p.nrules; i++) {
		const struct rule *r = &p.rules[first + i];
		bad += strcmp(r->path, paths[i]) != 0 || r->access != ACCESS_RW ||
		       r->origin != ORIGIN_GRANT || !r->bin || strcmp(r->bin, "b") != 0;
	}
	CHECK(bad == 0,
	      "in first-seen order, widened to read/write by the grant that widened them "
	      "(%zu wrong)",
	      bad);
	profile_free(&p);
}

/* A private directory standing in for host paths refuses what it does not
 * carry: a write there would otherwise vanish with the session. */
static void test_isolate_host_paths(void)
{
	struct {
		const char *root, *home;
		unsigned tmp, var_tmp;
		const char *why;
	} cases[] = {
	    {"/home/u/proj", "/home/u", ACCESS_RW, ACCESS_RW, "nothing of the host's below them"},
	    {"/tmp/w/proj", "/home/u", 0, ACCESS_RW, "the root below /tmp"},
	    {"/home/u/proj", "/tmp/h", 0, ACCESS_RW, "home below /tmp"},
	    {"/var/tmp/proj", "/tmp/h", 0, 0, "the root below /var/tmp, home below /tmp"},
	    {"/srv/proj", "/tmp", 0, ACCESS_RW, "home is /tmp itself"},
	};
	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		struct profile p;
		struct error err;
		struct profile_input in = {.root = cases[i].root, .home = cases[i].home};
		CHECK(profile_build(&in, &p, &err) == 0, "builds (%s)", cases[i].why);
		profile_isolate(&p, in.home);
		const struct rule *tmp = find(&p, "/tmp"), *var_tmp = find(&p, "/var/tmp");
		CHECK(tmp && tmp->access == cases[i].tmp && var_tmp &&
		          var_tmp->access == cases[i].var_tmp &&
		          find(&p, "/dev/shm")->access == ACCESS_RW,
		      "private directories' access: %s", cases[i].why);
		profile_free(&p);
	}
	struct profile p;
	struct error err;
	struct grant g = {.bin = "*", .path = "/tmp/cache", .access = ACCESS_RW};
	struct profile_input in = {
	    .root = "/home/u/proj", .home = "/home/u", .grants = &g, .ngrants = 1};
	CHECK(profile_build(&in, &p, &err) == 0, "builds with a grant below /tmp");
	profile_isolate(&p, in.home);
	CHECK(find(&p, "/tmp")->access == 0, "a grant below /tmp: the rest of it is refused");
	profile_free(&p);
}

static void test_isolate(void)
{
	struct profile p;
	struct error err;
	struct profile_input in = {.root = "/home/u/proj", .home = "/home/u"};
	CHECK(profile_build(&in, &p, &err) == 0 && !p.isolate && !p.job_control,
	      "a built profile asks for no namespaces, and no job control on the user's terminal");
	profile_isolate(&p, in.home);
	CHECK(p.isolate && p.job_control, "a session is isolated, on a terminal of its own");
	const char *dirs[] = {"/tmp", "/var/tmp", "/dev/shm"};
	for (size_t i = 0; i < ARRAY_LEN(dirs); i++) {
		const struct rule *r = find(&p, dirs[i]);
		CHECK(r && r->access == ACCESS_RW && r->origin == ORIGIN_PRIVATE,
		      "a session's %s is read/write, marked private for the backend", dirs[i]);
	}
	CHECK(!profile_allows_write(&p, "/dev/shm/home"),
	      "the private /dev/shm is no place for a lasting HOME");
	CHECK(!profile_allows_write(&p, "/tmp/home"), "nor the private /tmp");
	CHECK_STR(origin_name(ORIGIN_PRIVATE), "private", "moat profile names it private");
	CHECK(!profile_has_protected(&p), "nothing is protected until asked");
	CHECK(profile_allows_write(&p, "/home/u/proj/.git/hooks/pre-commit"),
	      "the root's .git/hooks is writable by the root's rule");
	size_t before = p.nrules;
	profile_protect(&p, "/home/u/proj/.git", PROTECT_PIN);
	profile_protect(&p, "/home/u/proj/.git/hooks", PROTECT_MAKE_DIR);
	profile_protect(&p, "/home/u/proj/.git/config", PROTECT_READ_ONLY);
	profile_protect(&p, "/home/u/proj/.git/config", PROTECT_READ_ONLY);
	CHECK(p.nrules == before + 3, "each protected path is one rule, once");
	const struct rule *r = find(&p, "/home/u/proj/.git/hooks");
	CHECK(r && r->access == ACCESS_READ && r->origin == ORIGIN_PROTECTED &&
	          r->protect == PROTECT_MAKE_DIR,
	      "a protected path is read-only");
	CHECK_STR(origin_name(ORIGIN_PROTECTED), "protected", "and named protected");
	r = find(&p, "/home/u/proj/.git");
	CHECK(r && r->access == ACCESS_RW && r->origin == ORIGIN_PINNED, "the git dir is pinned");
	CHECK_STR(origin_name(ORIGIN_PINNED), "pinned", "and named pinned");
	CHECK(profile_has_protected(&p), "the profile protects something");
	CHECK(!profile_allows_write(&p, "/home/u/proj/.git/hooks/pre-commit"),
	      "a path below a protected one is not writable");
	CHECK(!profile_allows_write(&p, "/home/u/proj/.git/config"), "nor the protected file");
	CHECK(profile_allows_write(&p, "/home/u/proj/.git/objects"), "the rest of .git is");
	profile_add_rule(&p, "/home/u/proj/.git/hooks", ACCESS_RW, ORIGIN_GRANT, "*");
	CHECK(p.nrules == before + 4, "a grant on a protected path is a rule of its own");
	CHECK(!profile_allows_write(&p, "/home/u/proj/.git/hooks/x"),
	      "and does not make it writable");
	profile_free(&p);
}

int main(void)
{
	test_defaults();
	test_isolate();
	test_isolate_host_paths();
	test_many_grants();
	test_refused_roots();
	test_grants();
	return tap_done();
}
