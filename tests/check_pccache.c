/* check_pccache.c -- the pc-value cache answers exactly as the uncached
 * lookups do, on every blob.
 *
 * pclnrt.h promises that pclnrt_pcvalue_cached and
 * pclnrt_funcline_cached give the same answer and the same status as
 * pclnrt_pcvalue and pclnrt_funcline, verified blob or not.  Each test
 * runs both over many pcs with one cache kept across all of them (pcs
 * drawn function by function, so that rows cached for one pc are asked
 * again at others) and counts the calls that differ; there must be none:
 *  - a plain Go 1.2 blob with a function longer than 4 GiB, which the
 *    verifier accepts (the cache once kept row offsets in 32 bits);
 *  - every seed of the fuzz corpus (fuzz/corpus/) and mutants of each;
 *  - blobs with checkpoints whose PCCKPT section or tables were damaged
 *    at random (unsorted checkpoints pick different starting points for
 *    pcs of one row).
 */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcln.h"
#include "pclnrt.h"
#include "pclnrt_format.h"
#include "trailer.h"

#ifndef PCLN_TOP_SRCDIR
#define PCLN_TOP_SRCDIR "."
#endif

static uint64_t
lcg(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return *s >> 33;
}

struct tally {
	unsigned long calls, diffs, hits, blobs;
};

/* Compare the cached and uncached answers of pc PC of T, through cache
 * C; every table of the function (and one past them) and funcline. */
static void
compare_pc(const pclnrt_table *t, uint64_t pc, pclnrt_pccache *c,
    struct tally *n)
{
	pclnrt_func f;
	const char *p1, *p2;
	int32_t l1, l2;
	uint32_t ntab, j;

	if (pclnrt_findfunc(t, pc, &f) != PCLNRT_OK)
		return;
	ntab = 3 + (f.npcdata < 8 ? f.npcdata : 8) + 1;
	for (j = 0; j < ntab; j++) {
		int32_t a = 7, b = 7;
		int ra = pclnrt_pcvalue(&f, (int)j, pc, &a, NULL, NULL);
		int rb = pclnrt_pcvalue_cached(&f, (int)j, pc, &b, c);
		n->calls++;
		if (ra != rb || (ra == PCLNRT_OK && a != b)) {
			if (n->diffs < 5)
				fprintf(stderr, "table %u pc %#llx of f%u: "
				    "%d/%d uncached, %d/%d cached\n", j,
				    (unsigned long long)pc, f.index, ra, a, rb,
				    b);
			n->diffs++;
		}
	}
	l1 = l2 = 7;
	n->calls++;
	if (pclnrt_funcline(&f, pc, &p1, &l1) !=
	    pclnrt_funcline_cached(&f, pc, &p2, &l2, c) || p1 != p2 ||
	    l1 != l2)
		n->diffs++;
}

/* Compare over a blob: for up to 64 functions hit at random, 24 pcs
 * inside each (twice over, in another order), plus each function's
 * first and last pcs, with one cache for the whole blob. */
static void
compare_blob(const uint8_t *blob, size_t len, uint64_t seed,
    struct tally *n)
{
	pclnrt_pccache c;
	pclnrt_table t;
	uint64_t span, pcs[24];
	int k, i;

	if (pclnrt_init(&t, blob, len) != PCLNRT_EINIT_OK || t.nfunc == 0)
		return;
	n->blobs++;
	pclnrt_pccache_init(&c);
	span = t.maxpc - t.minpc;
	for (k = 0; k < 64; k++) {
		pclnrt_func f;
		uint64_t pc = t.minpc + (span ? (lcg(&seed) << 31 ^
		    lcg(&seed)) % span : 0), fs;

		if (pclnrt_findfunc(&t, pc, &f) != PCLNRT_OK)
			continue;
		fs = f.end - f.entry;
		for (i = 0; i < 24; i++)
			pcs[i] = f.entry + (lcg(&seed) << 31 ^ lcg(&seed)) % fs;
		for (i = 0; i < 24; i++)
			compare_pc(&t, pcs[i], &c, n);
		for (i = 23; i >= 0; i -= 3)
			compare_pc(&t, pcs[i], &c, n);
		compare_pc(&t, f.entry, &c, n);
		compare_pc(&t, f.end - 1, &c, n);
	}
	n->hits += c.hits;
}

/* --- a function longer than 4 GiB -------------------------------------- */

static void
put(uint8_t *p, uint64_t v, int n)
{
	int k;

	for (k = 0; k < n; k++)
		p[k] = (uint8_t)(v >> 8 * k);
}

#define BIG_ENTRY	0x400000ull
#define BIG_ROW2	0xfffffff0ull		/* pcsp 8 from here */
#define BIG_ROW3	(BIG_ROW2 + 0x40)	/* pcsp 16 from here */
#define BIG_SIZE	(BIG_ROW3 + 0x100)

/* A plain Go 1.2 blob (ptrsize 8, quantum 1, little-endian) of one
 * function "big" of BIG_SIZE (over 4 GiB) bytes whose pcsp is 0, then 8
 * from BIG_ROW2, then 16 from BIG_ROW3.  Without FUNCSIZE its size is
 * where its pcsp table ends. */
static size_t
big_blob(uint8_t *b)
{
	size_t o, tab;

	memset(b, 0, 128);
	put(b, PCLN_GO12_MAGIC, 4);
	b[PCLN_HDR_QUANTUM] = 1;
	b[PCLN_HDR_PTRSIZE] = 8;
	put(b + PCLN_HDR_NFUNC, 1, 8);
	put(b + PCLN_FTAB_ENTRY(8, 0), BIG_ENTRY, 8);
	put(b + PCLN_FTAB_FUNCOFF(8, 0), 48, 8);
	put(b + PCLN_FTAB_END(8, 1), BIG_ENTRY + BIG_SIZE, 8);
	/* the Func record at 48, its name after it */
	put(b + 48 + PCLN_FUNC_ENTRY, BIG_ENTRY, 8);
	put(b + 48 + PCLN_FUNC_NAMEOFF(8), 48 + PCLN_FUNC_SIZE(8), 4);
	memcpy(b + 48 + PCLN_FUNC_SIZE(8), "big", 4);
	tab = 48 + PCLN_FUNC_SIZE(8) + 4;
	put(b + 48 + PCLN_FUNC_PCSP(8), tab, 4);
	o = tab;
	o += pcln_put_uvarint(b + o, 2);		/* 0 (from -1) */
	o += pcln_put_uvarint(b + o, (uint32_t)BIG_ROW2);
	o += pcln_put_uvarint(b + o, 16);		/* +8 */
	o += pcln_put_uvarint(b + o, (uint32_t)(BIG_ROW3 - BIG_ROW2));
	o += pcln_put_uvarint(b + o, 16);		/* +8 */
	o += pcln_put_uvarint(b + o, (uint32_t)(BIG_SIZE - BIG_ROW3));
	b[o++] = 0;
	/* a file table of no files */
	o = (o + 3) & ~(size_t)3;
	put(b + PCLN_FILETABOFF_OFF(8, 1), o, 4);
	put(b + o, 1, 4);
	return o + 4;
}

START_TEST(test_pccache_4g)
{
	static const uint64_t offs[] = {
		BIG_ROW3 + 0x10, 0x40, BIG_ROW2 + 0x10, 0x10, BIG_ROW3 + 0xff,
		0xf0, BIG_ROW2, BIG_ROW3, 0, BIG_SIZE - 1, 0x100000010,
	};
	static const int32_t want[] = { 16, 0, 8, 0, 16, 0, 8, 16, 0, 16, 8 };
	uint8_t b[128];
	size_t len = big_blob(b), k;
	pclnrt_pccache c;
	pclnrt_table t;
	pclnrt_func f;
	struct tally n = { 0, 0, 0, 0 };
	pcln_err err;

	ck_assert_msg(pcln_verify(b, len, &err) == 0, "%s", err.msg);
	ck_assert_int_eq(pclnrt_init(&t, b, len), PCLNRT_EINIT_OK);
	pclnrt_pccache_init(&c);
	for (k = 0; k < sizeof offs / sizeof offs[0]; k++) {
		int32_t v = 7, cv = 7;
		uint64_t pc = BIG_ENTRY + offs[k];

		ck_assert_int_eq(pclnrt_findfunc(&t, pc, &f), PCLNRT_OK);
		ck_assert_uint_eq(f.end - f.entry, BIG_SIZE);
		ck_assert_int_eq(pclnrt_pcsp(&f, pc, &v), PCLNRT_OK);
		ck_assert_int_eq(v, want[k]);
		ck_assert_int_eq(pclnrt_pcvalue_cached(&f, PCLN_TAB_PCSP, pc,
		    &cv, &c), PCLNRT_OK);
		ck_assert_msg(cv == want[k], "pc entry+%#llx: cached %d, "
		    "expected %d", (unsigned long long)offs[k], cv, want[k]);
	}
	/* The same pcs again hit, at full width. */
	for (k = 0; k < sizeof offs / sizeof offs[0]; k++) {
		int32_t cv = 7;
		uint64_t h = c.hits, pc = BIG_ENTRY + offs[k];

		ck_assert_int_eq(pclnrt_findfunc(&t, pc, &f), PCLNRT_OK);
		ck_assert_int_eq(pclnrt_pcvalue_cached(&f, PCLN_TAB_PCSP, pc,
		    &cv, &c), PCLNRT_OK);
		ck_assert_int_eq(cv, want[k]);
		ck_assert_uint_eq(c.hits, h + 1);
	}
	compare_blob(b, len, 1, &n);
	ck_assert_uint_eq(n.diffs, 0);
	ck_assert_uint_gt(n.hits, 0);
}
END_TEST

/* --- the fuzz corpus and its mutants ---------------------------------- */

static uint8_t *
slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long n;

	if (f == NULL)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc(n > 0 ? (size_t)n : 1);
	ck_assert_ptr_nonnull(buf);
	*len = n > 0 ? fread(buf, 1, (size_t)n, f) : 0;
	fclose(f);
	return buf;
}

/* Every file of fuzz/corpus/fuzz_blob and fuzz_runtime: as it is, and
 * 40 mutants of each (1 to 4 random bytes set anywhere). */
START_TEST(test_pccache_corpus)
{
	static const char *const dirs[] = { "fuzz_blob", "fuzz_runtime" };
	const char *top = getenv("top_srcdir");
	struct tally n = { 0, 0, 0, 0 };
	unsigned long files = 0;
	uint64_t seed = 5;
	size_t d;

	if (top == NULL)
		top = PCLN_TOP_SRCDIR;
	for (d = 0; d < 2; d++) {
		char path[4096];
		struct dirent *e;
		DIR *dir;

		snprintf(path, sizeof path, "%s/fuzz/corpus/%s", top, dirs[d]);
		dir = opendir(path);
		ck_assert_msg(dir != NULL, "cannot open %s", path);
		while ((e = readdir(dir)) != NULL) {
			uint8_t *b, *m;
			size_t len;
			int k, j;

			if (e->d_name[0] == '.')
				continue;
			snprintf(path, sizeof path, "%s/fuzz/corpus/%s/%s",
			    top, dirs[d], e->d_name);
			if ((b = slurp(path, &len)) == NULL || len == 0) {
				free(b);
				continue;
			}
			files++;
			compare_blob(b, len, seed++, &n);
			m = malloc(len);
			ck_assert_ptr_nonnull(m);
			for (k = 0; k < 40; k++) {
				int nm = 1 + (int)(lcg(&seed) % 4);
				memcpy(m, b, len);
				for (j = 0; j < nm; j++)
					m[lcg(&seed) % len] =
					    (uint8_t)lcg(&seed);
				compare_blob(m, len, seed++, &n);
			}
			free(m);
			free(b);
		}
		closedir(dir);
	}
	fprintf(stderr, "corpus: %lu files, %lu blobs, %lu calls, %lu hits, "
	    "%lu differ\n", files, n.blobs, n.calls, n.hits, n.diffs);
	ck_assert_uint_gt(files, 10);
	ck_assert_uint_gt(n.hits, 1000);
	ck_assert_uint_eq(n.diffs, 0);
}
END_TEST

/* --- damaged checkpoints ----------------------------------------------- */

/* A blob of 8 functions with long tables (40 to 400 rows; functions 2k
 * and 2k+1 share theirs), checkpoints every STRIDE rows. */
static uint8_t *
ckpt_blob(const pcln_target *tg, unsigned stride, uint64_t seed,
    size_t *len)
{
	pcln_builder *b;
	pcln_err err;
	uint8_t *out;
	uint64_t entry = 0x10000;
	long fi, file[3];
	int i, j, k;

	b = pcln_builder_new(tg, &err);
	ck_assert_ptr_nonnull(b);
	for (k = 0; k < 3; k++) {
		char name[16];
		snprintf(name, sizeof name, "f%d.c", k);
		file[k] = pcln_builder_add_file(b, name, &err);
	}
	ck_assert_int_eq(pcln_builder_set_checkpoints(b, stride, &err), 0);
	for (i = 0; i < 8; i += 2) {
		uint64_t rows = 40 + lcg(&seed) % 360, size = rows * 8 * 4;
		uint64_t s = seed;
		for (k = 0; k < 2; k++) {
			char name[16];
			seed = s;	/* the twin gets the same tables */
			snprintf(name, sizeof name, "fn%d", i + k);
			fi = pcln_builder_add_func(b, name, entry, size, 0, 16,
			    &err);
			ck_assert_int_ge(fi, 0);
			for (j = 0; j < 3 + 2; j++) {
				uint64_t off = 0;
				int32_t v = -1;
				while (off < size) {
					int32_t nv;
					do
						nv = j == PCLN_TAB_PCFILE ?
						    (int32_t)file[lcg(&seed) %
						    3] : (int32_t)(lcg(&seed) %
						    64);
					while (nv == v);
					ck_assert_int_eq(pcln_builder_add_point(
					    b, fi, j, off, nv, &err), 0);
					v = nv;
					off += 4 * (1 + lcg(&seed) % 12);
				}
			}
			entry += size + 16;
		}
	}
	ck_assert_msg(pcln_builder_write(b, 0, &out, len, &err) == 0, "%s",
	    err.msg);
	ck_assert_uint_gt(pcln_builder_stats(b)->nckpt, 0);
	pcln_builder_free(b);
	return out;
}

/* 600 blobs: 1 to 6 random bytes of the PCCKPT section set (one time in
 * four, also a byte of the tables), the checksum resealed. */
START_TEST(test_pccache_ckpt_damage)
{
	static const pcln_target tgs[] = { { 8, 1, 0 }, { 4, 4, 1 } };
	struct tally n = { 0, 0, 0, 0 };
	uint64_t seed = 11;
	int v, k;

	for (v = 0; v < 12; v++) {
		const pcln_target *tg = &tgs[v % 2];
		size_t len;
		uint8_t *good = ckpt_blob(tg, 2 + (unsigned)v % 4, seed, &len);
		uint8_t *m = malloc(len), *ck;
		uint32_t cksize = 0;

		ck_assert_ptr_nonnull(m);
		compare_blob(good, len, seed++, &n);
		for (k = 0; k < 50; k++) {
			int j, nd = 1 + (int)(lcg(&seed) % 6);
			memcpy(m, good, len);
			ck = trailer_section(m, len, tg->bigendian,
			    PCLN_SECT_PCCKPT, &cksize);
			ck_assert_ptr_nonnull(ck);
			for (j = 0; j < nd; j++) {
				if (lcg(&seed) % 4 == 0)
					m[lcg(&seed) % (size_t)(ck - m)] =
					    (uint8_t)lcg(&seed);
				else
					ck[PCLN_CKPT_HDR + lcg(&seed) %
					    (cksize - PCLN_CKPT_HDR)] =
					    (uint8_t)lcg(&seed);
			}
			trailer_reseal(m, len);
			compare_blob(m, len, seed++, &n);
		}
		free(m);
		free(good);
	}
	fprintf(stderr, "damaged checkpoints: %lu blobs, %lu calls, %lu hits, "
	    "%lu differ\n", n.blobs, n.calls, n.hits, n.diffs);
	ck_assert_uint_ge(n.blobs, 550);
	ck_assert_uint_gt(n.hits, 10000);
	ck_assert_uint_eq(n.diffs, 0);
}
END_TEST

static Suite *
pccache_suite(void)
{
	Suite *s = suite_create("pccache");
	TCase *tc = tcase_create("exact");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_pccache_4g);
	tcase_add_test(tc, test_pccache_corpus);
	tcase_add_test(tc, test_pccache_ckpt_damage);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(pccache_suite());
	int nf;

	srunner_run_all(sr, CK_NORMAL);
	nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
