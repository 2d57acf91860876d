/* fuzz_varint.c -- the one varint reader (pclnrt_uvarint through
 * pcln_get_uvarint) and the pc-value stepper on arbitrary bytes.
 *
 * Every value decoded re-encodes (pcln_put_uvarint) to bytes that decode
 * to the same value, no longer than the input used.  Then the input is
 * stepped through as a pc-value table: the walk ends within one step per
 * byte.
 */
#include <config.h>

#include "fuzz.h"
#include "pcln.h"
#include "pclnrt_format.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *buf = fuzz_copy(data, size);
	uint8_t enc[8];
	size_t off = 0, n;
	uint32_t v, w;
	int used, used2;

	while (off < size) {
		used = pcln_get_uvarint(buf + off, size - off, &v);
		if (used == -1 || used == -2)
			break;
		if (used < 1 || used > 5 || (size_t)used > size - off)
			abort();
		n = pcln_put_uvarint(enc, v);
		if (n < 1 || n > 5 || n > (size_t)used)
			abort();
		used2 = pcln_get_uvarint(enc, n, &w);
		if (used2 != (int)n || w != v)
			abort();
		off += (size_t)used;
	}
	if (size > 0) {
		struct pclnrt_pcstep st;
		size_t steps = 0;

		pclnrt_pcstep_init(&st, buf + 1, buf + size, 0x1000,
		    1u << (buf[0] & 3));
		while (pclnrt_pcstep(&st) == 1) {
			if (++steps > size || st.p > buf + size ||
			    st.nextpc < st.pc)
				abort();
		}
	}
	free(buf);
	return 0;
}
