/* check_buildid.c -- the BUILDID trailer section and the build-id
 * comparisons: builder, verifier, reader (pcln_get_build_id,
 * pcln_check_build_id), runtime (pclnrt_table_build_id,
 * pclnrt_check_build_id), the note walkers (pclnrt_note_build_id,
 * pclnrt_phdr_build_id on this very process, pcln_elf_build_id,
 * pcln_file_build_id). */
#define _GNU_SOURCE
#include <config.h>

#include <check.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pcln.h"
#include "pcln_elf.h"
#include "pclnrt.h"

static const uint8_t id20[20] = {
	0xee, 0xb5, 0xe3, 0x85, 0xed, 0x54, 0x7c, 0xc5, 0xc2, 0x00,
	0x6a, 0x1d, 0x1a, 0x24, 0x5d, 0x13, 0xee, 0x9f, 0x5c, 0xde
};

/* A two-function blob recording build-id ID[0..LEN) (none if LEN 0). */
static uint8_t *
blob_with(const uint8_t *id, size_t len, size_t *blen)
{
	pcln_target t = { 8, 1, 0 };
	pcln_builder *b = pcln_builder_new(&t, NULL);
	pcln_err err;
	uint8_t *blob;
	long f;

	ck_assert_ptr_nonnull(b);
	f = pcln_builder_add_func(b, "f", 0x1000, 0x20, 0, 0, &err);
	ck_assert_int_ge(f, 0);
	ck_assert_int_ge(pcln_builder_add_func(b, "g", 0x1020, 0x10, 0, 0,
	    &err), 0);
	ck_assert_int_eq(pcln_builder_set_build_id(b, id, len, &err), 0);
	ck_assert_int_eq(pcln_builder_write(b, 0, &blob, blen, &err), 0);
	pcln_builder_free(b);
	return blob;
}

START_TEST(test_roundtrip)
{
	size_t len, n;
	uint8_t *blob = blob_with(id20, sizeof id20, &len);
	const uint8_t *got;
	pcln_table *t;
	pclnrt_table rt;
	pcln_err err;
	uint8_t other[20];

	ck_assert_int_eq(pcln_verify(blob, len, &err), 0);
	t = pcln_open(blob, len, 0, &err);
	ck_assert_ptr_nonnull(t);
	ck_assert_int_eq(pcln_get_build_id(t, &got, &n), 1);
	ck_assert_uint_eq(n, 20);
	ck_assert_mem_eq(got, id20, 20);
	ck_assert_int_eq(pcln_check_build_id(t, id20, 20, &err), 0);
	memcpy(other, id20, 20);
	other[19] ^= 1;
	ck_assert_int_eq(pcln_check_build_id(t, other, 20, &err), -1);
	ck_assert_int_eq(err.code, PCLN_EBUILDID);
	ck_assert_str_eq(err.msg, "table is for build-id "
	    "eeb5e385ed547cc5c2006a1d1a245d13ee9f5cde; the object's is "
	    "eeb5e385ed547cc5c2006a1d1a245d13ee9f5cdf (rebuilt since the "
	    "table was made?)");
	ck_assert_int_eq(pcln_check_build_id(t, id20, 0, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "the object has none"));
	pcln_close(t);

	ck_assert_int_eq(pclnrt_init(&rt, blob, len), PCLNRT_EINIT_OK);
	ck_assert_int_eq(pclnrt_table_build_id(&rt, &got, &n), PCLNRT_OK);
	ck_assert_uint_eq(n, 20);
	ck_assert_mem_eq(got, id20, 20);
	ck_assert_int_eq(pclnrt_check_build_id(&rt, id20, 20), PCLNRT_OK);
	ck_assert_int_eq(pclnrt_check_build_id(&rt, other, 20),
	    PCLNRT_BUILDID_MISMATCH);
	ck_assert_int_eq(pclnrt_check_build_id(&rt, id20, 16),
	    PCLNRT_BUILDID_MISMATCH);
	ck_assert_int_eq(pclnrt_check_build_id(&rt, id20, 0),
	    PCLNRT_NOTFOUND);
	free(blob);
}
END_TEST

START_TEST(test_none)
{
	size_t len, n;
	uint8_t *blob = blob_with(NULL, 0, &len);
	const uint8_t *got;
	pcln_table *t = pcln_open(blob, len, 0, NULL);
	pclnrt_table rt;
	pcln_err err;

	ck_assert_ptr_nonnull(t);
	ck_assert_int_eq(pcln_get_build_id(t, &got, &n), 0);
	ck_assert_int_eq(pcln_check_build_id(t, id20, 20, &err), -1);
	ck_assert_str_eq(err.msg, "the table records no build-id; the "
	    "object's is eeb5e385ed547cc5c2006a1d1a245d13ee9f5cde");
	pcln_close(t);
	ck_assert_int_eq(pclnrt_init(&rt, blob, len), PCLNRT_EINIT_OK);
	ck_assert_int_eq(pclnrt_check_build_id(&rt, id20, 20),
	    PCLNRT_NOTFOUND);
	free(blob);
}
END_TEST

START_TEST(test_limits)
{
	pcln_target t = { 8, 1, 0 };
	pcln_builder *b = pcln_builder_new(&t, NULL);
	uint8_t big[PCLN_BUILDID_MAX + 1], *blob;
	size_t len, n;
	const uint8_t *got;
	pcln_table *tab;
	pcln_err err;

	memset(big, 0xab, sizeof big);
	ck_assert_int_eq(pcln_builder_set_build_id(b, big, sizeof big, &err),
	    -1);
	ck_assert_int_eq(err.code, PCLN_ERANGE);
	pcln_builder_free(b);
	/* 1 and 64 bytes are fine. */
	blob = blob_with(big, 1, &len);
	ck_assert_int_eq(pcln_verify(blob, len, &err), 0);
	free(blob);
	blob = blob_with(big, PCLN_BUILDID_MAX, &len);
	ck_assert_int_eq(pcln_verify(blob, len, &err), 0);
	tab = pcln_open(blob, len, 0, NULL);
	ck_assert_int_eq(pcln_get_build_id(tab, &got, &n), 1);
	ck_assert_uint_eq(n, PCLN_BUILDID_MAX);
	pcln_close(tab);
	free(blob);
}
END_TEST

/* The verifier refuses a BUILDID section of size 0. */
START_TEST(test_verify_size)
{
	size_t len, i;
	uint8_t *blob = blob_with(id20, sizeof id20, &len);
	uint32_t diroff = pclnrt_load32(blob + len - PCLN_FOOTER_SIZE +
	    PCLN_FOOTER_DIROFF, 0);
	uint32_t nsect = pclnrt_load32(blob + len - PCLN_FOOTER_SIZE +
	    PCLN_FOOTER_NSECT, 0);
	pcln_err err;
	int found = 0;

	for (i = 0; i < nsect; i++) {
		uint8_t *d = blob + diroff + i * PCLN_DIRENT_SIZE;
		if (pclnrt_load32(d + PCLN_DIRENT_TAG, 0) != PCLN_SECT_BUILDID)
			continue;
		memset(d + PCLN_DIRENT_SIZEF, 0, 4);
		found = 1;
	}
	ck_assert(found);
	ck_assert_int_eq(pcln_verify(blob, len, &err), -1);
	ck_assert_int_eq(err.code, PCLN_ETRAILER);
	ck_assert_ptr_nonnull(strstr(err.msg, "BUILDID size 0, expected 1 "
	    "to 64 bytes"));
	free(blob);
}
END_TEST

/* Two notes, the build-id second, in each alignment and byte order. */
static size_t
put_notes(uint8_t *p, size_t align, int big)
{
	size_t c = 0;
	uint32_t w[3];
	int k, j;

	for (k = 0; k < 2; k++) {
		w[0] = 4;				/* "GNU" */
		w[1] = k == 0 ? 5 : 20;
		w[2] = k == 0 ? 1 : 3;			/* ABI tag, build-id */
		for (j = 0; j < 3; j++) {
			uint32_t v = w[j];
			p[c++] = (uint8_t)(big ? v >> 24 : v);
			p[c++] = (uint8_t)(big ? v >> 16 : v >> 8);
			p[c++] = (uint8_t)(big ? v >> 8 : v >> 16);
			p[c++] = (uint8_t)(big ? v : v >> 24);
		}
		memcpy(p + c, "GNU", 4);
		c += 4;
		c = (c + align - 1) & ~(align - 1);
		if (k == 0)
			memset(p + c, 0x55, 5);
		else
			memcpy(p + c, id20, 20);
		c += w[1];
		c = (c + align - 1) & ~(align - 1);
	}
	return c;
}

START_TEST(test_notes)
{
	uint8_t buf[256];
	const uint8_t *id;
	size_t n, len;
	unsigned a;
	int big;

	for (a = 4; a <= 8; a += 4)
		for (big = 0; big <= 1; big++) {
			memset(buf, 0, sizeof buf);
			len = put_notes(buf, a, big);
			ck_assert_int_eq(pclnrt_note_build_id(buf, len, a, big,
			    &id, &n), PCLNRT_OK);
			ck_assert_uint_eq(n, 20);
			ck_assert_mem_eq(id, id20, 20);
			/* Cut inside the build-id: corrupt, never past the
			 * end. */
			ck_assert_int_eq(pclnrt_note_build_id(buf, len - 8, a,
			    big, &id, &n), PCLNRT_CORRUPT);
			ck_assert_int_eq(pclnrt_note_build_id(buf, 11, a, big,
			    &id, &n), PCLNRT_NOTFOUND);
		}
	ck_assert_int_eq(pclnrt_note_build_id(NULL, 0, 4, 0, &id, &n),
	    PCLNRT_NOTFOUND);
}
END_TEST

static int
self_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	const uint8_t **out = arg;
	size_t n;

	(void)size;
	/* The first object is the program itself. */
	if (pclnrt_phdr_build_id(info->dlpi_phdr, info->dlpi_phnum,
	    info->dlpi_addr, &out[0], &n) == PCLNRT_OK)
		out[1] = (const uint8_t *)(uintptr_t)n;
	return 1;
}

/* The running program's note, through its program headers, equals the
 * file's, through its sections. */
START_TEST(test_self)
{
	const uint8_t *mine[2] = { NULL, NULL };
	uint8_t file[PCLN_BUILDID_MAX];
	size_t n;
	pcln_err err;

	dl_iterate_phdr(self_cb, mine);
	ck_assert_int_eq(pcln_file_build_id("/proc/self/exe", file, &n, &err),
	    1);
	ck_assert_ptr_nonnull(mine[0]);
	ck_assert_uint_eq((size_t)(uintptr_t)mine[1], n);
	ck_assert_mem_eq(mine[0], file, n);
	ck_assert_int_eq(pcln_file_build_id("/nonexistent", file, &n, &err),
	    -1);
	ck_assert_int_eq(err.code, PCLN_EIO);
}
END_TEST

/* The build-id of PATH as pcln_elf_build_id reads it from the whole
 * file mapped: 1 and ID, *N; 0 none. */
static int
mapped_id(const char *path, uint8_t *id, size_t *n)
{
	struct stat st;
	const uint8_t *p;
	pcln_err err;
	void *m;
	int fd = open(path, O_RDONLY), rc;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fstat(fd, &st), 0);
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	ck_assert_ptr_ne(m, MAP_FAILED);
	close(fd);
	rc = pcln_elf_build_id(m, (size_t)st.st_size, &p, n, &err);
	if (rc == 1)
		memcpy(id, p, *n);
	munmap(m, (size_t)st.st_size);
	return rc;
}

static int
objs_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	uint8_t a[PCLN_BUILDID_MAX], b[PCLN_BUILDID_MAX];
	size_t na = 0, nb = 0, *count = arg;
	pcln_err err;

	(void)size;
	if (info->dlpi_name == NULL || info->dlpi_name[0] != '/' ||
	    access(info->dlpi_name, R_OK) != 0)
		return 0;
	ck_assert_int_eq(pcln_file_build_id(info->dlpi_name, a, &na, &err),
	    mapped_id(info->dlpi_name, b, &nb));
	ck_assert_uint_eq(na, nb);
	ck_assert_mem_eq(a, b, na);
	*count += na > 0;
	return 0;
}

/* pcln_file_build_id reads a linked object's PT_NOTE segments with
 * pread: the same build-id as the sections of the file mapped, for
 * every library this test loaded; and a file whose program headers are
 * gone (e_phnum 0) is still read, through its section headers. */
START_TEST(test_file_ways)
{
	uint8_t a[PCLN_BUILDID_MAX], b[PCLN_BUILDID_MAX], *img;
	char tmp[] = "/tmp/check_buildid-XXXXXX";
	size_t count = 0, na = 0, nb = 0;
	struct stat st;
	pcln_err err;
	int fd;

	dl_iterate_phdr(objs_cb, &count);
	ck_assert_uint_ge(count, 1);	/* (libc, at least) */
	/* The program without program headers. */
	fd = open("/proc/self/exe", O_RDONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fstat(fd, &st), 0);
	img = malloc((size_t)st.st_size);
	ck_assert_ptr_nonnull(img);
	ck_assert_int_eq(pread(fd, img, (size_t)st.st_size, 0),
	    (ssize_t)st.st_size);
	close(fd);
	ck_assert_int_eq(img[4], 2);	/* (ELFCLASS64: e_phnum at 56) */
	memset(img + 56, 0, 2);
	fd = mkstemp(tmp);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, img, (size_t)st.st_size),
	    (ssize_t)st.st_size);
	close(fd);
	ck_assert_int_eq(pcln_file_build_id(tmp, a, &na, &err), 1);
	ck_assert_int_eq(pcln_file_build_id("/proc/self/exe", b, &nb, &err),
	    1);
	ck_assert_uint_eq(na, nb);
	ck_assert_mem_eq(a, b, na);
	unlink(tmp);
	free(img);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("build-id");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int nf;

	tcase_add_test(tc, test_roundtrip);
	tcase_add_test(tc, test_none);
	tcase_add_test(tc, test_limits);
	tcase_add_test(tc, test_verify_size);
	tcase_add_test(tc, test_notes);
	tcase_add_test(tc, test_self);
	tcase_add_test(tc, test_file_ways);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
