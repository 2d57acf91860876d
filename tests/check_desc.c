/* check_desc.c -- the description reader (lib/link/desc.c) and the link
 * (lib/link/link.c): every construct, every error with its line, placement,
 * alignment, file numbering, dedupe, determinism.  Every blob built here
 * is opened with verification (pcln_open without TRUSTED). */
#include <config.h>

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "desc.h"
#include "pcln.h"
#include "pcln_link.h"
#include "pcln_out.h"

/* --- failing allocator ------------------------------------------------
 *
 * With glibc (and no sanitizer, which owns malloc itself) this program
 * replaces malloc, calloc and realloc: when FAIL_AT is armed, the
 * FAIL_AT-th allocation fails.  test_nomem sweeps FAIL_AT over every
 * allocation of a link. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NO_MALLOC_WRAP 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define NO_MALLOC_WRAP 1
#endif
#if defined(__GLIBC__) && !defined(NO_MALLOC_WRAP)
#define MALLOC_WRAP 1
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);

static long fail_at = -1, nalloc;

static int
alloc_fails(void)
{
	return fail_at >= 0 && ++nalloc == fail_at;
}

void *
malloc(size_t n)
{
	return alloc_fails() ? NULL : __libc_malloc(n);
}

void *
calloc(size_t n, size_t m)
{
	return alloc_fails() ? NULL : __libc_calloc(n, m);
}

void *
realloc(void *p, size_t n)
{
	return alloc_fails() ? NULL : __libc_realloc(p, n);
}
#endif

/* --- reader: constructs --------------------------------------------- */

static desc_reader *
rd(const char *text, unsigned quantum)
{
	pcln_err err;
	desc_reader *r = desc_open_mem("t.pcln", text, strlen(text), quantum,
	    &err);

	ck_assert_ptr_nonnull(r);
	return r;
}

static void
next_ok(desc_reader *r, struct desc_stmt *st, enum desc_kind kind,
    long line)
{
	pcln_err err;
	int rc = desc_next(r, st, &err);

	ck_assert_msg(rc == 1, "desc_next: %d %s", rc, rc < 0 ? err.msg : "");
	ck_assert_int_eq(st->kind, kind);
	ck_assert_int_eq(st->line, line);
}

static void
end_ok(desc_reader *r)
{
	struct desc_stmt st;
	pcln_err err;

	ck_assert_int_eq(desc_next(r, &st, &err), 0);
}

START_TEST(test_target_data)
{
	desc_reader *r = rd("# comment\n\n  target ptrsize 4 quantum 2 "
	    "endian big  # trailing\ntarget endian little\n"
	    "data gc.locals 0x9000\ndata \"odd name\" 42\n"
	    "file 3 \"a b.go\"\n"
	    "data max 18446744073709551615\ndata hmax 0xFFFFFFFFFFFFFFFF\n",
	    0);
	struct desc_stmt st;

	next_ok(r, &st, DESC_TARGET, 3);
	ck_assert_uint_eq(st.target.ptrsize, 4);
	ck_assert_uint_eq(st.target.quantum, 2);
	ck_assert_int_eq(st.target.endian, 2);
	next_ok(r, &st, DESC_TARGET, 4);
	ck_assert_uint_eq(st.target.ptrsize, 0);
	ck_assert_int_eq(st.target.endian, 1);
	next_ok(r, &st, DESC_DATA, 5);
	ck_assert_str_eq(st.name, "gc.locals");
	ck_assert_uint_eq(st.addr, 0x9000);
	next_ok(r, &st, DESC_DATA, 6);
	ck_assert_str_eq(st.name, "odd name");
	ck_assert_uint_eq(st.addr, 42);
	next_ok(r, &st, DESC_FILE, 7);
	ck_assert_uint_eq(st.idx, 3);
	ck_assert_str_eq(st.name, "a b.go");
	/* the largest numbers, decimal and hex, at the overflow edge */
	next_ok(r, &st, DESC_DATA, 8);
	ck_assert_uint_eq(st.addr, UINT64_MAX);
	next_ok(r, &st, DESC_DATA, 9);
	ck_assert_uint_eq(st.addr, UINT64_MAX);
	end_ok(r);
	ck_assert_int_eq(desc_lines(r), 9);
	desc_close(r);
}
END_TEST

START_TEST(test_func)
{
	desc_reader *r = rd("func main.(*T).M size 0x40 args -8 frame 24 "
	    "entry 0x2000 align 16 dupok\nend\nfunc f size 4\r\nend\n", 4);
	struct desc_stmt st;

	next_ok(r, &st, DESC_FUNC, 1);
	ck_assert_str_eq(st.name, "main.(*T).M");
	ck_assert_uint_eq(st.size, 0x40);
	ck_assert_int_eq(st.args, -8);
	ck_assert_int_eq(st.frame, 24);
	ck_assert_int_eq(st.has_entry, 1);
	ck_assert_uint_eq(st.addr, 0x2000);
	ck_assert_uint_eq(st.align, 16);
	ck_assert_int_eq(st.dupok, 1);
	next_ok(r, &st, DESC_END, 2);
	next_ok(r, &st, DESC_FUNC, 3);
	ck_assert_str_eq(st.name, "f");
	ck_assert_uint_eq(st.size, 4);
	ck_assert_int_eq(st.args, 0);
	ck_assert_int_eq(st.has_entry, 0);
	ck_assert_uint_eq(st.align, 1);
	ck_assert_int_eq(st.dupok, 0);
	next_ok(r, &st, DESC_END, 4);
	end_ok(r);
	desc_close(r);
}
END_TEST

START_TEST(test_tables)
{
	desc_reader *r = rd("func f size 0x20\n"
	    "pcsp 0:0 4:-8 0x1c:0\n"
	    "pcsp 0x1e:2147483647\n"
	    "pcfile 0:a.go 8:\"dir/my file.go\" 0x10:\"q\\\"\\\\\"\n"
	    "pcln 0:-2147483648\n"
	    "pcdata 7 2:1\n"
	    "pcdata 1023 hex 02 2000\n"
	    "pcln hex 0a\n"		/* only the reader here: a 2nd pcln */
	    "end\n", 2);
	struct desc_stmt st;
	pcln_err err;

	next_ok(r, &st, DESC_FUNC, 1);
	next_ok(r, &st, DESC_POINTS, 2);
	ck_assert_int_eq(st.table, PCLN_TAB_PCSP);
	ck_assert_uint_eq(st.npts, 3);
	ck_assert_uint_eq(st.pts[1].pcoff, 4);
	ck_assert_int_eq(st.pts[1].value, -8);
	ck_assert_uint_eq(st.pts[2].pcoff, 0x1c);
	next_ok(r, &st, DESC_POINTS, 3);
	ck_assert_uint_eq(st.npts, 1);
	ck_assert_int_eq(st.pts[0].value, 2147483647);
	next_ok(r, &st, DESC_POINTS, 4);
	ck_assert_int_eq(st.table, PCLN_TAB_PCFILE);
	ck_assert_uint_eq(st.npts, 3);
	ck_assert_str_eq(st.paths[st.pts[0].value], "a.go");
	ck_assert_str_eq(st.paths[st.pts[1].value], "dir/my file.go");
	ck_assert_str_eq(st.paths[st.pts[2].value], "q\"\\");
	ck_assert_uint_eq(st.pts[2].pcoff, 0x10);
	next_ok(r, &st, DESC_POINTS, 5);
	ck_assert_int_eq(st.table, PCLN_TAB_PCLN);
	ck_assert_int_eq(st.pts[0].value, INT32_MIN);
	next_ok(r, &st, DESC_POINTS, 6);
	ck_assert_int_eq(st.table, PCLN_TAB_PCDATA(7));
	ck_assert_uint_eq(st.pts[0].pcoff, 2);
	next_ok(r, &st, DESC_HEX, 7);
	ck_assert_int_eq(st.table, PCLN_TAB_PCDATA(1023));
	ck_assert_uint_eq(st.nbytes, 3);
	ck_assert_uint_eq(st.bytes[0], 0x02);
	ck_assert_uint_eq(st.bytes[1], 0x20);
	ck_assert_uint_eq(st.bytes[2], 0x00);
	/* pcln already has points: hex for it is an error. */
	ck_assert_int_eq(desc_next(r, &st, &err), -1);
	ck_assert_int_eq(err.code, PCLN_EDUP);
	ck_assert_str_eq(err.msg, "t.pcln:8: pcln of function f given twice "
	    "(hex bytes give a whole table)");
	desc_close(r);
}
END_TEST

START_TEST(test_funcdata)
{
	desc_reader *r = rd("func f size 1\nfuncdata 0 0x10\n"
	    "funcdata 1 gc.x+8\nfuncdata 2 gc.y-16\nfuncdata 3 a-b\n"
	    "funcdata 4 \"s+1\" +4\nfuncdata 1023 z\nend\n", 0);
	struct desc_stmt st;

	next_ok(r, &st, DESC_FUNC, 1);
	next_ok(r, &st, DESC_FUNCDATA, 2);
	ck_assert_uint_eq(st.idx, 0);
	ck_assert_int_eq(st.isref, 0);
	ck_assert_uint_eq(st.addr, 0x10);
	next_ok(r, &st, DESC_FUNCDATA, 3);
	ck_assert_int_eq(st.isref, 1);
	ck_assert_str_eq(st.name, "gc.x");
	ck_assert_int_eq(st.refoff, 8);
	next_ok(r, &st, DESC_FUNCDATA, 4);
	ck_assert_str_eq(st.name, "gc.y");
	ck_assert_int_eq(st.refoff, -16);
	next_ok(r, &st, DESC_FUNCDATA, 5);
	ck_assert_str_eq(st.name, "a-b");
	ck_assert_int_eq(st.refoff, 0);
	next_ok(r, &st, DESC_FUNCDATA, 6);
	ck_assert_str_eq(st.name, "s+1");
	ck_assert_int_eq(st.refoff, 4);
	next_ok(r, &st, DESC_FUNCDATA, 7);
	ck_assert_uint_eq(st.idx, 1023);
	ck_assert_str_eq(st.name, "z");
	next_ok(r, &st, DESC_END, 8);
	end_ok(r);
	desc_close(r);
}
END_TEST

/* --- reader: errors -------------------------------------------------- */

static const struct {
	const char *text;
	unsigned quantum;
	int code;
	const char *msg;
} bad[] = {
	{ "bogus 1\n", 0, PCLN_ESYNTAX, "t.pcln:1: unknown statement 'bogus'" },
	{ "\n\ntarget ptrsize 6\n", 0, PCLN_ERANGE,
	  "t.pcln:3: bad ptrsize '6' (expected 4 or 8)" },
	{ "target quantum 3\n", 0, PCLN_ERANGE, "t.pcln:1: bad quantum '3'" },
	{ "target endian middle\n", 0, PCLN_ESYNTAX,
	  "t.pcln:1: bad endian 'middle'" },
	{ "target ptrsize 4 ptrsize 4\n", 0, PCLN_ESYNTAX,
	  "t.pcln:1: unknown or repeated target key 'ptrsize'" },
	{ "target ptrsize\n", 0, PCLN_ESYNTAX, "t.pcln:1: expected 'target" },
	{ "data x\n", 0, PCLN_ESYNTAX, "t.pcln:1: expected 'data NAME" },
	{ "data x 0x1g\n", 0, PCLN_ESYNTAX, "t.pcln:1: bad address '0x1g'" },
	{ "data x 0x10000000000000000\n", 0, PCLN_ERANGE,
	  "t.pcln:1: address 0x10000000000000000 out of range" },
	{ "data x 18446744073709551616\n", 0, PCLN_ERANGE,
	  "t.pcln:1: address 18446744073709551616 out of range" },
	{ "data x 18446744073709551620\n", 0, PCLN_ERANGE,
	  "t.pcln:1: address 18446744073709551620 out of range" },
	{ "data x 0x1ffffffffffffffff\n", 0, PCLN_ERANGE,
	  "t.pcln:1: address 0x1ffffffffffffffff out of range" },
	{ "func f\n", 0, PCLN_ESYNTAX, "t.pcln:1: func f has no size" },
	{ "func\n", 0, PCLN_ESYNTAX, "t.pcln:1: expected 'func NAME" },
	{ "func f size 0\n", 0, PCLN_ERANGE, "t.pcln:1: size 0 out of range" },
	{ "func f size 0x100000000\n", 0, PCLN_ERANGE,
	  "t.pcln:1: size 0x100000000 out of range" },
	{ "func f size 4 size 4\n", 0, PCLN_ESYNTAX,
	  "t.pcln:1: unknown or repeated func attribute 'size'" },
	{ "func f size 4 color 3\n", 0, PCLN_ESYNTAX,
	  "t.pcln:1: unknown or repeated func attribute 'color'" },
	{ "func f size 4 args\n", 0, PCLN_ESYNTAX, "t.pcln:1: 'args' needs" },
	{ "func f size 4 args 2147483648\n", 0, PCLN_ERANGE,
	  "t.pcln:1: args 2147483648 out of range" },
	{ "func f size 4 align 3\n", 0, PCLN_ERANGE,
	  "t.pcln:1: bad align '3'" },
	{ "func f size 3\n", 2, PCLN_ERANGE,
	  "t.pcln:1: func f: size 0x3 is not a multiple of the pc quantum 2" },
	{ "func f size 4 entry 0x1001\n", 4, PCLN_ERANGE,
	  "t.pcln:1: func f: entry 0x1001 is not a multiple" },
	{ "func f size 0x10 entry 0xfffffffffffffff8\n", 0, PCLN_ERANGE,
	  "t.pcln:1: func f: entry 0xfffffffffffffff8 + size 0x10 overflows" },
	{ "func f size 4\n# c\nfunc g size 4\n", 0, PCLN_ESYNTAX,
	  "t.pcln:3: 'func' inside function f (missing 'end' for the "
	  "function at line 1)" },
	{ "func f size 4\n\n", 0, PCLN_ESYNTAX,
	  "t.pcln:1: func f has no 'end' before the end of the input" },
	{ "end\n", 0, PCLN_ESYNTAX, "t.pcln:1: 'end' outside a function" },
	{ "func f size 4\nend x\n", 0, PCLN_ESYNTAX,
	  "t.pcln:2: 'end' takes nothing" },
	{ "pcsp 0:0\n", 0, PCLN_ESYNTAX, "t.pcln:1: 'pcsp' outside" },
	{ "func f size 4\ndata x 1\n", 0, PCLN_ESYNTAX,
	  "t.pcln:2: 'data' inside function f" },
	{ "func f size 4\ntarget ptrsize 8\n", 0, PCLN_ESYNTAX,
	  "t.pcln:2: 'target' inside function f" },
	{ "func f size 4\npcsp\n", 0, PCLN_ESYNTAX,
	  "t.pcln:2: pcsp: expected points" },
	{ "func f size 4\npcsp 0=1\n", 0, PCLN_ESYNTAX,
	  "t.pcln:2: pcsp: bad point '0=1' (expected PCOFF:VALUE)" },
	{ "func f size 4\npcsp :1\n", 0, PCLN_ESYNTAX,
	  "t.pcln:2: pcsp: bad point ':1'" },
	{ "func f size 4\npcln 0:x\n", 0, PCLN_ESYNTAX,
	  "t.pcln:2: bad value 'x'" },
	{ "func f size 4\npcln 0:2147483648\n", 0, PCLN_ERANGE,
	  "t.pcln:2: value 2147483648 out of range" },
	{ "func f size 4\npcln 0:-2147483649\n", 0, PCLN_ERANGE,
	  "t.pcln:2: value -2147483649 out of range" },
	{ "func f size 4\npcln 0:1 4:2\n", 0, PCLN_ERANGE,
	  "t.pcln:2: pcln: pc offset 0x4 beyond the size 0x4 of function f" },
	{ "func f size 8\npcln 0:1 2:2\n", 4, PCLN_ERANGE,
	  "t.pcln:2: pcln: pc offset 0x2 is not a multiple of the pc "
	  "quantum 4" },
	{ "func f size 8\npcln 0:1 4:2 4:3\n", 0, PCLN_EORDER,
	  "t.pcln:2: pcln: pc offset 0x4 not after the previous point's 0x4" },
	{ "func f size 8\npcdata 3 4:1\n# x\npcdata 3 2:1\n", 0, PCLN_EORDER,
	  "t.pcln:4: pcdata 3: pc offset 0x2 not after" },
	{ "func f size 8\npcfile 0:\n", 0, PCLN_ESYNTAX,
	  "t.pcln:2: pcfile: empty path" },
	{ "func f size 8\npcdata 1024 0:1\n", 0, PCLN_ERANGE,
	  "t.pcln:2: pcdata index 1024 out of range" },
	{ "func f size 8\npcdata\n", 0, PCLN_ESYNTAX,
	  "t.pcln:2: expected 'pcdata INDEX" },
	{ "func f size 8\npcsp hex 0\n", 0, PCLN_ESYNTAX,
	  "t.pcln:2: pcsp: odd number of hex digits in '0'" },
	{ "func f size 8\npcsp hex zz\n", 0, PCLN_ESYNTAX,
	  "t.pcln:2: pcsp: bad hex byte 'zz'" },
	{ "func f size 8\npcsp hex\n", 0, PCLN_ESYNTAX,
	  "t.pcln:2: pcsp: 'hex' needs bytes" },
	{ "func f size 8\npcsp hex 00\npcsp hex 00\n", 0, PCLN_EDUP,
	  "t.pcln:3: pcsp of function f given twice" },
	{ "func f size 8\nfuncdata 0\n", 0, PCLN_ESYNTAX,
	  "t.pcln:2: expected 'funcdata INDEX VALUE'" },
	{ "func f size 8\nfuncdata 1024 1\n", 0, PCLN_ERANGE,
	  "t.pcln:2: funcdata index 1024 out of range" },
	{ "func f size 8\nfuncdata 1 1\nfuncdata 1 2\n", 0, PCLN_EDUP,
	  "t.pcln:3: funcdata 1 of function f given twice" },
	{ "func f size 8\nfuncdata 1 5 +4\n", 0, PCLN_ESYNTAX,
	  "t.pcln:2: funcdata: a constant takes no offset" },
	{ "func f size 8\nfuncdata 1 x 4\n", 0, PCLN_ESYNTAX,
	  "t.pcln:2: funcdata: bad offset '4'" },
	{ "funcdata 1 x\n", 0, PCLN_ESYNTAX, "t.pcln:1: 'funcdata' outside" },
	{ "file 1\n", 0, PCLN_ESYNTAX, "t.pcln:1: expected 'file NUMBER PATH'" },
	{ "file 0 a.go\n", 0, PCLN_ERANGE,
	  "t.pcln:1: file number 0 out of range (expected 1 to 1000000)" },
	{ "file 1000001 a.go\n", 0, PCLN_ERANGE,
	  "t.pcln:1: file number 1000001 out of range" },
	{ "func f size 1\nfile 1 a.go\n", 0, PCLN_ESYNTAX,
	  "t.pcln:2: 'file' inside function f" },
	{ "data \"x\n", 0, PCLN_ESYNTAX, "t.pcln:1: unterminated string" },
	{ "data \"\\q\" 1\n", 0, PCLN_ESYNTAX, "t.pcln:1: bad escape" },
};

START_TEST(test_errors)
{
	const char *text = bad[_i].text;
	size_t len = strlen(text);
	struct desc_stmt st;
	desc_reader *r;
	pcln_err err;
	int rc;

	memset(&err, 0, sizeof err);
	r = desc_open_mem("t.pcln", text, len, bad[_i].quantum, &err);
	ck_assert_ptr_nonnull(r);
	while ((rc = desc_next(r, &st, &err)) > 0)
		;
	ck_assert_msg(rc == -1, "case %d: no error", _i);
	ck_assert_msg(err.code == bad[_i].code, "case %d: code %d, want %d "
	    "(%s)", _i, err.code, bad[_i].code, err.msg);
	ck_assert_msg(strncmp(err.msg, bad[_i].msg, strlen(bad[_i].msg)) == 0,
	    "case %d: '%s', want prefix '%s'", _i, err.msg, bad[_i].msg);
	desc_close(r);
}
END_TEST

START_TEST(test_nul)
{
	static const char text[] = "\ndata x\0 1\n";
	struct desc_stmt st;
	desc_reader *r;
	pcln_err err;

	r = desc_open_mem("t.pcln", text, sizeof text - 1, 0, &err);
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(desc_next(r, &st, &err), -1);
	ck_assert_int_eq(err.code, PCLN_ESYNTAX);
	ck_assert_str_eq(err.msg, "t.pcln:2: NUL byte in line");
	desc_close(r);
}
END_TEST

START_TEST(test_unreadable)
{
	pcln_err err;

	ck_assert_ptr_null(desc_open_file("/nonexistent/x.pcln", 0, &err));
	ck_assert_int_eq(err.code, PCLN_EIO);
	ck_assert_str_eq(err.msg, "/nonexistent/x.pcln: cannot open: "
	    "No such file or directory");
}
END_TEST

/* --- link ------------------------------------------------------------ */

struct linked {
	pcln_link *l;
	uint8_t *blob;
	size_t len;
	pcln_table *t;
};

/* Link the NUL-separated texts TEXTS[0..N) (named a.pcln, b.pcln, ...). */
static int
link_texts(struct linked *k, const pcln_link_opts *o, const char *const *texts,
    size_t n, pcln_err *err)
{
	size_t i;

	memset(k, 0, sizeof *k);
	k->l = pcln_link_new(o, err);
	ck_assert_ptr_nonnull(k->l);
	for (i = 0; i < n; i++) {
		char name[16];
		snprintf(name, sizeof name, "%c.pcln", (int)('a' + i));
		ck_assert_int_eq(pcln_link_add_text(k->l, name, texts[i],
		    strlen(texts[i]), err), 0);
	}
	if (pcln_link_run(k->l, &k->blob, &k->len, err) < 0) {
		ck_assert_ptr_null(k->blob);
		return -1;
	}
	k->t = pcln_open(k->blob, k->len, 0, err);
	ck_assert_msg(k->t != NULL, "verify: %s", err->msg);
	return 0;
}

static void
linked_free(struct linked *k)
{
	pcln_close(k->t);
	free(k->blob);
	pcln_link_free(k->l);
}

static void
assert_func(const pcln_table *t, size_t i, const char *name, uint64_t entry,
    uint64_t end)
{
	pcln_func f;

	ck_assert_int_eq(pcln_get_func(t, i, &f), 0);
	ck_assert_str_eq(f.name, name);
	ck_assert_uint_eq(f.entry, entry);
	ck_assert_uint_eq(f.end, end);
}

START_TEST(test_place)
{
	/* p1 placed at the base; p2 (align 16) would overlap fixed x at
	 * 0x1010, so skips to after it; p3 after p2; y fixed far away. */
	static const char *const texts[] = {
		"func p1 size 6\npcsp 0:0\nend\n"
		"func x entry 0x1010 size 0x8\npcsp 0:0\nend\n",
		"func p2 size 0x10 align 16\npcsp 0:0\nend\n"
		"func p3 size 2 align 2\npcsp 0:1\nend\n"
		"func y entry 0x5000 size 4\nend\n",
	};
	struct linked k;
	pcln_err err;
	pcln_link_func lf;
	const pcln_link_stats *s;

	ck_assert_int_eq(link_texts(&k, NULL, texts, 2, &err), 0);
	ck_assert_uint_eq(pcln_nfunc(k.t), 5);
	assert_func(k.t, 0, "p1", 0x1000, 0x1006);
	assert_func(k.t, 1, "x", 0x1010, 0x1018);
	assert_func(k.t, 2, "p2", 0x1020, 0x1030);
	assert_func(k.t, 3, "p3", 0x1030, 0x1032);
	assert_func(k.t, 4, "y", 0x5000, 0x5004);
	/* Gaps belong to no function. */
	ck_assert_int_eq(pcln_find_func(k.t, 0x1005), 0);
	ck_assert_int_eq(pcln_find_func(k.t, 0x1006), -1);
	ck_assert_int_eq(pcln_find_func(k.t, 0x100f), -1);
	ck_assert_int_eq(pcln_find_func(k.t, 0x1017), 1);
	ck_assert_int_eq(pcln_find_func(k.t, 0x1018), -1);
	ck_assert_int_eq(pcln_find_func(k.t, 0x1031), 3);
	ck_assert_int_eq(pcln_find_func(k.t, 0x1032), -1);
	ck_assert_int_eq(pcln_find_func(k.t, 0x4fff), -1);
	ck_assert_int_eq(pcln_find_func(k.t, 0x5003), 4);
	ck_assert_int_eq(pcln_find_func(k.t, 0x5004), -1);
	s = pcln_link_get_stats(k.l);
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(s->nfunc, 5);
	ck_assert_uint_eq(s->nfixed, 2);
	ck_assert_uint_eq(s->nplaced, 3);
	ck_assert_uint_eq(s->text_start, 0x1000);
	ck_assert_uint_eq(s->text_end, 0x5004);
	ck_assert_uint_eq(s->nlines, 14);
	ck_assert_int_eq(pcln_link_get_func(k.l, 1, &lf), 0);
	ck_assert_str_eq(lf.name, "x");
	ck_assert_str_eq(lf.file, "a.pcln");
	ck_assert_int_eq(lf.line, 4);
	ck_assert_int_eq(lf.fixed, 1);
	ck_assert_uint_eq(lf.layout->entry, 0x1010);
	ck_assert_uint_ne(lf.layout->tab_off[0], 0);
	ck_assert_int_eq(pcln_link_get_func(k.l, 5, &lf), -1);
	linked_free(&k);
}
END_TEST

START_TEST(test_text_base_quantum)
{
	static const char *const texts[] = {
		"target quantum 4 ptrsize 4 endian big\n"
		"func a size 4\npcln 0:1\nend\nfunc b size 8 align 8\n"
		"pcln 0:2 4:3\nend\n",
	};
	pcln_link_opts o;
	struct linked k;
	pcln_info info;
	pcln_err err;
	int32_t v;

	memset(&o, 0, sizeof o);
	o.has_text_base = 1;
	o.text_base = 0x401;		/* aligned up to the quantum */
	o.ptrsize = 4;
	ck_assert_int_eq(link_texts(&k, &o, texts, 1, &err), 0);
	pcln_get_info(k.t, &info);
	ck_assert_uint_eq(info.target.ptrsize, 4);
	ck_assert_uint_eq(info.target.quantum, 4);
	ck_assert_int_eq(info.target.bigendian, 1);
	assert_func(k.t, 0, "a", 0x404, 0x408);
	assert_func(k.t, 1, "b", 0x408, 0x410);
	ck_assert_int_eq(pcln_pcvalue(k.t, 1, PCLN_TAB_PCLN, 0x40c, &v,
	    NULL), 0);
	ck_assert_int_eq(v, 3);
	linked_free(&k);
}
END_TEST

START_TEST(test_files_funcdata)
{
	static const char *const texts[] = {
		"data gc.a 0x9000\n"
		"func f size 0x10\npcfile 0:z.go 8:a.go\npcln 0:1\n"
		"funcdata 0 gc.b+8\nfuncdata 2 7\nend\n",
		"data gc.b 0x8000\n"
		"func g size 4\npcfile 0:a.go\npcdata 5 0:9\n"
		"funcdata 0 gc.a-1\nend\n",
	};
	struct linked k;
	pcln_err err;
	pcln_func f;
	int32_t v;

	ck_assert_int_eq(link_texts(&k, NULL, texts, 2, &err), 0);
	/* Files are numbered in order of first use. */
	ck_assert_uint_eq(pcln_nfile(k.t), 2);
	ck_assert_str_eq(pcln_file_name(k.t, 1), "z.go");
	ck_assert_str_eq(pcln_file_name(k.t, 2), "a.go");
	ck_assert_int_eq(pcln_pcvalue(k.t, 0, PCLN_TAB_PCFILE, 0x1009, &v,
	    NULL), 0);
	ck_assert_int_eq(v, 2);
	ck_assert_int_eq(pcln_pcvalue(k.t, 1, PCLN_TAB_PCFILE, 0x1010, &v,
	    NULL), 0);
	ck_assert_int_eq(v, 2);
	ck_assert_uint_eq(pcln_funcdata(k.t, 0, 0), 0x8008);
	ck_assert_uint_eq(pcln_funcdata(k.t, 0, 1), 0);
	ck_assert_uint_eq(pcln_funcdata(k.t, 0, 2), 7);
	ck_assert_uint_eq(pcln_funcdata(k.t, 1, 0), 0x8fff);
	ck_assert_int_eq(pcln_get_func(k.t, 1, &f), 0);
	ck_assert_uint_eq(f.npcdata, 6);
	ck_assert_int_eq(pcln_pcvalue(k.t, 1, PCLN_TAB_PCDATA(5), 0x1011,
	    &v, NULL), 0);
	ck_assert_int_eq(v, 9);
	ck_assert_uint_eq(pcln_table_offset(k.t, 1, PCLN_TAB_PCDATA(4)), 0);
	ck_assert_uint_eq(pcln_link_get_stats(k.l)->nrefs, 2);
	linked_free(&k);
}
END_TEST

START_TEST(test_hex)
{
	static const char *const texts[] = {
		"file 7 one.go\nfile 9 \"two.go\"\n"
		"func f size 0x20\npcsp hex 02 20 00\n"
		"pcln hex ca01 10 02 10 00\n"
		"pcfile hex 14 08 03 18 00\nend\n",	/* 9, then 7 */
	};
	static const char *const bad_hex[] = {
		"func f size 0x20\n\npcsp hex 02 10 00\nend\n",
		"file 2 x.go\nfunc f size 0x20\npcfile hex 02 20 00\nend\n",
		"file 1 x.go\nfunc f size 0x20\npcfile hex 04 10 00\nend\n",
		"file 1 x.go\nfunc f size 0x20\npcfile hex 04 20\nend\n",
		"file 1 x.go\nfile 1 y.go\n",
	};
	static const char *const bad_hex_msg[] = {
		"a.pcln:3: function 0 (f): table 0 covers [0, 0x10), "
		"expected [0, 0x20)",
		"a.pcln:3: pcfile: file 0 at pc offset 0x0 is not declared "
		"by a 'file' line before it",
		"a.pcln:3: pcfile: hex table covers [0, 0x10) in 3 of 3 "
		"bytes, expected [0, 0x20) ending with the last byte",
		"a.pcln:3: pcfile: table runs past its end in the hex bytes",
		"a.pcln:2: file 1 already declared with another path",
	};
	size_t i;
	struct linked k;
	pcln_err err;
	int32_t v;

	ck_assert_int_eq(link_texts(&k, NULL, texts, 1, &err), 0);
	ck_assert_int_eq(pcln_pcvalue(k.t, 0, PCLN_TAB_PCLN, 0x1000, &v,
	    NULL), 0);
	ck_assert_int_eq(v, 100);
	ck_assert_int_eq(pcln_pcvalue(k.t, 0, PCLN_TAB_PCLN, 0x101f, &v,
	    NULL), 0);
	ck_assert_int_eq(v, 101);
	ck_assert_int_eq(pcln_pcvalue(k.t, 0, PCLN_TAB_PCSP, 0x1010, &v,
	    NULL), 0);
	ck_assert_int_eq(v, 0);
	/* Declared files are numbered in order; hex values renumbered. */
	ck_assert_str_eq(pcln_file_name(k.t, 1), "one.go");
	ck_assert_str_eq(pcln_file_name(k.t, 2), "two.go");
	ck_assert_int_eq(pcln_pcvalue(k.t, 0, PCLN_TAB_PCFILE, 0x1007, &v,
	    NULL), 0);
	ck_assert_int_eq(v, 2);
	ck_assert_int_eq(pcln_pcvalue(k.t, 0, PCLN_TAB_PCFILE, 0x1008, &v,
	    NULL), 0);
	ck_assert_int_eq(v, 1);
	linked_free(&k);
	/* Tables that do not cover the function, undeclared files: the
	 * link names the line. */
	for (i = 0; i < sizeof bad_hex / sizeof bad_hex[0]; i++) {
		ck_assert_int_eq(link_texts(&k, NULL, &bad_hex[i], 1, &err),
		    -1);
		ck_assert_str_eq(err.msg, bad_hex_msg[i]);
		linked_free(&k);
	}
}
END_TEST

START_TEST(test_dedupe_dupok)
{
	static const char *const texts[] = {
		"func f size 8\npcsp 0:0 4:8\npcln 0:1\nend\n"
		"func h size 8 dupok\npcln 0:1\nend\n",
		"func g size 8\npcsp 0:0 4:8\npcln 0:1\nend\n"
		"func h size 0x100 dupok\npcln 0:7\nend\n",
	};
	struct linked k;
	pcln_err err;
	const pcln_link_stats *s;

	ck_assert_int_eq(link_texts(&k, NULL, texts, 2, &err), 0);
	ck_assert_uint_eq(pcln_nfunc(k.t), 3);
	assert_func(k.t, 0, "f", 0x1000, 0x1008);
	assert_func(k.t, 1, "h", 0x1008, 0x1010);	/* the first h */
	assert_func(k.t, 2, "g", 0x1010, 0x1018);
	/* Same tables share one offset. */
	ck_assert_uint_eq(pcln_table_offset(k.t, 0, PCLN_TAB_PCSP),
	    pcln_table_offset(k.t, 2, PCLN_TAB_PCSP));
	ck_assert_uint_eq(pcln_table_offset(k.t, 0, PCLN_TAB_PCLN),
	    pcln_table_offset(k.t, 2, PCLN_TAB_PCLN));
	s = pcln_link_get_stats(k.l);
	ck_assert_uint_eq(s->ndropped, 1);
	ck_assert_uint_lt(s->build->ntables_unique, s->build->ntables);
	ck_assert_uint_gt(s->build->dedupe_saved, 0);
	linked_free(&k);
}
END_TEST

/* Links of X[0..N) and Y[0..N) give the same blob. */
static void
assert_same_blob(const char *const *x, const char *const *y, size_t n)
{
	struct linked a, b;
	pcln_err err;

	ck_assert_int_eq(link_texts(&a, NULL, x, n, &err), 0);
	ck_assert_int_eq(link_texts(&b, NULL, y, n, &err), 0);
	ck_assert_uint_eq(a.len, b.len);
	ck_assert_int_eq(memcmp(a.blob, b.blob, a.len), 0);
	linked_free(&a);
	linked_free(&b);
}

START_TEST(test_deterministic)
{
	static const char *const texts[] = {
		"data d 0x100\nfunc f size 0x10 align 8\npcsp 0:0 4:8\n"
		"pcfile 0:a.go 8:b.go\npcln 0:1 8:2\nfuncdata 0 d\nend\n"
		"func g size 8 entry 0x2000\npcln 0:3\nend\n",
		"func e size 4\npcfile 0:b.go\npcln 0:9\nend\n",
	};

	assert_same_blob(texts, texts, 2);
}
END_TEST

/* Link errors: input texts, code, message prefix. */
static const struct {
	const char *a, *b;
	unsigned optptr;
	int code;
	const char *msg;
} badlink[] = {
	{ "func f size 8 entry 0x1000\nend\n",
	  "\nfunc g size 8 entry 0x1004\nend\n", 0, PCLN_EOVERLAP,
	  "b.pcln:2: function g [0x1004, 0x100c) overlaps function f "
	  "[0x1000, 0x1008) at a.pcln:1" },
	{ "func f size 0x100 entry 0x1000\nend\n",
	  "func g size 8 entry 0x1004\nend\n", 0, PCLN_EOVERLAP,
	  "b.pcln:1: function g [0x1004, 0x100c) overlaps function f" },
	{ "func f size 8\nend\n", "func f size 8\nend\n", 0, PCLN_EDUP,
	  "b.pcln:1: function f already defined at a.pcln:1 (mark both "
	  "'dupok' to allow)" },
	{ "func f size 8 dupok\nend\n", "func f size 8\nend\n", 0, PCLN_EDUP,
	  "b.pcln:1: function f already defined at a.pcln:1" },
	{ "data x 1\n", "data x 2\n", 0, PCLN_EDUP,
	  "b.pcln:1: data symbol x already defined at a.pcln:1" },
	{ "target ptrsize 8\n", "\ntarget ptrsize 4\n", 0, PCLN_ECONFLICT,
	  "b.pcln:2: ptrsize 4 conflicts with ptrsize 8 at a.pcln:1" },
	{ "target endian big\n", "target endian little\n", 0, PCLN_ECONFLICT,
	  "b.pcln:1: endian little conflicts with endian big at a.pcln:1" },
	{ "target ptrsize 8\n", "", 4, PCLN_ECONFLICT,
	  "a.pcln:1: ptrsize 8 conflicts with ptrsize 4 on the command line" },
	{ "func f size 8\nfuncdata 0 nosuch+4\nend\n", "", 0, PCLN_EUNDEF,
	  "a.pcln:2: funcdata 0: undefined data symbol nosuch" },
	{ "target quantum 4\n", "func f size 6\nend\n", 0, PCLN_ERANGE,
	  "b.pcln:1: func f: size 0x6 is not a multiple of the pc quantum 4" },
	{ "target quantum 4\n", "func f size 8\npcln 0:1 2:2\nend\n", 0,
	  PCLN_ERANGE, "b.pcln:2: pcln: pc offset 0x2 is not a multiple" },
	{ "target ptrsize 4\n", "func f size 8 entry 0xfffffffc\nend\n", 0,
	  PCLN_ERANGE, "b.pcln:1: func f: [0xfffffffc, 0x100000004) beyond" },
	{ "target ptrsize 4\n", "func f size 8\nfuncdata 0 0x100000000\n"
	  "end\n", 0, PCLN_ERANGE,
	  "b.pcln:2: funcdata 0: value 0x100000000 does not fit in 4 bytes" },
	{ "data d 4\n", "func f size 8\nfuncdata 0 d-5\nend\n", 0,
	  PCLN_ERANGE, "b.pcln:2: funcdata 0: d-5" },
	{ "func f size 8\n", "", 0, PCLN_ESYNTAX,
	  "a.pcln:1: func f has no 'end'" },
	/* What the link's one read (pass 2 during pass 1) notices first
	 * is still reported in the order of two passes: a pass-1 error
	 * of a later input before a table error of an earlier one, an
	 * overlap before an undefined symbol, and the quantum checks of a
	 * dropped dupok function, which is never built. */
	{ "target quantum 4\nfunc f size 8\npcln 0:1 2:2\nend\n",
	  "bogus\n", 0, PCLN_ESYNTAX, "b.pcln:1: unknown statement 'bogus'" },
	{ "func f size 8 entry 0x1000\nfuncdata 0 nosuch\nend\n",
	  "func g size 8 entry 0x1004\nend\n", 0, PCLN_EOVERLAP,
	  "b.pcln:1: function g [0x1004, 0x100c) overlaps function f" },
	{ "target quantum 4\nfunc f size 8 dupok\nend\n",
	  "func f size 8 dupok\npcln 0:1 2:2\nend\n", 0, PCLN_ERANGE,
	  "b.pcln:2: pcln: pc offset 0x2 is not a multiple" },
	{ "target quantum 4\nfunc f size 8 dupok\nend\n",
	  "func f size 6 dupok\nend\n", 0, PCLN_ERANGE,
	  "b.pcln:1: func f: size 0x6 is not a multiple of the pc quantum 4" },
	{ "func f size 8\npcln 0:1 4:2\nend\n",
	  "target quantum 4\nfunc g size 4\npcln 2:1\nend\n", 0,
	  PCLN_ERANGE, "b.pcln:3: pcln: pc offset 0x2 is not a multiple" },
};

START_TEST(test_link_errors)
{
	const char *texts[2] = { badlink[_i].a, badlink[_i].b };
	pcln_link_opts o;
	struct linked k;
	pcln_err err;

	memset(&o, 0, sizeof o);
	o.ptrsize = badlink[_i].optptr;
	memset(&err, 0, sizeof err);
	ck_assert_int_eq(link_texts(&k, &o, texts, 2, &err), -1);
	ck_assert_msg(err.code == badlink[_i].code, "case %d: code %d (%s)",
	    _i, err.code, err.msg);
	ck_assert_msg(strncmp(err.msg, badlink[_i].msg,
	    strlen(badlink[_i].msg)) == 0, "case %d: '%s', want prefix '%s'",
	    _i, err.msg, badlink[_i].msg);
	ck_assert_ptr_null(pcln_link_get_stats(k.l));
	linked_free(&k);
}
END_TEST

/* The link reads each input once where the target is known at the
 * first file or function (pass 2 during pass 1), else twice: both give
 * the blob a link with the target on top gives. */
START_TEST(test_one_read)
{
	static const char *const late[] = {
		"func f size 8\npcsp 0:0 4:8\npcln 0:1 4:2\nend\n",
		"target quantum 4\nfunc g size 4\npcln 0:3\nend\n",
	};
	static const char *const early[] = {
		"target quantum 4\n"
		"func f size 8\npcsp 0:0 4:8\npcln 0:1 4:2\nend\n",
		"func g size 4\npcln 0:3\nend\n",
	};
	struct linked a;
	pcln_info info;
	pcln_err err;
	int32_t v;

	ck_assert_int_eq(link_texts(&a, NULL, late, 2, &err), 0);
	pcln_get_info(a.t, &info);
	ck_assert_uint_eq(info.target.quantum, 4);
	ck_assert_int_eq(pcln_pcvalue(a.t, 0, PCLN_TAB_PCLN, 0x1004, &v,
	    NULL), 0);
	ck_assert_int_eq(v, 2);
	linked_free(&a);
	assert_same_blob(late, early, 2);
}
END_TEST

/* Points the reader takes on its fast path (plain decimal) and on the
 * general one (hex, signs, quotes, comments, tabs) mean the same. */
START_TEST(test_points_paths)
{
	static const char *const plain[] = {
		"func f size 0x20\npcsp 0:0 1:8 16:-4 31:0\n"
		"pcln 0:10 4:12 8:2147483647 12:-2147483648 20:7\nend\n",
	};
	static const char *const other[] = {
		"func f size 0x20\npcsp 0x0:0 1:+8 \"16\":-4 31:0x0 # sp\n"
		"\tpcln\t0:10 4:0xc 8:+2147483647 12:-2147483648\t20:07\n"
		"end\n",
	};

	assert_same_blob(plain, other, 1);
}
END_TEST

/* Lines across the reader's 1 MiB chunks, and one line longer than a
 * chunk, from memory and from a file: the same blob, the right values. */
START_TEST(test_chunks)
{
	size_t cap = 4u << 20, len = 0, i;
	char *text = malloc(cap), path[] = "/tmp/check_desc.XXXXXX";
	struct linked a;
	pcln_func f;
	pcln_link *l;
	uint8_t *blob;
	size_t blen;
	pcln_err err;
	int32_t v;
	FILE *fp;
	int fd;

	ck_assert_ptr_nonnull(text);
	for (i = 0; len < (3u << 19); i++)
		len += (size_t)sprintf(text + len, "func f%zu size 0x40\n"
		    "\tpcsp 0:0 1:8 63:0\n\tpcln 0:%zu 32:%zu\nend\n", i, i,
		    i + 1);
	len += (size_t)sprintf(text + len, "func long size 0x40000\npcln");
	for (i = 0; i < 0x40000; i += 2)
		len += (size_t)sprintf(text + len, " %zu:%zu", i, i % 1000);
	len += (size_t)sprintf(text + len, "\nend\nfunc last size 4\n"
	    "pcln 0:5\nend");		/* no newline at the end */
	ck_assert_uint_lt(len, cap);
	ck_assert_int_eq(link_texts(&a, NULL, (const char *const *)&text, 1,
	    &err), 0);
	ck_assert_int_eq(pcln_get_func(a.t, pcln_nfunc(a.t) - 2, &f), 0);
	ck_assert_str_eq(f.name, "long");
	ck_assert_int_eq(pcln_pcvalue(a.t, pcln_nfunc(a.t) - 2,
	    PCLN_TAB_PCLN, f.entry + 0x3e9ca, &v, NULL), 0);
	ck_assert_int_eq(v, 0x3e9ca % 1000);
	ck_assert_int_eq(pcln_get_func(a.t, pcln_nfunc(a.t) - 1, &f), 0);
	ck_assert_str_eq(f.name, "last");
	ck_assert_int_eq(pcln_pcvalue(a.t, pcln_nfunc(a.t) - 1,
	    PCLN_TAB_PCLN, f.entry, &v, NULL), 0);
	ck_assert_int_eq(v, 5);
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	fp = fdopen(fd, "w");
	ck_assert_ptr_nonnull(fp);
	ck_assert_uint_eq(fwrite(text, 1, len, fp), len);
	ck_assert_int_eq(fclose(fp), 0);
	l = pcln_link_new(NULL, &err);
	ck_assert_ptr_nonnull(l);
	ck_assert_int_eq(pcln_link_add_file(l, path, &err), 0);
	ck_assert_msg(pcln_link_run(l, &blob, &blen, &err) == 0, "%s",
	    err.msg);
	ck_assert_uint_eq(blen, a.len);
	ck_assert_int_eq(memcmp(blob, a.blob, blen), 0);
	free(blob);
	pcln_link_free(l);
	unlink(path);
	linked_free(&a);
	free(text);
}
END_TEST

START_TEST(test_api_misuse)
{
	pcln_link_opts o;
	pcln_err err;
	pcln_link *l;
	uint8_t *blob = NULL;
	size_t len;

	memset(&o, 0, sizeof o);
	o.ptrsize = 6;
	ck_assert_ptr_null(pcln_link_new(&o, &err));
	ck_assert_int_eq(err.code, PCLN_EINVAL);
	l = pcln_link_new(NULL, &err);
	ck_assert_ptr_nonnull(l);
	ck_assert_int_eq(pcln_link_add_file(l, "/nonexistent/in.pcln", &err),
	    0);
	ck_assert_int_eq(pcln_link_run(l, &blob, &len, &err), -1);
	ck_assert_int_eq(err.code, PCLN_EIO);
	ck_assert_str_eq(err.msg, "/nonexistent/in.pcln: cannot open: "
	    "No such file or directory");
	ck_assert_int_eq(pcln_link_run(l, &blob, &len, &err), -1);
	ck_assert_int_eq(err.code, PCLN_EINVAL);
	pcln_link_free(l);
}
END_TEST

START_TEST(test_atomic_write)
{
	char dir[] = "/tmp/check_desc.XXXXXX", path[64], buf[16];
	pcln_err err;
	FILE *fp;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/out.bin", dir);
	ck_assert_int_eq(pcln_write_file_atomic(path, "old", 3, &err), 0);
	ck_assert_int_eq(pcln_write_file_atomic(path, "newer", 5, &err), 0);
	fp = fopen(path, "r");
	ck_assert_ptr_nonnull(fp);
	ck_assert_uint_eq(fread(buf, 1, sizeof buf, fp), 5);
	ck_assert_int_eq(memcmp(buf, "newer", 5), 0);
	fclose(fp);
	snprintf(path, sizeof path, "%s/nodir/out.bin", dir);
	ck_assert_int_eq(pcln_write_file_atomic(path, "x", 1, &err), -1);
	ck_assert_int_eq(err.code, PCLN_EIO);
	ck_assert_msg(strstr(err.msg, "nodir/out.bin: cannot create") != NULL,
	    "%s", err.msg);
	snprintf(path, sizeof path, "%s/out.bin", dir);
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(rmdir(dir), 0);	/* no temporary left over */
}
END_TEST

#ifdef MALLOC_WRAP
START_TEST(test_nomem)
{
	static const char a[] =
	    "target ptrsize 8\ndata d 0x100\nfile 1 x.go\n"
	    "func f size 0x20 align 16\npcsp 0:0 4:8\npcfile 0:a.go 8:b.go\n"
	    "pcln 0:1 8:2\npcdata 3 0:1\nfuncdata 2 d+8\nend\n"
	    "func g size 0x20 entry 0x2000\npcsp hex 02 20 00\n"
	    "pcfile hex 04 20 00\nend\n"
	    "func h size 8 dupok\npcln 0:1\nend\n";
	static const char b[] = "func h size 8 dupok\nend\n"
	    "func k size 8\npcsp 0:0 4:8\nend\n";
	long n;

	for (n = 1; n < 100000; n++) {
		pcln_link *l;
		uint8_t *blob = NULL;
		size_t len;
		pcln_err err;
		int rc = -1;

		memset(&err, 0, sizeof err);
		nalloc = 0;
		fail_at = n;
		l = pcln_link_new(NULL, &err);
		if (l != NULL &&
		    pcln_link_add_text(l, "a.pcln", a, sizeof a - 1, &err) == 0 &&
		    pcln_link_add_text(l, "b.pcln", b, sizeof b - 1, &err) == 0)
			rc = pcln_link_run(l, &blob, &len, &err);
		fail_at = -1;
		if (nalloc < n) {
			/* No allocation failed: the link must succeed. */
			pcln_table *t;
			ck_assert_msg(rc == 0, "n=%ld: %s", n, err.msg);
			t = pcln_open(blob, len, 0, &err);
			ck_assert_ptr_nonnull(t);
			ck_assert_uint_eq(pcln_nfunc(t), 4);
			pcln_close(t);
			free(blob);
			pcln_link_free(l);
			break;
		}
		ck_assert_msg(rc == -1, "n=%ld: allocation failed, link "
		    "succeeded", n);
		ck_assert_msg(err.code == PCLN_ENOMEM, "n=%ld: code %d (%s)",
		    n, err.code, err.msg);
		ck_assert_ptr_null(blob);
		pcln_link_free(l);
	}
	ck_assert_int_gt(n, 20);	/* the sweep did run */
}
END_TEST
#endif

static Suite *
desc_suite(void)
{
	Suite *s = suite_create("desc");
	TCase *tc;

	tc = tcase_create("reader");
	tcase_add_test(tc, test_target_data);
	tcase_add_test(tc, test_func);
	tcase_add_test(tc, test_tables);
	tcase_add_test(tc, test_funcdata);
	tcase_add_test(tc, test_unreadable);
	suite_add_tcase(s, tc);
	tc = tcase_create("errors");
	tcase_add_test(tc, test_nul);
	tcase_add_loop_test(tc, test_errors, 0, sizeof bad / sizeof bad[0]);
	suite_add_tcase(s, tc);
	tc = tcase_create("link");
	tcase_add_test(tc, test_place);
	tcase_add_test(tc, test_text_base_quantum);
	tcase_add_test(tc, test_files_funcdata);
	tcase_add_test(tc, test_hex);
	tcase_add_test(tc, test_dedupe_dupok);
	tcase_add_test(tc, test_deterministic);
	tcase_add_test(tc, test_one_read);
	tcase_add_test(tc, test_points_paths);
	tcase_add_test(tc, test_chunks);
	tcase_add_test(tc, test_api_misuse);
	tcase_add_test(tc, test_atomic_write);
	suite_add_tcase(s, tc);
#ifdef MALLOC_WRAP
	tc = tcase_create("nomem");
	tcase_add_test(tc, test_nomem);
	suite_add_tcase(s, tc);
#endif
	tc = tcase_create("link errors");
	tcase_add_loop_test(tc, test_link_errors, 0,
	    sizeof badlink / sizeof badlink[0]);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(desc_suite());
	int nfail;

	srunner_run_all(sr, CK_ENV);
	nfail = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nfail == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
