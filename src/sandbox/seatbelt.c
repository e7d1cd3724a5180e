/* The macOS backend: compile the SBPL that sbpl.c renders and apply it to
 * the calling process through libsandbox, which has no public header.
 *
 * Built only on Darwin (the Makefile picks it), and never compiled or run on
 * the Linux CI: everything that can be shared (rendering, parameters, finding
 * the line a compile error names) lives in sbpl.c and is tested there, so
 * this file only loads the library and calls it. */
#include "base/envvars.h"
#include "sandbox/sandbox.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "base/strbuf.h"
#include "sandbox/sbpl.h"

#define LIBSANDBOX "/usr/lib/libsandbox.1.dylib"

/* libsandbox's own sandbox_apply() has the same name as ours, so its
 * functions are looked up with dlsym() into these pointers rather than
 * declared, which also keeps -lsandbox out of the Makefile. */
typedef void *create_params_fn(void);
typedef int set_param_fn(void *params, const char *key, const char *value);
typedef void *compile_string_fn(const char *profile, void *params, char **error);
typedef int apply_fn(void *compiled);
typedef void free_fn(void *p);

struct libsandbox {
	create_params_fn *create_params;
	set_param_fn *set_param;
	compile_string_fn *compile_string;
	apply_fn *apply;
	free_fn *free_profile; /* the free functions are optional: a leak */
	free_fn *free_params;  /* right before exec is harmless */
	free_fn *free_error;
};

/* In libSystem, so declared rather than looked up. It answers 1 when the
 * operation on the path is denied (or, with no operation, when the process
 * is sandboxed at all), 0 when allowed. */
int sandbox_check(pid_t pid, const char *operation, int type, ...);
#define SANDBOX_FILTER_NONE     0
#define SANDBOX_FILTER_PATH     1
#define SANDBOX_CHECK_NO_REPORT 0x40000000 /* do not log the denial */

static int load_libsandbox(struct libsandbox *ls, struct error *err)
{
	void *lib = dlopen(LIBSANDBOX, RTLD_NOW | RTLD_LOCAL);
	if (lib) {
		/* POSIX lets dlsym()'s result be converted to a function pointer. */
		*ls = (struct libsandbox){
		    .create_params = (create_params_fn *)dlsym(lib, "sandbox_create_params"),
		    .set_param = (set_param_fn *)dlsym(lib, "sandbox_set_param"),
		    .compile_string = (compile_string_fn *)dlsym(lib, "sandbox_compile_string"),
		    .apply = (apply_fn *)dlsym(lib, "sandbox_apply"),
		    .free_profile = (free_fn *)dlsym(lib, "sandbox_free_profile"),
		    .free_params = (free_fn *)dlsym(lib, "sandbox_free_params"),
		    .free_error = (free_fn *)dlsym(lib, "sandbox_free_error"),
		};
	}
	if (lib && ls->create_params && ls->set_param && ls->compile_string && ls->apply)
		return 0;
	error_set(err, "cannot sandbox: %s",
	          lib ? "libsandbox lacks the functions moat uses" : dlerror());
	error_hint(err, "moat uses the private interface of " LIBSANDBOX
	                ", which this macOS may have changed");
	error_hint(err, "moat never runs a tool unconfined");
	err->status = EXIT_MOAT_FAILED;
	return -1;
}

int sandbox_probe(struct sandbox_support *s, struct error *err)
{
	/* Seatbelt has no ABI levels: what the profile says is enforced, or
	 * libsandbox refuses it as a whole when it is compiled. */
	*s = (struct sandbox_support){0};
	struct libsandbox ls;
	return load_libsandbox(&ls, err);
}

static void compile_failed(const char *message, const char *sbpl, struct error *err)
{
	error_set(err, "cannot compile the sandbox profile: %s",
	          message && *message ? message : "libsandbox gave no reason");
	unsigned n = message ? sbpl_error_line(message) : 0;
	cleanup_free char *line = n ? sbpl_line(sbpl, n) : NULL;
	if (line)
		error_hint(err, "line %u of the profile is: %s", n, line);
	error_hint(err, "`moat profile --format=sbpl` prints the whole profile");
	err->status = EXIT_MOAT_FAILED;
}

void sandbox_note_own_pids(struct sandbox_support *s)
{
	(void)s;
}

/* macOS has no namespaces: a session is a plain child, and the host's
 * /tmp stays denied by the profile rather than replaced. */
pid_t sandbox_spawn(bool want_isolation, bool *isolated, int (*fn)(void *), void *arg)
{
	(void)want_isolation;
	*isolated = false;
	pid_t pid = fork();
	if (pid == 0)
		_exit(fn(arg));
	return pid;
}

int sandbox_private_mounts(struct profile *p, bool isolated, struct error *err)
{
	(void)isolated, (void)err;
	for (size_t i = 0; i < p->nrules; i++)
		if (p->rules[i].origin == ORIGIN_PRIVATE)
			p->rules[i].access = 0;
	return sandbox_protect(p, err);
}

bool sandbox_isolation_works(void)
{
	return false;
}

/* Seatbelt judges TCP ports itself (sbpl.c); it has no network namespace,
 * so off denies localhost too (docs/macos.md). */
int sandbox_net_check(const struct profile *p, const struct sandbox_support *s, struct error *err)
{
	(void)s;
	if (p->net.level != NET_HOSTS)
		return 0;
	/* No proxy here yet: refused, never widened. */
	error_set(err, "cannot limit the network to named hosts on macOS: moat's proxy runs "
	               "on Linux only");
	error_hint(err, "use --net off, TCP ports (e.g. 443), or --net open");
	err->status = EXIT_MOAT_FAILED;
	return -1;
}

void sandbox_own_network(struct profile *p)
{
	(void)p;
}

int sandbox_apply(const struct profile *p, const struct sandbox_support *s, int root_fd,
                  struct error *err)
{
	(void)s;
	(void)root_fd;
	struct libsandbox ls;
	if (load_libsandbox(&ls, err) < 0)
		return -1;
	struct strbuf sbpl = STRBUF_INIT;
	if (sbpl_render(p, &sbpl, err) < 0) {
		sb_release(&sbpl);
		err->status = EXIT_MOAT_FAILED;
		return -1;
	}

	int rc = -1;
	void *params = ls.create_params();
	void *compiled = NULL;
	if (!params) {
		error_set(err, "cannot sandbox: libsandbox could not allocate parameters");
		err->status = EXIT_MOAT_FAILED;
		goto out;
	}
	struct sbpl_param list[SBPL_MAX_PARAMS];
	size_t n = sbpl_params(p, list);
	/* A parameter that did not take shows up at compile time as a filter
	 * given #f instead of a path, so its result is not checked here. */
	for (size_t i = 0; i < n; i++)
		ls.set_param(params, list[i].name, list[i].value);

	char *message = NULL;
	compiled = ls.compile_string(sbpl.buf, params, &message);
	if (!compiled) {
		compile_failed(message, sbpl.buf, err);
		if (message && ls.free_error)
			ls.free_error(message);
		goto out;
	}
	errno = 0;
	if (ls.apply(compiled) != 0) {
		int e = errno;
		error_set(err, "cannot apply the sandbox profile: %s",
		          e ? strerror(e) : "libsandbox refused it");
		if (sandbox_check(getpid(), NULL, SANDBOX_FILTER_NONE) == 1)
			error_hint(err,
			           "this process is already in a sandbox that is not moat's, and "
			           "Seatbelt applies only one");
		err->status = EXIT_MOAT_FAILED;
		goto out;
	}
	rc = 0;
out:
	if (compiled && ls.free_profile)
		ls.free_profile(compiled);
	if (params && ls.free_params)
		ls.free_params(params);
	sb_release(&sbpl);
	return rc;
}

static bool denied(const char *operation, const char *path)
{
	return sandbox_check(getpid(), operation, SANDBOX_FILTER_PATH | SANDBOX_CHECK_NO_REPORT,
	                     path) == 1;
}

static bool allowed(const char *operation, const char *path)
{
	return sandbox_check(getpid(), operation, SANDBOX_FILTER_PATH | SANDBOX_CHECK_NO_REPORT,
	                     path) == 0;
}

int sandbox_protection_refusal(void)
{
	return ENOSYS; /* sandbox_protect below */
}

int sandbox_protect(const struct profile *p, struct error *err)
{
	/* Not on macOS yet: SBPL could deny writes there by path. */
	(void)err;
	errno = ENOSYS; /* no namespaces here, ever: never a quota */
	return profile_has_protected(p) ? 1 : 0;
}

bool sandbox_already_confined(const char *root, const char *home)
{
	const char *hint = getenv(ENV_SANDBOX);
	if (!hint || (root && strcmp(hint, root) != 0))
		return false;
	/* Seatbelt applies one profile per process, so a wrapper inside `moat
	 * shell` cannot add its own and must not try. The variable is only a
	 * hint: the kernel must say this process is sandboxed, that home is
	 * unreadable and that the root is writable. */
	if (sandbox_check(getpid(), NULL, SANDBOX_FILTER_NONE) != 1)
		return false;
	if (home && !denied(SBPL_CHECK_READ_OP, home))
		return false;
	return !root || allowed(SBPL_CHECK_WRITE_OP, root);
}

const char *sandbox_socket_warning(const struct profile *p, const struct sandbox_support *s)
{
	/* (allow network*) already reaches every unix socket on macOS; see
	 * docs/macos.md. */
	(void)p, (void)s;
	return NULL;
}
