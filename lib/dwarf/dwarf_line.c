/* dwarf_line.c -- .debug_line into pcfile and pcln points (pcln_dwarf.h
 * says what becomes what), and file paths as addr2line prints them.
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "dwarf_internal.h"

static int
cmprow(const void *a, const void *b)
{
	const struct lrow *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Is PC inside one of the current unit's ranges (few: linear)? */
static int
in_unit(const struct imp *im, uint64_t pc)
{
	size_t k;

	for (k = 0; k < im->ncur; k++)
		if (pc >= im->cur[k].start && pc < im->cur[k].end)
			return 1;
	return 0;
}

/* Turn every compile unit's line table into intervals; index the
 * subprograms. */
int
pclni_dw_read_lines(struct imp *im)
{
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie;
	Dwarf_Half version;
	uint8_t utype;

	if (im->dw == NULL)
		return 0;
	while (dwarf_get_units(im->dw, cu, &cu, &version, &utype, &cudie,
	    NULL) == 0) {
		Dwarf_Lines *lines;
		size_t n, i;
		const char *cdir = pclni_dw_comp_dir(im, &cudie);
		Dwarf_Addr base, rs, re;
		ptrdiff_t roff = 0;

		/* The unit's code ranges: rows outside them (code the
		 * compiler made, like ASan's module constructors, that the
		 * unit does not claim) are not used, as addr2line and
		 * llvm-addr2line do not use them.  A unit without ranges
		 * claims all of its rows. */
		im->ncur = 0;
		while ((roff = dwarf_ranges(&cudie, roff, &base, &rs,
		    &re)) > 0) {
			if (rs >= re)
				continue;
			if (pclni_grow(&im->cur, &im->capcur, im->ncur + 1,
			    sizeof *im->cur) < 0)
				return pclni_dw_nomem(im);
			im->cur[im->ncur].start = rs;
			im->cur[im->ncur++].end = re;
		}

		if ((utype == DW_UT_compile || utype == DW_UT_partial) &&
		    pclni_dw_index_subprograms(im, &cudie, 0) < 0)
			return -1;
		if (dwarf_getsrclines(&cudie, &lines, &n) != 0 || n == 0)
			continue;
		im->st->ncu++;
		im->st->nlinerows += n;
		for (i = 0; i + 1 < n; i++) {
			Dwarf_Line *l = dwarf_onesrcline(lines, i);
			Dwarf_Line *nx = dwarf_onesrcline(lines, i + 1);
			Dwarf_Line *pv = i > 0 ?
			    dwarf_onesrcline(lines, i - 1) : NULL;
			Dwarf_Addr a, na, pa;
			bool endseq, pend;
			int ln;
			const char *file;
			struct lrow *r;

			if (l == NULL || nx == NULL ||
			    dwarf_lineendsequence(l, &endseq) != 0 || endseq ||
			    dwarf_lineaddr(l, &a) != 0 ||
			    dwarf_lineaddr(nx, &na) != 0 || na <= a ||
			    dwarf_lineno(l, &ln) != 0)
				continue;
			/* libdw sorts an end-of-sequence row before a normal
			 * row at the same address, so the last row of a
			 * sequence, if it has the end's address (an empty
			 * row), comes after the end and seems to run on to
			 * the next sequence.  A row that starts where a
			 * sequence ended, outside every function, is such a
			 * row (a sequence starting there would start a
			 * function). */
			if (pv != NULL &&
			    dwarf_lineendsequence(pv, &pend) == 0 && pend &&
			    dwarf_lineaddr(pv, &pa) == 0 && pa == a &&
			    !pclni_dw_in_function(im, a))
				continue;
			if (im->ncur > 0 && !in_unit(im, a))
				continue;
			file = pclni_dw_path_of(im, cdir,
			    dwarf_linesrc(l, NULL, NULL));
			if (file == NULL)
				return pclni_dw_nomem(im);
			if (pclni_grow(&im->rows, &im->caprows, im->nrows + 1,
			    sizeof *im->rows) < 0)
				return pclni_dw_nomem(im);
			r = &im->rows[im->nrows];
			r->start = a;
			r->end = na;
			r->file = file;
			r->line = ln < 0 ? 0 : ln;
			r->order = im->nrows++;
		}
	}
	if (im->nrows > 1)
		qsort(im->rows, im->nrows, sizeof *im->rows, cmprow);
	pclni_dw_sort_subprograms(im);
	return 0;
}

/* NAME as addr2line prints it: relative names (from a VPATH build) are
 * joined to COMPDIR, the unit's directory, with a '/'; no other
 * normalisation.  NULL only if out of memory. */
const char *
pclni_dw_path_of(struct imp *im, const char *compdir,
    const char *name)
{
	size_t h, mask, i, ln, lc;

	if ((name = pclni_dw_str(im, name)) == NULL)
		return "??";
	if (name[0] == '/' || compdir == NULL || compdir[0] == 0)
		return name;
	if (2 * (im->npaths + 1) > im->cappaths) {
		size_t ncap = im->cappaths ? 2 * im->cappaths : 256;
		struct pathent *np = calloc(ncap, sizeof *np);
		if (np == NULL)
			return NULL;
		for (i = 0; i < im->cappaths; i++) {
			if (im->paths[i].name == NULL)
				continue;
			h = ((uintptr_t)im->paths[i].name >> 3) & (ncap - 1);
			while (np[h].name != NULL)
				h = (h + 1) & (ncap - 1);
			np[h] = im->paths[i];
		}
		free(im->paths);
		im->paths = np;
		im->cappaths = ncap;
	}
	mask = im->cappaths - 1;
	for (h = ((uintptr_t)name >> 3) & mask; im->paths[h].name != NULL;
	    h = (h + 1) & mask)
		if (im->paths[h].name == name)
			return im->paths[h].path;
	ln = strlen(name);
	lc = strlen(compdir);
	if ((im->paths[h].path = malloc(lc + ln + 2)) == NULL)
		return NULL;
	memcpy(im->paths[h].path, compdir, lc);
	im->paths[h].path[lc] = '/';
	memcpy(im->paths[h].path + lc + 1, name, ln + 1);
	im->paths[h].name = name;
	im->npaths++;
	return im->paths[h].path;
}

const char *
pclni_dw_comp_dir(const struct imp *im, Dwarf_Die *cudie)
{
	Dwarf_Attribute a;

	return dwarf_attr(cudie, DW_AT_comp_dir, &a) != NULL ?
	    pclni_dw_str(im, dwarf_formstring(&a)) : NULL;
}

/* First line interval whose end is above PC. */
static size_t
first_row(const struct imp *im, uint64_t pc)
{
	size_t lo = 0, hi = im->nrows;

	/* Intervals are sorted by start and barely overlap; find the first
	 * with start > pc, then step back over those that still cover pc. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (im->rows[mid].start <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo > 0 && im->rows[lo - 1].end > pc)
		lo--;
	return lo;
}

int
pclni_dw_add_lines(struct imp *im, long f, const struct sym *y)
{
	uint64_t pc = y->addr, end = y->addr + y->size;
	size_t i = first_row(im, pc);
	long lastfile = -1;
	int any = 0;

	for (; i < im->nrows && im->rows[i].start < end; i++) {
		const struct lrow *r = &im->rows[i];
		uint64_t s = r->start > pc ? r->start : pc;
		long fno;

		if (r->end <= pc)
			continue;
		if (s > pc && any) {
			/* a hole: no line known */
			if (pcln_builder_add_point(im->b, f, PCLN_TABLE_PCLN,
			    pc - y->addr, 0, im->err) < 0)
				return -1;
		}
		if ((fno = pcln_builder_add_file(im->b, r->file,
		    im->err)) < 0)
			return -1;
		/* pcfile must start at 0; pcln says "no line" until the
		 * first row. */
		if (fno != lastfile && pcln_builder_add_point(im->b, f,
		    PCLN_TABLE_PCFILE, any ? s - y->addr : 0, (int32_t)fno,
		    im->err) < 0)
			return -1;
		if (!any && s > y->addr && pcln_builder_add_point(im->b, f,
		    PCLN_TABLE_PCLN, 0, 0, im->err) < 0)
			return -1;
		if (pcln_builder_add_point(im->b, f, PCLN_TABLE_PCLN,
		    s - y->addr, r->line, im->err) < 0)
			return -1;
		lastfile = fno;
		any = 1;
		pc = r->end;
		if (pc >= end)
			break;
	}
	if (any) {
		im->st->nlinefuncs++;
		if (pc < end && pcln_builder_add_point(im->b, f,
		    PCLN_TABLE_PCLN, pc - y->addr, 0, im->err) < 0)
			return -1;
	}
	return 0;
}

