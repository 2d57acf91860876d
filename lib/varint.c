/* varint.c -- uvarint and zig-zag encoding.  Decoding is the runtime's
 * pclnrt_uvarint; pcln_get_uvarint only wraps it. */
#include "internal.h"

size_t
pcln_put_uvarint(uint8_t *buf, uint32_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		buf[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	buf[n++] = (uint8_t)v;
	return n;
}

uint32_t
pcln_zigzag(int32_t v)
{
	return ((uint32_t)v << 1) ^ (0u - ((uint32_t)v >> 31));
}

int
pcln_get_uvarint(const uint8_t *buf, size_t len, uint32_t *v)
{
	const uint8_t *p = buf;
	int rc;

	if (buf == NULL)
		return -1;
	rc = pclnrt_uvarint(&p, buf + len, v);
	if (rc != 0)
		return rc;
	return (int)(p - buf);
}
