/* The tracer's one open of a path a sandboxed process named
 * (trace_open_regular), raced. */
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
#include "tap.h"
#include "trace/linux.h"
#include "trace/trace.h"

/* --- trace_open_regular ---------------------------------------------------- */

static char dir[] = "/tmp/moat-test-trace.XXXXXX";

static void test_open_regular(void)
{
	if (!mkdtemp(dir))
		abort();
	char *file = path_join(dir, "script"), *fifo = path_join(dir, "fifo");
	char *link = path_join(dir, "link"), *sub = path_join(dir, "sub");
	char *via = path_join(dir, "via/script");
	FILE *f = fopen(file, "w");
	fputs("#!/bin/sh\n", f);
	fclose(f);
	if (mkfifo(fifo, 0644) < 0 || symlink("script", link) < 0 || mkdir(sub, 0755) < 0 ||
	    symlink(".", path_join(dir, "via")) < 0)
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
	test_open_regular();
	test_race();
	return tap_done();
}
