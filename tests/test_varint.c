/* test_varint.c -- uvarint and zig-zag encoding, and the runtime decoder
 * through pcln_get_uvarint. */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "pcln.h"
#include "pclnrt_format.h"
#include "suites_lib.h"

static const struct {
	uint32_t v;
	size_t n;
	uint8_t b[5];
} vectors[] = {
	{ 0, 1, { 0x00 } },
	{ 1, 1, { 0x01 } },
	{ 127, 1, { 0x7f } },
	{ 128, 2, { 0x80, 0x01 } },
	{ 300, 2, { 0xac, 0x02 } },
	{ 16383, 2, { 0xff, 0x7f } },
	{ 16384, 3, { 0x80, 0x80, 0x01 } },
	{ 0x0fffffffu, 4, { 0xff, 0xff, 0xff, 0x7f } },
	{ 0x10000000u, 5, { 0x80, 0x80, 0x80, 0x80, 0x01 } },
	{ 0x80000000u, 5, { 0x80, 0x80, 0x80, 0x80, 0x08 } },
	{ 0xfffffffeu, 5, { 0xfe, 0xff, 0xff, 0xff, 0x0f } },
	{ 0xffffffffu, 5, { 0xff, 0xff, 0xff, 0xff, 0x0f } },
};
#define NVEC (sizeof vectors / sizeof vectors[0])

START_TEST(test_put)
{
	uint8_t buf[8];
	size_t n;

	memset(buf, 0xaa, sizeof buf);
	n = pcln_put_uvarint(buf, vectors[_i].v);
	ck_assert_uint_eq(n, vectors[_i].n);
	ck_assert_mem_eq(buf, vectors[_i].b, n);
	ck_assert_uint_eq(buf[n], 0xaa);	/* nothing written past */
}
END_TEST

START_TEST(test_get)
{
	uint32_t v = 12345;
	uint8_t buf[8];

	/* Exact length, then with a trailing byte that must stay unread. */
	ck_assert_int_eq(pcln_get_uvarint(vectors[_i].b, vectors[_i].n, &v),
	    (int)vectors[_i].n);
	ck_assert_uint_eq(v, vectors[_i].v);
	memcpy(buf, vectors[_i].b, vectors[_i].n);
	buf[vectors[_i].n] = 0x05;
	ck_assert_int_eq(pcln_get_uvarint(buf, vectors[_i].n + 1, &v),
	    (int)vectors[_i].n);
	ck_assert_uint_eq(v, vectors[_i].v);
	/* Every shorter prefix is truncated. */
	if (vectors[_i].n > 1) {
		size_t k;
		for (k = 0; k < vectors[_i].n; k++)
			ck_assert_int_eq(pcln_get_uvarint(vectors[_i].b, k,
			    &v), -1);
	}
}
END_TEST

static const struct {
	uint8_t b[6];
	size_t n;
	int rc;
} bad[] = {
	{ { 0 }, 0, -1 },				/* empty */
	{ { 0x80 }, 1, -1 },				/* truncated */
	{ { 0xff, 0xff }, 2, -1 },
	{ { 0xff, 0xff, 0xff, 0xff }, 4, -1 },
	{ { 0xff, 0xff, 0xff, 0xff, 0x10 }, 5, -2 },	/* 5th > 0x0f */
	{ { 0x80, 0x80, 0x80, 0x80, 0x7f }, 5, -2 },
	{ { 0x80, 0x80, 0x80, 0x80, 0x8f, 0x01 }, 6, -2 }, /* 6 bytes */
	{ { 0xff, 0xff, 0xff, 0xff, 0xff }, 5, -2 },
};

START_TEST(test_get_fail)
{
	uint32_t v = 777;

	ck_assert_int_eq(pcln_get_uvarint(bad[_i].b, bad[_i].n, &v),
	    bad[_i].rc);
	ck_assert_uint_eq(v, 777);	/* untouched on failure */
}
END_TEST

static const struct {
	int32_t v;
	uint32_t z;
} zz[] = {
	{ 0, 0 }, { -1, 1 }, { 1, 2 }, { -2, 3 }, { 2, 4 }, { 63, 126 },
	{ -64, 127 }, { 64, 128 },
	{ INT32_MAX, 0xfffffffeu }, { INT32_MIN, 0xffffffffu },
	{ INT32_MAX - 1, 0xfffffffcu }, { INT32_MIN + 1, 0xfffffffdu },
};

START_TEST(test_zigzag)
{
	uint8_t buf[8];
	uint32_t u;
	size_t n;

	ck_assert_uint_eq(pcln_zigzag(zz[_i].v), zz[_i].z);
	ck_assert_int_eq(pclnrt_unzigzag(zz[_i].z), zz[_i].v);
	/* Round trip through the byte encoding too. */
	n = pcln_put_uvarint(buf, pcln_zigzag(zz[_i].v));
	ck_assert_int_eq(pcln_get_uvarint(buf, n, &u), (int)n);
	ck_assert_int_eq(pclnrt_unzigzag(u), zz[_i].v);
}
END_TEST

START_TEST(test_roundtrip_sweep)
{
	uint8_t buf[8];
	uint32_t v, got;
	uint64_t x;

	/* Every power of two and its neighbours. */
	for (x = 1; x <= 0x100000000ull; x <<= 1) {
		uint64_t d;
		for (d = 0; d < 3; d++) {
			size_t n;
			v = (uint32_t)(x - 1 + d);
			n = pcln_put_uvarint(buf, v);
			ck_assert_uint_le(n, PCLN_VARINT_MAX);
			ck_assert_int_eq(pcln_get_uvarint(buf, n, &got),
			    (int)n);
			ck_assert_uint_eq(got, v);
		}
	}
}
END_TEST

Suite *
varint_suite(void)
{
	Suite *s = suite_create("varint");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_put, 0, NVEC);
	tcase_add_loop_test(tc, test_get, 0, NVEC);
	tcase_add_loop_test(tc, test_zigzag, 0, sizeof zz / sizeof zz[0]);
	tcase_add_test(tc, test_roundtrip_sweep);
	suite_add_tcase(s, tc);
	tc = tcase_create("errors");
	tcase_add_loop_test(tc, test_get_fail, 0, sizeof bad / sizeof bad[0]);
	suite_add_tcase(s, tc);
	return s;
}
