/* The seccomp filter moat installs, for each Landlock ABI: the program from
 * seccomp_program() run by a small classic-BPF interpreter on made-up system
 * calls, including i386 ones this machine may not be able to make (some
 * hypervisors fault on int $0x80). The end-to-end suites check the same
 * refusals on the real kernel. */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#include "sandbox/seccomp.h"
#include "tap.h"

#define BAD_PROGRAM 0xdeadbeefu
#define ALLOW       SECCOMP_RET_ALLOW
#define ERRNO(e)    (SECCOMP_RET_ERRNO | (uint32_t)(e))

/* Runs a classic BPF program the way the kernel's seccomp would, for the
 * instructions moat's assembler emits; anything else, a load out of bounds
 * or a jump off the end is BAD_PROGRAM. */
static uint32_t run_filter(const struct sock_filter *f, size_t n, const struct seccomp_data *d)
{
	uint32_t a = 0, x = 0;
	for (size_t pc = 0; pc < n; pc++) {
		const struct sock_filter *i = &f[pc];
		switch (i->code) {
		case BPF_LD | BPF_W | BPF_ABS:
			if (i->k % 4 || i->k + 4 > sizeof(*d))
				return BAD_PROGRAM;
			memcpy(&a, (const char *)d + i->k, 4);
			break;
		case BPF_ALU | BPF_AND | BPF_K: a &= i->k; break;
		case BPF_MISC | BPF_TAX: x = a; break;
		case BPF_JMP | BPF_JEQ | BPF_X: pc += a == x ? i->jt : i->jf; break;
		case BPF_JMP | BPF_JA: pc += i->k; break;
		case BPF_JMP | BPF_JEQ | BPF_K: pc += a == i->k ? i->jt : i->jf; break;
		case BPF_JMP | BPF_JGE | BPF_K: pc += a >= i->k ? i->jt : i->jf; break;
		case BPF_JMP | BPF_JGT | BPF_K: pc += a > i->k ? i->jt : i->jf; break;
		case BPF_JMP | BPF_JSET | BPF_K: pc += (a & i->k) ? i->jt : i->jf; break;
		case BPF_RET | BPF_K: return i->k;
		default: return BAD_PROGRAM;
		}
	}
	return BAD_PROGRAM;
}

static struct sock_filter prog[BPF_MAXINSNS];
static size_t prog_len;

static uint32_t verdict4(uint32_t arch, int nr, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3)
{
	struct seccomp_data d = {.nr = nr, .arch = arch, .args = {a0, a1, a2, a3}};
	return run_filter(prog, prog_len, &d);
}

static uint32_t verdict(uint32_t arch, int nr, uint64_t a0, uint64_t a1, uint64_t a2)
{
	return verdict4(arch, nr, a0, a1, a2, 0);
}

#define X86_64 AUDIT_ARCH_X86_64
#define I386   AUDIT_ARCH_I386

/* i386 numbers (arch/x86/entry/syscalls/syscall_32.tbl). */
enum {
	I386_TRUNCATE = 92,
	I386_FTRUNCATE = 93,
	I386_TRUNCATE64 = 193,
	I386_FTRUNCATE64 = 194,
	I386_OPEN = 5,
	I386_KILL = 37,
};

#define SELF 4242
#define PGRP 4200

/* Calls on other processes and set-id creation, the same on every ABI. */
static void check_processes(bool on_user_terminal)
{
	struct seccomp_policy pol = seccomp_policy_for(7, false);
	pol.deny_tty_takeover = on_user_terminal;
	pol.self = SELF, pol.pgrp = PGRP;
	prog_len = seccomp_program(&pol, prog, BPF_MAXINSNS);
	const char *how = on_user_terminal ? "on the user's terminal" : "in a session";
	CHECK(prog_len > 0, "%s: the filter assembles", how);
	CHECK(verdict(X86_64, SYS_prlimit64, 0, 4, 1) == ALLOW &&
	          verdict(X86_64, SYS_prlimit64, SELF, 4, 1) == ALLOW &&
	          verdict(X86_64, SYS_prlimit64, 999, 4, 0) == ALLOW,
	      "%s: prlimit64 on itself, and reading another's limits, allowed", how);
	CHECK(verdict(X86_64, SYS_prlimit64, 999, 4, 1) == ERRNO(EPERM) &&
	          verdict(X86_64, SYS_prlimit64, 999, 4, 1ull << 32) == ERRNO(EPERM) &&
	          verdict(I386, 340, 999, 4, 1) == ERRNO(EPERM),
	      "%s: prlimit64 setting another's limits refused, also through i386", how);
	CHECK(verdict(X86_64, SYS_setpriority, 0, 0, 10) == ALLOW &&
	          verdict(X86_64, SYS_setpriority, 0, SELF, 10) == ALLOW,
	      "%s: setpriority on itself allowed", how);
	CHECK(verdict(X86_64, SYS_setpriority, 0, 999, 10) == ERRNO(EPERM) &&
	          verdict(X86_64, SYS_setpriority, 1, 0, 10) == ERRNO(EPERM) &&
	          verdict(X86_64, SYS_setpriority, 2, 0, 10) == ERRNO(EPERM),
	      "%s: setpriority on another process, a group or a user refused", how);
	CHECK(verdict(X86_64, SYS_ioprio_set, 1, 0, 0) == ALLOW &&
	          verdict(X86_64, SYS_ioprio_set, 1, 999, 0) == ERRNO(EPERM) &&
	          verdict(X86_64, SYS_ioprio_set, 3, 0, 0) == ERRNO(EPERM),
	      "%s: ioprio_set only on itself", how);
	uint32_t foreign = on_user_terminal ? ERRNO(EPERM) : ALLOW;
	CHECK(verdict(X86_64, SYS_setpgid, 0, 0, 0) == ALLOW &&
	          verdict(X86_64, SYS_setpgid, 77, 77, 0) == ALLOW &&
	          verdict(X86_64, SYS_setpgid, 77, SELF, 0) == ALLOW &&
	          verdict(X86_64, SYS_setpgid, 0, PGRP, 0) == ALLOW,
	      "%s: setpgid into a new group, its own or the one it started in, allowed", how);
	CHECK(verdict(X86_64, SYS_setpgid, 0, 1000, 0) == foreign &&
	          verdict(X86_64, SYS_setpgid, 77, 1000, 0) == foreign,
	      "%s: setpgid into another group %s", how, on_user_terminal ? "refused" : "allowed");
	CHECK(verdict4(X86_64, SYS_openat, 3, 0, 0100, 04755) == ERRNO(EPERM) &&
	          verdict4(X86_64, SYS_openat, 3, 0, 020200000, 02755) == ERRNO(EPERM) &&
	          verdict(X86_64, SYS_open, 0, 0101, 04755) == ERRNO(EPERM) &&
	          verdict(X86_64, SYS_creat, 0, 04755, 0) == ERRNO(EPERM) &&
	          verdict(X86_64, SYS_mknod, 0, 0104755, 0) == ERRNO(EPERM) &&
	          verdict(X86_64, SYS_mknodat, 3, 0, 0106755) == ERRNO(EPERM) &&
	          verdict4(I386, 295, 3, 0, 0100, 04755) == ERRNO(EPERM) &&
	          verdict(I386, I386_OPEN, 0, 0101, 04755) == ERRNO(EPERM),
	      "%s: creating a set-id file refused, every way", how);
	CHECK(verdict4(X86_64, SYS_openat, 3, 0, 0101, 0755) == ALLOW &&
	          verdict4(X86_64, SYS_openat, 3, 0, 0, 04755) == ALLOW &&
	          verdict(X86_64, SYS_creat, 0, 0644, 0) == ALLOW,
	      "%s: plain creation, and a mode without O_CREAT, allowed", how);
	CHECK(verdict(X86_64, SYS_openat2, 3, 0, 24) == ERRNO(ENOSYS), "%s: openat2 answers ENOSYS",
	      how);
}

static void check_abi(int abi, bool sockets_let_through)
{
	struct seccomp_policy pol = seccomp_policy_for(abi, sockets_let_through);
	pol.deny_tty_takeover = true;
	prog_len = seccomp_program(&pol, prog, BPF_MAXINSNS);
	const char *how = sockets_let_through ? ", sockets let through" : "";
	if (!CHECK(prog_len > 0, "ABI %d%s: the filter assembles", abi, how))
		return;

	uint32_t trunc = abi < 3 ? ERRNO(EACCES) : ALLOW;
	CHECK(verdict(X86_64, SYS_truncate, 0, 0, 0) == trunc, "ABI %d%s: truncate() by path %s",
	      abi, how, abi < 3 ? "refused with EACCES" : "left to Landlock");
	CHECK(verdict(I386, I386_TRUNCATE, 0, 0, 0) == trunc, "ABI %d%s: i386 truncate the same",
	      abi, how);
	CHECK(verdict(I386, I386_TRUNCATE64, 0, 0, 0) == trunc,
	      "ABI %d%s: i386 truncate64 the same", abi, how);
	CHECK(verdict(X86_64, SYS_ftruncate, 3, 0, 0) == ALLOW &&
	          verdict(I386, I386_FTRUNCATE, 3, 0, 0) == ALLOW &&
	          verdict(I386, I386_FTRUNCATE64, 3, 0, 0) == ALLOW,
	      "ABI %d%s: ftruncate and ftruncate64 are allowed", abi, how);
	CHECK(verdict(X86_64, SYS_openat, 0, 0, 0) == ALLOW &&
	          verdict(I386, I386_OPEN, 0, 0, 0) == ALLOW,
	      "ABI %d%s: open is left to Landlock (O_TRUNC needs write access there)", abi, how);

	bool unix_refused = abi < 9 && !sockets_let_through;
	CHECK(verdict(X86_64, SYS_socket, AF_UNIX, SOCK_STREAM, 0) ==
	          (unix_refused ? ERRNO(EACCES) : ALLOW),
	      "ABI %d%s: socket(AF_UNIX) %s", abi, how, unix_refused ? "refused" : "allowed");
	CHECK(verdict(X86_64, SYS_io_uring_setup, 8, 0, 0) == ERRNO(ENOSYS),
	      "ABI %d%s: io_uring answers ENOSYS (its OPENAT and SOCKET are out of the filter's "
	      "sight)",
	      abi, how);
	CHECK(verdict(X86_64, SYS_socket, AF_INET, SOCK_STREAM, 0) == ALLOW,
	      "ABI %d%s: socket(AF_INET) allowed", abi, how);

	/* What every ABI gets. */
	CHECK(verdict(X86_64, SYS_ioctl, 0, 0x5412, 0) == ERRNO(EPERM) &&
	          verdict(X86_64, SYS_ioctl, 0, 0x5412 | 1ull << 32, 0) == ERRNO(EPERM) &&
	          verdict(I386, 54, 0, 0x5412, 0) == ERRNO(EPERM),
	      "ABI %d%s: TIOCSTI refused, also with bit 32 set and through i386", abi, how);
	CHECK(verdict(X86_64, SYS_ioctl, 0, 0x5410, 0) == ERRNO(EPERM),
	      "ABI %d%s: TIOCSPGRP refused by policy", abi, how);
	CHECK(verdict(X86_64, SYS_chmod, 0, 04755, 0) == ERRNO(EPERM) &&
	          verdict(X86_64, SYS_chmod, 0, 0644, 0) == ALLOW,
	      "ABI %d%s: chmod with S_ISUID refused, a plain chmod allowed", abi, how);
	CHECK(verdict(X86_64, SYS_fanotify_init, 0, 0, 0) == ERRNO(EPERM) &&
	          verdict(I386, 338, 0, 0, 0) == ERRNO(EPERM) &&
	          verdict(X86_64, SYS_inotify_init1, 0, 0, 0) == ALLOW,
	      "ABI %d%s: fanotify_init refused, inotify left alone", abi, how);
	CHECK(verdict(X86_64, SYS_keyctl, 0, 0, 0) == ERRNO(ENOSYS),
	      "ABI %d%s: keyctl answers ENOSYS", abi, how);
	CHECK(verdict(X86_64, 0x40000000 | SYS_truncate, 0, 0, 0) == ERRNO(ENOSYS),
	      "ABI %d%s: x32 calls answer ENOSYS", abi, how);
	CHECK(verdict(AUDIT_ARCH_AARCH64, SYS_truncate, 0, 0, 0) == ERRNO(ENOSYS),
	      "ABI %d%s: another architecture answers ENOSYS", abi, how);
	/* Signals are Landlock's (scoped from ABI 6); the filter lets them by. */
	CHECK(verdict(X86_64, SYS_kill, 1, 9, 0) == ALLOW &&
	          verdict(I386, I386_KILL, 1, 9, 0) == ALLOW,
	      "ABI %d%s: kill is not the filter's business", abi, how);
}

/* The network policy's sockets, with unix sockets refused (ABI < 9) and
 * let through (ABI 9): the two checks share socket()'s path. */
static void check_net(enum seccomp_net net, int abi)
{
	struct seccomp_policy pol = seccomp_policy_for(abi, false);
	pol.net = net;
	prog_len = seccomp_program(&pol, prog, BPF_MAXINSNS);
	if (!CHECK(prog_len > 0, "net %d, ABI %d: the filter assembles", net, abi))
		return;
	const uint32_t EA = ERRNO(EACCES);
	uint32_t unix_v = abi < 9 ? EA : ALLOW;
	bool inet = net == SECCOMP_NET_OPEN || net == SECCOMP_NET_OWN_NS || net == SECCOMP_NET_TCP;
	bool udp = net == SECCOMP_NET_OPEN || net == SECCOMP_NET_OWN_NS;
	CHECK(verdict(X86_64, SYS_socket, AF_UNIX, SOCK_STREAM, 0) == unix_v,
	      "net %d, ABI %d: AF_UNIX as the ABI says", net, abi);
	CHECK(verdict(X86_64, SYS_socket, AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0) ==
	          (inet ? ALLOW : EA),
	      "net %d, ABI %d: a TCP socket", net, abi);
	CHECK(verdict(X86_64, SYS_socket, AF_INET6, SOCK_STREAM, IPPROTO_TCP) ==
	          (inet ? ALLOW : EA),
	      "net %d, ABI %d: an AF_INET6 TCP socket", net, abi);
	CHECK(verdict(X86_64, SYS_socket, AF_INET, SOCK_DGRAM, 0) == (udp ? ALLOW : EA),
	      "net %d, ABI %d: a UDP socket", net, abi);
	CHECK(verdict(X86_64, SYS_socket, AF_INET, SOCK_STREAM, IPPROTO_SCTP) == (udp ? ALLOW : EA),
	      "net %d, ABI %d: an SCTP stream socket", net, abi);
	CHECK(verdict(X86_64, SYS_socket, AF_INET | (1ull << 32), SOCK_DGRAM, 0) ==
	          (udp ? ALLOW : EA),
	      "net %d, ABI %d: the family's high bits change nothing", net, abi);
	CHECK(verdict(X86_64, SYS_socket, AF_PACKET, SOCK_RAW, 0) ==
	          (net == SECCOMP_NET_OPEN ? ALLOW : EA),
	      "net %d, ABI %d: a packet socket", net, abi);
	CHECK(verdict(X86_64, SYS_socket, AF_NETLINK, SOCK_RAW, 0) ==
	          (net == SECCOMP_NET_OPEN || net == SECCOMP_NET_OWN_NS ? ALLOW : EA),
	      "net %d, ABI %d: NETLINK_ROUTE", net, abi);
	CHECK(verdict(X86_64, SYS_socket, AF_NETLINK, SOCK_RAW, 9) ==
	          (net == SECCOMP_NET_OPEN ? ALLOW : EA),
	      "net %d, ABI %d: NETLINK_AUDIT", net, abi);
	CHECK(verdict(X86_64, SYS_socket, 40 /* AF_VSOCK */, SOCK_STREAM, 0) ==
	          (net == SECCOMP_NET_OPEN ? ALLOW : EA),
	      "net %d, ABI %d: vsock", net, abi);
	CHECK(verdict4(X86_64, SYS_sendto, 3, 0, 1, 0x20000000) ==
	          (net == SECCOMP_NET_TCP ? EA : ALLOW),
	      "net %d, ABI %d: sendto with MSG_FASTOPEN", net, abi);
	CHECK(verdict4(X86_64, SYS_sendto, 3, 0, 1, 0) == ALLOW, "net %d, ABI %d: a plain sendto",
	      net, abi);
	CHECK(verdict(X86_64, SYS_sendmsg, 3, 0, 0x20000000) ==
	          (net == SECCOMP_NET_TCP ? EA : ALLOW),
	      "net %d, ABI %d: sendmsg with MSG_FASTOPEN", net, abi);
	CHECK(verdict(I386, 102, 1 /* SOCKET */, 0, 0) ==
	          (net == SECCOMP_NET_OPEN && abi >= 9 ? ALLOW : EA),
	      "net %d, ABI %d: i386 socketcall(SOCKET)", net, abi);
	CHECK(verdict(I386, 359, AF_INET, SOCK_DGRAM, 0) == (udp ? ALLOW : EA),
	      "net %d, ABI %d: i386 socket() a UDP one", net, abi);
	CHECK(verdict(X86_64, SYS_socketpair, AF_UNIX, SOCK_STREAM, 0) == ALLOW,
	      "net %d, ABI %d: a stream socketpair", net, abi);
}

int main(void)
{
	for (int abi = 1; abi <= 9; abi++)
		check_abi(abi, false);
	check_abi(2, true);
	check_abi(9, true);
	check_processes(true);
	check_processes(false);
	for (int abi = 7; abi <= 9; abi += 2)
		for (enum seccomp_net net = SECCOMP_NET_OPEN; net <= SECCOMP_NET_TCP; net++)
			check_net(net, abi);
	struct seccomp_policy pol = seccomp_policy_for(7, false);
	CHECK(!pol.deny_path_truncate && pol.deny_unix_sockets && !pol.deny_tty_takeover,
	      "ABI 7: only the AF_UNIX refusal is on by ABI; TIOCSPGRP is the caller's choice");
	pol = seccomp_policy_for(2, false);
	CHECK(pol.deny_path_truncate && pol.deny_unix_sockets,
	      "ABI 2: path truncation and AF_UNIX refused");
	return tap_done();
}
