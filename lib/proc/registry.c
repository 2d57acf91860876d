/* registry.c -- the runtime registry lib/proc fills, in storage of its
 * own: every use of the registry's writer API is here. */
#include <config.h>

#include <sched.h>
#include <stdlib.h>

#include "proc_internal.h"

int
pclnp_registry_init(pclnp_registry *g, size_t nmod)
{
	_Atomic(pclnrt_module *) *slots;

	if (nmod == 0)
		nmod = 1;
	if ((slots = calloc(nmod, sizeof *slots)) == NULL)
		return -1;
	g->mem = slots;
	g->cap = nmod;
	pclnrt_registry_init(&g->r, slots, nmod);
	return 0;
}

void
pclnp_registry_free(pclnp_registry *g)
{
	free(g->mem);
	g->mem = NULL;
	g->cap = 0;
}

int
pclnp_registry_add(pclnp_registry *g, pclnrt_module *m)
{
	return pclnrt_register(&g->r, m) == PCLNRT_OK ? 0 : -1;
}

int
pclnp_registry_remove(pclnp_registry *g, pclnrt_module *m)
{
	return pclnrt_unregister(&g->r, m) == PCLNRT_OK ? 0 : -1;
}

void
pclnp_registry_quiesce(pclnp_registry *g)
{
	while (pclnrt_readers(&g->r) != 0)
		sched_yield();
}
