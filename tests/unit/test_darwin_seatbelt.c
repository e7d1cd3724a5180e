/* The Seatbelt backend (src/sandbox/seatbelt.c) against the real macOS
 * kernel. macOS only: the Makefile builds tests/unit/test_darwin_*.c for a
 * Darwin target alone. The Linux CI compiles and links it for aarch64-macos
 * and x86_64-macos (`make darwin`), so a prototype or type that drifts in
 * Darwin-only code fails there, but only a Mac runs it (docs/macos.md).
 *
 * A child applies the profile moat would build for a throw-away project
 * under a throw-away HOME, then reports by its exit status what it could
 * and could not do; the parent checks that, with controls showing the same
 * accesses work unconfined. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/envvars.h"
#include "base/path.h"
#include "context/context.h"
#include "sandbox/sandbox.h"
#include "tap.h"

enum child_failure {
	APPLY_FAILED = 1 << 0,
	SECRET_READ = 1 << 1,
	ROOT_NOT_WRITABLE = 1 << 2,
	NOT_CONFINED = 1 << 3,
	PROFILE_FAILED = 1 << 4,
};

static char dir[] = "/tmp/moat-test-seatbelt.XXXXXX";

static bool can_read(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

static bool can_create(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return false;
	close(fd);
	return unlink(path) == 0;
}

/* In the child: confine, then try. Never prints: stdout is not in the
 * profile's business. */
static int confined_child(const char *root, const char *home, const char *secret,
                          const struct sandbox_support *s)
{
	struct context c;
	struct profile p;
	struct error err = {0};
	if (context_init(&c, root, home, &err) < 0 ||
	    context_build_profile(&c, context_platform(), &p, &err) < 0)
		return PROFILE_FAILED;
	if (sandbox_apply(&p, s, -1, &err) < 0)
		return APPLY_FAILED;
	int failures = 0;
	cleanup_free char *made = path_join(root, "made");
	if (can_read(secret))
		failures |= SECRET_READ;
	if (!can_create(made))
		failures |= ROOT_NOT_WRITABLE;
	setenv(ENV_SANDBOX, root, 1);
	if (!sandbox_already_confined(root, home))
		failures |= NOT_CONFINED;
	return failures;
}

int main(void)
{
	if (!mkdtemp(dir))
		abort();
	/* Seatbelt matches resolved paths: /tmp is /private/tmp. */
	cleanup_free char *base = realpath(dir, NULL);
	cleanup_free char *home = path_join(base, "home");
	cleanup_free char *root = path_join(home, "proj");
	cleanup_free char *secret = path_join(home, "secret");
	cleanup_free char *cmd = xasprintf("mkdir -p %s && echo DECOY >%s", root, secret);
	if (!base || system(cmd) != 0)
		abort();

	CHECK(context_platform() == PLATFORM_MACOS, "the profile is built for macOS");
	struct sandbox_support s;
	struct error err = {0};
	CHECK(sandbox_probe(&s, &err) == 0, "libsandbox has the functions moat uses (%s)", err.msg);
	CHECK(!sandbox_isolation_works(), "no namespaces to make on macOS");

	setenv(ENV_SANDBOX, root, 1);
	CHECK(!sandbox_already_confined(root, home),
	      "a forged MOAT_SANDBOX outside a sandbox is not believed");
	unsetenv(ENV_SANDBOX);
	cleanup_free char *made = path_join(root, "made");
	CHECK(can_read(secret) && can_create(made),
	      "control: unconfined, the secret reads and the root takes a file");

	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0)
		_exit(confined_child(root, home, secret, &s));
	int status = 0;
	bool waited = pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status);
	int failures = waited ? WEXITSTATUS(status) : 0xff;
	CHECK(waited, "the confined child exited by itself");
	CHECK(!(failures & PROFILE_FAILED), "the child built its profile");
	CHECK(!(failures & APPLY_FAILED), "libsandbox compiled and applied the rendered profile");
	CHECK(!(failures & SECRET_READ), "confined, a file in HOME outside the root is unreadable");
	CHECK(!(failures & ROOT_NOT_WRITABLE), "confined, the root takes a new file");
	CHECK(!(failures & NOT_CONFINED),
	      "confined, the kernel confirms the sandbox to the wrapper");

	cleanup_free char *rm = xasprintf("rm -rf %s", base);
	int rc = system(rm);
	(void)rc;
	return tap_done();
}
