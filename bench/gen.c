/* gen.c -- write a synthetic pcln description (doc/DESCRIPTION.md) of N
 * functions that look like compiled C, for the benchmarks.
 *
 * Usage: pcln-bench-gen N [SEED [small]] > FILE.pcln
 * ("small": every function in the first size class, 16-127 bytes; the
 * BPF test uses it to look up every pc of 10^5 functions.)
 *
 * Distribution (deterministic for a given N and SEED; default seed 1):
 * - code size: 60 % of functions 16-127 bytes, 30 % 128-1023 bytes,
 *   10 % 1024-8191 bytes (uniform within each class; mean about 670
 *   bytes), each placed at the next multiple of 16 (align 16), so the
 *   padding between functions is a gap of 0-15 bytes;
 * - pcsp: 0 at the entry, 8 after a push at byte 1, then frame + 8 (frame
 *   a multiple of 16 up to 0x100) from byte 4 in functions of 64 bytes or
 *   more, back to 8 and 0 in the last 2 bytes: 2 to 5 rows;
 * - pcfile: 1000 files, 50 consecutive functions share one (a compile
 *   unit); a fifth of the functions of 64 bytes or more have an inlined
 *   stretch from a second ("header") file in their middle third;
 * - pcln: a new row every 4-19 bytes (one line per ~12 bytes of code),
 *   line deltas -3..+6, starting near 40 * (i % 50): about 1 row per 12
 *   bytes, so ~56 rows for the mean function;
 * - names: "unitU_fnI" (distinct, about 16 bytes).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t state;

static uint32_t
rnd(uint32_t n)
{
	state = state * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)((state >> 33) % n);
}

int
main(int argc, char **argv)
{
	unsigned long n, i;
	char *end;
	int small;

	if (argc < 2 || argc > 4 || (n = strtoul(argv[1], &end, 10)) == 0 ||
	    *end != '\0' || (argc == 4 && strcmp(argv[3], "small") != 0)) {
		fprintf(stderr, "usage: pcln-bench-gen N [SEED [small]]\n");
		return 2;
	}
	state = argc >= 3 ? strtoull(argv[2], NULL, 10) : 1;
	small = argc == 4;
	printf("# pcln-bench-gen %lu: synthetic C-like functions\n"
	    "target ptrsize 8 quantum 1 endian little\n", n);
	for (i = 0; i < n; i++) {
		uint32_t c = rnd(100), size, frame, off, hdr;
		int32_t line;
		unsigned long unit = i / 50;

		if (c < 60 || small)
			size = 16 + rnd(112);
		else if (c < 90)
			size = 128 + rnd(896);
		else
			size = 1024 + rnd(7168);
		frame = 16 * rnd(17);
		printf("func unit%lu_fn%lu size %" PRIu32 " align 16\n", unit, i,
		    size);
		if (size >= 64 && frame > 0)
			printf("\tpcsp 0:0 1:8 4:%" PRIu32 " %" PRIu32 ":8 %"
			    PRIu32 ":0\n", frame + 8, size - 2, size - 1);
		else
			printf("\tpcsp 0:0 1:8 %" PRIu32 ":0\n", size - 1);
		hdr = size >= 64 && rnd(5) == 0;
		if (hdr)
			printf("\tpcfile 0:src/unit%lu.c %" PRIu32
			    ":include/h%lu.h %" PRIu32 ":src/unit%lu.c\n",
			    unit % 1000, size / 3, unit % 97, 2 * size / 3,
			    unit % 1000);
		else
			printf("\tpcfile 0:src/unit%lu.c\n", unit % 1000);
		line = 40 * (int32_t)(i % 50) + 10;
		printf("\tpcln 0:%" PRId32, line);
		for (off = 4 + rnd(16); off < size; off += 4 + rnd(16)) {
			line += (int32_t)rnd(10) - 3;
			if (line < 1)
				line = 1;
			printf(" %" PRIu32 ":%" PRId32, off, line);
		}
		printf("\nend\n");
	}
	return ferror(stdout) || fflush(stdout) != 0;
}
