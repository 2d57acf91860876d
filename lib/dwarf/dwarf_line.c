/* dwarf_line.c -- .debug_line into pcfile, pcln and discriminator
 * points (pcln_dwarf.h says what becomes what; doc/IMPORT.md why).
 *
 * Pass 2 turns each unit's rows (libdw sorts them by address, an
 * end-of-sequence row first among rows at one address) into intervals
 * tagged with the unit; per function, only the rows of the unit that
 * owns its code are used (the copy the linker kept).
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "dwarf_internal.h"

/* The rows of a sequence's end: rows at the address where their own
 * sequence ends, which describe no byte (libdw does not say which
 * sequence a row belongs to, dwarf_lineprog.c finds them). */
struct empties {
	struct emptyrow *v;
	size_t n;
	int done;
};

static int
cmprow(const void *a, const void *b)
{
	const struct lrow *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

void
pclni_dw_sort_lines(struct imp *im)
{
	if (im->nrows > 1)
		qsort(im->rows, im->nrows, sizeof *im->rows, cmprow);
}

/* Is row L (at address A) an empty row of a sequence ending at A?  Only
 * asked where an end of sequence and a row share A.  Outside every
 * function it is (a sequence starting there would start a function);
 * inside one, the unit's line program says (E: loaded on first use). */
static int
is_empty_row(struct imp *im, uint32_t u, Dwarf_Line *l, uint64_t a,
    struct empties *e)
{
	int line, col;
	size_t k;
	const char *src;

	if (pclni_dw_sym_at(im, a) < 0)
		return 1;
	if (!e->done) {
		e->done = 1;
		if (pclni_dw_sequence_ends(im, u, &e->v, &e->n) < 0)
			return -1;
	}
	if (dwarf_lineno(l, &line) != 0 || dwarf_linecol(l, &col) != 0)
		return 0;
	src = pclni_dw_str(im, dwarf_linesrc(l, NULL, NULL));
	for (k = 0; k < e->n; k++)
		if (e->v[k].addr == a && e->v[k].line == line &&
		    e->v[k].col == col && e->v[k].file != NULL &&
		    src != NULL && strcmp(e->v[k].file, src) == 0) {
			e->v[k].addr = 0;	/* one row each */
			e->v[k].line = -1;
			return 1;
		}
	return 0;
}

/* Append row L, holding for [A, NA), of unit U. */
static int
add_row(struct imp *im, uint32_t u, Dwarf_Line *l, uint64_t a,
    uint64_t na)
{
	const char *file;
	unsigned int d = 0;
	struct lrow *r;
	int ln;

	if (dwarf_lineno(l, &ln) != 0)
		return 0;
	file = pclni_dw_path_of(im, im->units[u].compdir,
	    dwarf_linesrc(l, NULL, NULL));
	if (file == NULL)
		return pclni_dw_nomem(im);
	(void)dwarf_linediscriminator(l, &d);
	if (pclni_grow(&im->rows, &im->caprows, im->nrows + 1,
	    sizeof *im->rows) < 0)
		return pclni_dw_nomem(im);
	r = &im->rows[im->nrows];
	r->start = a;
	r->end = na;
	r->file = file;
	r->line = ln < 0 ? 0 : ln;
	r->discr = d;
	r->unit = u;
	r->order = im->nrows++;
	return 0;
}

/* The line table of unit U: NULL if it has none; damage is a warning. */
static Dwarf_Lines *
unit_lines(struct imp *im, uint32_t u, size_t *n, int *rc)
{
	Dwarf_Die *cu = &im->units[u].die;
	Dwarf_Attribute a;
	Dwarf_Word off = 0;
	Dwarf_Lines *lines;

	*rc = 0;
	if (dwarf_attr(cu, DW_AT_stmt_list, &a) == NULL)
		return NULL;
	if (dwarf_getsrclines(cu, &lines, n) == 0)
		return *n > 0 ? lines : NULL;
	(void)dwarf_formudata(&a, &off);
	*rc = pclni_dw_damage(im, ".debug_line", off, "the line table of "
	    "the unit at .debug_info+0x%llx cannot be read (%s); its "
	    "functions get no lines", (unsigned long long)im->units[u].off,
	    dwarf_errmsg(-1));
	return NULL;
}

/* The row that holds at A among the LINES [G0, G1) at A (libdw keeps
 * input order among them): the last that is not an empty row of a
 * sequence ending at A (HAVE_END: one does).  The empty rows are
 * matched by content, earliest first: if an empty row and a row of the
 * next sequence look the same, dropping either leaves the same answer,
 * and the next sequence's last row stays last.  NULL if none. */
#define GROUP_MAX 64
static Dwarf_Line *
group_row(struct imp *im, uint32_t u, Dwarf_Lines *lines, size_t g0,
    size_t g1, uint64_t a, int have_end, struct empties *e, int *rc)
{
	unsigned char drop[GROUP_MAX];
	size_t k, n = g1 - g0;

	*rc = 0;
	if (!have_end || n > GROUP_MAX)
		return dwarf_onesrcline(lines, g1 - 1);
	for (k = 0; k < n; k++) {
		int empty = is_empty_row(im, u, dwarf_onesrcline(lines, g0 + k),
		    a, e);
		if (empty < 0) {
			*rc = -1;
			return NULL;
		}
		drop[k] = (unsigned char)empty;
	}
	for (k = n; k > 0; k--)
		if (!drop[k - 1])
			return dwarf_onesrcline(lines, g0 + k - 1);
	return NULL;
}

int
pclni_dw_unit_lines(struct imp *im, uint32_t u)
{
	Dwarf_Lines *lines;
	size_t n, i, g, ri = 0, nr;
	int rc;
	struct empties e = { NULL, 0, 0 };

	if ((lines = unit_lines(im, u, &n, &rc)) == NULL)
		return rc;
	/* The unit's code ranges: rows outside them (code the compiler
	 * made, like ASan's module constructors, that the unit does not
	 * claim) are not used, as addr2line and llvm-addr2line do not use
	 * them.  A unit without ranges claims all of its rows.  Rows come
	 * sorted, the ranges too: one merge, not a scan per row. */
	if (pclni_dw_die_ranges(im, &im->units[u].die) < 0)
		return -1;
	nr = im->ncur;
	im->st->ncu++;
	im->st->nlinerows += n;
	/* One group of rows at one address at a time: first the ends of
	 * sequences there, then the rows. */
	for (i = 0; i < n; i = g) {
		Dwarf_Addr a, b = 0;
		Dwarf_Line *l;
		bool endseq = false;
		int have_end = 0;
		size_t r0;

		if (dwarf_lineaddr(dwarf_onesrcline(lines, i), &a) != 0) {
			g = i + 1;
			continue;
		}
		for (g = i; g < n; g++) {
			Dwarf_Line *x = dwarf_onesrcline(lines, g);
			if (dwarf_lineaddr(x, &b) != 0 || b != a ||
			    dwarf_lineendsequence(x, &endseq) != 0 || !endseq)
				break;
			have_end = 1;
		}
		for (r0 = g; g < n; g++)
			if (dwarf_lineaddr(dwarf_onesrcline(lines, g), &b) != 0 ||
			    b != a)
				break;
		/* The group's rows hold up to the next address. */
		if (g == n || r0 == g)
			continue;
		l = group_row(im, u, lines, r0, g, a, have_end, &e, &rc);
		if (rc < 0)
			break;
		while (ri < nr && im->cur[ri].end <= a)
			ri++;
		if (l == NULL || (nr > 0 && (ri == nr || a < im->cur[ri].start)))
			continue;
		if ((rc = add_row(im, u, l, a, b)) < 0)
			break;
	}
	free(e.v);
	return rc;
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

long
pclni_dw_line_unit_at(const struct imp *im, uint64_t pc)
{
	size_t i = first_row(im, pc);
	long best = -1;

	for (; i < im->nrows && im->rows[i].start <= pc; i++)
		if (im->rows[i].end > pc &&
		    (best < 0 || im->rows[i].unit < (uint32_t)best))
			best = (long)im->rows[i].unit;
	return best;
}

/* Where Y's rows of unit OWNER say something, and whether one has a
 * discriminator. */
struct lineout {
	struct imp *im;
	long f;
	const struct sym *y;
	int discr;		/* write the discriminator table */
};

static int
point(struct lineout *o, int table, uint64_t pc, int32_t v)
{
	return pcln_builder_add_point(o->im->b, o->f, table, pc - o->y->addr,
	    v, o->im->err);
}

#define T_DISCR	PCLN_TAB_PCDATA(PCLN_PCDATA_DISCRIM)

/* Line 0 ("no line") and no discriminator from PC on. */
static int
hole(struct lineout *o, uint64_t pc)
{
	if (point(o, PCLN_TAB_PCLN, pc, 0) < 0)
		return -1;
	return o->discr ? point(o, T_DISCR, pc, 0) : 0;
}

int
pclni_dw_add_lines(struct imp *im, long f, const struct sym *y,
    long owner)
{
	uint64_t pc = y->addr, end = y->addr + y->size;
	size_t i0 = first_row(im, pc), i;
	long lastfile = -1;
	int any = 0, folded = 0;
	struct lineout o = { im, f, y, 0 };

	for (i = i0; i < im->nrows && im->rows[i].start < end; i++) {
		if (im->rows[i].end <= pc)
			continue;
		if (owner >= 0 && im->rows[i].unit != (uint32_t)owner)
			folded = 1;
		else if (im->rows[i].discr != 0)
			o.discr = 1;
	}
	if (folded)
		im->st->nfolded++;
	if (o.discr)
		im->st->ndiscr++;
	for (i = i0; i < im->nrows && im->rows[i].start < end; i++) {
		const struct lrow *r = &im->rows[i];
		uint64_t s = r->start > pc ? r->start : pc;
		long fno;

		if (r->end <= pc ||
		    (owner >= 0 && r->unit != (uint32_t)owner))
			continue;
		if (s > pc && any && hole(&o, pc) < 0)
			return -1;
		if ((fno = pcln_builder_add_file(im->b, r->file,
		    im->err)) < 0)
			return -1;
		/* pcfile must start at 0; pcln says "no line" until the
		 * first row. */
		if (fno != lastfile && point(&o, PCLN_TAB_PCFILE,
		    any ? s : y->addr, (int32_t)fno) < 0)
			return -1;
		if (!any && s > y->addr && hole(&o, y->addr) < 0)
			return -1;
		if (point(&o, PCLN_TAB_PCLN, s, r->line) < 0 ||
		    (o.discr && point(&o, T_DISCR, s, (int32_t)r->discr) < 0))
			return -1;
		lastfile = fno;
		any = 1;
		pc = r->end;
		if (pc >= end)
			break;
	}
	if (any) {
		im->st->nlinefuncs++;
		if (pc < end && hole(&o, pc) < 0)
			return -1;
	}
	return 0;
}
