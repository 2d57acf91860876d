/* randblob.c -- write a random, valid pcln blob with libpcln's builder,
 * for the Go interop tests.
 *
 * Usage: randblob SEED PTRSIZE QUANTUM le|be trailer|go12 OUTPUT
 *
 * The same arguments always give the same bytes.  Functions come with
 * gaps between them, pcsp/pcfile/pcln tables that are sometimes absent, a
 * pcln table that sometimes starts late (line -1 before it), lines that
 * jump by large amounts (multi-byte varints), pcdata and funcdata.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcln.h"

static uint64_t rng;

static uint32_t
rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return n ? (uint32_t)(rng % n) : 0;
}

static void
die(const char *what, const pcln_err *err)
{
	fprintf(stderr, "randblob: %s: %s\n", what, err->msg);
	exit(1);
}

/* Random points for table TAB of function F (SIZE bytes, quantum Q). */
static void
table(pcln_builder *b, long f, int tab, uint32_t size, unsigned q,
    long nfile)
{
	uint32_t n = 1 + rnd(6), off = 0, step;
	int32_t v = (int32_t)rnd(100);
	pcln_err err;
	uint32_t k;

	if (tab == PCLN_TAB_PCLN && rnd(6) == 0)
		off = q * rnd(size / q);	/* line -1 before the first */
	for (k = 0; k < n && off < size; k++) {
		int32_t val;
		switch (tab) {
		case PCLN_TAB_PCSP:
			val = k == 0 ? 0 : (int32_t)(8 * rnd(64));
			break;
		case PCLN_TAB_PCFILE:
			val = 1 + (int32_t)rnd((uint32_t)nfile);
			break;
		case PCLN_TAB_PCLN:
			v += rnd(8) == 0 ? (int32_t)rnd(1u << 20) :
			    (int32_t)rnd(20) - 5;
			if (v < 1)
				v = 1 + (int32_t)rnd(10);
			val = v;
			break;
		default:
			val = (int32_t)rnd(10) - 1;
			break;
		}
		if (pcln_builder_add_point(b, f, tab, off, val, &err) < 0)
			die("add point", &err);
		step = (size - off) / q;
		off += q * (1 + rnd(step < 2 ? 1 : step / 2 + 1));
	}
}

int
main(int argc, char **argv)
{
	pcln_target t;
	pcln_builder *b;
	pcln_err err;
	uint64_t pc;
	uint8_t *blob;
	size_t len;
	long nfile, i, nfunc, k;
	FILE *fp;

	if (argc != 7) {
		fprintf(stderr, "usage: randblob SEED PTRSIZE QUANTUM le|be "
		    "trailer|go12 OUTPUT\n");
		return 2;
	}
	rng = 0x9e3779b97f4a7c15ull ^ strtoull(argv[1], NULL, 0);
	t.ptrsize = (unsigned)atoi(argv[2]);
	t.quantum = (unsigned)atoi(argv[3]);
	t.bigendian = strcmp(argv[4], "be") == 0;
	if ((b = pcln_builder_new(&t, &err)) == NULL)
		die("target", &err);

	nfile = 1 + (long)rnd(6);
	for (k = 0; k < nfile; k++) {
		char name[64];
		snprintf(name, sizeof name, "%s/file%ld_%u.%s",
		    rnd(2) ? "/src/pkg" : "lib", k, rnd(1000),
		    rnd(2) ? "go" : "c");
		if (pcln_builder_add_file(b, name, &err) != k + 1)
			die("add file", &err);
	}
	/* 64-bit text: sometimes above 2^53 (kernel-like), where a JSON
	 * reader using doubles would lose bits */
	if (t.ptrsize == 4)
		pc = 0x8000u * (1 + rnd(256));
	else if (rnd(2))
		pc = 0xffffffff80000000ull + 0x10000ull * rnd(1u << 12);
	else
		pc = 0x400000000ull + 0x10000ull * rnd(1u << 16);
	nfunc = 1 + (long)rnd(30);
	for (i = 0; i < nfunc; i++) {
		uint32_t size = t.quantum * (1 + rnd(64));
		int has[3], tab;
		char name[64];
		long f;

		switch (rnd(3)) {
		case 0:
			snprintf(name, sizeof name, "main.f%ld", i);
			break;
		case 1:
			snprintf(name, sizeof name, "pkg.(*T%u).m%ld", rnd(9),
			    i);
			break;
		default:
			snprintf(name, sizeof name, "c_func_%ld_%u", i,
			    rnd(100000));
			break;
		}
		f = pcln_builder_add_func(b, name, pc, size,
		    (int32_t)(8 * rnd(8)), (int32_t)(8 * rnd(32)), &err);
		if (f < 0)
			die("add func", &err);
		for (tab = 0; tab < 3; tab++) {
			has[tab] = rnd(8) != 0;
			if (has[tab])
				table(b, f, tab, size, t.quantum, nfile);
		}
		for (k = 0; k < (long)rnd(3); k++)
			table(b, f, PCLN_TAB_PCDATA(k), size, t.quantum,
			    nfile);
		for (k = 0; k < (long)rnd(3); k++)
			if (pcln_builder_set_funcdata(b, f, (unsigned)k,
			    rnd(2) ? 0 : 0x1000 + 8 * rnd(1000), &err) < 0)
				die("funcdata", &err);
		pc += size;
		/* a gap, but not after a function with no table: its
		 * extent is up to the next entry */
		if ((has[0] || has[1] || has[2]) && rnd(3) == 0)
			pc += t.quantum * (1 + rnd(16));
	}
	if (pcln_builder_write(b, strcmp(argv[5], "go12") == 0 ?
	    PCLN_WRITE_GO12 : 0, &blob, &len, &err) < 0)
		die("write", &err);
	pcln_builder_free(b);
	if ((fp = fopen(argv[6], "wb")) == NULL || fwrite(blob, 1, len, fp) !=
	    len || fclose(fp) != 0) {
		perror(argv[6]);
		return 1;
	}
	free(blob);
	return 0;
}
