/* fuzz_dwp.c -- the .dwp package index reader (lib/find/dwp.c,
 * dwp_index.h) on arbitrary bytes, in both byte orders.
 *
 * When the header is accepted, every table must lie inside the input;
 * every id in the hash table (and a few others) is looked up, and a row
 * found is in range; every row's contribution to every section id 0-9
 * is read.  ASan catches any read outside the exactly-sized copy.
 */
#include <config.h>

#include "fuzz.h"
#include "dwp_index.h"
#include "pclnrt_format.h"

static void
one(const uint8_t *buf, size_t size, int big)
{
	struct pclni_dwp_index ix;
	pcln_err err;
	uint32_t i, row, sect, off, len;

	if (pclni_dwp_index_open(&ix, buf, size, big, &err) < 0) {
		if (err.msg[0] == 0)
			abort();	/* an error must say what */
		return;
	}
	if (ix.sizeoff + 4ull * ix.ncols * ix.nunits > size)
		abort();
	for (i = 0; i < ix.nslots && i < 4096; i++) {
		uint64_t id = pclnrt_load64(buf + ix.hashoff + 8ull * i, big);
		row = pclni_dwp_index_find(&ix, id);
		if (row > ix.nunits)
			abort();
	}
	row = pclni_dwp_index_find(&ix, 0);
	row += pclni_dwp_index_find(&ix, ~(uint64_t)0);
	for (row = 0; row <= ix.nunits + 1 && row < 4096; row++)
		for (sect = 0; sect < 10; sect++)
			(void)pclni_dwp_index_contrib(&ix, row, sect, &off,
			    &len);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *buf = fuzz_copy(data, size);

	one(buf, size, 0);
	one(buf, size, 1);
	free(buf);
	return 0;
}
