/* traceback.c -- walk a stack with the pcln runtime and print it the way
 * Go prints a panic.
 *
 *   traceback [DESCRIPTION.pcln]
 *
 * Links the description (default: examples/traceback.pcln under
 * $top_srcdir, else in the current directory) with the libpcln linker,
 * loads the blob as a module at a load bias, builds the stack image of a
 * call chain (main.divide <- main.compute <- ... <- runtime.goexit) as a
 * copy at a made-up address, as a core file would hold it, and walks it
 * with pclnrt_traceback through a reader callback.  Exits 0 if the walk
 * found every frame of the chain and ended at the return address 0.
 *
 * The stack is built with the library (pcln_open, pcln_pcvalue) and
 * walked with the runtime, so the two meet only in the blob.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcln.h"
#include "pcln_link.h"
#include "pclnrt.h"

#define BIAS		0x400000u	/* loaded 4 MiB above the link address */
#define STACK_BASE	0xc000040000u	/* where the stack copy "was" */
#define STACK_WORDS	128

/* The call chain, innermost first: the pc offset in each function (for
 * callers, the return address: just after the call). */
static const struct {
	const char *name;
	uint64_t off;
} chain[] = {
	{ "main.divide", 0xc },		/* the faulting instruction */
	{ "main.compute", 0x2a },
	{ "main.run", 0x1f },
	{ "main.main", 0x25 },
	{ "runtime.main", 0x45 },
	{ "runtime.goexit", 0x1 },
};
#define NCHAIN (sizeof chain / sizeof chain[0])

struct stack {
	uint64_t base;
	uint8_t bytes[STACK_WORDS * 8];
};

/* The reader: serve words from the copy; anything else is unreadable. */
static int
read_copy(void *arg, uint64_t addr, uint8_t *buf, size_t len)
{
	const struct stack *s = arg;

	if (addr < s->base || addr - s->base > sizeof s->bytes - len)
		return -1;
	memcpy(buf, s->bytes + (addr - s->base), len);
	return 0;
}

static void
put64(uint8_t *p, uint64_t v)
{
	int k;

	for (k = 0; k < 8; k++)
		p[k] = (uint8_t)(v >> (8 * k));	/* little-endian target */
}

/* Entry of function NAME in the linked blob, via the library. */
static long
find_name(const pcln_table *t, const char *name, pcln_func *f)
{
	size_t i;

	for (i = 0; i < pcln_nfunc(t); i++)
		if (pcln_get_func(t, i, f) == 0 && strcmp(f->name, name) == 0)
			return (long)i;
	return -1;
}

/* Lay out the chain's frames on S (x86-64: the return address just
 * above each frame).  Returns 0 or -1. */
static int
build_stack(const pcln_table *t, struct stack *s, uint64_t *pc0)
{
	uint64_t sp = s->base, look;
	size_t k;

	for (k = 0; k < NCHAIN; k++) {
		pcln_func f;
		int32_t d;
		long i = find_name(t, chain[k].name, &f);
		uint64_t ret = 0;

		if (i < 0) {
			fprintf(stderr, "traceback: no function %s\n",
			    chain[k].name);
			return -1;
		}
		if (k == 0)
			*pc0 = f.entry + chain[k].off + BIAS;
		/* A return address is looked up at pc - 1. */
		look = f.entry + chain[k].off - (k > 0);
		if (pcln_pcvalue(t, (size_t)i, PCLN_TAB_PCSP, look, &d,
		    NULL) != 0 || d < 0) {
			fprintf(stderr, "traceback: %s+%#" PRIx64
			    ": no sp delta\n", chain[k].name, chain[k].off);
			return -1;
		}
		if (k + 1 < NCHAIN) {
			pcln_func c;

			find_name(t, chain[k + 1].name, &c);
			ret = c.entry + chain[k + 1].off + BIAS;
		}
		if (sp + (uint64_t)d + 8 > s->base + sizeof s->bytes)
			return -1;
		put64(s->bytes + (sp - s->base) + (uint64_t)d, ret);
		sp += (uint64_t)d + 8;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	static struct stack stk;
	char defpath[4096];
	const char *path, *srcdir = getenv("top_srcdir");
	pcln_link *l;
	pcln_table *t;
	pcln_err err;
	uint8_t *blob;
	size_t len, n, k;
	pclnrt_module mod;
	static unsigned char regmem[PCLNRT_REGISTRY_SIZE(1, 8, 0)];
	pclnrt_registry reg;
	pclnrt_walk w;
	pclnrt_frame fr[16];
	pclnrt_stopinfo stop;
	uint64_t pc0 = 0;
	int rc;

	if (argc > 1) {
		path = argv[1];
	} else {
		snprintf(defpath, sizeof defpath, "%s/examples/traceback.pcln",
		    srcdir != NULL ? srcdir : ".");
		path = defpath;
	}
	/* Link the description into a blob. */
	if ((l = pcln_link_new(NULL, &err)) == NULL ||
	    pcln_link_add_file(l, path, &err) != 0 ||
	    pcln_link_run(l, &blob, &len, &err) != 0) {
		fprintf(stderr, "traceback: %s\n", err.msg);
		return 1;
	}
	pcln_link_free(l);
	if ((t = pcln_open(blob, len, 0, &err)) == NULL) {
		fprintf(stderr, "traceback: %s\n", err.msg);
		return 1;
	}

	/* Build the stack copy with the library... */
	stk.base = STACK_BASE;
	if (build_stack(t, &stk, &pc0) != 0)
		return 1;
	pcln_close(t);

	/* ...and walk it with the runtime. */
	if ((rc = pclnrt_module_init(&mod, blob, len, BIAS, "prog")) != 0) {
		fprintf(stderr, "traceback: %s\n", pclnrt_init_strerror(rc));
		return 1;
	}
	if (pclnrt_registry_init(&reg, regmem, sizeof regmem, 1, 0) != 0 ||
	    pclnrt_register(&reg, &mod) != 0) {
		fprintf(stderr, "traceback: cannot register the module\n");
		return 1;
	}
	memset(&w, 0, sizeof w);
	w.modules = &reg;
	w.ptrsize = 8;
	w.bigendian = 0;
	w.conv = PCLNRT_CONV_STACK;
	w.read = read_copy;
	w.read_arg = &stk;
	w.pc = pc0;
	w.sp = STACK_BASE;
	n = pclnrt_traceback(&w, fr, sizeof fr / sizeof fr[0], &stop);

	printf("panic: runtime error: integer divide by zero\n\n"
	    "goroutine 1 [running]:\n");
	for (k = 0; k < n; k++)
		printf("%s(...)\n\t%s:%" PRId32 " +%#" PRIx64 " sp=%#" PRIx64
		    " pc=%#" PRIx64 "\n", fr[k].func.name ? fr[k].func.name :
		    "?", fr[k].file ? fr[k].file : "?", fr[k].line, fr[k].off,
		    fr[k].sp, fr[k].pc);
	printf("\n[%zu frames; stopped: %s at pc=%#" PRIx64 "]\n", n,
	    pclnrt_stop_string(stop.reason), stop.pc);
	/* The frames point into the blob: check them before freeing it. */
	rc = n == NCHAIN && stop.reason == PCLNRT_STOP_END;
	for (k = 0; rc && k < n; k++)
		rc = fr[k].func.name != NULL &&
		    strcmp(fr[k].func.name, chain[k].name) == 0 &&
		    fr[k].off == chain[k].off;
	pclnrt_unregister(&reg, &mod);
	free(blob);
	return rc ? 0 : 1;
}
