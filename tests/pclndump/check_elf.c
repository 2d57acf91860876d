/* check_elf.c -- the ELF section finder (lib/elf/elf.c): ELF32/ELF64, both
 * byte orders, extended section numbering, and every malformation it
 * reports, with its error code and byte offset.  Images are made here by
 * a small writer (elf_make), then damaged field by field. */
#include <config.h>

#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pcln.h"
#include "pcln_elf.h"

#define MAXIMG 4096

struct sect {
	const char *name;
	uint32_t type;		/* 1 PROGBITS, 8 NOBITS */
	uint64_t addr;
	const char *data;	/* bytes (a string, without its NUL) */
};

/* An image: layout recorded so tests can damage fields. */
struct img {
	uint8_t b[MAXIMG];
	size_t len;
	int c64, big;
	size_t shoff, shentsize, nsect;	/* including the null section */
	size_t stroff, strsize;
};

static void
put(struct img *m, size_t off, uint64_t v, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		int sh = m->big ? 8 * (n - 1 - i) : 8 * i;
		m->b[off + (size_t)i] = (uint8_t)(v >> sh);
	}
}

/* Offset of field F of section header I: F is the ELF64 offset; the
 * ELF32 one is derived. */
static size_t
shfield(const struct img *m, size_t i, int f64, int f32)
{
	return m->shoff + i * m->shentsize + (size_t)(m->c64 ? f64 : f32);
}

/* Build an ELF image with sections S[0..N) plus .shstrtab; EXTENDED
 * writes e_shnum 0 / e_shstrndx SHN_XINDEX with the real values in
 * section 0. */
static void
elf_make(struct img *m, int c64, int big, const struct sect *s, size_t n,
    int extended)
{
	size_t ehsize = c64 ? 64 : 52, off, i, nameoff[16], strname;
	int w = c64 ? 8 : 4;

	memset(m, 0, sizeof *m);
	m->c64 = c64;
	m->big = big;
	memcpy(m->b, "\177ELF", 4);
	m->b[4] = c64 ? 2 : 1;
	m->b[5] = big ? 2 : 1;
	m->b[6] = 1;
	put(m, 16, 1, 2);		/* e_type ET_REL */
	put(m, 18, c64 ? 62 : 3, 2);	/* e_machine */
	put(m, 20, 1, 4);		/* e_version */
	off = ehsize;
	/* Section data. */
	for (i = 0; i < n; i++) {
		if (s[i].type == 8)
			continue;
		memcpy(m->b + off, s[i].data, strlen(s[i].data));
		off += strlen(s[i].data);
	}
	/* Section-name table. */
	m->stroff = off;
	m->b[off++] = 0;
	for (i = 0; i < n; i++) {
		nameoff[i] = off - m->stroff;
		memcpy(m->b + off, s[i].name, strlen(s[i].name) + 1);
		off += strlen(s[i].name) + 1;
	}
	strname = off - m->stroff;
	memcpy(m->b + off, ".shstrtab", 10);
	off += 10;
	m->strsize = off - m->stroff;
	off = (off + 7) & ~(size_t)7;
	/* Section headers: null, S..., .shstrtab. */
	m->shoff = off;
	m->shentsize = c64 ? 64 : 40;
	m->nsect = n + 2;
	m->len = off + m->nsect * m->shentsize;
	ck_assert_uint_le(m->len, MAXIMG);
	{
		size_t dataoff = ehsize;
		for (i = 0; i < n; i++) {
			size_t h = i + 1;
			put(m, shfield(m, h, 0, 0), nameoff[i], 4);
			put(m, shfield(m, h, 4, 4), s[i].type, 4);
			put(m, shfield(m, h, 16, 12), s[i].addr, w);
			put(m, shfield(m, h, 24, 16), dataoff, w);
			put(m, shfield(m, h, 32, 20), strlen(s[i].data), w);
			if (s[i].type != 8)
				dataoff += strlen(s[i].data);
		}
	}
	put(m, shfield(m, n + 1, 0, 0), strname, 4);
	put(m, shfield(m, n + 1, 4, 4), 3, 4);	/* SHT_STRTAB */
	put(m, shfield(m, n + 1, 24, 16), m->stroff, w);
	put(m, shfield(m, n + 1, 32, 20), m->strsize, w);
	/* ELF header: e_shoff, e_ehsize, e_shentsize, e_shnum, e_shstrndx. */
	put(m, c64 ? 40 : 32, m->shoff, w);
	put(m, c64 ? 52 : 40, ehsize, 2);
	put(m, c64 ? 58 : 46, m->shentsize, 2);
	if (extended) {
		put(m, c64 ? 60 : 48, 0, 2);
		put(m, c64 ? 62 : 50, 0xffff, 2);
		put(m, shfield(m, 0, 32, 20), m->nsect, w);	/* sh_size */
		put(m, shfield(m, 0, 40, 24), n + 1, 4);	/* sh_link */
	} else {
		put(m, c64 ? 60 : 48, m->nsect, 2);
		put(m, c64 ? 62 : 50, n + 1, 2);
	}
}

static const struct sect two[] = {
	{ ".text", 1, 0x1000, "CODECODE" },
	{ ".pcln", 1, 0x2000, "BLOB-BYTES" },
};

/* The four classes and byte orders, plain and with extended numbering:
 * the image's identity and both sections come back exactly. */
START_TEST(test_find)
{
	int c64 = _i & 1, big = (_i >> 1) & 1, ext = (_i >> 2) & 1;
	struct img m;
	pcln_elf_info info;
	pcln_elf_section sec;
	pcln_err err;

	elf_make(&m, c64, big, two, 2, ext);
	ck_assert_int_eq(pcln_elf_is_elf(m.b, m.len), 1);
	ck_assert_int_eq(pcln_elf_get_info(m.b, m.len, &info, &err), 0);
	ck_assert_uint_eq(info.elfclass, c64 ? 64 : 32);
	ck_assert_int_eq(info.bigendian, big);
	ck_assert_uint_eq(info.machine, c64 ? 62 : 3);
	ck_assert_uint_eq(info.type, 1);
	ck_assert_uint_eq(info.nsections, 4);

	ck_assert_int_eq(pcln_elf_find_section(m.b, m.len, ".text", &sec,
	    &err), 1);
	ck_assert_str_eq(sec.name, ".text");
	ck_assert_uint_eq(sec.index, 1);
	ck_assert_uint_eq(sec.addr, 0x1000);
	ck_assert_uint_eq(sec.offset, c64 ? 64 : 52);
	ck_assert_uint_eq(sec.size, 8);
	ck_assert_int_eq(memcmp(sec.data, "CODECODE", 8), 0);

	ck_assert_int_eq(pcln_elf_find_pcln(m.b, m.len, &sec, &err), 1);
	ck_assert_str_eq(sec.name, ".pcln");
	ck_assert_uint_eq(sec.index, 2);
	ck_assert_uint_eq(sec.addr, 0x2000);
	ck_assert_uint_eq(sec.size, 10);
	ck_assert_ptr_eq(sec.data, m.b + (c64 ? 64 : 52) + 8);

	ck_assert_int_eq(pcln_elf_find_section(m.b, m.len, ".data", &sec,
	    &err), 0);
	ck_assert_int_eq(pcln_elf_find_section(m.b, m.len, ".pcl", &sec,
	    &err), 0);
	ck_assert_int_eq(pcln_elf_get_section(m.b, m.len, 3, &sec, &err), 0);
	ck_assert_str_eq(sec.name, ".shstrtab");
	ck_assert_int_eq(pcln_elf_get_section(m.b, m.len, 4, &sec, &err), -1);
	ck_assert_int_eq(err.code, PCLN_EINVAL);
}
END_TEST

/* .pcln wins over .gopclntab; .gopclntab alone is found; neither is 0. */
START_TEST(test_find_pcln_order)
{
	static const struct sect both[] = {
		{ ".gopclntab", 1, 0, "GO" },
		{ ".pcln", 1, 0, "PCLN" },
	};
	static const struct sect go[] = { { ".gopclntab", 1, 0, "GO" } };
	struct img m;
	pcln_elf_section sec;
	pcln_err err;

	elf_make(&m, 1, 0, both, 2, 0);
	ck_assert_int_eq(pcln_elf_find_pcln(m.b, m.len, &sec, &err), 1);
	ck_assert_str_eq(sec.name, ".pcln");
	elf_make(&m, 0, 1, go, 1, 0);
	ck_assert_int_eq(pcln_elf_find_pcln(m.b, m.len, &sec, &err), 1);
	ck_assert_str_eq(sec.name, ".gopclntab");
	ck_assert_uint_eq(sec.size, 2);
	elf_make(&m, 0, 1, two, 1, 0);
	ck_assert_int_eq(pcln_elf_find_pcln(m.b, m.len, &sec, &err), 0);
}
END_TEST

/* A damage to apply and the error it must give. */
struct fault {
	const char *what;
	int field;		/* see damage() */
	uint64_t value;
	int code;
	int64_t offset;		/* -2: the section header table offset */
};

enum {
	F_LEN,			/* truncate the image to VALUE bytes */
	F_CLASS, F_DATA, F_VERSION,
	F_SHOFF, F_SHENTSIZE, F_SHNUM, F_SHSTRNDX,
	F_PCLN_NAME, F_PCLN_OFFSET, F_PCLN_SIZE, F_PCLN_TYPE,
	F_STR_SIZE, F_STR_TYPE, F_STR_NUL
};

static void
damage(struct img *m, int field, uint64_t v)
{
	int w = m->c64 ? 8 : 4;

	switch (field) {
	case F_LEN: m->len = (size_t)v; break;
	case F_CLASS: m->b[4] = (uint8_t)v; break;
	case F_DATA: m->b[5] = (uint8_t)v; break;
	case F_VERSION: m->b[6] = (uint8_t)v; break;
	case F_SHOFF: put(m, m->c64 ? 40 : 32, v, w); break;
	case F_SHENTSIZE: put(m, m->c64 ? 58 : 46, v, 2); break;
	case F_SHNUM: put(m, m->c64 ? 60 : 48, v, 2); break;
	case F_SHSTRNDX: put(m, m->c64 ? 62 : 50, v, 2); break;
	case F_PCLN_NAME: put(m, shfield(m, 2, 0, 0), v, 4); break;
	case F_PCLN_OFFSET: put(m, shfield(m, 2, 24, 16), v, w); break;
	case F_PCLN_SIZE: put(m, shfield(m, 2, 32, 20), v, w); break;
	case F_PCLN_TYPE: put(m, shfield(m, 2, 4, 4), v, 4); break;
	case F_STR_SIZE: put(m, shfield(m, 3, 32, 20), v, w); break;
	case F_STR_TYPE: put(m, shfield(m, 3, 4, 4), v, 4); break;
	case F_STR_NUL:
		/* The table's last byte (the NUL of ".shstrtab") is lost. */
		m->b[m->stroff + m->strsize - 1] = 'x';
		break;
	}
}

static const struct fault faults[] = {
	{ "ident truncated", F_LEN, 10, PCLN_ETRUNC, 10 },
	{ "class 3", F_CLASS, 3, PCLN_EHEADER, 4 },
	{ "class 0", F_CLASS, 0, PCLN_EHEADER, 4 },
	{ "data 3", F_DATA, 3, PCLN_EHEADER, 5 },
	{ "version 2", F_VERSION, 2, PCLN_EHEADER, 6 },
	{ "header truncated", F_LEN, 40, PCLN_ETRUNC, 40 },
	{ "no section headers", F_SHOFF, 0, PCLN_EHEADER, -3 },
	{ "shoff past end", F_SHOFF, 0x100000, PCLN_ETRUNC, 0x100000 },
	{ "shoff huge", F_SHOFF, 0xfffffff0, PCLN_ETRUNC, 0xfffffff0 },
	{ "shentsize", F_SHENTSIZE, 12, PCLN_EHEADER, -4 },
	{ "table cut", F_LEN, (uint64_t)-1, PCLN_ETRUNC, -2 },
	{ "shnum too big", F_SHNUM, 200, PCLN_ETRUNC, -2 },
	{ "shstrndx 0", F_SHSTRNDX, 0, PCLN_EHEADER, -5 },
	{ "shstrndx beyond", F_SHSTRNDX, 4, PCLN_EHEADER, -5 },
	{ "strtab beyond", F_STR_SIZE, 0x10000, PCLN_ETRUNC, -6 },
	{ "strtab nobits", F_STR_TYPE, 8, PCLN_ETRUNC, -6 },
	{ "data beyond", F_PCLN_OFFSET, 0x10000, PCLN_ETRUNC, 0x10000 },
	{ "size beyond", F_PCLN_SIZE, 0x10000, PCLN_ETRUNC, -7 },
	{ "nobits", F_PCLN_TYPE, 8, PCLN_EUNSUPPORTED, -1 },
};

/* Each fault, in each class and byte order, gives its code and offset
 * from pcln_elf_find_pcln (and never reads outside the image: the image
 * is copied to a buffer of exactly its length, for ASan). */
START_TEST(test_fault)
{
	const struct fault *f = &faults[_i / 4];
	int c64 = _i & 1, big = (_i >> 1) & 1;
	struct img m;
	pcln_elf_section sec;
	pcln_err err;
	uint8_t *copy;
	int64_t want;
	int rc;

	elf_make(&m, c64, big, two, 2, 0);
	if (f->field == F_LEN && f->value == (uint64_t)-1)
		damage(&m, F_LEN, m.len - 1);
	else
		damage(&m, f->field, f->value);
	if (f->field == F_SHOFF && f->value == 0xfffffff0 && c64)
		put(&m, 40, 0xfffffffffffffff0u, 8);
	copy = malloc(m.len ? m.len : 1);
	ck_assert_ptr_nonnull(copy);
	memcpy(copy, m.b, m.len);
	memset(&err, 0, sizeof err);
	rc = pcln_elf_find_pcln(copy, m.len, &sec, &err);
	ck_assert_msg(rc == -1, "%s: rc %d", f->what, rc);
	ck_assert_msg(err.code == f->code, "%s: code %d (%s), want %d: %s",
	    f->what, err.code, pcln_strerror(err.code), f->code, err.msg);
	switch (f->offset) {
	case -2: want = (int64_t)m.shoff; break;
	case -3: want = c64 ? 40 : 32; break;
	case -4: want = c64 ? 58 : 46; break;
	case -5: want = c64 ? 62 : 50; break;
	case -6: want = (int64_t)m.stroff; break;
	case -7: want = c64 ? 72 : 60; break;	/* .pcln data offset */
	default: want = f->offset; break;
	}
	if (f->field == F_SHOFF && f->value == 0xfffffff0 && c64)
		want = (int64_t)0xfffffffffffffff0u;
	ck_assert_msg(err.offset == want, "%s: offset %lld, want %lld: %s",
	    f->what, (long long)err.offset, (long long)want, err.msg);
	ck_assert_uint_gt(strlen(err.msg), 10);
	free(copy);
}
END_TEST

/* A name with no NUL before the end of the string table; a name offset
 * beyond it: both in the section looked for, so both are reported. */
START_TEST(test_bad_names)
{
	struct img m;
	pcln_elf_section sec;
	pcln_err err;

	elf_make(&m, 1, 0, two, 2, 0);
	damage(&m, F_PCLN_NAME, 0x5000);
	ck_assert_int_eq(pcln_elf_get_section(m.b, m.len, 2, &sec, &err), -1);
	ck_assert_int_eq(err.code, PCLN_ESTRING);
	ck_assert_int_eq(err.offset, (int64_t)shfield(&m, 2, 0, 0));
	/* Looking for a name skips a header it cannot name. */
	ck_assert_int_eq(pcln_elf_find_section(m.b, m.len, ".text", &sec,
	    &err), 1);

	elf_make(&m, 0, 1, two, 2, 0);
	damage(&m, F_STR_NUL, 0);
	ck_assert_int_eq(pcln_elf_get_section(m.b, m.len, 3, &sec, &err), -1);
	ck_assert_int_eq(err.code, PCLN_ESTRING);
}
END_TEST

/* Not ELF at all, and empty input. */
START_TEST(test_not_elf)
{
	static const uint8_t junk[] = "not an ELF file at all.........";
	pcln_elf_info info;
	pcln_err err;

	ck_assert_int_eq(pcln_elf_is_elf(junk, sizeof junk), 0);
	ck_assert_int_eq(pcln_elf_is_elf(junk, 0), 0);
	ck_assert_int_eq(pcln_elf_is_elf((const uint8_t *)"\177EL", 3), 0);
	ck_assert_int_eq(pcln_elf_get_info(junk, sizeof junk, &info, &err),
	    -1);
	ck_assert_int_eq(err.code, PCLN_EMAGIC);
	ck_assert_int_eq(err.offset, 0);
}
END_TEST

/* Every truncation of a valid image fails cleanly (ASan checks the
 * reads): the section headers are at the end. */
START_TEST(test_every_cut)
{
	struct img m;
	pcln_elf_section sec;
	pcln_err err;
	size_t n;

	elf_make(&m, _i & 1, (_i >> 1) & 1, two, 2, 0);
	for (n = 0; n < m.len; n++) {
		uint8_t *copy = malloc(n ? n : 1);
		ck_assert_ptr_nonnull(copy);
		memcpy(copy, m.b, n);
		ck_assert_int_eq(pcln_elf_find_pcln(copy, n, &sec, &err), -1);
		free(copy);
	}
	ck_assert_int_eq(pcln_elf_find_pcln(m.b, m.len, &sec, &err), 1);
}
END_TEST

static Suite *
elf_suite(void)
{
	Suite *s = suite_create("elf");
	TCase *tc;

	tc = tcase_create("core");
	tcase_add_loop_test(tc, test_find, 0, 8);
	tcase_add_test(tc, test_find_pcln_order);
	suite_add_tcase(s, tc);
	tc = tcase_create("errors");
	tcase_add_loop_test(tc, test_fault, 0,
	    (int)(4 * (sizeof faults / sizeof faults[0])));
	tcase_add_test(tc, test_bad_names);
	tcase_add_test(tc, test_not_elf);
	tcase_add_loop_test(tc, test_every_cut, 0, 4);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(elf_suite());
	int nfail;

	srunner_run_all(sr, CK_NORMAL);
	nfail = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nfail == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
