/* target.c -- a live process for the whole-process tests (tests/proc-*.sh,
 * bench/): a main program, a shared library (target_lib.c) and a plugin
 * loaded with dlopen (target_plugin.c), and threads in known places:
 *
 *   read:    blocked in libc's read(2) on a pipe that never has data;
 *   lib:     in the shared library, 3 frames deep and one inlined call,
 *            waiting in pthread_cond_wait;
 *   plugin:  in the plugin, in nanosleep;
 *   spin:    running: a loop in the main program (its pc is anywhere);
 *   idle:    -n N more threads in pause(2), for the 10-thread figures;
 *   corrupt: (-c) a thread whose stack is corrupt: its function wrote
 *            garbage over its own return address, then blocked;
 *   main:    waiting in pause(2), after printing "ready PID" and a line
 *            per thread "thread TID KIND" on standard output.
 *
 * Usage: target [-n N] [-x PLUGIN] [-s] [-q] [-c] [-g]  (-x: the plugin's
 * path, default target-plugin.so beside the program; -s: no spinning
 * thread; -q: no plugin; -t: traced already, by a child of its own,
 * which ptrace(PTRACE_SEIZE)s it and sleeps).  Runs until killed; SIGUSR2 unloads the plugin
 * (dlclose) and prints "unloaded".  With -g it records, in a thread
 * of its own, the longest time it was not scheduled (the time a tracer
 * kept it stopped) and prints it in microseconds on SIGUSR1.
 */
#define _GNU_SOURCE 1
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int target_lib_wait(int depth);

static int pipefd[2];
static int (*plugin_run)(int);
static pthread_barrier_t ready;
static volatile unsigned long sink;
static volatile double max_gap_us;
static void *plugin_handle;
static volatile sig_atomic_t unload;

struct kind {
	const char *name;
	void *(*fn)(void *);
};

static void
announce(const char *kind)
{
	printf("thread %ld %s\n", (long)syscall(SYS_gettid), kind);
	fflush(stdout);
}

static void *__attribute__((noinline))
t_read(void *arg)
{
	char c;

	(void)arg;
	announce("read");
	pthread_barrier_wait(&ready);
	while (read(pipefd[0], &c, 1) != 0)
		;
	return NULL;
}

static void *__attribute__((noinline))
t_lib(void *arg)
{
	(void)arg;
	announce("lib");
	pthread_barrier_wait(&ready);
	sink = (unsigned long)target_lib_wait(2);
	return NULL;
}

static void *__attribute__((noinline))
t_plugin(void *arg)
{
	(void)arg;
	announce("plugin");
	pthread_barrier_wait(&ready);
	sink = (unsigned long)plugin_run(3);
	return NULL;
}

static unsigned long __attribute__((noinline))
spin_inner(unsigned long x)
{
	unsigned long i;

	for (i = 0; i < 1000; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	return x;
}

static void *__attribute__((noinline))
t_spin(void *arg)
{
	unsigned long x = 1;

	(void)arg;
	announce("spin");
	pthread_barrier_wait(&ready);
	for (;;)
		sink = x = spin_inner(x);
	return NULL;
}

static void *__attribute__((noinline))
t_idle(void *arg)
{
	(void)arg;
	announce("idle");
	pthread_barrier_wait(&ready);
	for (;;)
		pause();
	return NULL;
}

/* Its own return address overwritten (the frame pointer kept here, so
 * the slot is at fp + 8 whatever the optimiser does), then blocked in a
 * raw system call: a walk reaching this frame finds garbage above it. */
static void __attribute__((noinline, optimize("no-omit-frame-pointer")))
corrupt_and_wait(void)
{
	volatile uintptr_t *fp = __builtin_frame_address(0);

	fp[1] = (uintptr_t)0xdead0000beefull;
	for (;;)
		syscall(SYS_pause);
}

static void *__attribute__((noinline))
t_corrupt(void *arg)
{
	(void)arg;
	announce("corrupt");
	pthread_barrier_wait(&ready);
	corrupt_and_wait();
	return NULL;
}

static double
now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

/* The longest gap between two looks at the clock: while a tracer holds
 * the process stopped this thread does not run. */
static void *
t_gap(void *arg)
{
	double last = now_us(), t, g;

	(void)arg;
	for (;;) {
		struct timespec ts = { 0, 100000 };	/* 100 us */

		nanosleep(&ts, NULL);
		t = now_us();
		g = t - last - 100;
		if (g > max_gap_us)
			max_gap_us = g;
		last = t;
	}
	return NULL;
}

static void
on_usr2(int sig)
{
	(void)sig;
	unload = 1;
}

static void
on_usr1(int sig)
{
	char buf[64];
	int n;

	(void)sig;
	n = snprintf(buf, sizeof buf, "gap %.0f\n", max_gap_us);
	max_gap_us = 0;
	if (write(1, buf, (size_t)n) < 0)
		_exit(1);
}

int
main(int argc, char **argv)
{
	char plugin[PATH_MAX], *slash;
	int c, nidle = 0, spin = 1, load = 1, gap = 0, corrupt = 0, i, n;
	int traced = 0;
	const char *xplugin = NULL;
	struct kind kinds[] = { { "read", t_read }, { "lib", t_lib },
	    { "plugin", t_plugin }, { "spin", t_spin } };
	pthread_t t;
	void *h;

	while ((c = getopt(argc, argv, "n:x:sqgct")) != -1) {
		switch (c) {
		case 'n': nidle = atoi(optarg); break;
		case 'x': xplugin = optarg; break;
		case 's': spin = 0; break;
		case 'q': load = 0; break;
		case 'g': gap = 1; break;
		case 'c': corrupt = 1; break;
		case 't': traced = 1; break;
		default:
			fprintf(stderr, "usage: target [-n N] [-x PLUGIN] "
			    "[-s] [-q] [-c] [-g] [-t]\n");
			return 2;
		}
	}
	if (pipe(pipefd) < 0)
		return 1;
	if (load) {
		if (xplugin != NULL)
			snprintf(plugin, sizeof plugin, "%s", xplugin);
		else {
			ssize_t len = readlink("/proc/self/exe", plugin,
			    sizeof plugin - 32);
			if (len <= 0)
				return 1;
			plugin[len] = 0;
			slash = strrchr(plugin, '/');
			strcpy(slash + 1, "target-plugin.so");
		}
		if ((h = dlopen(plugin, RTLD_NOW)) == NULL ||
		    (plugin_run = (int (*)(int))dlsym(h,
		    "target_plugin_run")) == NULL) {
			fprintf(stderr, "target: %s\n", dlerror());
			return 1;
		}
		plugin_handle = h;
	}
	n = 3 + load + spin + corrupt + nidle;	/* read, lib, ..., main */
	pthread_barrier_init(&ready, NULL, (unsigned)n);
	announce("main");
	for (i = 0; i < 4; i++) {
		if ((i == 2 && !load) || (i == 3 && !spin))
			continue;
		if (pthread_create(&t, NULL, kinds[i].fn, NULL) != 0)
			return 1;
	}
	for (i = 0; i < nidle; i++)
		if (pthread_create(&t, NULL, t_idle, NULL) != 0)
			return 1;
	if (corrupt && pthread_create(&t, NULL, t_corrupt, NULL) != 0)
		return 1;
	if (gap) {
		signal(SIGUSR1, on_usr1);
		if (pthread_create(&t, NULL, t_gap, NULL) != 0)
			return 1;
	}
	pthread_barrier_wait(&ready);
	/* Let every thread reach its blocking call. */
	usleep(50000);
	signal(SIGUSR2, on_usr2);
	if (traced) {
		pid_t parent = getpid(), child = fork();

		if (child == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (ptrace(PTRACE_SEIZE, parent, NULL, NULL) < 0)
				_exit(1);
			printf("tracer %ld\n", (long)getpid());
			fflush(stdout);
			for (;;)
				pause();
		}
		usleep(100000);
	}
	printf("ready %ld\n", (long)getpid());
	fflush(stdout);
	for (;;) {
		pause();
		if (unload && plugin_handle != NULL) {
			/* (The plugin thread sleeps in it: it must not wake.) */
			dlclose(plugin_handle);
			plugin_handle = NULL;
			printf("unloaded\n");
			fflush(stdout);
		}
	}
}
