/* registry.c -- the runtime registry (a code map, runtime/codemap.c)
 * lib/proc fills, in storage of its own: every use of the registry's
 * writer API is here. */
#include <config.h>

#include <stdlib.h>

#include "proc_internal.h"

int
pclnp_registry_init(pclnp_registry *g, size_t nmod, size_t nnode,
    size_t nreader)
{
	size_t size;

	if (nmod == 0)
		nmod = 1;
	if (nnode == 0)
		nnode = 1;
	size = PCLNRT_REGISTRY_SIZE(nmod, nnode, nreader);
	/* Untouched until used: the nodes are written only when two
	 * modules meet in their range. */
	if ((g->mem = malloc(size)) == NULL)
		return -1;
	if (pclnrt_registry_init(&g->r, g->mem, size, nmod, nreader) !=
	    PCLNRT_OK) {
		free(g->mem);
		g->mem = NULL;
		return -1;
	}
	g->cap = nmod;
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
	return pclnrt_register(&g->r, m);
}

int
pclnp_registry_remove(pclnp_registry *g, pclnrt_module *m)
{
	return pclnrt_unregister(&g->r, m);
}

int
pclnp_registry_reusable(pclnp_registry *g, const pclnrt_module *m)
{
	return pclnrt_module_reusable(&g->r, m);
}
