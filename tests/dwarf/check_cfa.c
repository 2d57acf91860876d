/* check_cfa.c -- pclnrt_traceback with the CFA-rule pcdata
 * (PCLN_PCDATA_CFA, PCLN_PCDATA_FPSAVE) and PCLNRT_TB_FP, on a synthetic
 * x86-64 stack: a frame whose CFA is rbp-based (alloca), a caller that
 * saved rbp and is sp-based, and an outermost rbp-based frame whose rbp
 * comes from that save.  Without the flag the walk stops at pcsp -1; at
 * pcsp -2 (the outermost frame) it ends. */
#include <config.h>

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "pcln.h"
#include "pclnrt.h"

#define S	0x7000u		/* sp at the fault */
#define MEMLO	0x6f00u
#define MEMLEN	0x200u

static uint8_t mem[MEMLEN];

static void
put64(uint64_t addr, uint64_t v)
{
	int i;

	for (i = 0; i < 8; i++)
		mem[addr - MEMLO + (unsigned)i] = (uint8_t)(v >> (8 * i));
}

static int
readmem(void *arg, uint64_t addr, uint8_t *buf, size_t len)
{
	(void)arg;
	if (addr < MEMLO || addr + len > MEMLO + MEMLEN)
		return -1;
	memcpy(buf, mem + (addr - MEMLO), len);
	return 0;
}

/* V [0x2000, 0x2040): push rbp; mov rsp,rbp; alloca...: CFA rbp+16 from
 *   4, rbp saved at CFA-16 from 1.
 * C [0x3000, 0x3040): push rbp (rbp as a general register); sub 8:
 *   pcsp 8 then 16, rbp saved at CFA-16 from 1.
 * M [0x4000, 0x4040): rbp-based from 4 (CFA rbp+16).
 * O [0x5000, 0x5040): the outermost frame from 4 (pcsp -2: _start). */
static uint8_t *
make_blob(size_t *len)
{
	pcln_target t = { 8, 1, 0 };
	pcln_builder *b = pcln_builder_new(&t, NULL);
	uint8_t *blob;
	long v, c, m, o;
	const int CFA = PCLN_TAB_PCDATA(PCLN_PCDATA_CFA);
	const int SAVE = PCLN_TAB_PCDATA(PCLN_PCDATA_FPSAVE);

	ck_assert_ptr_nonnull(b);
	v = pcln_builder_add_func(b, "V", 0x2000, 0x40, 0, 0, NULL);
	c = pcln_builder_add_func(b, "C", 0x3000, 0x40, 0, 0, NULL);
	m = pcln_builder_add_func(b, "M", 0x4000, 0x40, 0, 0, NULL);
	o = pcln_builder_add_func(b, "O", 0x5000, 0x40, 0, 0, NULL);
#define PT(f, tab, off, val) \
	ck_assert_int_eq(pcln_builder_add_point(b, f, tab, off, val, NULL), 0)
	PT(v, PCLN_TAB_PCSP, 0, 0);
	PT(v, PCLN_TAB_PCSP, 1, 8);
	PT(v, PCLN_TAB_PCSP, 4, PCLN_PCSP_UNKNOWN);
	PT(v, CFA, 0, 0);
	PT(v, CFA, 4, 16);
	PT(v, SAVE, 0, 0);
	PT(v, SAVE, 1, 16);
	PT(c, PCLN_TAB_PCSP, 0, 0);
	PT(c, PCLN_TAB_PCSP, 1, 8);
	PT(c, PCLN_TAB_PCSP, 5, 16);
	PT(c, SAVE, 0, 0);
	PT(c, SAVE, 1, 16);
	PT(m, PCLN_TAB_PCSP, 0, 0);
	PT(m, PCLN_TAB_PCSP, 4, PCLN_PCSP_UNKNOWN);
	PT(m, CFA, 0, 0);
	PT(m, CFA, 4, 16);
	PT(o, PCLN_TAB_PCSP, 0, 0);
	PT(o, PCLN_TAB_PCSP, 4, PCLN_PCSP_OUTERMOST);
#undef PT
	ck_assert_int_eq(pcln_builder_write(b, 0, &blob, len, NULL), 0);
	pcln_builder_free(b);
	return blob;
}

/* The stack: V's rbp is S + 0x40; its CFA S + 0x50.  C's frame: sp
 * S + 0x50, return address at S + 0x60, caller sp S + 0x68, M's rbp
 * saved at S + 0x58 = S + 0x80.  M: CFA S + 0x90, return address 0. */
static void
make_stack(void)
{
	memset(mem, 0x99, sizeof mem);	/* garbage everywhere else */
	put64(S + 0x48, 0x3010);	/* V's return address, CFA - 8 */
	put64(S + 0x40, 0x1234);	/* C's rbp (a general register) */
	put64(S + 0x60, 0x4010);	/* C's return address */
	put64(S + 0x58, S + 0x80);	/* M's rbp, saved by C */
	put64(S + 0x88, 0);		/* M's return address: the end */
}

struct want {
	const char *name;
	uint64_t pc, sp;
};

static const struct want want_fp[] = {
	{ "V", 0x2010, S },
	{ "C", 0x3010, S + 0x50 },
	{ "M", 0x4010, S + 0x68 },
};

/* Walk from V; with BADFP, C's saved copy of M's rbp points at
 * unreadable memory; with OUTER, C returns into O. */
static void
walk(unsigned flags, int badfp, int outer, pclnrt_frame *fr, size_t *n,
    pclnrt_stopinfo *st)
{
	static unsigned char regmem[PCLNRT_REGISTRY_SIZE(1, 8, 0)];
	static pclnrt_registry reg;
	static pclnrt_module mod;
	static uint8_t *blob;
	static size_t len;
	pclnrt_walk w;

	if (blob == NULL) {
		blob = make_blob(&len);
		ck_assert_int_eq(pclnrt_registry_init(&reg, regmem,
		    sizeof regmem, 1, 0), PCLNRT_OK);
		ck_assert_int_eq(pclnrt_module_init(&mod, blob, len, 0, "t"),
		    0);
		ck_assert_int_eq(pclnrt_register(&reg, &mod), PCLNRT_OK);
	}
	make_stack();
	if (badfp)
		put64(S + 0x58, 0x100);
	if (outer)
		put64(S + 0x60, 0x5010);
	memset(&w, 0, sizeof w);
	w.modules = &reg;
	w.ptrsize = 8;
	w.conv = PCLNRT_CONV_STACK;
	w.flags = flags;
	w.read = readmem;
	w.pc = 0x2010;
	w.sp = S;
	w.fp = S + 0x40;
	*n = pclnrt_traceback(&w, fr, 8, st);
}

START_TEST(test_fp_walk)
{
	pclnrt_frame fr[8];
	pclnrt_stopinfo st;
	size_t n, i;

	walk(PCLNRT_TB_FP, 0, 0, fr, &n, &st);
	ck_assert_uint_eq(n, 3);
	for (i = 0; i < n; i++) {
		ck_assert_str_eq(fr[i].func.name, want_fp[i].name);
		ck_assert_uint_eq(fr[i].pc, want_fp[i].pc);
		ck_assert_uint_eq(fr[i].sp, want_fp[i].sp);
	}
	ck_assert_int_eq(fr[0].spdelta, PCLN_PCSP_UNKNOWN);
	ck_assert_int_eq(fr[1].spdelta, 16);
	ck_assert_int_eq(st.reason, PCLNRT_STOP_END);
}
END_TEST

START_TEST(test_no_fp_flag)
{
	pclnrt_frame fr[8];
	pclnrt_stopinfo st;
	size_t n;

	/* Without PCLNRT_TB_FP the -1 pcsp stops the walk at V. */
	walk(0, 0, 0, fr, &n, &st);
	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(fr[0].func.name, "V");
	ck_assert_int_eq(st.reason, PCLNRT_STOP_NO_SP);
	ck_assert_uint_eq(st.pc, 0x2010);
}
END_TEST

START_TEST(test_bad_saved_fp)
{
	pclnrt_frame fr[8];
	pclnrt_stopinfo st;
	size_t n;

	/* M's rbp comes from C's save; if that is garbage, M's return
	 * address cannot be read: the walk stops there, at M. */
	walk(PCLNRT_TB_FP, 1, 0, fr, &n, &st);
	ck_assert_uint_eq(n, 3);
	ck_assert_str_eq(fr[2].func.name, "M");
	ck_assert_int_eq(st.reason, PCLNRT_STOP_READ);
	ck_assert_uint_eq(st.pc, 0x4010);
}
END_TEST

START_TEST(test_outermost)
{
	pclnrt_frame fr[8];
	pclnrt_stopinfo st;
	size_t n;

	/* O's pcsp says it has no caller: its frame is written and the
	 * walk ends there, without reading the garbage above it. */
	walk(PCLNRT_TB_FP, 0, 1, fr, &n, &st);
	ck_assert_uint_eq(n, 3);
	ck_assert_str_eq(fr[2].func.name, "O");
	ck_assert_uint_eq(fr[2].pc, 0x5010);
	ck_assert_int_eq(fr[2].spdelta, PCLN_PCSP_OUTERMOST);
	ck_assert_int_eq(st.reason, PCLNRT_STOP_OUTERMOST);
	ck_assert_uint_eq(st.pc, 0x5010);
	ck_assert_uint_eq(st.sp, S + 0x68);
	ck_assert_str_eq(pclnrt_stop_string(st.reason),
	    "outermost frame (no caller)");
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("cfa rules");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int nf;

	tcase_add_test(tc, test_fp_walk);
	tcase_add_test(tc, test_no_fp_flag);
	tcase_add_test(tc, test_bad_saved_fp);
	tcase_add_test(tc, test_outermost);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
