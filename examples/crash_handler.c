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
 * Built with -DCRASH_PROCESS (examples/xcrash.c and xcrash_cxx.cc, which
 * link libpcln) it walks the whole process instead: every object
 * dl_iterate_phdr reports gets a table at start-up (pcln_self_open,
 * lib/proc: its .pcln section, or a table made from its symbols, DWARF
 * and CFI -- libc as Debian ships it included), and crash_handler_refresh
 * adds and removes objects after dlopen and dlclose.  The walk then reads
 * the stack with pcln_self_read (a bad address fails the read instead of
 * faulting again), brackets its lookups with a reader record
 * (pclnrt_read_enter/exit) against a refresh in another thread, and
 * prints each frame's object.
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
#ifdef CRASH_PROCESS
#include <stdio.h>

#include "pcln_proc.h"
#endif

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

#ifdef CRASH_PROCESS
static pcln_self *self;
static pclnrt_registry *registry;	/* pcln_self_registry(self) */
#define CRASH_READ	pcln_self_read
#define CRASH_TAG(f)	((const char *)NULL)	/* the object is printed */
#else
extern const uint8_t pcln_blob_start[], pcln_blob_end[];

static pclnrt_module module;
/* The program's table and room for CRASH_MODULES more modules (the JIT
 * example registers its functions here: crash_handler_registry). */
#define CRASH_MODULES	256
static unsigned char regmem[PCLNRT_REGISTRY_SIZE(CRASH_MODULES + 1, 512,
    4)];
static pclnrt_registry registry_one;
static pclnrt_registry *registry = &registry_one;
#define CRASH_READ	NULL		/* pclnrt_read_direct */
/* Modules other than the program's: JIT functions. */
#define CRASH_TAG(f)	((f)->module != &module ? "jit" : NULL)
#endif
static int have_table;
static char altstack[CRASH_ALTSTACK];
static pclnrt_frame frames[128];

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

	if (name[0] == 0) {	/* unnamed: code with CFI, no symbol */
		put("??");
		return;
	}
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
	if (name[0] == 0) {	/* unnamed: code with CFI, no symbol */
		put("??");
		return;
	}
	put(name);
	put("(...)");
}
#endif

/* A frame: its name, " [TAG]" ("inlined", "jit") if TAG is not NULL,
 * then file:line and, but for an inlined frame, the offset (and with
 * CRASH_PROCESS F's object and pc):
 *	NAME [TAG]
 *	FILE:LINE +OFF[ in OBJECT at PC] */
static void
put_frame(const char *name, const char *file, int32_t line,
    const char *tag, uint64_t off, const pclnrt_frame *f)
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
#ifdef CRASH_PROCESS
	if (!inlined && f->module->name != NULL) {
		put(" in ");
		put(f->module->name);
		put(" at ");
		puthex(f->pc);
	}
#else
	(void)f;
#endif
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
			put_frame(calls[k].name, file, line, "inlined", 0,
			    f);
			file = calls[k].file;
			line = calls[k].line;
		}
		put_frame(f->func.name, file, line, CRASH_TAG(f), f->off, f);
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

		if (pclnrt_registry_findfunc(registry, w - 1, NULL, &f) !=
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
	if ((rd = pclnrt_reader_claim(registry)) != NULL)
		pclnrt_read_enter(registry, rd);
	memset(&w, 0, sizeof w);
	w.modules = registry;
	w.read = CRASH_READ;
	w.ptrsize = 8;
	w.conv = PCLNRT_CONV_STACK;
	w.pc = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
	w.sp = (uint64_t)uc->uc_mcontext.gregs[REG_RSP];
	/* Frames whose CFA is rbp-based (alloca, VLAs) need rbp. */
	w.fp = (uint64_t)uc->uc_mcontext.gregs[REG_RBP];
	w.flags = PCLNRT_TB_FP;
	if (pclnrt_registry_findfunc(registry, w.pc, NULL, &f) !=
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
		pclnrt_read_exit(registry, rd);
		pclnrt_reader_release(registry, rd);
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

/* --- finding the tables ----------------------------------------------- */

static void
install_handler(void)
{
	struct sigaction sa;
	stack_t ss;

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

#ifdef CRASH_PROCESS
/* Every object's table (stdio is fine here: not in the handler). */
void
crash_handler_install(const char *prog)
{
	pcln_err err;
	size_t i, n, with = 0;

	if ((self = pcln_self_open(0, &err)) == NULL) {
		fprintf(stderr, "%s: %s\n", prog, err.msg);
		exit(2);
	}
	registry = pcln_self_registry(self);
	n = pcln_self_nobjects(self);
	for (i = 0; i < n; i++) {
		const pcln_object *o = pcln_self_object(self, i, NULL);
		if (o->table != NULL)
			with++;
		else
			fprintf(stderr, "%s: %s: no table: %s\n", prog,
			    o->path, o->note);
	}
	fprintf(stderr, "%s: %zu objects, %zu with tables\n", prog, n, with);
	have_table = with > 0;
	install_handler();
}

long
crash_handler_refresh(void)
{
	pcln_err err;
	long r = pcln_self_refresh(self, &err);

	if (r < 0)
		fprintf(stderr, "crash handler: %s\n", err.msg);
	return r < 0 ? -1 : (long)pcln_self_nobjects(self);
}
#else
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
	uint64_t bias = 0;
	int rc;

	(void)dl_iterate_phdr(find_bias, &bias);
	(void)pclnrt_registry_init(registry, regmem, sizeof regmem,
	    CRASH_MODULES + 1, 4);
	rc = pclnrt_module_init(&module, pcln_blob_start,
	    (size_t)(pcln_blob_end - pcln_blob_start), bias, prog);
	if (rc != 0) {
		put(prog);
		put(": no usable pcln table: ");
		put(pclnrt_init_strerror(rc));
		put("\n");
	} else if (pclnrt_register(registry, &module) == PCLNRT_OK)
		have_table = 1;
	install_handler();
}
#endif

struct pclnrt_registry *
crash_handler_registry(void)
{
	return registry;
}
