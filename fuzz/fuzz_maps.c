/* fuzz_maps.c -- the /proc/PID/maps parser (lib/proc/maps.c) and the
 * address space's mapping set on arbitrary text.
 *
 * Every mapping reported must have end > start and a path with no NUL
 * and no newline; the text then goes into an address space (no process:
 * no file is opened here), each mapping is added again as perf's MMAP2
 * records would be, and the set must stay sorted and disjoint.
 */
#include <config.h>

#include "fuzz.h"
#include "pcln_proc.h"

static int
check(void *arg, const pcln_mapping *m)
{
	pcln_aspace *as = arg;

	if (m->end <= m->start || m->path == NULL ||
	    strchr(m->path, '\n') != NULL)
		abort();
	if (pcln_aspace_add(as, m, NULL) < 0)
		abort();
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *buf = fuzz_copy(data, size);
	pcln_aspace *as = pcln_aspace_new(0, NULL, PCLN_AS_NO_IMPORT, NULL);
	pcln_aspace *as2 = pcln_aspace_new(0, NULL, PCLN_AS_NO_IMPORT, NULL);
	size_t i, n;

	if (as == NULL || as2 == NULL)
		abort();
	(void)pcln_maps_parse((const char *)buf, size, check, as, NULL);
	n = pcln_aspace_nmaps(as);
	for (i = 0; i < n; i++) {
		const pcln_mapping *m = pcln_aspace_map(as, i);
		const pcln_mapping *prev = i > 0 ? pcln_aspace_map(as, i - 1) :
		    NULL;

		if (m->end <= m->start || (prev != NULL && prev->end > m->start))
			abort();
		if (pcln_aspace_find(as, m->start) != m ||
		    pcln_aspace_find(as, m->end - 1) != m)
			abort();
	}
	(void)pcln_aspace_set_maps(as2, (const char *)buf, size, NULL);
	pcln_aspace_free(as);
	pcln_aspace_free(as2);
	free(buf);
	return 0;
}
