/* unwind.c -- profile a program with the BPF stack unwinder
 * (unwind.bpf.c): run PROGRAM stopped at its first instruction (ptrace),
 * put its pcln TABLE into the BPF maps at the program's load bias, attach
 * the BPF program to a CPU-clock perf event of the process (997 Hz), let
 * it run, and print the stacks it sampled, symbolized by the C runtime,
 * most frequent first:
 *
 *   COUNT FUNC;CALLER;...;main      (innermost first, up to main)
 *
 * then "samples: ..." with the counts and why walks ended.
 *
 * Usage: unwind UNWIND.BPF.O TABLE PROGRAM [ARG...]
 * Exits 77 if the kernel refuses BPF or perf_event_open.
 */
#define _GNU_SOURCE 1
#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "maps.h"
#include "pcln_bpf.h"

#define MAXSTACKS	4096

static struct {
	char s[512];
	long n;
} stacks[MAXSTACKS];
static int nstacks;
static long nsamples, nknown, nframes, stops[4];

/* The lowest PT_LOAD address of the ELF file PATH (0 for a PIE). */
static uint64_t
first_vaddr(const char *path)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	uint64_t lo = UINT64_MAX;
	FILE *f = fopen(path, "rb");
	int i;

	if (f == NULL || fread(&eh, sizeof eh, 1, f) != 1 ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64)
		pcln_bpf_die("the program is not a 64-bit ELF file");
	for (i = 0; i < eh.e_phnum; i++) {
		if (fseek(f, (long)(eh.e_phoff + (uint64_t)i * eh.e_phentsize),
		    SEEK_SET) != 0 || fread(&ph, sizeof ph, 1, f) != 1)
			pcln_bpf_die("cannot read the program headers");
		if (ph.p_type == PT_LOAD && ph.p_vaddr < lo)
			lo = ph.p_vaddr & ~(uint64_t)0xfff;
	}
	fclose(f);
	return lo == UINT64_MAX ? 0 : lo;
}

/* The load bias of EXE in process PID: where its offset-0 mapping starts
 * minus its first PT_LOAD address. */
static uint64_t
load_bias(pid_t pid, const char *exe)
{
	char line[PATH_MAX + 128], path[PATH_MAX];
	unsigned long lo, hi, off;
	uint64_t bias = UINT64_MAX;
	FILE *f;

	snprintf(line, sizeof line, "/proc/%d/maps", (int)pid);
	if ((f = fopen(line, "r")) == NULL)
		pcln_bpf_die("cannot read the process's maps");
	while (fgets(line, sizeof line, f) != NULL) {
		path[0] = 0;
		if (sscanf(line, "%lx-%lx %*s %lx %*s %*s %4095s", &lo, &hi,
		    &off, path) == 4 && off == 0 && strcmp(path, exe) == 0) {
			bias = lo - first_vaddr(exe);
			break;
		}
	}
	fclose(f);
	if (bias == UINT64_MAX)
		pcln_bpf_die("the program is not mapped in its process");
	return bias;
}

static int
on_sample(void *ctx, void *data, size_t len)
{
	const struct pcln_bpf_sample *s = data;
	char buf[sizeof stacks[0].s];
	size_t at = 0;
	unsigned i;
	int k;

	(void)ctx;
	if (len < sizeof *s)
		return 0;
	nsamples++;
	nframes += s->n;
	stops[s->stop & 3]++;
	buf[0] = 0;
	for (i = 0; i < s->n && i < PCLN_BPF_FRAMES; i++) {
		const pclnrt_module *m;
		const char *name = "?";
		pclnrt_func f;

		if (pclnrt_registry_findfunc(&pcln_bpf_reg, s->pc[i] -
		    (i > 0), &m, &f) == PCLNRT_OK && f.name != NULL)
			name = f.name;
		if (i == 0 && name[0] != '?')
			nknown++;
		k = snprintf(buf + at, sizeof buf - at, "%s%s", i ? ";" : "",
		    name);
		if (k < 0 || (size_t)k >= sizeof buf - at)
			break;
		at += (size_t)k;
		if (strcmp(name, "main") == 0)
			break;
	}
	for (k = 0; k < nstacks; k++)
		if (strcmp(stacks[k].s, buf) == 0) {
			stacks[k].n++;
			return 0;
		}
	if (nstacks < MAXSTACKS) {
		memcpy(stacks[nstacks].s, buf, sizeof buf);
		stacks[nstacks++].n = 1;
	}
	return 0;
}

static int
by_count(const void *a, const void *b)
{
	long x = ((const typeof(stacks[0]) *)a)->n;
	long y = ((const typeof(stacks[0]) *)b)->n;

	return x < y ? 1 : x > y ? -1 : 0;
}

int
main(int argc, char **argv)
{
	struct perf_event_attr pa;
	struct bpf_object *obj;
	struct bpf_program *prog;
	struct ring_buffer *rb;
	struct bpf_link *link;
	char exe[PATH_MAX];
	uint64_t storesize;
	pid_t pid;
	int st, pfd, rc, i;

	if (argc < 4) {
		fprintf(stderr, "usage: unwind UNWIND.BPF.O TABLE PROGRAM "
		    "[ARG...]\n");
		return 1;
	}
	if (realpath(argv[3], exe) == NULL)
		pcln_bpf_die("cannot find the program");
	if ((rc = pcln_bpf_probe_kernel()) != 0)
		return rc;
	/* Stopped by the kernel right after its exec, before it runs. */
	if ((pid = fork()) < 0)
		pcln_bpf_die("cannot fork");
	if (pid == 0) {
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		execv(exe, argv + 3);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st))
		pcln_bpf_die("the program did not start");
	(void)pcln_bpf_add_file(argv[2], load_bias(pid, exe));
	storesize = pcln_bpf_register_all();
	prog = pcln_bpf_load(argv[1], "pcln_unwind", storesize, &obj);
	memset(&pa, 0, sizeof pa);
	pa.type = PERF_TYPE_SOFTWARE;
	pa.size = sizeof pa;
	pa.config = PERF_COUNT_SW_CPU_CLOCK;
	pa.sample_freq = 997;
	pa.freq = 1;
	pfd = (int)syscall(__NR_perf_event_open, &pa, pid, -1, -1,
	    PERF_FLAG_FD_CLOEXEC);
	if (pfd < 0) {
		printf("unwind: SKIP: the kernel refuses perf_event_open: %s\n",
		    strerror(errno));
		kill(pid, SIGKILL);
		return 77;
	}
	if ((link = bpf_program__attach_perf_event(prog, pfd)) == NULL ||
	    libbpf_get_error(link) != 0)
		pcln_bpf_die("cannot attach to the perf event");
	rb = ring_buffer__new(bpf_object__find_map_fd_by_name(obj, "samples"),
	    on_sample, NULL, NULL);
	if (rb == NULL)
		pcln_bpf_die("no ring buffer");
	if (ptrace(PTRACE_DETACH, pid, NULL, NULL) != 0)
		pcln_bpf_die("cannot let the program run");
	while ((rc = (int)waitpid(pid, &st, WNOHANG)) == 0)
		(void)ring_buffer__poll(rb, 100);
	(void)ring_buffer__consume(rb);
	qsort(stacks, (size_t)nstacks, sizeof stacks[0], by_count);
	for (i = 0; i < nstacks; i++)
		printf("%ld %s\n", stacks[i].n, stacks[i].s);
	printf("samples: %ld, %ld in the table's code, %.1f frames a stack; "
	    "walks ended: %ld at the end of the stack, %ld pc without a "
	    "table, %ld no sp delta, %ld unreadable stack\n", nsamples, nknown,
	    nsamples ? (double)nframes / (double)nsamples : 0.0, stops[0],
	    stops[1], stops[2], stops[3]);
	ring_buffer__free(rb);
	bpf_link__destroy(link);
	bpf_object__close(obj);
	return rc == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}
