/* ptrace.c -- a live process's threads stopped together, their
 * registers and memory, resumed (pcln_proc.h).
 *
 * PTRACE_SEIZE attaches without stopping and PTRACE_INTERRUPT then stops
 * the thread wherever it is (in a system call too: the call is restarted
 * when it resumes), so the process sees no SIGSTOP and its state is not
 * changed.  A thread that gets a signal while we hold it reports a
 * signal-delivery stop instead; the signal is handed back when we
 * detach.  Threads that appear while we attach are found by listing
 * /proc/PID/task again until a pass finds none new (a stopped thread
 * cannot make threads, so this ends once every thread is stopped).
 * Memory is read with process_vm_readv, 16 KiB at a time, kept until the
 * resume: a walk reads a few stack words per frame, mostly from the same
 * chunk.
 */
#define _GNU_SOURCE 1
#include <config.h>

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "proc_internal.h"

#define CHUNK		16384u
#define NCHUNK		8
#define MAX_PASSES	64
#define STOP_TIMEOUT_NS	2000000000ll	/* a thread that will not stop */

struct tstate {
	pcln_thread th;
	int seized;		/* ours: detach it */
	int stopped;		/* waited for */
	int gone;		/* exited */
	int sig;		/* signal to hand back at the detach */
};

struct chunk {
	uint64_t base;
	size_t len;		/* 0: empty */
	uint8_t data[CHUNK];
};

struct pcln_ptrace {
	int pid;
	struct tstate *t;
	size_t n, cap;
	struct chunk *chunks;
	unsigned next;
	struct timespec t0;
};

static double
elapsed_us(const struct timespec *a)
{
	struct timespec b;

	clock_gettime(CLOCK_MONOTONIC, &b);
	return (double)(b.tv_sec - a->tv_sec) * 1e6 +
	    (double)(b.tv_nsec - a->tv_nsec) / 1e3;
}

static int
have_tid(const pcln_ptrace *p, int tid)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		if (p->t[i].th.tid == tid)
			return 1;
	return 0;
}

static const char *
eperm_hint(void)
{
	FILE *f = fopen("/proc/sys/kernel/yama/ptrace_scope", "r");
	int scope = -1;

	if (f != NULL) {
		if (fscanf(f, "%d", &scope) != 1)
			scope = -1;
		fclose(f);
	}
	if (scope >= 1)
		return " (kernel.yama.ptrace_scope is not 0: run as root, "
		    "give the tracer CAP_SYS_PTRACE, or set the sysctl to 0)";
	return " (the process belongs to another user, is traced already "
	    "-- by a debugger, strace -- or is not dumpable: run as its "
	    "user or as root)";
}

/* Seize and interrupt every thread not seized yet.  Returns the number
 * seized in this pass, or -1 with ERR (EPERM: nothing can be traced). */
static long
seize_pass(pcln_ptrace *p, pcln_err *err)
{
	char dir[64];
	DIR *d;
	struct dirent *e;
	long added = 0;

	snprintf(dir, sizeof dir, "/proc/%d/task", p->pid);
	if ((d = opendir(dir)) == NULL)
		return pclni_seterr(err, errno == ENOENT ? PCLN_ENOTFOUND :
		    PCLN_EIO, -1, "%s: %s%s", dir, strerror(errno),
		    errno == ENOENT ? " (no such process)" : "");
	while ((e = readdir(d)) != NULL) {
		char *end;
		long tid = strtol(e->d_name, &end, 10);
		struct tstate *t;

		if (*end != 0 || tid <= 0 || have_tid(p, (int)tid))
			continue;
		if (pclni_grow(&p->t, &p->cap, p->n + 1, sizeof *p->t) < 0) {
			closedir(d);
			return pclni_seterr(err, PCLN_ENOMEM, -1,
			    "out of memory");
		}
		t = &p->t[p->n++];
		memset(t, 0, sizeof *t);
		t->th.tid = (int)tid;
		if (p->n == 1)
			clock_gettime(CLOCK_MONOTONIC, &p->t0);
		if (ptrace(PTRACE_SEIZE, (pid_t)tid, NULL, NULL) < 0) {
			int en = errno;

			if (en == ESRCH) {	/* exited meanwhile */
				t->gone = 1;
				snprintf(t->th.note, sizeof t->th.note,
				    "exited before it could be stopped");
				continue;
			}
			closedir(d);
			return pclni_seterr(err, PCLN_EIO, -1,
			    "ptrace(PTRACE_SEIZE) of thread %ld of process "
			    "%d: %s%s", tid, p->pid, strerror(en),
			    en == EPERM ? eperm_hint() : "");
		}
		t->seized = 1;
		if (ptrace(PTRACE_INTERRUPT, (pid_t)tid, NULL, NULL) < 0) {
			t->gone = errno == ESRCH;
			snprintf(t->th.note, sizeof t->th.note,
			    "ptrace(PTRACE_INTERRUPT): %s", strerror(errno));
			continue;
		}
		added++;
	}
	closedir(d);
	return added;
}

/* Wait until thread T stops (or exits), at most STOP_TIMEOUT_NS. */
static void
wait_stop(struct tstate *t)
{
	struct timespec start, now, nap = { 0, 20000 };
	int status, spins = 0;
	pid_t r;

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		r = waitpid(t->th.tid, &status, __WALL | WNOHANG);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			t->gone = 1;
			snprintf(t->th.note, sizeof t->th.note, "waitpid: %s",
			    strerror(errno));
			return;
		}
		if (r == 0) {
			/* Not yet: spin briefly, then nap. */
			if (++spins > 200)
				nanosleep(&nap, NULL);
			clock_gettime(CLOCK_MONOTONIC, &now);
			if ((now.tv_sec - start.tv_sec) * 1000000000ll +
			    (now.tv_nsec - start.tv_nsec) > STOP_TIMEOUT_NS) {
				snprintf(t->th.note, sizeof t->th.note,
				    "did not stop within 2 s (in an "
				    "uninterruptible wait?)");
				return;
			}
			continue;
		}
		if (WIFEXITED(status) || WIFSIGNALED(status)) {
			t->gone = 1;
			t->seized = 0;
			snprintf(t->th.note, sizeof t->th.note,
			    "exited while being stopped");
			return;
		}
		if (WIFSTOPPED(status)) {
			int sig = WSTOPSIG(status);

			/* An interrupt or group stop reports
			 * PTRACE_EVENT_STOP; a signal-delivery stop the
			 * signal, handed back at the detach. */
			if ((status >> 16) != PTRACE_EVENT_STOP)
				t->sig = sig;
			t->stopped = 1;
			return;
		}
	}
}

static void
read_regs(struct tstate *t)
{
#if defined(__x86_64__) || defined(__aarch64__)
	struct user_regs_struct r;
	struct iovec io = { &r, sizeof r };

	if (ptrace(PTRACE_GETREGSET, t->th.tid, (void *)(uintptr_t)NT_PRSTATUS,
	    &io) < 0) {
		snprintf(t->th.note, sizeof t->th.note,
		    "ptrace(PTRACE_GETREGSET): %s", strerror(errno));
		if (errno == ESRCH)
			t->gone = 1;
		return;
	}
#if defined(__x86_64__)
	t->th.regs.pc = r.rip;
	t->th.regs.sp = r.rsp;
	t->th.regs.fp = r.rbp;
#else
	t->th.regs.pc = r.pc;
	t->th.regs.sp = r.sp;
	t->th.regs.fp = r.regs[29];
	t->th.regs.lr = r.regs[30];
#endif
	t->th.ok = 1;
#else
	snprintf(t->th.note, sizeof t->th.note,
	    "reading registers is not implemented on this architecture");
#endif
}

static void
detach_all(pcln_ptrace *p, char *bad, size_t badlen)
{
	size_t i, off = 0;

	if (bad != NULL && badlen > 0)
		bad[0] = 0;
	for (i = 0; i < p->n; i++) {
		struct tstate *t = &p->t[i];

		if (!t->seized)
			continue;
		if (ptrace(PTRACE_DETACH, t->th.tid, NULL,
		    (void *)(uintptr_t)t->sig) < 0 && errno != ESRCH &&
		    bad != NULL && off + 24 < badlen)
			off += (size_t)snprintf(bad + off, badlen - off,
			    " %d", t->th.tid);
		t->seized = 0;
	}
}

pcln_ptrace *
pcln_ptrace_stop(int pid, pcln_err *err)
{
	pcln_ptrace *p;
	size_t i, pass;
	long added;

	pclni_clearerr(err);
	if (pid <= 0) {
		pclni_seterr(err, PCLN_EINVAL, -1, "pid %d: expected a "
		    "positive process id", pid);
		return NULL;
	}
	if (kill(pid, 0) < 0 && errno == ESRCH) {
		pclni_seterr(err, PCLN_ENOTFOUND, -1, "process %d: no such "
		    "process", pid);
		return NULL;
	}
	if ((p = calloc(1, sizeof *p)) == NULL) {
		pclni_seterr(err, PCLN_ENOMEM, -1, "out of memory");
		return NULL;
	}
	p->pid = pid;
	for (pass = 0; pass < MAX_PASSES; pass++) {
		size_t before = p->n;

		if ((added = seize_pass(p, err)) < 0)
			goto fail;
		for (i = before; i < p->n; i++)
			if (p->t[i].seized && !p->t[i].stopped)
				wait_stop(&p->t[i]);
		if (added == 0)
			break;
	}
	for (i = 0; i < p->n; i++)
		if (p->t[i].stopped)
			read_regs(&p->t[i]);
	for (i = 0; i < p->n && p->t[i].gone; i++)
		;
	if (i == p->n) {
		pclni_seterr(err, PCLN_ENOTFOUND, -1, "process %d: no thread "
		    "left to stop (it exited)", pid);
		goto fail;
	}
	return p;
fail:
	detach_all(p, NULL, 0);
	free(p->t);
	free(p);
	return NULL;
}

size_t
pcln_ptrace_nthreads(const pcln_ptrace *p)
{
	return p->n;
}

const pcln_thread *
pcln_ptrace_thread(const pcln_ptrace *p, size_t i)
{
	return i < p->n ? &p->t[i].th : NULL;
}

int
pcln_ptrace_read(void *arg, uint64_t addr, uint8_t *buf, size_t len)
{
	pcln_ptrace *p = arg;
	struct chunk *c;
	struct iovec local, remote;
	ssize_t r;
	unsigned k;

	if (p->chunks == NULL &&
	    (p->chunks = calloc(NCHUNK, sizeof *p->chunks)) == NULL)
		return -1;
	for (k = 0; k < NCHUNK; k++) {
		c = &p->chunks[k];
		if (c->len > 0 && addr >= c->base && addr - c->base <= c->len &&
		    len <= c->len - (addr - c->base)) {
			memcpy(buf, c->data + (addr - c->base), len);
			return 0;
		}
	}
	if (len > CHUNK / 2)
		return -1;
	c = &p->chunks[p->next++ % NCHUNK];
	c->base = addr & ~(uint64_t)4095;
	if (addr + len - c->base > CHUNK)
		c->base = addr & ~(uint64_t)(CHUNK / 2 - 1);
	local.iov_base = c->data;
	local.iov_len = CHUNK;
	remote.iov_base = (void *)(uintptr_t)c->base;
	remote.iov_len = CHUNK;
	r = process_vm_readv(p->pid, &local, 1, &remote, 1, 0);
	/* A read that stops at an unmapped page returns what came before:
	 * retry from ADDR's own page if the first page failed. */
	if (r <= 0 || (uint64_t)r < addr + len - c->base) {
		c->base = addr & ~(uint64_t)4095;
		remote.iov_base = (void *)(uintptr_t)c->base;
		remote.iov_len = 4096 * 2;
		local.iov_len = 4096 * 2;
		r = process_vm_readv(p->pid, &local, 1, &remote, 1, 0);
	}
	if (r <= 0 || (uint64_t)r < addr + len - c->base) {
		c->len = 0;
		return -1;
	}
	c->len = (size_t)r;
	memcpy(buf, c->data + (addr - c->base), len);
	return 0;
}

int
pcln_ptrace_resume(pcln_ptrace *p, double *stopped_us, pcln_err *err)
{
	char bad[256];
	int rc = 0;

	pclni_clearerr(err);
	if (p == NULL)
		return 0;
	detach_all(p, bad, sizeof bad);
	if (stopped_us != NULL)
		*stopped_us = p->n > 0 ? elapsed_us(&p->t0) : 0;
	if (bad[0] != 0)
		rc = pclni_seterr(err, PCLN_EIO, -1, "process %d: could not "
		    "detach from thread(s)%s", p->pid, bad);
	free(p->chunks);
	free(p->t);
	free(p);
	return rc;
}
