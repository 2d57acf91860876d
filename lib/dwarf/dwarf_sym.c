/* dwarf_sym.c -- pass 1 of the ELF/DWARF importer: the function symbols
 * of .symtab (else .dynsym), aliases folded, sizes made whole
 * (pcln_dwarf.h says how).
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "dwarf_internal.h"

/* What a section's symbols may describe: code at [lo, hi), or nothing
 * (hi == 0). */
struct extent {
	uint64_t lo, hi;
	uint64_t claimed;	/* the end the section header claims */
	int known;
};

/* A label (STT_NOTYPE) ranks after every function symbol: it names
 * code only where no function symbol does. */
#define LABEL_RANK	8

static int
symrank(const GElf_Sym *s, const char *name)
{
	int r = GELF_ST_TYPE(s->st_info) == STT_NOTYPE ? LABEL_RANK : 0;

	switch (GELF_ST_BIND(s->st_info)) {
	case STB_GLOBAL: break;
	case STB_WEAK: r += 2; break;
	default: r += 4; break;
	}
	if (name[0] == '_')
		r++;
	return r;
}

static int
cmpsym(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;
	size_t lx, ly;
	int c;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	lx = strlen(x->name);
	ly = strlen(y->name);
	if (lx != ly)
		return lx < ly ? -1 : 1;
	c = strcmp(x->name, y->name);
	if (c != 0)
		return c;
	/* Same name at the same address (symtab and a copy): larger
	 * size first. */
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return 0;
}

/* The code section NDX's extent in *X, computed once.  Code must be in
 * the file: a NOBITS section (a separate debug-info file) describes no
 * code; a section that claims more bytes than the file holds is cut at
 * the file's end, with a warning (its functions beyond are left out and
 * counted, not dropped silently). */
static int
code_extent(struct imp *im, size_t ndx, struct extent *x, size_t fsize)
{
	Elf_Scn *scn;
	GElf_Shdr sh;
	GElf_Ehdr eh;
	size_t shstrndx;
	const char *name = NULL;
	uint64_t avail;

	if (x->known)
		return 0;
	x->known = 1;
	x->lo = x->hi = 0;
	if ((scn = elf_getscn(im->elf, ndx)) == NULL ||
	    gelf_getshdr(scn, &sh) == NULL ||
	    !(sh.sh_flags & SHF_EXECINSTR) || !(sh.sh_flags & SHF_ALLOC) ||
	    sh.sh_type != SHT_PROGBITS)
		return 0;
	avail = sh.sh_offset <= fsize ? fsize - sh.sh_offset : 0;
	x->lo = sh.sh_addr;
	x->hi = sh.sh_size <= avail ? sh.sh_addr + sh.sh_size :
	    sh.sh_addr + avail;
	x->claimed = sh.sh_addr + sh.sh_size;
	if (x->claimed < x->lo)		/* wraps: to the top of memory */
		x->claimed = UINT64_MAX;
	if (sh.sh_size <= avail && sh.sh_addr + sh.sh_size >= sh.sh_addr)
		return 0;
	if (elf_getshdrstrndx(im->elf, &shstrndx) == 0)
		name = elf_strptr(im->elf, shstrndx, sh.sh_name);
	if (gelf_getehdr(im->elf, &eh) == NULL)
		eh.e_shoff = 0, eh.e_shentsize = 0;
	return pclni_dw_damage(im, "the section header table",
	    eh.e_shoff + (uint64_t)ndx * eh.e_shentsize,
	    "section [%zu] %s claims 0x%llx bytes at file offset 0x%llx, "
	    "the file holds 0x%llx: only its functions within the file are "
	    "kept", ndx, name != NULL ? name : "?",
	    (unsigned long long)sh.sh_size, (unsigned long long)sh.sh_offset,
	    (unsigned long long)avail);
}

/* One symbol S (named NAME) of section extent X, if it is a function
 * with code. */
static int
add_sym(struct imp *im, const GElf_Sym *s, const char *name,
    const struct extent *x)
{
	struct sym *y;

	if (s->st_value < x->lo || s->st_value >= x->claimed)
		return 0;	/* not in its own section */
	if (s->st_value >= x->hi) {
		im->st->noutside++;	/* warned in code_extent */
		return 0;
	}
	if (s->st_value % im->st->target.quantum != 0)
		return 0;
	if (pclni_grow(&im->syms, &im->capsyms, im->nsyms + 1,
	    sizeof *im->syms) < 0)
		return pclni_dw_nomem(im);
	y = &im->syms[im->nsyms++];
	memset(y, 0, sizeof *y);
	y->seq = im->nsyms - 1;
	y->bind = GELF_ST_BIND(s->st_info);
	y->addr = s->st_value;
	y->size = s->st_size;
	y->secend = x->hi;
	y->name = name;
	y->rank = symrank(s, name);
	y->label = GELF_ST_TYPE(s->st_info) == STT_NOTYPE;
	return 0;
}

/* The file's executable sections, by address: where a symbol of
 * another file (a debug file's, MiniDebugInfo's) has its code. */
static int
find_code(struct imp *im)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(im->elf, scn)) != NULL) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) == NULL ||
		    !(sh.sh_flags & SHF_EXECINSTR) || !(sh.sh_flags & SHF_ALLOC))
			continue;
		if (pclni_grow(&im->code, &im->capcode, im->ncode + 1,
		    sizeof *im->code) < 0)
			return pclni_dw_nomem(im);
		im->code[im->ncode].lo = sh.sh_addr;
		im->code[im->ncode].hi = sh.sh_addr + sh.sh_size;
		im->code[im->ncode++].ndx = elf_ndxscn(scn);
	}
	return 0;
}

/* The index of the file's executable section holding ADDR, or 0. */
static size_t
code_ndx(const struct imp *im, uint64_t addr)
{
	size_t k;

	for (k = 0; k < im->ncode; k++)
		if (addr >= im->code[k].lo && addr < im->code[k].hi)
			return im->code[k].ndx;
	return 0;
}

/* Collect function symbols and labels (STT_NOTYPE: the entry points
 * of assembly code without ".type", ld.so's _start and _dl_start_user,
 * which binutils' addr2line and perf name too) from the symbol table of
 * type TYPE in SRC
 * (the file, or its debug file or MiniDebugInfo, whose sections have no
 * bytes: the code is the file's, at the same address): 1 if there is
 * one, 0 if not, -1 on error. */
static int
read_symtab(struct imp *im, Elf *src, Elf64_Word type, struct extent *ext,
    size_t shnum, size_t fsize)
{
	Elf_Scn *scn = NULL;
	size_t srcnum = shnum;
	int found = 0;

	if (src != im->elf && elf_getshdrnum(src, &srcnum) != 0)
		return 0;
	while ((scn = elf_nextscn(src, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *data;
		size_t i, n;

		if (gelf_getshdr(scn, &sh) == NULL || sh.sh_type != type ||
		    sh.sh_entsize == 0)
			continue;
		if ((data = elf_getdata(scn, NULL)) == NULL)
			continue;
		found = 1;
		n = sh.sh_size / sh.sh_entsize;
		for (i = 1; i < n; i++) {
			GElf_Sym s;
			const char *name;
			size_t ndx;
			int t;

			if (gelf_getsym(data, (int)i, &s) == NULL)
				continue;
			t = GELF_ST_TYPE(s.st_info);
			if ((t != STT_FUNC && t != STT_GNU_IFUNC &&
			    t != STT_NOTYPE) ||
			    s.st_shndx == SHN_UNDEF || s.st_shndx >= srcnum ||
			    s.st_shndx >= SHN_LORESERVE)
				continue;
			ndx = s.st_shndx;
			if (src != im->elf) {
				Elf_Scn *ss = elf_getscn(src, ndx);
				GElf_Shdr ssh;
				if (ss == NULL || gelf_getshdr(ss, &ssh) == NULL ||
				    !(ssh.sh_flags & SHF_EXECINSTR) ||
				    (ndx = code_ndx(im, s.st_value)) == 0 ||
				    ndx >= shnum)
					continue;
			}
			if (code_extent(im, ndx, &ext[ndx], fsize) < 0)
				return -1;
			if (ext[ndx].hi == 0)
				continue;
			name = elf_strptr(src, sh.sh_link, s.st_name);
			if (name == NULL || name[0] == 0)
				continue;
			if (add_sym(im, &s, name, &ext[ndx]) < 0)
				return -1;
		}
	}
	return found;
}

/* Of two function symbols at one address, is A the one perf names the
 * code by (its choose_best_symbol, tools/perf/util/symbol.c): one with
 * a size before one without, a strong one before a weak one, a global
 * one before a local one, fewer leading underscores, the longer name,
 * then the first read? */
static int
perf_prefers(const struct sym *a, const struct sym *b)
{
	size_t ua, ub, la, lb;

	if ((a->size > 0) != (b->size > 0))
		return a->size > 0;
	if ((a->bind == STB_WEAK) != (b->bind == STB_WEAK))
		return b->bind == STB_WEAK;
	if ((a->bind == STB_GLOBAL) != (b->bind == STB_GLOBAL))
		return a->bind == STB_GLOBAL;
	ua = strspn(a->name, "_");
	ub = strspn(b->name, "_");
	if (ua != ub)
		return ua < ub;
	la = strlen(a->name);
	lb = strlen(b->name);
	if (la != lb)
		return la > lb;
	return a->seq < b->seq;
}

/* Sort, fold aliases (keeping the name perf would give the code, PNAME,
 * for SYMNAME), drop labels within functions, size zero-sized symbols,
 * cut overlaps. */
static void
fold_syms(struct imp *im)
{
	size_t i, j, n = 0, nlabels = 0;
	uint64_t covered = 0;	/* the end of the function symbols so far */

	im->st->nsyms = 0;
	for (i = 0; i < im->nsyms; i++)
		im->st->nsyms += !im->syms[i].label;
	if (im->nsyms == 0)
		return;
	qsort(im->syms, im->nsyms, sizeof *im->syms, cmpsym);
	for (i = 0; i < im->nsyms; i = j) {
		uint64_t size = im->syms[i].size;
		const struct sym *best = im->syms[i].label ? NULL :
		    &im->syms[i];
		for (j = i + 1; j < im->nsyms &&
		    im->syms[j].addr == im->syms[i].addr; j++) {
			if (im->syms[j].label)
				continue;	/* a function's own label */
			if (im->syms[j].size > size)
				size = im->syms[j].size;
			im->st->naliases++;
			if (best == NULL || perf_prefers(&im->syms[j], best))
				best = &im->syms[j];
		}
		im->syms[i].pname = best != NULL && best->name[0] != '\0' ?
		    best->name : NULL;
		/* A label is a function of its own only outside every
		 * function symbol's code: within one it is a branch
		 * target, and its function keeps the name. */
		if (im->syms[i].label) {
			if (im->syms[i].addr < covered)
				continue;
			nlabels++;
		} else if (im->syms[i].addr + size > covered)
			covered = im->syms[i].addr + size;
		im->syms[n] = im->syms[i];
		im->syms[n].size = size;
		n++;
	}
	im->nsyms = n;
	im->st->nlabels = nlabels;
	for (i = 0; i < n; i++) {
		struct sym *y = &im->syms[i];
		uint64_t lim = y->secend;
		if (i + 1 < n && im->syms[i + 1].addr < lim)
			lim = im->syms[i + 1].addr;
		if (y->size == 0) {
			im->st->nzero++;
			y->size = lim - y->addr;
			if (y->size > PCLN_DWARF_ZERO_MAX)
				y->size = PCLN_DWARF_ZERO_MAX;
		} else if (y->size > lim - y->addr) {
			im->st->ncut++;
			y->size = lim - y->addr;
		}
		y->size -= y->size % im->st->target.quantum;
	}
}

int
pclni_dw_read_symbols(struct imp *im)
{
	struct extent *ext;
	size_t shnum, fsize, i;
	unsigned type;
	Elf *src;
	int r = 0;

	if (elf_getshdrnum(im->elf, &shnum) != 0)
		return pclni_seterr(im->err, PCLN_EHEADER, -1,
		    "%s: cannot read the section headers: %s", im->path,
		    elf_errmsg(-1));
	if (elf_rawfile(im->elf, &fsize) == NULL)
		fsize = 0;
	if (find_code(im) < 0)
		return -1;
	if ((ext = calloc(shnum + 1, sizeof *ext)) == NULL)
		return pclni_dw_nomem(im);
	/* Every symbol table the search chose (pcln_find.h): the file's
	 * .symtab, or its debug file's, or .dynsym and MiniDebugInfo's.
	 * Only .dynsym: the local functions have FDEs, not names. */
	im->dynsym_only = 1;
	for (i = 0; r >= 0 &&
	    (src = pcln_debuginfo_symtab(im->di, i, &type)) != NULL; i++) {
		if (type != SHT_DYNSYM)
			im->dynsym_only = 0;
		r = read_symtab(im, src, type, ext, shnum, fsize);
	}
	free(ext);
	if (r < 0)
		return -1;
	fold_syms(im);
	return 0;
}

void
pclni_dw_sort_syms(struct imp *im)
{
	if (im->nsyms > 1)
		qsort(im->syms, im->nsyms, sizeof *im->syms, cmpsym);
}
