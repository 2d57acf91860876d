/* rt_codemap.h -- the code map's lookup: run-time pc to module in at
 * most 1 + PCLNRT_CM_LEVELS slot loads (pclnrt.h explains the tree).
 *
 * Shared by the host runtime (codemap.c) and the BPF build (bpf/), which
 * keeps the tree in BPF maps: it defines PCLNRT_CM_LDROOT, PCLNRT_CM_LDSLOT
 * and PCLNRT_CM_LDMOD (reading a map, 0 or NULL when out of range)
 * before including this file.  Not installed.  static inline: no symbol
 * of its own.  Allocates nothing, takes no lock, writes nothing, safe in
 * a signal handler; one loop of at most PCLNRT_CM_LEVELS steps.
 */
#ifndef PCLNRT_CODEMAP_PRIVATE_H
#define PCLNRT_CODEMAP_PRIVATE_H

#include "pclnrt.h"

/* A slot: 0 empty; (number << 1) a module; (index << 1) | 1 a node. */
#define PCLNRT_CM_ISNODE(v)	((v) & 1u)
#define PCLNRT_CM_INDEX(v)	((v) >> 1)
#define PCLNRT_CM_MKNODE(i)	(((uint32_t)(i) << 1) | 1u)
#define PCLNRT_CM_MKMOD(id)	((uint32_t)(id) << 1)
/* Granules (pc >> 4) below a slot of level K (0 the root), as a shift:
 * a root slot covers 2^56 granules, a level-K node's slot 2^(8 (7 - K)). */
#define PCLNRT_CM_GBITS		4
#define PCLNRT_CM_GSHIFT(k)	((k) == 0 ? 56u : 8u * (PCLNRT_CM_LEVELS - (k)))

/* Host accessors: acquire loads, so that a node or module found is seen
 * as it was written before it was published. */
#ifndef PCLNRT_CM_LDSLOT
#define PCLNRT_CM_LDROOT(r, i) \
	atomic_load_explicit(&(r)->root[i], memory_order_acquire)
#define PCLNRT_CM_LDSLOT(r, n, i) \
	atomic_load_explicit(&(r)->node[n].slot[i], memory_order_acquire)
#define PCLNRT_CM_LDMOD(r, id) \
	atomic_load_explicit(&(r)->region[id], memory_order_acquire)
#endif

static inline int
pclnrt_cm_find_(const pclnrt_registry *r, uint64_t pc,
    const pclnrt_module **mp)
{
	const pclnrt_module *m;
	uint64_t g = pc >> PCLNRT_CM_GBITS;
	uint32_t v;
	unsigned k;

	v = PCLNRT_CM_LDROOT(r, (uint32_t)(g >> 56));
	for (k = 1; k <= PCLNRT_CM_LEVELS && PCLNRT_CM_ISNODE(v); k++)
		v = PCLNRT_CM_LDSLOT(r, PCLNRT_CM_INDEX(v),
		    (uint32_t)(g >> PCLNRT_CM_GSHIFT(k)) & 0xff);
	if (v == 0 || PCLNRT_CM_ISNODE(v))
		return PCLNRT_NOTFOUND;
	m = PCLNRT_CM_LDMOD(r, PCLNRT_CM_INDEX(v));
	if (m == NULL || pc < m->lo || pc >= m->hi)
		return PCLNRT_NOTFOUND;
	*mp = m;
	return PCLNRT_OK;
}

#endif /* PCLNRT_CODEMAP_PRIVATE_H */
