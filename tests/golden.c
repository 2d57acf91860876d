/* golden.c -- the sample program behind the golden blobs.
 *
 * Five functions, added out of entry order, with a gap between two of
 * them, three files, a shared (deduplicated) pcsp table, sparse pcdata and
 * funcdata, and a function whose name bytes form an overflowing varint.
 * Every pc offset is a multiple of 4, so the same program builds for
 * every quantum.  Changing anything here changes the golden blobs: rerun
 * tests/gen_golden (see its header comment).
 */
#include <stdlib.h>

#include "golden.h"

const struct golden golden_blobs[GOLDEN_N] = {
	{ "le64-trailer.bin", { 8, 1, 0 }, 0 },
	{ "be32-q4-go12.bin", { 4, 4, 1 }, PCLN_WRITE_GO12 },
	{ "le32-q2-trailer.bin", { 4, 2, 0 }, 0 },
};

struct spoint {
	int table;
	uint32_t off;
	int32_t value;
};

struct sfunc {
	const char *name;
	uint32_t off;		/* from SAMPLE_BASE */
	uint32_t size;
	int32_t args, frame;
	const struct spoint *pts;
	size_t npts;
	unsigned fdidx;		/* funcdata slot set, if fdval != 0 */
	uint64_t fdval;
};

#define PCFILE PCLN_TAB_PCFILE
#define PCLN PCLN_TAB_PCLN
#define PCSP PCLN_TAB_PCSP

static const struct spoint main_pts[] = {
	{ PCSP, 0, 0 }, { PCSP, 4, 8 }, { PCSP, 0x38, 0 },
	{ PCFILE, 0, 1 },
	{ PCLN, 0, 10 }, { PCLN, 8, 11 }, { PCLN, 0x10, 12 },
	{ PCLN, 0x20, 11 }, { PCLN, 0x30, 13 },
	{ PCLN_TAB_PCDATA(0), 0, 1 }, { PCLN_TAB_PCDATA(0), 0x20, 2 },
};
static const struct spoint helper_pts[] = {
	{ PCSP, 0, 0 }, { PCSP, 4, 8 }, { PCSP, 0x1c, 0 },	/* as odd's */
	{ PCFILE, 0, 2 }, { PCFILE, 0x10, 3 },
	{ PCLN, 0, 20 }, { PCLN, 0x10, 5 },
	{ PCLN_TAB_PCDATA(2), 4, 7 },			/* sparse */
};
static const struct spoint compute_pts[] = {
	{ PCSP, 0, 0 }, { PCSP, 8, 16 }, { PCSP, 0x28, 0 },
	{ PCFILE, 0, 2 },
	{ PCLN, 0, 30 }, { PCLN, 0xc, 31 }, { PCLN, 0x18, 30 },
	{ PCLN, 0x24, 33 },
};
static const struct spoint leaf_pts[] = {
	{ PCFILE, 0, 1 }, { PCLN, 0, 40 },
};
static const struct spoint odd_pts[] = {
	{ PCSP, 0, 0 }, { PCSP, 4, 8 }, { PCSP, 0x1c, 0 },
	{ PCFILE, 0, 3 }, { PCLN, 4, 50 },	/* pcln -1 first */
};

/* In order of addition (not of entry). */
static const struct sfunc sample[SAMPLE_NFUNC] = {
	{ "util.compute", 0x80, 0x30, 16, 16, compute_pts,
	    sizeof compute_pts / sizeof compute_pts[0], 0, 0 },
	{ "main", 0x0, 0x40, 0, 8, main_pts,
	    sizeof main_pts / sizeof main_pts[0], 1, 0x500000 },
	{ "helper", 0x40, 0x20, 8, 8, helper_pts,
	    sizeof helper_pts / sizeof helper_pts[0], 0, 0 },
	{ "leaf", 0x60, 0x8, 0, 0, leaf_pts,
	    sizeof leaf_pts / sizeof leaf_pts[0], 0, 0 },
	/* after a gap [0xb0, 0xc0) */
	{ "\xff\xff\xff\xff\x7f", 0xc0, 0x20, 0, 0, odd_pts,
	    sizeof odd_pts / sizeof odd_pts[0], 0, 0 },
};

static const char *const sample_files[SAMPLE_NFILE] = {
	"/src/main.c", "/src/util/util.c", "util.h",
};

int
sample_populate(pcln_builder *b, pcln_err *err)
{
	size_t i, j;

	for (i = 0; i < SAMPLE_NFILE; i++)
		if (pcln_builder_add_file(b, sample_files[i], err) !=
		    (long)i + 1)
			return -1;
	for (i = 0; i < SAMPLE_NFUNC; i++) {
		const struct sfunc *s = &sample[i];
		long f = pcln_builder_add_func(b, s->name,
		    SAMPLE_BASE + s->off, s->size, s->args, s->frame, err);
		if (f != (long)i)
			return -1;
		for (j = 0; j < s->npts; j++)
			if (pcln_builder_add_point(b, f, s->pts[j].table,
			    s->pts[j].off, s->pts[j].value, err) != 0)
				return -1;
		if (s->fdval != 0 && pcln_builder_set_funcdata(b, f,
		    s->fdidx, s->fdval, err) != 0)
			return -1;
	}
	return 0;
}

int
sample_build(const pcln_target *t, unsigned flags, uint8_t **out,
    size_t *len, pcln_builder **bp, pcln_err *err)
{
	pcln_builder *b = pcln_builder_new(t, err);

	if (b == NULL)
		return -1;
	if (sample_populate(b, err) != 0 ||
	    pcln_builder_write(b, flags, out, len, err) != 0) {
		pcln_builder_free(b);
		return -1;
	}
	if (bp != NULL)
		*bp = b;
	else
		pcln_builder_free(b);
	return 0;
}
