/* codemap.c -- the registry: a code map from run-time pc to module,
 * changed by writers while readers look up without locks.
 *
 * The tree (pclnrt.h): a root of 16 slots and levels 1..7 of 256-slot
 * nodes over the pc's granule number g = pc >> 4.  Invariant: a slot
 * holds a module iff that module is the only one meeting the slot's
 * range, and a node iff two or more do.  So a node's range holds a
 * module's first or last granule, which bounds the nodes by 2 * 7 per
 * module, and a module's slots are the top-most slots where it is alone.
 *
 * Publication: a node is filled completely before the release store
 * that links it, and a module's pointer is stored (release) before any
 * slot names it, so an acquire reader sees each whole or not at all.
 * Removal clears the module's slots, folds nodes left with one module or
 * none back into their parent slot, and puts the nodes and the module
 * number on a retired list stamped with the removal's epoch; they are
 * reused only when no reader record can still be inside a bracket it
 * entered before that epoch.
 *
 * The epoch protocol (a reader: announce, fence, read; a writer:
 * unpublish, advance the epoch, fence, look at the announcements) is the
 * store-load pattern that needs sequential consistency on both sides:
 * with both fences, either the writer sees the reader's announcement, or
 * the reader's loads see the unpublished slots.  Only pointer-sized and
 * 32-bit atomics: lock-free on every target built for, no libatomic.
 */
#include "pclnrt.h"
#include "rt_codemap.h"

#define LEVELS		PCLNRT_CM_LEVELS
#define GSHIFT(k)	PCLNRT_CM_GSHIFT(k)
#define NONE		UINT32_MAX

#define ld_relaxed(p)	atomic_load_explicit((p), memory_order_relaxed)
#define st_relaxed(p, v) atomic_store_explicit((p), (v), memory_order_relaxed)
#define st_release(p, v) atomic_store_explicit((p), (v), memory_order_release)

/* A CPU hint for spin loops. */
#if defined(__x86_64__) || defined(__i386__)
#define SPIN_HINT()	__builtin_ia32_pause()
#else
#define SPIN_HINT()	((void)0)
#endif

static void
lock(pclnrt_registry *r)
{
	while (atomic_flag_test_and_set_explicit(&r->lock,
	    memory_order_acquire))
		SPIN_HINT();
}

static void
unlock(pclnrt_registry *r)
{
	atomic_flag_clear_explicit(&r->lock, memory_order_release);
}

/* N / D by shifts and subtractions: the runtime has no division
 * (32-bit targets would call a libgcc helper).  D > 0. */
static uintptr_t
udiv(uintptr_t n, uintptr_t d)
{
	uintptr_t q = 0, r = 0;
	int k;

	for (k = (int)(8 * sizeof n) - 1; k >= 0; k--) {
		r = r << 1 | ((n >> k) & 1);
		if (r >= d) {
			r -= d;
			q |= (uintptr_t)1 << k;
		}
	}
	return q;
}

/* Round P up to a multiple of A (a power of two). */
static uintptr_t
align_up(uintptr_t p, uintptr_t a)
{
	return (p + a - 1) & ~(a - 1);
}

/* Each registry's generations start GENERATION_STRIDE above the last
 * one's: distinct while a registry sees fewer (un)registrations than
 * the stride (2^32 on 64-bit hosts, 2^16 on 32-bit ones). */
#define GENERATION_STRIDE	((size_t)1 << (sizeof(size_t) >= 8 ? 32 : 16))
static atomic_size_t generation_base;

int
pclnrt_registry_init(pclnrt_registry *r, void *mem, size_t size,
    size_t nmodule, size_t nreader)
{
	uintptr_t p = (uintptr_t)mem, end = p + size, q;
	size_t i, nnode;

	for (i = 0; i < PCLNRT_CM_ROOT; i++)
		atomic_init(&r->root[i], 0);
	r->region = NULL;
	r->node = NULL;
	r->reader = NULL;
	r->rmeta = r->nmeta = NULL;
	r->nregion = r->nnode = r->nreader = 0;
	atomic_init(&r->epoch, 1);
	/* A generation no registry of this process has had: caches keyed
	 * by (registry address, generation), the step cache's, never take
	 * a registry made again at the same address for the old one. */
	atomic_init(&r->generation, atomic_fetch_add(&generation_base,
	    GENERATION_STRIDE));
	atomic_flag_clear(&r->lock);
	r->rfree = r->rlimbo = r->rlimbo_tail = 0;
	r->nfree = r->nlimbo = r->nlimbo_tail = 0;
	r->nregistered = r->nodes_used = r->nodes_retired = 0;
	r->safe = 1;
	if (mem == NULL || end < p || nmodule >= UINT32_MAX / 2 ||
	    nreader >= UINT32_MAX)
		return PCLNRT_FULL;
	/* Readers first, on cache lines of their own; then the module
	 * pointers and metadata (numbers 1..nmodule), then the nodes. */
	q = align_up(p, 64);
	if (q > end || nreader > udiv(end - q, sizeof(pclnrt_reader)))
		return PCLNRT_FULL;
	r->reader = (pclnrt_reader *)q;
	q += nreader * sizeof(pclnrt_reader);
	q = align_up(q, sizeof(uintptr_t));
	if (q > end || nmodule + 1 > udiv(end - q, sizeof(void *) +
	    sizeof(struct pclnrt_cmmeta)))
		return PCLNRT_FULL;
	r->region = (_Atomic(pclnrt_module *) *)q;
	q += (nmodule + 1) * sizeof(void *);
	q = align_up(q, sizeof(uintptr_t));
	r->rmeta = (struct pclnrt_cmmeta *)q;
	q += (nmodule + 1) * sizeof(struct pclnrt_cmmeta);
	q = align_up(q, 64);
	nnode = q > end ? 0 : udiv(end - q, sizeof(pclnrt_cmnode) +
	    sizeof(struct pclnrt_cmmeta));
	if (nnode == 0)
		return PCLNRT_FULL;
	if (nnode > UINT32_MAX / 2 - 1)
		nnode = UINT32_MAX / 2 - 1;
	r->node = (pclnrt_cmnode *)q;
	r->nmeta = (struct pclnrt_cmmeta *)(q + nnode * sizeof(pclnrt_cmnode));
	for (i = 0; i < nreader; i++) {
		atomic_init(&r->reader[i].epoch, 0);
		atomic_init(&r->reader[i].nest, 0);
		atomic_init(&r->reader[i].claimed, 0);
	}
	for (i = 0; i <= nmodule; i++) {
		atomic_init(&r->region[i], NULL);
		r->rmeta[i].next = i > 0 && i < nmodule ? (uint32_t)i + 1 : 0;
		r->rmeta[i].nused = 0;
		r->rmeta[i].ticket = 0;
	}
	/* Free lists: module numbers 1..nmodule; nodes by index + 1. */
	r->rfree = nmodule > 0 ? 1 : 0;
	for (i = 0; i < nnode; i++) {
		r->nmeta[i].next = i + 1 < nnode ? (uint32_t)i + 2 : 0;
		r->nmeta[i].nused = 0;
		r->nmeta[i].ticket = 0;
	}
	r->nfree = 1;
	r->nregion = (uint32_t)nmodule + 1;
	r->nnode = (uint32_t)nnode;
	r->nreader = (uint32_t)nreader;
	return PCLNRT_OK;
}

/* --- readers ----------------------------------------------------------- */

pclnrt_reader *
pclnrt_reader_claim(pclnrt_registry *r)
{
	uint32_t i;

	for (i = 0; i < r->nreader; i++) {
		int free_ = 0;

		if (atomic_compare_exchange_strong(&r->reader[i].claimed,
		    &free_, 1))
			return &r->reader[i];
	}
	return NULL;
}

void
pclnrt_reader_release(pclnrt_registry *r, pclnrt_reader *rd)
{
	(void)r;
	st_relaxed(&rd->nest, 0);
	st_release(&rd->epoch, 0);
	atomic_store_explicit(&rd->claimed, 0, memory_order_release);
}

/* Enter: count the depth first, then announce if nobody on this thread
 * has: a signal handler landing anywhere in here either sees the
 * announcement made or makes its own, which the interrupted code then
 * keeps (it is older than anything it reads).  Exit: the depth first,
 * then withdraw at depth 0, so that a handler landing in between still
 * finds the record announced. */
void
pclnrt_read_enter(pclnrt_registry *r, pclnrt_reader *rd)
{
	unsigned n = ld_relaxed(&rd->nest);

	st_relaxed(&rd->nest, n + 1);
	atomic_signal_fence(memory_order_seq_cst);
	if (ld_relaxed(&rd->epoch) == 0) {
		st_relaxed(&rd->epoch, atomic_load_explicit(&r->epoch,
		    memory_order_acquire));
		atomic_thread_fence(memory_order_seq_cst);
	}
}

void
pclnrt_read_exit(pclnrt_registry *r, pclnrt_reader *rd)
{
	unsigned n = ld_relaxed(&rd->nest);

	(void)r;
	if (n == 0)
		return;		/* unbalanced: ignore */
	st_relaxed(&rd->nest, n - 1);
	atomic_signal_fence(memory_order_seq_cst);
	if (n == 1)
		st_release(&rd->epoch, 0);
}

static int
passed(uintptr_t horizon_, uintptr_t ticket)
{
	return (intptr_t)(horizon_ - ticket) >= 0;
}

/* The oldest epoch a reader may be using: the current one, or an older
 * announcement.  Anything retired at a ticket <= the horizon is free.
 *
 * It never goes back (R->safe, under the lock).  An announcement can be
 * older than a horizon computed before it: read_enter loads the epoch,
 * is preempted while writers advance it and see the record at 0, then
 * stores the old value.  That reader cannot hold what they retired (its
 * loads follow its fence, so they see the removals, as above), yet the
 * announcement would pull the horizon back: a module that
 * pclnrt_module_reusable called free would then wait for its number, and
 * pclnrt_register would answer PCLNRT_FULL. */
static uintptr_t
horizon(pclnrt_registry *r)
{
	uintptr_t h, e;
	uint32_t i;

	atomic_thread_fence(memory_order_seq_cst);
	h = atomic_load_explicit(&r->epoch, memory_order_relaxed);
	for (i = 0; i < r->nreader; i++) {
		e = atomic_load_explicit(&r->reader[i].epoch,
		    memory_order_acquire);
		if (e != 0 && (intptr_t)(e - h) < 0)
			h = e;
	}
	if (passed(r->safe, h))
		return r->safe;
	r->safe = h;
	return h;
}

/* Move retired nodes and module numbers no reader can hold to the free
 * lists (the retired lists are in ticket order). */
static void
reclaim(pclnrt_registry *r)
{
	uintptr_t h;
	uint32_t i;

	if (r->nlimbo == 0 && r->rlimbo == 0)
		return;
	h = horizon(r);
	while ((i = r->nlimbo) != 0 && passed(h, r->nmeta[i - 1].ticket)) {
		r->nlimbo = r->nmeta[i - 1].next;
		r->nmeta[i - 1].next = r->nfree;
		r->nfree = i;
		r->nodes_retired--;
	}
	if (r->nlimbo == 0)
		r->nlimbo_tail = 0;
	while ((i = r->rlimbo) != 0 && passed(h, r->rmeta[i].ticket)) {
		r->rlimbo = r->rmeta[i].next;
		r->rmeta[i].next = r->rfree;
		r->rfree = i;
	}
	if (r->rlimbo == 0)
		r->rlimbo_tail = 0;
}

int
pclnrt_module_reusable(pclnrt_registry *r, const pclnrt_module *m)
{
	int ok;

	lock(r);
	if (m->id != 0)
		ok = 0;
	else
		ok = m->ticket == 0 || passed(horizon(r), m->ticket);
	unlock(r);
	return ok;
}

/* --- writers ----------------------------------------------------------- */

/* Granules [*LO, *HI] of module M; 0 if its range is empty. */
static int
granules(const pclnrt_module *m, uint64_t *lo, uint64_t *hi)
{
	if (m->hi <= m->lo)
		return 0;
	*lo = m->lo >> PCLNRT_CM_GBITS;
	*hi = (m->hi - 1) >> PCLNRT_CM_GBITS;
	return 1;
}

/* The slots J0..J1 of a level-K node under a parent slot covering
 * granules from BASE that meet granules [LO, HI]. */
static void
span(unsigned k, uint64_t base, uint64_t lo, uint64_t hi, uint32_t *j0,
    uint32_t *j1)
{
	unsigned s = GSHIFT(k);
	uint64_t last = base + (((uint64_t)PCLNRT_CM_FANOUT << s) - 1);

	*j0 = lo <= base ? 0 : (uint32_t)((lo - base) >> s);
	*j1 = hi >= last ? PCLNRT_CM_FANOUT - 1 : (uint32_t)((hi - base) >> s);
}

static const pclnrt_module *
module_of(const pclnrt_registry *r, uint32_t v)
{
	return ld_relaxed(&r->region[PCLNRT_CM_INDEX(v)]);
}

/* Can granules [LO, HI] go where slot value V of level K (covering
 * granules from BASE) is?  Adds to *NEED the nodes it will take. */
static int
check(const pclnrt_registry *r, uint32_t v, unsigned k, uint64_t base,
    uint64_t lo, uint64_t hi, uint32_t *need)
{
	uint32_t j, j0, j1;

	if (v == 0)
		return PCLNRT_OK;
	if (!PCLNRT_CM_ISNODE(v)) {
		const pclnrt_module *s = module_of(r, v);
		uint64_t slo, shi, a, b;
		unsigned l;

		if (!granules(s, &slo, &shi) || (slo <= hi && shi >= lo))
			return PCLNRT_OVERLAP;
		/* Apart in this slot: a chain of new nodes down to the
		 * level where the facing granules A and B part. */
		a = shi < lo ? shi : hi;
		b = shi < lo ? lo : slo;
		(*need)++;
		for (l = k + 1; l < LEVELS && (a >> GSHIFT(l)) ==
		    (b >> GSHIFT(l)); l++)
			(*need)++;
		return PCLNRT_OK;
	}
	span(k + 1, base, lo, hi, &j0, &j1);
	for (j = j0; j <= j1; j++) {
		uint32_t n = PCLNRT_CM_INDEX(v);
		int rc = check(r, ld_relaxed(&r->node[n].slot[j]), k + 1,
		    base + ((uint64_t)j << GSHIFT(k + 1)), lo, hi, need);
		if (rc != PCLNRT_OK)
			return rc;
	}
	return PCLNRT_OK;
}

static uint32_t
free_nodes(const pclnrt_registry *r, uint32_t want)
{
	uint32_t n = 0, i;

	for (i = r->nfree; i != 0 && n < want; i = r->nmeta[i - 1].next)
		n++;
	return n;
}

static uint32_t
node_alloc(pclnrt_registry *r)
{
	uint32_t i = r->nfree - 1, j;

	r->nfree = r->nmeta[i].next;
	r->nmeta[i].next = 0;
	r->nmeta[i].nused = 0;
	for (j = 0; j < PCLNRT_CM_FANOUT; j++)
		st_relaxed(&r->node[i].slot[j], 0);
	r->nodes_used++;
	return i;
}

/* Put module number ID (granules [LO, HI]) under slot SP of level K
 * covering granules from BASE; NUSED counts the non-empty slots of SP's
 * node (NULL for the root).  check() said it fits. */
static void
put(pclnrt_registry *r, _Atomic uint32_t *sp, uint32_t *nused, unsigned k,
    uint64_t base, uint64_t lo, uint64_t hi, uint32_t id)
{
	uint32_t v = ld_relaxed(sp), c, j, j0, j1;

	if (v == 0) {
		st_release(sp, PCLNRT_CM_MKMOD(id));
		if (nused != NULL)
			(*nused)++;
		return;
	}
	if (!PCLNRT_CM_ISNODE(v)) {
		/* Split: a node holding the other module's part, published
		 * whole, then descend into it. */
		const pclnrt_module *s = module_of(r, v);
		uint64_t slo = 0, shi = 0;

		c = node_alloc(r);
		(void)granules(s, &slo, &shi);
		span(k + 1, base, slo, shi, &j0, &j1);
		for (j = j0; j <= j1; j++)
			st_relaxed(&r->node[c].slot[j], v);
		r->nmeta[c].nused = j1 - j0 + 1;
		v = PCLNRT_CM_MKNODE(c);
		st_release(sp, v);
	}
	c = PCLNRT_CM_INDEX(v);
	span(k + 1, base, lo, hi, &j0, &j1);
	for (j = j0; j <= j1; j++)
		put(r, &r->node[c].slot[j], &r->nmeta[c].nused, k + 1,
		    base + ((uint64_t)j << GSHIFT(k + 1)), lo, hi, id);
}

/* Retire node C: on *PENDING until the removal's ticket is known. */
static void
retire_node(pclnrt_registry *r, uint32_t c, uint32_t *pending)
{
	r->nmeta[c].next = *pending;
	*pending = c + 1;
	r->nodes_used--;
	r->nodes_retired++;
}

/* Remove module number ID from under slot SP (as put), folding nodes
 * left with one module or none. */
static void
del(pclnrt_registry *r, _Atomic uint32_t *sp, uint32_t *nused, unsigned k,
    uint64_t base, uint64_t lo, uint64_t hi, uint32_t id, uint32_t *pending)
{
	uint32_t v = ld_relaxed(sp), c, j, j0, j1, only = 0;

	if (v == PCLNRT_CM_MKMOD(id)) {
		st_release(sp, 0);
		if (nused != NULL)
			(*nused)--;
		return;
	}
	if (!PCLNRT_CM_ISNODE(v))
		return;
	c = PCLNRT_CM_INDEX(v);
	span(k + 1, base, lo, hi, &j0, &j1);
	for (j = j0; j <= j1; j++)
		del(r, &r->node[c].slot[j], &r->nmeta[c].nused, k + 1,
		    base + ((uint64_t)j << GSHIFT(k + 1)), lo, hi, id, pending);
	if (r->nmeta[c].nused == 0) {
		st_release(sp, 0);
		if (nused != NULL)
			(*nused)--;
		retire_node(r, c, pending);
		return;
	}
	/* One module left, and no node: it is alone in SP's range. */
	for (j = 0; j < PCLNRT_CM_FANOUT; j++) {
		uint32_t w = ld_relaxed(&r->node[c].slot[j]);

		if (w == 0)
			continue;
		if (PCLNRT_CM_ISNODE(w) || (only != 0 && w != only))
			return;
		only = w;
	}
	st_release(sp, only);
	retire_node(r, c, pending);
}

int
pclnrt_register(pclnrt_registry *r, pclnrt_module *m)
{
	uint64_t lo = 0, hi = 0;
	uint32_t need = 0, id, j;
	int rc = PCLNRT_OK, nonempty;

	lock(r);
	if (m->id != 0) {
		rc = PCLNRT_EXISTS;
		goto out;
	}
	nonempty = granules(m, &lo, &hi);
	for (j = nonempty ? (uint32_t)(lo >> 56) : 1;
	    nonempty && j <= (uint32_t)(hi >> 56) && rc == PCLNRT_OK; j++)
		rc = check(r, ld_relaxed(&r->root[j]), 0, (uint64_t)j << 56,
		    lo, hi, &need);
	if (rc != PCLNRT_OK)
		goto out;
	if (r->rfree == 0 || free_nodes(r, need) < need)
		reclaim(r);
	if (r->rfree == 0 || free_nodes(r, need) < need) {
		rc = PCLNRT_FULL;
		goto out;
	}
	id = r->rfree;
	r->rfree = r->rmeta[id].next;
	r->rmeta[id].next = 0;
	m->id = id;
	m->ticket = 0;
	st_release(&r->region[id], m);
	for (j = nonempty ? (uint32_t)(lo >> 56) : 1;
	    nonempty && j <= (uint32_t)(hi >> 56); j++)
		put(r, &r->root[j], NULL, 0, (uint64_t)j << 56, lo, hi, id);
	r->nregistered++;
	atomic_fetch_add(&r->generation, 1);
out:
	unlock(r);
	return rc;
}

int
pclnrt_unregister(pclnrt_registry *r, pclnrt_module *m)
{
	uint64_t lo, hi;
	uintptr_t t;
	uint32_t id, j, pending = 0, i, next;

	lock(r);
	id = m->id;
	if (id == 0 || id >= r->nregion || ld_relaxed(&r->region[id]) != m) {
		unlock(r);
		return PCLNRT_NOTFOUND;
	}
	if (granules(m, &lo, &hi))
		for (j = (uint32_t)(lo >> 56); j <= (uint32_t)(hi >> 56); j++)
			del(r, &r->root[j], NULL, 0, (uint64_t)j << 56, lo, hi,
			    id, &pending);
	st_release(&r->region[id], NULL);
	/* Everything unpublished: advance the epoch.  A reader announcing
	 * this epoch or later cannot see the module. */
	t = atomic_fetch_add(&r->epoch, 1) + 1;
	m->ticket = t;
	m->id = 0;
	r->rmeta[id].ticket = t;
	if (r->rlimbo_tail != 0)
		r->rmeta[r->rlimbo_tail].next = id;
	else
		r->rlimbo = id;
	r->rlimbo_tail = id;
	for (i = pending; i != 0; i = next) {
		next = r->nmeta[i - 1].next;
		r->nmeta[i - 1].ticket = t;
		r->nmeta[i - 1].next = 0;
		if (r->nlimbo_tail != 0)
			r->nmeta[r->nlimbo_tail - 1].next = i;
		else
			r->nlimbo = i;
		r->nlimbo_tail = i;
	}
	r->nregistered--;
	atomic_fetch_add(&r->generation, 1);
	unlock(r);
	return PCLNRT_OK;
}

size_t
pclnrt_generation(pclnrt_registry *r)
{
	return atomic_load(&r->generation);
}

void
pclnrt_registry_stats_get(pclnrt_registry *r, pclnrt_registry_stats *s)
{
	lock(r);
	s->modules = r->nregistered;
	s->nodes = r->nodes_used;
	s->retired = r->nodes_retired;
	s->max_modules = r->nregion > 0 ? r->nregion - 1 : 0;
	s->max_nodes = r->nnode;
	s->max_readers = r->nreader;
	unlock(r);
}

/* --- lookups ----------------------------------------------------------- */

int
pclnrt_registry_find(const pclnrt_registry *r, uint64_t pc,
    const pclnrt_module **mp)
{
	return pclnrt_cm_find_(r, pc, mp);
}

int
pclnrt_registry_findfunc(const pclnrt_registry *r, uint64_t pc,
    const pclnrt_module **mp, pclnrt_func *f)
{
	const pclnrt_module *m;
	int rc;

	if ((rc = pclnrt_cm_find_(r, pc, &m)) != PCLNRT_OK)
		return rc;
	if (mp != NULL)
		*mp = m;
	return pclnrt_findfunc(&m->table, pc - m->bias, f);
}
