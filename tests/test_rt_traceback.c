/* test_rt_traceback.c -- tracebacks over synthetic stacks: expected
 * frames under both conventions, pointer sizes and byte orders; every
 * stop reason; modules with biases; a reader that fails; the direct
 * reader on a real in-process stack image. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "test_rt.h"

/* The program: link-time layout, one file, trailer on.  Frame sizes D
 * are the pcsp values at the call sites. */
struct pfunc {
	const char *name;
	uint64_t entry, size;
	int npt;
	uint64_t spoff[3];
	int32_t spval[3];
	uint64_t lnoff[4];
	int32_t lnval[4];
	int nln;
};

static const struct pfunc prog[] = {
	{ "main.main", 0x1000, 0x40, 3, { 0, 4, 0x3c }, { 0, 24, 0 },
	    { 0, 0x10, 0x20, 0x30 }, { 10, 11, 12, 13 }, 4 },
	{ "main.f", 0x1040, 0x40, 3, { 0, 4, 0x3c }, { 0, 40, 0 },
	    { 0, 0x18, 0x28 }, { 20, 21, 22 }, 3 },
	{ "main.g", 0x1080, 0x30, 3, { 0, 4, 0x2c }, { 0, 16, 0 },
	    { 0, 0x14 }, { 30, 31 }, 2 },
	{ "main.leaf", 0x10c0, 0x10, 1, { 0 }, { 0 },
	    { 0, 8 }, { 40, 41 }, 2 },
	/* gap [0x10d0, 0x1100) */
	{ "main.nosp", 0x1100, 0x20, 0, { 0 }, { 0 }, { 0 }, { 50 }, 1 },
	{ "main.neg", 0x1120, 0x20, 1, { 0 }, { -64 }, { 0 }, { 60 }, 1 },
	/* D = -ptrsize: under CONV_STACK the caller's sp equals the sp. */
	{ "main.m4", 0x1140, 0x10, 1, { 0 }, { -4 }, { 0 }, { 70 }, 1 },
	{ "main.m8", 0x1150, 0x10, 1, { 0 }, { -8 }, { 0 }, { 80 }, 1 },
};

static const struct pfunc libprog[] = {
	{ "lib.call", 0x1000, 0x20, 3, { 0, 4, 0x1c }, { 0, 32, 0 },
	    { 0 }, { 100 }, 1 },
};

static uint8_t *
build(const struct pfunc *p, size_t n, const char *file, unsigned ps,
    int big, size_t *len)
{
	pcln_target tg = { ps, 1, big };
	pcln_builder *b = pcln_builder_new(&tg, NULL);
	uint8_t *out;
	pcln_err err;
	size_t i;
	int k;

	ck_assert_ptr_nonnull(b);
	ck_assert_int_eq(pcln_builder_add_file(b, file, NULL), 1);
	for (i = 0; i < n; i++) {
		long h = pcln_builder_add_func(b, p[i].name, p[i].entry,
		    p[i].size, 0, 0, &err);

		ck_assert_msg(h >= 0, "%s", err.msg);
		ck_assert_int_eq(pcln_builder_add_point(b, h, PCLN_TAB_PCFILE,
		    0, 1, NULL), 0);
		for (k = 0; k < p[i].npt; k++)
			ck_assert_int_eq(pcln_builder_add_point(b, h,
			    PCLN_TAB_PCSP, p[i].spoff[k], p[i].spval[k],
			    NULL), 0);
		for (k = 0; k < p[i].nln; k++)
			ck_assert_int_eq(pcln_builder_add_point(b, h,
			    PCLN_TAB_PCLN, p[i].lnoff[k], p[i].lnval[k],
			    NULL), 0);
	}
	ck_assert_msg(pcln_builder_write(b, 0, &out, len, &err) == 0, "%s",
	    err.msg);
	pcln_builder_free(b);
	return out;
}

/* Stack memory seen through the reader callback. */
struct fakemem {
	uint64_t base;
	uint8_t buf[256];
	unsigned ps;
	int big;
	uint64_t failat;	/* a read covering it fails (0: none) */
	int nreads;
};

static int
fakeread(void *arg, uint64_t addr, uint8_t *buf, size_t len)
{
	struct fakemem *m = arg;

	m->nreads++;
	ck_assert_uint_eq(len, m->ps);
	if (m->failat != 0 && addr <= m->failat && m->failat < addr + len)
		return -1;
	if (addr < m->base || addr - m->base > sizeof m->buf - len)
		return -1;
	memcpy(buf, m->buf + (addr - m->base), len);
	return 0;
}

static void
putw(struct fakemem *m, uint64_t addr, uint64_t v)
{
	uint8_t *p = m->buf + (addr - m->base);
	unsigned k;

	ck_assert_uint_le(addr - m->base, sizeof m->buf - m->ps);
	for (k = 0; k < m->ps; k++)
		p[m->big ? m->ps - 1 - k : k] = (uint8_t)(v >> (8 * k));
}

struct want {
	const char *name;
	uint64_t pc, off;
	int32_t line;
	int32_t spdelta;
	int mod;		/* 0 main, 1 lib */
};

struct env {
	unsigned ps;
	int big, conv;
	uint8_t *blob[2];
	size_t len[2];
	pclnrt_module mod[2];
	unsigned char regmem[PCLNRT_REGISTRY_SIZE(4, 32, 0)];
	pclnrt_registry reg;
	struct fakemem mem;
	pclnrt_walk w;
	uint64_t bias[2];
};

#define S 0x7ffe0000u	/* stack base (sp of the first frame) */

static void
env_init(struct env *e, int i)
{
	e->ps = i % 2 ? 8 : 4;
	e->big = (i / 2) % 2;
	e->conv = (i / 4) % 2 ? PCLNRT_CONV_LR : PCLNRT_CONV_STACK;
	e->blob[0] = build(prog, sizeof prog / sizeof prog[0],
	    "/src/main.go", e->ps, e->big, &e->len[0]);
	e->blob[1] = build(libprog, 1, "/src/lib.c", e->ps, e->big,
	    &e->len[1]);
	e->bias[0] = 0;
	e->bias[1] = e->ps == 8 ? 0x7f1200000000ull : 0x20000000u;
	ck_assert_int_eq(pclnrt_module_init(&e->mod[0], e->blob[0],
	    e->len[0], e->bias[0], "main"), 0);
	ck_assert_int_eq(pclnrt_module_init(&e->mod[1], e->blob[1],
	    e->len[1], e->bias[1], "lib"), 0);
	ck_assert_int_eq(pclnrt_registry_init(&e->reg, e->regmem,
	    sizeof e->regmem, 4, 0), 0);
	ck_assert_int_eq(pclnrt_register(&e->reg, &e->mod[0]), 0);
	ck_assert_int_eq(pclnrt_register(&e->reg, &e->mod[1]), 0);
	memset(&e->mem, 0, sizeof e->mem);
	e->mem.base = S - 64;
	e->mem.ps = e->ps;
	e->mem.big = e->big;
	memset(&e->w, 0, sizeof e->w);
	e->w.modules = &e->reg;
	e->w.ptrsize = e->ps;
	e->w.bigendian = e->big;
	e->w.conv = e->conv;
	e->w.read = fakeread;
	e->w.read_arg = &e->mem;
	e->w.sp = S;
}

static void
env_free(struct env *e)
{
	free(e->blob[0]);
	free(e->blob[1]);
}

/* Lay out the callers of a first frame at FIRSTPC: CHAIN[k] is the
 * return address into the k-th caller and D[k] the frame size of frame k
 * at its pc; the outermost caller returns to 0. */
static void
lay_stack(struct env *e, const uint64_t *ret, const int32_t *d, int n)
{
	uint64_t sp = S;
	int k;

	for (k = 0; k < n; k++) {
		if (e->conv == PCLNRT_CONV_STACK) {
			putw(&e->mem, sp + (uint64_t)(int64_t)d[k], ret[k]);
			sp += (uint64_t)(int64_t)d[k] + e->ps;
		} else {
			if (k == 0 && d[k] == 0)
				e->w.lr = ret[k];
			else
				putw(&e->mem, sp, ret[k]);
			sp += (uint64_t)(int64_t)d[k];
		}
	}
}

static void
expect(struct env *e, size_t max, const struct want *want, size_t nwant,
    int stop, uint64_t stoppc)
{
	pclnrt_frame fr[8];
	pclnrt_stopinfo si;
	size_t n, k;

	n = pclnrt_traceback(&e->w, fr, max, &si);
	ck_assert_msg(n == nwant && si.reason == stop,
	    "ps %u big %d conv %d: %zu frames, stop %s; want %zu, %s", e->ps,
	    e->big, e->conv, n, pclnrt_stop_string(si.reason), nwant,
	    pclnrt_stop_string(stop));
	ck_assert_uint_eq(si.pc, stoppc);
	for (k = 0; k < n; k++) {
		uint64_t b = e->bias[want[k].mod];

		ck_assert_str_eq(fr[k].func.name, want[k].name);
		ck_assert_uint_eq(fr[k].pc, want[k].pc + b);
		ck_assert_uint_eq(fr[k].off, want[k].off);
		ck_assert_uint_eq(fr[k].entry, want[k].pc + b - want[k].off);
		ck_assert_int_eq(fr[k].line, want[k].line);
		ck_assert_int_eq(fr[k].spdelta, want[k].spdelta);
		ck_assert_str_eq(fr[k].file, want[k].mod ? "/src/lib.c" :
		    "/src/main.go");
		ck_assert_ptr_eq(fr[k].module, &e->mod[want[k].mod]);
		if (k == 0)
			ck_assert_uint_eq(fr[k].sp, S);
		else
			ck_assert_uint_gt(fr[k].sp, fr[k - 1].sp -
			    (e->conv == PCLNRT_CONV_LR && k == 1));
	}
}

/* leaf+8 <- g+0x18 <- f+0x1c <- main+0x24 <- 0 */
static const struct want chain[] = {
	{ "main.leaf", 0x10c8, 0x8, 41, 0, 0 },
	{ "main.g", 0x1098, 0x18, 31, 16, 0 },
	{ "main.f", 0x105c, 0x1c, 21, 40, 0 },
	{ "main.main", 0x1024, 0x24, 12, 24, 0 },
};
static const uint64_t chain_ret[] = { 0x1098, 0x105c, 0x1024, 0 };
static const int32_t chain_d[] = { 0, 16, 40, 24 };

START_TEST(test_chain)
{
	struct env e;

	env_init(&e, _i);
	lay_stack(&e, chain_ret, chain_d, 4);
	e.w.pc = 0x10c8;
	expect(&e, 8, chain, 4, PCLNRT_STOP_END, 0);
	/* The limit: two frames, and the walk stops at the third pc. */
	expect(&e, 2, chain, 2, PCLNRT_STOP_LIMIT, 0x105c);
	expect(&e, 0, chain, 0, PCLNRT_STOP_LIMIT, 0x10c8);
	/* A reader that fails where g's caller is. */
	e.mem.failat = e.conv == PCLNRT_CONV_STACK ? S + e.ps + 16 : S;
	expect(&e, 8, chain, 2, PCLNRT_STOP_READ, 0x1098);
	e.mem.failat = 0;
	/* The stack as a copy (pclnrt_walk's copy): the same frames, read
	 * in place, the reader never called; a copy that ends where g's
	 * caller is leaves that word to the reader, which fails there. */
	{
		size_t nr = e.mem.nreads;

		e.w.copy = e.mem.buf;
		e.w.copy_base = e.mem.base;
		e.w.copy_len = sizeof e.mem.buf;
		expect(&e, 8, chain, 4, PCLNRT_STOP_END, 0);
		ck_assert_uint_eq(e.mem.nreads, nr);
		e.mem.failat = e.conv == PCLNRT_CONV_STACK ? S + e.ps + 16 : S;
		e.w.copy_len = e.mem.failat - e.mem.base + e.ps - 1;
		expect(&e, 8, chain, 2, PCLNRT_STOP_READ, 0x1098);
		ck_assert_uint_gt(e.mem.nreads, nr);
		e.mem.failat = 0;
		e.w.copy = NULL;
	}
	/* Through a pc-value cache: the same frames; a second walk finds
	 * every row (file, line, pcsp of each frame) in the cache. */
	{
		pclnrt_pccache cache;
		uint64_t misses;

		pclnrt_pccache_init(&cache);
		e.w.cache = &cache;
		expect(&e, 8, chain, 4, PCLNRT_STOP_END, 0);
		ck_assert_uint_eq(cache.hits + cache.misses, 4 * 3);
		ck_assert_uint_ge(cache.misses, 4);
		misses = cache.misses;
		expect(&e, 8, chain, 4, PCLNRT_STOP_END, 0);
		ck_assert_uint_eq(cache.misses, misses);
		ck_assert_uint_eq(cache.hits + cache.misses, 2 * 4 * 3);
		e.w.cache = NULL;
	}
	/* A stack word that points into the gap: an unknown caller. */
	e.mem.nreads = 0;
	{
		uint64_t ret[4] = { 0x1098, 0x105c, 0x10d8, 0 };

		lay_stack(&e, ret, chain_d, 4);
		expect(&e, 8, chain, 2 + 1, PCLNRT_STOP_UNKNOWN_PC, 0x10d8);
		ck_assert_int_eq(e.mem.nreads,
		    e.conv == PCLNRT_CONV_STACK ? 3 : 2);
	}
	env_free(&e);
}
END_TEST

START_TEST(test_first_retaddr)
{
	static const struct want asret[] = {
		{ "main.g", 0x1094, 0x14, 30, 16, 0 },
	};
	static const struct want aspc[] = {
		{ "main.g", 0x1094, 0x14, 31, 16, 0 },
	};
	struct env e;

	env_init(&e, _i);
	/* The stack holds zeros: the caller is 0, the end. */
	e.w.pc = 0x1094;
	expect(&e, 1, aspc, 1, PCLNRT_STOP_END, 0);
	e.w.flags = PCLNRT_TB_FIRST_RETADDR;
	expect(&e, 1, asret, 1, PCLNRT_STOP_END, 0);
	/* A first return address of 0 is the end of the stack. */
	e.w.pc = 0;
	expect(&e, 8, asret, 0, PCLNRT_STOP_END, 0);
	env_free(&e);
}
END_TEST

START_TEST(test_stops)
{
	static const struct want nosp[] = {
		{ "main.nosp", 0x1108, 0x8, 50, 0, 0 },
	};
	static const struct want neg[] = {
		{ "main.neg", 0x1128, 0x8, 60, -64, 0 },
	};
	static const struct want leaf2[] = {
		{ "main.leaf", 0x10c8, 0x8, 41, 0, 0 },
		{ "main.leaf", 0x10c4, 0x4, 40, 0, 0 },
	};
	struct env e;
	pclnrt_frame fr[2];
	pclnrt_stopinfo si;

	env_init(&e, _i);
	/* An unknown first pc: no frame at all. */
	e.w.pc = 0x50;
	expect(&e, 8, NULL, 0, PCLNRT_STOP_UNKNOWN_PC, 0x50);
	e.w.pc = 0x10d0;	/* the gap */
	expect(&e, 8, NULL, 0, PCLNRT_STOP_UNKNOWN_PC, 0x10d0);
	/* No pcsp table. */
	e.w.pc = 0x1108;
	expect(&e, 8, nosp, 1, PCLNRT_STOP_NO_SP, 0x1108);
	/* A negative frame size: the caller's sp would be below. */
	e.w.pc = 0x1128;
	putw(&e.mem, S - 64, 0x1024);	/* STACK: at sp + D */
	putw(&e.mem, S, 0x1024);	/* LR: at sp */
	expect(&e, 8, neg, 1, PCLNRT_STOP_WRONG_WAY, 0x1024);
	/* A caller sp equal to the sp (STACK, D = -ptrsize) makes no
	 * progress: wrong way too. */
	if (e.conv == PCLNRT_CONV_STACK) {
		e.w.pc = e.ps == 4 ? 0x1144 : 0x1154;
		putw(&e.mem, S - e.ps, e.w.pc);
		ck_assert_uint_eq(pclnrt_traceback(&e.w, fr, 2, &si), 1);
		ck_assert_str_eq(fr[0].func.name, e.ps == 4 ? "main.m4" :
		    "main.m8");
		ck_assert_int_eq(si.reason, PCLNRT_STOP_WRONG_WAY);
		ck_assert_uint_eq(si.sp, S);
	}
	/* LR: a later frame with frame size 0 saved no LR; STACK: the
	 * leaf's caller is a leaf too, whose caller's sp stays above. */
	e.w.pc = 0x10c8;
	e.w.lr = 0x10c4;
	putw(&e.mem, S, 0x10c4);
	putw(&e.mem, S + e.ps, 0);
	if (e.conv == PCLNRT_CONV_LR)
		expect(&e, 8, leaf2, 2, PCLNRT_STOP_NOFRAME, 0x10c4);
	else
		expect(&e, 8, leaf2, 2, PCLNRT_STOP_END, 0);
	/* A stack at the top of the address space wraps: wrong way. */
	e.mem.base = (e.ps == 8 ? UINT64_MAX : UINT32_MAX) - 15;
	e.w.sp = e.mem.base + 16 - e.ps;
	putw(&e.mem, e.w.sp, 0x1098);
	e.w.lr = 0x1098;
	/* STACK: leaf+8 (D 0), caller sp = sp + ps = 0.  LR: g+0x18
	 * (D 16), LR saved at sp, caller sp = sp + 16 wraps to 16 - ps. */
	e.w.pc = e.conv == PCLNRT_CONV_STACK ? 0x10c8 : 0x1098;
	ck_assert_uint_eq(pclnrt_traceback(&e.w, fr, 2, &si), 1);
	ck_assert_str_eq(fr[0].func.name, e.conv == PCLNRT_CONV_STACK ?
	    "main.leaf" : "main.g");
	ck_assert_int_eq(si.reason, PCLNRT_STOP_WRONG_WAY);
	ck_assert_uint_eq(si.pc, 0x1098);
	ck_assert_uint_eq(si.sp, e.conv == PCLNRT_CONV_STACK ? 0 : 16 - e.ps);
	/* Bad arguments. */
	e.w.ptrsize = 3;
	ck_assert_uint_eq(pclnrt_traceback(&e.w, fr, 2, &si), 0);
	ck_assert_int_eq(si.reason, PCLNRT_STOP_BADARG);
	e.w.ptrsize = e.ps;
	e.w.conv = 7;
	ck_assert_uint_eq(pclnrt_traceback(&e.w, fr, 2, &si), 0);
	ck_assert_int_eq(si.reason, PCLNRT_STOP_BADARG);
	e.w.conv = e.conv;
	e.w.modules = NULL;
	ck_assert_uint_eq(pclnrt_traceback(&e.w, fr, 2, &si), 0);
	ck_assert_int_eq(si.reason, PCLNRT_STOP_BADARG);
	ck_assert_uint_eq(pclnrt_traceback(NULL, fr, 2, NULL), 0);
	env_free(&e);
}
END_TEST

/* main.leaf (main module) <- lib.call (lib module, biased) <- main.f
 * <- main.main <- 0, with the main module biased too. */
START_TEST(test_modules)
{
	static const struct want w[] = {
		{ "main.leaf", 0x10c8, 0x8, 41, 0, 0 },
		{ "lib.call", 0x1010, 0x10, 100, 32, 1 },
		{ "main.f", 0x105c, 0x1c, 21, 40, 0 },
		{ "main.main", 0x1024, 0x24, 12, 24, 0 },
	};
	static const int32_t d[] = { 0, 32, 40, 24 };
	struct env e;
	uint64_t ret[4];

	env_init(&e, _i);
	/* Re-register the main module with a bias. */
	ck_assert_int_eq(pclnrt_unregister(&e.reg, &e.mod[0]), 0);
	e.bias[0] = 0x400000;
	ck_assert_int_eq(pclnrt_module_init(&e.mod[0], e.blob[0], e.len[0],
	    e.bias[0], "main"), 0);
	ck_assert_int_eq(pclnrt_register(&e.reg, &e.mod[0]), 0);
	ret[0] = 0x1010 + e.bias[1];
	ret[1] = 0x105c + e.bias[0];
	ret[2] = 0x1024 + e.bias[0];
	ret[3] = 0;
	lay_stack(&e, ret, d, 4);
	e.w.pc = 0x10c8 + e.bias[0];
	expect(&e, 8, w, 4, PCLNRT_STOP_END, 0);
	/* The link-time pc is unknown at run time. */
	e.w.pc = 0x10c8;
	expect(&e, 8, w, 0, PCLNRT_STOP_UNKNOWN_PC, 0x10c8);
	/* Without the lib module the walk stops at its pc. */
	ck_assert_int_eq(pclnrt_unregister(&e.reg, &e.mod[1]), 0);
	e.w.pc = 0x10c8 + e.bias[0];
	expect(&e, 8, w, 1, PCLNRT_STOP_UNKNOWN_PC, ret[0]);
	env_free(&e);
}
END_TEST

/* The default reader on a stack image in this process's memory. */
START_TEST(test_direct_reader)
{
	uintptr_t stack[16];
	struct env e;
	pclnrt_frame fr[8];
	pclnrt_stopinfo si;
	size_t n, k;

	env_init(&e, sizeof(uintptr_t) == 8 ? 1 : 0);	/* STACK, little */
	memset(stack, 0, sizeof stack);
	/* leaf (D 0) <- g (D 16) <- f (D 40) <- main (D 24) <- 0 */
	stack[0] = 0x1098;
	stack[1 + 16 / sizeof(uintptr_t)] = 0x105c;
	stack[(sizeof(uintptr_t) + 16 + sizeof(uintptr_t) + 40) /
	    sizeof(uintptr_t)] = 0x1024;
	e.w.read = NULL;
	e.w.ptrsize = sizeof(uintptr_t);
	e.w.bigendian = 0;
	e.w.pc = 0x10c8;
	e.w.sp = (uintptr_t)stack;
	n = pclnrt_traceback(&e.w, fr, 8, &si);
	ck_assert_uint_eq(n, 4);
	ck_assert_int_eq(si.reason, PCLNRT_STOP_END);
	for (k = 0; k < n; k++) {
		ck_assert_str_eq(fr[k].func.name, chain[k].name);
		ck_assert_int_eq(fr[k].line, chain[k].line);
	}
	ck_assert_uint_eq(fr[3].sp, (uintptr_t)stack + 3 * sizeof(uintptr_t)
	    + 56);
	env_free(&e);
}
END_TEST

/* The walk from inside a signal handler (it allocates nothing and takes
 * no lock, so the handler may interrupt anything). */
static struct env *sig_env;
static pclnrt_frame sig_fr[8];
static volatile size_t sig_n;
static volatile int sig_reason = -1;

static void
on_signal(int sig)
{
	pclnrt_stopinfo si;

	(void)sig;
	sig_n = pclnrt_traceback(&sig_env->w, sig_fr, 8, &si);
	sig_reason = si.reason;
}

START_TEST(test_in_signal_handler)
{
	struct env e;
	struct sigaction sa, old;
	size_t k;

	env_init(&e, _i);
	lay_stack(&e, chain_ret, chain_d, 4);
	e.w.pc = 0x10c8;
	sig_env = &e;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	ck_assert_int_eq(sigaction(SIGUSR1, &sa, &old), 0);
	ck_assert_int_eq(raise(SIGUSR1), 0);
	ck_assert_int_eq(sigaction(SIGUSR1, &old, NULL), 0);
	ck_assert_uint_eq(sig_n, 4);
	ck_assert_int_eq(sig_reason, PCLNRT_STOP_END);
	for (k = 0; k < 4; k++) {
		ck_assert_str_eq(sig_fr[k].func.name, chain[k].name);
		ck_assert_int_eq(sig_fr[k].line, chain[k].line);
	}
	env_free(&e);
}
END_TEST

/* The step cache changes no answer: walks of random stacks (words that
 * point into every function, the gap and nowhere, random first pcs,
 * with and without FIRST_RETADDR and FP) give the same frames and stop
 * with a cache kept across all of them as without one, for a cache of
 * one slot (every walk evicts) and of 64, also after a module is
 * removed and registered again; a second walk of a chain hits. */
static void
same_frames(const pclnrt_frame *a, const pclnrt_frame *b, size_t n)
{
	size_t k;

	for (k = 0; k < n; k++) {
		ck_assert_uint_eq(a[k].pc, b[k].pc);
		ck_assert_uint_eq(a[k].sp, b[k].sp);
		ck_assert_uint_eq(a[k].entry, b[k].entry);
		ck_assert_ptr_eq(a[k].file, b[k].file);
		ck_assert_int_eq(a[k].line, b[k].line);
		ck_assert_int_eq(a[k].spdelta, b[k].spdelta);
		ck_assert_ptr_eq(a[k].module, b[k].module);
		ck_assert_uint_eq(a[k].func.index, b[k].func.index);
	}
}

/* 300 walks of random stacks from SEED, each without and with the step
 * cache SC: the same frames and stop. */
static void
walks(struct env *e, pclnrt_stepcache *sc, uint64_t seed)
{
	uint64_t s = seed;
	int t, k;

	for (t = 0; t < 300; t++) {
		pclnrt_frame a[8], b[8];
		pclnrt_stopinfo sa, sb;
		size_t na, nb;
		unsigned fl;

		memset(e->mem.buf, 0, sizeof e->mem.buf);
		for (k = 0; k < 32; k++) {
			uint64_t r = (s = s * 6364136223846793005ull +
			    1442695040888963407ull) >> 33;
			uint64_t v = r % 5 == 0 ? 0 : r % 5 == 1 ?
			    e->bias[1] + 0x1000 + r % 0x20 :
			    0x1000 + r % 0x180;

			putw(&e->mem, e->mem.base + (uint64_t)k * e->ps, v);
		}
		e->w.pc = 0x1000 + (s >> 40) % 0x170;
		e->w.lr = 0x1000 + (s >> 20) % 0x100;
		e->w.fp = S + (s >> 30) % 64;
		fl = (unsigned)(s >> 50) % 4;
		e->w.flags = (fl & 1 ? PCLNRT_TB_FIRST_RETADDR : 0) |
		    (fl & 2 ? PCLNRT_TB_FP : 0);
		e->w.steps = NULL;
		na = pclnrt_traceback(&e->w, a, 8, &sa);
		e->w.flags |= PCLNRT_TB_STEPS;
		e->w.steps = sc;
		nb = pclnrt_traceback(&e->w, b, 8, &sb);
		ck_assert_uint_eq(na, nb);
		ck_assert_int_eq(sa.reason, sb.reason);
		ck_assert_uint_eq(sa.pc, sb.pc);
		ck_assert_uint_eq(sa.sp, sb.sp);
		same_frames(a, b, na);
	}
}

START_TEST(test_steps)
{
	static const unsigned sizes[] = { 1, 64 };
	pclnrt_stepcache_ent ent[64];
	pclnrt_stepcache sc;
	pclnrt_module x;
	struct env e;
	uint64_t seed = 99 + (uint64_t)_i;
	size_t g0, g1, gold;
	unsigned z;
	int pass;

	env_init(&e, _i);
	g0 = pclnrt_generation(&e.reg) - 2;	/* env_init registered 2 */
	ck_assert_int_eq(pclnrt_stepcache_init(&sc, ent, 3), PCLNRT_BADARG);
	ck_assert_int_eq(pclnrt_stepcache_init(&sc, NULL, 4), PCLNRT_BADARG);
	for (z = 0; z < 2; z++) {
		ck_assert_int_eq(pclnrt_stepcache_init(&sc, ent, sizes[z]),
		    PCLNRT_OK);
		/* Pass 2 runs with the library module removed, pass 3 with
		 * it back: the cache is not made again. */
		for (pass = 0; pass < 4; pass++) {
			if (pass == 2)
				ck_assert_int_eq(pclnrt_unregister(&e.reg,
				    &e.mod[1]), 0);
			if (pass == 3)
				ck_assert_int_eq(pclnrt_register(&e.reg,
				    &e.mod[1]), 0);
			walks(&e, &sc, seed);
		}
		ck_assert_uint_gt(sc.misses, 0);
	}
	ck_assert_uint_gt(sc.hits, 0);
	/* The registry made again in its own storage, with the library's
	 * table where the program was, after as many changes as the old
	 * one saw: the old entries must not answer for it. */
	gold = pclnrt_generation(&e.reg);
	ck_assert_int_eq(pclnrt_module_init(&x, e.blob[1], e.len[1],
	    e.bias[0], "x"), 0);
	ck_assert_int_eq(pclnrt_registry_init(&e.reg, e.regmem,
	    sizeof e.regmem, 4, 0), 0);
	for (z = 0; z < 2; z++)		/* modules of no registry again */
		ck_assert_int_eq(pclnrt_module_init(&e.mod[z], e.blob[z],
		    e.len[z], e.bias[z], z ? "lib" : "main"), 0);
	g1 = pclnrt_generation(&e.reg);
	ck_assert_int_eq(pclnrt_register(&e.reg, &x), 0);
	ck_assert_int_eq(pclnrt_register(&e.reg, &e.mod[1]), 0);
	while (pclnrt_generation(&e.reg) - g1 < gold - g0) {
		ck_assert_int_eq(pclnrt_unregister(&e.reg, &x), 0);
		ck_assert_int_eq(pclnrt_register(&e.reg, &x), 0);
	}
	walks(&e, &sc, seed);
	/* Back to the program, for the chain below. */
	ck_assert_int_eq(pclnrt_unregister(&e.reg, &x), 0);
	ck_assert_int_eq(pclnrt_register(&e.reg, &e.mod[0]), 0);
	/* A walk again: every frame's step from the cache. */
	memset(e.mem.buf, 0, sizeof e.mem.buf);
	lay_stack(&e, chain_ret, chain_d, 4);
	e.w.pc = 0x10c8;
	e.w.flags = PCLNRT_TB_STEPS;
	e.w.steps = &sc;
	(void)pclnrt_stepcache_init(&sc, ent, 64);
	expect(&e, 8, chain, 4, PCLNRT_STOP_END, 0);
	ck_assert_uint_eq(sc.misses, 4);
	ck_assert_uint_eq(sc.hits, 0);
	expect(&e, 8, chain, 4, PCLNRT_STOP_END, 0);
	ck_assert_uint_eq(sc.misses, 4);
	ck_assert_uint_eq(sc.hits, 4);
	/* Without the flag the field is not read. */
	e.w.flags &= ~(unsigned)PCLNRT_TB_STEPS;
	e.w.steps = (pclnrt_stepcache *)(uintptr_t)1;
	(void)pclnrt_traceback(&e.w, NULL, 0, NULL);
	env_free(&e);
}
END_TEST

Suite *
rt_traceback_suite(void)
{
	Suite *s = suite_create("runtime traceback");
	TCase *tc = tcase_create("core");

	/* 8 environments: ptrsize 4/8 x byte order x STACK/LR. */
	tcase_add_loop_test(tc, test_chain, 0, 8);
	tcase_add_loop_test(tc, test_first_retaddr, 0, 8);
	tcase_add_loop_test(tc, test_modules, 0, 8);
	tcase_add_test(tc, test_direct_reader);
	tcase_add_loop_test(tc, test_steps, 0, 8);
	tcase_add_loop_test(tc, test_in_signal_handler, 0, 8);
	suite_add_tcase(s, tc);
	tc = tcase_create("stops");
	tcase_add_loop_test(tc, test_stops, 0, 8);
	suite_add_tcase(s, tc);
	return s;
}
