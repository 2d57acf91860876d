/* varint.c -- uvarint and zig-zag coding: wrappers of the runtime's one
 * writer (pclnrt_put_uvarint, pclnrt_zigzag) and one reader
 * (pclnrt_uvarint), in pclnrt_format.h. */
#include "internal.h"

size_t
pcln_put_uvarint(uint8_t *buf, uint32_t v)
{
	return pclnrt_put_uvarint(buf, v);
}

uint32_t
pcln_zigzag(int32_t v)
{
	return pclnrt_zigzag(v);
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
