/* test_rt_lookup.c -- the runtime's lookups against the model they were
 * built from (and against the libpcln reader): every row boundary of
 * every table, around each function, in gaps, before the first function
 * and at/after the end pc; many seeded random blobs over both pointer
 * sizes, both byte orders, quanta 1/2/4, with and without the trailer. */
#include <stdlib.h>
#include <string.h>

#include "test_rt.h"

/* The 24 targets: ptrsize x byte order x quantum x trailer. */
static void
config(int i, pcln_target *t, int *trailer)
{
	static const unsigned q[3] = { 1, 2, 4 };

	t->ptrsize = i % 2 ? 8 : 4;
	t->bigendian = (i / 2) % 2;
	t->quantum = q[(i / 4) % 3];
	*trailer = (i / 12) % 2;
}

/* Every pc worth asking about in model M, into PCS; returns the count. */
static size_t
probes(const struct rt_model *m, uint64_t *pcs, size_t max)
{
	size_t n = 0, i;
	int j, k;
	uint64_t last = m->f[m->nfunc - 1].entry + m->f[m->nfunc - 1].size;

#define ADD(x) do { if (n < max) pcs[n++] = (x); } while (0)
	ADD(0);
	ADD(UINT64_MAX);
	ADD(m->f[0].entry - 1);
	ADD(m->f[0].entry - m->t.quantum);
	ADD(last - 1);
	ADD(last);
	ADD(last + 1);
	for (i = 0; i < m->nfunc; i++) {
		const struct rt_mfunc *f = &m->f[i];
		uint64_t e = rt_model_end(m, i);

		ADD(f->entry - 1);
		ADD(f->entry);
		ADD(f->entry + 1);
		ADD(f->entry + f->size - 1);
		ADD(f->entry + f->size);
		ADD(f->entry + f->size + 1);
		ADD(e - 1);
		ADD(e);
		for (j = 0; j < RT_MAXTAB; j++)
			for (k = 0; k < f->tab[j].n; k++) {
				ADD(f->entry + f->tab[j].off[k] - 1);
				ADD(f->entry + f->tab[j].off[k]);
				ADD(f->entry + f->tab[j].off[k] + 1);
			}
	}
#undef ADD
	ck_assert_uint_lt(n, max);
	return n;
}

/* Check every runtime answer about PC against the model. */
static void
check_pc(const struct rt_model *m, const pclnrt_table *t, uint64_t pc)
{
	long want = rt_model_find(m, pc);
	const struct rt_mfunc *mf;
	pclnrt_func f;
	int rc = pclnrt_findfunc(t, pc, &f), tab;
	const char *path;
	int32_t v, wv, line;
	uint64_t s, e, ws, we, fd;
	uint32_t j;

	if (want < 0) {
		RT_TRUE(rc == PCLNRT_NOTFOUND,
		    "pc 0x%llx: want no function, got rc %d",
		    (unsigned long long)pc, rc);
		return;
	}
	RT_TRUE(rc == PCLNRT_OK, "pc 0x%llx: want %ld, got rc %d",
	    (unsigned long long)pc, want, rc);
	mf = &m->f[want];
	RT_EQ(f.index, (unsigned long)want);
	RT_STREQ(f.name, mf->name);
	RT_EQ(f.entry, mf->entry);
	RT_EQ(f.end, rt_model_end(m, (size_t)want));
	RT_EQ(f.args, mf->args);
	RT_EQ(f.frame, mf->frame);
	RT_EQ(f.npcdata, mf->npcdata);
	RT_EQ(f.nfuncdata, mf->nfuncdata);
	for (tab = 0; tab < 3 + (int)mf->npcdata + 1; tab++) {
		int wrc = tab < 3 + (int)mf->npcdata ?
		    rt_model_value(m, (size_t)want, tab, pc, &wv, &ws, &we) : -1;

		/* Beyond the model's size (a no-table function running to
		 * the next entry) no table covers the pc. */
		if (pc >= mf->entry + mf->size)
			wrc = -1;
		rc = pclnrt_pcvalue(&f, tab, pc, &v, &s, &e);
		if (wrc != 0) {
			RT_TRUE(rc == PCLNRT_NOTFOUND,
			    "pc 0x%llx %s table %d: want none, rc %d",
			    (unsigned long long)pc, mf->name, tab, rc);
			continue;
		}
		RT_TRUE(rc == PCLNRT_OK && v == wv && s == ws && e == we,
		    "pc 0x%llx %s table %d: rc %d value %d [%llx,%llx), want "
		    "%d [%llx,%llx)", (unsigned long long)pc, mf->name, tab,
		    rc, v, (unsigned long long)s, (unsigned long long)e, wv,
		    (unsigned long long)ws, (unsigned long long)we);
		if (tab == PCLN_TAB_PCSP) {
			RT_EQ(pclnrt_pcsp(&f, pc, &v), PCLNRT_OK);
			RT_EQ(v, wv);
		} else if (tab == PCLN_TAB_PCFILE) {
			RT_EQ(pclnrt_pcfile(&f, pc, &v), PCLNRT_OK);
			RT_EQ(v, wv);
			RT_STREQ(pclnrt_filename(t, v),
			    m->files[wv - 1]);
		} else if (tab >= 3) {
			RT_EQ(pclnrt_pcdata(&f, (uint32_t)tab - 3,
			    pc, &v), PCLNRT_OK);
			RT_EQ(v, wv);
		}
	}
	RT_EQ(pclnrt_pcdata(&f, mf->npcdata, pc, &v),
	    PCLNRT_NOTFOUND);
	/* funcline: both known, or the failing half reported. */
	rc = pclnrt_funcline(&f, pc, &path, &line);
	{
		int hasf = pc < mf->entry + mf->size && mf->tab[1].n > 0;
		int hasl = pc < mf->entry + mf->size && mf->tab[2].n > 0;

		RT_EQ(rc, hasf && hasl ? PCLNRT_OK :
		    PCLNRT_NOTFOUND);
		if (hasf) {
			rt_model_value(m, (size_t)want, 1, pc, &wv, &ws, &we);
			RT_STREQ(path, m->files[wv - 1]);
		} else
			RT_EQ(path == NULL, 1);
		if (hasl) {
			rt_model_value(m, (size_t)want, 2, pc, &wv, &ws, &we);
			RT_EQ(line, wv);
		} else
			RT_EQ(line, 0);
	}
	for (j = 0; j < mf->nfuncdata; j++) {
		RT_EQ(pclnrt_funcdata(&f, j, &fd), PCLNRT_OK);
		RT_EQ(fd, mf->funcdata[j]);
	}
	RT_EQ(pclnrt_funcdata(&f, mf->nfuncdata, &fd),
	    PCLNRT_NOTFOUND);
}

/* The libpcln reader and the runtime agree on PC: function, name,
 * entry, file, line, spdelta. */
static void
check_lib_pc(const pcln_table *lt, const pclnrt_table *t, uint64_t pc)
{
	pcln_loc loc;
	pclnrt_func f;
	const char *path;
	int32_t line, sp;
	int lrc = pcln_lookup(lt, pc, &loc);
	int rc = pclnrt_findfunc(t, pc, &f);

	RT_TRUE(pcln_find_func(lt, pc) == (rc == PCLNRT_OK ? (long)f.index :
	    -1), "pc 0x%llx: lib finds %ld, runtime rc %d index %ld",
	    (unsigned long long)pc, pcln_find_func(lt, pc), rc,
	    rc == PCLNRT_OK ? (long)f.index : -1);
	if (rc != PCLNRT_OK) {
		RT_EQ(lrc, -1);
		RT_EQ(loc.func, -1);
		return;
	}
	RT_EQ(lrc, 0);
	RT_EQ(loc.func, f.index);
	RT_STREQ(loc.name, f.name);
	RT_EQ(loc.entry, f.entry);
	(void)pclnrt_funcline(&f, pc, &path, &line);
	RT_TRUE(loc.file == path || (loc.file && path &&
	    strcmp(loc.file, path) == 0), "pc 0x%llx: file %s vs %s",
	    (unsigned long long)pc, loc.file, path);
	RT_EQ(loc.line, line);
	RT_EQ(loc.has_sp, pclnrt_pcsp(&f, pc, &sp) == PCLNRT_OK);
	if (loc.has_sp)
		RT_EQ(loc.spdelta, sp);
}

/* Every row of every table, as the lib iterates it, answers the same
 * value and range from the runtime at its first and last pc. */
static void
check_lib_rows(const pcln_table *lt, const pclnrt_table *t, size_t i)
{
	pcln_func lf;
	pclnrt_func f;
	pcln_rowiter it;
	pcln_row row;
	uint64_t s, e;
	int32_t v;
	int tab, rc;

	RT_EQ(pcln_get_func(lt, i, &lf), 0);
	RT_EQ(pclnrt_findfunc(t, lf.entry, &f), PCLNRT_OK);
	RT_EQ(f.index, i);
	RT_EQ(f.end, lf.end);
	RT_EQ(f.npcdata, lf.npcdata);
	for (tab = 0; tab < 3 + (int)lf.npcdata; tab++) {
		RT_EQ(pcln_rows_begin(&it, lt, i, tab), 0);
		while ((rc = pcln_rows_next(&it, &row)) == 1) {
			RT_EQ(pclnrt_pcvalue(&f, tab, row.start, &v, &s, &e),
			    PCLNRT_OK);
			RT_TRUE(v == row.value && s == row.start &&
			    e == row.end, "%s table %d row [%llx,%llx)=%d: "
			    "runtime [%llx,%llx)=%d", f.name, tab,
			    (unsigned long long)row.start,
			    (unsigned long long)row.end, row.value,
			    (unsigned long long)s, (unsigned long long)e, v);
			RT_EQ(pclnrt_pcvalue(&f, tab, row.end - 1, &v, &s, &e),
			    PCLNRT_OK);
			RT_EQ(v, row.value);
			RT_EQ(s, row.start);
		}
		RT_EQ(rc, 0);
	}
}

START_TEST(test_random_blobs)
{
	static uint64_t pcs[4096];
	struct rt_model *m = malloc(sizeof *m);
	pcln_target tg;
	unsigned seed;
	int trailer;

	ck_assert_ptr_nonnull(m);
	config(_i, &tg, &trailer);
	for (seed = 1; seed <= 25; seed++) {
		struct rt_guard g;
		pclnrt_table t;
		pcln_table *lt;
		pcln_err err;
		size_t len, n, i;
		uint8_t *blob;

		rt_model_random(m, seed + 1000u * (unsigned)_i, &tg, trailer);
		blob = rt_model_build(m, &len);
		rt_guard_put(&g, blob, len);
		RT_EQ(pclnrt_init(&t, g.p, len), PCLNRT_EINIT_OK);
		RT_EQ(t.nfunc, m->nfunc);
		RT_EQ(t.ptrsize, tg.ptrsize);
		RT_EQ(t.quantum, tg.quantum);
		RT_EQ(t.big, (unsigned)tg.bigendian);
		RT_EQ(t.minpc, m->f[0].entry);
		RT_EQ(t.maxpc, m->f[m->nfunc - 1].entry +
		    m->f[m->nfunc - 1].size);
		RT_EQ(t.funcsize != NULL, trailer);
		RT_EQ(t.nslots, m->nfile + 1);
		for (i = 1; i <= m->nfile; i++)
			RT_STREQ(pclnrt_filename(&t, (int32_t)i),
			    m->files[i - 1]);
		RT_EQ(pclnrt_filename(&t, 0) == NULL, 1);
		RT_EQ(pclnrt_filename(&t, (int32_t)m->nfile + 1) == NULL, 1);
		RT_EQ(pclnrt_filename(&t, -1) == NULL, 1);
		n = probes(m, pcs, sizeof pcs / sizeof pcs[0]);
		for (i = 0; i < n; i++)
			check_pc(m, &t, pcs[i]);
		/* The lib reader, over a fully verified blob, agrees. */
		lt = pcln_open(g.p, len, 0, &err);
		RT_TRUE(lt != NULL, "pcln_open: %s", err.msg);
		for (i = 0; i < n; i++)
			check_lib_pc(lt, &t, pcs[i]);
		for (i = 0; i < m->nfunc; i++)
			check_lib_rows(lt, &t, i);
		pcln_close(lt);
		rt_guard_free(&g);
		free(blob);
	}
	free(m);
}
END_TEST

/* pclnrt_init refuses what cannot be right: one mutation each. */
enum mut { M_NONE, M_LEN0, M_LEN7, M_HDRONLY, M_MAGIC, M_PAD, M_QUANTUM,
	M_PTRSIZE, M_NFUNC, M_SENTINEL, M_FILETAB, M_FILETAB_ALIGN,
	M_NSLOTS, M_DIROFF, M_NSECT, M_SECTSIZE, M_SECTOFF, M_VERSION };

static const struct {
	enum mut mut;
	int trailer;
	int want;
} init_cases[] = {
	{ M_NONE, 0, PCLNRT_EINIT_OK },
	{ M_NONE, 1, PCLNRT_EINIT_OK },
	{ M_LEN0, 0, PCLNRT_EINIT_SHORT },
	{ M_LEN7, 0, PCLNRT_EINIT_SHORT },
	{ M_HDRONLY, 0, PCLNRT_EINIT_SHORT },
	{ M_MAGIC, 0, PCLNRT_EINIT_MAGIC },
	{ M_PAD, 0, PCLNRT_EINIT_HEADER },
	{ M_QUANTUM, 0, PCLNRT_EINIT_HEADER },
	{ M_PTRSIZE, 0, PCLNRT_EINIT_HEADER },
	{ M_NFUNC, 0, PCLNRT_EINIT_FUNCTAB },
	{ M_NFUNC, 1, PCLNRT_EINIT_FUNCTAB },
	{ M_SENTINEL, 0, PCLNRT_EINIT_SENTINEL },
	{ M_FILETAB, 0, PCLNRT_EINIT_FILETAB },
	{ M_FILETAB_ALIGN, 0, PCLNRT_EINIT_FILETAB },
	{ M_NSLOTS, 0, PCLNRT_EINIT_FILETAB },
	{ M_DIROFF, 1, PCLNRT_EINIT_TRAILER },
	{ M_NSECT, 1, PCLNRT_EINIT_TRAILER },
	{ M_SECTSIZE, 1, PCLNRT_EINIT_TRAILER },
	{ M_SECTOFF, 1, PCLNRT_EINIT_TRAILER },
	/* An unknown trailer version is ignored: a plain Go 1.2 blob. */
	{ M_VERSION, 1, PCLNRT_EINIT_OK },
};

static void
put32(uint8_t *p, uint32_t v, int big)
{
	int k;

	for (k = 0; k < 4; k++)
		p[big ? k : 3 - k] = (uint8_t)(v >> (24 - 8 * k));
}

static void
putptr(uint8_t *p, uint64_t v, unsigned ps, int big)
{
	if (ps == 4) {
		put32(p, (uint32_t)v, big);
	} else {
		put32(p + (big ? 0 : 4), (uint32_t)(v >> 32), big);
		put32(p + (big ? 4 : 0), (uint32_t)v, big);
	}
}

START_TEST(test_init_refuses)
{
	struct rt_model *m = malloc(sizeof *m);
	pcln_target tg = { 8, 1, _i % 2 };
	uint8_t *blob, *dir, *ft;
	struct rt_guard g;
	pclnrt_table t;
	size_t len, k;
	unsigned ps = 8;
	int big = tg.bigendian, rc;
	uint64_t n;

	ck_assert_ptr_nonnull(m);
	for (k = 0; k < sizeof init_cases / sizeof init_cases[0]; k++) {
		rt_model_random(m, 7, &tg, init_cases[k].trailer);
		blob = rt_model_build(m, &len);
		n = m->nfunc;
		ft = blob + len - PCLN_FOOTER_SIZE;
		dir = blob + pclnrt_load32(ft + PCLN_FOOTER_DIROFF, big);
		switch (init_cases[k].mut) {
		case M_NONE: break;
		case M_LEN0: len = 0; break;
		case M_LEN7: len = 7; break;
		case M_HDRONLY: len = PCLN_HDR_END(ps, 0) - 1; break;
		case M_MAGIC: blob[big ? 3 : 0] ^= 0x10; break;
		case M_PAD: blob[PCLN_HDR_PAD1] = 1; break;
		case M_QUANTUM: blob[PCLN_HDR_QUANTUM] = 3; break;
		case M_PTRSIZE: blob[PCLN_HDR_PTRSIZE] = 2; break;
		case M_NFUNC:
			putptr(blob + PCLN_HDR_NFUNC, len / 16, ps, big);
			break;
		case M_SENTINEL:
			putptr(blob + PCLN_FTAB_END(ps, n), m->f[n - 1].entry,
			    ps, big);
			break;
		case M_FILETAB:
			put32(blob + PCLN_FILETABOFF_OFF(ps, n),
			    (uint32_t)len, big);
			break;
		case M_FILETAB_ALIGN:
			put32(blob + PCLN_FILETABOFF_OFF(ps, n), 6, big);
			break;
		case M_NSLOTS:
			put32(blob + pclnrt_load32(blob +
			    PCLN_FILETABOFF_OFF(ps, n), big), 0x10000, big);
			break;
		case M_DIROFF:
			put32(ft + PCLN_FOOTER_DIROFF, (uint32_t)len, big);
			break;
		case M_NSECT:
			put32(ft + PCLN_FOOTER_NSECT, 1000, big);
			break;
		case M_SECTSIZE:
			RT_EQ(pclnrt_load32(dir + PCLN_DIRENT_TAG,
			    big), PCLN_SECT_FUNCSIZE);
			put32(dir + PCLN_DIRENT_SIZEF, (uint32_t)(4 * n - 4),
			    big);
			break;
		case M_SECTOFF:
			put32(dir + PCLN_DIRENT_OFF, 8, big);
			break;
		case M_VERSION:
			put32(ft + PCLN_FOOTER_VERSION, 99, big);
			break;
		}
		rt_guard_put(&g, blob, len);
		rc = pclnrt_init(&t, g.p, len);
		RT_TRUE(rc == init_cases[k].want,
		    "case %zu: got %d (%s), want %d (%s)", k, rc,
		    pclnrt_init_strerror(rc), init_cases[k].want,
		    pclnrt_init_strerror(init_cases[k].want));
		if (init_cases[k].mut == M_VERSION)
			RT_EQ(t.funcsize == NULL, 1);
		rt_guard_free(&g);
		free(blob);
	}
	free(m);
}
END_TEST

START_TEST(test_names)
{
	RT_STREQ(pclnrt_init_strerror(PCLNRT_EINIT_MAGIC),
	    "bad magic");
	RT_STREQ(pclnrt_init_strerror(PCLNRT_EINIT_OK), "no error");
	RT_STREQ(pclnrt_init_strerror(12345), "unknown error");
	RT_STREQ(pclnrt_stop_string(PCLNRT_STOP_READ),
	    "memory read failed");
	RT_STREQ(pclnrt_stop_string(PCLNRT_STOP_WRONG_WAY),
	    "stack goes the wrong way");
	RT_STREQ(pclnrt_stop_string(PCLNRT_NSTOP),
	    "unknown stop reason");
}
END_TEST

/* An empty blob (no functions) finds nothing. */
START_TEST(test_empty)
{
	pcln_target tg = { 4, 1, 0 };
	pcln_builder *b = pcln_builder_new(&tg, NULL);
	uint8_t *blob;
	size_t len;
	pclnrt_table t;
	pclnrt_func f;

	ck_assert_ptr_nonnull(b);
	RT_EQ(pcln_builder_write(b, 0, &blob, &len, NULL), 0);
	RT_EQ(pclnrt_init(&t, blob, len), PCLNRT_EINIT_OK);
	RT_EQ(t.nfunc, 0);
	RT_EQ(pclnrt_findfunc(&t, 0, &f), PCLNRT_NOTFOUND);
	RT_EQ(pclnrt_findfunc(&t, 0x1000, &f), PCLNRT_NOTFOUND);
	pcln_builder_free(b);
	free(blob);
}
END_TEST

Suite *
rt_lookup_suite(void)
{
	Suite *s = suite_create("runtime lookup");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_random_blobs, 0, 24);
	tcase_add_test(tc, test_empty);
	suite_add_tcase(s, tc);
	tc = tcase_create("errors");
	tcase_add_loop_test(tc, test_init_refuses, 0, 2);
	tcase_add_test(tc, test_names);
	suite_add_tcase(s, tc);
	return s;
}
