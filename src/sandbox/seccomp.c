/* A classic BPF seccomp filter, assembled at run time from a few fixed
 * blocks so moat-wrapper needs nothing but libc and the kernel. Jumps name
 * labels and are resolved once, so no offset is ever counted by hand.
 *
 * Every sandbox (EPERM unless said otherwise):
 *  - ioctl TIOCSTI, TIOCLINUX and the VT keymap writes (KDSKBENT, KDSKBSENT,
 *    KDSKBDIACR, KDSKBDIACRUC, KDSETKEYCODE): with dev.tty.legacy_tiocsti=1
 *    a process can type into the terminal that started moat, and the shell
 *    there runs it unconfined; a remapped key types what the attacker chose
 *    the next time the user presses it. The terminal itself keeps working.
 *  - ioctl TIOCSCTTY with a non-zero argument: root stealing a terminal
 *    that is another session's controlling terminal (the user's).
 *  - open_by_handle_at(): with CAP_DAC_READ_SEARCH (root) it opens files by
 *    handle, without a path for Landlock to judge.
 *  - init_module, finit_module, delete_module, kexec_load, kexec_file_load,
 *    iopl, ioperm, bpf: root keeps its capabilities inside Landlock, and
 *    each of these reaches past any filesystem rule (kernel code, raw I/O
 *    ports, kprobes that write other processes' memory).
 *  - fanotify_init: since Linux 5.13 an unprivileged process may watch, by
 *    inode, files Landlock does not let it open (when ~/.ssh/id_rsa is read,
 *    which files an editor touches); build tools use inotify, which stays.
 *  - add_key, request_key, keyctl (ENOSYS, as on a kernel without keys):
 *    the kernel keyrings are not namespaced and no path names them, so
 *    without this a sandboxed process reads the user's keyring (Kerberos
 *    tickets in a KEYRING: cache, for one).
 *  - chmod, fchmod, fchmodat, fchmodat2 setting S_ISUID or S_ISGID: Landlock
 *    does not mediate chmod, so root in a sandbox could make any root-owned
 *    file on the host (python3, a shell) setuid for every local user. Plain
 *    mode changes stay allowed: the mode argument is all seccomp can see.
 *  - creating a file with S_ISUID or S_ISGID: open and openat with O_CREAT
 *    or O_TMPFILE, creat, mknod, mknodat; the same file root would get from
 *    chmod. openat2 (its mode is in memory seccomp cannot read) and io_uring
 *    (IORING_OP_OPENAT, and sockets without socket()) are ENOSYS, as on a
 *    kernel without them, so libraries fall back to the plain calls.
 *  - calls on another process that Landlock does not judge: prlimit64 with
 *    a new limit for a pid other than 0 or the caller (a core limit raised
 *    and a CPU limit of one second made a busy process of the user dump its
 *    memory, keys included, where the sandbox could read it; a CPU limit
 *    alone kills it), setpriority and ioprio_set on anything but the
 *    calling process.
 * By policy (struct seccomp_policy):
 *  - new AF_UNIX sockets that could reach a pathname socket outside (EACCES);
 *  - TIOCSPGRP, and setpgid into a process group that is not the caller's
 *    own, its group at start, or the target's own: a process left behind
 *    could otherwise join the foreground job of the user's terminal.
 *  - truncate by path (EACCES), where Landlock cannot mediate it (ABI < 3).
 * Compatibility syscalls: i386 gets the same checks with its own numbers;
 * x32 is refused outright (ENOSYS, as on kernels built without it) rather
 * than mirrored, since nothing moat runs is x32 and a missed number there
 * would be a way around everything above. */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sandbox/seccomp.h"
#include "sandbox/syscalls.h"

#define TIOCSCTTY_CMD    0x540Eu
#define TIOCSPGRP_CMD    0x5410u
#define TIOCSTI_CMD      0x5412u
#define TIOCLINUX_CMD    0x541Cu
#define KDSKBENT_CMD     0x4B47u
#define KDSKBSENT_CMD    0x4B49u
#define KDSKBDIACR_CMD   0x4B4Bu
#define KDSETKEYCODE_CMD 0x4B4Du
#define KDSKBDIACRUC_CMD 0x4BFBu

/* socketcall(2) call numbers (<linux/net.h>). */
#define SOCKETCALL_SOCKET     1u
#define SOCKETCALL_SOCKETPAIR 8u
#define SOCKETCALL_SENDTO     11u
#define SOCKETCALL_SENDMSG    16u
#define SOCKETCALL_SENDMMSG   20u
#define SOCK_TYPE_BITS        0xfu /* the kernel's SOCK_TYPE_MASK: type without flags */
#define MSG_FASTOPEN_         0x20000000u
#define NETLINK_ROUTE_        0u
#define IPPROTO_TCP_          6u

#define SETID_BITS          06000u               /* S_ISUID | S_ISGID */
#define CREATE_FLAGS        (0100u | 020000000u) /* O_CREAT | __O_TMPFILE: open's mode is used */
#define PRIO_PROCESS_       0u
#define IOPRIO_WHO_PROCESS_ 1u
/* Jump targets. L_NEXT means "the next instruction". */
enum label {
	L_NEXT,
	L_NATIVE,
	L_I386,
	L_IOCTL,
	L_SCTTY,
	L_SOCKET,
	L_SOCKETPAIR,
	L_SOCKETCALL,
	L_SOCKET_UNIX,
	L_SOCKET_TCP,
	L_NETLINK,
	L_SEND_FLAGS2,
	L_SEND_FLAGS3,
	L_MODE1,
	L_MODE2,
	L_OPEN,
	L_OPENAT,
	L_CREATE_MODE2,
	L_CREATE_MODE3,
	L_PRLIMIT,
	L_PRLIMIT_NEW,
	L_SETPRIO,
	L_IOPRIO,
	L_WHO_SELF,
	L_SETPGID,
	L_ALLOW,
	L_EPERM,
	L_EACCES,
	L_ENOSYS,
	L_UNAVAILABLE,
	L_FIXED, /* labels from here on are made by new_label() */
	L_COUNT = 96
};

#define MAX_INSNS 256
#define UNPLACED  SIZE_MAX

struct prog {
	struct sock_filter insn[MAX_INSNS];
	unsigned char jt[MAX_INSNS], jf[MAX_INSNS]; /* enum label, resolved later */
	size_t n;
	size_t at[L_COUNT];
	unsigned next_label;
	bool full;
};

static enum label new_label(struct prog *p)
{
	if (p->next_label < L_FIXED)
		p->next_label = L_FIXED;
	if (p->next_label == L_COUNT) {
		p->full = true;
		return L_ALLOW;
	}
	return (enum label)p->next_label++;
}

static void emit(struct prog *p, uint16_t code, uint32_t k, enum label jt, enum label jf)
{
	if (p->n == MAX_INSNS) {
		p->full = true;
		return;
	}
	p->insn[p->n] = (struct sock_filter){.code = code, .k = k};
	p->jt[p->n] = (unsigned char)jt;
	p->jf[p->n] = (unsigned char)jf;
	p->n++;
}

static void place(struct prog *p, enum label l)
{
	p->at[l] = p->n;
}

static void load(struct prog *p, uint32_t offset)
{
	emit(p, BPF_LD | BPF_W | BPF_ABS, offset, L_NEXT, L_NEXT);
}

/* Arguments are compared on their low 32 bits: the kernel reads an ioctl
 * request, a socket family or type as an int, so TIOCSTI | (1 << 32) is
 * TIOCSTI to it and must be to us. (Little-endian: the low word comes first.) */
static void load_arg_low(struct prog *p, int i)
{
	load(p, (uint32_t)offsetof(struct seccomp_data, args[i]));
}

static void jeq(struct prog *p, uint32_t k, enum label jt, enum label jf)
{
	if (k != NO_NR)
		emit(p, BPF_JMP | BPF_JEQ | BPF_K, k, jt, jf);
}

static void ret(struct prog *p, uint32_t action)
{
	emit(p, BPF_RET | BPF_K, action, L_NEXT, L_NEXT);
}

struct nr_target {
	uint32_t nr;
	enum label to;
};

static void add_target(struct nr_target *t, size_t *n, uint32_t nr, enum label to)
{
	if (nr != NO_NR)
		t[(*n)++] = (struct nr_target){nr, to};
}

static int by_nr(const void *a, const void *b)
{
	uint32_t x = ((const struct nr_target *)a)->nr, y = ((const struct nr_target *)b)->nr;
	return x < y ? -1 : x > y;
}

/* A binary search on the syscall number, so every syscall, allowed or not,
 * reaches its verdict in a handful of instructions. That matters at attach
 * time too: the kernel runs the filter once per syscall number to cache the
 * always-allowed ones, and a long linear chain made that a tenth of
 * moat-wrapper's start-up. A leaf's last miss jumps to the one shared
 * "allow" rather than to a return of its own: the kernel translates and
 * compiles every instruction at attach, and there were 26 such returns. */
static void emit_search(struct prog *p, const struct nr_target *t, size_t n)
{
	if (n == 0) {
		ret(p, SECCOMP_RET_ALLOW); /* never fall through into what follows */
		return;
	}
	if (n <= 3) {
		for (size_t i = 0; i < n; i++)
			jeq(p, t[i].nr, t[i].to, i + 1 < n ? L_NEXT : L_ALLOW);
		return;
	}
	size_t mid = n / 2;
	enum label upper = new_label(p);
	emit(p, BPF_JMP | BPF_JGE | BPF_K, t[mid].nr, upper, L_NEXT);
	emit_search(p, t, mid);
	place(p, upper);
	emit_search(p, t + mid, n - mid);
}

/* Where the filter sends a call of the table (syscalls.h) under this
 * policy; L_NEXT: let it through unlooked at. */
static enum label target_for(enum refusal_check c, const struct seccomp_policy *pol)
{
	bool sockets = pol->deny_unix_sockets || pol->net != SECCOMP_NET_OPEN;
	bool tcp = pol->net == SECCOMP_NET_TCP;
	switch (c) {
	case RC_EPERM: return L_EPERM;
	case RC_ENOSYS: return L_ENOSYS;
	case RC_UNAVAILABLE: return L_UNAVAILABLE;
	case RC_IOCTL: return L_IOCTL;
	case RC_MODE_ARG1: return L_MODE1;
	case RC_MODE_ARG2: return L_MODE2;
	case RC_OPEN: return L_OPEN;
	case RC_OPENAT: return L_OPENAT;
	case RC_PRLIMIT: return L_PRLIMIT;
	case RC_SETPRIO: return L_SETPRIO;
	case RC_IOPRIO: return L_IOPRIO;
	case RC_SETPGID: return pol->deny_tty_takeover ? L_SETPGID : L_NEXT;
	case RC_SOCKET: return sockets ? L_SOCKET : L_NEXT;
	case RC_SOCKETCALL: return sockets ? L_SOCKETCALL : L_NEXT;
	case RC_SOCKETPAIR: return pol->deny_unix_sockets ? L_SOCKETPAIR : L_NEXT;
	case RC_SEND_FLAGS2: return tcp ? L_SEND_FLAGS2 : L_NEXT;
	case RC_SEND_FLAGS3: return tcp ? L_SEND_FLAGS3 : L_NEXT;
	case RC_PATH_TRUNCATE: return pol->deny_path_truncate ? L_EACCES : L_NEXT;
	}
	return L_NEXT;
}

static void syscall_checks(struct prog *p, bool i386, const struct seccomp_policy *pol)
{
	struct nr_target t[REFUSED_CALLS_COUNT];
	size_t n = 0;
	for (size_t i = 0; i < REFUSED_CALLS_COUNT; i++) {
		enum label to = target_for(refused_calls[i].check, pol);
		if (to != L_NEXT)
			add_target(t, &n, refused_call_nr(i, i386), to);
	}
	qsort(t, n, sizeof(t[0]), by_nr);
	emit_search(p, t, n);
}

static void ioctl_checks(struct prog *p, const struct seccomp_policy *pol)
{
	static const uint32_t refused[] = {TIOCSTI_CMD,     TIOCLINUX_CMD,  KDSKBENT_CMD,
	                                   KDSKBSENT_CMD,   KDSKBDIACR_CMD, KDSKBDIACRUC_CMD,
	                                   KDSETKEYCODE_CMD};
	place(p, L_IOCTL);
	load_arg_low(p, 1);
	for (size_t i = 0; i < ARRAY_LEN(refused); i++)
		jeq(p, refused[i], L_EPERM, L_NEXT);
	if (pol->deny_tty_takeover)
		jeq(p, TIOCSPGRP_CMD, L_EPERM, L_NEXT);
	jeq(p, TIOCSCTTY_CMD, L_SCTTY, L_ALLOW);
	place(p, L_SCTTY);
	load_arg_low(p, 2); /* 1 = steal it from its session (CAP_SYS_ADMIN) */
	jeq(p, 0, L_ALLOW, L_EPERM);
}

/* At label l: argument i's low word has one of bits set? to set, else to clear. */
static void test_arg_bits(struct prog *p, enum label l, int i, uint32_t bits, enum label set,
                          enum label clear)
{
	place(p, l);
	load_arg_low(p, i);
	emit(p, BPF_JMP | BPF_JSET | BPF_K, bits, set, clear);
}

static void mode_checks(struct prog *p)
{
	test_arg_bits(p, L_MODE1, 1, SETID_BITS, L_EPERM, L_ALLOW);
	test_arg_bits(p, L_MODE2, 2, SETID_BITS, L_EPERM, L_ALLOW);
}

/* open(path, flags, mode), openat(dir, path, flags, mode): the mode only
 * counts with O_CREAT or O_TMPFILE (glibc passes none otherwise). */
static void create_checks(struct prog *p)
{
	test_arg_bits(p, L_OPEN, 1, CREATE_FLAGS, L_CREATE_MODE2, L_ALLOW);
	test_arg_bits(p, L_CREATE_MODE2, 2, SETID_BITS, L_EPERM, L_ALLOW);
	test_arg_bits(p, L_OPENAT, 2, CREATE_FLAGS, L_CREATE_MODE3, L_ALLOW);
	test_arg_bits(p, L_CREATE_MODE3, 3, SETID_BITS, L_EPERM, L_ALLOW);
}

static void load_arg_high(struct prog *p, int i)
{
	load(p, (uint32_t)offsetof(struct seccomp_data, args[i]) + 4);
}

/* Calls aimed at another process: pids are compared with the caller's own
 * (0 means the caller too). The pid is the one of the process that
 * installs the filter, which then execs the tool. */
static void process_checks(struct prog *p, const struct seccomp_policy *pol)
{
	uint32_t self = (uint32_t)pol->self;
	/* prlimit64(pid, resource, new, old): reading is harmless. */
	place(p, L_PRLIMIT);
	load_arg_low(p, 0);
	jeq(p, 0, L_ALLOW, L_NEXT);
	jeq(p, self, L_ALLOW, L_NEXT);
	load_arg_low(p, 2);
	jeq(p, 0, L_PRLIMIT_NEW, L_EPERM);
	place(p, L_PRLIMIT_NEW);
	load_arg_high(p, 2);
	jeq(p, 0, L_ALLOW, L_EPERM);
	/* setpriority(which, who, prio), ioprio_set(which, who, prio). */
	place(p, L_SETPRIO);
	load_arg_low(p, 0);
	jeq(p, PRIO_PROCESS_, L_WHO_SELF, L_EPERM);
	place(p, L_IOPRIO);
	load_arg_low(p, 0);
	jeq(p, IOPRIO_WHO_PROCESS_, L_WHO_SELF, L_EPERM);
	place(p, L_WHO_SELF);
	load_arg_low(p, 1);
	jeq(p, 0, L_ALLOW, L_NEXT);
	jeq(p, self, L_ALLOW, L_EPERM);
	/* setpgid(pid, pgid): a new group (0, or the target's own pid), the
	 * caller's, or the group it started in; never another. */
	place(p, L_SETPGID);
	load_arg_low(p, 1);
	jeq(p, 0, L_ALLOW, L_NEXT);
	jeq(p, self, L_ALLOW, L_NEXT);
	jeq(p, (uint32_t)pol->pgrp, L_ALLOW, L_NEXT);
	emit(p, BPF_MISC | BPF_TAX, 0, L_NEXT, L_NEXT);
	load_arg_low(p, 0);
	emit(p, BPF_JMP | BPF_JEQ | BPF_X, 0, L_ALLOW, L_EPERM);
}

/* socket(family, type, protocol) for a family other than AF_UNIX, as the
 * network policy says. */
static void socket_family_checks(struct prog *p, enum seccomp_net net)
{
	switch (net) {
	case SECCOMP_NET_OPEN: break; /* socket_checks: the filter as it was before policies */
	case SECCOMP_NET_UNIX_ONLY: jeq(p, AF_UNIX, L_SOCKET_UNIX, L_EACCES); break;
	case SECCOMP_NET_OWN_NS:
		jeq(p, AF_UNIX, L_SOCKET_UNIX, L_NEXT);
		jeq(p, AF_INET, L_ALLOW, L_NEXT);
		jeq(p, AF_INET6, L_ALLOW, L_NEXT);
		jeq(p, AF_NETLINK, L_NETLINK, L_EACCES);
		place(p, L_NETLINK);
		load_arg_low(p, 2);
		jeq(p, NETLINK_ROUTE_, L_ALLOW, L_EACCES);
		break;
	case SECCOMP_NET_TCP:
		jeq(p, AF_UNIX, L_SOCKET_UNIX, L_NEXT);
		jeq(p, AF_INET, L_SOCKET_TCP, L_NEXT);
		jeq(p, AF_INET6, L_SOCKET_TCP, L_EACCES);
		place(p, L_SOCKET_TCP);
		load_arg_low(p, 1);
		emit(p, BPF_ALU | BPF_AND | BPF_K, SOCK_TYPE_BITS, L_NEXT, L_NEXT);
		jeq(p, SOCK_STREAM, L_NEXT, L_EACCES);
		load_arg_low(p, 2);
		jeq(p, 0, L_ALLOW, L_NEXT);
		jeq(p, IPPROTO_TCP_, L_ALLOW, L_EACCES);
		/* A TCP Fast Open send connects without connect(), the call
		 * Landlock judges ports at. Defense in depth: on 6.18 Landlock
		 * refused it as well (tests/sandbox/net.sh passed without this);
		 * older kernels from 6.7 on were not checked. */
		test_arg_bits(p, L_SEND_FLAGS2, 2, MSG_FASTOPEN_, L_EACCES, L_ALLOW);
		test_arg_bits(p, L_SEND_FLAGS3, 3, MSG_FASTOPEN_, L_EACCES, L_ALLOW);
		break;
	}
}

static void socket_checks(struct prog *p, const struct seccomp_policy *pol)
{
	place(p, L_SOCKET);
	load_arg_low(p, 0);
	socket_family_checks(p, pol->net);
	/* An open network (the default) costs no instruction more. */
	if (pol->net != SECCOMP_NET_OPEN)
		place(p, L_SOCKET_UNIX);
	jeq(p, AF_UNIX, pol->deny_unix_sockets ? L_EACCES : L_ALLOW, L_ALLOW);

	/* A connected stream or seqpacket pair cannot be pointed anywhere else
	 * (connect: EISCONN, sendto with an address: EISCONN/EOPNOTSUPP); a
	 * datagram one can, and SOCK_RAW is made a datagram socket for AF_UNIX.
	 * So: allow exactly stream and seqpacket. */
	place(p, L_SOCKETPAIR);
	load_arg_low(p, 0);
	jeq(p, AF_UNIX, L_NEXT, L_ALLOW);
	load_arg_low(p, 1);
	emit(p, BPF_ALU | BPF_AND | BPF_K, SOCK_TYPE_BITS, L_NEXT, L_NEXT);
	jeq(p, SOCK_STREAM, L_ALLOW, L_NEXT);
	jeq(p, SOCK_SEQPACKET, L_ALLOW, L_EACCES);

	/* socketcall's real arguments sit in memory seccomp cannot read. */
	place(p, L_SOCKETCALL);
	load_arg_low(p, 0);
	jeq(p, SOCKETCALL_SOCKET, L_EACCES, L_NEXT);
	if (pol->net == SECCOMP_NET_TCP) {
		jeq(p, SOCKETCALL_SENDTO, L_EACCES, L_NEXT);
		jeq(p, SOCKETCALL_SENDMSG, L_EACCES, L_NEXT);
		jeq(p, SOCKETCALL_SENDMMSG, L_EACCES, L_NEXT);
	}
	jeq(p, SOCKETCALL_SOCKETPAIR, pol->deny_unix_sockets ? L_EACCES : L_ALLOW, L_ALLOW);
}

static bool report_to_tracer;

void seccomp_report_to_tracer(void)
{
	report_to_tracer = true;
}

/* The action refusing a call with err: the errno, or, under the tracer,
 * SIGSYS carrying it (the call is skipped all the same). */
static uint32_t refusal(int err)
{
	if (report_to_tracer)
		return SECCOMP_RET_TRAP | SECCOMP_REPORT_MARK |
		       ((uint32_t)err & SECCOMP_REPORT_ERRNO_BITS);
	return SECCOMP_RET_ERRNO | ((uint32_t)err & SECCOMP_RET_DATA);
}

static void assemble(struct prog *p, const struct seccomp_policy *pol)
{
	load(p, (uint32_t)offsetof(struct seccomp_data, arch));
#if defined(__x86_64__)
	jeq(p, NATIVE_ARCH, L_NATIVE, L_NEXT);
	jeq(p, AUDIT_ARCH_I386, L_I386, L_ENOSYS);
	place(p, L_NATIVE);
	load(p, (uint32_t)offsetof(struct seccomp_data, nr));
	emit(p, BPF_JMP | BPF_JGE | BPF_K, X32_BIT, L_ENOSYS, L_NEXT);
	syscall_checks(p, false, pol);
	place(p, L_I386);
	/* Loaded for nothing: a filter that reads anything but arch and nr
	 * is not replayed per syscall number at attach, so no i386 call is
	 * cached as always allowed. They are rare, and checking them on
	 * every call costs less than the 460 replays every start did. */
	load(p, (uint32_t)offsetof(struct seccomp_data, instruction_pointer));
	load(p, (uint32_t)offsetof(struct seccomp_data, nr));
	syscall_checks(p, true, pol);
#else
	/* No compat syscalls expected: refuse rather than guess. */
	jeq(p, NATIVE_ARCH, L_NATIVE, L_ENOSYS);
	place(p, L_NATIVE);
	load(p, (uint32_t)offsetof(struct seccomp_data, nr));
	syscall_checks(p, false, pol);
#endif
	ioctl_checks(p, pol);
	mode_checks(p);
	create_checks(p);
	process_checks(p, pol);
	socket_checks(p, pol);
	place(p, L_ALLOW);
	ret(p, SECCOMP_RET_ALLOW);
	place(p, L_EPERM);
	ret(p, refusal(EPERM));
	place(p, L_EACCES);
	ret(p, refusal(EACCES));
	place(p, L_ENOSYS);
	ret(p, refusal(ENOSYS));
	/* As on a kernel without them, even under --trace: callers fall back
	 * to the plain calls, which is no refusal to report. */
	place(p, L_UNAVAILABLE);
	ret(p, SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA));
}

/* Turn label numbers into forward offsets; classic BPF jumps only forward,
 * by at most 255. */
static int resolve(struct prog *p)
{
	if (p->full)
		return -1;
	for (size_t i = 0; i < p->n; i++) {
		unsigned char *labels[2] = {&p->jt[i], &p->jf[i]};
		uint8_t *offsets[2] = {&p->insn[i].jt, &p->insn[i].jf};
		for (int j = 0; j < 2; j++) {
			if (*labels[j] == L_NEXT)
				continue;
			size_t to = p->at[*labels[j]];
			if (to == UNPLACED || to <= i || to - i - 1 > 255)
				return -1;
			*offsets[j] = (uint8_t)(to - i - 1);
		}
	}
	return 0;
}

struct seccomp_policy seccomp_policy_for(int landlock_abi, bool sockets_let_through)
{
	return (struct seccomp_policy){
	    .deny_unix_sockets =
	        landlock_abi < SECCOMP_LANDLOCK_ABI_RESOLVE_UNIX && !sockets_let_through,
	    .deny_path_truncate = landlock_abi < SECCOMP_LANDLOCK_ABI_TRUNCATE,
	};
}

static int build(struct prog *p, const struct seccomp_policy *policy)
{
	static const struct seccomp_policy base;
	*p = (struct prog){0};
	for (size_t i = 0; i < L_COUNT; i++)
		p->at[i] = UNPLACED;
	assemble(p, policy ? policy : &base);
	return resolve(p);
}

size_t seccomp_program(const struct seccomp_policy *policy, struct sock_filter *out, size_t max)
{
	struct prog p;
	if (build(&p, policy) < 0 || p.n > max)
		return 0;
	memcpy(out, p.insn, p.n * sizeof(p.insn[0]));
	return p.n;
}

int seccomp_install(const struct seccomp_policy *policy, struct error *err)
{
	struct seccomp_policy pol = policy ? *policy : (struct seccomp_policy){0};
	pol.self = getpid();
	pol.pgrp = getpgrp();
	struct prog p;
	if (build(&p, &pol) < 0)
		return error_set(err, "cannot build the seccomp filter (a moat bug)");
	struct sock_fprog prog = {.len = (unsigned short)p.n, .filter = p.insn};
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) < 0)
		return error_errno(err, "cannot install the seccomp filter");
	return 0;
}
