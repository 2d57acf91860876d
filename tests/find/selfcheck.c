/* selfcheck.c -- a program that loads a table from a file for itself
 * and, with the runtime alone, refuses it unless it records the running
 * program's build-id (tests/find-cache.sh).
 *
 *   selfcheck TABLE    exit 0 "ok: ..." if TABLE is this program's,
 *                      1 "refused: ..." naming both build-ids if not
 */
#define _GNU_SOURCE
#include <link.h>
#include <stdio.h>
#include <stdlib.h>

#include "pclnrt.h"

/* tests/find-cache.sh rebuilds it with -DSELFCHECK_V2: other code. */
#ifdef SELFCHECK_V2
static const char *volatile version = "2";
#else
static const char *volatile version = "1";
#endif

static int
first(struct dl_phdr_info *info, size_t size, void *arg)
{
	const uint8_t **id = arg;
	size_t n;

	(void)size;
	if (pclnrt_phdr_build_id(info->dlpi_phdr, info->dlpi_phnum,
	    info->dlpi_addr, &id[0], &n) == PCLNRT_OK)
		id[1] = (const uint8_t *)(uintptr_t)n;
	return 1;	/* the program itself comes first */
}

static void
hex(const uint8_t *p, size_t n)
{
	while (n-- > 0)
		printf("%02x", *p++);
}

int
main(int argc, char **argv)
{
	static uint8_t blob[1 << 20];
	const uint8_t *mine[2] = { NULL, NULL }, *theirs;
	size_t len, n;
	pclnrt_table t;
	FILE *f;
	int rc;

	if (version[0] == 0 || argc != 2 || (f = fopen(argv[1], "rb")) == NULL)
		return 2;
	len = fread(blob, 1, sizeof blob, f);
	fclose(f);
	if (pclnrt_init(&t, blob, len) != PCLNRT_EINIT_OK) {
		printf("refused: not a table\n");
		return 1;
	}
	dl_iterate_phdr(first, mine);
	rc = pclnrt_check_build_id(&t, mine[0], (size_t)(uintptr_t)mine[1]);
	if (rc == PCLNRT_OK) {
		printf("ok: the table is this program's (");
		hex(mine[0], (size_t)(uintptr_t)mine[1]);
		printf(")\n");
		return 0;
	}
	printf("refused: ");
	if (pclnrt_table_build_id(&t, &theirs, &n) == PCLNRT_OK) {
		printf("the table is for build-id ");
		hex(theirs, n);
	} else
		printf("the table records no build-id");
	printf(", this program is ");
	hex(mine[0], (size_t)(uintptr_t)mine[1]);
	printf("\n");
	return 1;
}
