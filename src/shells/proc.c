/* proc_run: posix_spawn, two pipes and a poll loop. */
#include "shells/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "base/platform.h"

extern char **environ;

static unsigned now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned)(ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
}

static void drain(int outfd, int errfd, const struct proc_hooks *h, struct proc_result *r)
{
	struct pollfd fds[2] = {{outfd, POLLIN, 0}, {errfd, POLLIN, 0}};
	int open_fds = 2;
	unsigned start = now_ms(), last_tick = start;
	int timeout = h && h->on_tick && h->tick_ms ? (int)h->tick_ms : -1;
	while (open_fds) {
		int n = poll(fds, 2, timeout);
		if (n < 0 && errno != EINTR)
			break;
		unsigned t = now_ms();
		if (timeout >= 0 && t - last_tick >= h->tick_ms) {
			last_tick = t;
			h->on_tick(t - start, h->arg);
		}
		for (int i = 0; n > 0 && i < 2; i++) {
			if (fds[i].fd < 0 || !fds[i].revents)
				continue;
			char buf[4096];
			ssize_t got = read(fds[i].fd, buf, sizeof(buf));
			if (got < 0 && errno == EINTR)
				continue;
			if (got <= 0) {
				fds[i].fd = -1;
				open_fds--;
				continue;
			}
			sb_add(i ? &r->err : &r->out, buf, (size_t)got);
			if (i && h && h->on_stderr)
				h->on_stderr(buf, (size_t)got, h->arg);
		}
	}
}

static void close_pair(int p[2])
{
	close(p[0]);
	close(p[1]);
}

int proc_run(const char *exe, const char *const *argv, const struct proc_hooks *hooks,
             struct proc_result *r, int *start_errno, struct error *err)
{
	*r = (struct proc_result){.out = STRBUF_INIT, .err = STRBUF_INIT};
	*start_errno = 0;
	int outp[2], errp[2];
	if (platform_pipe_cloexec(outp) < 0)
		return error_errno(err, "cannot make a pipe");
	if (platform_pipe_cloexec(errp) < 0) {
		int e = errno;
		close_pair(outp);
		return error_set(err, "cannot make a pipe: %s", strerror(e));
	}
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, outp[1], 1);
	posix_spawn_file_actions_adddup2(&fa, errp[1], 2);
	pid_t pid;
	char *const *env = hooks && hooks->env ? hooks->env : environ;
	int rc = posix_spawn(&pid, exe, &fa, NULL, (char *const *)argv, env);
	posix_spawn_file_actions_destroy(&fa);
	close(outp[1]);
	close(errp[1]);
	if (rc != 0) {
		close(outp[0]);
		close(errp[0]);
		*start_errno = rc;
		return error_set(err, "cannot run '%s': %s", exe, strerror(rc));
	}
	drain(outp[0], errp[0], hooks, r);
	close(outp[0]);
	close(errp[0]);
	int st;
	while (waitpid(pid, &st, 0) < 0) {
		if (errno != EINTR) {
			proc_result_free(r);
			return error_errno(err, "cannot wait for '%s'", exe);
		}
	}
	r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	return 0;
}

void proc_result_free(struct proc_result *r)
{
	sb_release(&r->out);
	sb_release(&r->err);
}
