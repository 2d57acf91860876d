/* fuzz_runtime.c -- the runtime on unverified blobs.
 *
 * pclnrt_init on the input and, if it accepts it, findfunc, every table
 * value (every pcdata index the function has, up to 16, and past them),
 * funcline, the inlined calls, funcdata and file names at pcs spread
 * over the table, some of them also through a pc-value cache kept for
 * the whole input, which must answer exactly as the uncached lookup
 * (pclnrt.h), and again in another order; then a traceback over a fake stack made from the input's
 * last bytes, with or without the cache, frame pointers
 * (PCLNRT_TB_FP: the fake rbp is in the stack too) and a first return
 * address, by the input's size.  The runtime promises that on a corrupt
 * blob every loop ends and no read leaves the blob: the input is an
 * exactly-sized heap copy, so ASan reports any read past it, and
 * libFuzzer's timeout any endless loop.
 */
#include <config.h>

#include "fuzz.h"
#include "pclnrt.h"

struct stack {
	const uint8_t *p;
	size_t len;
	uint64_t base;
};

static int
readstack(void *arg, uint64_t addr, uint8_t *buf, size_t len)
{
	const struct stack *s = arg;
	size_t i;

	if (addr < s->base || addr - s->base > s->len ||
	    s->len - (addr - s->base) < len)
		return -1;
	for (i = 0; i < len; i++)
		buf[i] = s->p[addr - s->base + i];
	return 0;
}

static void
probe(const pclnrt_table *T, uint64_t pc, pclnrt_pccache *c)
{
	pclnrt_func f;
	pclnrt_inlcall calls[8];
	const char *path, *cpath;
	int32_t v, cv, line, cline;
	uint64_t start, end, fd;
	uint32_t i, ntab;
	size_t ncall;
	int table, rc;

	if (pclnrt_findfunc(T, pc, &f) != PCLNRT_OK)
		return;
	if (pc < f.entry || pc >= f.end)
		abort();
	ntab = 3 + (f.npcdata < 16 ? f.npcdata : 16) + 1;
	for (table = -1; table < (int)ntab; table++) {
		rc = pclnrt_pcvalue(&f, table, pc, &v, &start, &end);
		if (rc == PCLNRT_OK && (pc < start || pc >= end))
			abort();
		if (c != NULL && (pclnrt_pcvalue_cached(&f, table, pc, &cv,
		    c) != rc || (rc == PCLNRT_OK && cv != v)))
			abort();	/* the cache must never change an answer */
	}
	(void)pclnrt_pcsp(&f, pc, &v);
	(void)pclnrt_pcfile(&f, pc, &v);
	for (i = 0; i <= f.npcdata && i < 16; i++)
		(void)pclnrt_pcdata(&f, i, pc, &v);
	(void)pclnrt_pcdata(&f, UINT32_MAX, pc, &v);
	rc = pclnrt_funcline(&f, pc, &path, &line);
	if (c != NULL && (pclnrt_funcline_cached(&f, pc, &cpath, &cline, c) !=
	    rc || cpath != path || cline != line))
		abort();
	ncall = 99;
	rc = pclnrt_inline(&f, pc, calls, 8, &ncall);
	if ((rc != PCLNRT_OK && rc != PCLNRT_CORRUPT) || ncall > 8)
		abort();
	(void)pclnrt_inline(&f, pc, calls, 1, &ncall);
	(void)pclnrt_inline(&f, pc, NULL, 0, &ncall);
	for (i = 0; i < 3; i++)
		(void)pclnrt_funcdata(&f, i, &fd);
	(void)pclnrt_funcdata(&f, UINT32_MAX, &fd);
	(void)pclnrt_filename(T, (int32_t)f.index + 1);
	/* (the whole string read: a name past the blob is the sanitizer's) */
	{
		const char *sn = pclnrt_symname(&f);
		if (sn != NULL && strlen(sn) == SIZE_MAX)
			abort();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *blob = fuzz_copy(data, size);
	static unsigned char regmem[PCLNRT_REGISTRY_SIZE(2, 16, 0)];
	pclnrt_registry reg;
	pclnrt_module mod;
	pclnrt_frame frames[16];
	pclnrt_stopinfo stop;
	pclnrt_walk w;
	pclnrt_pccache cache, pcache;
	struct stack st;
	uint64_t pc, span;
	int i;

	(void)pclnrt_verify_checksum(blob, size);
	if (pclnrt_module_init(&mod, blob, size, 0x10000, "fuzz") != 0) {
		free(blob);
		return 0;
	}
	(void)pclnrt_filename(&mod.table, -1);
	(void)pclnrt_filename(&mod.table, 0);
	(void)pclnrt_filename(&mod.table, INT32_MAX);
	span = mod.table.maxpc - mod.table.minpc;
	pclnrt_pccache_init(&pcache);
	for (i = 0; i <= 64; i++) {
		pc = mod.table.minpc + (span / 64) * (uint64_t)i;
		probe(&mod.table, pc, i % 4 == 0 ? &pcache : NULL);
		probe(&mod.table, pc + 1, NULL);
		probe(&mod.table, pc - 1, NULL);
	}
	/* Again, backwards and at other pcs of the same rows: hits. */
	for (i = 64; i >= 0; i -= 2)
		probe(&mod.table, mod.table.minpc + (span / 64) * (uint64_t)i +
		    2, &pcache);
	probe(&mod.table, 0, &pcache);
	probe(&mod.table, UINT64_MAX, &pcache);

	/* A traceback: the stack is the input's last 256 bytes (or all of
	 * it), starting at a pc inside the table. */
	if (pclnrt_registry_init(&reg, regmem, sizeof regmem, 2, 0) !=
	    PCLNRT_OK)
		abort();
	if (pclnrt_register(&reg, &mod) != PCLNRT_OK)
		abort();
	st.len = size < 256 ? size : 256;
	st.p = blob + size - st.len;
	st.base = 0x7f0000;
	memset(&w, 0, sizeof w);
	pclnrt_pccache_init(&cache);
	w.cache = size & 4 ? &cache : NULL;
	w.modules = &reg;
	w.ptrsize = mod.table.ptrsize;
	w.bigendian = mod.table.big;
	w.conv = size & 1 ? PCLNRT_CONV_LR : PCLNRT_CONV_STACK;
	w.flags = (size & 2 ? PCLNRT_TB_FIRST_RETADDR : 0) |
	    (size & 8 ? PCLNRT_TB_FP : 0);
	w.fp = st.base + (st.len >= 16 ? st.p[0] % (st.len - 8) : 0);
	w.read = readstack;
	w.read_arg = &st;
	w.pc = mod.lo + (span ? (uint64_t)size % span : 0);
	w.sp = st.base;
	w.lr = mod.lo + span / 2;
	if (pclnrt_traceback(&w, frames, 16, &stop) > 16)
		abort();
	if (stop.reason < 0 || stop.reason >= PCLNRT_NSTOP)
		abort();
	(void)pclnrt_unregister(&reg, &mod);
	free(blob);
	return 0;
}
