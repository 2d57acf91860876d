/* build.h -- the builder's model and its write state, shared by
 * builder.c (the model: adding functions, files, points), build_write.c
 * (pcln_builder_write and the Go 1.2 part) and build_trailer.c (the
 * trailer's sections).  Not installed; nothing here is exported.
 *
 * pcln_builder_write runs in steps over one struct wstate:
 *
 *   sort_funcs     sort by entry, reject overlaps
 *   plan_go12      place header, functab, Func records, names
 *   encode_tables  encode and deduplicate every pc-value table (and
 *                  record the checkpoints of each distinct one)
 *   plan_filetab   place the file table: the end of the Go 1.2 part
 *   pclni_build_plan_trailer   place each trailer section, the
 *                  directory and the footer
 *   then put each part where the plan said, checking at every part
 *   that the bytes really ended where the plan put the next one ("bad
 *   math in ..."), and last let pcln_verify judge the result.
 */
#ifndef PCLN_BUILD_H
#define PCLN_BUILD_H

#include "internal.h"

/* A pc-value table as it is built, already in its final encoding
 * (zig-zag value delta, pc delta / quantum per row; equal consecutive
 * values merged; a row of -1 first if the first point is above 0): the
 * rows before the open one are complete in P; the open row has a start
 * and a value and runs to the next point that changes the value, or to
 * the function's end, where the write closes it and adds the
 * terminating 0 (build_write.c).  N == 0: the table is absent. */
struct ptab {
	uint8_t *p;		/* the complete rows */
	uint32_t len, cap;
	uint32_t n;		/* points added */
	uint32_t rows;		/* complete rows */
	uint32_t last;		/* the last point's offset */
	uint32_t start;		/* the open row's start offset */
	int32_t val;		/* the open row's value */
	int32_t prev;		/* the value before it (-1 first) */
};

/* An inlined call (INLTREE record). */
struct binl {
	int32_t parent;
	uint32_t name;		/* item number in the names pool */
	int32_t file, line;
};

struct bfunc {
	uint64_t entry;
	uint32_t size;
	uint32_t name;		/* item number in the names pool */
	int32_t args, frame;
	uint32_t npcdata, nfuncdata;
	struct ptab tab[3];	/* PCLN_TAB_PCSP, _PCFILE, _PCLN */
	struct ptab *pcdata;	/* [npcdata] */
	uint64_t *funcdata;	/* [nfuncdata] */
	struct binl *inl;	/* inline tree [ninl] */
	uint32_t ninl, inlcap;
	uint32_t symname;	/* names pool item + 1 of its symbol
				 * table's name (SYMNAME), 0: none */
};

struct pcln_builder {
	pcln_target t;
	struct bfunc *f;
	size_t nf, fcap;
	struct pclni_pool names;	/* function names, with their NUL */
	struct pclni_pool files;	/* file paths, with their NUL */
	size_t names_total;		/* name bytes before deduplication */
	pcln_build_stats stats;		/* of the last successful write */
	pcln_func_layout *layout;	/* [nlayout], by handle */
	size_t nlayout;
	unsigned ckstride;		/* checkpoint stride, 0: none */
	uint8_t buildid[PCLN_BUILDID_MAX];	/* the BUILDID section */
	size_t nbuildid;		/* 0: none */
};

/* A function in entry order: its entry and handle (the tiebreak that
 * makes the order total). */
struct skey {
	uint64_t entry;
	uint32_t h;
};

/* The checkpoints of one distinct table (PCCKPT): states W->cks[first
 * .. first + count - 1]. */
struct ckinfo {
	size_t first;
	uint32_t count;		/* 0: none (at most STRIDE rows) */
	uint16_t form;		/* PCLN_CKPT_NARROW or _WIDE */
};

struct ckstate {
	uint32_t pcoff, byteoff;
	int32_t value;
};

/* A trailer section of the plan: its tag, where it goes, its size.
 * Sections are planned and put in tag order (the directory's order). */
struct wsect {
	uint32_t tag;
	uint64_t off, size;
};
#define WSECT_MAX	8

/* Everything one write needs, freed together by wstate_free. */
struct wstate {
	/* The inputs. */
	const pcln_builder *b;
	unsigned flags;
	unsigned ps, q;
	int big;
	int trailer;		/* 0: PCLN_WRITE_GO12 */
	size_t n, nfile;
	pcln_err *err;

	/* The functions in entry order and their tables. */
	struct skey *key;	/* [n] sorted */
	uint32_t *funcoff;	/* [n] by sorted position */
	size_t *tabbase;	/* [n + 1] index of a function's first table */
	size_t ntab;		/* tables of all functions, present or not */
	uint32_t *tabid;	/* [ntab] sorted order: pool item + 1, 0: none */
	struct pclni_pool tabs;	/* the distinct encoded tables, in BUF */

	/* Checkpoints (PCCKPT). */
	struct ckinfo *ck;	/* per table pool item: its checkpoints */
	size_t ckcap;
	struct ckstate *cks;	/* the checkpoints of every distinct table */
	size_t ncks, ckscap;
	uint32_t *ckblk;	/* [n + 1] PCCKPT block offsets */
	uint64_t ck_ndesc;	/* descriptors in all blocks */

	/* FUNCINDEX. */
	unsigned fi_shift;
	uint64_t fi_nb;

	/* The plan: where each part starts. */
	uint64_t hdr_end;	/* end of header, functab, sentinel and
				 * file table offset */
	uint64_t funcs_end;	/* end of the Func records */
	uint64_t names_start, tables_start, filetab_off, go12size;
	uint64_t ninl;		/* INLTREE records of all functions */
	uint64_t nsymname;	/* SYMNAME records */
	struct pclnrt_inlform inl;	/* their layout: INLPACK's if they
					 * fit (plan_inl), else INLTREE's */
	struct wsect sect[WSECT_MAX];
	unsigned nsect;
	uint64_t dir_off, foot_off, total;

	pcln_build_stats st;
	pcln_func_layout *layout;
	uint8_t *buf;		/* the blob */
	size_t bufsize;		/* bytes allocated at BUF */
};

/* F's name. */
static inline const char *
pclni_build_fname(const pcln_builder *b, const struct bfunc *f)
{
	return (const char *)b->names.data + b->names.off[f->name];
}

/* The function at sorted position K. */
static inline const struct bfunc *
wfunc(const struct wstate *w, size_t k)
{
	return &w->b->f[w->key[k].h];
}

/* The end pc of the text: the last function's end. */
static inline uint64_t
wmaxpc(const struct wstate *w)
{
	const struct bfunc *l = wfunc(w, w->n - 1);
	return l->entry + l->size;
}

/* Fill W's error: "bad math in WHAT: off=OFF but end=END"; -1. */
int pclni_build_badmath(struct wstate *w, const char *what, uint64_t off,
    uint64_t end);
/* -1 with W's error: out of memory; the offsets would not fit int32. */
int pclni_build_nomem(struct wstate *w);
int pclni_build_range(struct wstate *w);

/* Record the checkpoints of the encoded table T[0..LEN) of ROWS rows
 * in W and describe them in *CI (build_trailer.c).  0, -1 out of
 * memory, -3 if the count came out wrong. */
int pclni_build_ckpt_table(struct wstate *w, const uint8_t *t, size_t len,
    size_t rows, struct ckinfo *ci);

/* Plan the trailer after the Go 1.2 part (W->go12size): its sections,
 * directory and footer; sets W->total and the trailer's stats. */
int pclni_build_plan_trailer(struct wstate *w);
/* Put the planned trailer into W->buf from *C (the Go 1.2 part's end),
 * advancing *C to the blob's end. */
int pclni_build_put_trailer(struct wstate *w, uint64_t *c);

#endif /* PCLN_BUILD_H */
