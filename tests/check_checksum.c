/* check_checksum.c -- the runtime's own XXH64 (runtime/checksum.c)
 * against the system libxxhash, and pclnrt_verify_checksum on good,
 * damaged and trailer-less blobs. */
#include <config.h>

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "pclnrt.h"

/* Every length 0..300 (all tail shapes, 0-9 stripes) at three seeds and
 * every start alignment 0..7, plus a large buffer. */
START_TEST(test_xxh64_matches_libxxhash)
{
	static const uint64_t seeds[] = { 0, 1, UINT64_C(0x9E3779B185EBCA87),
	    UINT64_MAX };
	size_t big = 1 << 20, len, a, s;
	uint8_t *buf = malloc(big + 8);
	uint64_t x = 88172645463325252u;

	ck_assert_ptr_nonnull(buf);
	for (len = 0; len < big + 8; len++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		buf[len] = (uint8_t)x;
	}
	for (s = 0; s < sizeof seeds / sizeof seeds[0]; s++)
		for (a = 0; a < 8; a++)
			for (len = 0; len <= 300; len++)
				ck_assert_msg(pclnrt_xxh64(buf + a, len,
				    seeds[s]) == XXH64(buf + a, len,
				    seeds[s]), "len %zu align %zu seed %zu",
				    len, a, s);
	ck_assert_uint_eq(pclnrt_xxh64(buf, big, 0), XXH64(buf, big, 0));
	ck_assert_uint_eq(pclnrt_xxh64(NULL, 0, 0), XXH64(NULL, 0, 0));
	/* The specification's value for the empty input, seed 0. */
	ck_assert_uint_eq(pclnrt_xxh64("", 0, 0),
	    UINT64_C(0xEF46DB3751D8E999));
	free(buf);
}
END_TEST

static uint8_t *
slurp(const char *rel, size_t *len)
{
	char path[4096];
	FILE *fp;
	uint8_t *buf;
	long n;

	snprintf(path, sizeof path, "%s/%s", PCLN_TOP_SRCDIR, rel);
	fp = fopen(path, "rb");
	ck_assert_msg(fp != NULL, "cannot open %s", path);
	fseek(fp, 0, SEEK_END);
	n = ftell(fp);
	rewind(fp);
	buf = malloc((size_t)n);
	ck_assert_ptr_nonnull(buf);
	ck_assert_uint_eq(fread(buf, 1, (size_t)n, fp), (size_t)n);
	fclose(fp);
	*len = (size_t)n;
	return buf;
}

START_TEST(test_verify_checksum)
{
	size_t len, glen, i;
	uint8_t *g = slurp("tests/golden/be32-q4-go12.bin", &glen);
	uint8_t *b = slurp("tests/golden/le64-trailer.bin", &len);

	ck_assert_int_eq(pclnrt_verify_checksum(b, len), PCLNRT_OK);
	/* Every byte the checksum covers: one flipped bit is caught. */
	for (i = 0; i < len - 16; i++) {
		b[i] ^= 0x10;
		ck_assert_msg(pclnrt_verify_checksum(b, len) == PCLNRT_CORRUPT,
		    "flip at %zu", i);
		b[i] ^= 0x10;
	}
	/* The checksum itself. */
	b[len - 9] ^= 1;
	ck_assert_int_eq(pclnrt_verify_checksum(b, len), PCLNRT_CORRUPT);
	b[len - 9] ^= 1;
	/* No trailer magic: nothing to check. */
	b[len - 1] ^= 1;
	ck_assert_int_eq(pclnrt_verify_checksum(b, len), PCLNRT_NOTFOUND);
	b[len - 1] ^= 1;
	ck_assert_int_eq(pclnrt_verify_checksum(g, glen), PCLNRT_NOTFOUND);
	ck_assert_int_eq(pclnrt_verify_checksum(NULL, 0), PCLNRT_NOTFOUND);
	ck_assert_int_eq(pclnrt_verify_checksum(b, 31), PCLNRT_NOTFOUND);
	/* The trailer's last 32 bytes alone: the magic is there, the hash
	 * of 16 bytes is not the stored one. */
	ck_assert_int_eq(pclnrt_verify_checksum(b + len - 32, 32),
	    PCLNRT_CORRUPT);
	free(b);
	free(g);
}
END_TEST

static Suite *
checksum_suite(void)
{
	Suite *s = suite_create("checksum");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_xxh64_matches_libxxhash);
	tcase_add_test(tc, test_verify_checksum);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(checksum_suite());
	int nfail;

	srunner_run_all(sr, CK_NORMAL);
	nfail = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nfail == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
