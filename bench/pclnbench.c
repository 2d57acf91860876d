/* pclnbench.c -- pcln's own per-lookup costs on one blob.
 *
 * Usage:
 *   pcln-bench lookups BLOB [NPCS [SEED [KIND,...]]]
 *       time each lookup kind (or those listed) over NPCS (default
 *       1000000) pcs, random and sequential (the same pcs sorted), median
 *       of 5 passes, in ns per pc; enumeration rows per second; time to
 *       first lookup (with a KIND list: if it names "first").  Prints
 *       "name value" lines.
 *   pcln-bench loop BLOB KIND N
 *       do N lookups of KIND, cycling over 65536 random pcs (for
 *       callgrind: the difference of two runs with N and 2N is the cost
 *       of N lookups alone).
 *   pcln-bench loop-stacks BLOB KIND N
 *       the same over those pcs rearranged as stacks (below): for the
 *       frame kinds, the cost of a frame when the cache mostly hits.
 *   pcln-bench pcs BLOB N [SEED]
 *       print N random pcs (hex, one a line) inside functions.
 *
 * KIND: bsearch, index (pclnrt_findfunc without and with FUNCINDEX),
 * funcline (index + pclnrt_funcline, reading the first byte of the
 * function's name and of the file's: what a symbolizer prints), inline
 * (funcline + pclnrt_inline: the full inline chain, every call's name
 * and file read, what addr2line -f -i prints), pcsp (index +
 * pclnrt_pcsp),
 * pcdata (index + pclnrt_pcdata of table 2: the inline index in
 * pclnld --elf blobs; the synthetic tables have no pcdata),
 * lib-bsearch, lib-index (pcln_find_func), lib-lookup (pcln_lookup),
 * frame and frame-cached (what a traceback does per frame: findfunc,
 * funcline and pcsp, without and with a pclnrt_pccache that is emptied
 * at each stack).  The frame kinds run over "stacks" as well as random
 * and sorted pcs: 32-frame stacks of 4 random frames and a 2-frame
 * recursion 14 deep (a recursive function calling a helper), built from
 * the same random pcs.
 *
 * "Without FUNCINDEX" is a private copy of the blob whose FUNCINDEX
 * directory entry is retagged 0xffffffff, a tag every reader ignores, so
 * both runs read the same bytes in the same places.  Public API only.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pcln.h"
#include "pclnrt.h"
#include "pclnrt_format.h"
#include "bench.h"


static volatile uint64_t sink;

static void
die(const char *what)
{
	fprintf(stderr, "pcln-bench: %s\n", what);
	exit(1);
}

static uint8_t *
slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *b;
	long n = 0;

	if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) <= 0 ||
	    fseek(f, 0, SEEK_SET) != 0)
		die("cannot read the blob");
	if ((b = malloc((size_t)n)) == NULL ||
	    fread(b, 1, (size_t)n, f) != (size_t)n)
		die("cannot read the blob");
	fclose(f);
	*len = (size_t)n;
	return b;
}

/* Retag the FUNCINDEX directory entry of a copy of B; NULL if none. */
static uint8_t *
noindex(const uint8_t *b, size_t len)
{
	struct pclnrt_footer f;
	struct pclnrt_dirent d;
	uint8_t *c;
	uint32_t k;
	int big = b[0] == 0xff;

	if (!pclnrt_footer(b, len, big, &f) || !pclnrt_dir_fits(&f, f.nsect))
		return NULL;
	for (k = 0; k < f.nsect; k++) {
		pclnrt_dirent(b, &f, k, big, &d);
		if (d.tag != PCLN_SECT_FUNCINDEX)
			continue;
		if ((c = malloc(len)) == NULL)
			die("out of memory");
		memcpy(c, b, len);
		memset(c + f.diroff + k * PCLN_DIRENT_SIZE + PCLN_DIRENT_TAG,
		    0xff, 4);
		return c;
	}
	return NULL;
}

static uint64_t rs = 1;

static uint64_t
rnd64(void)
{
	rs ^= rs << 13;
	rs ^= rs >> 7;
	rs ^= rs << 17;
	return rs;
}

/* N pcs, uniform over the text, each inside a function (not a gap). */
static uint64_t *
random_pcs(const pclnrt_table *t, size_t n)
{
	uint64_t *pcs = malloc(n * sizeof *pcs);
	size_t i;

	if (pcs == NULL)
		die("out of memory");
	for (i = 0; i < n;) {
		uint64_t pc = t->minpc + rnd64() % (t->maxpc - t->minpc);
		pclnrt_func f;
		if (pclnrt_findfunc(t, pc, &f) == PCLNRT_OK)
			pcs[i++] = pc;
	}
	return pcs;
}

enum kind {
	K_BSEARCH, K_INDEX, K_FUNCLINE, K_INLINE, K_PCSP, K_PCDATA,
	K_LIB_BSEARCH, K_LIB_INDEX, K_LIB_LOOKUP, K_FRAME, K_FRAME_CACHED, K_N
};
static const char *const kname[K_N] = {
	"bsearch", "index", "funcline", "inline", "pcsp", "pcdata",
	"lib-bsearch", "lib-index", "lib-lookup", "frame", "frame-cached"
};

#define INLINE_MAX	64	/* calls kept per pc (K_INLINE) */

/* The first byte of a returned string (0 for none): a symbolizer reads
 * what it prints, so the benchmark pays for the string's cache line. */
static inline unsigned
byte0(const char *s)
{
	return s != NULL ? (unsigned char)s[0] : 0;
}

#define STACK_DEPTH	32

struct ctx {
	pclnrt_table rt, rt_noidx;
	pcln_table *lt, *lt_noidx;
	pclnrt_pccache cache;
	uint64_t hits, misses;	/* of frame-cached, last run */
};

static void
run(struct ctx *c, enum kind k, const uint64_t *pcs, size_t n)
{
	uint64_t acc = 0;
	size_t i;

	c->hits = c->misses = 0;
	for (i = 0; i < n; i++) {
		pclnrt_func f;
		const char *path;
		int32_t v = 0;
		pcln_loc loc;

		switch (k) {
		case K_BSEARCH:
			pclnrt_findfunc(&c->rt_noidx, pcs[i], &f);
			acc += f.index + (uintptr_t)f.name;
			break;
		case K_INDEX:
			pclnrt_findfunc(&c->rt, pcs[i], &f);
			acc += f.index + (uintptr_t)f.name;
			break;
		case K_FUNCLINE:
			pclnrt_findfunc(&c->rt, pcs[i], &f);
			pclnrt_funcline(&f, pcs[i], &path, &v);
			acc += byte0(f.name) + byte0(path) + (uint32_t)v;
			break;
		case K_INLINE: {
			pclnrt_inlcall calls[INLINE_MAX];
			size_t nc = 0, j;

			pclnrt_findfunc(&c->rt, pcs[i], &f);
			pclnrt_funcline(&f, pcs[i], &path, &v);
			acc += byte0(f.name) + byte0(path) + (uint32_t)v;
			pclnrt_inline(&f, pcs[i], calls, INLINE_MAX, &nc);
			for (j = 0; j < nc; j++)
				acc += byte0(calls[j].name) +
				    byte0(calls[j].file) +
				    (uint32_t)calls[j].line;
			break;
		}
		case K_PCSP:
			pclnrt_findfunc(&c->rt, pcs[i], &f);
			pclnrt_pcsp(&f, pcs[i], &v);
			acc += (uint32_t)v;
			break;
		case K_PCDATA:
			pclnrt_findfunc(&c->rt, pcs[i], &f);
			pclnrt_pcdata(&f, PCLN_PCDATA_INLTREE, pcs[i], &v);
			acc += (uint32_t)v;
			break;
		case K_LIB_BSEARCH:
			acc += (uint64_t)pcln_find_func(c->lt_noidx, pcs[i]);
			break;
		case K_LIB_INDEX:
			acc += (uint64_t)pcln_find_func(c->lt, pcs[i]);
			break;
		case K_LIB_LOOKUP:
			pcln_lookup(c->lt, pcs[i], &loc);
			acc += (uint64_t)loc.func + (uint32_t)loc.line;
			break;
		case K_FRAME:
			pclnrt_findfunc(&c->rt, pcs[i], &f);
			pclnrt_funcline(&f, pcs[i], &path, &v);
			acc += (uintptr_t)f.name + (uintptr_t)path + (uint32_t)v;
			pclnrt_pcsp(&f, pcs[i], &v);
			acc += (uint32_t)v;
			break;
		default:
			if (i % STACK_DEPTH == 0) {
				c->hits += c->cache.hits;
				c->misses += c->cache.misses;
				pclnrt_pccache_init(&c->cache);
			}
			pclnrt_findfunc(&c->rt, pcs[i], &f);
			pclnrt_funcline_cached(&f, pcs[i], &path, &v,
			    &c->cache);
			acc += (uintptr_t)f.name + (uintptr_t)path + (uint32_t)v;
			pclnrt_pcvalue_cached(&f, PCLN_TAB_PCSP, pcs[i], &v,
			    &c->cache);
			acc += (uint32_t)v;
			break;
		}
	}
	c->hits += c->cache.hits;
	c->misses += c->cache.misses;
	sink += acc;
}

static double
median_ns(struct ctx *c, enum kind k, const uint64_t *pcs, size_t n)
{
	double d[NPASS];
	int p;

	for (p = 0; p < NPASS; p++) {
		double t0 = now();
		run(c, k, pcs, n);
		d[p] = (now() - t0) / (double)n;
	}
	qsort(d, NPASS, sizeof d[0], cmpd);
	return d[NPASS / 2];
}

static void
open_ctx(struct ctx *c, const uint8_t *b, size_t len, const uint8_t *nb)
{
	pcln_err err;

	if (pclnrt_init(&c->rt, b, len) != PCLNRT_EINIT_OK ||
	    pclnrt_init(&c->rt_noidx, nb, len) != PCLNRT_EINIT_OK)
		die("pclnrt_init failed");
	if ((c->lt = pcln_open(b, len, PCLN_OPEN_TRUSTED, &err)) == NULL ||
	    (c->lt_noidx = pcln_open(nb, len, PCLN_OPEN_TRUSTED, &err)) ==
	    NULL)
		die(err.msg);
}

/* Is NAME in the comma-separated LIST? */
static int
listed(const char *list, const char *name)
{
	size_t l = strlen(name);
	const char *p = list;

	while ((p = strstr(p, name)) != NULL) {
		if ((p == list || p[-1] == ',') && (p[l] == ',' || p[l] == 0))
			return 1;
		p += l;
	}
	return 0;
}

/* The N pcs rearranged as 32-frame stacks: 4 frames from PCS, then 2
 * more repeated 14 times (a recursion). */
static uint64_t *
make_stacks(const uint64_t *pcs, size_t n)
{
	uint64_t *st = malloc(n * sizeof *st);
	size_t i;

	if (st == NULL)
		die("out of memory");
	for (i = 0; i < n; i++) {
		size_t base = i - i % STACK_DEPTH, d = i % STACK_DEPTH;
		st[i] = pcs[d < 4 ? i : base + 4 + (d - 4) % 2];
	}
	return st;
}

/* Size and shape of trailer section TAG, through the public reader. */
static uint64_t
section_size(const pcln_table *t, uint32_t want, uint64_t *off)
{
	size_t k, n = pcln_nsections(t);
	uint32_t tag, o, sz;

	for (k = 0; k < n; k++)
		if (pcln_get_section(t, k, &tag, &o, &sz) == 0 && tag == want) {
			*off = o;
			return sz;
		}
	return 0;
}

/* Rows of every table of every function, per second (median), in
 * batches of 64 (pcln_rows_fill). */
static void
enumerate(const pcln_table *t)
{
	double d[NPASS];
	uint64_t rows = 0;
	int p;

	for (p = 0; p < NPASS; p++) {
		size_t i, n = pcln_nfunc(t);
		double t0 = now();
		rows = 0;
		for (i = 0; i < n; i++) {
			pcln_func f;
			uint32_t k;
			pcln_get_func(t, i, &f);
			for (k = 0; k < 3 + f.npcdata; k++) {
				pcln_rowiter it;
				pcln_row r[64];
				long got;
				if (pcln_rows_begin(&it, t, i, (int)k) != 0)
					continue;
				while ((got = pcln_rows_fill(&it, r, 64)) > 0) {
					rows += (uint64_t)got;
					sink += (uint32_t)r[got - 1].value;
				}
			}
		}
		d[p] = now() - t0;
	}
	qsort(d, NPASS, sizeof d[0], cmpd);
	printf("enum_rows %" PRIu64 "\n", rows);
	printf("enum_rows_per_s %.0f\n", (double)rows / (d[NPASS / 2] / 1e9));
}

/* open + mmap + pclnrt_init + findfunc + funcline of one pc, from
 * nothing (page cache warm): median of 5, in ns. */
static void
first_lookup(const char *path, uint64_t pc)
{
	double d[NPASS];
	int p;

	for (p = 0; p < NPASS; p++) {
		double t0 = now();
		int fd = open(path, O_RDONLY);
		struct stat st;
		void *m;
		pclnrt_table t;
		pclnrt_func f;
		const char *file;
		int32_t line;

		if (fd < 0 || fstat(fd, &st) != 0)
			die("cannot open the blob");
		m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd,
		    0);
		if (m == MAP_FAILED)
			die("mmap failed");
		if (pclnrt_init(&t, m, (size_t)st.st_size) != PCLNRT_EINIT_OK ||
		    pclnrt_findfunc(&t, pc, &f) != PCLNRT_OK)
			die("first lookup failed");
		pclnrt_funcline(&f, pc, &file, &line);
		d[p] = now() - t0;
		sink += (uint32_t)line;
		munmap(m, (size_t)st.st_size);
		close(fd);
	}
	qsort(d, NPASS, sizeof d[0], cmpd);
	printf("first_lookup_ns %.0f\n", d[NPASS / 2]);
}

int
main(int argc, char **argv)
{
	struct ctx c;
	uint8_t *b, *nb;
	size_t len, n;
	uint64_t *pcs, *seq, *stacks;
	int k;

	if (argc < 3)
		die("usage: pcln-bench lookups|loop|pcs BLOB ...");
	b = slurp(argv[2], &len);
	if ((nb = noindex(b, len)) == NULL) {
		if ((nb = malloc(len)) == NULL)
			die("out of memory");
		memcpy(nb, b, len);
	}
	open_ctx(&c, b, len, nb);
	if (c.rt.nfunc == 0)
		die("no functions");
	if (strcmp(argv[1], "pcs") == 0) {
		size_t i;
		if (argc < 4)
			die("usage: pcln-bench pcs BLOB N [SEED]");
		n = strtoul(argv[3], NULL, 10);
		rs = argc > 4 ? strtoull(argv[4], NULL, 10) | 1 : 1;
		pcs = random_pcs(&c.rt, n);
		for (i = 0; i < n; i++)
			printf("0x%" PRIx64 "\n", pcs[i]);
		return fflush(stdout) != 0;
	}
	if (strcmp(argv[1], "loop") == 0 ||
	    strcmp(argv[1], "loop-stacks") == 0) {
		if (argc != 5)
			die("usage: pcln-bench loop|loop-stacks BLOB KIND N");
		for (k = 0; k < K_N && strcmp(argv[3], kname[k]) != 0; k++)
			;
		if (k == K_N)
			die("unknown KIND");
		/* The same 65536 pcs whatever N, so that the difference of
		 * two runs is lookups only. */
		n = strtoul(argv[4], NULL, 10);
		pcs = random_pcs(&c.rt, 65536);
		if (strcmp(argv[1], "loop-stacks") == 0)
			pcs = make_stacks(pcs, 65536);
		while (n > 0) {
			size_t m = n < 65536 ? n : 65536;
			run(&c, (enum kind)k, pcs, m);
			n -= m;
		}
		return 0;
	}
	if (strcmp(argv[1], "lookups") != 0)
		die("unknown command");
	n = argc > 3 ? strtoul(argv[3], NULL, 10) : 1000000;
	rs = argc > 4 ? strtoull(argv[4], NULL, 10) | 1 : 1;
	pcs = random_pcs(&c.rt, n);
	if ((seq = malloc(n * sizeof *seq)) == NULL)
		die("out of memory");
	memcpy(seq, pcs, n * sizeof *seq);
	qsort(seq, n, sizeof *seq, cmp64);
	stacks = make_stacks(pcs, n);
	printf("nfunc %" PRIu64 "\n", c.rt.nfunc);
	printf("blob_bytes %zu\n", len);
	{
		uint64_t off = 0, sz = section_size(c.lt, PCLN_SECT_FUNCINDEX,
		    &off);
		printf("has_index %d\n", sz > 0);
		printf("index_bytes %" PRIu64 "\n", sz);
		if (sz >= PCLN_FIDX_HDR)
			printf("index_maxscan %" PRIu32 "\nindex_shift %"
			    PRIu32 "\n", pclnrt_load32(b + off +
			    PCLN_FIDX_MAXSCAN, c.rt.big), pclnrt_load32(b +
			    off + PCLN_FIDX_SHIFT, c.rt.big));
		sz = section_size(c.lt, PCLN_SECT_PCCKPT, &off);
		printf("ckpt_bytes %" PRIu64 "\n", sz);
		if (sz >= PCLN_CKPT_HDR)
			printf("ckpt_stride %" PRIu32 "\n", pclnrt_load32(b +
			    off + PCLN_CKPT_STRIDE, c.rt.big));
	}
	for (k = 0; k < K_N; k++) {
		if (argc > 5 && !listed(argv[5], kname[k]))
			continue;
		run(&c, (enum kind)k, pcs, n < 10000 ? n : 10000);  /* warm */
		printf("%s_random_ns %.1f\n", kname[k],
		    median_ns(&c, (enum kind)k, pcs, n));
		printf("%s_seq_ns %.1f\n", kname[k],
		    median_ns(&c, (enum kind)k, seq, n));
		if (k == K_FRAME || k == K_FRAME_CACHED)
			printf("%s_stacks_ns %.1f\n", kname[k],
			    median_ns(&c, (enum kind)k, stacks, n));
		if (k == K_FRAME_CACHED)
			printf("frame-cached_stacks_hit_pct %.1f\n", 100.0 *
			    (double)c.hits / (double)(c.hits + c.misses + !c.hits));
	}
	if (argc > 5) {
		if (listed(argv[5], "first"))
			first_lookup(argv[2], pcs[0]);
		return 0;
	}
	enumerate(c.lt);
	first_lookup(argv[2], pcs[0]);
	pcln_close(c.lt);
	pcln_close(c.lt_noidx);
	free(pcs);
	free(seq);
	free(stacks);
	free(b);
	free(nb);
	return 0;
}
