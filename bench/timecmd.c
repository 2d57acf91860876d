/* timecmd.c -- run a command RUNS times and report its median wall time,
 * with the CPU time and peak memory of that run.
 *
 *   pcln-bench-time RUNS COMMAND [ARG...]
 *
 * Prints "WALL_S CPU_S PEAK_KB" (seconds to the microsecond; CPU is user
 * + system; peak is the maximum resident set, as GNU time's %M).  The
 * clock runs from just before fork to just after wait4: what a shell
 * harness adds around a command (its own forks of date and of
 * /usr/bin/time, some 4 ms a run on the bench machine) is not counted
 * against a command that takes 10 ms.  The command's output goes to
 * /dev/null; a run that fails ends the measurement with exit 1.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct run {
	double wall, cpu;
	long peak_kb;
};

static int
cmp_run(const void *a, const void *b)
{
	const struct run *x = a, *y = b;

	return x->wall < y->wall ? -1 : x->wall > y->wall;
}

static double
tv(struct timeval t)
{
	return (double)t.tv_sec + (double)t.tv_usec / 1e6;
}

int
main(int argc, char **argv)
{
	struct run *r;
	int n, i;

	if (argc < 3 || (n = atoi(argv[1])) < 1) {
		fprintf(stderr, "usage: pcln-bench-time RUNS COMMAND [ARG...]\n");
		return 2;
	}
	if ((r = calloc((size_t)n, sizeof *r)) == NULL) {
		perror("pcln-bench-time");
		return 1;
	}
	for (i = 0; i < n; i++) {
		struct timespec t0, t1;
		struct rusage ru;
		int status, fd;
		pid_t pid;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		if ((pid = fork()) < 0) {
			perror("pcln-bench-time: fork");
			return 1;
		}
		if (pid == 0) {
			if ((fd = open("/dev/null", O_WRONLY)) >= 0) {
				dup2(fd, 1);
				dup2(fd, 2);
			}
			execvp(argv[2], argv + 2);
			_exit(127);
		}
		if (wait4(pid, &status, 0, &ru) != pid) {
			perror("pcln-bench-time: wait4");
			return 1;
		}
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
			fprintf(stderr, "pcln-bench-time: %s: exit status %d\n",
			    argv[2], WIFEXITED(status) ? WEXITSTATUS(status) :
			    128 + WTERMSIG(status));
			return 1;
		}
		r[i].wall = (double)(t1.tv_sec - t0.tv_sec) +
		    (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
		r[i].cpu = tv(ru.ru_utime) + tv(ru.ru_stime);
		r[i].peak_kb = ru.ru_maxrss;
	}
	qsort(r, (size_t)n, sizeof *r, cmp_run);
	printf("%.6f %.6f %ld\n", r[(n - 1) / 2].wall, r[(n - 1) / 2].cpu,
	    r[(n - 1) / 2].peak_kb);
	free(r);
	return 0;
}
