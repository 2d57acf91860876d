/* test_rt_corrupt.c -- the runtime on damaged blobs it was never told
 * are damaged: every byte flipped in turn (three ways) and every
 * truncation.  Each blob sits at the very end of a mapping followed by a
 * PROT_NONE page, so a read past its end faults; Check's timeout catches
 * a loop that does not end.  Answers may be wrong but must stay
 * consistent: a function found holds the pc, a row holds the pc, names
 * end inside the blob, a traceback stops within its frame limit. */
#include <stdlib.h>
#include <string.h>

#include "test_rt.h"

static volatile size_t sink;

static int
zeroread(void *arg, uint64_t addr, uint8_t *buf, size_t len)
{
	uint32_t *rs = arg;
	size_t k;

	(void)addr;
	for (k = 0; k < len; k++)
		buf[k] = (uint8_t)rt_rand(rs);
	return rt_rand(rs) % 16 == 0;
}

/* Ask everything about PC; check the answers hold together. */
static void
probe(const pclnrt_table *t, uint64_t pc)
{
	pclnrt_func f;
	const char *path;
	int32_t v, line;
	uint64_t s, e, fd;
	uint32_t j;
	int tab, rc;

	rc = pclnrt_findfunc(t, pc, &f);
	RT_TRUE(rc == PCLNRT_OK || rc == PCLNRT_NOTFOUND ||
	    rc == PCLNRT_CORRUPT, "findfunc rc %d", rc);
	if (rc != PCLNRT_OK)
		return;
	RT_TRUE(f.entry <= pc && pc < f.end && f.index < t->nfunc,
	    "function [%llx,%llx) does not hold pc %llx",
	    (unsigned long long)f.entry, (unsigned long long)f.end,
	    (unsigned long long)pc);
	if (f.name != NULL)
		sink += strlen(f.name);
	for (tab = -1; tab < 3 + 4; tab++) {
		rc = pclnrt_pcvalue(&f, tab, pc, &v, &s, &e);
		if (rc == PCLNRT_OK)
			RT_TRUE(s <= pc && pc < e, "row does not hold pc");
		else
			RT_TRUE(rc == PCLNRT_NOTFOUND || rc == PCLNRT_CORRUPT,
			    "pcvalue rc %d", rc);
	}
	(void)pclnrt_pcdata(&f, f.npcdata - 1, pc, &v);
	(void)pclnrt_pcdata(&f, 0x7fffffffu, pc, &v);
	if (pclnrt_funcline(&f, pc, &path, &line) == PCLNRT_OK || path)
		sink += path != NULL ? strlen(path) : 0;
	for (j = 0; j < 4 && j < f.nfuncdata; j++)
		(void)pclnrt_funcdata(&f, j, &fd);
	(void)pclnrt_funcdata(&f, f.nfuncdata - 1, &fd);
	for (j = 0; j < 4; j++)
		if ((path = pclnrt_filename(t, (int32_t)j)) != NULL)
			sink += strlen(path);
}

/* Init BLOB[0..LEN) behind a guard page and probe it.  Returns the init
 * result. */
static int
try_blob(const struct rt_model *m, const uint8_t *blob, size_t len,
    uint32_t *rs)
{
	struct rt_guard g;
	pclnrt_module mod;
	static unsigned char regmem[PCLNRT_REGISTRY_SIZE(1, 8, 0)];
	pclnrt_registry reg;
	pclnrt_frame fr[8];
	pclnrt_stopinfo si;
	pclnrt_walk w;
	size_t i, n;
	int rc;

	rt_guard_put(&g, blob, len);
	rc = pclnrt_module_init(&mod, g.p, len, 0, "m");
	if (rc == PCLNRT_EINIT_OK) {
		const pclnrt_table *t = &mod.table;

		probe(t, 0);
		probe(t, t->minpc);
		probe(t, t->maxpc - 1);
		for (i = 0; i < m->nfunc; i++) {
			const struct rt_mfunc *f = &m->f[i];

			probe(t, f->entry - 1);
			probe(t, f->entry);
			probe(t, f->entry + f->size / 2);
			probe(t, f->entry + f->size - 1);
			probe(t, f->entry + f->size);
		}
		RT_EQ(pclnrt_registry_init(&reg, regmem, sizeof regmem, 1, 0),
		    PCLNRT_OK);
		RT_EQ(pclnrt_register(&reg, &mod), PCLNRT_OK);
		memset(&w, 0, sizeof w);
		w.modules = &reg;
		w.ptrsize = m->t.ptrsize;
		w.bigendian = m->t.bigendian;
		w.conv = rt_rand(rs) % 2;
		w.read = zeroread;
		w.read_arg = rs;
		w.pc = m->f[rt_rand(rs) % m->nfunc].entry + 1;
		w.sp = 0x10000;
		n = pclnrt_traceback(&w, fr, 8, &si);
		RT_TRUE(n <= 8 && si.reason >= 0 && si.reason < PCLNRT_NSTOP,
		    "traceback: %zu frames, reason %d", n, si.reason);
		for (i = 0; i < n; i++)
			if (fr[i].func.name != NULL)
				sink += strlen(fr[i].func.name);
	}
	rt_guard_free(&g);
	return rc;
}

static const struct {
	unsigned ps, q;
	int big, trailer;
	unsigned seed;
} samples[] = {
	{ 8, 1, 0, 1, 3 },
	{ 4, 4, 1, 0, 5 },
	{ 8, 2, 1, 1, 11 },
	{ 4, 1, 0, 0, 12 },
};

START_TEST(test_flip)
{
	static const uint8_t masks[] = { 0xff, 0x01, 0x80 };
	struct rt_model *m = malloc(sizeof *m);
	pcln_target tg = { samples[_i].ps, samples[_i].q, samples[_i].big };
	uint32_t rs = 77;
	uint8_t *blob, *copy;
	size_t len, i, k, refused = 0, tried = 0;

	ck_assert_ptr_nonnull(m);
	rt_model_random(m, samples[_i].seed, &tg, samples[_i].trailer);
	blob = rt_model_build(m, &len);
	copy = malloc(len);
	ck_assert_ptr_nonnull(copy);
	ck_assert_int_eq(try_blob(m, blob, len, &rs), PCLNRT_EINIT_OK);
	for (i = 0; i < len; i++)
		for (k = 0; k < sizeof masks; k++) {
			memcpy(copy, blob, len);
			copy[i] ^= masks[k];
			refused += try_blob(m, copy, len, &rs) != 0;
			tried++;
		}
	/* The magic alone refuses 4 bytes x 3 masks. */
	ck_assert_uint_ge(refused, 12);
	ck_assert_uint_lt(refused, tried);
	free(copy);
	free(blob);
	free(m);
}
END_TEST

START_TEST(test_truncate)
{
	struct rt_model *m = malloc(sizeof *m);
	pcln_target tg = { samples[_i].ps, samples[_i].q, samples[_i].big };
	uint32_t rs = 99;
	uint8_t *blob;
	size_t len, n;

	ck_assert_ptr_nonnull(m);
	rt_model_random(m, samples[_i].seed, &tg, samples[_i].trailer);
	blob = rt_model_build(m, &len);
	for (n = 0; n < len; n++) {
		int rc = try_blob(m, blob, n, &rs);

		if (n < 8)
			RT_EQ(rc, PCLNRT_EINIT_SHORT);
		if (n < PCLN_HDR_END(tg.ptrsize, m->nfunc))
			RT_TRUE(rc != PCLNRT_EINIT_OK, "len %zu accepted", n);
	}
	free(blob);
	free(m);
}
END_TEST

static void
put32(uint8_t *p, uint32_t v, int big)
{
	int k;

	for (k = 0; k < 4; k++)
		p[big ? k : 3 - k] = (uint8_t)(v >> (24 - 8 * k));
}

/* Offsets aimed at the last bytes of the blob (the footer's magic, which
 * has no NUL), records that straddle the end, huge counts. */
enum bad { B_FUNCOFF, B_STRADDLE, B_NAMEOFF, B_PCSP, B_NPCDATA,
	B_NFUNCDATA, B_FILENAME };

static const struct {
	enum bad what;
	int want;	/* the runtime's answer to the affected question */
} bad_cases[] = {
	{ B_FUNCOFF, PCLNRT_CORRUPT },
	{ B_STRADDLE, PCLNRT_CORRUPT },
	{ B_NAMEOFF, PCLNRT_OK },	/* found, name NULL */
	{ B_PCSP, PCLNRT_CORRUPT },
	{ B_NPCDATA, PCLNRT_CORRUPT },
	{ B_NFUNCDATA, PCLNRT_CORRUPT },
	{ B_FILENAME, PCLNRT_OK },	/* file 1 has no name */
};

START_TEST(test_bad_offsets)
{
	struct rt_model *m = malloc(sizeof *m);
	pcln_target tg = { 4 << (_i % 2), 1, _i / 2 };
	unsigned ps = tg.ptrsize;
	int big = tg.bigendian, rc;
	uint8_t *blob, *rec;
	struct rt_guard g;
	pclnrt_table t;
	pclnrt_func f;
	uint64_t fd, pc;
	size_t len, k;
	int32_t v;

	ck_assert_ptr_nonnull(m);
	for (k = 0; k < sizeof bad_cases / sizeof bad_cases[0]; k++) {
		/* Without a trailer the file table ends the blob. */
		rt_model_random(m, 21, &tg, bad_cases[k].what != B_STRADDLE);
		blob = rt_model_build(m, &len);
		rec = blob + pclnrt_loadptr(blob + PCLN_FTAB_FUNCOFF(ps, 0),
		    ps, big);
		pc = m->f[0].entry;
		switch (bad_cases[k].what) {
		case B_FUNCOFF:
			put32(blob + PCLN_FTAB_FUNCOFF(ps, 0) + (big &&
			    ps == 8 ? 4 : 0), (uint32_t)len - ps, big);
			break;
		case B_STRADDLE:
			/* A record whose entry matches but whose counts lie
			 * past the end. */
			rec = blob + len - PCLN_FUNC_SIZE(ps) + ps;
			put32(blob + PCLN_FTAB_FUNCOFF(ps, 0) + (big &&
			    ps == 8 ? 4 : 0), (uint32_t)(rec - blob), big);
			memset(rec, 0, ps);
			put32(rec + (big && ps == 8 ? 4 : 0), (uint32_t)pc,
			    big);
			put32(rec + (!big && ps == 8 ? 4 : 0), ps == 8 ?
			    (uint32_t)(pc >> 32) : (uint32_t)pc, big);
			break;
		case B_NAMEOFF:
			put32(rec + PCLN_FUNC_NAMEOFF(ps), (uint32_t)len - 8,
			    big);
			break;
		case B_PCSP:
			put32(rec + PCLN_FUNC_PCSP(ps), (uint32_t)len - 1, big);
			break;
		case B_NPCDATA:
			put32(rec + PCLN_FUNC_NPCDATA(ps), 0xffffffffu, big);
			break;
		case B_NFUNCDATA:
			put32(rec + PCLN_FUNC_NFUNCDATA(ps), 0xffffffffu, big);
			break;
		case B_FILENAME:
			put32(blob + pclnrt_load32(blob +
			    PCLN_FILETABOFF_OFF(ps, m->nfunc), big) + 4,
			    (uint32_t)len - 8, big);
			break;
		}
		rt_guard_put(&g, blob, len);
		ck_assert_int_eq(pclnrt_init(&t, g.p, len), PCLNRT_EINIT_OK);
		rc = pclnrt_findfunc(&t, pc, &f);
		switch (bad_cases[k].what) {
		case B_FUNCOFF:
		case B_STRADDLE:
			break;
		case B_NAMEOFF:
			ck_assert_int_eq(rc, PCLNRT_OK);
			ck_assert_ptr_null(f.name);
			break;
		case B_PCSP:
			ck_assert_int_eq(rc, PCLNRT_OK);
			rc = pclnrt_pcsp(&f, pc, &v);
			break;
		case B_NPCDATA:
			ck_assert_int_eq(rc, PCLNRT_OK);
			rc = pclnrt_pcdata(&f, 0x10000000u, pc, &v);
			break;
		case B_NFUNCDATA:
			ck_assert_int_eq(rc, PCLNRT_OK);
			rc = pclnrt_funcdata(&f, 0x7fffffffu, &fd);
			break;
		case B_FILENAME:
			ck_assert_ptr_null(pclnrt_filename(&t, 1));
			break;
		}
		ck_assert_msg(rc == bad_cases[k].want, "case %zu: rc %d", k,
		    rc);
		rt_guard_free(&g);
		free(blob);
	}
	free(m);
}
END_TEST

Suite *
rt_corrupt_suite(void)
{
	Suite *s = suite_create("runtime corrupt");
	TCase *tc = tcase_create("limits");

	tcase_add_loop_test(tc, test_flip, 0, 4);
	tcase_add_loop_test(tc, test_truncate, 0, 4);
	tcase_add_loop_test(tc, test_bad_offsets, 0, 4);
	suite_add_tcase(s, tc);
	return s;
}
