/* The Linux backend: renders a profile into ONE Landlock ruleset and
 * applies it. One ruleset, because rights of stacked layers intersect and a
 * second layer would turn renames into EXDEV; writable rules all carry the
 * same write rights (REFER included) so renames between them keep working. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/envvars.h"
#include "base/platform.h"
#include "base/strbuf.h"
#include "sandbox/caps.h"
#include "sandbox/landlock.h"
#include "sandbox/sandbox.h"
#include "sandbox/seccomp.h"

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule       445
#define SYS_landlock_restrict_self  446
#endif

#define LL_WRITE_RIGHTS                                                                            \
	(LL_FS_WRITE_FILE | LL_FS_REMOVE_DIR | LL_FS_REMOVE_FILE | LL_FS_MAKE_DIR |                \
	 LL_FS_MAKE_REG | LL_FS_MAKE_SOCK | LL_FS_MAKE_FIFO | LL_FS_MAKE_SYM | LL_FS_REFER |       \
	 LL_FS_TRUNCATE | LL_FS_RESOLVE_UNIX)

/* Everything moat can ask of Landlock, less what this ABI lacks, in one
 * place (as the kernel's samples/landlock/sandboxer.c does). */
struct ll_ruleset_attr landlock_attr_for_abi(int abi)
{
	struct ll_ruleset_attr a = {
	    .handled_access_fs = ((LL_FS_MAKE_SYM << 1) - 1) | LL_FS_REFER | LL_FS_TRUNCATE |
	                         LL_FS_IOCTL_DEV | LL_FS_RESOLVE_UNIX,
	    .handled_access_net = LL_NET_BIND_TCP | LL_NET_CONNECT_TCP,
	    .scoped = LL_SCOPE_ABSTRACT_UNIX_SOCKET | LL_SCOPE_SIGNAL,
	};
	switch (abi) {
	case 1: a.handled_access_fs &= ~LL_FS_REFER;     /* fall through */
	case 2: a.handled_access_fs &= ~LL_FS_TRUNCATE;  /* fall through */
	case 3: a.handled_access_net = 0;                /* fall through */
	case 4: a.handled_access_fs &= ~LL_FS_IOCTL_DEV; /* fall through */
	case 5: a.scoped = 0;                            /* fall through */
	case 6:
	case 7:
	case 8: a.handled_access_fs &= ~LL_FS_RESOLVE_UNIX; break;
	default: break; /* 9 and later: everything above */
	}
	return a;
}

uint64_t landlock_fs_rights_for_abi(int abi)
{
	return landlock_attr_for_abi(abi).handled_access_fs;
}

uint64_t landlock_rights_for_access(unsigned access)
{
	uint64_t r = 0;
	if (access & ACCESS_READ)
		r |= LL_FS_READ_FILE | LL_FS_READ_DIR;
	if (access & ACCESS_WRITE)
		r |= LL_WRITE_RIGHTS;
	if (access & ACCESS_EXEC)
		r |= LL_FS_EXECUTE;
	if (access & ACCESS_IOCTL)
		r |= LL_FS_IOCTL_DEV;
	if (access & ACCESS_CONNECT)
		r |= LL_FS_RESOLVE_UNIX;
	return r;
}

static int ll_abi(void)
{
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LL_CREATE_RULESET_VERSION);
	return landlock_abi_in_effect(abi < 0 ? 0 : (int)abi);
}

/* What this ABI leaves open, then what moat refuses in its place. A
 * session in its own PID namespace cannot even name another process, so
 * signals are no gap there. */
static void describe(struct sandbox_support *s, bool own_pids)
{
	struct strbuf gaps = STRBUF_INIT, refused = STRBUF_INIT;
	if (s->abi < 5)
		sb_adds(&gaps, ", ioctls on device files (ABI 5)");
	if (s->abi < 6 && !own_pids)
		sb_adds(&gaps, ", signals to your other processes (ABI 6)");
	if (s->abi < SECCOMP_LANDLOCK_ABI_TRUNCATE)
		sb_adds(&refused, ", truncate() by path, in the project too (ABI 3)");
	if (s->abi < 2)
		sb_adds(&refused, ", renames and links across directories, in the project too "
		                  "(EXDEV, ABI 2)");
	snprintf(s->not_enforced, sizeof(s->not_enforced), "%s%s%s", gaps.len ? gaps.buf + 2 : "",
	         refused.len ? "; refused instead: " : "", refused.len ? refused.buf + 2 : "");
	sb_release(&gaps);
	sb_release(&refused);
}

int sandbox_probe(struct sandbox_support *s, struct error *err)
{
	*s = (struct sandbox_support){.abi = ll_abi()};
	if (s->abi == 0) {
		int e = errno;
		error_set(err, "cannot sandbox: Landlock is %s on this kernel",
		          e == EOPNOTSUPP ? "disabled" : "not available");
		error_hint(err,
		           "moat needs Linux 5.13 or newer with Landlock enabled, e.g. boot with "
		           "lsm=landlock,... or CONFIG_LSM including landlock");
		error_hint(err, "moat never runs a tool unconfined");
		err->status = EXIT_MOAT_FAILED;
		return -1;
	}
	describe(s, false);
	return 0;
}

void sandbox_note_own_pids(struct sandbox_support *s)
{
	describe(s, true);
}

/* Every rule but the fixed system ones holds a canonical path: the root,
 * grants and shells as the context resolved them, refusing links planted
 * where sandboxed code can write. A canonical path has no symlink in it,
 * unless one was swapped in since, say by a process left from an earlier
 * run. So it is opened refusing every symlink: the rule is on what was
 * checked, or there is no rule (ELOOP, below). The fixed paths are root's
 * and followed: /bin is a link to /usr/bin on a merged-/usr system. The
 * root, where the caller opened it already, is that descriptor: what its
 * canonical name was taken from, one lookup fewer of a path that may be
 * 128 directories deep. */
static int open_rule_path(const struct rule *r, const char *root, int root_fd)
{
	if (root_fd >= 0 && r->origin == ORIGIN_ROOT && strcmp(r->path, root) == 0)
		return fcntl(root_fd, F_DUPFD_CLOEXEC, 0);
	bool fixed = r->origin == ORIGIN_SYSTEM || r->origin == ORIGIN_DEVICE ||
	             r->origin == ORIGIN_TERMINAL || r->origin == ORIGIN_PRIVATE;
	if (fixed || r->path[0] != '/')
		return openat(AT_FDCWD, r->path, O_PATH | O_CLOEXEC);
	return platform_open_path_no_symlinks("/", r->path + 1);
}

/* A rule with rights on what fd names, and the rights it got in *got (0:
 * no rule). Landlock refuses directory rights on anything but a directory
 * (EINVAL), and then the file's rights alone are asked: no fstat first,
 * which was one call more per rule, a thousand grants over. */
static int add_path_rule(int ruleset, int fd, uint64_t rights, uint64_t *got)
{
	struct ll_path_beneath_attr pb = {.allowed_access = rights, .parent_fd = fd};
	*got = 0;
	if (syscall(SYS_landlock_add_rule, ruleset, LL_RULE_PATH_BENEATH, &pb, 0) == 0) {
		*got = rights;
		return 0;
	}
	if (errno != EINVAL || !(rights & ~LL_FS_FILE_RIGHTS))
		return -1;
	pb.allowed_access = rights & LL_FS_FILE_RIGHTS;
	if (!pb.allowed_access)
		return 0; /* nothing asked that a file could hold */
	if (syscall(SYS_landlock_add_rule, ruleset, LL_RULE_PATH_BENEATH, &pb, 0) < 0)
		return -1;
	*got = pb.allowed_access;
	return 0;
}

/* 0 when no rule was made (the path is not there) or one on a file, or
 * with fewer rights than asked for; 1 for a rule with directory rights (so
 * on a directory) and all the rights asked; -1 on error. */
static int add_rule(int ruleset, const struct rule *r, const struct profile *p, int root_fd,
                    uint64_t handled, struct error *err)
{
	/* A held descriptor is the context's, and close-on-exec: the exec
	 * closes it, with no call a rule. */
	cleanup_close int opened = r->held ? -1 : open_rule_path(r, p->root, root_fd);
	int fd = r->held ? r->fd : opened;
	if (fd < 0) {
		/* A path that does not exist gets no rule: it is simply not there;
		 * nor does one that now passes through a symlink. */
		if (errno == ENOENT || errno == ENOTDIR || errno == EACCES || errno == ELOOP ||
		    errno == EXDEV)
			return 0;
		return error_errno(err, "cannot open '%s' for the sandbox", r->path);
	}
	uint64_t rights = landlock_rights_for_access(r->access) & handled, got;
	/* A device's rule asks a file's rights at once: asked a directory's,
	 * Landlock refuses, and that was one call more in every start. */
	if (profile_rule_is_file(r))
		rights &= LL_FS_FILE_RIGHTS;
	if (!rights)
		return 0;
	if (add_path_rule(ruleset, fd, rights, &got) < 0)
		return error_errno(err, "cannot add a sandbox rule for '%s'", r->path);
	if (got)
		landlock_note("rule", r->path, got);
	return got == rights && (got & ~LL_FS_FILE_RIGHTS);
}

/* Is r, a fixed system path, a link to a directory right below /usr whose
 * rule, already added with usr_access, holds all r's access? Then r needs
 * no rule of its own (merged-/usr: /bin -> usr/bin, /lib64 -> usr/lib64).
 * Landlock allows an access when a rule on the file or on a directory it
 * passes walking up from it allows it; every name below /bin resolves to
 * /usr/bin/... and so walks up through /usr. A rule of its own on /usr/bin
 * would add only other mounts of that directory, which the profile names
 * nowhere. Exact on every name it names: the link must read "usr/NAME" or
 * "/usr/NAME", NAME one component, and /usr/NAME must be a directory and not
 * a link (which could lead out of /usr). Two calls (readlink, lstat) in
 * place of four (open, fstat, landlock_add_rule, close). */
static bool covered_by_usr(const struct rule *r, unsigned usr_access)
{
	if (r->origin != ORIGIN_SYSTEM || (r->access & ~usr_access) || r->path[0] != '/' ||
	    strchr(r->path + 1, '/'))
		return false;
	char target[64];
	ssize_t n = readlink(r->path, target, sizeof(target) - 1);
	if (n <= 0)
		return false;
	target[n] = '\0';
	const char *name = strncmp(target, "usr/", 4) == 0    ? target + 4
	                   : strncmp(target, "/usr/", 5) == 0 ? target + 5
	                                                      : NULL;
	if (!name || !*name || strchr(name, '/') || strcmp(name, ".") == 0 ||
	    strcmp(name, "..") == 0)
		return false;
	char usr_path[80];
	snprintf(usr_path, sizeof(usr_path), "/usr/%s", name);
	struct stat st;
	return lstat(usr_path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* A ports policy needs Landlock's port rules; below their ABI it is
 * refused, never widened to open. */
/* Under off or ports, a socket handed over as stdin, stdout or stderr
 * belongs to the caller's network: an IP one can be disconnected and
 * connected anew anywhere (connect with AF_UNSPEC), a unix datagram one
 * can send to any socket of the host. Such a start is refused. */
static int check_stdio_sockets(struct error *err)
{
	static const char *const names[] = {"standard input", "standard output", "standard error"};
	for (int fd = 0; fd <= 2; fd++) {
		struct stat st;
		int domain = -1, type = -1;
		socklen_t dlen = sizeof(domain), tlen = sizeof(type);
		if (fstat(fd, &st) < 0 || !S_ISSOCK(st.st_mode))
			continue;
		if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &dlen) == 0 &&
		    getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &tlen) == 0 && domain == AF_UNIX &&
		    type != SOCK_DGRAM)
			continue;
		error_set(err,
		          "cannot limit the network: %s is a socket that reaches outside the "
		          "sandbox, and could be pointed anywhere",
		          names[fd]);
		error_hint(err,
		           "redirect it to a file or a pipe (e.g. '| cat'), or use --net open");
		err->status = EXIT_MOAT_FAILED;
		return -1;
	}
	return 0;
}

int sandbox_net_check(const struct profile *p, const struct sandbox_support *s, struct error *err)
{
	if (p->net.level != NET_OPEN && check_stdio_sockets(err) < 0)
		return -1;
	if (p->net.level != NET_PORTS || s->abi >= LL_ABI_NET_TCP)
		return 0;
	error_set(err,
	          "cannot limit the network to TCP ports: this kernel's Landlock (ABI %d) cannot "
	          "judge ports; that needs ABI %d (Linux 6.7)",
	          s->abi, LL_ABI_NET_TCP);
	error_hint(err,
	           "use --net off or --net open, or change the tool's .net rule in config.zon");
	err->status = EXIT_MOAT_FAILED;
	return -1;
}

/* Handled on this kernel: an off or ports policy outside a network
 * namespace of the session's own (there, its loopback is all there is;
 * a hosts policy always has one, and the proxy judges what leaves it). */
static bool net_handled(const struct profile *p)
{
	return p->net.level != NET_OPEN && !p->net_own_ns;
}

static int add_port_rule(int ruleset, uint64_t right, uint16_t port, struct error *err)
{
	struct ll_net_port_attr np = {.allowed_access = right, .port = port};
	if (syscall(SYS_landlock_add_rule, ruleset, LL_RULE_NET_PORT, &np, 0) < 0)
		return error_errno(err, "cannot add a sandbox rule for port %u", port);
	landlock_note(right == LL_NET_BIND_TCP ? "net-bind" : "net-connect", NULL, port);
	return 0;
}

static int add_port_rules(int ruleset, const struct netpolicy *n, struct error *err)
{
	for (size_t i = 0; i < n->nconnect; i++)
		if (add_port_rule(ruleset, LL_NET_CONNECT_TCP, n->connect[i], err) < 0)
			return -1;
	for (size_t i = 0; i < n->nlisten; i++)
		if (add_port_rule(ruleset, LL_NET_BIND_TCP, n->listen[i], err) < 0)
			return -1;
	return 0;
}

static enum seccomp_net seccomp_net_for(const struct profile *p)
{
	if (p->net.level == NET_OPEN)
		return SECCOMP_NET_OPEN;
	if (p->net.level == NET_PORTS)
		return SECCOMP_NET_TCP;
	return p->net_own_ns ? SECCOMP_NET_OWN_NS : SECCOMP_NET_UNIX_ONLY;
}

/* A hosts policy holds only with the proxy on the session's own loopback:
 * without them it is refused, never widened. */
static int check_proxy(const struct profile *p, struct error *err)
{
	if (p->net.level != NET_HOSTS || p->net_proxy_port)
		return 0;
	error_set(err,
	          "cannot limit the network to named hosts: the session got no network "
	          "namespace of its own for moat's proxy (%s)",
	          p->net_own_ns ? "the proxy could not start"
	                        : "the kernel refused one: are user namespaces off here?");
	error_hint(err, "use --net off, TCP ports (e.g. --net 443), or --net open");
	err->status = EXIT_MOAT_FAILED;
	return -1;
}

int sandbox_apply(const struct profile *p, const struct sandbox_support *s, int root_fd,
                  struct error *err)
{
	if (sandbox_net_check(p, s, err) < 0 || check_proxy(p, err) < 0)
		return -1;
	struct ll_ruleset_attr attr = landlock_attr_for_abi(s->abi);
	if (!net_handled(p))
		attr.handled_access_net = 0;
	/* The whole struct on every ABI: the kernel takes fields it does not
	 * know as long as they are zero, and they are. */
	size_t size = sizeof(attr);
	cleanup_close int ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, size, 0);
	if (ruleset < 0)
		return error_errno(err, "cannot create the Landlock ruleset");
	landlock_note("abi", NULL, (uint64_t)s->abi);
	landlock_note("handled", NULL, attr.handled_access_fs);
	landlock_note("scoped", NULL, attr.scoped);
	if (attr.handled_access_net) {
		landlock_note("handled-net", NULL, attr.handled_access_net);
		if (p->net.level == NET_PORTS && add_port_rules(ruleset, &p->net, err) < 0)
			return -1;
	}
	landlock_note("attr-size", NULL, size);
	/* After sandbox_private_mounts, so "/tmp" names the private tmpfs. */
	unsigned usr_access = 0; /* the access of /usr's rule, once added */
	for (size_t i = 0; i < p->nrules; i++) {
		const struct rule *r = &p->rules[i];
		/* A protected path lies in the root or a write grant, whose rule
		 * covers it; only its mount (namespaces.c) makes it protected. */
		if (r->protect != PROTECT_NONE)
			continue;
		if (usr_access && covered_by_usr(r, usr_access)) {
			landlock_note("covered", r->path, r->access);
			continue;
		}
		int added = add_rule(ruleset, r, p, root_fd, attr.handled_access_fs, err);
		if (added < 0)
			return -1;
		if (added > 0 && r->origin == ORIGIN_SYSTEM && strcmp(r->path, "/usr") == 0)
			usr_access = r->access;
	}
	if (caps_drop_dangerous(err) < 0)
		return -1;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return error_errno(err, "cannot set no_new_privs");
	struct seccomp_policy policy = seccomp_policy_for(s->abi, profile_has_sockets(p));
	policy.deny_tty_takeover = !p->job_control;
	policy.net = seccomp_net_for(p);
	landlock_note("seccomp.net", NULL, policy.net);
	landlock_note("seccomp.deny_unix_sockets", NULL, policy.deny_unix_sockets);
	landlock_note("seccomp.deny_tty_takeover", NULL, policy.deny_tty_takeover);
	landlock_note("seccomp.deny_path_truncate", NULL, policy.deny_path_truncate);
	if (seccomp_install(&policy, err) < 0)
		return -1;
	if (syscall(SYS_landlock_restrict_self, ruleset, 0) < 0)
		return error_errno(err, "cannot apply the Landlock ruleset");
	return 0;
}

const char *sandbox_socket_warning(const struct profile *p, const struct sandbox_support *s)
{
	if (!profile_has_sockets(p) || s->abi >= 9)
		return NULL;
	if (s->abi < 6)
		return "Landlock below ABI 9 cannot confine unix sockets by path, nor below ABI 6 "
		       "abstract ones; because config.zon lists sockets, every pathname unix "
		       "socket is reachable from the sandbox, and so is every abstract one";
	return "Landlock below ABI 9 cannot confine unix sockets by path; because config.zon lists "
	       "sockets, every pathname unix socket is reachable from the sandbox";
}

/* Refused to us although an unconfined process could open it? */
static bool refused(const char *path)
{
	int fd = openat(AT_FDCWD, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		close(fd);
		return false;
	}
	return errno == EACCES;
}

bool sandbox_already_confined(const char *root, const char *home)
{
	const char *hint = getenv(ENV_SANDBOX);
	if (!hint || (root && strcmp(hint, root) != 0))
		return false;
	/* The kernel's word: no_new_privs and a seccomp filter are set, "/" (which
	 * every user may list) is refused, home is refused, and the root is not.
	 * A home below a session's private /tmp is refused too, never a
	 * readable stand-in: a private directory that holds it gives no access
	 * (profile_isolate). One that is absent there is out of reach anyway. */
	if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1 || prctl(PR_GET_SECCOMP, 0, 0, 0, 0) != 2)
		return false;
	if (!refused("/"))
		return false;
	struct stat st;
	if (home && stat(home, &st) == 0 && !refused(home))
		return false;
	if (!root)
		return true;
	int fd = openat(AT_FDCWD, root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}
