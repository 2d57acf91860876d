/* checksum.c -- XXH64 and the trailer checksum check, freestanding.
 *
 * XXH64 as its public specification (xxHash's doc/xxhash_spec.md,
 * "XXH64 Algorithm Description") defines it, written here from that text
 * so the runtime needs no library: 64-bit lanes read little-endian, four
 * accumulators over 32-byte stripes, then the remaining 8-, 4- and 1-byte
 * pieces, then the avalanche.  tests/check_alloc.c compares it with the
 * system libxxhash over many lengths and seeds.
 *
 * Like the rest of the runtime: no allocation, no lock, no libc, safe in
 * a signal handler; reads exactly BUF[0..LEN).
 */
#include "pclnrt.h"

#define P1 UINT64_C(0x9E3779B185EBCA87)
#define P2 UINT64_C(0xC2B2AE3D27D4EB4F)
#define P3 UINT64_C(0x165667B19E3779F9)
#define P4 UINT64_C(0x85EBCA77C2B2AE63)
#define P5 UINT64_C(0x27D4EB2F165667C5)

static inline uint64_t
rotl(uint64_t x, unsigned r)
{
	return (x << r) | (x >> (64 - r));
}

static inline uint64_t
le64(const uint8_t *p)
{
	return pclnrt_load64(p, 0);
}

static inline uint64_t
round64(uint64_t acc, uint64_t lane)
{
	acc += lane * P2;
	acc = rotl(acc, 31);
	return acc * P1;
}

static inline uint64_t
merge(uint64_t acc, uint64_t v)
{
	acc ^= round64(0, v);
	return acc * P1 + P4;
}

uint64_t
pclnrt_xxh64(const void *buf, size_t len, uint64_t seed)
{
	const uint8_t *p = buf;
	size_t left = len;
	uint64_t acc;

	if (left >= 32) {
		uint64_t v1 = seed + P1 + P2, v2 = seed + P2, v3 = seed,
		    v4 = seed - P1;

		do {
			v1 = round64(v1, le64(p));
			v2 = round64(v2, le64(p + 8));
			v3 = round64(v3, le64(p + 16));
			v4 = round64(v4, le64(p + 24));
			p += 32;
			left -= 32;
		} while (left >= 32);
		acc = rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) +
		    rotl(v4, 18);
		acc = merge(acc, v1);
		acc = merge(acc, v2);
		acc = merge(acc, v3);
		acc = merge(acc, v4);
	} else {
		acc = seed + P5;
	}
	acc += (uint64_t)len;
	for (; left >= 8; p += 8, left -= 8) {
		acc ^= round64(0, le64(p));
		acc = rotl(acc, 27) * P1 + P4;
	}
	if (left >= 4) {
		acc ^= (uint64_t)pclnrt_load32(p, 0) * P1;
		acc = rotl(acc, 23) * P2 + P3;
		p += 4;
		left -= 4;
	}
	for (; left > 0; p++, left--) {
		acc ^= (uint64_t)*p * P5;
		acc = rotl(acc, 11) * P1;
	}
	acc ^= acc >> 33;
	acc *= P2;
	acc ^= acc >> 29;
	acc *= P3;
	acc ^= acc >> 32;
	return acc;
}

int
pclnrt_verify_checksum(const void *blob, size_t len)
{
	const uint8_t *b = blob;
	struct pclnrt_footer f;

	/* The checksum is big-endian whatever the blob's byte order. */
	if (b == NULL || !pclnrt_footer(b, len, 0, &f))
		return PCLNRT_NOTFOUND;
	if (f.checksum != pclnrt_xxh64(b, len - 16, 0))
		return PCLNRT_CORRUPT;
	return PCLNRT_OK;
}
