/* The tracer of moat run --trace: an unconfined parent following the
 * confined command and everything it starts.
 *
 * Why ptrace and not seccomp user notification: a notification arrives
 * before the syscall runs, and the supervisor never learns how it ended.
 * Telling a Landlock refusal from success would mean redoing the operation
 * in the supervisor, which for creates, writes and removes is neither safe
 * nor exact. ptrace sees the return value at the syscall's exit. To keep the
 * stops few the child installs, before confining itself, a seccomp filter
 * (filter.c) that returns SECCOMP_RET_TRACE only for the syscalls Landlock
 * can refuse; everything else runs without stopping. A watched syscall
 * costs two stops: the seccomp stop at entry, where its arguments are kept,
 * and, because the tracer resumes it with PTRACE_SYSCALL, one exit stop,
 * where a failure with EACCES, EPERM or EXDEV (or EROFS, or EBUSY from a
 * rename: a protected path's mount) is handed to judge.c.
 *
 * PTRACE_SEIZE with PTRACE_O_TRACE{FORK,VFORK,CLONE,EXEC} follows every
 * process and thread the command starts, statically linked ones included:
 * ptrace does not care how a program was built. SEIZE (not TRACEME) keeps
 * job control honest: a stopped tracee is parked with PTRACE_LISTEN, and
 * moat stops too, as it would if it were the command. PTRACE_O_EXITKILL:
 * should moat die, its tracees die with it, since without a tracer every
 * watched syscall of theirs would fail with ENOSYS.
 *
 * The child stays in moat's process group, so it keeps the terminal's
 * foreground and gets what the terminal sends (^C, ^\, ^Z) itself; moat
 * forwards only the signals addressed to it alone. */
#ifdef __linux__
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/audit.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#if defined(__x86_64__)
#include <sys/user.h>
#elif defined(__aarch64__)
#include <asm/ptrace.h>
#include <elf.h>
#include <sys/uio.h>
#endif

#include "base/fs.h"
#include "base/path.h"
#include "sandbox/seccomp.h"
#include "trace/linux.h"

/* One traced thread. */
struct task {
	pid_t tid;
	char *name;   /* of its process, as of its last exec; NULL until known */
	char *tool;   /* the wrapped tool it runs under (see trace_denial), or NULL */
	bool in_call; /* resumed at a watched syscall's entry, its exit to come */
	bool wrapper; /* running moat-wrapper, not the tool yet */
	long nr;
	uint64_t args[6];
	struct task *next;
};

#define NBUCKETS 256

struct tracer {
	struct task *buckets[NBUCKETS];
	size_t ntasks;
	pid_t main; /* the command */
	int main_status;
	const struct trace_opts *opts;
	struct trace_log *log;
};

static struct task **slot(struct tracer *t, pid_t tid)
{
	struct task **p = &t->buckets[(unsigned)tid % NBUCKETS];
	while (*p && (*p)->tid != tid)
		p = &(*p)->next;
	return p;
}

static struct task *task_get(struct tracer *t, pid_t tid)
{
	struct task **p = slot(t, tid);
	if (!*p) {
		*p = xcalloc(1, sizeof(**p));
		(*p)->tid = tid;
		t->ntasks++;
	}
	return *p;
}

static void task_drop(struct tracer *t, pid_t tid)
{
	struct task **p = slot(t, tid);
	struct task *k = *p;
	if (!k)
		return;
	*p = k->next;
	free(k->name);
	free(k->tool);
	free(k);
	t->ntasks--;
}

/* Read a small /proc/TID file; "" when it cannot be read. */
static size_t proc_read(pid_t tid, const char *what, char *buf, size_t size)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/%s", (int)tid, what);
	cleanup_close int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, size - 1);
	buf[n > 0 ? n : 0] = '\0';
	return n > 0 ? (size_t)n : 0;
}

/* A process's name: argv[0]'s basename, which is what a wrapped tool is
 * called and what `moat allow BIN` matches; a login shell's leading '-'
 * dropped. The kernel's 15-byte comm when argv[0] is empty. */
static char *process_name(pid_t tid)
{
	char buf[4096];
	proc_read(tid, "cmdline", buf, sizeof(buf));
	const char *name = path_basename(buf);
	while (*name == '-')
		name++;
	if (!*name) {
		proc_read(tid, "comm", buf, sizeof(buf));
		buf[strcspn(buf, "\n")] = '\0';
		name = buf;
	}
	return xstrdup(*name ? name : "?");
}

/* The process a thread belongs to. */
static pid_t thread_group(pid_t tid)
{
	char buf[4096];
	proc_read(tid, "status", buf, sizeof(buf));
	const char *line = strstr(buf, "\nTgid:");
	return line ? (pid_t)strtol(line + 6, NULL, 10) : tid;
}

/* A process's parent, from /proc/TID/status. */
static pid_t parent_of(pid_t tid)
{
	char buf[4096];
	proc_read(tid, "status", buf, sizeof(buf));
	const char *line = strstr(buf, "\nPPid:");
	return line ? (pid_t)strtol(line + 7, NULL, 10) : 0;
}

/* The name of a task whose spawn event has not been taken yet (the tracer
 * takes stops in any order): it has not exec'd, so it runs what its
 * process, or its parent, ran when it was made, and has the name the
 * tracer gave that one. /proc's cmdline would be wrong where the tracer
 * named the command itself, before its first exec. */
static char *unspawned_task_name(struct tracer *t, pid_t tid)
{
	pid_t tgid = thread_group(tid);
	struct task *from = *slot(t, tgid != tid ? tgid : parent_of(tid));
	return from && from->name ? xstrdup(from->name) : process_name(tid);
}

static void on_seccomp(pid_t tid, struct task *k)
{
	struct __ptrace_syscall_info info;
	k->in_call = false;
	if (ptrace(PTRACE_GET_SYSCALL_INFO, tid, (void *)sizeof(info), &info) <= 0 ||
	    info.op != PTRACE_SYSCALL_INFO_SECCOMP)
		return;
	k->nr = (long)info.seccomp.nr;
	memcpy(k->args, info.seccomp.args, sizeof(k->args));
	k->in_call = true;
}

static void on_syscall_exit(struct tracer *t, pid_t tid, struct task *k)
{
	struct __ptrace_syscall_info info;
	if (!k->in_call)
		return;
	k->in_call = false;
	if (ptrace(PTRACE_GET_SYSCALL_INFO, tid, (void *)sizeof(info), &info) <= 0 ||
	    info.op != PTRACE_SYSCALL_INFO_EXIT || !info.exit.is_error)
		return;
	int err = (int)-info.exit.rval;
	const struct sc_desc *d = trace_syscall(k->nr);
	/* EROFS and EBUSY: a protected path's read-only mount, or a rename
	 * over it (git's lock files) or of a pinned one; report.c names them. */
	bool mount_refusal = err == EROFS || (err == EBUSY && d && d->kind == SC_RENAME);
	/* A session whose network is off has a namespace of its own: what
	 * lies outside is unreachable rather than refused (judge.c). */
	bool no_network = err == ENETUNREACH && d && d->kind == SC_CONNECT;
	if (!d || (err != EACCES && err != EPERM && err != EXDEV && !mount_refusal && !no_network))
		return;
	/* moat-wrapper tells a session from the outside by opening / and
	 * $HOME and being refused: moat's probe, not the tool's doing. Its exec
	 * of the real tool is the tool's, and is reported. */
	if (k->wrapper && d->kind != SC_EXEC)
		return;
	if (!k->name)
		k->name = unspawned_task_name(t, tid);
	trace_judge(tid, thread_group(tid), k->name, k->tool, d, k->args, err, t->log);
}

/* fork, vfork, clone: the new task belongs to the parent's process or is
 * a copy of it, so it has its name until it execs. Its first stop may have
 * come before this event; then it is already known, without a name. It
 * may even have exec'd already (the tracer takes stops in any order): then
 * its name and whether it is moat-wrapper are its own, not its parent's. */
static void on_spawn(struct tracer *t, pid_t tid, struct task *k)
{
	unsigned long msg;
	if (ptrace(PTRACE_GETEVENTMSG, tid, NULL, &msg) < 0)
		return;
	struct task *child = task_get(t, (pid_t)msg);
	if (!child->name) {
		child->name = k->name ? xstrdup(k->name) : process_name((pid_t)msg);
		child->wrapper = k->wrapper;
	}
	if (!child->tool && k->tool)
		child->tool = xstrdup(k->tool);
}

/* A thread other than the leader that execs takes the leader's id; its old
 * id is never heard of again. The exec succeeded: no exit stop follows. */
static void on_exec(struct tracer *t, pid_t tid, struct task *k)
{
	unsigned long former;
	if (ptrace(PTRACE_GETEVENTMSG, tid, NULL, &former) == 0 && (pid_t)former != tid)
		task_drop(t, (pid_t)former);
	k->in_call = false;
	/* moat-wrapper, invoked as a tool's name, has just exec'd the real
	 * binary (or the kernel its script's interpreter): from here on this
	 * process and all it starts run under that tool, and a grant for it
	 * is what reaches them through the wrapper. The outermost wins: a
	 * wrapper started by a wrapped tool is confined by the first one. */
	if (k->wrapper && !k->tool && k->name)
		k->tool = xstrdup(k->name);
	free(k->name);
	k->name = process_name(tid);
	char exe[64], target[PATH_MAX];
	snprintf(exe, sizeof(exe), "/proc/%d/exe", (int)tid);
	ssize_t n = readlink(exe, target, sizeof(target) - 1);
	target[n > 0 ? n : 0] = '\0';
	k->wrapper = strcmp(path_basename(target), "moat-wrapper") == 0;
}

#ifndef SYS_SECCOMP
#define SYS_SECCOMP 1 /* si_code of a SIGSYS from seccomp (<asm-generic/siginfo.h>) */
#endif

/* The registers of a stopped thread: the arguments of the system call it
 * made, and its return value. */
#if defined(__x86_64__)
static bool get_args(pid_t tid, uint32_t arch, uint64_t args[6])
{
	struct user_regs_struct r;
	if (ptrace(PTRACE_GETREGS, tid, NULL, &r) < 0)
		return false;
	if (arch == AUDIT_ARCH_I386) {
		uint64_t a[6] = {r.rbx, r.rcx, r.rdx, r.rsi, r.rdi, r.rbp};
		memcpy(args, a, sizeof(a));
	} else {
		uint64_t a[6] = {r.rdi, r.rsi, r.rdx, r.r10, r.r8, r.r9};
		memcpy(args, a, sizeof(a));
	}
	return true;
}

static bool set_return(pid_t tid, long value)
{
	struct user_regs_struct r;
	if (ptrace(PTRACE_GETREGS, tid, NULL, &r) < 0)
		return false;
	r.rax = (unsigned long long)value;
	return ptrace(PTRACE_SETREGS, tid, NULL, &r) == 0;
}
#elif defined(__aarch64__)
static bool regs(pid_t tid, struct user_pt_regs *r, int req)
{
	struct iovec io = {r, sizeof(*r)};
	return ptrace(req, tid, (void *)NT_PRSTATUS, &io) == 0;
}

static bool get_args(pid_t tid, uint32_t arch, uint64_t args[6])
{
	(void)arch;
	struct user_pt_regs r;
	if (!regs(tid, &r, PTRACE_GETREGSET))
		return false;
	memcpy(args, r.regs, 6 * sizeof(uint64_t));
	return true;
}

static bool set_return(pid_t tid, long value)
{
	struct user_pt_regs r;
	if (!regs(tid, &r, PTRACE_GETREGSET))
		return false;
	r.regs[0] = (uint64_t)value;
	return regs(tid, &r, PTRACE_SETREGSET);
}
#endif

/* A SIGSYS from the sandbox's seccomp filter (seccomp_report_to_tracer):
 * the kernel skipped the call; report it and make it fail with the errno
 * the filter chose, as it would without --trace. Returns false for any
 * other SIGSYS, or when the registers cannot be set: then the signal is
 * delivered, and kills the process unless it handles SIGSYS. */
static bool on_sigsys(struct tracer *t, pid_t tid, struct task *k)
{
	siginfo_t si;
	if (ptrace(PTRACE_GETSIGINFO, tid, NULL, &si) < 0 || si.si_code != SYS_SECCOMP)
		return false;
	unsigned data = (unsigned)si.si_errno;
	if ((data & ~SECCOMP_REPORT_ERRNO_BITS) != SECCOMP_REPORT_MARK)
		return false;
	int err = (int)(data & SECCOMP_REPORT_ERRNO_BITS);
	uint64_t args[6] = {0};
	get_args(tid, si.si_arch, args);
	if (!set_return(tid, -(long)err))
		return false;
	if (!k->name)
		k->name = unspawned_task_name(t, tid);
	trace_judge_seccomp(tid, thread_group(tid), k->name, k->tool, si.si_arch, si.si_syscall,
	                    args, err, t->log);
	return true;
}

static volatile sig_atomic_t g_child; /* the command */
static volatile sig_atomic_t g_child_done;
static volatile sig_atomic_t g_stop_rest; /* asked to stop what the command left running */
static volatile sig_atomic_t g_alarm;

static void on_forwarded(int sig, siginfo_t *si, void *unused)
{
	(void)unused;
	int saved = errno;
	if (g_child_done)
		g_stop_rest = 1;
	/* The terminal signals the whole foreground group: the command has it
	 * already if it is still in ours. */
	else if (!(si->si_code == SI_KERNEL && getpgid(g_child) == getpgrp()))
		kill(g_child, sig);
	errno = saved;
}

static void on_alarm(int sig)
{
	(void)sig;
	g_alarm = 1;
}

static const int forwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
/* moat must not stop on its own: it stops when the command does. */
static const int ignored[] = {SIGTSTP, SIGTTIN, SIGTTOU};

struct saved_signals {
	struct sigaction fwd[ARRAY_LEN(forwarded)], ign[ARRAY_LEN(ignored)], alarm;
};

static void signals_take(struct saved_signals *s)
{
	struct sigaction fwd = {.sa_sigaction = on_forwarded, .sa_flags = SA_SIGINFO};
	struct sigaction ign = {.sa_handler = SIG_IGN};
	struct sigaction alarm_sa = {.sa_handler = on_alarm};
	sigemptyset(&fwd.sa_mask);
	for (size_t i = 0; i < ARRAY_LEN(forwarded); i++) {
		sigaction(forwarded[i], NULL, &s->fwd[i]);
		/* Ignored when moat started (nohup, a background job): the
		 * command inherited that, and moat leaves it so. */
		if (s->fwd[i].sa_handler != SIG_IGN)
			sigaction(forwarded[i], &fwd, NULL);
	}
	for (size_t i = 0; i < ARRAY_LEN(ignored); i++)
		sigaction(ignored[i], &ign, &s->ign[i]);
	sigaction(SIGALRM, &alarm_sa, &s->alarm);
}

static void signals_restore(const struct saved_signals *s)
{
	alarm(0);
	for (size_t i = 0; i < ARRAY_LEN(forwarded); i++)
		sigaction(forwarded[i], &s->fwd[i], NULL);
	for (size_t i = 0; i < ARRAY_LEN(ignored); i++)
		sigaction(ignored[i], &s->ign[i], NULL);
	sigaction(SIGALRM, &s->alarm, NULL);
}

static bool is_stop_signal(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

/* The command stopped (^Z, SIGSTOP): without --trace moat would be the
 * command, so its shell must see moat stop, and continuing moat continues
 * the command. The shell's SIGCONT reaches the command itself while it is
 * in moat's process group. */
static void stop_with(pid_t child)
{
	kill(getpid(), SIGSTOP);
	if (getpgid(child) != getpgrp())
		kill(child, SIGCONT);
}

static void handle_stop(struct tracer *t, pid_t tid, int status)
{
	int sig = WSTOPSIG(status), event = (unsigned)status >> 16, inject = 0;
	int resume = PTRACE_CONT; /* glibc's enum __ptrace_request; musl's int */
	struct task *k = task_get(t, tid);
	switch (event) {
	case PTRACE_EVENT_SECCOMP:
		on_seccomp(tid, k);
		if (k->in_call)
			resume = PTRACE_SYSCALL;
		break;
	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_VFORK:
	case PTRACE_EVENT_CLONE: on_spawn(t, tid, k); break;
	case PTRACE_EVENT_EXEC: on_exec(t, tid, k); break;
	case PTRACE_EVENT_STOP:
		/* A group-stop: stay stopped until SIGCONT. Otherwise the first
		 * stop of a new task, or the wake-up from a group-stop. */
		if (is_stop_signal(sig)) {
			ptrace(PTRACE_LISTEN, tid, NULL, NULL);
			if (tid == t->main)
				stop_with(tid);
			return;
		}
		break;
	case 0:
		if (sig == (SIGTRAP | 0x80))
			on_syscall_exit(t, tid, k);
		else if (!(sig == SIGSYS && on_sigsys(t, tid, k)))
			inject = sig; /* a signal for the tracee: deliver it */
		break;
	default: break;
	}
	ptrace(resume, tid, NULL, (void *)(uintptr_t)inject);
}

static void kill_all(struct tracer *t)
{
	for (size_t b = 0; b < NBUCKETS; b++)
		for (struct task *k = t->buckets[b]; k; k = k->next)
			kill(k->tid, SIGKILL);
}

static int trace_loop(struct tracer *t, struct error *err)
{
	bool told = false;
	for (;;) {
		if (g_stop_rest) {
			g_stop_rest = 0;
			kill_all(t);
		}
		if (g_alarm && !told) {
			told = true;
			if (t->ntasks && t->opts->lingering)
				t->opts->lingering(t->opts->arg);
		}
		int status;
		pid_t tid = waitpid(-1, &status, __WALL);
		if (tid < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ECHILD)
				return 0;
			return error_errno(err, "cannot wait for the command");
		}
		if (WIFEXITED(status) || WIFSIGNALED(status)) {
			task_drop(t, tid);
			if (tid == t->main) {
				t->main_status = status;
				g_child_done = 1;
				alarm(1);
			}
		} else if (WIFSTOPPED(status)) {
			handle_stop(t, tid, status);
		}
	}
}

static void tracer_free(struct tracer *t)
{
	for (size_t b = 0; b < NBUCKETS; b++)
		while (t->buckets[b])
			task_drop(t, t->buckets[b]->tid);
}

/* The child: wait until the tracer is attached, then filter, confine, exec.
 * A failure before the command runs goes back through report_fd. */
static void child_main(const struct trace_opts *o, int go_fd, int report_fd)
{
	char go;
	ssize_t n;
	do
		n = read(go_fd, &go, 1);
	while (n < 0 && errno == EINTR);
	if (n != 1)
		_exit(EXIT_MOAT_FAILED);
	struct error err = {0};
	/* The sandbox's own filter, installed by the child, then raises SIGSYS
	 * for what it refuses: RET_ERRNO would outrank this tracer's RET_TRACE
	 * and go unseen. */
	seccomp_report_to_tracer();
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		error_errno(&err, "cannot set no_new_privs");
	else
		trace_filter_install(&err);
	if (err.msg[0]) {
		(void)!write(report_fd, err.msg, strlen(err.msg));
		_exit(EXIT_MOAT_FAILED);
	}
	close(report_fd);
	_exit(o->child(o->arg));
}

static int seize(pid_t pid, struct error *err)
{
	long opts = PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK |
	            PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC | PTRACE_O_TRACESECCOMP |
	            PTRACE_O_EXITKILL;
	if (ptrace(PTRACE_SEIZE, pid, NULL, (void *)opts) == 0)
		return 0;
	error_errno(err, "cannot trace the command");
	if (errno == EPERM)
		error_hint(err, "ptrace is restricted here: kernel.yama.ptrace_scope, a "
		                "container's seccomp profile, or moat itself being traced");
	err->status = EXIT_MOAT_FAILED;
	return -1;
}

int trace_run(const struct trace_opts *o, struct trace_log *log, int *status, struct error *err)
{
	int go[2], report[2];
	if (pipe2(go, O_CLOEXEC) < 0)
		return error_errno(err, "cannot make a pipe");
	if (pipe2(report, O_CLOEXEC) < 0) {
		close(go[0]);
		close(go[1]);
		return error_errno(err, "cannot make a pipe");
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		close(go[1]);
		close(report[0]);
		child_main(o, go[0], report[1]);
	}
	close(go[0]);
	close(report[1]);
	if (pid < 0 || seize(pid, err) < 0) {
		if (pid < 0)
			error_errno(err, "cannot start the command");
		close(go[1]);
		close(report[0]);
		if (pid > 0) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
		}
		err->status = EXIT_MOAT_FAILED;
		return -1;
	}
	struct tracer t = {.main = pid, .opts = o, .log = log};
	task_get(&t, pid)->name = xstrdup(path_basename(o->name));
	g_child = pid;
	g_child_done = g_stop_rest = g_alarm = 0;
	struct saved_signals saved;
	signals_take(&saved);
	(void)!write(go[1], "g", 1);
	close(go[1]);
	int rc = trace_loop(&t, err);
	signals_restore(&saved);
	tracer_free(&t);
	*status = t.main_status;
	char msg[sizeof(err->msg)];
	ssize_t n = read(report[0], msg, sizeof(msg) - 1);
	close(report[0]);
	if (rc == 0 && n > 0) {
		msg[n] = '\0';
		error_set(err, "%s", msg);
		rc = -1;
	}
	if (rc < 0)
		err->status = EXIT_MOAT_FAILED;
	return rc;
}

/* The last NSpid of /proc/PID/status: the pid in the innermost namespace. */
static pid_t pid_seen_inside(pid_t pid)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	cleanup_free char *buf = NULL;
	size_t len;
	struct error unused;
	if (fs_read_file(path, 1 << 16, &buf, &len, &unused) < 0)
		return pid;
	const char *line = strstr(buf, "\nNSpid:");
	if (!line)
		return pid;
	line += 7;
	long last = pid;
	for (char *end; *line && *line != '\n'; line = end) {
		long v = strtol(line, &end, 10);
		if (end == line)
			break;
		last = v;
	}
	return (pid_t)last;
}

void trace_record(struct trace_log *log, struct trace_denial *d)
{
	d->pid = pid_seen_inside(d->pid);
	trace_log_add(log, d);
}
#endif
