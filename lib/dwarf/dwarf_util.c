/* dwarf_util.c -- helpers below every pass of the ELF/DWARF importer
 * (dwarf_internal.h): warnings about damaged input, strings, file paths
 * as addr2line prints them, symbol and range lookups.
 */
#include <config.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dwarf_internal.h"

int
pclni_dw_nomem(struct imp *im)
{
	return pclni_seterr(im->err, PCLN_ENOMEM, -1, "%s: out of memory",
	    im->path);
}

int
pclni_dw_damage(struct imp *im, const char *section, uint64_t offset,
    const char *fmt, ...)
{
	char what[384];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	if (im->flags & PCLN_DWARF_STRICT)
		return pclni_seterr(im->err, PCLN_EDAMAGED, (int64_t)offset,
		    "%s: %s at byte offset 0x%llx: %s (--strict: damaged "
		    "input is an error)", im->path, section,
		    (unsigned long long)offset, what);
	if (im->warn != NULL && im->st->nwarnings < PCLN_DWARF_MAX_WARN) {
		char msg[512];
		snprintf(msg, sizeof msg, "%s: %s at byte offset 0x%llx: %s",
		    im->path, section, (unsigned long long)offset, what);
		im->warn(im->warn_arg, msg);
	}
	im->st->nwarnings++;
	return 0;
}

/* Where the string of attribute A of DIE lives: for DW_FORM_strp and
 * DW_FORM_line_strp, the offset in .debug_str or .debug_line_str (read
 * from the attribute's bytes); else the DIE's offset in .debug_info. */
static uint64_t
str_offset(struct imp *im, Dwarf_Die *die, Dwarf_Attribute *a,
    const char **section)
{
	Dwarf_Die cu;
	uint8_t osz = 0;
	const unsigned char *p = a->valp;
	uint64_t v = 0;
	int i, big = im->st->target.bigendian;

	if ((a->form == DW_FORM_strp || a->form == DW_FORM_line_strp) &&
	    dwarf_cu_die(a->cu, &cu, NULL, NULL, NULL, &osz, NULL,
	    NULL) != NULL && (osz == 4 || osz == 8) && p != NULL) {
		*section = a->form == DW_FORM_strp ? ".debug_str" :
		    ".debug_line_str";
		for (i = 0; i < osz; i++)
			v |= (uint64_t)p[big ? osz - 1 - i : i] << (8 * i);
		return v;
	}
	*section = ".debug_info";
	return dwarf_dieoffset(die);
}

const char *
pclni_dw_string(struct imp *im, Dwarf_Die *die, Dwarf_Attribute *a,
    int *bad)
{
	const char *s = pclni_dw_str(im, dwarf_formstring(a)), *sec;
	uint64_t off;

	if (s != NULL)
		return s;
	off = str_offset(im, die, a, &sec);
	if (pclni_dw_damage(im, sec, off, "the string of attribute 0x%x "
	    "(form 0x%x) of the DIE at .debug_info+0x%llx cannot be read "
	    "(%s); the name is left out", (unsigned)a->code,
	    (unsigned)a->form, (unsigned long long)dwarf_dieoffset(die),
	    dwarf_errmsg(-1)) < 0)
		*bad = -1;
	return NULL;
}

const char *
pclni_dw_path_of(struct imp *im, const char *compdir, const char *name)
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

/* Where .debug_str and .debug_line_str are in memory: libdw's
 * dwarf_formstring returns a pointer into them without checking that
 * the string ends there (a damaged section's last string may not). */
void
pclni_dw_string_sections(struct imp *im)
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

/* S if it is NULL, outside both string sections, or ends inside the one
 * it starts in; else NULL. */
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

long
pclni_dw_sym_at(const struct imp *im, uint64_t pc)
{
	size_t lo = 0, hi = im->nsyms;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (im->syms[mid].addr <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo > 0 && pc - im->syms[lo - 1].addr < im->syms[lo - 1].size)
		return (long)(lo - 1);
	return -1;
}

static int
cmprange(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->end < y->end ? -1 : x->end > y->end;
}

int
pclni_dw_die_ranges(struct imp *im, Dwarf_Die *die)
{
	Dwarf_Addr base, rs, re;
	ptrdiff_t roff = 0;
	size_t i, n = 0;

	im->ncur = 0;
	while ((roff = dwarf_ranges(die, roff, &base, &rs, &re)) > 0) {
		if (rs >= re)
			continue;
		if (pclni_grow(&im->cur, &im->capcur, im->ncur + 1,
		    sizeof *im->cur) < 0)
			return pclni_dw_nomem(im);
		im->cur[im->ncur].start = rs;
		im->cur[im->ncur++].end = re;
	}
	if (im->ncur < 2)
		return 0;
	/* One range per function with -ffunction-sections: sorted, a
	 * line row's unit check is a merge, not a scan per row. */
	qsort(im->cur, im->ncur, sizeof *im->cur, cmprange);
	for (i = 1; i < im->ncur; i++) {
		if (im->cur[i].start <= im->cur[n].end) {
			if (im->cur[i].end > im->cur[n].end)
				im->cur[n].end = im->cur[i].end;
		} else {
			im->cur[++n] = im->cur[i];
		}
	}
	im->ncur = n + 1;
	return 0;
}

Elf_Scn *
pclni_dw_section(Elf *elf, const char *want, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		const char *name;
		if (gelf_getshdr(scn, sh) == NULL)
			continue;
		name = elf_strptr(elf, shstrndx, sh->sh_name);
		if (name != NULL && strcmp(name, want) == 0)
			return scn;
	}
	return NULL;
}
