/* test_rt_module.c -- the registry (code map): registration and its
 * refusals, lookups against a linear model over random additions and
 * removals (every tree shape: dense code heaps, far-apart modules,
 * ranges over root slots), the node bound and reuse, and reclamation
 * with reader records.  Threads and signal handlers: tests/rt_stress.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_rt.h"

static struct rt_model model;
static uint8_t *blob;
static size_t bloblen;

static void
setup(void)
{
	pcln_target tg = { 8, 1, 0 };

	rt_model_random(&model, 42, &tg, 1);
	blob = rt_model_build(&model, &bloblen);
}

static void
teardown(void)
{
	free(blob);
	blob = NULL;
}

/* A module over no blob: only its range, for the map's own tests. */
static void
bare(pclnrt_module *m, uint64_t lo, uint64_t hi)
{
	memset(m, 0, sizeof *m);
	m->lo = lo;
	m->hi = hi;
}

START_TEST(test_core)
{
	static unsigned char mem[PCLNRT_REGISTRY_SIZE(2, 64, 2)];
	pclnrt_registry r;
	pclnrt_registry_stats st;
	pclnrt_module a, b, c, d;
	const pclnrt_module *got;
	pclnrt_func f;
	uint64_t e0 = model.f[0].entry;
	size_t g0;

	ck_assert_int_eq(pclnrt_module_init(&a, blob, bloblen, 0, "a"), 0);
	ck_assert_int_eq(pclnrt_module_init(&b, blob, bloblen, 0x100000,
	    "b"), 0);
	ck_assert_int_eq(pclnrt_module_init(&c, blob, bloblen, 0x200000,
	    "c"), 0);
	ck_assert_uint_eq(b.lo, e0 + 0x100000);
	ck_assert_uint_eq(b.hi, model.f[model.nfunc - 1].entry +
	    model.f[model.nfunc - 1].size + 0x100000);
	ck_assert_int_eq(pclnrt_registry_init(&r, mem, sizeof mem, 2, 2), 0);
	pclnrt_registry_stats_get(&r, &st);
	ck_assert_uint_eq(st.max_modules, 2);
	ck_assert_uint_eq(st.max_readers, 2);
	ck_assert_uint_ge(st.max_nodes, 64);
	ck_assert_uint_eq(st.nodes, 0);
	/* Generations count from where this registry starts, which no
	 * registry before it had (made again here: another start). */
	g0 = pclnrt_generation(&r);
	ck_assert_int_eq(pclnrt_registry_init(&r, mem, sizeof mem, 2, 2), 0);
	ck_assert_uint_ne(pclnrt_generation(&r), g0);
	ck_assert_uint_ge(pclnrt_generation(&r) - g0, (size_t)1 << 16);
	g0 = pclnrt_generation(&r);
	ck_assert_int_eq(pclnrt_registry_findfunc(&r, e0, &got, &f),
	    PCLNRT_NOTFOUND);
	ck_assert_int_eq(pclnrt_register(&r, &a), PCLNRT_OK);
	/* The same module twice: its own status, nothing changed. */
	ck_assert_int_eq(pclnrt_register(&r, &a), PCLNRT_EXISTS);
	ck_assert_int_eq(pclnrt_register(&r, &b), PCLNRT_OK);
	ck_assert_int_eq(pclnrt_register(&r, &c), PCLNRT_FULL);
	ck_assert_uint_eq(pclnrt_generation(&r) - g0, 2);
	/* Each module answers for its own run-time range. */
	ck_assert_int_eq(pclnrt_registry_findfunc(&r, e0, &got, &f), 0);
	ck_assert_ptr_eq(got, &a);
	ck_assert_uint_eq(f.entry, e0);
	ck_assert_int_eq(pclnrt_registry_findfunc(&r, e0 + 0x100000, &got,
	    &f), 0);
	ck_assert_ptr_eq(got, &b);
	ck_assert_uint_eq(f.entry, e0);
	ck_assert_str_eq(f.name, model.f[0].name);
	ck_assert_int_eq(pclnrt_registry_find(&r, b.hi - 1, &got), 0);
	ck_assert_ptr_eq(got, &b);
	ck_assert_int_eq(pclnrt_registry_find(&r, b.hi, &got),
	    PCLNRT_NOTFOUND);
	ck_assert_int_eq(pclnrt_registry_find(&r, b.lo - 1, &got),
	    PCLNRT_NOTFOUND);
	ck_assert_int_eq(pclnrt_registry_findfunc(&r, e0 + 0x200000, NULL,
	    &f), PCLNRT_NOTFOUND);
	/* Overlapping a registered module: refused, the first unchanged. */
	ck_assert_int_eq(pclnrt_unregister(&r, &b), PCLNRT_OK);
	ck_assert_int_eq(pclnrt_module_init(&d, blob, bloblen, 8, "d"), 0);
	ck_assert_int_eq(pclnrt_register(&r, &d), PCLNRT_OVERLAP);
	ck_assert_int_eq(pclnrt_registry_find(&r, e0 + 8, &got), 0);
	ck_assert_ptr_eq(got, &a);
	ck_assert_int_eq(pclnrt_unregister(&r, &d), PCLNRT_NOTFOUND);
	ck_assert_int_eq(pclnrt_unregister(&r, &c), PCLNRT_NOTFOUND);
	ck_assert_int_eq(pclnrt_unregister(&r, &a), PCLNRT_OK);
	/* One unregister is enough: the module is gone. */
	ck_assert_int_eq(pclnrt_unregister(&r, &a), PCLNRT_NOTFOUND);
	ck_assert_int_eq(pclnrt_registry_findfunc(&r, e0, &got, &f),
	    PCLNRT_NOTFOUND);
	ck_assert_int_eq(pclnrt_register(&r, &c), PCLNRT_OK);
	ck_assert_int_eq(pclnrt_registry_findfunc(&r, e0 + 0x200000, &got,
	    &f), 0);
	ck_assert_ptr_eq(got, &c);
	ck_assert_uint_eq(pclnrt_generation(&r) - g0, 5);
	pclnrt_registry_stats_get(&r, &st);
	ck_assert_uint_eq(st.modules, 1);
	ck_assert_uint_eq(st.nodes, 0);	/* alone: a root slot */
	/* A bias that wraps the range around is refused. */
	ck_assert_int_eq(pclnrt_module_init(&c, blob, bloblen,
	    UINT64_MAX - e0, "w"), PCLNRT_EINIT_FUNCTAB);
	ck_assert_int_eq(pclnrt_module_init(&c, blob, 3, 0, "s"),
	    PCLNRT_EINIT_SHORT);
	/* No storage at all, or too little. */
	ck_assert_int_eq(pclnrt_registry_init(&r, NULL, 5, 1, 0),
	    PCLNRT_FULL);
	ck_assert_int_eq(pclnrt_register(&r, &a), PCLNRT_FULL);
	ck_assert_int_eq(pclnrt_registry_findfunc(&r, e0, &got, &f),
	    PCLNRT_NOTFOUND);
	ck_assert_int_eq(pclnrt_registry_init(&r, mem, 200, 1, 1),
	    PCLNRT_FULL);
	ck_assert_int_eq(pclnrt_registry_find(&r, e0, &got),
	    PCLNRT_NOTFOUND);
}
END_TEST

/* Two modules may not share a 16-byte granule; touching ranges on
 * granule boundaries are fine; empty ranges take a number only. */
START_TEST(test_granules)
{
	static unsigned char mem[PCLNRT_REGISTRY_SIZE(8, 64, 0)];
	pclnrt_registry r;
	pclnrt_registry_stats st;
	pclnrt_module m[6];
	const pclnrt_module *got;
	uint64_t base = 0x7f0012345000ull, pc;

	ck_assert_int_eq(pclnrt_registry_init(&r, mem, sizeof mem, 8, 0), 0);
	bare(&m[0], base, base + 0x18);		/* granules 0, 1 */
	bare(&m[1], base + 0x18, base + 0x40);	/* shares granule 1 */
	bare(&m[2], base + 0x20, base + 0x40);	/* touches: fine */
	bare(&m[3], base + 0x40, base + 0x40);	/* empty */
	bare(&m[4], 0, 0x10);			/* the first granule */
	bare(&m[5], UINT64_MAX - 0x1f, UINT64_MAX);	/* the last two */
	ck_assert_int_eq(pclnrt_register(&r, &m[0]), 0);
	ck_assert_int_eq(pclnrt_register(&r, &m[1]), PCLNRT_OVERLAP);
	ck_assert_int_eq(pclnrt_register(&r, &m[2]), 0);
	ck_assert_int_eq(pclnrt_register(&r, &m[3]), 0);
	ck_assert_int_eq(pclnrt_register(&r, &m[3]), PCLNRT_EXISTS);
	ck_assert_int_eq(pclnrt_register(&r, &m[4]), 0);
	ck_assert_int_eq(pclnrt_register(&r, &m[5]), 0);
	for (pc = base - 0x20; pc < base + 0x60; pc++) {
		int rc = pclnrt_registry_find(&r, pc, &got);
		const pclnrt_module *want = pc >= base && pc < base + 0x18 ?
		    &m[0] : pc >= base + 0x20 && pc < base + 0x40 ? &m[2] :
		    NULL;

		RT_EQ(rc, want != NULL ? PCLNRT_OK : PCLNRT_NOTFOUND);
		if (want != NULL)
			RT_TRUE(got == want, "pc %#llx", (unsigned long long)pc);
	}
	ck_assert_int_eq(pclnrt_registry_find(&r, 0, &got), 0);
	ck_assert_ptr_eq(got, &m[4]);
	ck_assert_int_eq(pclnrt_registry_find(&r, UINT64_MAX - 1, &got), 0);
	ck_assert_ptr_eq(got, &m[5]);
	ck_assert_int_eq(pclnrt_registry_find(&r, UINT64_MAX, &got),
	    PCLNRT_NOTFOUND);
	/* m[0] and m[2] meet in one page: nodes down to the granules (at
	 * levels 1..7; m[4], at 0, parts from them at level 2, pc bits
	 * 51..44). */
	pclnrt_registry_stats_get(&r, &st);
	ck_assert_uint_eq(st.modules, 5);
	ck_assert_uint_eq(st.nodes, PCLNRT_CM_LEVELS);
	ck_assert_int_eq(pclnrt_unregister(&r, &m[3]), 0);
	ck_assert_int_eq(pclnrt_unregister(&r, &m[0]), 0);
	/* Alone again below level 2: m[2]'s nodes there fold back into
	 * one slot. */
	pclnrt_registry_stats_get(&r, &st);
	ck_assert_uint_eq(st.nodes, 2);
	ck_assert_uint_eq(st.retired, PCLNRT_CM_LEVELS - 2);
	ck_assert_int_eq(pclnrt_unregister(&r, &m[4]), 0);
	pclnrt_registry_stats_get(&r, &st);
	ck_assert_uint_eq(st.nodes, 0);
	ck_assert_uint_eq(st.retired, PCLNRT_CM_LEVELS);
	ck_assert_int_eq(pclnrt_registry_find(&r, base + 0x3f, &got), 0);
	ck_assert_ptr_eq(got, &m[2]);
	ck_assert_int_eq(pclnrt_registry_find(&r, base + 0x10, &got),
	    PCLNRT_NOTFOUND);
}
END_TEST

/* Random additions and removals against a linear model. */
#define NMOD	600
#define NOPS	6000

struct ref {
	pclnrt_module m;
	int live;
};

static uint64_t
rnd64(uint32_t *rs)
{
	return (uint64_t)rt_rand(rs) << 32 | rt_rand(rs);
}

/* A random granule-aligned range: mostly small functions packed in a
 * few code heaps, some large ones, some anywhere in the 64-bit space. */
static void
random_range(uint32_t *rs, uint64_t *lo, uint64_t *hi)
{
	static const uint64_t heap[4] = {
		0x7f3a00000000ull, 0x7f3a00100000ull, 0x555500000000ull,
		0x10000ull
	};
	uint32_t k = rt_rand(rs) % 16;
	uint64_t size;

	if (k < 11) {		/* a JIT function in a 256 KiB heap */
		*lo = heap[k % 4] + (uint64_t)(rt_rand(rs) % 16384) * 16;
		size = 16 * (1 + rt_rand(rs) % (k < 8 ? 8 : 64));
	} else if (k < 14) {	/* a shared object somewhere */
		*lo = (rnd64(rs) >> (rt_rand(rs) % 40)) & ~(uint64_t)15;
		size = 16 * (1 + (uint64_t)(rt_rand(rs) % 100000));
	} else {		/* a huge range, over root slots */
		*lo = rnd64(rs) & ~(uint64_t)15;
		size = (rnd64(rs) >> (rt_rand(rs) % 8)) & ~(uint64_t)15;
	}
	if (size == 0)
		size = 16;
	if (*lo > UINT64_MAX - size)
		size = UINT64_MAX - *lo;
	*hi = *lo + size - (rt_rand(rs) % 2 ? rt_rand(rs) % 16 : 0);
	if (*hi <= *lo)
		*hi = *lo + 1;
}

static const pclnrt_module *
ref_find(const struct ref *rf, uint64_t pc)
{
	size_t i;

	for (i = 0; i < NMOD; i++)
		if (rf[i].live && pc >= rf[i].m.lo && pc < rf[i].m.hi)
			return &rf[i].m;
	return NULL;
}

static int
ref_conflict(const struct ref *rf, uint64_t lo, uint64_t hi)
{
	size_t i;

	for (i = 0; i < NMOD; i++)
		if (rf[i].live && rf[i].m.lo >> 4 <= (hi - 1) >> 4 &&
		    (rf[i].m.hi - 1) >> 4 >= lo >> 4)
			return 1;
	return 0;
}

static void
probe_all(const pclnrt_registry *r, const struct ref *rf, uint32_t *rs)
{
	size_t i;
	int k;

	for (i = 0; i < NMOD; i++) {
		const pclnrt_module *m = &rf[i].m, *got, *want;
		uint64_t pcs[6];

		if (m->hi == 0)
			continue;
		pcs[0] = m->lo;
		pcs[1] = m->lo - 1;
		pcs[2] = m->hi - 1;
		pcs[3] = m->hi;
		pcs[4] = m->lo + rnd64(rs) % (m->hi - m->lo);
		pcs[5] = rnd64(rs);
		for (k = 0; k < 6; k++) {
			int rc = pclnrt_registry_find(r, pcs[k], &got);

			want = ref_find(rf, pcs[k]);
			RT_EQ(rc, want != NULL ? PCLNRT_OK : PCLNRT_NOTFOUND);
			RT_TRUE(want == NULL || got == want, "pc %#llx: module "
			    "%td, want %td", (unsigned long long)pcs[k],
			    (const struct ref *)got - rf,
			    (const struct ref *)want - rf);
		}
	}
}

START_TEST(test_model)
{
	size_t memsize = PCLNRT_REGISTRY_SIZE(NMOD, 14 * NMOD, 1);
	unsigned char *mem = malloc(memsize);
	struct ref *rf = calloc(NMOD, sizeof *rf);
	pclnrt_registry r;
	pclnrt_registry_stats st;
	uint32_t rs = 77 + (uint32_t)_i;
	size_t nlive = 0, maxnodes = 0, i;
	long op, adds = 0, refused = 0;

	ck_assert_ptr_nonnull(mem);
	ck_assert_ptr_nonnull(rf);
	ck_assert_int_eq(pclnrt_registry_init(&r, mem, memsize, NMOD, 1), 0);
	for (op = 0; op < NOPS; op++) {
		struct ref *e = &rf[rt_rand(&rs) % NMOD];
		int rc;

		if (e->live) {
			RT_EQ(pclnrt_unregister(&r, &e->m), PCLNRT_OK);
			RT_EQ(pclnrt_unregister(&r, &e->m), PCLNRT_NOTFOUND);
			e->live = 0;
			nlive--;
		} else {
			uint64_t lo, hi;
			int want;

			random_range(&rs, &lo, &hi);
			want = ref_conflict(rf, lo, hi) ? PCLNRT_OVERLAP :
			    PCLNRT_OK;
			bare(&e->m, lo, hi);
			rc = pclnrt_register(&r, &e->m);
			RT_TRUE(rc == want, "op %ld: [%#llx, %#llx): %d, want "
			    "%d", op, (unsigned long long)lo,
			    (unsigned long long)hi, rc, want);
			if (rc == PCLNRT_OK) {
				e->live = 1;
				nlive++;
				adds++;
			} else {
				refused++;
			}
		}
		pclnrt_registry_stats_get(&r, &st);
		RT_EQ(st.modules, nlive);
		/* The bound: 2 * levels nodes per module. */
		RT_TRUE(st.nodes <= 2 * PCLNRT_CM_LEVELS * nlive,
		    "%zu nodes for %zu modules", st.nodes, nlive);
		if (st.nodes > maxnodes)
			maxnodes = st.nodes;
		if (op % 97 == 0)
			probe_all(&r, rf, &rs);
	}
	probe_all(&r, rf, &rs);
	ck_assert_int_gt(adds, NOPS / 4);
	ck_assert_int_gt(refused, 0);
	ck_assert_uint_gt(maxnodes, 50);	/* the tree did grow */
	/* Everything out: no node left in the tree. */
	for (i = 0; i < NMOD; i++)
		if (rf[i].live)
			ck_assert_int_eq(pclnrt_unregister(&r, &rf[i].m), 0);
	pclnrt_registry_stats_get(&r, &st);
	ck_assert_uint_eq(st.modules, 0);
	ck_assert_uint_eq(st.nodes, 0);
	free(rf);
	free(mem);
}
END_TEST

/* Retired nodes are reused once no reader can hold them, and not
 * before; modules likewise (pclnrt_module_reusable). */
START_TEST(test_reclaim)
{
	/* Nodes for exactly one pair of modules meeting in a page. */
	static unsigned char mem[PCLNRT_REGISTRY_SIZE(4, PCLNRT_CM_LEVELS, 3)];
	pclnrt_registry r;
	pclnrt_registry_stats st;
	pclnrt_reader *rd, *rd2, *rd3;
	pclnrt_module a, b, c;
	const pclnrt_module *got;
	uint64_t base = 0x7f0000001000ull;

	ck_assert_int_eq(pclnrt_registry_init(&r, mem, sizeof mem, 4, 3), 0);
	pclnrt_registry_stats_get(&r, &st);
	ck_assert_uint_eq(st.max_nodes, PCLNRT_CM_LEVELS);
	rd = pclnrt_reader_claim(&r);
	rd2 = pclnrt_reader_claim(&r);
	rd3 = pclnrt_reader_claim(&r);
	ck_assert_ptr_nonnull(rd3);
	ck_assert_ptr_null(pclnrt_reader_claim(&r));
	pclnrt_reader_release(&r, rd3);
	ck_assert_ptr_eq(pclnrt_reader_claim(&r), rd3);
	ck_assert_uint_eq((uintptr_t)rd % 64, 0);
	ck_assert_uint_eq((uintptr_t)rd2 - (uintptr_t)rd, 64);
	bare(&a, base, base + 0x40);
	bare(&b, base + 0x40, base + 0x80);
	bare(&c, base + 0x80, base + 0xc0);
	ck_assert_int_eq(pclnrt_module_reusable(&r, &a), 1);	/* never in */
	ck_assert_int_eq(pclnrt_register(&r, &a), 0);
	ck_assert_int_eq(pclnrt_module_reusable(&r, &a), 0);	/* in */
	ck_assert_int_eq(pclnrt_register(&r, &b), 0);
	pclnrt_registry_stats_get(&r, &st);
	ck_assert_uint_eq(st.nodes, PCLNRT_CM_LEVELS);
	/* rd reads across the removal of b (nested, as a signal handler
	 * would); rd2 enters after it. */
	pclnrt_read_enter(&r, rd);
	pclnrt_read_enter(&r, rd);
	ck_assert_int_eq(pclnrt_registry_find(&r, base + 0x40, &got), 0);
	ck_assert_ptr_eq(got, &b);
	pclnrt_read_exit(&r, rd);
	ck_assert_int_eq(pclnrt_unregister(&r, &b), 0);
	pclnrt_read_enter(&r, rd2);
	ck_assert_int_eq(pclnrt_module_reusable(&r, &b), 0);
	pclnrt_registry_stats_get(&r, &st);
	ck_assert_uint_eq(st.nodes, 0);
	ck_assert_uint_eq(st.retired, PCLNRT_CM_LEVELS);
	/* c needs the nodes b's removal retired: not yet. */
	ck_assert_int_eq(pclnrt_register(&r, &c), PCLNRT_FULL);
	ck_assert_int_eq(pclnrt_registry_find(&r, base + 0x80, &got),
	    PCLNRT_NOTFOUND);
	pclnrt_read_exit(&r, rd);
	/* rd is out; rd2 entered after the removal and does not hold b. */
	ck_assert_int_eq(pclnrt_module_reusable(&r, &b), 1);
	ck_assert_int_eq(pclnrt_register(&r, &c), 0);
	pclnrt_read_exit(&r, rd2);
	pclnrt_read_exit(&r, rd2);	/* unbalanced: ignored */
	pclnrt_registry_stats_get(&r, &st);
	ck_assert_uint_eq(st.nodes, PCLNRT_CM_LEVELS);
	ck_assert_uint_eq(st.retired, 0);
	ck_assert_int_eq(pclnrt_registry_find(&r, base + 0x80, &got), 0);
	ck_assert_ptr_eq(got, &c);
	ck_assert_int_eq(pclnrt_registry_find(&r, base + 0x3f, &got), 0);
	ck_assert_ptr_eq(got, &a);
	/* b may go back in: a new number, its memory reused. */
	bare(&b, base + 0x1000, base + 0x1040);
	ck_assert_int_eq(pclnrt_register(&r, &b), 0);
	ck_assert_int_eq(pclnrt_registry_find(&r, base + 0x1000, &got), 0);
	ck_assert_ptr_eq(got, &b);
	pclnrt_reader_release(&r, rd);
	pclnrt_reader_release(&r, rd2);
	pclnrt_reader_release(&r, rd3);
}
END_TEST

/* A reader's announcement older than a horizon already computed: its
 * read_enter loaded the epoch, was preempted while a writer removed a
 * module and found it reusable (the record still read 0), then stored
 * the old epoch.  The module stays reusable and gets its number back
 * (rt_stress once answered PCLNRT_FULL here). */
START_TEST(test_stale_announce)
{
	static unsigned char mem[PCLNRT_REGISTRY_SIZE(2, 2 * PCLNRT_CM_LEVELS,
	    1)];
	pclnrt_registry r;
	pclnrt_reader *rd;
	pclnrt_module a, b;
	const pclnrt_module *got;
	uint64_t base = 0x7f0000001000ull;
	uintptr_t old;

	ck_assert_int_eq(pclnrt_registry_init(&r, mem, sizeof mem, 2, 1), 0);
	rd = pclnrt_reader_claim(&r);
	ck_assert_ptr_nonnull(rd);
	bare(&a, base, base + 0x40);
	bare(&b, base + 0x40, base + 0x80);
	ck_assert_int_eq(pclnrt_register(&r, &a), 0);
	ck_assert_int_eq(pclnrt_register(&r, &b), 0);
	old = atomic_load(&r.epoch);	/* the reader's load */
	ck_assert_int_eq(pclnrt_unregister(&r, &a), 0);
	ck_assert_int_eq(pclnrt_module_reusable(&r, &a), 1);
	/* The reader's store and the rest of its bracket. */
	atomic_store(&rd->nest, 1);
	atomic_store(&rd->epoch, old);
	ck_assert_int_eq(pclnrt_module_reusable(&r, &a), 1);
	bare(&a, base + 0x1000, base + 0x1040);
	ck_assert_int_eq(pclnrt_register(&r, &a), 0);
	ck_assert_int_eq(pclnrt_registry_find(&r, base + 0x1000, &got), 0);
	ck_assert_ptr_eq(got, &a);
	/* What is removed now waits for the reader. */
	ck_assert_int_eq(pclnrt_unregister(&r, &b), 0);
	ck_assert_int_eq(pclnrt_module_reusable(&r, &b), 0);
	pclnrt_read_exit(&r, rd);
	ck_assert_int_eq(pclnrt_module_reusable(&r, &b), 1);
	pclnrt_reader_release(&r, rd);
}
END_TEST

Suite *
rt_module_suite(void)
{
	Suite *s = suite_create("runtime module");
	TCase *tc = tcase_create("core");

	tcase_add_unchecked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_core);
	tcase_add_test(tc, test_granules);
	tcase_add_test(tc, test_reclaim);
	tcase_add_test(tc, test_stale_announce);
	suite_add_tcase(s, tc);
	tc = tcase_create("model");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_model, 0, 4);
	suite_add_tcase(s, tc);
	return s;
}
