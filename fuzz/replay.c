/* replay.c -- a libFuzzer target's LLVMFuzzerTestOneInput over files,
 * without libFuzzer.
 *
 * Usage: replay_TARGET FILE|DIR...
 *
 * Linked with one fuzz/fuzz_TARGET.c and built by make check with the
 * ordinary compiler (and under ASan/UBSan by scripts/sanitize.sh), so
 * every committed input -- the corpus fuzz/corpus/TARGET/ and the crash
 * seeds fuzz/crashes/TARGET/ (tests/fuzz-replay.sh) -- runs on every
 * build, fuzzing configured or not: a fixed crash stays fixed.  Each
 * input is read into an exactly-sized buffer, as libFuzzer would pass
 * it.  Exits 0 when every input ran (a target reports a failure by
 * crashing or aborting), 2 if an input cannot be read.  Prints how many
 * inputs ran.
 */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static unsigned long ran;

static int
one(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (f == NULL) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	do {
		if (len == cap) {
			uint8_t *nb;
			cap = cap ? 2 * cap : 65536;
			if ((nb = realloc(buf, cap)) == NULL)
				abort();
			buf = nb;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
	} while (n > 0);
	if (ferror(f)) {
		fprintf(stderr, "replay: %s: read error\n", path);
		fclose(f);
		free(buf);
		return -1;
	}
	fclose(f);
	/* LLVMFuzzerTestOneInput copies what it keeps (fuzz_copy). */
	(void)LLVMFuzzerTestOneInput(buf, len);
	free(buf);
	ran++;
	return 0;
}

static int
walk(const char *path)
{
	struct dirent **ents;
	struct stat st;
	char sub[4096];
	int n, k, rc = 0;

	if (stat(path, &st) != 0) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return one(path);
	/* Sorted, so that a failure is reproducible. */
	if ((n = scandir(path, &ents, NULL, alphasort)) < 0) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	for (k = 0; k < n; k++) {
		if (ents[k]->d_name[0] != '.' &&
		    strcmp(ents[k]->d_name, "README") != 0) {
			snprintf(sub, sizeof sub, "%s/%s", path,
			    ents[k]->d_name);
			if (one(sub) != 0)
				rc = -1;
		}
		free(ents[k]);
	}
	free(ents);
	return rc;
}

int
main(int argc, char **argv)
{
	int i, rc = 0;

	for (i = 1; i < argc; i++)
		if (walk(argv[i]) != 0)
			rc = 2;
	printf("%lu inputs\n", ran);
	return rc;
}
