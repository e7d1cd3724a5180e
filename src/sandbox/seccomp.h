/* The seccomp filter every moat sandbox carries, for what Landlock cannot
 * express: keystroke injection into the terminal, opening files by handle,
 * the kernel-wide powers root keeps inside a sandbox, and, on kernels whose
 * Landlock cannot confine connect() to pathname unix sockets (ABI < 9), new
 * AF_UNIX sockets. See docs/security.md for what each choice costs. */
#ifndef MOAT_SANDBOX_SECCOMP_H
#define MOAT_SANDBOX_SECCOMP_H

#include <stdbool.h>

#include "base/util.h"

/* Landlock ABI that confines connect()/sendmsg() to pathname unix sockets
 * (LANDLOCK_ACCESS_FS_RESOLVE_UNIX). */
#define SECCOMP_LANDLOCK_ABI_RESOLVE_UNIX 9

struct seccomp_policy {
	/* Refuse every way to make a new AF_UNIX socket that could reach a
	 * pathname socket outside the sandbox: socket(AF_UNIX), datagram
	 * socketpair() (sendto() takes any path), i386 socketcall(SOCKET,
	 * SOCKETPAIR) (its arguments are out of seccomp's sight) and io_uring
	 * (IORING_OP_SOCKET makes sockets without socket()). Stream and
	 * seqpacket socketpair() and pipes keep working. Refusals are EACCES,
	 * io_uring is ENOSYS so runtimes fall back to plain syscalls. */
	bool deny_unix_sockets;
	/* Refuse TIOCSPGRP: a process left behind by a sandboxed tool could
	 * otherwise make itself the terminal's foreground and read what the
	 * user types into the shell after moat has returned. Costs job control
	 * in an interactive shell run inside the sandbox. */
	bool deny_tty_takeover;
};

/* What moat asks of seccomp on a kernel with this Landlock ABI. sockets_let_through
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
#define SECCOMP_REPORT_MARK 0x7000u
#define SECCOMP_REPORT_ERRNO_BITS 0x0fffu

/* Install the filter on the calling thread (no_new_privs must be set).
 * policy may be NULL for the parts every sandbox gets. */
int seccomp_install(const struct seccomp_policy *policy, struct error *err);

#endif
