/* pclnrt.bpf.c -- the runtime's lookups as a BPF program: the code map
 * (pc -> module), pclnrt_findfunc, pclnrt_pcsp and pclnrt_funcline,
 * compiled from the runtime's own sources (runtime/rt_codemap.h,
 * runtime/pclnrt.c) with clang -target bpf and the portability layer of
 * runtime/pclnrt_format.h: blob positions are offsets into the blob
 * store (an array map of chunks), the blob reads are this file's,
 * every loop has a constant bound.  The code map's root, nodes and
 * modules are array maps filled by the loader from a host registry.
 *
 * One program, of type BPF_PROG_TYPE_SYSCALL, run with
 * BPF_PROG_TEST_RUN: it answers the batch of pcs in map "pcs" into map
 * "answers" (check_bpf.c compares every answer with the C runtime's).
 */
#include <stdint.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "pcln_bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);		/* set by the loader */
	__type(key, __u32);
	__type(value, struct pcln_bpf_chunk);
} store SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pcln_bpf_root);
} cmroot SEC(".maps");

/* The runtime's own types, compiled for BPF below (the portability
 * layer of runtime/pclnrt_format.h): positions are store offsets. */
#define PCLNRT_BPF 1
typedef uint64_t pclnrt_bptr;
typedef uint64_t pclnrt_str;
#define PCLNRT_STR(p)		(p)
#define PCLNRT_NOSTR		0
#define PCLNRT_BOUND(k, n)	((k) < (n))
#define PCLNRT_WHILE(k, n, cond) for ((k) = 0; (k) < (n) && (cond); (k)++)

/* The blob reads: global functions, which the verifier checks once each
 * (with an unknown position) rather than at every call; a position
 * outside the store reads as 0.  Every other runtime function is
 * inlined into the program. */
#define CHUNK_OF_(p)	((__u32)((p) >> PCLN_BPF_CHUNK_SHIFT))
#define IN_CHUNK_(p)	((p) & (PCLN_BPF_CHUNK - 1))

/* The N <= 8 bytes at store position P, or NULL (outside the store). */
static __always_inline const unsigned char *
at_(uint64_t p)
{
	__u32 k = CHUNK_OF_(p);
	struct pcln_bpf_chunk *c = bpf_map_lookup_elem(&store, &k);

	return c != 0 ? c->b + IN_CHUNK_(p) : 0;
}

__attribute__((noinline)) uint8_t
pclnrt_load8(uint64_t p)
{
	const unsigned char *q = at_(p);

	return q != 0 ? q[0] : 0;
}

__attribute__((noinline)) uint32_t
pclnrt_load16(uint64_t p, int big)
{
	const unsigned char *q = at_(p);

	if (q == 0)
		return 0;
	return big ? (uint32_t)q[0] << 8 | q[1] : (uint32_t)q[1] << 8 | q[0];
}

__attribute__((noinline)) uint32_t
pclnrt_load32(uint64_t p, int big)
{
	const unsigned char *q = at_(p);

	if (q == 0)
		return 0;
	if (big)
		return (uint32_t)q[0] << 24 | (uint32_t)q[1] << 16 |
		    (uint32_t)q[2] << 8 | (uint32_t)q[3];
	return (uint32_t)q[3] << 24 | (uint32_t)q[2] << 16 |
	    (uint32_t)q[1] << 8 | (uint32_t)q[0];
}

/* The pc-value stepper, also checked once: a global wrapper (a global
 * function's pointer argument may be NULL), which the runtime's calls
 * reach through the function-like macro below. */
#pragma clang attribute push (__attribute__((always_inline)), apply_to = function)
#include "pclnrt_format.h"
#pragma clang attribute pop

__attribute__((noinline)) int
pcln_bpf_pcstep(struct pclnrt_pcstep *s)
{
	return s != 0 ? pclnrt_pcstep(s) : -1;
}
#define pclnrt_pcstep(s)	pcln_bpf_pcstep(s)

/* The function search, the checkpoint resume and the size of a function
 * without FUNCSIZE, likewise (the runtime's pclnrt.c calls them); a BPF
 * function takes at most five arguments, so theirs travel in a struct. */
struct pcln_bpf_q {
	uint64_t a, b, c, d, e, f, g;
	uint32_t x, y, z;
};

__attribute__((noinline)) uint64_t
pcln_bpf_functab_find(const struct pcln_bpf_q *q)
{
	if (q == 0)
		return 0;
	return pclnrt_functab_find(q->a, q->x, (int)q->y, q->b, q->c, q->d,
	    q->e);
}
#define pclnrt_functab_find(functab, ps, big, nfunc, ix, minpc, pc) \
	pcln_bpf_functab_find(&(struct pcln_bpf_q){ .a = (functab), \
	    .x = (ps), .y = (uint32_t)(big), .b = (nfunc), .c = (ix), \
	    .d = (minpc), .e = (pc) })

__attribute__((noinline)) int
pcln_bpf_pcstep_seek(struct pclnrt_pcstep *s, const struct pcln_bpf_q *q)
{
	if (s == 0 || q == 0)
		return -1;
	pclnrt_pcstep_seek(s, q->a, q->b, (int)q->y, q->c, q->d, q->x, q->e);
	return 0;
}
#define pclnrt_pcstep_seek(s, ck, cklen, big, nfunc, fi, table, pc) \
	((void)pcln_bpf_pcstep_seek((s), &(struct pcln_bpf_q){ .a = (ck), \
	    .b = (cklen), .y = (uint32_t)(big), .c = (nfunc), .d = (fi), \
	    .x = (table), .e = (pc) }))

__attribute__((noinline)) int
pcln_bpf_func_end(const struct pcln_bpf_q *q, uint64_t *end)
{
	if (q == 0 || end == 0)
		return -1;
	return pclnrt_func_end(q->a, q->b, q->c, q->x, (int)q->y, q->z, q->d,
	    q->e, q->f, end);
}
#define pclnrt_func_end(b_, len, tabend, ps, big, q_, funcoff, entry, \
    next, end) \
	pcln_bpf_func_end(&(struct pcln_bpf_q){ .a = (b_), .b = (len), \
	    .c = (tabend), .x = (ps), .y = (uint32_t)(big), .z = (q_), \
	    .d = (funcoff), .e = (entry), .f = (next) }, (end))

/* Every other runtime function inlined into the program: the verifier
 * then sees one frame, and pointers to the stack and maps keep their
 * types.  Declared static before pclnrt.h declares them, so that their
 * definitions in pclnrt.c have internal linkage (C11 6.2.2) and none is
 * emitted as a BPF function of its own (which may take at most five
 * arguments). */
#pragma clang attribute push (__attribute__((always_inline)), apply_to = function)
typedef struct pclnrt_table pclnrt_table;
typedef struct pclnrt_func pclnrt_func;
static int pclnrt_findfunc(const pclnrt_table *, uint64_t, pclnrt_func *);
static int pclnrt_pcvalue(const pclnrt_func *, int, uint64_t, int32_t *,
    uint64_t *, uint64_t *);
static int pclnrt_pcsp(const pclnrt_func *, uint64_t, int32_t *);
static int pclnrt_pcfile(const pclnrt_func *, uint64_t, int32_t *);
static int pclnrt_pcdata(const pclnrt_func *, uint32_t, uint64_t, int32_t *);
static int pclnrt_funcdata(const pclnrt_func *, uint32_t, uint64_t *);
static pclnrt_str pclnrt_filename(const pclnrt_table *, int32_t);
static int pclnrt_funcline(const pclnrt_func *, uint64_t, pclnrt_str *,
    int32_t *);
#include "pclnrt.h"
#include "../runtime/pclnrt.c"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pcln_bpf_node);
} cmnodes SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, pclnrt_module);
} cmmods SEC(".maps");

static __always_inline __u32
cm_root(__u32 i)
{
	__u32 z = 0;
	struct pcln_bpf_root *r = bpf_map_lookup_elem(&cmroot, &z);

	return r != 0 ? r->slot[i & 15] : 0;
}

static __always_inline __u32
cm_slot(__u32 n, __u32 i)
{
	struct pcln_bpf_node *c = bpf_map_lookup_elem(&cmnodes, &n);

	return c != 0 ? c->slot[i & 255] : 0;
}

static __always_inline const pclnrt_module *
cm_mod(__u32 id)
{
	return bpf_map_lookup_elem(&cmmods, &id);
}

#define PCLNRT_CM_LDROOT(r, i)		cm_root(i)
#define PCLNRT_CM_LDSLOT(r, n, i)	cm_slot(n, i)
#define PCLNRT_CM_LDMOD(r, id)		cm_mod(id)
#include "../runtime/rt_codemap.h"
#pragma clang attribute pop

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, PCLN_BPF_BATCH);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, __u64);
} pcs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, PCLN_BPF_BATCH);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct pcln_bpf_answer);
} answers SEC(".maps");

/* Look up one pc: the code map, then the module's table. */
static __noinline int
answer(__u64 pc, struct pcln_bpf_answer *a)
{
	const pclnrt_module *m;
	pclnrt_func f;
	pclnrt_str path;
	__s32 v, line;
	__u64 link;

	a->rc_func = pclnrt_cm_find_(0, pc, &m);
	if (a->rc_func != PCLNRT_OK)
		return 0;
	a->module = m->id;
	link = pc - m->bias;
	a->rc_func = pclnrt_findfunc(&m->table, link, &f);
	if (a->rc_func != PCLNRT_OK)
		return 0;
	a->entry = f.entry;
	a->end = f.end;
	a->name = f.name;
	a->index = f.index;
	a->rc_sp = pclnrt_pcsp(&f, link, &v);
	a->sp = a->rc_sp == PCLNRT_OK ? v : 0;
	a->rc_line = pclnrt_funcline(&f, link, &path, &line);
	a->line = line;
	a->file = path;
	return 0;
}

static long
one(__u32 i, void *ctx)
{
	struct pcln_bpf_answer *a = bpf_map_lookup_elem(&answers, &i);
	__u64 *pc = bpf_map_lookup_elem(&pcs, &i);
	struct pcln_bpf_args *args = ctx;

	if (a == 0 || pc == 0)
		return 1;
	__builtin_memset(a, 0, sizeof *a);
	answer(*pc, a);
	args->done = i + 1;
	return 0;
}

SEC("syscall")
int
pcln_lookup(struct pcln_bpf_args *ctx)
{
	struct pcln_bpf_args args = { 0, 0 };

	args.n = ctx->n;
	if (args.n > PCLN_BPF_BATCH)
		args.n = PCLN_BPF_BATCH;
	bpf_loop(args.n, one, &args, 0);
	ctx->done = args.done;
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
