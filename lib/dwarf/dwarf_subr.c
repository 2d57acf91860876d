/* dwarf_subr.c -- subprograms indexed by pc, the scopes that qualify a
 * name, and the naming rule (doc/IMPORT.md):
 *
 *  - a function (the outermost frame) is named by its subprogram's
 *    DW_AT_linkage_name (through abstract origins and specifications);
 *    without one, in a unit whose language does not mangle names (C:
 *    binutils' mangle_style is 0) by its DW_AT_name; otherwise by its
 *    symbol (a C++ function with internal linkage, for which gcc writes
 *    no linkage name: "_ZN12_GLOBAL__N_13fooEv", as binutils and
 *    llvm-addr2line print it);
 *  - an inlined call is named by its origin's DW_AT_linkage_name; without
 *    one, by DW_AT_name, qualified in a unit that mangles names from the
 *    enclosing namespace, class and function DIEs
 *    ("(anonymous namespace)::Cls::f", as llvm qualifies names), so an
 *    internal-linkage "operator()" or "f" is not ambiguous.
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "dwarf_internal.h"

#define MAX_DEPTH	64

/* Does the unit's language mangle names?  As binutils' mangle_style: 0
 * (no) for these, yes for every other (C++, D, Rust, none given). */
int
pclni_dw_lang_mangles(Dwarf_Die *cu)
{
	Dwarf_Attribute a;
	Dwarf_Word lang;

	if (dwarf_attr(cu, DW_AT_language, &a) == NULL ||
	    dwarf_formudata(&a, &lang) != 0)
		return 1;
	switch (lang) {
	case DW_LANG_C89: case DW_LANG_C: case DW_LANG_Cobol74:
	case DW_LANG_Cobol85: case DW_LANG_Fortran77: case DW_LANG_Pascal83:
	case DW_LANG_PLI: case DW_LANG_C99: case DW_LANG_UPC:
	case DW_LANG_C11: case DW_LANG_Mips_Assembler:
		return 0;
	default:
		return 1;
	}
}

static int
is_scope(int tag)
{
	return tag == DW_TAG_namespace || tag == DW_TAG_module ||
	    tag == DW_TAG_class_type || tag == DW_TAG_structure_type ||
	    tag == DW_TAG_union_type || tag == DW_TAG_subprogram;
}

static int
add_scope(struct imp *im, Dwarf_Die *die, int tag, Dwarf_Off parent)
{
	Dwarf_Attribute a;
	Dwarf_Die spec;
	struct scope *s;
	int bad = 0;

	if (pclni_grow(&im->scopes, &im->capscopes, im->nscopes + 1,
	    sizeof *im->scopes) < 0)
		return pclni_dw_nomem(im);
	s = &im->scopes[im->nscopes++];
	s->off = dwarf_dieoffset(die);
	s->parent = parent;
	s->tag = tag;
	s->spec = 0;
	s->name = NULL;
	if (dwarf_attr(die, DW_AT_name, &a) != NULL)
		s->name = pclni_dw_string(im, die, &a, &bad);
	if (tag == DW_TAG_subprogram &&
	    (dwarf_attr(die, DW_AT_specification, &a) != NULL ||
	    dwarf_attr(die, DW_AT_abstract_origin, &a) != NULL) &&
	    dwarf_formref_die(&a, &spec) != NULL)
		s->spec = dwarf_dieoffset(&spec);
	return bad;
}

static int
add_subprogram(struct imp *im, Dwarf_Die *die, uint32_t u)
{
	Dwarf_Addr base, start, end;
	ptrdiff_t off = 0;

	while ((off = dwarf_ranges(die, off, &base, &start, &end)) > 0) {
		struct subr *r;
		if (start >= end)
			continue;
		if (pclni_grow(&im->subs, &im->capsubs, im->nsubs + 1,
		    sizeof *im->subs) < 0)
			return pclni_dw_nomem(im);
		r = &im->subs[im->nsubs++];
		r->start = start;
		r->end = end;
		r->die = *die;
		r->unit = u;
	}
	return 0;
}

/* Children of PARENT (in scope SCOPE): subprograms with code, wherever
 * they are (gcc puts the code of a local class's methods, a lambda's
 * operator() among them, under the enclosing function's DIE), and in
 * units that mangle names the scopes. */
static int
walk(struct imp *im, uint32_t u, Dwarf_Die *parent, Dwarf_Off scope,
    int depth)
{
	Dwarf_Die child;
	int r;

	if (depth > MAX_DEPTH)
		return 0;
	if ((r = dwarf_child(parent, &child)) != 0)
		return r < 0 ? pclni_dw_damage(im, ".debug_info",
		    dwarf_dieoffset(parent), "the children of this DIE "
		    "cannot be read (%s); their functions are named by their "
		    "symbols", dwarf_errmsg(-1)) : 0;
	do {
		int tag = dwarf_tag(&child);
		Dwarf_Off inner = scope;

		if (tag == DW_TAG_subprogram &&
		    add_subprogram(im, &child, u) < 0)
			return -1;
		if (is_scope(tag) && im->units[u].mangles) {
			if (add_scope(im, &child, tag, scope) < 0)
				return -1;
			inner = dwarf_dieoffset(&child);
		}
		if ((is_scope(tag) || tag == DW_TAG_lexical_block) &&
		    dwarf_haschildren(&child) &&
		    walk(im, u, &child, inner, depth + 1) < 0)
			return -1;
	} while ((r = dwarf_siblingof(&child, &child)) == 0);
	if (r < 0)
		return pclni_dw_damage(im, ".debug_info",
		    dwarf_dieoffset(&child), "the DIE after this one cannot be "
		    "read (%s: its bytes, or its abbreviation in .debug_abbrev, "
		    "are damaged); the rest of its parent is left out",
		    dwarf_errmsg(-1));
	return 0;
}

int
pclni_dw_unit_subprograms(struct imp *im, uint32_t u)
{
	return walk(im, u, &im->units[u].die, 0, 0);
}

static int
cmpsubr(const void *a, const void *b)
{
	const struct subr *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	/* the kept copy (lowest unit) first, then the larger range, then
	 * DIE order: deterministic */
	if (x->unit != y->unit)
		return x->unit < y->unit ? -1 : 1;
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

long
pclni_dw_subprogram_at(struct imp *im, uint64_t pc, Dwarf_Die *sub)
{
	size_t lo = 0, hi = im->nsubs, k, best = SIZE_MAX;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (im->subs[mid].start <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* subs[0 .. lo) start at or below PC: the nearest start that still
	 * holds it (ranges of one unit's distinct subprograms do not
	 * overlap), of the lowest unit among copies starting there. */
	for (k = lo; k > 0 && lo - k < 64; k--) {
		const struct subr *s = &im->subs[k - 1];
		if (best != SIZE_MAX && s->start != im->subs[best].start)
			break;
		if (s->end > pc)
			best = k - 1;
	}
	if (best == SIZE_MAX)
		return -1;
	*sub = im->subs[best].die;
	return (long)im->subs[best].unit;
}

/* The string of attribute NAME of DIE, through abstract origins and
 * specifications; NULL if none. */
static const char *
attr_string(struct imp *im, Dwarf_Die *die, int name, int *bad)
{
	Dwarf_Attribute a;

	if (dwarf_attr_integrate(die, name, &a) == NULL)
		return NULL;
	return pclni_dw_string(im, die, &a, bad);
}

static const char *
linkage_name(struct imp *im, Dwarf_Die *die, int *bad)
{
	const char *s = attr_string(im, die, DW_AT_linkage_name, bad);

	return s != NULL ? s : attr_string(im, die, DW_AT_MIPS_linkage_name,
	    bad);
}

const char *
pclni_dw_func_name(struct imp *im, const struct sym *y, Dwarf_Die *sub,
    uint32_t u, int *bad)
{
	const char *s;

	*bad = 0;
	if ((s = linkage_name(im, sub, bad)) != NULL)
		return s;
	if (!im->units[u].mangles &&
	    (s = attr_string(im, sub, DW_AT_name, bad)) != NULL)
		return s;
	return y->name;
}

static const struct scope *
find_scope(const struct imp *im, Dwarf_Off off)
{
	size_t lo = 0, hi = im->nscopes;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (im->scopes[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < im->nscopes && im->scopes[lo].off == off ?
	    &im->scopes[lo] : NULL;
}

/* A subprogram scope stands where its declaration does: follow
 * DW_AT_specification and DW_AT_abstract_origin to the DIE that holds
 * the name and sits in the class or namespace. */
static const struct scope *
declared(const struct imp *im, const struct scope *s)
{
	int n;

	for (n = 0; s != NULL && s->spec != 0 && n < 8; n++) {
		const struct scope *t = find_scope(im, s->spec);
		if (t == NULL)
			break;
		s = t;
	}
	return s;
}

static const char *
scope_name(const struct scope *s)
{
	if (s->name != NULL)
		return s->name;
	switch (s->tag) {
	case DW_TAG_namespace: return "(anonymous namespace)";
	case DW_TAG_class_type: return "(anonymous class)";
	case DW_TAG_structure_type: return "(anonymous struct)";
	case DW_TAG_union_type: return "(anonymous union)";
	default: return "(anonymous)";
	}
}

/* "outer::inner::NAME" for the scope chain from S up, in im->qbuf. */
static const char *
qualify(struct imp *im, const struct scope *s, const char *name)
{
	const struct scope *chain[MAX_DEPTH];
	size_t n = 0, len = strlen(name) + 1, k, at = 0;

	while (s != NULL && n < MAX_DEPTH) {
		chain[n] = s;
		len += strlen(scope_name(s)) + 2;
		n++;
		s = s->parent != 0 ? declared(im, find_scope(im, s->parent)) :
		    NULL;
	}
	if (len > im->qcap) {
		char *q = realloc(im->qbuf, len);
		if (q == NULL)
			return NULL;
		im->qbuf = q;
		im->qcap = len;
	}
	for (k = n; k > 0; k--) {
		const char *p = scope_name(chain[k - 1]);
		size_t l = strlen(p);
		memcpy(im->qbuf + at, p, l);
		memcpy(im->qbuf + at + l, "::", 2);
		at += l + 2;
	}
	memcpy(im->qbuf + at, name, strlen(name) + 1);
	return im->qbuf;
}

const char *
pclni_dw_inline_name(struct imp *im, Dwarf_Die *die, uint32_t u, int *bad)
{
	const struct scope *s;
	const char *name, *q;
	Dwarf_Attribute a;
	Dwarf_Die origin;

	*bad = 0;
	if ((name = linkage_name(im, die, bad)) != NULL)
		return name;
	if ((name = attr_string(im, die, DW_AT_name, bad)) == NULL ||
	    !im->units[u].mangles)
		return name;
	if (dwarf_attr(die, DW_AT_abstract_origin, &a) == NULL ||
	    dwarf_formref_die(&a, &origin) == NULL ||
	    (s = declared(im, find_scope(im, dwarf_dieoffset(&origin)))) ==
	    NULL || s->parent == 0)
		return name;
	s = declared(im, find_scope(im, s->parent));
	if ((q = qualify(im, s, name)) == NULL)
		*bad = pclni_dw_nomem(im);
	return q;
}
