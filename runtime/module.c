/* module.c -- a blob placed at a run-time address (its load bias).
 * The registry that finds modules by pc is codemap.c. */
#include "pclnrt.h"

int
pclnrt_module_init(pclnrt_module *m, const void *blob, size_t len,
    uint64_t bias, const char *name)
{
	int rc;

	m->bias = bias;
	m->name = name;
	m->lo = m->hi = 0;
	m->id = 0;
	m->ticket = 0;
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
