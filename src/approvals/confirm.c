/* The confirm prompt. The answer is read from /dev/tty, never from stdin,
 * so a tool reading piped input is unaffected; with no terminal to ask on,
 * the binary does not start. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "approvals/approvals.h"
#include "sandbox/sandbox.h"

int confirm_mode_from_env(enum confirm_mode *mode, struct error *err)
{
	const char *v = getenv("MOAT_CONFIRM");
	*mode = CONFIRM_ASK;
	if (!v || !*v)
		return 0;
	if (strcmp(v, "never") == 0)
		*mode = CONFIRM_NEVER;
	else if (strcmp(v, "always") == 0)
		*mode = CONFIRM_ALWAYS;
	else
		return error_set(err, "MOAT_CONFIRM=%s is not understood (want never or always)",
		                 v);
	return 0;
}

bool confirm_forced(void)
{
	enum confirm_mode mode;
	struct error ignored;
	return confirm_mode_from_env(&mode, &ignored) < 0 || mode == CONFIRM_ALWAYS;
}

static int write_all(int fd, const char *s, size_t n)
{
	while (n) {
		ssize_t w = write(fd, s, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

int confirm_ask(const char *summary)
{
	cleanup_close int tty = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (tty < 0)
		return -1;
	if (write_all(tty, summary, strlen(summary)) < 0 ||
	    write_all(tty, "continue? [y/N] ", 16) < 0)
		return -1;
	char line[64];
	size_t n = 0;
	for (;;) {
		char c;
		ssize_t r = read(tty, &c, 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0 || c == '\n')
			break;
		if (n < sizeof(line) - 1)
			line[n++] = c;
	}
	line[n] = '\0';
	char *s = line;
	while (*s == ' ' || *s == '\t')
		s++;
	for (size_t end = strlen(s);
	     end && (s[end - 1] == ' ' || s[end - 1] == '\r' || s[end - 1] == '\t');)
		s[--end] = '\0';
	return strcasecmp(s, "y") == 0 || strcasecmp(s, "yes") == 0;
}

struct remember {
	const char *root, *bin;
	const struct access_set *set;
};

static int remember(struct approval_store *st, void *arg)
{
	const struct remember *r = arg;
	approvals_add(st, r->root, r->bin, time(NULL), r->set);
	return 1;
}

/* Does this kernel let every unix socket through once one is listed?
 * Landlock confines connect() by path from ABI 9; below that, listing a
 * socket switches the seccomp AF_UNIX refusal off (docs/security.md). s is
 * the plan's probe, not a second one; a kernel moat could not probe counts
 * as one that cannot confine them. */
static int sockets_unconfined_abi(const struct profile *p, const struct sandbox_support *s)
{
	if (!sandbox_socket_warning(p, s))
		return 0;
	return s->abi ? s->abi : 1;
}

static int confirm(const char *home, const char *bin, const struct profile *p,
                   const struct sandbox_support *s, const char *home_seen, bool session,
                   struct strbuf *warn, struct error *err)
{
	enum confirm_mode mode;
	if (confirm_mode_from_env(&mode, err) < 0) {
		err->status = EXIT_MOAT_FAILED;
		return -1;
	}
	if (mode == CONFIRM_NEVER)
		return 0;
	struct access_set set;
	access_set_from_profile(&set, p, home_seen);
	int rc = 0;
	if (mode == CONFIRM_ASK) {
		struct approval_store st;
		struct error ignored;
		/* An unreadable store never counts as approval: we just ask. */
		if (approvals_load(home, &st, warn, &ignored) == 0) {
			bool approved = approvals_covers(&st, p->root, bin, &set);
			approvals_free(&st);
			if (approved)
				goto out;
		}
	}
	struct strbuf summary = STRBUF_INIT;
	struct confirm_notes notes = {session, sockets_unconfined_abi(p, s)};
	confirm_summary(&summary, bin, p, &set, &notes);
	int answer = confirm_ask(summary.buf);
	sb_release(&summary);
	if (answer < 0) {
		rc = error_set(err, "%s needs confirmation, but there is no terminal to ask on",
		               bin);
		error_hint(
		    err, "run it once from a terminal to approve it, or set MOAT_CONFIRM=never to "
		         "skip the prompt (scripts, CI)");
	} else if (answer == 0) {
		rc = error_set(err, "%s was not started: not confirmed", bin);
	} else if (mode == CONFIRM_ASK) {
		/* MOAT_CONFIRM=always is a review: it changes nothing stored. A
		 * store we cannot write only costs a prompt next time. */
		struct remember r = {p->root, bin, &set};
		struct error ignored;
		approvals_update(home, remember, &r, &ignored);
	}
	if (rc < 0)
		err->status = EXIT_MOAT_FAILED;
out:
	access_set_free(&set);
	return rc;
}

int confirm_start(const char *home, const char *bin, const struct profile *p,
                  const struct sandbox_support *s, const char *home_seen, struct strbuf *warn,
                  struct error *err)
{
	return confirm(home, bin, p, s, home_seen, false, warn, err);
}

int confirm_start_session(const char *home, const char *bin, const struct profile *p,
                          const struct sandbox_support *s, const char *home_seen,
                          struct strbuf *warn, struct error *err)
{
	return confirm(home, bin, p, s, home_seen, true, warn, err);
}
