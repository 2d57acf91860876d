/* dwarf_inline.c -- subprograms indexed by pc, the names DWARF gives
 * functions, and DW_TAG_inlined_subroutine into the inline tree
 * (pcln_builder_add_inline and pcdata PCLN_PCDATA_INLTREE).
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "dwarf_internal.h"

/* The name DWARF gives DIE: its linkage name, else its name, following
 * abstract origins and specifications; NULL if none. */
const char *
pclni_dw_die_name(const struct imp *im, Dwarf_Die *die)
{
	Dwarf_Attribute a;

	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &a) != NULL ||
	    dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a) != NULL ||
	    dwarf_attr_integrate(die, DW_AT_name, &a) != NULL)
		return pclni_dw_str(im, dwarf_formstring(&a));
	return NULL;
}

/* Index every subprogram with code (under the compile units, through
 * namespaces and classes; not nested functions) by its pc ranges. */
int
pclni_dw_index_subprograms(struct imp *im, Dwarf_Die *parent,
    int depth)
{
	Dwarf_Die child;

	if (depth > 16 || dwarf_child(parent, &child) != 0)
		return 0;
	do {
		int tag = dwarf_tag(&child);
		Dwarf_Addr base, start, end;
		ptrdiff_t off = 0;

		if (tag == DW_TAG_namespace || tag == DW_TAG_module ||
		    tag == DW_TAG_class_type || tag == DW_TAG_structure_type ||
		    tag == DW_TAG_union_type) {
			if (pclni_dw_index_subprograms(im, &child,
			    depth + 1) < 0)
				return -1;
			continue;
		}
		if (tag != DW_TAG_subprogram)
			continue;
		while ((off = dwarf_ranges(&child, off, &base, &start,
		    &end)) > 0) {
			struct subr *r;
			if (start >= end)
				continue;
			if (pclni_grow(&im->subs, &im->capsubs, im->nsubs + 1,
			    sizeof *im->subs) < 0)
				return pclni_dw_nomem(im);
			r = &im->subs[im->nsubs++];
			r->start = start;
			r->end = end;
			r->die = child;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

static int
cmpsubr(const void *a, const void *b)
{
	const struct subr *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	/* the larger range first, then DIE order: deterministic */
	if (x->end != y->end)
		return x->end > y->end ? -1 : 1;
	return dwarf_dieoffset((Dwarf_Die *)(uintptr_t)&x->die) <
	    dwarf_dieoffset((Dwarf_Die *)(uintptr_t)&y->die) ? -1 : 1;
}

void
pclni_dw_sort_subprograms(struct imp *im)
{
	if (im->nsubs > 0)
		qsort(im->subs, im->nsubs, sizeof *im->subs, cmpsubr);
}

/* The subprogram DIE whose code holds PC, in *SUB; 0, or -1 if none. */
int
pclni_dw_subprogram_at(struct imp *im, uint64_t pc, Dwarf_Die *sub)
{
	size_t lo = 0, hi = im->nsubs, k;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (im->subs[mid].start <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* subs[0 .. lo) start at or below PC; the nearest that still
	 * holds it (ranges of distinct subprograms do not overlap). */
	for (k = lo; k > 0 && lo - k < 64; k--)
		if (im->subs[k - 1].end > pc) {
			*sub = im->subs[k - 1].die;
			return 0;
		}
	return -1;
}

/* Inline tree of one function: records added to the builder, and the
 * pc -> innermost record map painted over the function's bytes. */
struct inlwalk {
	struct imp *im;
	long f;
	uint64_t lo, hi;	/* the function's code */
	int32_t *paint;		/* [hi - lo] */
	Dwarf_Files *files;
	size_t nfiles;
	const char *compdir;
	int depth;
};

/* Does DIE cover any byte of [LO, HI)?  Paint it with IDX if IDX >= 0. */
static int
cover(struct inlwalk *w, Dwarf_Die *die, int32_t idx)
{
	Dwarf_Addr base, start, end;
	ptrdiff_t off = 0;
	int any = 0;

	while ((off = dwarf_ranges(die, off, &base, &start, &end)) > 0) {
		uint64_t s = start > w->lo ? start : w->lo;
		uint64_t e = end < w->hi ? end : w->hi;
		if (s >= e)
			continue;
		any = 1;
		if (idx >= 0)
			for (; s < e; s++)
				w->paint[s - w->lo] = idx;
	}
	return any;
}

static int
walk_inlines(struct inlwalk *w, Dwarf_Die *parent_die, long parent)
{
	Dwarf_Die child;

	if (w->depth > 64 || dwarf_child(parent_die, &child) != 0)
		return 0;
	do {
		int tag = dwarf_tag(&child);
		long idx, fno = -1;
		Dwarf_Attribute a;
		Dwarf_Word cf = 0, cl = 0;
		const char *name, *file = NULL;

		if (tag == DW_TAG_lexical_block) {
			w->depth++;
			if (walk_inlines(w, &child, parent) < 0)
				return -1;
			w->depth--;
			continue;
		}
		if (tag != DW_TAG_inlined_subroutine || !cover(w, &child, -1))
			continue;
		if ((name = pclni_dw_die_name(w->im, &child)) == NULL)
			name = "??";
		if (dwarf_attr(&child, DW_AT_call_file, &a) != NULL &&
		    dwarf_formudata(&a, &cf) == 0 && w->files != NULL &&
		    cf < w->nfiles)
			file = dwarf_filesrc(w->files, cf, NULL, NULL);
		if (file != NULL && (file = pclni_dw_path_of(w->im, w->compdir,
		    file)) == NULL)
			return pclni_dw_nomem(w->im);
		if (dwarf_attr(&child, DW_AT_call_line, &a) != NULL)
			(void)dwarf_formudata(&a, &cl);
		if (file == NULL)
			file = "??";
		if ((fno = pcln_builder_add_file(w->im->b, file,
		    w->im->err)) < 0)
			return -1;
		if ((idx = pcln_builder_add_inline(w->im->b, w->f, parent,
		    name, fno, cl > INT32_MAX ? 0 : (int32_t)cl,
		    w->im->err)) < 0)
			return -1;
		w->im->st->ninline++;
		(void)cover(w, &child, (int32_t)idx);
		w->depth++;
		if (walk_inlines(w, &child, idx) < 0)
			return -1;
		w->depth--;
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

int
pclni_dw_add_inlines(struct imp *im, long f, const struct sym *y,
    Dwarf_Die *sub)
{
	struct inlwalk w;
	Dwarf_Die cudie;
	uint64_t i;
	int32_t prev = -1;
	int rc = 0;

	memset(&w, 0, sizeof w);
	w.im = im;
	w.f = f;
	w.lo = y->addr;
	w.hi = y->addr + y->size;
	if (dwarf_diecu(sub, &cudie, NULL, NULL) == NULL ||
	    dwarf_getsrcfiles(&cudie, &w.files, &w.nfiles) != 0)
		w.files = NULL;
	else
		w.compdir = pclni_dw_comp_dir(im, &cudie);
	if ((w.paint = malloc(y->size * sizeof *w.paint)) == NULL)
		return pclni_dw_nomem(im);
	for (i = 0; i < y->size; i++)
		w.paint[i] = -1;
	if (walk_inlines(&w, sub, -1) < 0) {
		free(w.paint);
		return -1;
	}
	for (i = 0; i < y->size && rc == 0; i++) {
		if (w.paint[i] == prev)
			continue;
		if (i % im->st->target.quantum != 0)
			continue;
		prev = w.paint[i];
		rc = pcln_builder_add_point(im->b, f,
		    PCLN_TABLE_PCDATA(PCLN_PCDATA_INLTREE), i, prev, im->err);
	}
	free(w.paint);
	return rc;
}

