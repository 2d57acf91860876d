/* module.c -- several blobs at run-time addresses, registered and
 * removed while other threads and signal handlers look up.
 *
 * A slot holds a pointer to a module or NULL.  Writers claim and clear
 * slots with compare-and-swap; readers load slots.  A module is written
 * completely before the CAS that publishes it (release) and a reader's
 * load (acquire) then sees all of it.  The slot CAS, the slot loads and
 * the reader count use sequential consistency: a remover that sees no
 * reader after clearing a slot knows every later reader sees the slot
 * empty (the store-load order release/acquire alone does not give).
 * Pointer-sized atomics are lock-free on every target we build for, so
 * nothing here calls libatomic.
 */
#include "pclnrt.h"

int
pclnrt_module_init(pclnrt_module *m, const void *blob, size_t len,
    uint64_t bias, const char *name)
{
	int rc;

	m->bias = bias;
	m->name = name;
	m->lo = m->hi = 0;
	if ((rc = pclnrt_init(&m->table, blob, len)) != PCLNRT_EINIT_OK)
		return rc;
	m->lo = m->table.minpc + bias;
	m->hi = m->table.maxpc + bias;
	if (m->hi < m->lo) {	/* the run-time range wraps around */
		m->lo = m->hi = 0;
		return PCLNRT_EINIT_FUNCTAB;
	}
	return PCLNRT_EINIT_OK;
}

void
pclnrt_registry_init(pclnrt_registry *r, _Atomic(pclnrt_module *) *slots,
    size_t nslots)
{
	size_t i;

	r->slots = slots;
	r->nslots = slots != NULL ? nslots : 0;
	for (i = 0; i < r->nslots; i++)
		atomic_init(&slots[i], NULL);
	atomic_init(&r->readers, 0);
	atomic_init(&r->generation, 0);
}

int
pclnrt_register(pclnrt_registry *r, pclnrt_module *m)
{
	size_t i;

	for (i = 0; i < r->nslots; i++) {
		pclnrt_module *empty = NULL;

		if (atomic_compare_exchange_strong(&r->slots[i], &empty, m)) {
			atomic_fetch_add(&r->generation, 1);
			return PCLNRT_OK;
		}
	}
	return PCLNRT_NOTFOUND;
}

int
pclnrt_unregister(pclnrt_registry *r, pclnrt_module *m)
{
	size_t i;

	for (i = 0; i < r->nslots; i++) {
		pclnrt_module *cur = m;

		if (atomic_compare_exchange_strong(&r->slots[i], &cur, NULL)) {
			atomic_fetch_add(&r->generation, 1);
			return PCLNRT_OK;
		}
	}
	return PCLNRT_NOTFOUND;
}

void
pclnrt_read_begin(pclnrt_registry *r)
{
	atomic_fetch_add(&r->readers, 1);
}

void
pclnrt_read_end(pclnrt_registry *r)
{
	atomic_fetch_sub(&r->readers, 1);
}

size_t
pclnrt_readers(pclnrt_registry *r)
{
	return atomic_load(&r->readers);
}

size_t
pclnrt_generation(pclnrt_registry *r)
{
	return atomic_load(&r->generation);
}

int
pclnrt_registry_findfunc(pclnrt_registry *r, uint64_t pc,
    const pclnrt_module **mp, pclnrt_func *f)
{
	size_t i;

	for (i = 0; i < r->nslots; i++) {
		const pclnrt_module *m = atomic_load(&r->slots[i]);

		if (m == NULL || pc < m->lo || pc >= m->hi)
			continue;
		if (mp != NULL)
			*mp = m;
		return pclnrt_findfunc(&m->table, pc - m->bias, f);
	}
	return PCLNRT_NOTFOUND;
}
