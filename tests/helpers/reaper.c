/* reaper [-t SECONDS] CMD [ARG...]: run CMD as the child of a subreaper,
 * and say what outlived it. Prints "status N" (CMD's wait status), then one
 * line per process that was still there when CMD had exited and so came to
 * us: "outlived: exited N" once it has (N its wait status), or "outlived:
 * still running" after SECONDS (10), when it is killed. For the tests of
 * what a moat session leaves behind for a moment: its supervisor, which
 * exits once moat has. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { STEP_MS = 5 };

/* Our children, as /proc lists them: never kill(-1), which as root is
 * every process on the machine. */
static void kill_children(void)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/task/%d/children", (int)getpid());
	FILE *f = fopen(path, "r");
	long pid;
	while (f && fscanf(f, "%ld", &pid) == 1)
		kill((pid_t)pid, SIGKILL);
	if (f)
		fclose(f);
	while (waitpid(-1, NULL, 0) > 0)
		;
}

int main(int argc, char **argv)
{
	int deadline_ms = 10000;
	if (argc > 2 && strcmp(argv[1], "-t") == 0) {
		deadline_ms = atoi(argv[2]) * 1000;
		argv += 2, argc -= 2;
	}
	if (argc < 2) {
		fprintf(stderr, "usage: reaper [-t SECONDS] CMD [ARG...]\n");
		return 2;
	}
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0) {
		perror("reaper: PR_SET_CHILD_SUBREAPER");
		return 2;
	}
	pid_t cmd = fork();
	if (cmd < 0) {
		perror("reaper: fork");
		return 2;
	}
	if (cmd == 0) {
		execvp(argv[1], argv + 1);
		perror(argv[1]);
		_exit(127);
	}
	int st;
	while (waitpid(cmd, &st, 0) < 0)
		if (errno != EINTR)
			return 2;
	printf("status %d\n", st);
	fflush(stdout);
	/* Whatever CMD left is ours now: every one still running, or a zombie
	 * not yet reaped, was there when CMD exited. */
	const struct timespec step = {0, STEP_MS * 1000000L};
	for (int waited = 0;;) {
		pid_t pid = waitpid(-1, &st, WNOHANG);
		if (pid < 0)
			return errno == ECHILD ? 0 : 2;
		if (pid > 0) {
			printf("outlived: exited %d\n", st);
			continue;
		}
		if (waited >= deadline_ms) {
			printf("outlived: still running\n");
			kill_children();
			return 1;
		}
		nanosleep(&step, NULL);
		waited += STEP_MS;
	}
}
