/* buildid.c -- a table's build-id (the BUILDID trailer section, read by
 * pcln_get_build_id in reader.c) against an object's, and build-ids in
 * hex (pcln.h). */
#include <config.h>

#include <string.h>

#include "internal.h"

char *
pcln_build_id_hex(const uint8_t *id, size_t len, char *buf)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < len; i++) {
		buf[2 * i] = digits[id[i] >> 4];
		buf[2 * i + 1] = digits[id[i] & 15];
	}
	buf[2 * len] = 0;
	return buf;
}

int
pcln_check_build_id(const pcln_table *t, const uint8_t *id, size_t len,
    pcln_err *err)
{
	char a[2 * PCLN_BUILDID_MAX + 1], b[2 * PCLN_BUILDID_MAX + 1];
	const uint8_t *tid;
	size_t tlen;
	int have = pcln_get_build_id(t, &tid, &tlen);

	if (len > PCLN_BUILDID_MAX)
		len = PCLN_BUILDID_MAX;
	if (have && len > 0 && tlen == len && memcmp(tid, id, len) == 0)
		return 0;
	if (have)
		pcln_build_id_hex(tid, tlen, a);
	if (len > 0)
		pcln_build_id_hex(id, len, b);
	if (!have && len == 0)
		return pclni_seterr(err, PCLN_EBUILDID, -1, "neither the table "
		    "nor the object has a build-id, so nothing shows the table "
		    "is the object's");
	if (!have)
		return pclni_seterr(err, PCLN_EBUILDID, -1, "the table records "
		    "no build-id; the object's is %s", b);
	if (len == 0)
		return pclni_seterr(err, PCLN_EBUILDID, -1, "table is for "
		    "build-id %s; the object has none", a);
	return pclni_seterr(err, PCLN_EBUILDID, -1, "table is for build-id "
	    "%s; the object's is %s (rebuilt since the table was made?)", a,
	    b);
}
