/* check_index.c -- the FUNCINDEX trailer section (doc/FORMAT.md 8):
 * the builder writes it (by flag, and by default from
 * PCLN_INDEX_MIN_FUNCS functions), the verifier checks every sub-bucket,
 * and pclnrt_findfunc and pcln_find_func give with it exactly the answers
 * of the binary search, on layouts chosen to stress the sub-bucket scan:
 * dense tiny functions, clusters, wide gaps, one function, both byte
 * orders, both pointer sizes, quanta 1/2/4.  A damaged index is refused
 * by the verifier and ignored or bypassed by the unchecked readers. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "pcln.h"
#include "pclnrt.h"
#include "pclnrt_format.h"
#include "trailer.h"

#define MAXF 4096

/* A layout: N functions; function i has SIZE(i) bytes and is followed by
 * GAP(i) bytes of gap, from BASE. */
struct layout {
	const char *what;
	unsigned ptrsize, quantum, big;
	size_t n;
	uint64_t base;
	unsigned kind;		/* size/gap pattern, see gen */
};

static uint64_t
lcg(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return *s >> 33;
}

/* Entries and sizes for layout L into E[] and SZ[]. */
static void
gen(const struct layout *l, uint64_t *e, uint64_t *sz)
{
	uint64_t pc = l->base, seed = l->n * 31 + l->kind, q = l->quantum;
	size_t i;

	for (i = 0; i < l->n; i++) {
		uint64_t s, g;
		switch (l->kind) {
		case 0:		/* dense: one quantum each, no gaps */
			s = q;
			g = 0;
			break;
		case 1:		/* clusters of 64 tiny functions, wide gaps */
			s = q * (1 + lcg(&seed) % 3);
			g = i % 64 == 63 ? q * 100000 : 0;
			break;
		case 2:		/* random sizes, random padding */
			s = q * (1 + lcg(&seed) % 400);
			g = q * (lcg(&seed) % 4);
			break;
		default:	/* a few huge functions among small ones */
			s = q * (i % 50 == 0 ? 1 << 20 : 8 + lcg(&seed) % 40);
			g = 0;
			break;
		}
		e[i] = pc;
		sz[i] = s;
		pc += s + g;
	}
}

static uint8_t *
build(const struct layout *l, const uint64_t *e, const uint64_t *sz,
    unsigned flags, size_t *len)
{
	pcln_target t;
	pcln_builder *b;
	pcln_err err;
	uint8_t *out = NULL;
	size_t i;

	memset(&t, 0, sizeof t);
	t.ptrsize = l->ptrsize;
	t.quantum = l->quantum;
	t.bigendian = (int)l->big;
	b = pcln_builder_new(&t, &err);
	ck_assert_ptr_nonnull(b);
	for (i = 0; i < l->n; i++) {
		long f = pcln_builder_add_func(b, i % 2 ? "odd" : "even", e[i],
		    sz[i], 0, 0, &err);
		ck_assert_int_eq(f, (long)i);
		ck_assert_int_eq(pcln_builder_add_point(b, f, PCLN_TAB_PCSP,
		    0, (int32_t)i, &err), 0);
	}
	ck_assert_msg(pcln_builder_write(b, flags, &out, len, &err) == 0,
	    "%s: %s", l->what, err.msg);
	pcln_builder_free(b);
	return out;
}

static const struct layout layouts[] = {
	{ "dense le64 q1",	8, 1, 0, 3000, 0x400000, 0 },
	{ "dense be32 q4",	4, 4, 1, 1000, 0x10000, 0 },
	{ "clusters le64 q1",	8, 1, 0, 2000, 0x1000, 1 },
	{ "clusters be64 q2",	8, 2, 1, 700, 0x2000, 1 },
	{ "random le32 q1",	4, 1, 0, 4000, 0x8000, 2 },
	{ "random le64 q4",	8, 4, 0, 300, 0x7f0000000000ull, 2 },
	{ "huge le64 q1",	8, 1, 0, 1000, 0x400000, 3 },
	{ "one function",	8, 1, 0, 1, 0x1234, 2 },
	{ "two functions",	4, 2, 1, 2, 0x1000, 2 },
};

/* The answer for PC: index of the function holding it, or -1. */
static long
model(const uint64_t *e, const uint64_t *sz, size_t n, uint64_t pc)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (e[mid] <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || pc >= e[lo - 1] + sz[lo - 1])
		return -1;
	return (long)lo - 1;
}

static void
probe(const struct layout *l, const uint64_t *e, const uint64_t *sz,
    const pclnrt_table *rt, const pcln_table *lt, uint64_t pc)
{
	long want = model(e, sz, l->n, pc);
	pclnrt_func f;
	int rc = pclnrt_findfunc(rt, pc, &f);

	ck_assert_msg(rc == (want < 0 ? PCLNRT_NOTFOUND : PCLNRT_OK),
	    "%s: pc 0x%llx: rc %d, want function %ld", l->what,
	    (unsigned long long)pc, rc, want);
	if (rc == PCLNRT_OK) {
		ck_assert_uint_eq(f.index, (uint64_t)want);
		ck_assert_uint_eq(f.entry, e[want]);
		ck_assert_uint_eq(f.end, e[want] + sz[want]);
	}
	ck_assert_int_eq(pcln_find_func(lt, pc), want);
}

static uint64_t e_[MAXF], sz_[MAXF];

START_TEST(test_index_lookup)
{
	const struct layout *l = &layouts[_i];
	static const unsigned flags[2] = { PCLN_WRITE_INDEX,
	    PCLN_WRITE_NOINDEX };
	int v;

	ck_assert_uint_le(l->n, MAXF);
	gen(l, e_, sz_);
	for (v = 0; v < 2; v++) {
		size_t len, i;
		uint8_t *blob = build(l, e_, sz_, flags[v], &len);
		pcln_err err;
		pcln_table *lt = pcln_open(blob, len, 0, &err);
		pclnrt_table rt;
		uint64_t seed = 7, end = e_[l->n - 1] + sz_[l->n - 1];

		ck_assert_msg(lt != NULL, "%s: %s", l->what, err.msg);
		ck_assert_int_eq(pclnrt_init(&rt, blob, len), PCLNRT_EINIT_OK);
		if (v == 0)
			ck_assert_ptr_nonnull(rt.findex);
		else
			ck_assert_ptr_null(rt.findex);
		probe(l, e_, sz_, &rt, lt, 0);
		probe(l, e_, sz_, &rt, lt, e_[0] - 1);
		probe(l, e_, sz_, &rt, lt, end);
		probe(l, e_, sz_, &rt, lt, UINT64_MAX);
		for (i = 0; i < l->n; i++) {
			probe(l, e_, sz_, &rt, lt, e_[i]);
			probe(l, e_, sz_, &rt, lt, e_[i] + 1);
			probe(l, e_, sz_, &rt, lt, e_[i] + sz_[i] - 1);
			probe(l, e_, sz_, &rt, lt, e_[i] + sz_[i]);
			probe(l, e_, sz_, &rt, lt, e_[0] + lcg(&seed) %
			    (end - e_[0]));
		}
		pcln_close(lt);
		free(blob);
	}
}
END_TEST

/* Four 256-byte functions at 0x1000: the chooser starts at sub-buckets
 * of 16 average functions (2^12 bytes), where the whole text is one
 * sub-bucket and the scan is 3 <= the goal of 8. */
START_TEST(test_index_bytes)
{
	static const struct layout l = { "four", 8, 1, 0, 4, 0x1000, 0 };
	static const uint8_t want[PCLN_FIDX_HDR + PCLN_FIDX_BUCKET] = {
		12, 0, 0, 0,  3, 0, 0, 0,  1, 0, 0, 0,  0, 0, 0, 0,
		0, 0, 0, 0,
		0, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
	};
	uint64_t e[4], sz[4];
	uint32_t size = 0;
	size_t len, i;
	uint8_t *blob, *ix;

	for (i = 0; i < 4; i++) {
		e[i] = 0x1000 + 256 * i;
		sz[i] = 256;
	}
	blob = build(&l, e, sz, PCLN_WRITE_INDEX, &len);
	ix = trailer_section(blob, len, 0, PCLN_SECT_FUNCINDEX, &size);
	ck_assert_ptr_nonnull(ix);
	ck_assert_uint_eq(size, sizeof want);
	ck_assert_mem_eq(ix, want, sizeof want);
	free(blob);
}
END_TEST

/* Default: an index from PCLN_INDEX_MIN_FUNCS functions on, none below
 * it, none with PCLN_WRITE_GO12; the stats count it. */
START_TEST(test_index_default)
{
	static const size_t ns[3] = { PCLN_INDEX_MIN_FUNCS - 1,
	    PCLN_INDEX_MIN_FUNCS, 3 * PCLN_INDEX_MIN_FUNCS };
	int k;

	for (k = 0; k < 3; k++) {
		struct layout l = { "default", 8, 1, 0, ns[k], 0x400000, 2 };
		uint32_t size = 0;
		size_t len;
		uint8_t *blob;
		pcln_target t;
		pcln_builder *b;
		pcln_err err;
		size_t i;
		uint8_t *out;
		size_t olen;

		gen(&l, e_, sz_);
		blob = build(&l, e_, sz_, 0, &len);
		ck_assert_int_eq(trailer_section(blob, len, 0,
		    PCLN_SECT_FUNCINDEX, &size) != NULL, k > 0);
		free(blob);
		/* the same through one builder, to read its stats */
		memset(&t, 0, sizeof t);
		t.ptrsize = 8;
		t.quantum = 1;
		b = pcln_builder_new(&t, &err);
		for (i = 0; i < l.n; i++)
			ck_assert_int_ge(pcln_builder_add_func(b, "f", e_[i],
			    sz_[i], 0, 0, &err), 0);
		ck_assert_int_eq(pcln_builder_write(b, 0, &out, &olen, &err),
		    0);
		ck_assert_uint_eq(pcln_builder_stats(b)->findex,
		    k > 0 ? size : 0);
		if (k > 0)
			/* the goal: at most 2 % of the blob */
			ck_assert_uint_lt(100 * size, 2 * olen);
		free(out);
		ck_assert_int_eq(pcln_builder_write(b, PCLN_WRITE_GO12, &out,
		    &olen, &err), 0);
		ck_assert_uint_eq(pcln_builder_stats(b)->findex, 0);
		free(out);
		ck_assert_int_eq(pcln_builder_write(b, PCLN_WRITE_INDEX |
		    PCLN_WRITE_NOINDEX, &out, &olen, &err), -1);
		ck_assert_int_eq(err.code, PCLN_EINVAL);
		pcln_builder_free(b);
	}
}
END_TEST

/* Damage: OFF is from the section's start; each is resealed so that the
 * verifier reports the index itself, not the checksum. */
struct damage {
	const char *what;
	uint32_t off;
	uint32_t value;		/* stored as uint32 (bytes 0..3) or byte */
	int byte;
	const char *msg;	/* in the verifier's message */
};

static const struct damage damages[] = {
	{ "shift too big", PCLN_FIDX_SHIFT, PCLN_FIDX_SHIFT_MAX + 1, 0,
	    "shift" },
	{ "maxscan over limit", PCLN_FIDX_MAXSCAN, PCLN_FIDX_SCAN_LIMIT + 1, 0,
	    "maxscan" },
	{ "maxscan too small", PCLN_FIDX_MAXSCAN, 0, 0, "scan at most 0" },
	{ "reserved", PCLN_FIDX_RESERVED, 1, 0, "reserved 1" },
	{ "nbucket", PCLN_FIDX_NBUCKET, 1, 0, "buckets" },
	{ "base", PCLN_FIDX_HDR + PCLN_FIDX_BUCKET, 0, 0, "sub-bucket 16" },
	{ "delta", PCLN_FIDX_HDR + 4 + 5, 200, 1, "sub-bucket 5" },
	{ "first delta", PCLN_FIDX_HDR + 4, 1, 1, "delta 0 first" },
};

START_TEST(test_index_damage)
{
	const struct damage *d = &damages[_i];
	struct layout l = { "damage", 8, 1, 0, 1000, 0x400000, 2 };
	uint32_t size = 0;
	size_t len, i;
	uint8_t *blob, *ix;
	pcln_err err;
	pclnrt_table rt;

	gen(&l, e_, sz_);
	blob = build(&l, e_, sz_, PCLN_WRITE_INDEX, &len);
	ix = trailer_section(blob, len, 0, PCLN_SECT_FUNCINDEX, &size);
	ck_assert_ptr_nonnull(ix);
	ck_assert_uint_gt(pclnrt_load32(ix + PCLN_FIDX_NBUCKET, 0), 1);
	ck_assert_uint_gt(pclnrt_load32(ix + PCLN_FIDX_MAXSCAN, 0), 0);
	if (d->byte) {
		ix[d->off] = (uint8_t)d->value;
	} else {
		ix[d->off] = (uint8_t)d->value;
		ix[d->off + 1] = (uint8_t)(d->value >> 8);
		ix[d->off + 2] = (uint8_t)(d->value >> 16);
		ix[d->off + 3] = (uint8_t)(d->value >> 24);
	}
	trailer_reseal(blob, len);
	ck_assert_int_eq(pcln_verify(blob, len, &err), -1);
	ck_assert_int_eq(err.code, PCLN_ETRAILER);
	ck_assert_msg(strstr(err.msg, "FUNCINDEX") != NULL &&
	    strstr(err.msg, d->msg) != NULL, "%s: %s", d->what, err.msg);
	/* Unchecked readers still answer right: a bad header switches the
	 * index off, a bad bucket falls back to the binary search. */
	ck_assert_int_eq(pclnrt_init(&rt, blob, len), PCLNRT_EINIT_OK);
	{
		pcln_table *lt = pcln_open(blob, len, PCLN_OPEN_TRUSTED, &err);
		uint64_t seed = 3, end = e_[l.n - 1] + sz_[l.n - 1];
		ck_assert_ptr_nonnull(lt);
		for (i = 0; i < l.n; i++) {
			probe(&l, e_, sz_, &rt, lt, e_[i]);
			probe(&l, e_, sz_, &rt, lt, e_[i] + sz_[i]);
			probe(&l, e_, sz_, &rt, lt, e_[0] + lcg(&seed) %
			    (end - e_[0]));
		}
		pcln_close(lt);
	}
	free(blob);
}
END_TEST

/* The bound: on regular code the chooser reaches the scan goal (8), and
 * the index costs under 2 % even of this minimal blob (one 1-row table
 * per function, 67 bytes a function), within its nfunc + 256 budget. */
START_TEST(test_index_bound)
{
	struct layout l = { "bound", 8, 1, 0, MAXF, 0x400000, 2 };
	uint32_t size = 0;
	size_t len;
	uint8_t *blob, *ix;

	gen(&l, e_, sz_);
	blob = build(&l, e_, sz_, 0, &len);
	ix = trailer_section(blob, len, 0, PCLN_SECT_FUNCINDEX, &size);
	ck_assert_ptr_nonnull(ix);
	ck_assert_uint_le(pclnrt_load32(ix + PCLN_FIDX_MAXSCAN, 0), 8);
	ck_assert_uint_le(size, MAXF + 256);
	ck_assert_uint_lt(100 * size, 2 * len);
	free(blob);
}
END_TEST

static Suite *
index_suite(void)
{
	Suite *s = suite_create("index");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_index_lookup, 0,
	    (int)(sizeof layouts / sizeof layouts[0]));
	tcase_add_test(tc, test_index_bytes);
	tcase_add_test(tc, test_index_default);
	tcase_add_test(tc, test_index_bound);
	suite_add_tcase(s, tc);
	tc = tcase_create("errors");
	tcase_add_loop_test(tc, test_index_damage, 0,
	    (int)(sizeof damages / sizeof damages[0]));
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(index_suite());
	int nfail;

	srunner_run_all(sr, CK_NORMAL);
	nfail = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nfail == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
