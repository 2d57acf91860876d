/* test_rt_jit.c -- JIT functions as modules (pclnrt_jit_module): the
 * blob is a valid Go 1.2 table (libpcln's full verifier says so), every
 * pc answers as the description says through findfunc, pcsp, pcdata and
 * funcline, a traceback walks JIT frames, and bad descriptions are
 * refused. */
#include <stdlib.h>
#include <string.h>

#include "test_rt.h"

#define ENTRY	0x7f0000100000ull

static const pclnrt_jitrow sp_rows[] = { { 0, 0 }, { 1, 8 }, { 4, 8 },
	{ 0x3c, 0 } };
static const pclnrt_jitrow ln_rows[] = { { 0, 1 }, { 0x10, 2 },
	{ 0x20, 2 }, { 0x30, 3 } };
static const pclnrt_jitrow pd0_rows[] = { { 0, -1 }, { 8, 5 } };
static const pclnrt_jitrow pd2_rows[] = { { 0, 7 } };

static void
describe(pclnrt_jitfunc *f, pclnrt_jittab *pd)
{
	memset(f, 0, sizeof *f);
	f->entry = ENTRY;
	f->size = 0x40;
	f->name = "jit.add";
	f->args = 16;
	f->frame = 8;
	f->pcsp.row = sp_rows;
	f->pcsp.nrow = 4;
	f->file = "expr.jit";
	f->line.row = ln_rows;
	f->line.nrow = 4;
	pd[0].row = pd0_rows;
	pd[0].nrow = 2;
	pd[1].row = NULL;
	pd[1].nrow = 0;
	pd[2].row = pd2_rows;
	pd[2].nrow = 1;
	f->pcdata = pd;
	f->npcdata = 3;
}

/* The value of ROWS at offset OFF (the last row at or before it). */
static int32_t
at(const pclnrt_jitrow *rows, size_t n, uint32_t off)
{
	size_t i;
	int32_t v = rows[0].value;

	for (i = 0; i < n && rows[i].off <= off; i++)
		v = rows[i].value;
	return v;
}

START_TEST(test_encode)
{
	pclnrt_jittab pd[3];
	pclnrt_jitfunc f;
	pclnrt_module m;
	pclnrt_func fn;
	pcln_table *t;
	pcln_err err;
	size_t need, len;
	uint8_t *buf;

	describe(&f, pd);
	need = pclnrt_jit_size(&f);
	ck_assert_uint_gt(need, 0);
	ck_assert_uint_lt(need, 200);
	buf = malloc(need);
	ck_assert_int_eq(pclnrt_jit_module(&m, buf, need - 1, &f, &len),
	    PCLNRT_FULL);
	ck_assert_int_eq(pclnrt_jit_module(&m, buf, need, &f, &len),
	    PCLNRT_OK);
	ck_assert_uint_eq(len, need);
	ck_assert_uint_eq(m.lo, ENTRY);
	ck_assert_uint_eq(m.hi, ENTRY + 0x40);
	ck_assert_uint_eq(m.bias, 0);
	ck_assert_str_eq(m.name, "jit.add");
	ck_assert_ptr_eq(m.table.blob, buf);
	/* libpcln's full verifier accepts it, and reads it back. */
	t = pcln_open(buf, len, 0, &err);
	ck_assert_msg(t != NULL, "pcln_open: %s", err.msg);
	ck_assert_uint_eq(pcln_nfunc(t), 1);
	pcln_close(t);
	ck_assert_int_eq(pclnrt_findfunc(&m.table, ENTRY + 5, &fn), 0);
	ck_assert_uint_eq(fn.entry, ENTRY);
	ck_assert_uint_eq(fn.end, ENTRY + 0x40);
	ck_assert_int_eq(fn.args, 16);
	ck_assert_int_eq(fn.frame, 8);
	free(buf);
}
END_TEST

START_TEST(test_lookups)
{
	static unsigned char mem[PCLNRT_REGISTRY_SIZE(2, 16, 0)];
	pclnrt_jittab pd[3];
	pclnrt_jitfunc f;
	pclnrt_registry r;
	pclnrt_module m;
	uint8_t buf[256];
	uint64_t pc, start, end;

	describe(&f, pd);
	ck_assert_int_eq(pclnrt_jit_module(&m, buf, sizeof buf, &f, NULL),
	    0);
	ck_assert_int_eq(pclnrt_registry_init(&r, mem, sizeof mem, 2, 0), 0);
	ck_assert_int_eq(pclnrt_register(&r, &m), 0);
	for (pc = ENTRY - 2; pc < ENTRY + 0x42; pc++) {
		const pclnrt_module *got;
		const char *path;
		uint32_t off = (uint32_t)(pc - ENTRY);
		pclnrt_func fn;
		int32_t v, line;
		int rc = pclnrt_registry_findfunc(&r, pc, &got, &fn);

		if (pc < ENTRY || pc >= ENTRY + 0x40) {
			RT_EQ(rc, PCLNRT_NOTFOUND);
			continue;
		}
		RT_EQ(rc, PCLNRT_OK);
		RT_TRUE(got == &m, "module");
		RT_STREQ(fn.name, "jit.add");
		RT_EQ(fn.entry, ENTRY);
		RT_EQ(pclnrt_pcsp(&fn, pc, &v), PCLNRT_OK);
		RT_EQ(v, at(sp_rows, 4, off));
		RT_EQ(pclnrt_funcline(&fn, pc, &path, &line), PCLNRT_OK);
		RT_STREQ(path, "expr.jit");
		RT_EQ(line, at(ln_rows, 4, off));
		RT_EQ(pclnrt_pcdata(&fn, 0, pc, &v), PCLNRT_OK);
		RT_EQ(v, at(pd0_rows, 2, off));
		RT_EQ(pclnrt_pcdata(&fn, 1, pc, &v), PCLNRT_NOTFOUND);
		RT_EQ(pclnrt_pcdata(&fn, 2, pc, &v), PCLNRT_OK);
		RT_EQ(v, 7);
		RT_EQ(pclnrt_pcdata(&fn, 3, pc, &v), PCLNRT_NOTFOUND);
		/* Equal rows are merged: one row [1, 0x3c) of pcsp 8, one
		 * [0x10, 0x30) of line 2. */
		RT_EQ(pclnrt_pcvalue(&fn, PCLN_TAB_PCSP, pc, &v, &start, &end),
		    PCLNRT_OK);
		if (off >= 1 && off < 0x3c) {
			RT_EQ(start, ENTRY + 1);
			RT_EQ(end, ENTRY + 0x3c);
		}
		RT_EQ(pclnrt_pcvalue(&fn, PCLN_TAB_PCLN, pc, &v, &start, &end),
		    PCLNRT_OK);
		if (v == 2) {
			RT_EQ(start, ENTRY + 0x10);
			RT_EQ(end, ENTRY + 0x30);
		}
	}
	ck_assert_int_eq(pclnrt_unregister(&r, &m), 0);
}
END_TEST

/* No tables at all: the function still has its extent and name. */
START_TEST(test_bare)
{
	pclnrt_jitfunc f;
	pclnrt_module m;
	pclnrt_func fn;
	uint8_t buf[128];
	const char *path;
	int32_t v, line;

	memset(&f, 0, sizeof f);
	f.entry = 0x5000;
	f.size = 7;
	f.name = "stub";
	ck_assert_int_eq(pclnrt_jit_module(&m, buf, sizeof buf, &f, NULL),
	    0);
	ck_assert_int_eq(pclnrt_findfunc(&m.table, 0x5006, &fn), 0);
	ck_assert_str_eq(fn.name, "stub");
	ck_assert_uint_eq(fn.end, 0x5007);
	ck_assert_int_eq(pclnrt_findfunc(&m.table, 0x5007, &fn),
	    PCLNRT_NOTFOUND);
	ck_assert_int_eq(pclnrt_findfunc(&m.table, 0x5000, &fn), 0);
	ck_assert_int_eq(pclnrt_pcsp(&fn, 0x5000, &v), PCLNRT_NOTFOUND);
	ck_assert_int_ne(pclnrt_funcline(&fn, 0x5000, &path, &line),
	    PCLNRT_OK);
	ck_assert_ptr_null(path);
}
END_TEST

START_TEST(test_badarg)
{
	static const pclnrt_jitrow late[] = { { 1, 0 } };
	static const pclnrt_jitrow back[] = { { 0, 0 }, { 8, 1 }, { 8, 2 } };
	static const pclnrt_jitrow past[] = { { 0, 0 }, { 0x40, 1 } };
	pclnrt_jittab pd[3];
	pclnrt_jitfunc f;
	pclnrt_module m;
	uint8_t buf[256];

	describe(&f, pd);
	f.size = 0;
	ck_assert_uint_eq(pclnrt_jit_size(&f), 0);
	ck_assert_int_eq(pclnrt_jit_module(&m, buf, sizeof buf, &f, NULL),
	    PCLNRT_BADARG);
	describe(&f, pd);
	f.name = NULL;
	ck_assert_int_eq(pclnrt_jit_module(&m, buf, sizeof buf, &f, NULL),
	    PCLNRT_BADARG);
	describe(&f, pd);
	f.pcsp.row = late;
	f.pcsp.nrow = 1;
	ck_assert_int_eq(pclnrt_jit_module(&m, buf, sizeof buf, &f, NULL),
	    PCLNRT_BADARG);
	describe(&f, pd);
	f.line.row = back;
	f.line.nrow = 3;
	ck_assert_int_eq(pclnrt_jit_module(&m, buf, sizeof buf, &f, NULL),
	    PCLNRT_BADARG);
	describe(&f, pd);
	pd[2].row = past;
	pd[2].nrow = 2;
	ck_assert_int_eq(pclnrt_jit_module(&m, buf, sizeof buf, &f, NULL),
	    PCLNRT_BADARG);
	describe(&f, pd);
	f.file = NULL;
	ck_assert_int_eq(pclnrt_jit_module(&m, buf, sizeof buf, &f, NULL),
	    PCLNRT_BADARG);
	describe(&f, pd);
	f.entry = UINT64_MAX - 8;
	ck_assert_int_eq(pclnrt_jit_module(&m, buf, sizeof buf, &f, NULL),
	    PCLNRT_BADARG);
	ck_assert_uint_eq(pclnrt_jit_size(NULL), 0);
	describe(&f, pd);
	ck_assert_int_eq(pclnrt_jit_module(&m, NULL, 0, &f, NULL),
	    PCLNRT_FULL);
}
END_TEST

/* A walk through two JIT frames into a third: f0 (pcsp 8 at its pc)
 * returns into f1 (pcsp 0x18), which returns into f2 (pcsp 8), which
 * returns to 0. */
struct fakestack {
	uint64_t base;
	uint8_t b[64];
};

static int
readfake(void *arg, uint64_t addr, uint8_t *buf, size_t len)
{
	struct fakestack *s = arg;

	if (addr < s->base || addr + len > s->base + sizeof s->b)
		return -1;
	memcpy(buf, s->b + (addr - s->base), len);
	return 0;
}

START_TEST(test_traceback)
{
	static unsigned char mem[PCLNRT_REGISTRY_SIZE(4, 32, 0)];
	static const char *const names[3] = { "jit.f0", "jit.f1", "jit.f2" };
	static const pclnrt_jitrow sp0[] = { { 0, 0 }, { 1, 8 } };
	static const pclnrt_jitrow sp1[] = { { 0, 0 }, { 4, 0x18 } };
	static const pclnrt_jitrow ln[] = { { 0, 10 }, { 8, 11 } };
	const pclnrt_jitrow *sps[3] = { sp0, sp1, sp0 };
	pclnrt_registry r;
	pclnrt_module m[3];
	uint8_t buf[3][160];
	struct fakestack st;
	pclnrt_frame fr[8];
	pclnrt_stopinfo stop;
	pclnrt_walk w;
	uint64_t ret1 = ENTRY + 0x100 + 0x12, ret2 = ENTRY + 0x200 + 0x9, z = 0;
	size_t n, i;

	ck_assert_int_eq(pclnrt_registry_init(&r, mem, sizeof mem, 4, 0), 0);
	for (i = 0; i < 3; i++) {
		pclnrt_jitfunc f;

		memset(&f, 0, sizeof f);
		f.entry = ENTRY + 0x100 * i;
		f.size = 0x20;
		f.name = names[i];
		f.pcsp.row = sps[i];
		f.pcsp.nrow = 2;
		f.file = "prog.expr";
		f.line.row = ln;
		f.line.nrow = 2;
		ck_assert_int_eq(pclnrt_jit_module(&m[i], buf[i], sizeof buf[i],
		    &f, NULL), 0);
		ck_assert_int_eq(pclnrt_register(&r, &m[i]), 0);
	}
	/* f0 at +0x10, sp S: ret1 at S + 8; f1's frame: ret2 at
	 * S + 16 + 0x18; f2's: 0 at S + 16 + 0x20 + 8. */
	memset(&st, 0, sizeof st);
	st.base = 0x7ffc0000;
	memcpy(st.b + 8, &ret1, 8);
	memcpy(st.b + 16 + 0x18, &ret2, 8);
	memcpy(st.b + 16 + 0x20 + 8, &z, 8);
	memset(&w, 0, sizeof w);
	w.modules = &r;
	w.ptrsize = 8;
	w.conv = PCLNRT_CONV_STACK;
	w.read = readfake;
	w.read_arg = &st;
	w.pc = ENTRY + 0x10;
	w.sp = st.base;
	n = pclnrt_traceback(&w, fr, 8, &stop);
	ck_assert_uint_eq(n, 3);
	ck_assert_int_eq(stop.reason, PCLNRT_STOP_END);
	for (i = 0; i < 3; i++) {
		ck_assert_str_eq(fr[i].func.name, names[i]);
		ck_assert_str_eq(fr[i].file, "prog.expr");
		ck_assert_ptr_eq(fr[i].module, &m[i]);
	}
	ck_assert_uint_eq(fr[1].pc, ret1);
	ck_assert_uint_eq(fr[1].off, 0x12);
	ck_assert_int_eq(fr[1].line, 11);
	ck_assert_uint_eq(fr[2].sp, st.base + 16 + 0x20);
	ck_assert_int_eq(fr[2].line, 11);
}
END_TEST

Suite *
rt_jit_suite(void)
{
	Suite *s = suite_create("runtime jit");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_encode);
	tcase_add_test(tc, test_lookups);
	tcase_add_test(tc, test_bare);
	tcase_add_test(tc, test_badarg);
	tcase_add_test(tc, test_traceback);
	suite_add_tcase(s, tc);
	return s;
}
