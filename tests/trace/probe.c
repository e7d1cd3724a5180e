/* What the tests in tests/trace run inside the sandbox to be refused from
 * a known process, thread or kind of binary. Built by the test script,
 * dynamic and (when libc.a is there) static.
 *
 *   probe read PATH          open PATH, print "pid=N"
 *   probe fork PATH1 PATH2   a forked child opens PATH1, then the parent
 *                            PATH2; prints "child=N" and "parent=N"
 *   probe thread PATH        a second thread opens PATH; prints "pid=N"
 *                            and "tid=N" (the thread's)
 *   probe tty                prints "foreground" when stdin is a terminal
 *                            whose foreground process group is ours
 *
 * read, fork and thread exit 0 when every open was refused with EACCES, 1 otherwise, so a test
 * knows the sandbox really said no. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static int refused(const char *path)
{
	int fd = open(path, O_RDONLY);
	if (fd >= 0) {
		close(fd);
		return 0;
	}
	return errno == EACCES;
}

static void *in_thread(void *path)
{
	printf("tid=%ld\n", (long)syscall(SYS_gettid));
	fflush(stdout);
	return (void *)(long)refused(path);
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "read") == 0) {
		printf("pid=%d\n", (int)getpid());
		return refused(argv[2]) ? 0 : 1;
	}
	if (argc == 4 && strcmp(argv[1], "fork") == 0) {
		fflush(stdout);
		pid_t pid = fork();
		if (pid == 0) {
			printf("child=%d\n", (int)getpid());
			fflush(stdout);
			_exit(refused(argv[2]) ? 0 : 1);
		}
		int status;
		if (pid < 0 || waitpid(pid, &status, 0) < 0)
			return 1;
		printf("parent=%d\n", (int)getpid());
		return WIFEXITED(status) && WEXITSTATUS(status) == 0 && refused(argv[3]) ? 0 : 1;
	}
	if (argc == 3 && strcmp(argv[1], "thread") == 0) {
		pthread_t t;
		void *ok;
		printf("pid=%d\n", (int)getpid());
		fflush(stdout);
		if (pthread_create(&t, NULL, in_thread, argv[2]) != 0 || pthread_join(t, &ok) != 0)
			return 1;
		return ok ? 0 : 1;
	}
	if (argc == 2 && strcmp(argv[1], "tty") == 0) {
		pid_t fg = tcgetpgrp(0);
		if (fg < 0)
			puts("no terminal");
		else
			puts(fg == getpgrp() ? "foreground" : "background");
		return 0;
	}
	fprintf(stderr, "usage: probe read PATH | fork PATH1 PATH2 | thread PATH | tty\n");
	return 2;
}
