/* check_perfsyms.c -- lib/perf's kernel symbol tables: a sorted view
 * (pcln_perf_syms_sorted over pcln_perf_syms_sorted_text) answers every
 * address as the parsed kallsyms it was written from, and damage to the
 * text is refused.
 *
 * The kallsyms texts are made here: aliases at one address (perf's
 * choice of name), module symbols ("name\t[mod]"), data symbols (not
 * kept), lines that do not parse, lines out of order; and 3,000 random
 * symbols.  Every symbol's start, the bytes around it, the gaps, 0 and
 * past the last symbol are looked up in both.
 */
#define _GNU_SOURCE 1	/* dladdr */
#include <check.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pcln_elf.h"
#include "pcln_perf.h"

static const char small[] =
    "ffffffff81000000 T _text\n"
    "ffffffff81000000 T startup_64\n"
    "ffffffff81000000 t __startup_64\n"
    "ffffffff81000100 W weak_one\n"
    "ffffffff81000100 T strong_one\n"
    "ffffffff81000200 d some_data\n"
    "ffffffff81000300 t a_local\n"
    "not a line\n"
    "ffffffff81000250 T out_of_order\n"
    "ffffffff81000400 T x\n"
    "ffffffff81000400 T longer_name\n"
    "ffffffffc0000000 t mod_fn\t[kvm]\n"
    "ffffffffc0000100 T mod_fn2\t[kvm_intel]\n"
    "ffffffffc0000200 T no_module\tnot-a-module\n";

static uint64_t
lcg(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return *s >> 11;
}

/* Both answer ADDR alike. */
static void
same(const pcln_perf_syms *a, const pcln_perf_syms *b, uint64_t addr)
{
	uint64_t sa = 1, sb = 2;
	const char *ma = "x", *mb = "y";
	const char *na = pcln_perf_syms_find(a, addr, &sa, &ma);
	const char *nb = pcln_perf_syms_find(b, addr, &sb, &mb);

	if (na == NULL || nb == NULL) {
		ck_assert_msg(na == nb, "%#llx: %s vs %s",
		    (unsigned long long)addr, na ? na : "-", nb ? nb : "-");
		return;
	}
	ck_assert_str_eq(na, nb);
	ck_assert_uint_eq(sa, sb);
	if (ma == NULL || mb == NULL)
		ck_assert_ptr_eq(ma, mb);
	else
		ck_assert_str_eq(ma, mb);
}

/* Parse TEXT, write it sorted, view that; compare at many addresses;
 * refuse damaged copies. */
static void
roundtrip(const char *text, size_t len, uint64_t seed)
{
	pcln_err err;
	pcln_perf_syms *p = pcln_perf_syms_kallsyms(text, len, &err), *v;
	char *out;
	size_t n, i;
	uint64_t a;

	ck_assert_ptr_nonnull(p);
	out = pcln_perf_syms_sorted_text(p, &n, &err);
	ck_assert_ptr_nonnull(out);
	v = pcln_perf_syms_sorted(out, n, &err);
	ck_assert_msg(v != NULL, "%s", err.msg);
	ck_assert_uint_eq(pcln_perf_syms_count(v), pcln_perf_syms_count(p));
	/* A view is no parsed table: it is not written again. */
	ck_assert_ptr_null(pcln_perf_syms_sorted_text(v, &i, &err));
	same(p, v, 0);
	same(p, v, UINT64_MAX);
	for (i = 0; i < len; i++) {
		/* each line's address, and around it */
		if (i > 0 && text[i - 1] != '\n')
			continue;
		a = strtoull(text + i, NULL, 16);
		same(p, v, a);
		same(p, v, a - 1);
		same(p, v, a + 1);
		same(p, v, a + 0xfffff);
		same(p, v, a + 0x100000);
		same(p, v, a + 0x100001);
	}
	for (i = 0; i < 20000; i++) {
		a = 0xffffffff81000000ull + lcg(&seed) % 0x3f000000ull;
		same(p, v, a);
	}
	/* Twice: the view's copied names are found again. */
	same(p, v, 0xffffffff81000000ull);
	pcln_perf_syms_free(v);
	/* Damage: a byte of the body, the header, the length. */
	{
		char *d = malloc(n);
		pcln_err e2;

		ck_assert_ptr_nonnull(d);
		memcpy(d, out, n);
		d[n - 2] ^= 1;
		ck_assert_ptr_null(pcln_perf_syms_sorted(d, n, &e2));
		ck_assert_int_eq(e2.code, PCLN_ECHECKSUM);
		/* Unchecked, the hash is not read: the same bytes make a
		 * view (whose finds stay bounded), the right ones answer as
		 * the parsed table does, and a wrong length is still
		 * refused. */
		v = pcln_perf_syms_sorted_unchecked(d, n, &e2);
		ck_assert_ptr_nonnull(v);
		(void)pcln_perf_syms_find(v, UINT64_MAX, NULL, NULL);
		pcln_perf_syms_free(v);
		memcpy(d, out, n);
		v = pcln_perf_syms_sorted_unchecked(d, n, &e2);
		ck_assert_ptr_nonnull(v);
		same(p, v, 0xffffffff81000000ull);
		pcln_perf_syms_free(v);
		ck_assert_ptr_null(pcln_perf_syms_sorted_unchecked(d, n - 1,
		    &e2));
		ck_assert_ptr_null(pcln_perf_syms_sorted(d, n - 1, &e2));
		ck_assert_int_eq(e2.code, PCLN_ECHECKSUM);
		d[2] = 'q';
		ck_assert_ptr_null(pcln_perf_syms_sorted(d, n, &e2));
		ck_assert_int_eq(e2.code, PCLN_EHEADER);
		memcpy(d, out, n);
		d[30] = 'z';
		ck_assert_ptr_null(pcln_perf_syms_sorted(d, n, &e2));
		ck_assert_int_eq(e2.code, PCLN_EHEADER);
		ck_assert_ptr_null(pcln_perf_syms_sorted(d, 10, &e2));
		/* Raw kallsyms is no sorted text. */
		ck_assert_ptr_null(pcln_perf_syms_sorted(text, len, &e2));
		free(d);
	}
	free(out);
	pcln_perf_syms_free(p);
}

START_TEST(test_small)
{
	pcln_err err;
	pcln_perf_syms *p;
	uint64_t start;
	const char *mod;

	/* What the parsed table answers (the view must answer the same). */
	p = pcln_perf_syms_kallsyms(small, sizeof small - 1, &err);
	ck_assert_ptr_nonnull(p);
	ck_assert_str_eq(pcln_perf_syms_find(p, 0xffffffff81000010ull,
	    &start, &mod), "startup_64");
	ck_assert_uint_eq(start, 0xffffffff81000000ull);
	ck_assert_ptr_null(mod);
	ck_assert_str_eq(pcln_perf_syms_find(p, 0xffffffff81000100ull, NULL,
	    NULL), "strong_one");
	ck_assert_str_eq(pcln_perf_syms_find(p, 0xffffffff81000260ull, NULL,
	    NULL), "out_of_order");
	ck_assert_str_eq(pcln_perf_syms_find(p, 0xffffffff81000400ull, NULL,
	    NULL), "longer_name");
	ck_assert_str_eq(pcln_perf_syms_find(p, 0xffffffffc0000150ull, NULL,
	    &mod), "mod_fn2");
	ck_assert_str_eq(mod, "[kvm_intel]");
	pcln_perf_syms_free(p);
	roundtrip(small, sizeof small - 1, 1);
}
END_TEST

START_TEST(test_random)
{
	static const char types[] = "tTwWdb";
	uint64_t seed = 7, a = 0xffffffff81000000ull;
	size_t cap = 3000 * 64, n = 0;
	char *t = malloc(cap);
	int i;

	ck_assert_ptr_nonnull(t);
	for (i = 0; i < 3000; i++) {
		uint64_t r = lcg(&seed);

		if (r % 7 != 0)		/* aliases: the same address */
			a += 1 + r % 0x400;
		n += (size_t)snprintf(t + n, cap - n, "%016llx %c f%d_%s%s\n",
		    (unsigned long long)a, types[r % 6], i,
		    r % 3 ? "" : "__x", r % 11 ? "" : "\t[m]");
	}
	roundtrip(t, n, 3);
	free(t);
}
END_TEST

/* Is GOT a right name for an IFUNC's PLT entry, objdump's
 * "*ABS*+0xADDR@plt" (ABS)?  NAME@plt for one of the IFUNCs at ADDR
 * (nm -D: "ADDR i NAME@@VERSION"; aliases, any of them), else ABS. */
static int
ifunc_ok(const char *file, unsigned long long addr, const char *abs,
    const char *got)
{
	char cmd[4200], line[512], name[300], type;
	unsigned long long a;
	int any = 0, ok = 0;
	FILE *f;

	snprintf(cmd, sizeof cmd, "nm -D --defined-only '%s'", file);
	ck_assert_ptr_nonnull(f = popen(cmd, "r"));
	while (fgets(line, sizeof line, f) != NULL)
		if (sscanf(line, "%llx %c %299s", &a, &type, name) == 3 &&
		    a == addr && type == 'i') {
			size_t n = strcspn(name, "@");

			any = 1;
			ok |= strncmp(got, name, n) == 0 &&
			    strcmp(got + n, "@plt") == 0;
		}
	(void)pclose(f);
	return any ? ok : strcmp(got, abs) == 0;
}

/* FILE read whole (malloc'ed), its length in *LEN. */
static uint8_t *
read_whole(const char *file, size_t *lenp)
{
	size_t len = 0, cap = 1 << 20, r;
	uint8_t *img;
	FILE *f;

	ck_assert_ptr_nonnull(f = fopen(file, "rb"));
	ck_assert_ptr_nonnull(img = malloc(cap));
	while ((r = fread(img + len, 1, cap - len, f)) > 0)
		if ((len += r) == cap)
			ck_assert_ptr_nonnull(img = realloc(img, cap *= 2));
	fclose(f);
	*lenp = len;
	return img;
}

/* The PLT stubs of FILE, against objdump's labels
 * ("0000000000001030 <memcpy@plt>:"): every one found by address with
 * the same name, and as many of them; LAZY: from
 * pcln_perf_syms_plt_lazy. */
static void
plt_against_objdump(const char *file, int lazy)
{
	char cmd[4200], line[512];
	int sec;
	FILE *f;
	uint8_t *img;
	size_t len = 0, seen = 0;
	pcln_perf_syms *p;
	pcln_err err;

	img = read_whole(file, &len);
	p = lazy ? pcln_perf_syms_plt_lazy(img, len, &err) :
	    pcln_perf_syms_plt(img, len, &err);
	ck_assert_msg(p != NULL, "%s: %s", file, err.msg);
	/* .plt.sec with IBT (-fcf-protection), else .plt. */
	for (sec = 0; sec < 2 && seen == 0; sec++) {
		snprintf(cmd, sizeof cmd, "objdump -d -j %s '%s' 2>/dev/null",
		    sec == 0 ? ".plt.sec" : ".plt", file);
		ck_assert_ptr_nonnull(f = popen(cmd, "r"));
		while (fgets(line, sizeof line, f) != NULL) {
			unsigned long long a;
			char name[400];
			const char *got;
			uint64_t start = 0;

			if (sscanf(line, "%llx <%399[^>]>:", &a, name) != 2 ||
			    strlen(name) < 4 ||
			    strcmp(name + strlen(name) - 4, "@plt") != 0)
				continue;	/* also <x@plt-0x10>, PLT0 */
			seen++;
			got = pcln_perf_syms_find(p, a, &start, NULL);
			ck_assert_msg(got != NULL && start == a &&
			    (strncmp(name, "*ABS*+0x", 8) == 0 ?
			    ifunc_ok(file, strtoull(name + 8, NULL, 16), name,
			    got) : strcmp(got, name) == 0),
			    "%s: 0x%llx: objdump says %s, pcln %s", file, a,
			    name, got != NULL ? got : "(none)");
			got = pcln_perf_syms_find(p, a + 15, &start, NULL);
			ck_assert_msg(got != NULL && start == a, "0x%llx + 15",
			    a);
		}
		(void)pclose(f);	/* 1 where there is no such section */
	}
	ck_assert_uint_gt(seen, 0);
	ck_assert_uint_eq(pcln_perf_syms_count(p), seen);
	pcln_perf_syms_free(p);
	free(img);
}

START_TEST(test_plt)
{
	char exe[4096];
	ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
	Dl_info di;
	pcln_err err;

	ck_assert_int_gt(k, 0);
	exe[k] = '\0';
	plt_against_objdump(exe, 0);
	plt_against_objdump(exe, 1);
	/* libc: its IFUNCs' entries. */
	ck_assert_int_ne(dladdr((void *)(uintptr_t)printf, &di), 0);
	plt_against_objdump(di.dli_fname, 0);
	plt_against_objdump(di.dli_fname, 1);
	/* Not ELF: none. */
	ck_assert_ptr_null(pcln_perf_syms_plt((const uint8_t *)"not elf", 7,
	    &err));
	ck_assert_int_eq(err.code, PCLN_ENOTFOUND);
	ck_assert_ptr_null(pcln_perf_syms_plt_lazy((const uint8_t *)"not elf",
	    7, &err));
	ck_assert_int_eq(err.code, PCLN_ENOTFOUND);
}
END_TEST

/* A lazy table reads the entries at its first lookup in the PLT, not
 * before and not for a lookup elsewhere: relocations wiped after it was
 * made, and after a lookup outside the PLT, leave it naming nothing;
 * the table made at once still names them. */
START_TEST(test_plt_lazy)
{
	char exe[4096];
	ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
	pcln_elf_section rela, plt;
	pcln_perf_syms *now, *later;
	pcln_err err;
	uint8_t *img;
	size_t len = 0;
	uint64_t at;

	ck_assert_int_gt(k, 0);
	exe[k] = '\0';
	img = read_whole(exe, &len);
	ck_assert_ptr_nonnull(now = pcln_perf_syms_plt(img, len, &err));
	ck_assert_ptr_nonnull(later = pcln_perf_syms_plt_lazy(img, len, &err));
	ck_assert_int_eq(pcln_elf_find_section(img, len, ".rela.plt", &rela,
	    &err), 1);
	ck_assert_int_eq(pcln_elf_find_section(img, len, ".plt.sec", &plt,
	    &err) == 1 ? 1 : pcln_elf_find_section(img, len, ".plt", &plt,
	    &err), 1);
	at = plt.addr + plt.size - 16;	/* the last entry */
	ck_assert_ptr_nonnull(pcln_perf_syms_find(now, at, NULL, NULL));
	ck_assert_ptr_null(pcln_perf_syms_find(later, plt.addr - 1, NULL,
	    NULL));
	ck_assert_ptr_null(pcln_perf_syms_find(later, plt.addr + plt.size,
	    NULL, NULL));
	memset(img + (rela.data - img), 0, (size_t)rela.size);
	ck_assert_ptr_null(pcln_perf_syms_find(later, at, NULL, NULL));
	ck_assert_uint_eq(pcln_perf_syms_count(later), 0);
	ck_assert_ptr_nonnull(pcln_perf_syms_find(now, at, NULL, NULL));
	pcln_perf_syms_free(now);
	pcln_perf_syms_free(later);
	free(img);
}
END_TEST

/* A lazy table names an entry at its first lookup, from that entry's
 * relocation alone: the relocations wiped after one lookup leave that
 * entry named (as before, and as the table made at once names it) and
 * every other one unnamed; the image's other relocations were not
 * read. */
START_TEST(test_plt_per_entry)
{
	char exe[4096];
	ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
	pcln_elf_section rela, plt;
	pcln_perf_syms *now, *later;
	const char *a, *b;
	uint64_t at, start = 0, first, e, named = 0;
	pcln_err err;
	uint8_t *img;
	size_t len = 0;

	ck_assert_int_gt(k, 0);
	exe[k] = '\0';
	img = read_whole(exe, &len);
	ck_assert_ptr_nonnull(now = pcln_perf_syms_plt(img, len, &err));
	ck_assert_ptr_nonnull(later = pcln_perf_syms_plt_lazy(img, len, &err));
	ck_assert_int_eq(pcln_elf_find_section(img, len, ".rela.plt", &rela,
	    &err), 1);
	first = pcln_elf_find_section(img, len, ".plt.sec", &plt, &err) == 1 ?
	    0 : 1;
	if (first == 1)
		ck_assert_int_eq(pcln_elf_find_section(img, len, ".plt", &plt,
		    &err), 1);
	ck_assert_uint_ge(plt.size / 16, first + 2);	/* two entries */
	at = plt.addr + plt.size - 16;
	ck_assert_ptr_nonnull(a = pcln_perf_syms_find(now, at + 3, NULL,
	    NULL));
	ck_assert_ptr_nonnull(b = pcln_perf_syms_find(later, at + 3, &start,
	    NULL));
	ck_assert_str_eq(a, b);
	ck_assert_uint_eq(start, at);
	memset(img + (rela.data - img), 0, (size_t)rela.size);
	ck_assert_ptr_eq(pcln_perf_syms_find(later, at, NULL, NULL), b);
	for (e = first; e < plt.size / 16; e++) {
		const char *n = pcln_perf_syms_find(later, plt.addr + 16 * e,
		    NULL, NULL);

		named += n != NULL;
		ck_assert(n == NULL || plt.addr + 16 * e == at);
		ck_assert_ptr_nonnull(pcln_perf_syms_find(now,
		    plt.addr + 16 * e, NULL, NULL));
	}
	ck_assert_uint_eq(named, 1);
	ck_assert_uint_eq(pcln_perf_syms_count(later), 1);
	pcln_perf_syms_free(now);
	pcln_perf_syms_free(later);
	free(img);
}
END_TEST

/* Two relocations of one GOT slot (a damaged file): an entry is named
 * after its own relocation (the I-th) where that is the slot's, else
 * after the slot's first in the file, by both tables alike.  Relocation
 * 0 moved to relocation 1's slot: entry 1 is still relocation 1's
 * symbol, entry 0 (whose slot has no relocation left) unnamed. */
START_TEST(test_plt_shared_slot)
{
	char exe[4096];
	ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
	pcln_elf_section rela, plt;
	pcln_perf_syms *before, *now, *later;
	const char *want, *a, *b;
	uint64_t first, e0, e1;
	pcln_err err;
	uint8_t *img, *r;
	size_t len = 0;

	ck_assert_int_gt(k, 0);
	exe[k] = '\0';
	img = read_whole(exe, &len);
	ck_assert_int_eq(pcln_elf_find_section(img, len, ".rela.plt", &rela,
	    &err), 1);
	ck_assert_uint_ge(rela.size / 24, 2);
	first = pcln_elf_find_section(img, len, ".plt.sec", &plt, &err) == 1 ?
	    0 : 1;
	if (first == 1)
		ck_assert_int_eq(pcln_elf_find_section(img, len, ".plt", &plt,
		    &err), 1);
	e0 = plt.addr + 16 * first;
	e1 = e0 + 16;
	ck_assert_ptr_nonnull(before = pcln_perf_syms_plt(img, len, &err));
	ck_assert_ptr_nonnull(want = pcln_perf_syms_find(before, e1, NULL,
	    NULL));
	ck_assert_ptr_nonnull(pcln_perf_syms_find(before, e0, NULL, NULL));
	r = img + (rela.data - img);
	memcpy(r, r + 24, 8);		/* relocation 0's slot := 1's */
	ck_assert_ptr_nonnull(now = pcln_perf_syms_plt(img, len, &err));
	ck_assert_ptr_nonnull(later = pcln_perf_syms_plt_lazy(img, len, &err));
	ck_assert_ptr_nonnull(a = pcln_perf_syms_find(now, e1, NULL, NULL));
	ck_assert_ptr_nonnull(b = pcln_perf_syms_find(later, e1, NULL, NULL));
	ck_assert_str_eq(a, want);
	ck_assert_str_eq(b, want);
	ck_assert_ptr_null(pcln_perf_syms_find(now, e0, NULL, NULL));
	ck_assert_ptr_null(pcln_perf_syms_find(later, e0, NULL, NULL));
	pcln_perf_syms_free(before);
	pcln_perf_syms_free(now);
	pcln_perf_syms_free(later);
	free(img);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("perf syms");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int nf;

	tcase_add_test(tc, test_small);
	tcase_add_test(tc, test_random);
	tcase_add_test(tc, test_plt);
	tcase_add_test(tc, test_plt_lazy);
	tcase_add_test(tc, test_plt_per_entry);
	tcase_add_test(tc, test_plt_shared_slot);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf == 0 ? 0 : 1;
}
