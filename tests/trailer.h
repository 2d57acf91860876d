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
	struct pclnrt_footer f;
	struct pclnrt_sections s;

	if (tag > PCLN_SECT_LAST || !pclnrt_footer(b, len, big, &f) ||
	    !pclnrt_dir_fits(&f, f.nsect))
		return NULL;
	pclnrt_sections(b, &f, f.nsect, big, &s);
	if (!s.present[tag])
		return NULL;
	*size = (uint32_t)s.size[tag];
	return b + s.off[tag];
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
