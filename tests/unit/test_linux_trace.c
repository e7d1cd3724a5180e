/* The pure half of --trace (the report: collapsing, the ~/ form, the
 * wrapped tool as BIN, seccomp refusals, JSON) and the tracer's one open of
 * a path a sandboxed process named (trace_open_regular), raced. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/path.h"
#include "base/util.h"
#include "sandbox/syscalls.h"
#include "tap.h"
#include "trace/linux.h"
#include "trace/trace.h"

#define HOME "/home/u"

static struct profile test_profile(void)
{
	struct profile p = {.platform = PLATFORM_LINUX, .net = NETPOLICY_OPEN};
	p.root = xstrdup(HOME "/proj");
	profile_add_rule(&p, HOME "/proj", ACCESS_ALL, ORIGIN_ROOT, NULL);
	profile_add_rule(&p, "/usr", ACCESS_RX, ORIGIN_SYSTEM, NULL);
	return p;
}

static void add(struct trace_log *log, pid_t pid, const char *name, const char *tool,
                enum trace_op op, const char *path, const char *detail, int err)
{
	struct trace_denial d = {.pid = pid,
	                         .name = (char *)name,
	                         .tool = (char *)tool,
	                         .op = op,
	                         .path = (char *)path,
	                         .detail = (char *)detail,
	                         .err = err};
	trace_log_add(log, &d);
}

/* The lines of the report after the one starting with from. */
static char *section(const char *report, const char *from)
{
	const char *s = strstr(report, from);
	if (!s)
		return xstrdup("(missing)");
	s = strchr(s, '\n');
	s = s ? s + 1 : "";
	const char *end = strstr(s, "\n\n");
	const char *hint = strstr(s, "\nhint:");
	if (hint && (!end || hint < end))
		end = hint;
	return end ? xstrndup(s, (size_t)(end - s + 1)) : xstrdup(s);
}

static const char *const own[] = {HOME "/.config/moat", HOME "/.local/state/moat"};
static const char *const own_what[] = {"moat's config directory", "moat's state directory"};
static const struct trace_facts facts = {.home = HOME,
                                         .config = HOME "/.config/moat/config.zon",
                                         .abi = 7,
                                         .own = own,
                                         .own_what = own_what,
                                         .nown = 2};

/* No write grant over moat's own files is ever suggested (issue 13). */
static void test_own(void)
{
	struct profile p = test_profile();
	struct trace_log log = {0};
	add(&log, 30, "sh", NULL, TRACE_CREATE, HOME "/.config/moat/config.zon.tmp", NULL, EACCES);
	add(&log, 31, "sh", NULL, TRACE_CREATE, HOME "/.local/x", NULL, EACCES);
	add(&log, 31, "sh", NULL, TRACE_CREATE, HOME "/.local/state/y", NULL, EACCES);
	add(&log, 32, "sh", NULL, TRACE_CREATE, HOME "/.config/gh/hosts", NULL, EACCES);
	add(&log, 33, "sh", NULL, TRACE_READ, HOME "/.config/moat/config.zon", NULL, EACCES);
	struct strbuf out = STRBUF_INIT;
	trace_report(&log, &p, &facts, &out);
	CHECK(strstr(out.buf, "~/.config/moat --write") == NULL &&
	          strstr(out.buf, "~/.local --write") == NULL &&
	          strstr(out.buf, "~/.local/state --write") == NULL,
	      "no write grant holding or inside moat's own places is suggested");
	CHECK(strstr(out.buf,
	             "none for " HOME "/.config/moat/config.zon.tmp: a write grant on " HOME
	             "/.config/moat would be moat's config directory") != NULL,
	      "the reason is shown instead");
	CHECK(strstr(out.buf, "moat allow sh ~/.config/gh --write\n") != NULL,
	      "a write grant beside them is still suggested");
	sb_release(&out);
	trace_log_free(&log);
	profile_free(&p);
}

static void test_collapse(void)
{
	struct profile p = test_profile();
	struct trace_log log = {0};
	add(&log, 10, "python3", NULL, TRACE_READ, HOME "/.pyenv/version", NULL, EACCES);
	add(&log, 10, "python3", NULL, TRACE_LIST, HOME "/.pyenv/versions/3.12/lib", NULL, EACCES);
	add(&log, 10, "python3", NULL, TRACE_EXEC, HOME "/.pyenv/versions/3.12/bin/python3", NULL,
	    EACCES);
	add(&log, 10, "python3", NULL, TRACE_CREATE, HOME "/.pyenv/shims/.lock", NULL, EACCES);
	add(&log, 11, "cat", NULL, TRACE_READ, HOME "/.ssh/config", NULL, EACCES);
	add(&log, 11, "cat", NULL, TRACE_READ, HOME "/.ssh/known_hosts", NULL, EACCES);
	add(&log, 12, "pip", NULL, TRACE_READ, HOME "/.cache/pip/http/a", NULL, EACCES);
	add(&log, 12, "pip", NULL, TRACE_CREATE, HOME "/.cache/pip/wheels/b", NULL, EACCES);
	add(&log, 13, "cargo", NULL, TRACE_READ, HOME "/.cargo/config.toml", NULL, EACCES);
	add(&log, 14, "ls", NULL, TRACE_READ, "/opt/x/a", NULL, EACCES);
	add(&log, 14, "ls", NULL, TRACE_READ, "/opt/x/b", NULL, EACCES);
	struct strbuf out = STRBUF_INIT;
	trace_report(&log, &p, &facts, &out);
	char *grants = section(out.buf, "to grant, pick");
	CHECK_STR(grants,
	          "  moat allow python3 ~/.pyenv --write --exec\n"
	          "  moat allow cat ~/.ssh/config\n"
	          "  moat allow cat ~/.ssh/known_hosts\n"
	          "  moat allow pip ~/.cache/pip --write\n"
	          "  moat allow cargo ~/.cargo/config.toml\n"
	          "  moat allow ls /opt/x/a\n"
	          "  moat allow ls /opt/x/b\n",
	          "several grants under a tool's directory collapse to it, in the ~/ form; "
	          "secrets, single grants and paths outside HOME do not");
	CHECK(strstr(out.buf,
	             "hint: a tool that keeps its cache or config under your home directory "
	             "is usually better served by a home inside the project than by a grant: "
	             "run it with MOAT_ENV_HOME=" HOME "/proj/.moat/home\n") != NULL,
	      "the hint names the real path, never $MOAT_ROOT");
	free(grants);
	sb_reset(&out);
	trace_report_json(&log, &p, &facts, &out);
	CHECK(strstr(out.buf, "\"suggestions\":[\"moat allow python3 ~/.pyenv --write --exec\"]") !=
	          NULL,
	      "JSON: each refusal under ~/.pyenv points at the collapsed grant");
	CHECK(strstr(out.buf,
	             "{\"kind\":\"grant\",\"text\":\"moat allow python3 ~/.pyenv --write --exec\","
	             "\"bin\":\"python3\",\"path\":\"" HOME
	             "/.pyenv\",\"access\":[\"read\",\"write\","
	             "\"exec\"],\"why\":null}") != NULL,
	      "JSON: the grant once, with bin, path and access");
	sb_release(&out);
	trace_log_free(&log);
	profile_free(&p);
}

static void test_tool(void)
{
	struct profile p = test_profile();
	struct trace_log log = {0};
	add(&log, 20, "node", "npm", TRACE_READ, HOME "/.npmrc", NULL, EACCES);
	add(&log, 21, "sh", "npm", TRACE_READ, HOME "/.npmrc", NULL, EACCES);
	add(&log, 22, "node", NULL, TRACE_READ, HOME "/.noderc", NULL, EACCES);
	add(&log, 23, "x\xc2\x9by", NULL, TRACE_READ, HOME "/.xrc", NULL, EACCES);
	struct strbuf out = STRBUF_INIT;
	trace_report(&log, &p, &facts, &out);
	char *lines = section(out.buf, "path(s) denied");
	CHECK_STR(lines,
	          "  node[20] (npm) +1  read  " HOME "/.npmrc  (2 times)\n"
	          "  node[22]           read  " HOME "/.noderc\n"
	          "  x\\xc2\\x9by[23]     read  " HOME "/.xrc\n",
	          "the process, the wrapped tool it runs under, names escaped");
	char *grants = section(out.buf, "to grant, pick");
	CHECK_STR(grants,
	          "  moat allow npm ~/.npmrc\n"
	          "  moat allow node ~/.noderc\n"
	          "  moat allow '*' ~/.xrc\n",
	          "the grant names the wrapped tool; a name that cannot be shown is '*'");
	free(lines);
	free(grants);
	sb_release(&out);
	trace_log_free(&log);
	profile_free(&p);
}

static void test_seccomp(void)
{
	struct profile p = test_profile();
	struct trace_log log = {0};
	add(&log, 30, "python3", NULL, TRACE_SOCKET, NULL, "AF_UNIX stream socket", EACCES);
	add(&log, 30, "python3", NULL, TRACE_SOCKET, NULL, "AF_UNIX stream socket", EACCES);
	add(&log, 32, "sh", NULL, TRACE_IOCTL, NULL, "TIOCSTI", EPERM);
	add(&log, 33, "krb", NULL, TRACE_SYSCALL, NULL, "keyctl", ENOSYS);
	log.v[log.n - 1].why = refused_call_find(NATIVE_ARCH, SYS_keyctl)->why; /* as refusals.c */
	struct strbuf out = STRBUF_INIT;
	trace_report(&log, &p, &facts, &out);
	CHECK(!strstr(out.buf, "path(s) denied") && !strstr(out.buf, "nothing was denied"),
	      "no path refused, but not 'nothing was denied' either");
	char *lines = section(out.buf, "system call(s) refused by the sandbox's seccomp filter");
	CHECK_STR(lines,
	          "  python3[30]  socket   AF_UNIX stream socket  (2 times)\n"
	          "  sh[32]       ioctl    TIOCSTI\n"
	          "  krb[33]      syscall  keyctl\n",
	          "each refusal of the filter, by operation and what it was");
	CHECK(strstr(out.buf,
	             "\nto let unix sockets through, add to ~/.config/moat/config.zon:\n"
	             "  .sockets = .{ \"" HOME "/proj/.moat/tmp\" }\n"
	             "  (Landlock ABI 7 cannot confine unix sockets by path, so any entry lets "
	             "every unix socket through, in every project: the ssh-agent's, D-Bus, "
	             "docker.sock)\n") != NULL,
	      "the socket: the config.zon setting that allows it, and its cost");
	CHECK(strstr(out.buf, "  none for ioctl TIOCSTI: typing into the terminal") != NULL,
	      "TIOCSTI: none, and why");
	CHECK(strstr(out.buf, "  none for syscall keyctl: the kernel keyrings") != NULL,
	      "keyctl: none, and why");
	sb_reset(&out);
	trace_report_json(&log, &p, &facts, &out);
	CHECK(strstr(out.buf,
	             "{\"pid\":30,\"program\":\"python3\",\"tool\":null,\"operation\":\"socket\","
	             "\"path\":null,\"other\":null,\"detail\":\"AF_UNIX stream socket\",\"errno\":"
	             "\"EACCES\",\"count\":2,\"suggestions\":[\".sockets = .{ \\\"" HOME
	             "/proj/.moat/tmp\\\" }\"],\"why\":null}") != NULL,
	      "JSON: the socket refusal with its setting");
	CHECK(strstr(out.buf,
	             "{\"kind\":\"setting\",\"text\":\".sockets = .{ \\\"" HOME
	             "/proj/.moat/tmp\\\" }\",\"file\":\"" HOME "/.config/moat/config.zon\","
	             "\"key\":\"sockets\",\"value\":\"" HOME "/proj/.moat/tmp\"") != NULL,
	      "JSON: the setting, its file, key and value");
	free(lines);
	sb_release(&out);
	trace_log_free(&log);
	profile_free(&p);
}

/* --- trace_open_regular ---------------------------------------------------- */

static char dir[] = "/tmp/moat-test-trace.XXXXXX";

static void test_open_regular(void)
{
	if (!mkdtemp(dir))
		abort();
	char *file = path_join(dir, "script"), *fifo = path_join(dir, "fifo");
	char *link = path_join(dir, "link"), *sub = path_join(dir, "sub");
	char *via = path_join(dir, "via/script"), *via_dir = path_join(dir, "via");
	FILE *f = fopen(file, "w");
	fputs("#!/bin/sh\n", f);
	fclose(f);
	if (mkfifo(fifo, 0644) < 0 || symlink("script", link) < 0 || mkdir(sub, 0755) < 0 ||
	    symlink(".", via_dir) < 0)
		abort();
	int fd = trace_open_regular(file);
	char buf[16] = "";
	CHECK(fd >= 0 && read(fd, buf, 2) == 2 && memcmp(buf, "#!", 2) == 0,
	      "a regular file opens and reads");
	if (fd >= 0)
		close(fd);
	CHECK(trace_open_regular(fifo) < 0, "a FIFO is refused (without blocking)");
	CHECK(trace_open_regular("/dev/null") < 0, "a device is refused");
	CHECK(trace_open_regular(sub) < 0, "a directory is refused");
	CHECK(trace_open_regular(link) < 0, "a symlink is refused");
	CHECK(trace_open_regular(via) < 0, "a path through a symlinked directory is refused");
	CHECK(trace_open_regular("relative") < 0, "a relative path is refused");
	free(file);
	free(fifo);
	free(link);
	free(sub);
	free(via);
	free(via_dir);
}

static atomic_bool stop;

/* Swap the script and the FIFO as fast as possible, as a sandboxed process
 * racing the tracer would. */
static void *swapper(void *arg)
{
	(void)arg;
	char *a = path_join(dir, "script"), *b = path_join(dir, "fifo");
	while (!atomic_load(&stop))
		syscall(SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b, 2 /* RENAME_EXCHANGE */);
	free(a);
	free(b);
	return NULL;
}

/* How many times the FIFO's inode was opened, per inotify. */
static int fifo_opens(int in)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	int n = 0;
	for (ssize_t len; (len = read(in, buf, sizeof(buf))) > 0;)
		for (char *p = buf; p < buf + len;) {
			struct inotify_event *e = (struct inotify_event *)p;
			n += (e->mask & IN_OPEN) != 0;
			p += sizeof(*e) + e->len;
		}
	return n;
}

static void test_race(void)
{
	char *path = path_join(dir, "script"), *fifo = path_join(dir, "fifo");
	int in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	/* The watch follows the FIFO's inode through every swap. */
	if (in < 0 || inotify_add_watch(in, fifo, IN_OPEN) < 0)
		abort();
	pthread_t t;
	atomic_store(&stop, false);
	pthread_create(&t, NULL, swapper, NULL);
	int regular = 0, wrong = 0, control_fifo = 0;
	time_t until = time(NULL) + 2;
	for (int i = 0; i < 200000 && time(NULL) <= until; i++) {
		int fd = trace_open_regular(path);
		struct stat st;
		if (fd >= 0) {
			if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
				regular++;
			else
				wrong++;
			close(fd);
		}
	}
	int opens_new = fifo_opens(in);
	/* The control: what the tracer did before, stat() then open(). */
	for (int i = 0; i < 200000 && control_fifo == 0; i++) {
		struct stat st;
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
			int fd = open(path, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
			if (fd >= 0 && fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode))
				control_fifo++;
			if (fd >= 0)
				close(fd);
		}
	}
	int opens_old = fifo_opens(in);
	atomic_store(&stop, true);
	pthread_join(t, NULL);
	close(in);
	CHECK(regular > 0, "raced: the script was opened (%d times)", regular);
	CHECK(wrong == 0, "raced: never anything but a regular file (%d others)", wrong);
	CHECK(opens_new == 0, "raced: the FIFO was never opened, not even for a moment (%d opens)",
	      opens_new);
	CHECK(control_fifo > 0 && opens_old > 0,
	      "control: stat() then open() does open the FIFO under the same race (%d opens)",
	      opens_old);
	free(path);
	free(fifo);
	char *cmd = xasprintf("rm -rf %s", dir);
	if (system(cmd) != 0)
		abort();
	free(cmd);
}

int main(void)
{
	test_collapse();
	test_tool();
	test_seccomp();
	test_open_regular();
	test_race();
	test_own();
	return tap_done();
}
