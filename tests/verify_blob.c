/* verify_blob.c -- test helper: verify pcln blobs with pcln_open (without
 * PCLN_OPEN_TRUSTED) and print "FILE: ok N functions" or the fault.
 * Exit 0 if every file verifies, 1 otherwise. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>

#include "pcln.h"

static int
verify(const char *path)
{
	FILE *fp = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0, n;
	pcln_table *t;
	pcln_err err;

	if (fp == NULL) {
		perror(path);
		return 1;
	}
	for (;;) {
		if (len == cap) {
			uint8_t *p;
			cap = cap ? cap * 2 : 65536;
			if ((p = realloc(buf, cap)) == NULL) {
				fclose(fp);
				free(buf);
				fprintf(stderr, "%s: out of memory\n", path);
				return 1;
			}
			buf = p;
		}
		if ((n = fread(buf + len, 1, cap - len, fp)) == 0)
			break;
		len += n;
	}
	fclose(fp);
	if ((t = pcln_open(buf, len, 0, &err)) == NULL) {
		printf("%s: FAIL %s\n", path, err.msg);
		free(buf);
		return 1;
	}
	printf("%s: ok %zu functions\n", path, pcln_nfunc(t));
	pcln_close(t);
	free(buf);
	return 0;
}

int
main(int argc, char **argv)
{
	int i, rc = 0;

	for (i = 1; i < argc; i++)
		rc |= verify(argv[i]);
	return rc;
}
