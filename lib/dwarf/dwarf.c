/* dwarf.c -- import an ELF program's symbols, line table, CFI and
 * inline tree into a pcln builder, through elfutils' libelf and libdw
 * (pcln_dwarf.h).  This file: the target, the function symbols and the
 * per-function loop; the rest is in dwarf_line.c, dwarf_cfi.c and
 * dwarf_inline.c (dwarf_internal.h).
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dwarf_internal.h"

int
pclni_dw_nomem(struct imp *im)
{
	return pclni_seterr(im->err, PCLN_ENOMEM, -1, "%s: out of memory",
	    im->path);
}

static int
symrank(const GElf_Sym *s, const char *name)
{
	int r;

	switch (GELF_ST_BIND(s->st_info)) {
	case STB_GLOBAL: r = 0; break;
	case STB_WEAK: r = 2; break;
	default: r = 4; break;
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

/* Collect function symbols from the symbol table of type TYPE. */
static int
read_symtab(struct imp *im, Elf64_Word type)
{
	Elf_Scn *scn = NULL;
	size_t shnum, fsize;
	int found = 0;

	if (elf_getshdrnum(im->elf, &shnum) != 0)
		return pclni_seterr(im->err, PCLN_EHEADER, -1,
		    "%s: cannot read the section headers: %s", im->path,
		    elf_errmsg(-1));
	if (elf_rawfile(im->elf, &fsize) == NULL)
		fsize = 0;
	while ((scn = elf_nextscn(im->elf, scn)) != NULL) {
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
			GElf_Shdr ts;
			Elf_Scn *tscn;
			const char *name;
			struct sym *y;
			int t;

			if (gelf_getsym(data, (int)i, &s) == NULL)
				continue;
			t = GELF_ST_TYPE(s.st_info);
			if ((t != STT_FUNC && t != STT_GNU_IFUNC) ||
			    s.st_shndx == SHN_UNDEF || s.st_shndx >= shnum ||
			    s.st_shndx >= SHN_LORESERVE)
				continue;
			if ((tscn = elf_getscn(im->elf, s.st_shndx)) == NULL ||
			    gelf_getshdr(tscn, &ts) == NULL ||
			    !(ts.sh_flags & SHF_EXECINSTR) ||
			    !(ts.sh_flags & SHF_ALLOC))
				continue;
			/* The code must be in the file: a section that claims
			 * more bytes than the file holds (or none, NOBITS, as
			 * in a separate debug-info file) is not code we can
			 * describe, and its size is not to be trusted. */
			if (ts.sh_type != SHT_PROGBITS || ts.sh_offset > fsize ||
			    ts.sh_size > fsize - ts.sh_offset ||
			    ts.sh_addr + ts.sh_size < ts.sh_addr)
				continue;
			name = elf_strptr(im->elf, sh.sh_link, s.st_name);
			if (name == NULL || name[0] == 0)
				continue;
			if (s.st_value < ts.sh_addr ||
			    s.st_value >= ts.sh_addr + ts.sh_size)
				continue;
			if (s.st_value % im->st->target.quantum != 0)
				continue;
			if (pclni_grow(&im->syms, &im->capsyms, im->nsyms + 1,
			    sizeof *im->syms) < 0)
				return pclni_dw_nomem(im);
			y = &im->syms[im->nsyms++];
			y->addr = s.st_value;
			y->size = s.st_size;
			y->secend = ts.sh_addr + ts.sh_size;
			y->name = name;
			y->rank = symrank(&s, name);
		}
	}
	return found;
}

/* Sort, fold aliases, size zero-sized symbols, cut overlaps. */
static void
fold_syms(struct imp *im)
{
	size_t i, j, n = 0;

	im->st->nsyms = im->nsyms;
	if (im->nsyms == 0)
		return;
	qsort(im->syms, im->nsyms, sizeof *im->syms, cmpsym);
	for (i = 0; i < im->nsyms; i = j) {
		uint64_t size = im->syms[i].size;
		for (j = i + 1; j < im->nsyms &&
		    im->syms[j].addr == im->syms[i].addr; j++) {
			if (im->syms[j].size > size)
				size = im->syms[j].size;
			im->st->naliases++;
		}
		im->syms[n] = im->syms[i];
		im->syms[n].size = size;
		n++;
	}
	im->nsyms = n;
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
		} else if (y->addr + y->size > lim) {
			im->st->ncut++;
			y->size = lim - y->addr;
		}
		y->size -= y->size % im->st->target.quantum;
	}
}

/* Is PC inside one of the (sorted, folded) function symbols? */
int
pclni_dw_in_function(const struct imp *im, uint64_t pc)
{
	size_t lo = 0, hi = im->nsyms;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (im->syms[mid].addr <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 && pc - im->syms[lo - 1].addr < im->syms[lo - 1].size;
}
static uint64_t
section_size(Elf *elf, const char *want)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return 0;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		const char *name;
		if (gelf_getshdr(scn, &sh) == NULL)
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name != NULL && strcmp(name, want) == 0)
			return sh.sh_size;
	}
	return 0;
}

static int
set_target(struct imp *im)
{
	GElf_Ehdr eh;
	pcln_dwarf_stats *st = im->st;

	if (gelf_getehdr(im->elf, &eh) == NULL)
		return pclni_seterr(im->err, PCLN_EHEADER, 0,
		    "%s: not an ELF file: %s", im->path, elf_errmsg(-1));
	if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN)
		return pclni_seterr(im->err, PCLN_EUNSUPPORTED, 0,
		    "%s: ELF type %u: expected an executable or a shared "
		    "object (ET_EXEC or ET_DYN), not a relocatable object",
		    im->path, (unsigned)eh.e_type);
	st->machine = eh.e_machine;
	st->target.ptrsize = eh.e_ident[EI_CLASS] == ELFCLASS64 ? 8 : 4;
	st->target.bigendian = eh.e_ident[EI_DATA] == ELFDATA2MSB;
	st->target.quantum = 1;
	im->spreg = -1;
	im->fpreg = -1;
	switch (eh.e_machine) {
	case EM_X86_64:
		im->spreg = 7;
		im->fpreg = 6;
		im->stackconv = 1;
		break;
	case EM_386:
		im->spreg = 4;
		im->fpreg = 5;
		im->stackconv = 1;
		break;
	case EM_AARCH64:
		im->spreg = 31;
		st->target.quantum = 4;
		break;
	case EM_RISCV:
		im->spreg = 2;
		st->target.quantum = 2;
		break;
	default:
		break;
	}
	return 0;
}

/* Where .debug_str and .debug_line_str are in memory: libdw's
 * dwarf_formstring returns a pointer into them without checking that
 * the string ends there (a damaged section's last string may not). */
static void
string_sections(struct imp *im)
{
	static const char *const names[2] = { ".debug_str", ".debug_line_str" };
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	int k;

	for (k = 0; k < 2; k++) {
		im->strsec[k].p = NULL;
		im->strsec[k].n = 0;
	}
	if (elf_getshdrstrndx(im->elf, &shstrndx) != 0)
		return;
	while ((scn = elf_nextscn(im->elf, scn)) != NULL) {
		GElf_Shdr sh;
		const char *name;
		Elf_Data *d;

		if (gelf_getshdr(scn, &sh) == NULL || (name = elf_strptr(im->elf,
		    shstrndx, sh.sh_name)) == NULL)
			continue;
		for (k = 0; k < 2; k++)
			if (strcmp(name, names[k]) == 0 &&
			    (d = elf_getdata(scn, NULL)) != NULL &&
			    d->d_buf != NULL) {
				im->strsec[k].p = d->d_buf;
				im->strsec[k].n = d->d_size;
			}
	}
}

const char *
pclni_dw_str(const struct imp *im, const char *s)
{
	int k;

	if (s == NULL)
		return NULL;
	for (k = 0; k < 2; k++) {
		const char *p = im->strsec[k].p;
		size_t n = im->strsec[k].n;
		if (p != NULL && s >= p && s < p + n)
			return memchr(s, 0, (size_t)(p + n - s)) != NULL ? s :
			    NULL;
	}
	return s;
}

static int
run(struct imp *im)
{
	size_t i;
	int r;

	if (set_target(im) < 0)
		return -1;
	im->st->debug_line = section_size(im->elf, ".debug_line");
	im->st->debug_info = section_size(im->elf, ".debug_info");
	im->st->eh_frame = section_size(im->elf, ".eh_frame");
	im->st->debug_frame = section_size(im->elf, ".debug_frame");
	if ((r = read_symtab(im, SHT_SYMTAB)) < 0)
		return -1;
	if (r == 0 && read_symtab(im, SHT_DYNSYM) < 0)
		return -1;
	fold_syms(im);
	if (im->nsyms == 0)
		return pclni_seterr(im->err, PCLN_ENOTFOUND, -1,
		    "%s: no function symbols (expected STT_FUNC symbols in "
		    ".symtab or .dynsym)", im->path);
	im->dw = dwarf_begin_elf(im->elf, DWARF_C_READ, NULL);
	string_sections(im);
	im->cfi_eh = dwarf_getcfi_elf(im->elf);
	if (im->dw != NULL)
		im->cfi_dbg = dwarf_getcfi(im->dw);
	if (pclni_dw_read_lines(im) < 0)
		return -1;
	if ((im->b = pcln_builder_new(&im->st->target, im->err)) == NULL)
		return -1;
	for (i = 0; i < im->nsyms; i++) {
		const struct sym *y = &im->syms[i];
		int32_t frame;
		long f;
		size_t k;
		int t;

		const char *name = NULL;
		Dwarf_Die sub;
		int has_sub;

		if (y->size == 0)
			continue;
		if (pclni_dw_read_cfi(im, y, &frame) < 0)
			return -1;
		has_sub = pclni_dw_subprogram_at(im, y->addr, &sub) == 0;
		if (has_sub)
			name = pclni_dw_die_name(im, &sub);
		if (name == NULL)
			name = y->name;
		else if (strcmp(name, y->name) != 0)
			im->st->ndwarfnames++;
		if ((f = pcln_builder_add_func(im->b, name, y->addr,
		    y->size, 0, frame, im->err)) < 0)
			return -1;
		im->st->nfunc++;
		im->st->text_bytes += y->size;
		im->syms[i].f = f;
		for (t = 0; t < 2; t++) {
			static const int table[2] = { PCLN_TABLE_PCSP,
			    PCLN_TABLE_PCDATA(PCLN_PCDATA_CFA) };
			const struct plist *l = &im->pts[t];
			/* The rule tables only where they say something. */
			if (t != P_SP && !l->used)
				continue;
			for (k = 0; k < l->n; k++)
				if (pcln_builder_add_point(im->b, f, table[t],
				    l->off[k], l->val[k], im->err) < 0)
					return -1;
		}
		if (pclni_dw_add_lines(im, f, y) < 0)
			return -1;
		if (has_sub && (im->flags & PCLN_DWARF_NO_INLINE) == 0 &&
		    pclni_dw_add_inlines(im, f, y, &sub) < 0)
			return -1;
	}
	/* Where the caller's frame pointer was saved matters only to walk
	 * through frames whose CFA is frame-pointer-based: if there is
	 * none, the FPSAVE tables are left out (a second pass over the CFI
	 * otherwise; its statistics are not counted twice). */
	if (im->st->ncfi_fp > 0) {
		pcln_dwarf_stats keep = *im->st;
		for (i = 0; i < im->nsyms; i++) {
			const struct sym *y = &im->syms[i];
			const struct plist *l = &im->pts[P_FPSAVE];
			int32_t frame;
			size_t k;
			if (y->size == 0)
				continue;
			if (pclni_dw_read_cfi(im, y, &frame) < 0)
				return -1;
			for (k = 0; l->used && k < l->n; k++)
				if (pcln_builder_add_point(im->b, y->f,
				    PCLN_TABLE_PCDATA(PCLN_PCDATA_FPSAVE),
				    l->off[k], l->val[k], im->err) < 0)
					return -1;
		}
		*im->st = keep;
	}
	return 0;
}

int
pcln_dwarf_import(const char *path, unsigned flags, pcln_builder **out,
    pcln_dwarf_stats *stats, pcln_err *err)
{
	struct imp im;
	pcln_dwarf_stats st;
	size_t i;
	int rc, k;

	pclni_clearerr(err);
	*out = NULL;
	memset(&im, 0, sizeof im);
	memset(&st, 0, sizeof st);
	im.path = path;
	im.flags = flags;
	im.st = &st;
	im.err = err;
	elf_version(EV_CURRENT);
	if ((im.fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return pclni_seterr(err, PCLN_EIO, -1, "%s: %s", path,
		    strerror(errno));
	if ((im.elf = elf_begin(im.fd, ELF_C_READ_MMAP, NULL)) == NULL ||
	    elf_kind(im.elf) != ELF_K_ELF) {
		rc = pclni_seterr(err, PCLN_EHEADER, 0,
		    "%s: not an ELF file (expected the ELF magic \\177ELF)",
		    path);
		goto out;
	}
	rc = run(&im);
out:
	if (rc < 0) {
		pcln_builder_free(im.b);
		im.b = NULL;
	}
	*out = im.b;
	if (stats != NULL)
		*stats = st;
	if (im.dw != NULL)
		dwarf_end(im.dw);
	if (im.cfi_eh != NULL)
		dwarf_cfi_end(im.cfi_eh);
	if (im.elf != NULL)
		elf_end(im.elf);
	close(im.fd);
	free(im.syms);
	free(im.rows);
	free(im.subs);
	free(im.cur);
	for (k = 0; k < 3; k++) {
		free(im.pts[k].off);
		free(im.pts[k].val);
	}
	for (i = 0; i < im.cappaths; i++)
		free(im.paths[i].path);
	free(im.paths);
	return rc;
}

