/* jit.c -- a tiny JIT: compiles a program of one-argument integer
 * functions to x86-64 machine code at run time, describes each function
 * to the pcln runtime (pclnrt_jit_module: entry, size, name, pcsp rows,
 * file:line rows) and registers it beside the program's own table, in
 * the registry of the crash examples' signal handler
 * (examples/crash_handler.c), so its traceback walks C -> JIT -> C ->
 * JIT frames with names, files and lines.  It also writes /tmp/perf-PID.map, the file
 * perf reads to name JIT code (and says so on standard error; remove it
 * when done with perf).
 *
 * The language (prog.expr, below; or a file given with -f):
 *   def NAME(x) = EXPR        EXPR: + - * / ( ), integers, x,
 *                             NAME(EXPR): a function of the program or
 *                             of the host (scale, visit: C functions)
 * Code generation is a stack machine on the machine stack: every push
 * and pop moves the stack pointer, and a pcsp row records each move, so
 * the walk finds the return address at any instruction.
 *
 * Usage: jit [-f FILE] [crash | loop SECONDS | run X...]
 *   crash (default): compute(3) divides by zero inside JIT code; the
 *     handler prints the traceback and the program dies of SIGFPE;
 *   loop: compute() over many x for SECONDS (for perf record);
 *   run: print compute(X) for each X.
 */
#define _GNU_SOURCE 1
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "pclnrt.h"
#include "crash_handler.h"

static const char default_prog[] =
	"# prog.expr -- compiled to x86-64 at run time by examples/jit.c\n"
	"def square(x) = x * x\n"
	"def divide(x) =\n"
	"    1000 /\n"
	"    (x - 3)\n"
	"def compute(x) =\n"
	"    scale(x)\n"
	"    + square(x + 1)\n"
	"    - visit(x) * 7\n";

#define MAXFN	64
#define MAXROW	512
#define HEAP	(1u << 20)

struct jitfn {
	char name[32];
	uint8_t *code;			/* in the code heap */
	uint32_t size;
	pclnrt_jitrow sp[MAXROW], line[MAXROW];
	uint32_t nsp, nline;
	pclnrt_module m;
	uint8_t *blob;
};

static struct jitfn fns[MAXFN];
static int nfns;
static uint8_t *heap;
static size_t heapused;
static const char *srcname = "prog.expr";

/* The crash handler's registry (examples/crash_handler.c): the
 * program's own table is there; the JIT adds its functions. */
static pclnrt_registry *registry;

static void
fatal(const char *what, int line)
{
	fprintf(stderr, "jit: %s:%d: %s\n", srcname, line, what);
	exit(1);
}

/* --- the host functions JIT code calls ---------------------------------- */

/* C called from JIT code, calling JIT code again (divide: set once the
 * program is compiled). */
long c_scale(long x) __attribute__((noinline));
long c_visit(long x) __attribute__((noinline));
static long (*divide)(long);

long
c_scale(long x)
{
	return 2 * divide(x) + 1;
}

long
c_visit(long x)
{
	return x & 3;
}

static const struct {
	const char *name;
	long (*fn)(long);
} host[] = { { "scale", c_scale }, { "visit", c_visit } };

/* --- the compiler -------------------------------------------------------- */

static struct jitfn *find_fn(const char *name);

struct lexer {
	const char *p;
	int line;
	char tok[32];		/* "" at the end */
	long num;
	int tokline;
};

static void
next(struct lexer *lx)
{
	int n = 0;

	for (;;) {
		if (*lx->p == '\n')
			lx->line++;
		if (*lx->p == '#')
			while (*lx->p != 0 && *lx->p != '\n')
				lx->p++;
		else if (*lx->p == ' ' || *lx->p == '\t' || *lx->p == '\n')
			lx->p++;
		else
			break;
	}
	lx->tokline = lx->line;
	if (*lx->p == 0) {
		lx->tok[0] = 0;
		return;
	}
	if ((*lx->p >= 'a' && *lx->p <= 'z') || *lx->p == '_' ||
	    (*lx->p >= '0' && *lx->p <= '9')) {
		while (n < 31 && ((*lx->p >= 'a' && *lx->p <= 'z') ||
		    *lx->p == '_' || (*lx->p >= '0' && *lx->p <= '9')))
			lx->tok[n++] = *lx->p++;
	} else {
		lx->tok[n++] = *lx->p++;
	}
	lx->tok[n] = 0;
	lx->num = strtol(lx->tok, NULL, 10);
}

static void
expect(struct lexer *lx, const char *t)
{
	if (strcmp(lx->tok, t) != 0) {
		char msg[80];

		snprintf(msg, sizeof msg, "expected \"%s\", found \"%s\"", t,
		    lx->tok);
		fatal(msg, lx->tokline);
	}
	next(lx);
}

/* The function being compiled, and its stack depth: bytes pushed since
 * the entry, which is its pcsp value. */
struct gen {
	struct jitfn *f;
	uint8_t *code;
	uint32_t len, depth;
	int line;
};

/* A row at the current offset (replacing one there already). */
static void
row(pclnrt_jitrow *rows, uint32_t *n, uint32_t off, int32_t value)
{
	if (*n > 0 && rows[*n - 1].off == off) {
		rows[*n - 1].value = value;
		return;
	}
	if (*n == MAXROW)
		fatal("function too long", 0);
	rows[*n].off = off;
	rows[*n].value = value;
	(*n)++;
}

static void
emit(struct gen *g, const void *bytes, uint32_t n)
{
	if (heapused + g->len + n > HEAP)
		fatal("code heap full", g->line);
	memcpy(g->code + g->len, bytes, n);
	g->len += n;
}

/* Emit one instruction that moves the stack pointer by DELTA bytes
 * (pushes positive); the new depth holds from the next instruction. */
static void
op(struct gen *g, const void *bytes, uint32_t n, int delta)
{
	emit(g, bytes, n);
	if (delta != 0) {
		g->depth += delta;
		row(g->f->sp, &g->f->nsp, g->len, (int32_t)g->depth);
	}
}

/* Source line LINE from here on. */
static void
at_line(struct gen *g, int line)
{
	g->line = line;
	if (g->f->nline == 0 || g->f->line[g->f->nline - 1].value != line)
		row(g->f->line, &g->f->nline, g->len, line);
}

static const uint8_t PUSH_RAX[] = { 0x50 }, POP_RAX[] = { 0x58 },
	POP_RCX[] = { 0x59 }, POP_RDI[] = { 0x5f }, PUSH_RDI[] = { 0x57 },
	ADD[] = { 0x48, 0x01, 0xc8 }, SUB[] = { 0x48, 0x29, 0xc8 },
	IMUL[] = { 0x48, 0x0f, 0xaf, 0xc1 }, CQO[] = { 0x48, 0x99 },
	IDIV[] = { 0x48, 0xf7, 0xf9 }, SUBRSP8[] = { 0x48, 0x83, 0xec, 8 },
	ADDRSP8[] = { 0x48, 0x83, 0xc4, 8 }, CALLRAX[] = { 0xff, 0xd0 },
	RET[] = { 0xc3 };

static void
mov_rax_imm(struct gen *g, uint64_t v)
{
	uint8_t b[10] = { 0x48, 0xb8 };

	memcpy(b + 2, &v, 8);
	op(g, b, 10, 0);
}

static void expr(struct lexer *lx, struct gen *g);

/* A call of NAME with the argument on the stack: the argument to rdi,
 * the stack aligned to 16 bytes at the call (the entry's sp is 8 past a
 * multiple of 16), the result pushed. */
static void
call(struct lexer *lx, struct gen *g, const char *name, int line)
{
	uint64_t target = 0;
	unsigned i;
	int pad;
	struct jitfn *f = find_fn(name);

	if (f != NULL)
		target = (uint64_t)(uintptr_t)f->code;
	for (i = 0; i < sizeof host / sizeof host[0] && target == 0; i++)
		if (strcmp(host[i].name, name) == 0)
			target = (uint64_t)(uintptr_t)host[i].fn;
	if (target == 0)
		fatal("call of an unknown function (define it first)", line);
	(void)lx;
	at_line(g, line);
	op(g, POP_RDI, 1, -8);
	pad = g->depth % 16 == 0;
	if (pad)
		op(g, SUBRSP8, 4, 8);
	mov_rax_imm(g, target);
	op(g, CALLRAX, 2, 0);
	if (pad)
		op(g, ADDRSP8, 4, -8);
	op(g, PUSH_RAX, 1, 8);
}

static void
factor(struct lexer *lx, struct gen *g)
{
	char name[32];
	int line = lx->tokline;

	if (lx->tok[0] >= '0' && lx->tok[0] <= '9') {
		at_line(g, line);
		mov_rax_imm(g, (uint64_t)lx->num);
		op(g, PUSH_RAX, 1, 8);
		next(lx);
	} else if (strcmp(lx->tok, "x") == 0) {
		/* mov rax, [rsp + depth - 8]: x, pushed at the entry */
		uint8_t b[8] = { 0x48, 0x8b, 0x84, 0x24 };
		uint32_t disp = g->depth - 8;

		at_line(g, line);
		memcpy(b + 4, &disp, 4);
		op(g, b, 8, 0);
		op(g, PUSH_RAX, 1, 8);
		next(lx);
	} else if (strcmp(lx->tok, "(") == 0) {
		next(lx);
		expr(lx, g);
		expect(lx, ")");
	} else if (lx->tok[0] >= 'a' && lx->tok[0] <= 'z') {
		snprintf(name, sizeof name, "%s", lx->tok);
		next(lx);
		expect(lx, "(");
		expr(lx, g);
		expect(lx, ")");
		call(lx, g, name, line);
	} else {
		fatal("expected a number, x, a call or (", line);
	}
}

/* Two operands on the stack: rcx the right, rax the left; the result
 * pushed. */
static void
binop(struct gen *g, char o, int line)
{
	at_line(g, line);
	op(g, POP_RCX, 1, -8);
	op(g, POP_RAX, 1, -8);
	switch (o) {
	case '+': op(g, ADD, 3, 0); break;
	case '-': op(g, SUB, 3, 0); break;
	case '*': op(g, IMUL, 4, 0); break;
	default: op(g, CQO, 2, 0); op(g, IDIV, 3, 0); break;
	}
	op(g, PUSH_RAX, 1, 8);
}

static void
term(struct lexer *lx, struct gen *g)
{
	factor(lx, g);
	while (strcmp(lx->tok, "*") == 0 || strcmp(lx->tok, "/") == 0) {
		char o = lx->tok[0];
		int line = lx->tokline;

		next(lx);
		factor(lx, g);
		binop(g, o, line);
	}
}

static void
expr(struct lexer *lx, struct gen *g)
{
	term(lx, g);
	while (strcmp(lx->tok, "+") == 0 || strcmp(lx->tok, "-") == 0) {
		char o = lx->tok[0];
		int line = lx->tokline;

		next(lx);
		term(lx, g);
		binop(g, o, line);
	}
}

static struct jitfn *
find_fn(const char *name)
{
	int i;

	for (i = nfns - 1; i >= 0; i--)	/* the latest definition */
		if (strcmp(fns[i].name, name) == 0)
			return &fns[i];
	return NULL;
}

/* Describe F to the runtime and register it. */
static void
publish(struct jitfn *f)
{
	pclnrt_jitfunc d;
	size_t need;
	int rc;

	memset(&d, 0, sizeof d);
	d.entry = (uint64_t)(uintptr_t)f->code;
	d.size = f->size;
	d.name = f->name;
	d.pcsp.row = f->sp;
	d.pcsp.nrow = f->nsp;
	d.file = srcname;
	d.line.row = f->line;
	d.line.nrow = f->nline;
	need = pclnrt_jit_size(&d);
	if (need == 0 || (f->blob = malloc(need)) == NULL ||
	    pclnrt_jit_module(&f->m, f->blob, need, &d, NULL) != PCLNRT_OK)
		fatal("cannot describe a function", 0);
	if ((rc = pclnrt_register(registry, &f->m)) != PCLNRT_OK) {
		fprintf(stderr, "jit: %s: cannot register (%d)\n", f->name, rc);
		exit(1);
	}
}

/* def NAME(x) = EXPR */
static void
compile_def(struct lexer *lx)
{
	struct jitfn *f;
	struct gen g;

	expect(lx, "def");
	if (nfns == MAXFN)
		fatal("too many functions", lx->tokline);
	f = &fns[nfns];
	memset(f, 0, sizeof *f);
	snprintf(f->name, sizeof f->name, "%s", lx->tok);
	next(lx);
	expect(lx, "(");
	expect(lx, "x");
	expect(lx, ")");
	expect(lx, "=");
	heapused = (heapused + 15) & ~(size_t)15;
	memset(&g, 0, sizeof g);
	g.f = f;
	g.code = f->code = heap + heapused;
	row(f->sp, &f->nsp, 0, 0);
	at_line(&g, lx->tokline);
	op(&g, PUSH_RDI, 1, 8);			/* x at [rsp + depth - 8] */
	expr(lx, &g);
	op(&g, POP_RAX, 1, -8);
	op(&g, ADDRSP8, 4, -8);
	emit(&g, RET, 1);
	/* The last row starts at the ret: depth 0, as at the entry. */
	f->size = g.len;
	heapused += g.len;
	nfns++;
	publish(f);
}

static void
compile(const char *text)
{
	struct lexer lx;

	memset(&lx, 0, sizeof lx);
	lx.p = text;
	lx.line = 1;
	next(&lx);
	while (lx.tok[0] != 0)
		compile_def(&lx);
}

/* perf's map of JIT code: "START SIZE NAME" in hex, one per function. */
static void
write_perf_map(void)
{
	char path[64];
	FILE *f;
	int i;

	snprintf(path, sizeof path, "/tmp/perf-%d.map", (int)getpid());
	if ((f = fopen(path, "w")) == NULL) {
		perror(path);
		return;
	}
	for (i = 0; i < nfns; i++)
		if (fns[i].m.id != 0)	/* registered: the live ones */
			fprintf(f, "%" PRIxPTR " %" PRIx32 " %s\n",
			    (uintptr_t)fns[i].code, fns[i].size, fns[i].name);
	if (fclose(f) != 0)
		perror(path);
	else
		fprintf(stderr, "jit: perf map %s\n", path);
}

static void
setup(void)
{
	crash_handler_install("jit");
	registry = crash_handler_registry();
	heap = mmap(NULL, HEAP, PROT_READ | PROT_WRITE | PROT_EXEC,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (heap == MAP_FAILED) {
		perror("jit: mmap of the code heap");
		exit(1);
	}
}

/* Retire function F: after pclnrt_unregister no lookup finds it, and
 * once pclnrt_module_reusable says so no reader holds its description
 * (nor, the JIT's business, runs its code): both may be reused. */
static void
retire(struct jitfn *f)
{
	if (pclnrt_unregister(registry, &f->m) != PCLNRT_OK)
		fatal("cannot retire a function", 0);
	while (!pclnrt_module_reusable(registry, &f->m))
		;	/* a reader inside a bracket: wait for it */
	free(f->blob);
	f->blob = NULL;
}

/* --- running it -------------------------------------------------------- */

long run(long (*fn)(long), long x) __attribute__((noinline));

long
run(long (*fn)(long), long x)
{
	return fn(x) + 1;
}

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int
main(int argc, char **argv)
{
	const char *text = default_prog, *mode = "crash";
	static char buf[65536];
	long (*compute)(long);
	struct jitfn *c;
	int a = 1;

	if (argc > 2 && strcmp(argv[1], "-f") == 0) {
		FILE *f = fopen(argv[2], "r");
		size_t n;

		if (f == NULL) {
			perror(argv[2]);
			return 1;
		}
		n = fread(buf, 1, sizeof buf - 1, f);
		buf[n] = 0;
		fclose(f);
		text = buf;
		srcname = argv[2];
		a = 3;
	}
	if (a < argc)
		mode = argv[a++];
	setup();
	/* A function used once, then retired. */
	compile("def warmup(x) = x + 1\n");
	if (((long (*)(long))(void *)find_fn("warmup")->code)(41) != 42)
		fatal("the code generator is broken", 0);
	retire(find_fn("warmup"));
	compile(text);
	write_perf_map();
	if ((c = find_fn("compute")) == NULL || find_fn("divide") == NULL)
		fatal("the program defines no compute(x) or divide(x)", 0);
	divide = (long (*)(long))(void *)find_fn("divide")->code;
	compute = (long (*)(long))(void *)c->code;
	if (strcmp(mode, "run") == 0) {
		for (; a < argc; a++) {
			long x = strtol(argv[a], NULL, 10);
			printf("compute(%ld) = %ld\n", x, run(compute, x) - 1);
		}
	} else if (strcmp(mode, "loop") == 0) {
		double end = now() + (a < argc ? atof(argv[a]) : 1.0);
		long x, sum = 0, n = 0;

		while (now() < end)
			for (x = 4; x < 65536 + 4; x++, n++)
				sum += run(compute, x);
		printf("%ld calls, sum %ld\n", n, sum);
	} else {
		printf("compute(3) = %ld\n", run(compute, 3));	/* dies */
	}
	return 0;
}
