/* crash.c -- a program that prints a symbolized traceback of its own
 * crash from its signal handler, using only the pcln runtime.
 *
 * Built -O2 -g -fomit-frame-pointer (examples/crash.mk): no frame
 * pointers, so the walk uses the pcsp table that pclnld --elf made from
 * the program's CFI; the table is embedded in the program itself
 * (examples/pcln_blob.c) and found through the symbols pcln_blob_start
 * and pcln_blob_end.  The handler runs on an alternate signal stack,
 * writes with write(2) only and allocates nothing.
 *
 * Usage: crash [segv|fpe|abrt|vla]   (default segv; vla: SIGSEGV in a
 * function that calls alloca, whose CFA is rbp-based)
 * It crashes through main -> crash_level1 -> crash_level2 ->
 * crash_level3 -> crash_<kind>, prints the traceback to standard error
 * and then dies of the signal (default action).
 */
#define _GNU_SOURCE 1
#include <link.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

#include "pclnrt.h"

extern const uint8_t pcln_blob_start[], pcln_blob_end[];

static pclnrt_module module;
static _Atomic(pclnrt_module *) slots[1];
static pclnrt_registry registry;
static int have_table;
static char altstack[64 * 1024];
static pclnrt_frame frames[64];

/* --- output without allocation ---------------------------------------- */

static void
put(const char *s)
{
	size_t n = 0;

	while (s[n] != 0)
		n++;
	while (n > 0) {
		ssize_t w = write(2, s, n);
		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

static void
puthex(uint64_t v)
{
	char buf[19];
	int i = 18;

	buf[i] = 0;
	do {
		buf[--i] = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v != 0);
	buf[--i] = 'x';
	buf[--i] = '0';
	put(buf + i);
}

static void
putdec(int64_t v)
{
	char buf[24];
	int i = 23;
	uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;

	buf[i] = 0;
	do {
		buf[--i] = (char)('0' + u % 10);
		u /= 10;
	} while (u != 0);
	if (v < 0)
		buf[--i] = '-';
	put(buf + i);
}

/* --- the handler ------------------------------------------------------- */

static const char *
signame(int sig)
{
	switch (sig) {
	case SIGSEGV: return "SIGSEGV: segmentation violation";
	case SIGFPE: return "SIGFPE: arithmetic exception";
	case SIGABRT: return "SIGABRT: abort";
	case SIGBUS: return "SIGBUS: bus error";
	case SIGILL: return "SIGILL: illegal instruction";
	default: return "signal";
	}
}

static void
put_frame(const char *name, const char *file, int32_t line, int inlined,
    uint64_t off)
{
	put(name != NULL ? name : "?");
	put("(...)");
	if (inlined)
		put(" [inlined]");
	put("\n\t");
	put(file != NULL ? file : "??");
	put(":");
	putdec(line);
	if (!inlined) {
		put(" +");
		puthex(off);
	}
	put("\n");
}

static void
print_frames(size_t n, const pclnrt_stopinfo *stop, int first_retaddr)
{
	static pclnrt_inlcall calls[16];
	size_t i, k, ncalls;

	for (i = 0; i < n; i++) {
		const pclnrt_frame *f = &frames[i];
		/* The link-time pc the frame's line came from: a return
		 * address is looked up at pc - 1. */
		uint64_t look = f->pc - f->module->bias -
		    (i > 0 || first_retaddr ? 1 : 0);
		const char *file = f->file;
		int32_t line = f->line;

		if (pclnrt_inline(&f->func, look, calls, 16, &ncalls) !=
		    PCLNRT_OK)
			ncalls = 0;
		/* Innermost first: the inlined functions at their own
		 * positions, then the real function at the outermost
		 * call. */
		for (k = 0; k < ncalls; k++) {
			put_frame(calls[k].name, file, line, 1, 0);
			file = calls[k].file;
			line = calls[k].line;
		}
		put_frame(f->func.name, file, line, 0, f->off);
	}
	put("[walk stopped: ");
	put(pclnrt_stop_string(stop->reason));
	put(" at pc=");
	puthex(stop->pc);
	put("]\n");
}

#if defined(__x86_64__)
/* The first frame for a signal raised outside the program (abort, raise:
 * the pc is in libc, which has no table here): the nearest stack word
 * above SP that is a return address into the program, i.e. that lies in
 * one of its functions just after a call instruction (5-byte call rel32,
 * or 2-, 3- or 6-byte indirect calls).  A heuristic; the frames it finds
 * are marked. */
static int
find_retaddr(uint64_t sp, uint64_t *pc, uint64_t *at)
{
	uint64_t a;

	for (a = sp; a < sp + 16384; a += 8) {
		uint64_t w = *(const uint64_t *)(uintptr_t)a;
		pclnrt_func f;
		const uint8_t *c;

		if (pclnrt_registry_findfunc(&registry, w - 1, NULL, &f) !=
		    PCLNRT_OK)
			continue;
		c = (const uint8_t *)(uintptr_t)w;
		if (c[-5] == 0xe8 ||
		    (c[-2] == 0xff && (c[-1] & 0x38) == 0x10) ||
		    (c[-3] == 0xff && (c[-2] & 0x38) == 0x10) ||
		    (c[-6] == 0xff && (c[-5] & 0x38) == 0x10)) {
			*pc = w;
			*at = a;
			return 0;
		}
	}
	return -1;
}

static void
handler(int sig, siginfo_t *si, void *ctx)
{
	const ucontext_t *uc = ctx;
	pclnrt_walk w;
	pclnrt_stopinfo stop;
	pclnrt_func f;
	size_t n;

	put(signame(sig));
	put("\nPC=");
	puthex((uint64_t)uc->uc_mcontext.gregs[REG_RIP]);
	put(" addr=");
	puthex((uint64_t)(uintptr_t)si->si_addr);
	put("\n\n");
	if (!have_table) {
		put("(no pcln table: no traceback)\n");
		goto out;
	}
	memset(&w, 0, sizeof w);
	w.modules = &registry;
	w.ptrsize = 8;
	w.conv = PCLNRT_CONV_STACK;
	w.pc = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
	w.sp = (uint64_t)uc->uc_mcontext.gregs[REG_RSP];
	/* Frames whose CFA is rbp-based (alloca, VLAs) need rbp. */
	w.fp = (uint64_t)uc->uc_mcontext.gregs[REG_RBP];
	w.flags = PCLNRT_TB_FP;
	if (pclnrt_registry_findfunc(&registry, w.pc, NULL, &f) !=
	    PCLNRT_OK) {
		uint64_t at;
		if (find_retaddr(w.sp, &w.pc, &at) < 0) {
			put("(pc outside the program; no return address "
			    "into it found on the stack)\n");
			goto out;
		}
		put("(frames outside the program skipped; the first "
		    "frame below is a return address found on the stack)\n");
		w.sp = at + 8;
		w.flags |= PCLNRT_TB_FIRST_RETADDR;
	}
	n = pclnrt_traceback(&w, frames, sizeof frames / sizeof frames[0],
	    &stop);
	print_frames(n, &stop, w.flags & PCLNRT_TB_FIRST_RETADDR);
out:
	signal(sig, SIG_DFL);
	raise(sig);
}
#else
static void
handler(int sig, siginfo_t *si, void *ctx)
{
	(void)si;
	(void)ctx;
	put(signame(sig));
	put("\n(traceback not implemented for this architecture)\n");
	signal(sig, SIG_DFL);
	raise(sig);
}
#endif

/* --- finding our own table -------------------------------------------- */

/* dl_iterate_phdr callback: the load bias of the object that holds the
 * blob (0 for a non-PIE executable). */
static int
find_bias(struct dl_phdr_info *info, size_t size, void *arg)
{
	uint64_t *bias = arg, a = (uint64_t)(uintptr_t)pcln_blob_start;
	int i;

	(void)size;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *p = &info->dlpi_phdr[i];
		uint64_t lo = info->dlpi_addr + p->p_vaddr;
		if (p->p_type == PT_LOAD && a >= lo && a < lo + p->p_memsz) {
			*bias = info->dlpi_addr;
			return 1;
		}
	}
	return 0;
}

static void
setup(void)
{
	struct sigaction sa;
	stack_t ss;
	uint64_t bias = 0;
	int rc;

	(void)dl_iterate_phdr(find_bias, &bias);
	pclnrt_registry_init(&registry, slots, 1);
	rc = pclnrt_module_init(&module, pcln_blob_start,
	    (size_t)(pcln_blob_end - pcln_blob_start), bias, "crash");
	if (rc != 0) {
		put("crash: no usable pcln table: ");
		put(pclnrt_init_strerror(rc));
		put("\n");
	} else if (pclnrt_register(&registry, &module) == PCLNRT_OK)
		have_table = 1;
	ss.ss_sp = altstack;
	ss.ss_size = sizeof altstack;
	ss.ss_flags = 0;
	(void)sigaltstack(&ss, NULL);
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = handler;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	(void)sigaction(SIGSEGV, &sa, NULL);
	(void)sigaction(SIGBUS, &sa, NULL);
	(void)sigaction(SIGFPE, &sa, NULL);
	(void)sigaction(SIGILL, &sa, NULL);
	(void)sigaction(SIGABRT, &sa, NULL);
}

/* --- the crashing call chain ------------------------------------------ */

int crash_segv(int) __attribute__((noinline));
int crash_fpe(int) __attribute__((noinline));
int crash_abrt(int) __attribute__((noinline));
int crash_vla(int) __attribute__((noinline));
int crash_level3(int, int) __attribute__((noinline));
int crash_level2(int, int) __attribute__((noinline));
int crash_level1(int, int) __attribute__((noinline));
static inline int crash_inlined(int, int) __attribute__((always_inline));

static int *volatile null_pointer;
static volatile int zero;

int
crash_segv(int x)
{
	return *null_pointer + x;
}

int
crash_fpe(int x)
{
	return x / zero + 1;
}

int
crash_abrt(int x)
{
	if (x > 0)
		abort();
	return x;
}

/* alloca: the compiler keeps a frame pointer and the CFI says CFA =
 * rbp + 16 here (pcdata PCLN_PCDATA_CFA). */
int
crash_vla(int x)
{
	volatile int *a = __builtin_alloca(((size_t)x + 4) * sizeof *a);
	int i;

	for (i = 0; i < x + 4; i++)
		a[i] = i;
	return a[x] + *null_pointer;
}

/* Each level uses its callee's result after the call, so the calls are
 * real calls, not jumps: every level keeps a frame. */
int
crash_level3(int kind, int x)
{
	int r;

	if (kind == 1)
		r = crash_fpe(x + 3);
	else if (kind == 2)
		r = crash_abrt(x + 3);
	else if (kind == 3)
		r = crash_vla(x + 3);
	else
		r = crash_segv(x + 3);
	return r * 3 + x;
}

/* Inlined into crash_level2: the traceback marks its frame. */
static inline int
crash_inlined(int kind, int x)
{
	return crash_level3(kind, x + 2) * 2 + x;
}

int
crash_level2(int kind, int x)
{
	return crash_inlined(kind, x) + 1;
}

int
crash_level1(int kind, int x)
{
	return crash_level2(kind, x + 1) + x * 5;
}

int
main(int argc, char **argv)
{
	int kind = 0;

	setup();
	if (argc > 1 && strcmp(argv[1], "fpe") == 0)
		kind = 1;
	else if (argc > 1 && strcmp(argv[1], "abrt") == 0)
		kind = 2;
	else if (argc > 1 && strcmp(argv[1], "vla") == 0)
		kind = 3;
	return crash_level1(kind, argc) == 42;
}
