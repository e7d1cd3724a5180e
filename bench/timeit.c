/* timeit: time commands by fork/exec/wait, interleaved, and report medians.
 *
 *   timeit [-n ROUNDS] [-w WARMUP] [-p PREP] [-v] ::: NAME [VAR=VAL...] CMD [ARG...] ::: ...
 *
 * Every round runs each variant once, in an order shuffled afresh each
 * round (from a fixed seed, so runs repeat), so noise on a shared machine
 * lands on all variants alike, and so does what one variant leaves behind
 * for the next: caches another variant flushed, a namespace still being
 * torn down. A rotating order kept each variant's predecessor fixed, which
 * put 60 us on whichever variant followed the 1,000-grant one.
 *
 * PREP, when given, runs through /bin/sh -c before every timed run and is
 * not timed (e.g. "make clean"). VAR=VAL words before CMD change the
 * variant's environment only; CMD without a slash is searched on the
 * variant's PATH, like env(1).
 *
 * Output, one line per variant, tab-separated, times in microseconds:
 *   NAME  median  p25  p75  paired  n  cpu
 * where "paired" is the median over rounds of (this variant - the first
 * variant) in the same round: the overhead over the baseline, with the
 * round's noise cancelled; "cpu" is the median user+system time of the
 * command and the children it waited for (wait4's rusage), which other
 * load on the machine disturbs less than wall time. A variant that exits
 * non-zero stops the run. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

struct variant {
	const char *name;
	char **env;  /* the variant's whole environment */
	char **argv; /* the command */
	double *us;  /* one sample per round */
	double *cpu; /* user+system microseconds per round */
};

__attribute__((format(printf, 1, 2), noreturn)) static void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "timeit: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(2);
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);
	if (!p)
		die("%s", "out of memory");
	return p;
}

/* environ with the VAR=VAL words applied (later words win). */
static char **make_env(char **assign, int nassign)
{
	size_t n = 0;
	while (environ[n])
		n++;
	char **env = xcalloc(n + (size_t)nassign + 1, sizeof(char *));
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		size_t len = strcspn(environ[i], "=");
		int overridden = 0;
		for (int j = 0; j < nassign; j++)
			overridden |= strncmp(assign[j], environ[i], len + 1) == 0;
		if (!overridden)
			env[k++] = environ[i];
	}
	for (int j = 0; j < nassign; j++)
		env[k++] = assign[j];
	return env;
}

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int run_prep(const char *prep)
{
	pid_t pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (pid == 0) {
		execl("/bin/sh", "sh", "-c", prep, (char *)NULL);
		_exit(127);
	}
	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			die("waitpid: %s", strerror(errno));
	return status;
}

static double tv_us(struct timeval tv)
{
	return (double)tv.tv_sec * 1e6 + (double)tv.tv_usec;
}

/* One timed fork/exec/wait of v; returns microseconds, *cpu its CPU time. */
static double run_once(const struct variant *v, int verbose, double *cpu)
{
	double t0 = now_us();
	pid_t pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);
		dup2(null, 0);
		dup2(null, 1);
		if (!verbose)
			dup2(null, 2);
		if (null > 2)
			close(null);
		environ = v->env;
		execvp(v->argv[0], v->argv);
		_exit(127);
	}
	int status;
	struct rusage ru;
	while (wait4(pid, &status, 0, &ru) < 0)
		if (errno != EINTR)
			die("wait4: %s", strerror(errno));
	double t1 = now_us();
	*cpu = tv_us(ru.ru_utime) + tv_us(ru.ru_stime);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "timeit: variant '%s' (%s) failed with status %d%s\n", v->name,
		        v->argv[0],
		        WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status),
		        verbose ? "" : "; rerun with -v to see its stderr");
		exit(1);
	}
	return t1 - t0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The q-quantile of n samples (sorted copy, linear interpolation). */
static double quantile(const double *s, int n, double q)
{
	double *c = xcalloc((size_t)n, sizeof(double));
	memcpy(c, s, (size_t)n * sizeof(double));
	qsort(c, (size_t)n, sizeof(double), cmp_double);
	double pos = q * (n - 1);
	int i = (int)pos;
	double r = i + 1 < n ? c[i] + (pos - i) * (c[i + 1] - c[i]) : c[i];
	free(c);
	return r;
}

/* Fisher-Yates with xorshift64 from a fixed seed: the same orders every
 * run, no two rounds alike. */
static void shuffle(int *a, int n)
{
	static uint64_t x = 0x9e3779b97f4a7c15u;
	for (int i = n - 1; i > 0; i--) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		int j = (int)(x % (uint64_t)(i + 1)), t = a[i];
		a[i] = a[j];
		a[j] = t;
	}
}

int main(int argc, char **argv)
{
	int rounds = 500, warmup = 10, verbose = 0;
	const char *prep = NULL;
	int i = 1;
	for (; i < argc && strcmp(argv[i], ":::") != 0; i++) {
		if (strcmp(argv[i], "-n") == 0 && i + 1 < argc)
			rounds = atoi(argv[++i]);
		else if (strcmp(argv[i], "-w") == 0 && i + 1 < argc)
			warmup = atoi(argv[++i]);
		else if (strcmp(argv[i], "-p") == 0 && i + 1 < argc)
			prep = argv[++i];
		else if (strcmp(argv[i], "-v") == 0)
			verbose = 1;
		else
			die("unknown option '%s'", argv[i]);
	}
	if (rounds < 1 || warmup < 0)
		die("%s", "bad -n or -w");

	struct variant *vs = xcalloc((size_t)argc, sizeof(*vs));
	int nv = 0;
	while (i < argc) { /* argv[i] is ":::" */
		int start = ++i;
		while (i < argc && strcmp(argv[i], ":::") != 0)
			i++;
		if (i - start < 2)
			die("%s", "each variant needs ::: NAME [VAR=VAL...] CMD [ARG...]");
		argv[i < argc ? i : argc] = NULL; /* terminate this variant's words */
		struct variant *v = &vs[nv++];
		v->name = argv[start];
		int a = start + 1;
		while (a < i && strchr(argv[a], '=') && argv[a][0] != '/')
			a++;
		if (a == i)
			die("variant '%s' has no command", v->name);
		v->env = make_env(argv + start + 1, a - start - 1);
		v->argv = argv + a;
		v->us = xcalloc((size_t)rounds, sizeof(double));
		v->cpu = xcalloc((size_t)rounds, sizeof(double));
	}
	if (!nv)
		die("%s", "no variants (::: NAME CMD ...)");

	int *order = xcalloc((size_t)nv, sizeof(int));
	for (int k = 0; k < nv; k++)
		order[k] = k;
	for (int r = -warmup; r < rounds; r++) {
		shuffle(order, nv);
		for (int k = 0; k < nv; k++) {
			struct variant *v = &vs[order[k]];
			if (prep && run_prep(prep) != 0)
				die("prep command failed: %s", prep);
			double cpu;
			double us = run_once(v, verbose, &cpu);
			if (r >= 0) {
				v->us[r] = us;
				v->cpu[r] = cpu;
			}
		}
	}

	double *diff = xcalloc((size_t)rounds, sizeof(double));
	for (int k = 0; k < nv; k++) {
		struct variant *v = &vs[k];
		for (int r = 0; r < rounds; r++)
			diff[r] = v->us[r] - vs[0].us[r];
		printf("%s\t%.1f\t%.1f\t%.1f\t%.1f\t%d\t%.1f\n", v->name,
		       quantile(v->us, rounds, 0.5), quantile(v->us, rounds, 0.25),
		       quantile(v->us, rounds, 0.75), quantile(diff, rounds, 0.5), rounds,
		       quantile(v->cpu, rounds, 0.5));
	}
	if (fflush(stdout) != 0 || ferror(stdout))
		die("%s", "cannot write the results");
	return 0;
}
