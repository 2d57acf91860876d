/* gen_golden.c -- write the golden blobs of tests/golden/.
 *
 * The golden test (tests/test_golden.c) rebuilds these blobs in memory
 * and compares them byte for byte with the checked-in files, so any change
 * to the builder's output shows up as a test failure.  When a change to
 * the output is intended (a format change: see doc/FORMAT.md), regenerate
 * them from a build directory and commit the new files:
 *
 *	make tests/gen_golden && tests/gen_golden $(srcdir)/tests/golden
 *
 * The blobs describe the sample program of tests/golden.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "golden.h"

int
main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : ".";
	size_t i;

	for (i = 0; i < GOLDEN_N; i++) {
		const struct golden *g = &golden_blobs[i];
		char path[4096];
		uint8_t *blob;
		size_t len;
		pcln_err err;
		FILE *f;

		if (sample_build(&g->target, g->flags, &blob, &len, NULL,
		    &err) != 0) {
			fprintf(stderr, "gen_golden: %s: %s\n", g->file,
			    err.msg);
			return 1;
		}
		snprintf(path, sizeof path, "%s/%s", dir, g->file);
		if ((f = fopen(path, "wb")) == NULL ||
		    fwrite(blob, 1, len, f) != len || fclose(f) != 0) {
			perror(path);
			return 1;
		}
		printf("%s: %zu bytes\n", path, len);
		free(blob);
	}
	return 0;
}
