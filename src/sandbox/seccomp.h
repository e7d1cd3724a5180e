/* The seccomp filter every moat sandbox carries, for what Landlock cannot
 * express: keystroke injection into the terminal, opening files by handle,
 * the kernel-wide powers root keeps inside a sandbox, and, on kernels whose
 * Landlock cannot confine connect() to pathname unix sockets (ABI < 9), new
 * AF_UNIX sockets. See docs/security.md for what each choice costs. */
#ifndef MOAT_SANDBOX_SECCOMP_H
#define MOAT_SANDBOX_SECCOMP_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "base/util.h"

/* Landlock ABI that confines connect()/sendmsg() to pathname unix sockets
 * (LANDLOCK_ACCESS_FS_RESOLVE_UNIX). */
#define SECCOMP_LANDLOCK_ABI_RESOLVE_UNIX 9
/* Landlock ABI that mediates truncate(2) by path (LANDLOCK_ACCESS_FS_TRUNCATE). */
#define SECCOMP_LANDLOCK_ABI_TRUNCATE 3

/* Which sockets a network policy leaves (profile/netpolicy.h). */
enum seccomp_net {
	SECCOMP_NET_OPEN,      /* every family: the default, no check at all */
	SECCOMP_NET_UNIX_ONLY, /* off: AF_UNIX alone (no IP, netlink, packet, vsock...) */
	SECCOMP_NET_OWN_NS,    /* off in a network namespace of the session's own: AF_UNIX,
	                        * AF_INET, AF_INET6 (its loopback) and NETLINK_ROUTE */
	SECCOMP_NET_TCP,       /* ports: AF_UNIX, and AF_INET/AF_INET6 stream sockets of
	                        * TCP alone (no UDP, raw, SCTP or MPTCP); Landlock judges
	                        * their ports. sendto/sendmsg with MSG_FASTOPEN (a connect
	                        * without connect()) are refused. */
};

struct seccomp_policy {
	/* Refuse every way to make a new AF_UNIX socket that could reach a
	 * pathname socket outside the sandbox: socket(AF_UNIX), datagram
	 * socketpair() (sendto() takes any path), i386 socketcall(SOCKET,
	 * SOCKETPAIR) (its arguments are out of seccomp's sight) and io_uring
	 * (IORING_OP_SOCKET makes sockets without socket()). Stream and
	 * seqpacket socketpair() and pipes keep working. Refusals are EACCES,
	 * io_uring is ENOSYS so runtimes fall back to plain syscalls. */
	bool deny_unix_sockets;
	/* The tool shares the user's terminal session (moat-wrapper): refuse
	 * TIOCSPGRP and setpgid into any process group but a new one, the
	 * caller's or the one it started in, so that a process left behind
	 * cannot make itself or join the terminal's foreground and read what
	 * the user types after moat has returned. Costs job control to an
	 * interactive shell run that way; a session's terminal is its own. */
	bool deny_tty_takeover;
	/* Filled in by seccomp_install: the caller's pid and process group. */
	pid_t self, pgrp;
	/* Refuse truncate(2) by path (x86_64 truncate; i386 truncate and
	 * truncate64) with EACCES, the errno Landlock gives from ABI 3. Below
	 * that Landlock never sees the call, so without this the sandbox could
	 * empty any file the user may write, inside its rules or not. Classic
	 * seccomp cannot read the path, so it is refused in the root too;
	 * ftruncate() and open(O_TRUNC) need a descriptor opened for writing,
	 * which Landlock does judge, and keep working. */
	bool deny_path_truncate;
	/* The network policy's sockets (EACCES for the rest). Anything but
	 * OPEN refuses i386 socketcall(SOCKET), whose family seccomp cannot
	 * read, and TCP its SENDTO, SENDMSG and SENDMMSG too. */
	enum seccomp_net net;
};

/* What moat asks of seccomp on a kernel with this Landlock ABI: what that
 * ABI cannot mediate (path truncation below 3, unix sockets below 9).
 * sockets_let_through
 * is true when the user listed unix sockets to reach on purpose (config key
 * `sockets`): classic seccomp cannot tell one path from another, so on
 * ABI < 9 that turns the AF_UNIX refusal off entirely, and the caller must
 * say that pathname sockets are not confined. */
struct seccomp_policy seccomp_policy_for(int landlock_abi, bool sockets_let_through);

/* Under `moat run --trace` only: make every refusal of the filters this
 * process installs from now on raise SIGSYS (SECCOMP_RET_TRAP, data
 * SECCOMP_REPORT_MARK | errno) instead of failing with the errno, so the
 * tracer sees it, reports it, and makes the call fail with that errno.
 * The call is skipped by the kernel either way; a SIGSYS nobody handles
 * kills the process, so without the tracer nothing more is allowed. */
void seccomp_report_to_tracer(void);
#define SECCOMP_REPORT_MARK       0x7000u
#define SECCOMP_REPORT_ERRNO_BITS 0x0fffu

/* Install the filter on the calling thread (no_new_privs must be set).
 * policy may be NULL for the parts every sandbox gets. */
int seccomp_install(const struct seccomp_policy *policy, struct error *err);

/* The program seccomp_install() would install, as classic BPF instructions
 * (struct sock_filter from <linux/filter.h>), for tests that run it on
 * made-up system calls. Returns the number of instructions, or 0 if it
 * does not fit in max. */
struct sock_filter;
size_t seccomp_program(const struct seccomp_policy *policy, struct sock_filter *out, size_t max);

#endif
