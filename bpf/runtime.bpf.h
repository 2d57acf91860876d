/* runtime.bpf.h -- the runtime's lookups for BPF programs: the code map
 * (pclnrt_cm_find_: pc -> module), pclnrt_findfunc, pclnrt_pcsp,
 * pclnrt_funcline, ..., compiled from the runtime's own sources
 * (runtime/rt_codemap.h, runtime/pclnrt.c) with clang -target bpf and
 * the portability layer of runtime/pclnrt_format.h: blob positions are
 * offsets into the blob store (an array map of chunks), the blob reads
 * are this file's, every loop has a constant bound.  The code map's
 * root, nodes and modules are array maps (store, cmroot, cmnodes,
 * cmmods) the loader fills from a host registry (bpf/maps.c).
 *
 * Included once by each BPF program (pclnrt.bpf.c, unwind.bpf.c).
 */
#ifndef PCLN_RUNTIME_BPF_H
#define PCLN_RUNTIME_BPF_H

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
static pclnrt_str pclnrt_symname(const pclnrt_func *);
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

#endif /* PCLN_RUNTIME_BPF_H */
