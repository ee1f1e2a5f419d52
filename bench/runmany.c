/*
 * runmany - times short commands precisely, for bench/run.py.
 *
 *   runmany [-n RUNS] [-w WARMUP] [--no-sync] [-v] -- CMD [ARG...]
 *           [--- CMD [ARG...]]...
 *
 * Runs every command RUNS times (after WARMUP untimed runs each), taking
 * turns: round r runs the commands in order starting from command r mod
 * their count, so that none always runs right after another.  Each run is
 * a posix_spawnp() of the command itself (no shell unless the command is
 * one) with stdin and stdout on /dev/null and stderr kept in a temporary
 * file; sync(2) runs, untimed, before every run unless --no-sync.  "@RUN@"
 * in an argument becomes the run's number (0 for the first warm-up run),
 * so that each run can write to a fresh directory.  Wall
 * time is CLOCK_MONOTONIC from just before the spawn to just after
 * wait4(); CPU time (user + system) and peak RSS are wait4()'s rusage of
 * the child, which counts the children it waited for.
 *
 * Memory a command puts in a memfd or on tmpfs is no process's RSS: after
 * the timed runs each command runs once more, untimed, while the system's
 * Shmem (/proc/meminfo) is sampled every millisecond, and its peak above
 * the Shmem at the spawn is added to that run's RSS.  max_rss_kib is the
 * larger of that sum and the timed runs' peak RSS, shmem_kib the Shmem
 * part (other processes' Shmem counts too: run it on a quiet machine).
 *
 * A command that exits other than 0 or is killed stops everything: its
 * stderr is copied to ours and runmany exits 1.  Otherwise it prints one
 * line per command, in the order given:
 *
 *   cmd=K runs=N median_s=S min_s=S p90_s=S max_s=S cpu_median_s=S
 *   max_rss_kib=N shmem_kib=N
 *
 * (one line each; p90 is the nearest-rank 90th percentile).  With -v each
 * run's wall time goes to stderr.  Exit 2: usage or a system call failed.
 */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define MAX_CMDS 16

struct cmd {
	char **argv;
	double *wall, *cpu;
	long max_rss;
	long shmem;                 /* KiB of Shmem above the spawn's */
	FILE *err;                  /* the child's stderr of the last run */
};

struct settings {
	int runs, warmup, do_sync, verbose, ncmd, devnull;
};

static void die(const char *what)
{
	fprintf(stderr, "runmany: %s: %s\n", what, strerror(errno));
	exit(2);
}

static void usage(void)
{
	fputs("usage: runmany [-n RUNS] [-w WARMUP] [--no-sync] [-v] -- CMD "
	    "[ARG...] [--- CMD [ARG...]]...\n", stderr);
	exit(2);
}

static double seconds(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) +
	    (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

static double tv_seconds(const struct timeval *tv)
{
	return (double)tv->tv_sec + (double)tv->tv_usec / 1e6;
}

static void show_failure(const struct cmd *c, char **argv, int status,
    int run)
{
	char buf[4096];
	size_t n;

	fprintf(stderr, "runmany: run %d of", run);
	for (char **a = argv; *a; a++)
		fprintf(stderr, " %s", *a);
	if (WIFEXITED(status))
		fprintf(stderr, ": exit status %d\n", WEXITSTATUS(status));
	else
		fprintf(stderr, ": killed by signal %d\n", WTERMSIG(status));
	rewind(c->err);
	while ((n = fread(buf, 1, sizeof buf, c->err)) > 0)
		fwrite(buf, 1, n, stderr);
}

/* `arg` with each "@RUN@" replaced by `run`; malloc'd. */
static char *substitute(const char *arg, int run)
{
	char num[16], *out, *o;
	const char *p;
	size_t n = 0;

	snprintf(num, sizeof num, "%d", run);
	for (p = arg; (p = strstr(p, "@RUN@")) != NULL; p += 5)
		n++;
	if (!(out = o = malloc(strlen(arg) + n * strlen(num) + 1)))
		die("allocating");
	for (p = arg; *p;) {
		if (strncmp(p, "@RUN@", 5) == 0) {
			o = stpcpy(o, num);
			p += 5;
		} else {
			*o++ = *p++;
		}
	}
	*o = '\0';
	return out;
}

static char **argv_for(char **argv, int run)
{
	size_t n = 0;
	char **out;

	while (argv[n])
		n++;
	if (!(out = calloc(n + 1, sizeof *out)))
		die("allocating");
	for (size_t i = 0; i < n; i++)
		out[i] = substitute(argv[i], run);
	return out;
}

static void argv_free(char **argv)
{
	for (char **a = argv; *a; a++)
		free(*a);
	free(argv);
}

/* The spawned child of a run: stdin and stdout /dev/null, stderr kept. */
static pid_t spawn(struct cmd *c, char **argv, int devnull)
{
	posix_spawn_file_actions_t fa;
	int errfd = fileno(c->err), rc;
	pid_t pid;

	if (!argv[0])
		usage();
	if (ftruncate(errfd, 0) != 0 || lseek(errfd, 0, SEEK_SET) != 0)
		die("truncating the stderr file");
	if (posix_spawn_file_actions_init(&fa) != 0 ||
	    posix_spawn_file_actions_adddup2(&fa, devnull, 0) != 0 ||
	    posix_spawn_file_actions_adddup2(&fa, devnull, 1) != 0 ||
	    posix_spawn_file_actions_adddup2(&fa, errfd, 2) != 0)
		die("posix_spawn_file_actions");
	rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc != 0) {
		errno = rc;
		die(c->argv[0]);
	}
	return pid;
}

static void check_exit(struct cmd *c, char **argv, int status, int run)
{
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		show_failure(c, argv, status, run);
		exit(1);
	}
}

/* One run of `c`: wall seconds, CPU seconds and peak RSS (KiB). */
static void run_one(struct cmd *c, int run, int devnull, double *wall,
    double *cpu, long *rss)
{
	char **argv = argv_for(c->argv, run);
	struct timespec t0, t1;
	struct rusage ru;
	int status;
	pid_t pid;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = spawn(c, argv, devnull);
	while (wait4(pid, &status, 0, &ru) < 0)
		if (errno != EINTR)
			die("wait4");
	clock_gettime(CLOCK_MONOTONIC, &t1);
	check_exit(c, argv, status, run);
	argv_free(argv);
	*wall = seconds(&t0, &t1);
	*cpu = tv_seconds(&ru.ru_utime) + tv_seconds(&ru.ru_stime);
	*rss = ru.ru_maxrss;
}

/* The system's Shmem in KiB (/proc/meminfo), or 0. */
static long shmem_kib(void)
{
	char line[256];
	long kib = 0;
	FILE *f = fopen("/proc/meminfo", "r");

	if (f == NULL)
		return 0;
	while (fgets(line, sizeof line, f) != NULL)
		if (sscanf(line, "Shmem: %ld kB", &kib) == 1)
			break;
	fclose(f);
	return kib;
}

/* The untimed run: Shmem sampled every millisecond while it runs; its
 * peak above the spawn's Shmem plus the run's RSS, into c. */
static void run_sampled(struct cmd *c, int run, int devnull)
{
	const struct timespec ms = { 0, 1000000 };
	char **argv = argv_for(c->argv, run);
	long base = shmem_kib(), peak = base, now;
	struct rusage ru;
	int status;
	pid_t pid = spawn(c, argv, devnull), got;

	while ((got = wait4(pid, &status, WNOHANG, &ru)) == 0 ||
	    (got < 0 && errno == EINTR)) {
		if ((now = shmem_kib()) > peak)
			peak = now;
		nanosleep(&ms, NULL);
	}
	if (got < 0)
		die("wait4");
	check_exit(c, argv, status, run);
	argv_free(argv);
	c->shmem = peak - base;
	if (ru.ru_maxrss + c->shmem > c->max_rss)
		c->max_rss = ru.ru_maxrss + c->shmem;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void report(int k, struct cmd *c, int runs)
{
	double med = median(c->wall, runs);     /* sorts c->wall */
	int p90 = (runs * 9 + 9) / 10 - 1;      /* nearest rank: ceil(0.9n) */

	printf("cmd=%d runs=%d median_s=%.6f min_s=%.6f p90_s=%.6f "
	    "max_s=%.6f cpu_median_s=%.6f max_rss_kib=%ld shmem_kib=%ld\n", k,
	    runs, med, c->wall[0], c->wall[p90], c->wall[runs - 1],
	    median(c->cpu, runs), c->max_rss, c->shmem);
}

static long number(const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < 0 || v > 1000000)
		usage();
	return v;
}

/* Splits argv at "---" (in place) into commands; returns their count. */
static int split(char **argv, struct cmd *cmds)
{
	int n = 0;

	while (*argv) {
		if (n == MAX_CMDS || strcmp(*argv, "---") == 0)
			usage();
		cmds[n].argv = argv;
		while (*argv && strcmp(*argv, "---") != 0)
			argv++;
		if (*argv)
			*argv++ = NULL;
		n++;
	}
	return n;
}

/* The options before "--"; the index of "--". */
static int parse_options(int argc, char **argv, struct settings *s)
{
	int i;

	*s = (struct settings){ 5, 1, 1, 0, 0, -1 };
	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (strcmp(argv[i], "-n") == 0 && i + 1 < argc)
			s->runs = (int)number(argv[++i]);
		else if (strcmp(argv[i], "-w") == 0 && i + 1 < argc)
			s->warmup = (int)number(argv[++i]);
		else if (strcmp(argv[i], "--no-sync") == 0)
			s->do_sync = 0;
		else if (strcmp(argv[i], "-v") == 0)
			s->verbose = 1;
		else
			usage();
	}
	if (i == argc || s->runs < 1)
		usage();
	return i;
}

/* Every round of runs, the commands taking turns, then the sampled run
 * of each. */
static void run_all(const struct settings *s, struct cmd *cmds)
{
	for (int r = 0; r < s->warmup + s->runs; r++) {
		for (int j = 0; j < s->ncmd; j++) {
			int k = (r + j) % s->ncmd;
			struct cmd *c = &cmds[k];
			double wall, cpu;
			long rss;

			if (s->do_sync)
				sync();
			run_one(c, r, s->devnull, &wall, &cpu, &rss);
			if (s->verbose)
				fprintf(stderr, "runmany: cmd %d run %d %.6f s\n",
				    k, r, wall);
			if (r < s->warmup)
				continue;
			c->wall[r - s->warmup] = wall;
			c->cpu[r - s->warmup] = cpu;
			if (rss > c->max_rss)
				c->max_rss = rss;
		}
	}
	for (int k = 0; k < s->ncmd; k++)
		run_sampled(&cmds[k], s->warmup + s->runs, s->devnull);
}

int main(int argc, char **argv)
{
	/* Static: what a run that stops on a failing command (exit) still
	 * holds is reachable, not a leak (the tests run it under ASan). */
	static struct cmd cmds[MAX_CMDS];
	struct settings s;
	int i = parse_options(argc, argv, &s);

	memset(cmds, 0, sizeof cmds);
	s.ncmd = split(argv + i + 1, cmds);
	if (s.ncmd == 0)
		usage();
	if ((s.devnull = open("/dev/null", O_RDWR)) < 0)
		die("/dev/null");
	for (int k = 0; k < s.ncmd; k++) {
		cmds[k].wall = calloc((size_t)s.runs, sizeof(double));
		cmds[k].cpu = calloc((size_t)s.runs, sizeof(double));
		if (!cmds[k].wall || !cmds[k].cpu || !(cmds[k].err = tmpfile()))
			die("allocating");
	}
	run_all(&s, cmds);
	for (int k = 0; k < s.ncmd; k++) {
		report(k, &cmds[k], s.runs);
		free(cmds[k].wall);
		free(cmds[k].cpu);
		fclose(cmds[k].err);
	}
	close(s.devnull);
	return 0;
}
