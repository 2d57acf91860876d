/* fuzz.h -- shared by the libFuzzer targets in fuzz/.
 *
 * Each target copies the input into an exactly-sized malloc buffer, so
 * AddressSanitizer catches a read one byte past its end (libFuzzer's own
 * buffer may be larger), and frees it at the end.
 */
#ifndef PCLN_FUZZ_H
#define PCLN_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static inline uint8_t *
fuzz_copy(const uint8_t *data, size_t size)
{
	uint8_t *p = malloc(size ? size : 1);

	if (p == NULL)
		abort();
	if (size)
		memcpy(p, data, size);
	return p;
}

#endif
