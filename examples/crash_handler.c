/* crash_handler.c -- the crash examples' signal handler: a symbolized
 * traceback of the program's own crash, printed from the handler with
 * only the pcln runtime (examples/crash.c, a C program, and
 * examples/crash_cxx.cc, a C++ one, use it; crash_handler.h).
 *
 * The program's table is embedded in it (examples/pcln_blob.c) and found
 * through the symbols pcln_blob_start and pcln_blob_end.  The handler
 * runs on an alternate signal stack, writes with write(2) only and
 * allocates nothing (tests/crash-gdb.sh checks it with breakpoints on
 * malloc, calloc, realloc and free).
 *
 * Built with -DCRASH_DEMANGLE (the C++ program) it prints C++ names
 * demangled, with libiberty's allocation-free interface
 * cplus_demangle_v3_callback and binutils addr2line -C's flags
 * (DMGL_PARAMS | DMGL_ANSI): the demangler keeps its parse tree in
 * variable-length arrays on the stack, about 100 bytes per character of
 * the name, so the alternate stack is 256 KiB there and names longer
 * than CRASH_DEMANGLE_MAX are printed as they are.
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
#include "crash_handler.h"

#ifdef CRASH_DEMANGLE
#if defined __has_include
#if __has_include(<libiberty/demangle.h>)
#include <libiberty/demangle.h>
#else
#include <demangle.h>
#endif
#else
#include <libiberty/demangle.h>
#endif
#define CRASH_ALTSTACK	(256 * 1024)
#define CRASH_DEMANGLE_MAX	1024	/* bytes of a mangled name */
#else
#define CRASH_ALTSTACK	(64 * 1024)
#endif

extern const uint8_t pcln_blob_start[], pcln_blob_end[];

static pclnrt_module module;
/* The program's table and room for CRASH_MODULES more modules (the JIT
 * example registers its functions here: crash_handler_registry). */
#define CRASH_MODULES	256
static unsigned char regmem[PCLNRT_REGISTRY_SIZE(CRASH_MODULES + 1, 512,
    4)];
static pclnrt_registry registry;
static int have_table;
static char altstack[CRASH_ALTSTACK];
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

#ifdef CRASH_DEMANGLE
/* The demangler's output, collected in pieces by its callback. */
struct dmbuf {
	char s[2048];
	size_t n;
	int full;	/* did not fit: print the mangled name instead */
};

static void
dm_piece(const char *s, size_t n, void *arg)
{
	struct dmbuf *b = arg;

	if (b->full || n >= sizeof b->s - b->n) {
		b->full = 1;
		return;
	}
	memcpy(b->s + b->n, s, n);
	b->n += n;
}

/* NAME demangled, "NAME(...)" if it does not demangle. */
static void
put_name(const char *name)
{
	struct dmbuf b;

	b.n = 0;
	b.full = 0;
	if (strnlen(name, CRASH_DEMANGLE_MAX) < CRASH_DEMANGLE_MAX &&
	    cplus_demangle_v3_callback(name, DMGL_PARAMS | DMGL_ANSI,
	    dm_piece, &b) && !b.full) {
		b.s[b.n] = 0;
		put(b.s);
		return;
	}
	put(name);
	put("(...)");
}
#else
static void
put_name(const char *name)
{
	put(name);
	put("(...)");
}
#endif

/* A frame: its name, " [TAG]" ("inlined", "jit") if TAG is not NULL,
 * then file:line and, but for an inlined frame, the offset. */
static void
put_frame(const char *name, const char *file, int32_t line,
    const char *tag, uint64_t off)
{
	int inlined = tag != NULL && tag[0] == 'i';

	put_name(name != NULL ? name : "?");
	if (tag != NULL) {
		put(" [");
		put(tag);
		put("]");
	}
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
			put_frame(calls[k].name, file, line, "inlined", 0);
			file = calls[k].file;
			line = calls[k].line;
		}
		/* Modules other than the program's: JIT functions. */
		put_frame(f->func.name, file, line, f->module != &module ?
		    "jit" : NULL, f->off);
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
	pclnrt_reader *rd = NULL;
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
	/* A reader record: other threads may remove modules (JIT
	 * functions) while the walk and the printing use them. */
	if ((rd = pclnrt_reader_claim(&registry)) != NULL)
		pclnrt_read_enter(&registry, rd);
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
	if (rd != NULL) {
		pclnrt_read_exit(&registry, rd);
		pclnrt_reader_release(&registry, rd);
	}
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

void
crash_handler_install(const char *prog)
{
	struct sigaction sa;
	stack_t ss;
	uint64_t bias = 0;
	int rc;

	(void)dl_iterate_phdr(find_bias, &bias);
	(void)pclnrt_registry_init(&registry, regmem, sizeof regmem,
	    CRASH_MODULES + 1, 4);
	rc = pclnrt_module_init(&module, pcln_blob_start,
	    (size_t)(pcln_blob_end - pcln_blob_start), bias, prog);
	if (rc != 0) {
		put(prog);
		put(": no usable pcln table: ");
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

struct pclnrt_registry *
crash_handler_registry(void)
{
	return &registry;
}

