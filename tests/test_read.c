/* test_read.c -- builder -> reader round trips over seeded random
 * programs for every target and layout, and the reader's API on the
 * sample program (lookups, files, funcdata, reverse line lookup). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcln.h"
#include "pclnrt_format.h"
#include "golden.h"
#include "suites_lib.h"

/* splitmix64: a small, fixed PRNG so every run tests the same programs. */
static uint64_t
rnd(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

#define MAXF	12
#define MAXP	6
#define NPD	5
#define NFD	4
#define NTAB	(3 + NPD)

struct mtab {
	unsigned n;
	uint32_t off[MAXP];
	int32_t val[MAXP];
};

struct mfunc {
	uint64_t entry, size;
	char name[32];
	int32_t args, frame;
	struct mtab tab[NTAB];
	unsigned npcdata, nfuncdata;
	uint64_t fd[NFD];
	long handle;
};

struct model {
	pcln_target t;
	size_t nfunc, nfile;
	struct mfunc f[MAXF];
	char files[4][32];
};

static void
gen_table(uint64_t *s, struct mtab *mt, uint64_t size, unsigned q,
    int pcfile, int nfile)
{
	uint64_t units = size / q, u;
	unsigned k, want = 1 + (unsigned)(rnd(s) % MAXP);

	mt->n = 0;
	/* pcfile starts at 0; other tables may start later (-1 before). */
	u = pcfile || rnd(s) % 3 ? 0 : rnd(s) % units;
	for (k = 0; k < want && u < units; k++) {
		mt->off[mt->n] = (uint32_t)(u * q);
		if (pcfile)
			mt->val[mt->n] = 1 + (int32_t)(rnd(s) % (uint64_t)nfile);
		else if (mt->n > 0 && rnd(s) % 4 == 0)
			mt->val[mt->n] = mt->val[mt->n - 1];	/* merges */
		else
			mt->val[mt->n] = (int32_t)(rnd(s) % 60) - 5;
		mt->n++;
		u += 1 + rnd(s) % (units / 2 + 1);
	}
}

static void
gen_model(struct model *m, uint64_t seed, const pcln_target *t)
{
	uint64_t s = seed, pc;
	unsigned q = t->quantum;
	size_t i, j;

	memset(m, 0, sizeof *m);
	m->t = *t;
	m->nfile = 1 + rnd(&s) % 4;
	for (i = 0; i < m->nfile; i++)
		snprintf(m->files[i], sizeof m->files[i], "/d%zu/f%zu.c", i % 2,
		    i);
	m->nfunc = 1 + rnd(&s) % MAXF;
	pc = (rnd(&s) % 0x100000) * q;
	for (i = 0; i < m->nfunc; i++) {
		struct mfunc *f = &m->f[i];
		if (rnd(&s) % 3 == 0)
			pc += q * (1 + rnd(&s) % 8);	/* a gap */
		f->entry = pc;
		f->size = q * (1 + rnd(&s) % 40);
		pc += f->size;
		if (rnd(&s) % 5 == 0)
			snprintf(f->name, sizeof f->name, "dup");
		else
			snprintf(f->name, sizeof f->name, "fn%zu", i);
		f->args = (int32_t)(rnd(&s) % 64);
		f->frame = (int32_t)(rnd(&s) % 256) - 8;
		for (j = 0; j < NTAB; j++) {
			uint64_t pct = j < 3 ? 80 : 30;
			if (rnd(&s) % 100 >= pct)
				continue;
			gen_table(&s, &f->tab[j], f->size, q,
			    j == PCLN_TAB_PCFILE, (int)m->nfile);
			if (j >= 3)
				f->npcdata = (unsigned)(j - 2);
		}
		for (j = 0; j < NFD; j++) {
			if (rnd(&s) % 100 >= 30)
				continue;
			f->fd[j] = rnd(&s) | 1;
			if (t->ptrsize == 4)
				f->fd[j] &= 0xffffffffu;
			f->nfuncdata = (unsigned)j + 1;
		}
	}
}

/* Add the model's functions in a shuffled order and write the blob. */
static pcln_builder *
build_model(struct model *m, uint64_t seed, unsigned flags, uint8_t **out,
    size_t *len)
{
	size_t order[MAXF], i, j, k;
	uint64_t s = seed ^ 0x5555;
	pcln_err err;
	pcln_builder *b = pcln_builder_new(&m->t, &err);

	ck_assert_ptr_nonnull(b);
	for (i = 0; i < m->nfile; i++)
		ck_assert_int_eq(pcln_builder_add_file(b, m->files[i], &err),
		    (long)i + 1);
	for (i = 0; i < m->nfunc; i++)
		order[i] = i;
	for (i = m->nfunc; i > 1; i--) {
		size_t r = rnd(&s) % i, tmp = order[i - 1];
		order[i - 1] = order[r];
		order[r] = tmp;
	}
	for (k = 0; k < m->nfunc; k++) {
		struct mfunc *f = &m->f[order[k]];
		f->handle = pcln_builder_add_func(b, f->name, f->entry, f->size,
		    f->args, f->frame, &err);
		ck_assert_int_eq(f->handle, (long)k);
		for (j = 0; j < NTAB; j++) {
			for (i = 0; i < f->tab[j].n; i++)
				ck_assert_msg(pcln_builder_add_point(b,
				    f->handle, (int)j, f->tab[j].off[i],
				    f->tab[j].val[i], &err) == 0, "%s",
				    err.msg);
		}
		for (j = 0; j < f->nfuncdata; j++)
			if (f->fd[j] != 0)
				ck_assert_int_eq(pcln_builder_set_funcdata(b,
				    f->handle, (unsigned)j, f->fd[j], &err), 0);
	}
	ck_assert_msg(pcln_builder_write(b, flags, out, len, &err) == 0,
	    "write: %s", err.msg);
	return b;
}

/* The rows a table of points must decode to: -1 before a first point
 * above 0, equal neighbours merged, the last row running to SIZE. */
static size_t
expect_rows(const struct mtab *mt, uint64_t entry, uint64_t size,
    pcln_row *rows)
{
	size_t n = 0, i;

	if (mt->n == 0)
		return 0;
	if (mt->off[0] > 0) {
		rows[n].start = entry;
		rows[n].value = -1;
		n++;
	}
	for (i = 0; i < mt->n; i++) {
		if (n > 0 && rows[n - 1].value == mt->val[i])
			continue;
		if (n > 0)
			rows[n - 1].end = entry + mt->off[i];
		rows[n].start = entry + mt->off[i];
		rows[n].value = mt->val[i];
		n++;
	}
	rows[n - 1].end = entry + size;
	return n;
}

/* The model's answer for PC in function I, table J: 0 and *V, or -1. */
static int
model_value(const struct mfunc *f, size_t j, uint64_t pc, int32_t *v)
{
	pcln_row rows[MAXP + 1];
	size_t n = expect_rows(&f->tab[j], f->entry, f->size, rows), k;

	for (k = 0; k < n; k++)
		if (pc >= rows[k].start && pc < rows[k].end) {
			*v = rows[k].value;
			return 0;
		}
	return -1;
}

struct range {
	size_t func;
	uint64_t start, end;
};

struct ranges {
	size_t n;
	struct range r[512];
};

static int
collect(void *arg, size_t func, uint64_t start, uint64_t end)
{
	struct ranges *rs = arg;

	ck_assert_uint_lt(rs->n, 512);
	rs->r[rs->n].func = func;
	rs->r[rs->n].start = start;
	rs->r[rs->n].end = end;
	rs->n++;
	return 0;
}

static int
file_match(const char *path, const char *file)
{
	size_t lp = strlen(path), lf = strlen(file);
	return strcmp(path, file) == 0 || (lp > lf &&
	    path[lp - lf - 1] == '/' && strcmp(path + lp - lf, file) == 0);
}

/* Brute force: step through every pc of every function and compare
 * pcln_line_to_pcs with the ranges the model says map to FILE:LINE. */
static void
check_line_to_pcs(const pcln_table *t, const struct model *m,
    const char *file, int32_t line)
{
	static struct ranges got, want;
	size_t i, k;
	long n;

	got.n = want.n = 0;
	for (i = 0; i < m->nfunc; i++) {
		const struct mfunc *f = &m->f[i];
		uint64_t pc;
		int open = 0;
		if (f->tab[PCLN_TAB_PCFILE].n == 0 ||
		    f->tab[PCLN_TAB_PCLN].n == 0)
			continue;
		for (pc = f->entry; pc < f->entry + f->size;
		    pc += m->t.quantum) {
			int32_t fv, lv;
			int hit = model_value(f, PCLN_TAB_PCFILE, pc, &fv) ==
			    0 && model_value(f, PCLN_TAB_PCLN, pc, &lv) == 0 &&
			    lv == line && line >= 1 && file_match(m->files[fv - 1], file);
			if (hit && open) {
				want.r[want.n - 1].end = pc + m->t.quantum;
			} else if (hit) {
				want.r[want.n].func = i;
				want.r[want.n].start = pc;
				want.r[want.n].end = pc + m->t.quantum;
				want.n++;
			}
			open = hit;
		}
	}
	n = pcln_line_to_pcs(t, file, line, collect, &got);
	ck_assert_int_eq(n, (long)want.n);
	ck_assert_uint_eq(got.n, want.n);
	for (k = 0; k < want.n; k++) {
		ck_assert_uint_eq(got.r[k].func, want.r[k].func);
		ck_assert_uint_eq(got.r[k].start, want.r[k].start);
		ck_assert_uint_eq(got.r[k].end, want.r[k].end);
	}
}

static void
check_model(const uint8_t *blob, size_t len, const struct model *m,
    int trailer)
{
	pcln_err err;
	pcln_table *t;
	pcln_info info;
	size_t i, j, k;

	ck_assert_msg(pcln_verify(blob, len, &err) == 0, "verify: %s",
	    err.msg);
	t = pcln_open(blob, len, 0, &err);
	ck_assert_ptr_nonnull(t);
	pcln_get_info(t, &info);
	ck_assert_uint_eq(info.target.ptrsize, m->t.ptrsize);
	ck_assert_uint_eq(info.target.quantum, m->t.quantum);
	ck_assert_int_eq(info.target.bigendian, m->t.bigendian);
	ck_assert_uint_eq(info.nfunc, m->nfunc);
	ck_assert_uint_eq(info.nfile, m->nfile);
	ck_assert_int_eq(info.has_trailer, trailer);
	ck_assert_uint_eq(info.text_start, m->f[0].entry);
	ck_assert_uint_eq(info.text_end,
	    m->f[m->nfunc - 1].entry + m->f[m->nfunc - 1].size);
	if (!trailer)
		ck_assert_uint_eq(info.go12size, len);
	for (k = 1; k <= m->nfile; k++)
		ck_assert_str_eq(pcln_file_name(t, (uint32_t)k),
		    m->files[k - 1]);
	if (m->f[0].entry > 0)
		ck_assert_int_eq(pcln_find_func(t, m->f[0].entry - 1), -1);

	for (i = 0; i < m->nfunc; i++) {
		const struct mfunc *f = &m->f[i];
		uint64_t next = i + 1 < m->nfunc ? m->f[i + 1].entry :
		    f->entry + f->size;
		uint64_t end = f->entry + f->size;
		int anytab = 0;
		pcln_func pf;

		for (j = 0; j < NTAB; j++)
			anytab |= f->tab[j].n > 0;
		if (!trailer && !anytab)
			end = next;	/* no table and no FUNCSIZE: no gap */
		ck_assert_int_eq(pcln_get_func(t, i, &pf), 0);
		ck_assert_uint_eq(pf.index, i);
		ck_assert_uint_eq(pf.entry, f->entry);
		ck_assert_uint_eq(pf.end, end);
		ck_assert_uint_eq(pf.next, next);
		ck_assert_str_eq(pf.name, f->name);
		ck_assert_int_eq(pf.args, f->args);
		ck_assert_int_eq(pf.frame, f->frame);
		ck_assert_uint_eq(pf.npcdata, f->npcdata);
		ck_assert_uint_eq(pf.nfuncdata, f->nfuncdata);
		for (j = 0; j < NFD + 1; j++)
			ck_assert_uint_eq(pcln_funcdata(t, i, (unsigned)j),
			    j < NFD ? f->fd[j] : 0);
		ck_assert_int_eq(pcln_find_func(t, f->entry), (long)i);
		ck_assert_int_eq(pcln_find_func(t, end - 1), (long)i);
		ck_assert_int_eq(pcln_find_func(t, end),
		    end < next ? -1 : i + 1 < m->nfunc ? (long)i + 1 : -1);
		for (j = 0; j < NTAB; j++) {
			pcln_row want[MAXP + 1], got;
			pcln_rowiter it;
			size_t n = expect_rows(&f->tab[j], f->entry, f->size,
			    want);
			int exists = j < 3 || j - 3 < f->npcdata;

			ck_assert_int_eq(pcln_table_offset(t, i, (int)j) != 0,
			    n > 0);
			ck_assert_int_eq(pcln_rows_begin(&it, t, i, (int)j),
			    exists ? 0 : -1);
			for (k = 0; k < n; k++) {
				int32_t v = 12345;
				pcln_row r;
				ck_assert_int_eq(pcln_rows_next(&it, &got), 1);
				ck_assert_uint_eq(got.start, want[k].start);
				ck_assert_uint_eq(got.end, want[k].end);
				ck_assert_int_eq(got.value, want[k].value);
				/* Lookups at both edges of the row. */
				ck_assert_int_eq(pcln_pcvalue(t, i, (int)j,
				    want[k].start, &v, &r), 0);
				ck_assert_int_eq(v, want[k].value);
				ck_assert_uint_eq(r.start, want[k].start);
				ck_assert_uint_eq(r.end, want[k].end);
				ck_assert_int_eq(pcln_pcvalue(t, i, (int)j,
				    want[k].end - 1, &v, NULL), 0);
				ck_assert_int_eq(v, want[k].value);
				ck_assert_int_eq(pcln_find_func(t,
				    want[k].start), (long)i);
			}
			if (exists)
				ck_assert_int_eq(pcln_rows_next(&it, &got), 0);
			/* pcln_rows_fill: the same rows, in batches of 1, 3
			 * and all. */
			if (exists) {
				static const size_t batch[3] = { 1, 3, MAXP + 1 };
				int bk;
				for (bk = 0; bk < 3; bk++) {
					pcln_row rows[MAXP + 1];
					size_t got_n = 0;
					long r;
					pcln_rows_begin(&it, t, i, (int)j);
					while ((r = pcln_rows_fill(&it,
					    rows + got_n, batch[bk])) > 0) {
						ck_assert_int_le(r,
						    (long)batch[bk]);
						got_n += (size_t)r;
						ck_assert_uint_le(got_n, n);
					}
					ck_assert_int_eq(r, 0);
					ck_assert_uint_eq(got_n, n);
					for (k = 0; k < n; k++) {
						ck_assert_uint_eq(rows[k].start,
						    want[k].start);
						ck_assert_uint_eq(rows[k].end,
						    want[k].end);
						ck_assert_int_eq(rows[k].value,
						    want[k].value);
					}
				}
			}
			ck_assert_int_eq(pcln_pcvalue(t, i, (int)j,
			    f->entry + f->size, NULL, NULL), -1);
			if (f->entry > 0)
				ck_assert_int_eq(pcln_pcvalue(t, i, (int)j,
				    f->entry - 1, NULL, NULL), -1);
		}
		/* pcln_lookup at every pcln row start. */
		for (k = 0; k < f->tab[PCLN_TAB_PCLN].n; k++) {
			uint64_t pc = f->entry + f->tab[PCLN_TAB_PCLN].off[k];
			int32_t fv, sv;
			pcln_loc loc;
			ck_assert_int_eq(pcln_lookup(t, pc, &loc), 0);
			ck_assert_int_eq(loc.func, (long)i);
			ck_assert_uint_eq(loc.entry, f->entry);
			ck_assert_str_eq(loc.name, f->name);
			ck_assert_int_eq(loc.line,
			    f->tab[PCLN_TAB_PCLN].val[k]);
			if (model_value(f, PCLN_TAB_PCFILE, pc, &fv) == 0)
				ck_assert_str_eq(loc.file, m->files[fv - 1]);
			else
				ck_assert_ptr_null(loc.file);
			if (model_value(f, PCLN_TAB_PCSP, pc, &sv) == 0) {
				ck_assert_int_eq(loc.has_sp, 1);
				ck_assert_int_eq(loc.spdelta, sv);
			} else
				ck_assert_int_eq(loc.has_sp, 0);
		}
	}
	ck_assert_int_eq(pcln_get_func(t, m->nfunc, &(pcln_func){ 0 }), -1);
	/* Reverse lookups: a line that exists, by full path and suffix. */
	for (i = 0; i < m->nfunc; i++) {
		const struct mtab *ln = &m->f[i].tab[PCLN_TAB_PCLN];
		const struct mtab *fl = &m->f[i].tab[PCLN_TAB_PCFILE];
		if (ln->n > 0 && fl->n > 0) {
			const char *path = m->files[fl->val[0] - 1];
			check_line_to_pcs(t, m, path, ln->val[ln->n - 1]);
			check_line_to_pcs(t, m, strrchr(path, '/') + 1,
			    ln->val[0]);
			break;
		}
	}
	pcln_close(t);
}

/* Build the model again, this time feeding every table as the bytes the
 * first build wrote (pcln_builder_set_table_bytes): decoding and
 * re-encoding canonically must give the very same blob. */
static void
rebuild_from_bytes(const struct model *m, const uint8_t *blob, size_t len,
    unsigned flags)
{
	pcln_err err;
	pcln_table *t = pcln_open(blob, len, 0, &err);
	pcln_builder *b = pcln_builder_new(&m->t, &err);
	uint8_t *again;
	size_t alen, i, j, h;

	ck_assert_ptr_nonnull(t);
	for (i = 0; i < m->nfile; i++)
		pcln_builder_add_file(b, m->files[i], &err);
	for (h = 0; h < m->nfunc; h++) {
		const struct mfunc *f = NULL;
		long fh;
		for (i = 0; i < m->nfunc; i++)
			if (m->f[i].handle == (long)h)
				f = &m->f[i];
		i = (size_t)(f - m->f);		/* index in entry order */
		fh = pcln_builder_add_func(b, f->name, f->entry, f->size,
		    f->args, f->frame, &err);
		ck_assert_int_eq(fh, (long)h);
		for (j = 0; j < 3 + f->npcdata; j++) {
			uint32_t off = pcln_table_offset(t, i, (int)j);
			struct pclnrt_pcstep st;
			if (off == 0)
				continue;
			pclnrt_pcstep_init(&st, blob + off, blob + len, 0,
			    m->t.quantum);
			while (pclnrt_pcstep(&st) == 1)
				;
			ck_assert_msg(pcln_builder_set_table_bytes(b, fh,
			    (int)j, blob + off, (size_t)(st.p - (blob + off)),
			    &err) == 0, "%s", err.msg);
		}
		for (j = 0; j < f->nfuncdata; j++)
			if (f->fd[j] != 0)
				pcln_builder_set_funcdata(b, fh, (unsigned)j,
				    f->fd[j], &err);
	}
	ck_assert_int_eq(pcln_builder_write(b, flags, &again, &alen, &err), 0);
	ck_assert_uint_eq(alen, len);
	ck_assert_mem_eq(again, blob, len);
	free(again);
	pcln_builder_free(b);
	pcln_close(t);
}

/* _i encodes the target: bit 0 ptrsize 8, bits 1-2 quantum, bit 3 big,
 * bit 4 Go 1.2 only. */
START_TEST(test_roundtrip)
{
	static const unsigned qs[3] = { 1, 2, 4 };
	pcln_target t = { _i & 1 ? 8 : 4, qs[(_i >> 1) % 3], (_i >> 3) & 1 };
	unsigned flags = _i & 0x10 ? PCLN_WRITE_GO12 : 0;
	uint64_t seed;

	if (((_i >> 1) & 3) == 3)
		return;		/* no fourth quantum */
	for (seed = 1; seed <= 40; seed++) {
		struct model m;
		uint8_t *a, *c;
		size_t la, lc;
		pcln_builder *b;
		pcln_err err;

		gen_model(&m, seed * 7919 + (uint64_t)_i, &t);
		b = build_model(&m, seed, flags, &a, &la);
		check_model(a, la, &m, !flags);
		rebuild_from_bytes(&m, a, la, flags);
		/* Deterministic: writing again gives the same bytes. */
		ck_assert_int_eq(pcln_builder_write(b, flags, &c, &lc, &err), 0);
		ck_assert_uint_eq(la, lc);
		ck_assert_mem_eq(a, c, la);
		free(a);
		free(c);
		pcln_builder_free(b);
	}
}
END_TEST

/* --- the sample program -------------------------------------------------- */

static pcln_table *
open_sample(unsigned flags, uint8_t **blob, size_t *len)
{
	pcln_target t = { 8, 1, 0 };
	pcln_err err;
	pcln_table *tab;

	ck_assert_int_eq(sample_build(&t, flags, blob, len, NULL, &err), 0);
	tab = pcln_open(*blob, *len, 0, &err);
	ck_assert_ptr_nonnull(tab);
	return tab;
}

static const struct {
	const char *file;
	int32_t line;
	long n;
	uint64_t start[2], end[2];
} l2p[] = {
	{ "main.c", 11, 2, { 0x08, 0x20 }, { 0x10, 0x30 } },
	{ "/src/main.c", 11, 2, { 0x08, 0x20 }, { 0x10, 0x30 } },
	{ "src/main.c", 12, 1, { 0x10 }, { 0x20 } },
	{ "ain.c", 11, 0, { 0 }, { 0 } },		/* not after a '/' */
	{ "main.c", 99, 0, { 0 }, { 0 } },
	{ "util.h", 5, 1, { 0x50 }, { 0x60 } },
	{ "util.c", 20, 1, { 0x40 }, { 0x50 } },
	{ "util/util.c", 30, 2, { 0x80, 0x98 }, { 0x8c, 0xa4 } },
	{ "main.c", 40, 1, { 0x60 }, { 0x68 } },
	{ "util.h", 50, 1, { 0xc4 }, { 0xe0 } },
	{ "util.h", -1, 0, { 0 }, { 0 } },	/* -1: "no line" is no match */
};

START_TEST(test_line_to_pcs)
{
	static struct ranges got;
	uint8_t *blob;
	size_t len, k;
	pcln_table *t = open_sample(0, &blob, &len);

	got.n = 0;
	ck_assert_int_eq(pcln_line_to_pcs(t, l2p[_i].file, l2p[_i].line,
	    collect, &got), l2p[_i].n);
	ck_assert_uint_eq(got.n, (size_t)l2p[_i].n);
	for (k = 0; k < got.n; k++) {
		ck_assert_uint_eq(got.r[k].start, SAMPLE_BASE + l2p[_i].start[k]);
		ck_assert_uint_eq(got.r[k].end, SAMPLE_BASE + l2p[_i].end[k]);
	}
	pcln_close(t);
	free(blob);
}
END_TEST

static int
stop_first(void *arg, size_t func, uint64_t start, uint64_t end)
{
	(*(int *)arg)++;
	return 1;
}

START_TEST(test_line_to_pcs_merge)
{
	pcln_target tg = { 4, 1, 0 };
	pcln_err err;
	pcln_builder *b = pcln_builder_new(&tg, &err);
	static struct ranges got;
	uint8_t *blob;
	size_t len;
	pcln_table *t;
	int calls = 0;
	long f;

	pcln_builder_add_file(b, "a/x.c", &err);
	pcln_builder_add_file(b, "b/x.c", &err);
	f = pcln_builder_add_func(b, "f", 0x100, 0x10, 0, 0, &err);
	pcln_builder_add_point(b, f, PCLN_TAB_PCFILE, 0, 1, &err);
	pcln_builder_add_point(b, f, PCLN_TAB_PCFILE, 8, 2, &err);
	pcln_builder_add_point(b, f, PCLN_TAB_PCLN, 0, 7, &err);
	f = pcln_builder_add_func(b, "g", 0x200, 0x10, 0, 0, &err);
	pcln_builder_add_point(b, f, PCLN_TAB_PCFILE, 0, 2, &err);
	pcln_builder_add_point(b, f, PCLN_TAB_PCLN, 0, 7, &err);
	ck_assert_int_eq(pcln_builder_write(b, 0, &blob, &len, &err), 0);
	t = pcln_open(blob, len, 0, &err);
	ck_assert_ptr_nonnull(t);
	/* Both files match "x.c": f's two rows merge into one range. */
	got.n = 0;
	ck_assert_int_eq(pcln_line_to_pcs(t, "x.c", 7, collect, &got), 2);
	ck_assert_uint_eq(got.r[0].func, 0);
	ck_assert_uint_eq(got.r[0].start, 0x100);
	ck_assert_uint_eq(got.r[0].end, 0x110);
	ck_assert_uint_eq(got.r[1].func, 1);
	ck_assert_uint_eq(got.r[1].start, 0x200);
	ck_assert_uint_eq(got.r[1].end, 0x210);
	got.n = 0;
	ck_assert_int_eq(pcln_line_to_pcs(t, "a/x.c", 7, collect, &got), 1);
	ck_assert_uint_eq(got.r[0].end, 0x108);
	/* A callback that stops at the first range. */
	ck_assert_int_eq(pcln_line_to_pcs(t, "x.c", 7, stop_first, &calls), 1);
	ck_assert_int_eq(calls, 1);
	ck_assert_int_eq(pcln_line_to_pcs(t, NULL, 7, collect, &got), -1);
	/* No callback: just count. */
	ck_assert_int_eq(pcln_line_to_pcs(t, "x.c", 7, NULL, NULL), 2);
	pcln_close(t);
	free(blob);
	pcln_builder_free(b);
}
END_TEST

START_TEST(test_sample_api)
{
	uint8_t *blob;
	size_t len;
	pcln_table *t = open_sample(0, &blob, &len);
	pcln_info info;
	pcln_func f;
	pcln_loc loc;
	pcln_rowiter it;
	pcln_row r;
	int32_t v;

	pcln_get_info(t, &info);
	ck_assert_uint_eq(info.nfunc, SAMPLE_NFUNC);
	ck_assert_uint_eq(pcln_nfunc(t), SAMPLE_NFUNC);
	ck_assert_uint_eq(pcln_nfile(t), SAMPLE_NFILE);
	ck_assert_uint_eq(info.text_start, SAMPLE_BASE);
	ck_assert_uint_eq(info.text_end, SAMPLE_BASE + 0xe0);
	ck_assert_int_eq(info.has_trailer, 1);
	ck_assert_uint_eq(info.trailer_version, 1);
	ck_assert_uint_lt(info.go12size, len);
	{
		/* The trailer directory: FUNCSIZE, one uint32 per function,
		 * after the Go 1.2 part. */
		uint32_t tag, off, size;
		ck_assert_uint_eq(pcln_nsections(t), 1);
		ck_assert_int_eq(pcln_get_section(t, 0, &tag, &off, &size), 0);
		ck_assert_uint_eq(tag, PCLN_SECT_FUNCSIZE);
		ck_assert_uint_eq(size, 4 * SAMPLE_NFUNC);
		ck_assert_uint_ge(off, info.go12size);
		ck_assert_int_eq(pcln_get_section(t, 1, &tag, &off, &size), -1);
	}
	ck_assert_str_eq(pcln_file_name(t, 1), "/src/main.c");
	ck_assert_str_eq(pcln_file_name(t, 3), "util.h");
	ck_assert_ptr_null(pcln_file_name(t, 0));
	ck_assert_ptr_null(pcln_file_name(t, 4));
	/* Sorted: main, helper, leaf, util.compute, then after the gap the
	 * odd one. */
	ck_assert_int_eq(pcln_get_func(t, 0, &f), 0);
	ck_assert_str_eq(f.name, "main");
	ck_assert_uint_eq(f.nfuncdata, 2);
	ck_assert_uint_eq(pcln_funcdata(t, 0, 0), 0);
	ck_assert_uint_eq(pcln_funcdata(t, 0, 1), 0x500000);
	ck_assert_uint_eq(pcln_funcdata(t, 0, 2), 0);
	ck_assert_uint_eq(pcln_funcdata(t, 99, 0), 0);
	ck_assert_int_eq(pcln_get_func(t, 1, &f), 0);
	ck_assert_str_eq(f.name, "helper");
	ck_assert_uint_eq(f.npcdata, 3);	/* sparse: only pcdata[2] */
	ck_assert_uint_eq(pcln_table_offset(t, 1, PCLN_TAB_PCDATA(0)), 0);
	ck_assert_uint_eq(pcln_table_offset(t, 1, PCLN_TAB_PCDATA(1)), 0);
	ck_assert_uint_ne(pcln_table_offset(t, 1, PCLN_TAB_PCDATA(2)), 0);
	ck_assert_uint_eq(pcln_table_offset(t, 1, PCLN_TAB_PCDATA(3)), 0);
	ck_assert_uint_eq(pcln_table_offset(t, 1, -1), 0);
	ck_assert_int_eq(pcln_pcvalue(t, 1, PCLN_TAB_PCDATA(2),
	    SAMPLE_BASE + 0x40, &v, &r), 0);
	ck_assert_int_eq(v, -1);
	ck_assert_int_eq(pcln_pcvalue(t, 1, PCLN_TAB_PCDATA(2),
	    SAMPLE_BASE + 0x44, &v, &r), 0);
	ck_assert_int_eq(v, 7);
	ck_assert_uint_eq(r.end, SAMPLE_BASE + 0x60);
	ck_assert_int_eq(pcln_rows_begin(&it, t, 1, PCLN_TAB_PCDATA(0)), 0);
	ck_assert_int_eq(pcln_rows_next(&it, &r), 0);	/* absent: empty */
	ck_assert_int_eq(pcln_rows_fill(&it, &r, 1), 0);
	{
		/* pcln_rows_fill on a table damaged after its first row (an
		 * overlong varint), opened trusted: that row, then -1. */
		uint32_t off = pcln_table_offset(t, 1, PCLN_TAB_PCDATA(2));
		uint8_t *bad = malloc(len);
		pcln_table *bt;
		pcln_row rows[4];
		memcpy(bad, blob, len);
		memset(bad + off + 2, 0xff, 6);
		bt = pcln_open(bad, len, PCLN_OPEN_TRUSTED, NULL);
		ck_assert_ptr_nonnull(bt);
		ck_assert_int_eq(pcln_rows_begin(&it, bt, 1,
		    PCLN_TAB_PCDATA(2)), 0);
		ck_assert_int_eq(pcln_rows_fill(&it, rows, 4), 1);
		ck_assert_int_eq(rows[0].value, -1);
		ck_assert_uint_eq(rows[0].start, SAMPLE_BASE + 0x40);
		ck_assert_int_eq(pcln_rows_fill(&it, rows, 4), -1);
		ck_assert_int_eq(pcln_rows_fill(&it, rows, 4), -1);
		pcln_close(bt);
		free(bad);
	}
	ck_assert_int_eq(pcln_rows_begin(&it, t, 1, PCLN_TAB_PCDATA(3)), -1);
	ck_assert_int_eq(pcln_rows_begin(&it, t, 9, PCLN_TAB_PCSP), -1);
	ck_assert_int_eq(pcln_get_func(t, 4, &f), 0);
	ck_assert_str_eq(f.name, "\xff\xff\xff\xff\x7f");
	ck_assert_uint_eq(f.entry, SAMPLE_BASE + 0xc0);
	ck_assert_uint_eq(f.end, SAMPLE_BASE + 0xe0);
	ck_assert_int_eq(pcln_get_func(t, 3, &f), 0);
	ck_assert_str_eq(f.name, "util.compute");
	ck_assert_uint_eq(f.end, SAMPLE_BASE + 0xb0);
	ck_assert_uint_eq(f.next, SAMPLE_BASE + 0xc0);
	/* The gap [0xb0, 0xc0) belongs to no function. */
	ck_assert_int_eq(pcln_find_func(t, SAMPLE_BASE + 0xaf), 3);
	ck_assert_int_eq(pcln_find_func(t, SAMPLE_BASE + 0xb0), -1);
	ck_assert_int_eq(pcln_find_func(t, SAMPLE_BASE + 0xbf), -1);
	ck_assert_int_eq(pcln_find_func(t, SAMPLE_BASE + 0xc0), 4);
	ck_assert_int_eq(pcln_find_func(t, SAMPLE_BASE + 0xe0), -1);
	ck_assert_int_eq(pcln_find_func(t, 0), -1);
	ck_assert_int_eq(pcln_lookup(t, SAMPLE_BASE + 0xb4, &loc), -1);
	ck_assert_int_eq(loc.func, -1);
	ck_assert_int_eq(pcln_lookup(t, SAMPLE_BASE + 0x24, &loc), 0);
	ck_assert_str_eq(loc.name, "main");
	ck_assert_str_eq(loc.file, "/src/main.c");
	ck_assert_int_eq(loc.line, 11);
	ck_assert_int_eq(loc.spdelta, 8);
	ck_assert_int_eq(loc.has_sp, 1);
	ck_assert_int_eq(pcln_lookup(t, SAMPLE_BASE + 0x64, &loc), 0);
	ck_assert_str_eq(loc.name, "leaf");
	ck_assert_int_eq(loc.line, 40);
	ck_assert_int_eq(loc.has_sp, 0);	/* leaf has no pcsp */
	pcln_close(t);
	free(blob);
}
END_TEST

START_TEST(test_open_errors)
{
	uint8_t *blob;
	size_t len;
	pcln_table *t = open_sample(PCLN_WRITE_GO12, &blob, &len);
	pcln_err err;
	pcln_info info;

	pcln_get_info(t, &info);
	ck_assert_int_eq(info.has_trailer, 0);
	ck_assert_uint_eq(info.go12size, len);
	/* Without FUNCSIZE the gap still shows: pcsp ends at 0xb0. */
	ck_assert_int_eq(pcln_find_func(t, SAMPLE_BASE + 0xb0), -1);
	ck_assert_int_eq(pcln_find_func(t, SAMPLE_BASE + 0xaf), 3);
	pcln_close(t);
	blob[0] ^= 0xff;
	ck_assert_ptr_null(pcln_open(blob, len, 0, &err));
	ck_assert_int_eq(err.code, PCLN_EMAGIC);
	ck_assert_ptr_null(pcln_open(blob, len, PCLN_OPEN_TRUSTED, &err));
	ck_assert_ptr_null(pcln_open(NULL, 0, 0, &err));
	ck_assert_int_eq(err.code, PCLN_EINVAL);
	free(blob);
}
END_TEST

Suite *
read_suite(void)
{
	Suite *s = suite_create("read");
	TCase *tc = tcase_create("roundtrip");

	tcase_add_loop_test(tc, test_roundtrip, 0, 32);
	suite_add_tcase(s, tc);
	tc = tcase_create("core");
	tcase_add_test(tc, test_sample_api);
	tcase_add_loop_test(tc, test_line_to_pcs, 0,
	    sizeof l2p / sizeof l2p[0]);
	tcase_add_test(tc, test_line_to_pcs_merge);
	suite_add_tcase(s, tc);
	tc = tcase_create("errors");
	tcase_add_test(tc, test_open_errors);
	suite_add_tcase(s, tc);
	return s;
}
