/* trailer.h -- test helpers for blobs with a pcln trailer: find a
 * section, and re-seal the checksum after damaging a blob on purpose
 * (so that the verifier reports the damage itself, not the checksum).
 * Header-only, for the test programs. */
#ifndef PCLN_TESTS_TRAILER_H
#define PCLN_TESTS_TRAILER_H

#include <stddef.h>
#include <stdint.h>

#include "pclnrt.h"
#include "pclnrt_format.h"

/* Section TAG of the trailer blob B[0..LEN) in byte order BIG; its size
 * in *SIZE.  NULL if there is none. */
static inline uint8_t *
trailer_section(uint8_t *b, size_t len, int big, uint32_t tag,
    uint32_t *size)
{
	const uint8_t *ft = b + len - PCLN_FOOTER_SIZE;
	uint32_t dir = pclnrt_load32(ft + PCLN_FOOTER_DIROFF, big);
	uint32_t n = pclnrt_load32(ft + PCLN_FOOTER_NSECT, big), k;

	for (k = 0; k < n; k++) {
		const uint8_t *d = b + dir + k * PCLN_DIRENT_SIZE;
		if (pclnrt_load32(d + PCLN_DIRENT_TAG, big) == tag) {
			*size = pclnrt_load32(d + PCLN_DIRENT_SIZEF, big);
			return b + pclnrt_load32(d + PCLN_DIRENT_OFF, big);
		}
	}
	return NULL;
}

/* Store the checksum of B[0..LEN) in its footer again. */
static inline void
trailer_reseal(uint8_t *b, size_t len)
{
	uint64_t h = pclnrt_xxh64(b, len - 16, 0);
	int k;

	for (k = 0; k < 8; k++)
		b[len - 16 + k] = (uint8_t)(h >> (56 - 8 * k));
}

#endif /* PCLN_TESTS_TRAILER_H */
