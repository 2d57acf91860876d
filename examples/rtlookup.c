/* rtlookup.c -- answer pc queries about a blob with the runtime alone.
 *
 *   rtlookup BLOB PC...
 *
 * Reads BLOB (a file pclnld wrote) into memory -- the only libc use is
 * here, in the example's own I/O -- then, for each PC, asks the runtime
 * (pclnrt.h: no allocation, no locks, no libc) for the function, its
 * offset, file:line and stack-pointer delta, and prints one line:
 *
 *   0x1009 main.main+0x9 hello.go:6 spdelta=0x28
 *
 * A pc in no function (before the first, in a gap, past the end) prints
 * "?".  Exit status: 0 if every pc was found, 1 if some were not, 2 on
 * a usage or input error.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "pclnrt.h"

static unsigned char *
slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	size_t cap = 0, n = 0, r;

	if (f == NULL)
		return NULL;
	do {
		if (n == cap) {
			unsigned char *nb;
			cap = cap ? 2 * cap : 65536;
			if ((nb = realloc(buf, cap)) == NULL) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
		}
		r = fread(buf + n, 1, cap - n, f);
		n += r;
	} while (r > 0);
	if (ferror(f)) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	*len = n;
	return buf;
}

int
main(int argc, char **argv)
{
	pclnrt_table t;
	unsigned char *blob;
	size_t len;
	int i, rc, missing = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: rtlookup BLOB PC...\n");
		return 2;
	}
	if ((blob = slurp(argv[1], &len)) == NULL) {
		perror(argv[1]);
		return 2;
	}
	if ((rc = pclnrt_init(&t, blob, len)) != 0) {
		fprintf(stderr, "rtlookup: %s: %s\n", argv[1],
		    pclnrt_init_strerror(rc));
		free(blob);
		return 2;
	}
	for (i = 2; i < argc; i++) {
		char *end;
		uint64_t pc = strtoull(argv[i], &end, 0);
		pclnrt_func f;
		const char *file = NULL;
		int32_t line = 0, sp = 0;

		if (*end != '\0' || end == argv[i]) {
			fprintf(stderr, "rtlookup: bad pc '%s'\n", argv[i]);
			free(blob);
			return 2;
		}
		if (pclnrt_findfunc(&t, pc, &f) != PCLNRT_OK) {
			printf("0x%" PRIx64 " ?\n", pc);
			missing = 1;
			continue;
		}
		printf("0x%" PRIx64 " %s+0x%" PRIx64, pc,
		    f.name ? f.name : "?", pc - f.entry);
		if (pclnrt_funcline(&f, pc, &file, &line) == PCLNRT_OK)
			printf(" %s:%" PRId32, file, line);
		else
			printf(" ?:0");
		if (pclnrt_pcsp(&f, pc, &sp) == PCLNRT_OK)
			printf(" spdelta=0x%" PRIx32, (uint32_t)sp);
		printf("\n");
	}
	free(blob);
	return missing;
}
