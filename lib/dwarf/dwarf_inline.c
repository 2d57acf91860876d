/* dwarf_inline.c -- DW_TAG_inlined_subroutine into the inline tree
 * (pcln_builder_add_inline) and its pc index (pcdata PCLN_PCDATA_INLTREE).
 *
 * The index at a pc is the innermost record covering it: records are
 * added in DIE pre-order, so that is the covering record added last.  It
 * is found with one sweep over the records' range ends (a max-heap of
 * the records open at a pc), O(E log E) for E ranges, not by painting
 * every byte of the function once per record (which cost function size
 * times records: 26.8 s for a 4 MiB function with 16 k records).
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "dwarf_internal.h"

/* A range of record IDX, or its end (IDX < 0: record -IDX - 1 closes). */
struct ev {
	uint64_t pos;
	int32_t idx;
	int open;
};

struct inlwalk {
	struct imp *im;
	long f;
	uint32_t u;
	uint64_t lo, hi;	/* the function's code */
	int depth;
	struct ev *ev;
	size_t nev, capev;
	int32_t nrec;
};

/* The ranges of DIE within [lo, hi), as events of record IDX (if IDX
 * >= 0); the number of such ranges. */
static long
cover(struct inlwalk *w, Dwarf_Die *die, int32_t idx)
{
	Dwarf_Addr base, start, end;
	ptrdiff_t off = 0;
	long any = 0;

	while ((off = dwarf_ranges(die, off, &base, &start, &end)) > 0) {
		uint64_t s = start > w->lo ? start : w->lo;
		uint64_t e = end < w->hi ? end : w->hi;
		if (s >= e)
			continue;
		any++;
		if (idx < 0)
			continue;
		if (pclni_grow(&w->ev, &w->capev, w->nev + 2,
		    sizeof *w->ev) < 0)
			return pclni_dw_nomem(w->im);
		w->ev[w->nev].pos = s;
		w->ev[w->nev].idx = idx;
		w->ev[w->nev++].open = 1;
		w->ev[w->nev].pos = e;
		w->ev[w->nev].idx = idx;
		w->ev[w->nev++].open = 0;
	}
	return any;
}

/* The call site of inlined call DIE: file number in the builder, line. */
static long
call_site(struct inlwalk *w, Dwarf_Die *die, int32_t *line)
{
	struct unit *un = &w->im->units[w->u];
	Dwarf_Attribute a;
	Dwarf_Word cf = 0, cl = 0;
	const char *file = NULL;

	if (un->files == NULL &&
	    dwarf_getsrcfiles(un->has_split ? &un->split : &un->die,
	    &un->files, &un->nfiles) != 0)
		un->files = NULL, un->nfiles = 0;
	if (dwarf_attr(die, DW_AT_call_file, &a) != NULL &&
	    dwarf_formudata(&a, &cf) == 0 && un->files != NULL &&
	    cf < un->nfiles)
		file = dwarf_filesrc(un->files, cf, NULL, NULL);
	if (file != NULL && (file = pclni_dw_path_of(w->im, un->compdir,
	    file)) == NULL)
		return pclni_dw_nomem(w->im);
	if (dwarf_attr(die, DW_AT_call_line, &a) != NULL)
		(void)dwarf_formudata(&a, &cl);
	*line = cl > INT32_MAX ? 0 : (int32_t)cl;
	return pcln_builder_add_file(w->im->b, file != NULL ? file : "??",
	    w->im->err);
}

/* One inlined call: its record (child of PARENT) and ranges; *IDX. */
static int
add_call(struct inlwalk *w, Dwarf_Die *die, long parent, long *idx)
{
	const char *name;
	int32_t line = 0;
	long fno;
	int bad;

	name = pclni_dw_inline_name(w->im, die, w->u, &bad);
	if (bad < 0)
		return -1;
	if ((fno = call_site(w, die, &line)) < 0)
		return -1;
	if ((*idx = pcln_builder_add_inline(w->im->b, w->f, parent,
	    name != NULL ? name : "??", fno, line, w->im->err)) < 0)
		return -1;
	w->im->st->ninline++;
	w->nrec = (int32_t)*idx + 1;
	return cover(w, die, (int32_t)*idx) < 0 ? -1 : 0;
}

static int
walk_inlines(struct inlwalk *w, Dwarf_Die *parent_die, long parent)
{
	Dwarf_Die child;
	int r;

	if (w->depth > 64)
		return 0;
	if ((r = dwarf_child(parent_die, &child)) != 0)
		return r < 0 ? pclni_dw_damage(w->im, ".debug_info",
		    dwarf_dieoffset(parent_die), "the children of this DIE "
		    "cannot be read (%s); its inlined calls are left out",
		    dwarf_errmsg(-1)) : 0;
	do {
		int tag = dwarf_tag(&child);
		long idx;
		long c;

		if (tag == DW_TAG_lexical_block) {
			w->depth++;
			if (walk_inlines(w, &child, parent) < 0)
				return -1;
			w->depth--;
			continue;
		}
		if (tag != DW_TAG_inlined_subroutine)
			continue;
		if ((c = cover(w, &child, -1)) <= 0) {
			if (c < 0)
				return -1;
			continue;
		}
		if (add_call(w, &child, parent, &idx) < 0)
			return -1;
		w->depth++;
		if (walk_inlines(w, &child, idx) < 0)
			return -1;
		w->depth--;
	} while ((r = dwarf_siblingof(&child, &child)) == 0);
	if (r < 0)
		return pclni_dw_damage(w->im, ".debug_info",
		    dwarf_dieoffset(&child), "the DIE after this one cannot be "
		    "read (%s); the rest of its inlined calls are left out",
		    dwarf_errmsg(-1));
	return 0;
}

static int
cmpev(const void *a, const void *b)
{
	const struct ev *x = a, *y = b;

	if (x->pos != y->pos)
		return x->pos < y->pos ? -1 : 1;
	if (x->idx != y->idx)
		return x->idx < y->idx ? -1 : 1;
	return x->open - y->open;
}

/* Max-heap of open record numbers; closed ones leave lazily. */
struct heap {
	int32_t *v;
	size_t n;
	int *open;		/* per record: ranges open now */
};

static void
heap_push(struct heap *h, int32_t x)
{
	size_t i = h->n++;

	while (i > 0 && h->v[(i - 1) / 2] < x) {
		h->v[i] = h->v[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h->v[i] = x;
}

static void
heap_pop(struct heap *h)
{
	int32_t x = h->v[--h->n];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= h->n)
			break;
		if (c + 1 < h->n && h->v[c + 1] > h->v[c])
			c++;
		if (h->v[c] <= x)
			break;
		h->v[i] = h->v[c];
		i = c;
	}
	if (h->n > 0)
		h->v[i] = x;
}

static int32_t
heap_top(struct heap *h)
{
	while (h->n > 0 && h->open[h->v[0]] == 0)
		heap_pop(h);
	return h->n > 0 ? h->v[0] : -1;
}

/* The pc -> innermost record points, from the sorted events. */
static int
emit_index(struct inlwalk *w)
{
	struct imp *im = w->im;
	unsigned q = im->st->target.quantum;
	struct heap h;
	int32_t prev = -1;
	size_t i = 0;
	int rc = 0;

	if (w->nev == 0)
		return 0;
	qsort(w->ev, w->nev, sizeof *w->ev, cmpev);
	h.n = 0;
	h.v = malloc(w->nev * sizeof *h.v);
	h.open = calloc((size_t)w->nrec, sizeof *h.open);
	if (h.v == NULL || h.open == NULL) {
		free(h.v);
		free(h.open);
		return pclni_dw_nomem(im);
	}
	while (i < w->nev && rc == 0) {
		uint64_t pos = w->ev[i].pos, next, at;
		int32_t v;
		for (; i < w->nev && w->ev[i].pos == pos; i++) {
			if (w->ev[i].open) {
				if (h.open[w->ev[i].idx]++ == 0)
					heap_push(&h, w->ev[i].idx);
			} else {
				h.open[w->ev[i].idx]--;
			}
		}
		/* [pos, next) has value v; it starts at the first pc on
		 * the quantum in it. */
		next = i < w->nev ? w->ev[i].pos : w->hi;
		v = heap_top(&h);
		at = pos - w->lo;
		at += (q - at % q) % q;
		if (v == prev || at >= next - w->lo)
			continue;
		prev = v;
		rc = pcln_builder_add_point(im->b, w->f,
		    PCLN_TAB_PCDATA(PCLN_PCDATA_INLTREE), at, v, im->err);
	}
	free(h.v);
	free(h.open);
	return rc;
}

int
pclni_dw_add_inlines(struct imp *im, long f, const struct sym *y,
    Dwarf_Die *sub, uint32_t u)
{
	struct inlwalk w;
	int rc;

	memset(&w, 0, sizeof w);
	w.im = im;
	w.f = f;
	w.u = u;
	w.lo = y->addr;
	w.hi = y->addr + y->size;
	rc = walk_inlines(&w, sub, -1);
	if (rc == 0)
		rc = emit_index(&w);
	free(w.ev);
	return rc;
}
