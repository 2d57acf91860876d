/* test_verify.c -- the verifier on hand-corrupted blobs (each fault its
 * own code and offset), on every truncation, and the reader on every
 * single-byte corruption opened with PCLN_OPEN_TRUSTED (run under
 * --enable-sanitizers or valgrind to prove no read leaves the blob). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "pcln.h"
#include "pclnrt_format.h"
#include "golden.h"
#include "suites_lib.h"

enum { G, B, T };	/* le64 Go 1.2, be32 quantum 4 Go 1.2, le64 trailer */

static const struct {
	pcln_target t;
	unsigned flags;
} kinds[] = {
	{ { 8, 1, 0 }, PCLN_WRITE_GO12 },
	{ { 4, 4, 1 }, PCLN_WRITE_GO12 },
	{ { 8, 1, 0 }, 0 },
};

/* A sample blob of kind K, copied into a buffer of exactly its length. */
struct blob {
	uint8_t *b;
	size_t len;
	unsigned ps;
	int big;
};

static void
make(struct blob *x, int k)
{
	pcln_err err;
	uint8_t *tmp;

	ck_assert_int_eq(sample_build(&kinds[k].t, kinds[k].flags, &tmp,
	    &x->len, NULL, &err), 0);
	x->b = malloc(x->len);
	memcpy(x->b, tmp, x->len);
	free(tmp);
	x->ps = kinds[k].t.ptrsize;
	x->big = kinds[k].t.bigendian;
}

static uint64_t
ldp(const struct blob *x, uint64_t off)
{
	return pclnrt_loadptr(x->b + off, x->ps, x->big);
}

static uint32_t
ld4(const struct blob *x, uint64_t off)
{
	return pclnrt_load32(x->b + off, x->big);
}

static void
st4(struct blob *x, uint64_t off, uint32_t v)
{
	uint8_t *p = x->b + off;
	if (x->big) {
		p[0] = (uint8_t)(v >> 24); p[1] = (uint8_t)(v >> 16);
		p[2] = (uint8_t)(v >> 8); p[3] = (uint8_t)v;
	} else {
		p[3] = (uint8_t)(v >> 24); p[2] = (uint8_t)(v >> 16);
		p[1] = (uint8_t)(v >> 8); p[0] = (uint8_t)v;
	}
}

static void
stp(struct blob *x, uint64_t off, uint64_t v)
{
	if (x->ps == 4) {
		st4(x, off, (uint32_t)v);
	} else if (x->big) {
		st4(x, off, (uint32_t)(v >> 32));
		st4(x, off + 4, (uint32_t)v);
	} else {
		st4(x, off, (uint32_t)v);
		st4(x, off + 4, (uint32_t)(v >> 32));
	}
}

static uint64_t
funcoff(const struct blob *x, unsigned i)
{
	return ldp(x, PCLN_FTAB_FUNCOFF(x->ps, i));
}

/* Offset of field FIELD (a PCLN_FUNC_* offset) of function I's record. */
#define FIELD(x, i, f) (funcoff(x, i) + f((x)->ps))

/* Each patch returns the byte offset the verifier must report. */
typedef int64_t (*patch_fn)(struct blob *x);

static int64_t
p_magic(struct blob *x)
{
	x->b[0] ^= 1;
	return 0;
}

static int64_t
p_pad(struct blob *x)
{
	x->b[5] = 1;
	return 5;
}

static int64_t
p_quantum(struct blob *x)
{
	x->b[6] = 3;
	return 6;
}

static int64_t
p_ptrsize(struct blob *x)
{
	x->b[7] = 2;
	return 7;
}

static int64_t
p_nfunc(struct blob *x)
{
	stp(x, 8, 1ull << 40);
	return 8;
}

static int64_t
p_unsorted(struct blob *x)
{
	stp(x, PCLN_FTAB_ENTRY(x->ps, 2), ldp(x, PCLN_FTAB_ENTRY(x->ps, 1)));
	return PCLN_FTAB_ENTRY(x->ps, 2);
}

static int64_t
p_funcoff_align(struct blob *x)
{
	stp(x, PCLN_FTAB_FUNCOFF(x->ps, 1), funcoff(x, 1) + 4);
	return PCLN_FTAB_FUNCOFF(x->ps, 1);
}

static int64_t
p_funcoff_range(struct blob *x)
{
	stp(x, PCLN_FTAB_FUNCOFF(x->ps, 1), x->len);
	return PCLN_FTAB_FUNCOFF(x->ps, 1);
}

static int64_t
p_sentinel(struct blob *x)
{
	stp(x, PCLN_FTAB_END(x->ps, SAMPLE_NFUNC),
	    ldp(x, PCLN_FTAB_ENTRY(x->ps, SAMPLE_NFUNC - 1)) - 4);
	return PCLN_FTAB_END(x->ps, SAMPLE_NFUNC);
}

static int64_t
p_entry(struct blob *x)
{
	stp(x, funcoff(x, 2), ldp(x, funcoff(x, 2)) + 4);
	return (int64_t)funcoff(x, 2);
}

static int64_t
p_nameoff_range(struct blob *x)
{
	st4(x, FIELD(x, 1, PCLN_FUNC_NAMEOFF), (uint32_t)x->len + 5);
	return (int64_t)FIELD(x, 1, PCLN_FUNC_NAMEOFF);
}

static int64_t
p_nameoff_unterminated(struct blob *x)
{
	/* The blob ends in a big-endian name offset whose low byte is not
	 * 0: a "string" there has no NUL before the end. */
	ck_assert_uint_ne(x->b[x->len - 1], 0);
	st4(x, FIELD(x, 1, PCLN_FUNC_NAMEOFF), (uint32_t)x->len - 1);
	return (int64_t)FIELD(x, 1, PCLN_FUNC_NAMEOFF);
}

static int64_t
p_npcdata(struct blob *x)
{
	st4(x, FIELD(x, 0, PCLN_FUNC_NPCDATA), 0x7fffffff);
	return (int64_t)FIELD(x, 0, PCLN_FUNC_NPCDATA);
}

static int64_t
p_nfuncdata_neg(struct blob *x)
{
	st4(x, FIELD(x, 0, PCLN_FUNC_NFUNCDATA), 0xffffffff);
	return (int64_t)FIELD(x, 0, PCLN_FUNC_NPCDATA);
}

static int64_t
p_taboff(struct blob *x)
{
	st4(x, FIELD(x, 0, PCLN_FUNC_PCSP), (uint32_t)x->len + 100);
	return (int64_t)FIELD(x, 0, PCLN_FUNC_PCSP);
}

static int64_t
p_pcdata_off(struct blob *x)
{
	st4(x, funcoff(x, 0) + PCLN_FUNC_PCDATA(x->ps, 0), 3);
	return (int64_t)(funcoff(x, 0) + PCLN_FUNC_PCDATA(x->ps, 0));
}

static int64_t
p_tab_unterminated(struct blob *x)
{
	/* One byte before the end can never hold a row and a terminator. */
	st4(x, FIELD(x, 0, PCLN_FUNC_PCSP), (uint32_t)x->len - 1);
	return (int64_t)x->len;
}

static int64_t
p_tab_varint(struct blob *x)
{
	/* Aim pcsp at the name "\xff\xff\xff\xff\x7f": an overflow. */
	st4(x, FIELD(x, 0, PCLN_FUNC_PCSP),
	    ld4(x, FIELD(x, SAMPLE_NFUNC - 1, PCLN_FUNC_NAMEOFF)));
	return ld4(x, FIELD(x, SAMPLE_NFUNC - 1, PCLN_FUNC_NAMEOFF));
}

static int64_t
p_coverage(struct blob *x)
{
	/* main's pcln table starts 0x16 0x08 (line 10 for 8 bytes): make
	 * it 7 bytes, so pcln ends before pcsp. */
	uint32_t tab = ld4(x, FIELD(x, 0, PCLN_FUNC_PCLN));
	ck_assert_uint_eq(x->b[tab], 0x16);
	ck_assert_uint_eq(x->b[tab + 1], 0x08);
	x->b[tab + 1] = 0x07;
	return (int64_t)FIELD(x, 0, PCLN_FUNC_PCLN);
}

static int64_t
p_past_next(struct blob *x)
{
	/* leaf (index 2, size 8, no pcsp) is sized by pcln: stretch its
	 * only row into util.compute. */
	uint32_t tab = ld4(x, FIELD(x, 2, PCLN_FUNC_PCLN));
	ck_assert_uint_eq(x->b[tab + 1], 0x08);
	x->b[tab + 1] = 0x28;
	return tab + 2;
}

static int64_t
p_pcfile(struct blob *x)
{
	uint32_t tab = ld4(x, FIELD(x, 0, PCLN_FUNC_PCFILE));
	ck_assert_uint_eq(x->b[tab], 4);	/* file 1: delta +2 */
	x->b[tab] = 2 * (SAMPLE_NFILE + 2);	/* file nfile + 1 */
	return tab + 2;
}

static int64_t
p_filetab_align(struct blob *x)
{
	uint64_t at = PCLN_FILETABOFF_OFF(x->ps, SAMPLE_NFUNC);
	st4(x, at, ld4(x, at) + 2);
	return (int64_t)at;
}

static int64_t
p_filetab_range(struct blob *x)
{
	uint64_t at = PCLN_FILETABOFF_OFF(x->ps, SAMPLE_NFUNC);
	st4(x, at, (uint32_t)x->len);
	return (int64_t)at;
}

static int64_t
p_filetab_nslots(struct blob *x)
{
	uint64_t ft = ld4(x, PCLN_FILETABOFF_OFF(x->ps, SAMPLE_NFUNC));
	st4(x, ft, 0);
	return (int64_t)ft;
}

static int64_t
p_filetab_name(struct blob *x)
{
	uint64_t ft = ld4(x, PCLN_FILETABOFF_OFF(x->ps, SAMPLE_NFUNC));
	st4(x, ft + 8, 0x7ffffff0);
	return (int64_t)ft + 8;
}

static int64_t
p_trailer_magic(struct blob *x)
{
	x->b[x->len - 1] = 'X';
	return ld4(x, x->len - PCLN_FOOTER_SIZE + PCLN_FOOTER_GO12SIZE);
}

static int64_t
p_trailer_version(struct blob *x)
{
	st4(x, x->len - PCLN_FOOTER_SIZE, 2);
	return (int64_t)(x->len - PCLN_FOOTER_SIZE);
}

static int64_t
p_trailer_go12size(struct blob *x)
{
	uint64_t at = x->len - PCLN_FOOTER_SIZE + PCLN_FOOTER_GO12SIZE;
	st4(x, at, (uint32_t)x->len);
	return (int64_t)at;
}

static int64_t
p_trailer_dir(struct blob *x)
{
	uint64_t at = x->len - PCLN_FOOTER_SIZE + PCLN_FOOTER_DIROFF;
	st4(x, at, ld4(x, at) + 4);
	return (int64_t)at;
}

static int64_t
p_funcsize_len(struct blob *x)
{
	uint64_t dir = ld4(x, x->len - PCLN_FOOTER_SIZE + PCLN_FOOTER_DIROFF);
	st4(x, dir + PCLN_DIRENT_SIZEF, 4 * (SAMPLE_NFUNC + 1));
	return ld4(x, dir + PCLN_DIRENT_OFF);
}

static int64_t
p_trailer_pad(struct blob *x)
{
	/* 5 sizes of 4 bytes, then 4 bytes of padding to the directory. */
	uint64_t dir = ld4(x, x->len - PCLN_FOOTER_SIZE + PCLN_FOOTER_DIROFF);
	uint64_t pad = ld4(x, dir + PCLN_DIRENT_OFF) + 4 * SAMPLE_NFUNC;
	ck_assert_uint_eq(pad + 4, dir);
	x->b[pad + 1] = 1;
	return (int64_t)pad + 1;
}

static int64_t
p_sentinel_past(struct blob *x)
{
	uint64_t at = PCLN_FTAB_END(x->ps, SAMPLE_NFUNC);
	stp(x, at, ldp(x, at) + 4);
	return (int64_t)at;
}

static int64_t
p_funcsize_big(struct blob *x)
{
	/* util.compute (index 3) is 0x30 bytes with 0x10 of gap after. */
	uint64_t dir = ld4(x, x->len - PCLN_FOOTER_SIZE + PCLN_FOOTER_DIROFF);
	uint64_t fs = ld4(x, dir + PCLN_DIRENT_OFF);
	ck_assert_uint_eq(ld4(x, fs + 12), 0x30);
	st4(x, fs + 12, 0x41);
	return (int64_t)fs + 12;
}

static int64_t
p_funcsize_small(struct blob *x)
{
	/* Smaller than the tables: the table check names the pcsp field. */
	uint64_t dir = ld4(x, x->len - PCLN_FOOTER_SIZE + PCLN_FOOTER_DIROFF);
	uint64_t fs = ld4(x, dir + PCLN_DIRENT_OFF);
	st4(x, fs + 12, 0x2c);
	return -1;	/* somewhere inside util.compute's pcsp table */
}

static int64_t
p_checksum(struct blob *x)
{
	x->b[x->len - 16] ^= 1;
	return (int64_t)(x->len - PCLN_FOOTER_SIZE + PCLN_FOOTER_CHECKSUM);
}

static int64_t
p_checksum_name(struct blob *x)
{
	uint32_t name = ld4(x, FIELD(x, 0, PCLN_FUNC_NAMEOFF));
	ck_assert_str_eq((const char *)x->b + name, "main");
	x->b[name + 1] = 'b';
	return (int64_t)(x->len - PCLN_FOOTER_SIZE + PCLN_FOOTER_CHECKSUM);
}

static const struct {
	const char *what;
	int kind;
	patch_fn patch;
	int code;
	const char *msg;	/* a part of the message */
} cases[] = {
	{ "magic", G, p_magic, PCLN_EMAGIC, "expected 0xfffffffb" },
	{ "magic be", B, p_magic, PCLN_EMAGIC, "magic" },
	{ "pad", G, p_pad, PCLN_EHEADER, "pad byte" },
	{ "quantum", G, p_quantum, PCLN_EHEADER, "quantum 3" },
	{ "ptrsize", B, p_ptrsize, PCLN_EHEADER, "pointer size 2" },
	{ "nfunc", G, p_nfunc, PCLN_EHEADER, "nfunc" },
	{ "unsorted", G, p_unsorted, PCLN_EORDER, "not above previous" },
	{ "unsorted be", B, p_unsorted, PCLN_EORDER, "functab[2]" },
	{ "funcoff align", G, p_funcoff_align, PCLN_EFUNCTAB, "func offset" },
	{ "funcoff range", B, p_funcoff_range, PCLN_EFUNCTAB, "func offset" },
	{ "sentinel", G, p_sentinel, PCLN_EFUNCTAB, "sentinel" },
	{ "entry", G, p_entry, PCLN_EFUNC, "expected the functab entry" },
	{ "entry be", B, p_entry, PCLN_EFUNC, "entry" },
	{ "nameoff range", G, p_nameoff_range, PCLN_ESTRING, "name offset" },
	{ "nameoff unterminated", B, p_nameoff_unterminated, PCLN_ESTRING,
	    "NUL-terminated" },
	{ "npcdata", G, p_npcdata, PCLN_EFUNC, "npcdata" },
	{ "nfuncdata", B, p_nfuncdata_neg, PCLN_EFUNC, "nfuncdata -1" },
	{ "table offset", G, p_taboff, PCLN_EPCTAB, "pcsp offset" },
	{ "pcdata offset", G, p_pcdata_off, PCLN_EPCTAB, "pcdata[0] offset" },
	{ "table unterminated", B, p_tab_unterminated, PCLN_ETRUNC,
	    "runs off" },
	{ "table varint", G, p_tab_varint, PCLN_EVARINT, "overflows" },
	{ "table coverage", G, p_coverage, PCLN_EPCTAB, "covers" },
	{ "table past next", G, p_past_next, PCLN_EPCTAB, "runs past" },
	{ "pcfile value", G, p_pcfile, PCLN_EFILETAB, "file 4" },
	{ "pcfile value be", B, p_pcfile, PCLN_EFILETAB, "expected 1 to 3" },
	{ "filetab align", G, p_filetab_align, PCLN_EFILETAB, "4-aligned" },
	{ "filetab range", B, p_filetab_range, PCLN_EFILETAB, "file table" },
	{ "filetab nslots", G, p_filetab_nslots, PCLN_EFILETAB, "0 slots" },
	{ "filetab name", G, p_filetab_name, PCLN_ESTRING, "slot 2" },
	{ "trailer magic", T, p_trailer_magic, PCLN_ETRAILER, "PCLNTRLR" },
	{ "trailer version", T, p_trailer_version, PCLN_ETRAILER,
	    "version 2" },
	{ "trailer go12size", T, p_trailer_go12size, PCLN_ETRAILER,
	    "Go 1.2 size" },
	{ "trailer directory", T, p_trailer_dir, PCLN_ETRAILER, "directory" },
	{ "FUNCSIZE length", T, p_funcsize_len, PCLN_ETRAILER,
	    "6 sizes, expected nfunc = 5" },
	{ "trailer padding", T, p_trailer_pad, PCLN_ETRAILER, "padding" },
	{ "sentinel past the end", B, p_sentinel_past, PCLN_EFUNCTAB,
	    "the end of the last function" },
	{ "FUNCSIZE too big", T, p_funcsize_big, PCLN_EPCTAB, "next entry" },
	{ "FUNCSIZE too small", T, p_funcsize_small, PCLN_EPCTAB, "pcsp" },
	{ "checksum", T, p_checksum, PCLN_ECHECKSUM, "checksum" },
	{ "checksum name", T, p_checksum_name, PCLN_ECHECKSUM, "computed" },
};
#define NCASES (sizeof cases / sizeof cases[0])

START_TEST(test_corrupt)
{
	struct blob x;
	pcln_err err;
	int64_t off;

	make(&x, cases[_i].kind);
	ck_assert_int_eq(pcln_verify(x.b, x.len, &err), 0);
	off = cases[_i].patch(&x);
	ck_assert_msg(pcln_verify(x.b, x.len, &err) == -1, "%s: accepted",
	    cases[_i].what);
	ck_assert_msg(err.code == cases[_i].code, "%s: code %s, expected %s: "
	    "%s", cases[_i].what, pcln_strerror(err.code),
	    pcln_strerror(cases[_i].code), err.msg);
	if (off >= 0)
		ck_assert_msg(err.offset == off, "%s: offset 0x%llx, expected "
		    "0x%llx: %s", cases[_i].what, (long long)err.offset,
		    (long long)off, err.msg);
	ck_assert_msg(strstr(err.msg, cases[_i].msg) != NULL,
	    "%s: message \"%s\" lacks \"%s\"", cases[_i].what, err.msg,
	    cases[_i].msg);
	/* pcln_open refuses it with the same report. */
	ck_assert_ptr_null(pcln_open(x.b, x.len, 0, &err));
	ck_assert_int_eq(err.code, cases[_i].code);
	free(x.b);
}
END_TEST

START_TEST(test_trailing_bytes)
{
	struct blob x;
	pcln_err err;
	uint8_t *big;

	make(&x, G);
	big = calloc(1, x.len + 8);
	memcpy(big, x.b, x.len);
	ck_assert_int_eq(pcln_verify(big, x.len + 8, &err), -1);
	ck_assert_int_eq(err.code, PCLN_ETRAILER);
	ck_assert_int_eq(err.offset, (int64_t)x.len);
	ck_assert_ptr_nonnull(strstr(err.msg, "0x8 bytes after"));
	free(big);
	free(x.b);
}
END_TEST

/* Use every read API on T; the answers do not matter, only that nothing
 * crashes, hangs or reads outside the blob. */
static void
exercise(const pcln_table *t)
{
	pcln_info info;
	size_t i, n = pcln_nfunc(t);
	uint64_t pc;
	int tab;

	pcln_get_info(t, &info);
	for (i = 0; i < n; i++) {
		pcln_func f;
		pcln_get_func(t, i, &f);
		for (tab = -1; tab < 6; tab++) {
			pcln_rowiter it;
			pcln_row r;
			int k = 0;
			if (pcln_rows_begin(&it, t, i, tab) == 0)
				while (pcln_rows_next(&it, &r) == 1)
					ck_assert_int_lt(k++, 100000);
			pcln_table_offset(t, i, tab);
		}
		pcln_funcdata(t, i, 0);
		pcln_funcdata(t, i, 1);
	}
	for (i = 0; i <= pcln_nfile(t) + 1 && i < 8; i++)
		pcln_file_name(t, (uint32_t)i);
	for (pc = SAMPLE_BASE - 4; pc < SAMPLE_BASE + 0xe8; pc += 4) {
		pcln_loc loc;
		pcln_lookup(t, pc, &loc);
	}
	pcln_line_to_pcs(t, "main.c", 11, NULL, NULL);
}

START_TEST(test_truncated)
{
	struct blob x;
	pcln_info info;
	pcln_table *t;
	pcln_err err;
	size_t l, go12;

	make(&x, _i);
	t = pcln_open(x.b, x.len, 0, &err);
	ck_assert_ptr_nonnull(t);
	pcln_get_info(t, &info);
	go12 = info.go12size;
	pcln_close(t);
	for (l = 0; l < x.len; l++) {
		uint8_t *p = malloc(l ? l : 1);
		int rc;
		memcpy(p, x.b, l);
		rc = pcln_verify(p, l, &err);
		if (_i == T && l == go12) {
			/* Cut exactly at the trailer: plain Go 1.2. */
			ck_assert_msg(rc == 0, "len %zu: %s", l, err.msg);
		} else {
			ck_assert_msg(rc == -1, "truncated to %zu of %zu "
			    "bytes: accepted", l, x.len);
			ck_assert_int_ne(err.code, PCLN_OK);
			ck_assert_ptr_null(pcln_open(p, l, 0, &err));
		}
		if ((t = pcln_open(p, l, PCLN_OPEN_TRUSTED, &err)) != NULL) {
			exercise(t);
			pcln_close(t);
		}
		free(p);
	}
	free(x.b);
}
END_TEST

START_TEST(test_every_byte)
{
	static const uint8_t flips[] = { 0x01, 0x80, 0xff };
	struct blob x;
	size_t pos, k;
	pcln_err err;

	make(&x, _i);
	for (pos = 0; pos < x.len; pos++) {
		for (k = 0; k < sizeof flips; k++) {
			uint8_t *p = malloc(x.len);
			pcln_table *t;
			memcpy(p, x.b, x.len);
			p[pos] ^= flips[k];
			if (pcln_verify(p, x.len, &err) == 0) {
				t = pcln_open(p, x.len, 0, &err);
				ck_assert_ptr_nonnull(t);
				exercise(t);
				pcln_close(t);
			} else {
				ck_assert_int_ne(err.code, PCLN_OK);
				ck_assert_int_ne(err.msg[0], '\0');
			}
			if ((t = pcln_open(p, x.len, PCLN_OPEN_TRUSTED,
			    &err)) != NULL) {
				exercise(t);
				pcln_close(t);
			}
			free(p);
		}
	}
	free(x.b);
}
END_TEST

START_TEST(test_good)
{
	struct blob x;
	pcln_err err;

	make(&x, _i);
	ck_assert_int_eq(pcln_verify(x.b, x.len, &err), 0);
	ck_assert_int_eq(err.code, PCLN_OK);
	ck_assert_int_eq(pcln_verify(NULL, 0, &err), -1);
	ck_assert_int_eq(err.code, PCLN_EINVAL);
	ck_assert_int_eq(pcln_verify(x.b, x.len, NULL), 0);
	free(x.b);
}
END_TEST

Suite *
verify_suite(void)
{
	Suite *s = suite_create("verify");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_good, 0, 3);
	suite_add_tcase(s, tc);
	tc = tcase_create("errors");
	tcase_add_loop_test(tc, test_corrupt, 0, NCASES);
	tcase_add_test(tc, test_trailing_bytes);
	tcase_add_loop_test(tc, test_truncated, 0, 3);
	suite_add_tcase(s, tc);
	tc = tcase_create("robustness");
	tcase_add_loop_test(tc, test_every_byte, 0, 3);
	suite_add_tcase(s, tc);
	return s;
}
