/* dwarf_fde.c -- functions for the code the CFI describes but no symbol
 * names: a shared object stripped to .dynsym (libc as Debian ships it)
 * keeps an FDE for every function, local ones included, but names only
 * its exported ones.  Without a function there, a walk that reaches
 * such code (qsort's msort_with_tmp, __libc_start_call_main) stops; with
 * an unnamed one (name "", printed "??" as gdb prints it) it goes on.
 *
 * The FDEs are found through .eh_frame_hdr's binary-search table (the
 * one the unwinders of libgcc and glibc use): sorted initial locations,
 * DW_EH_PE-encoded.  An FDE's end is where its last CFI row ends
 * (libdw's dwarf_frame_info), cut at the next FDE, the next symbol and
 * the end of its section.
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "dwarf_internal.h"

#define DW_EH_PE_omit		0xff
#define DW_EH_PE_absptr		0x00
#define DW_EH_PE_udata2		0x02
#define DW_EH_PE_udata4		0x03
#define DW_EH_PE_udata8		0x04
#define DW_EH_PE_sdata2		0x0a
#define DW_EH_PE_sdata4		0x0b
#define DW_EH_PE_sdata8		0x0c
#define DW_EH_PE_pcrel		0x10
#define DW_EH_PE_datarel	0x30

#define FDE_ROWS_MAX		100000	/* rows walked for one FDE */

struct hdr {
	const uint8_t *p;
	size_t len;
	uint64_t addr;		/* sh_addr of .eh_frame_hdr */
	int big;
	unsigned ptrsize;
};

/* Decode the value of encoding ENC at *OFF.  Returns 0 and *V, or -1
 * (an encoding we do not read, or past the end). */
static int
decode(const struct hdr *h, size_t *off, unsigned enc, uint64_t *v)
{
	size_t o = *off, n;
	uint64_t x, base = 0;

	switch (enc & 0x0f) {
	case DW_EH_PE_absptr: n = h->ptrsize; break;
	case DW_EH_PE_udata2: case DW_EH_PE_sdata2: n = 2; break;
	case DW_EH_PE_udata4: case DW_EH_PE_sdata4: n = 4; break;
	case DW_EH_PE_udata8: case DW_EH_PE_sdata8: n = 8; break;
	default: return -1;
	}
	if (o > h->len || n > h->len - o)
		return -1;
	if (n == 2)
		x = h->big ? (uint64_t)(h->p[o] << 8 | h->p[o + 1]) :
		    (uint64_t)(h->p[o + 1] << 8 | h->p[o]);
	else if (n == 4)
		x = pclnrt_load32(h->p + o, h->big);
	else
		x = pclnrt_load64(h->p + o, h->big);
	if ((enc & 0x0f) == DW_EH_PE_sdata2)
		x = (uint64_t)(int64_t)(int16_t)x;
	else if ((enc & 0x0f) == DW_EH_PE_sdata4)
		x = (uint64_t)(int64_t)(int32_t)x;
	switch (enc & 0x70) {
	case 0: break;
	case DW_EH_PE_pcrel: base = h->addr + o; break;
	case DW_EH_PE_datarel: base = h->addr; break;
	default: return -1;
	}
	*v = x + base;
	if (h->ptrsize == 4)
		*v &= UINT32_MAX;
	*off = o + n;
	return 0;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The first symbol at or above PC (syms sorted), or UINT64_MAX. */
static uint64_t
next_sym(const struct imp *im, uint64_t pc)
{
	size_t lo = 0, hi = im->nsyms;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (im->syms[mid].addr < pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < im->nsyms ? im->syms[lo].addr : UINT64_MAX;
}

/* The executable section holding PC with its code in the file: its end
 * in *END.  Returns 0, or -1 if there is none. */
static int
code_section(const struct imp *im, uint64_t pc, uint64_t *end)
{
	Elf_Scn *scn = NULL;
	size_t fsize;

	if (elf_rawfile(im->elf, &fsize) == NULL)
		fsize = 0;
	while ((scn = elf_nextscn(im->elf, scn)) != NULL) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) == NULL ||
		    sh.sh_type != SHT_PROGBITS ||
		    (sh.sh_flags & (SHF_EXECINSTR | SHF_ALLOC)) !=
		    (SHF_EXECINSTR | SHF_ALLOC) || sh.sh_offset > fsize ||
		    sh.sh_size > fsize - sh.sh_offset)
			continue;
		if (pc >= sh.sh_addr && pc - sh.sh_addr < sh.sh_size) {
			*end = sh.sh_addr + sh.sh_size;
			return 0;
		}
	}
	return -1;
}

/* Read .eh_frame_hdr into H.  Returns 1, 0 if there is none, -1 on
 * error. */
static int
find_hdr(struct imp *im, struct hdr *h)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(im->elf, &shstrndx) != 0)
		return 0;
	while ((scn = elf_nextscn(im->elf, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *d;
		const char *name;

		if (gelf_getshdr(scn, &sh) == NULL || sh.sh_type != SHT_PROGBITS)
			continue;
		name = elf_strptr(im->elf, shstrndx, sh.sh_name);
		if (name == NULL || strcmp(name, ".eh_frame_hdr") != 0)
			continue;
		if ((d = elf_getdata(scn, NULL)) == NULL || d->d_buf == NULL)
			return 0;
		h->p = d->d_buf;
		h->len = d->d_size;
		h->addr = sh.sh_addr;
		h->big = im->st->target.bigendian;
		h->ptrsize = im->st->target.ptrsize;
		return 1;
	}
	return 0;
}

int
pclni_dw_add_fde_funcs(struct imp *im)
{
	struct hdr h;
	uint64_t *locs = NULL, v, count, i;
	size_t off = 4, nlocs = 0, caplocs = 0, nnew = 0, capnew = 0, k;
	struct sym *fresh = NULL;
	unsigned q = im->st->target.quantum;
	int r;

	if (im->cfi_eh == NULL || (r = find_hdr(im, &h)) <= 0)
		return 0;
	/* version 1, eh_frame_ptr_enc, fde_count_enc, table_enc */
	if (h.len < 4 || h.p[0] != 1 || h.p[2] == DW_EH_PE_omit ||
	    h.p[3] == DW_EH_PE_omit ||
	    decode(&h, &off, h.p[1], &v) < 0 ||
	    decode(&h, &off, h.p[2], &count) < 0)
		return 0;
	/* Each entry is two encoded values of at least 2 bytes. */
	if (count > (h.len - off) / 4)
		count = (h.len - off) / 4;
	for (i = 0; i < count; i++) {
		uint64_t loc, fde;

		if (decode(&h, &off, h.p[3], &loc) < 0 ||
		    decode(&h, &off, h.p[3], &fde) < 0)
			break;
		if (pclni_grow(&locs, &caplocs, nlocs + 1, sizeof *locs) < 0) {
			free(locs);
			return pclni_dw_nomem(im);
		}
		locs[nlocs++] = loc;
	}
	if (nlocs > 1)
		qsort(locs, nlocs, sizeof *locs, cmp_u64);
	for (i = 0; i < nlocs; i++) {
		uint64_t start = locs[i], pc = start, lim, secend, s;
		size_t rows;
		struct sym *y;

		if ((i > 0 && locs[i - 1] == start) || start % q != 0 ||
		    pclni_dw_sym_at(im, start) >= 0 ||
		    code_section(im, start, &secend) < 0)
			continue;
		lim = secend;
		if (i + 1 < nlocs && locs[i + 1] < lim)
			lim = locs[i + 1];
		if ((s = next_sym(im, start)) < lim)
			lim = s;
		for (rows = 0; pc < lim && rows < FDE_ROWS_MAX; rows++) {
			Dwarf_Frame *fr = NULL;
			Dwarf_Addr fs, fe;

			if (dwarf_cfi_addrframe(im->cfi_eh, pc, &fr) != 0)
				break;
			if (dwarf_frame_info(fr, &fs, &fe, NULL) < 0 ||
			    fe <= pc) {
				free(fr);
				break;
			}
			free(fr);
			pc = fe < lim ? fe : lim;
		}
		pc -= (pc - start) % q;
		if (pc <= start)
			continue;
		if (pclni_grow(&fresh, &capnew, nnew + 1, sizeof *fresh) < 0) {
			free(locs);
			free(fresh);
			return pclni_dw_nomem(im);
		}
		y = &fresh[nnew++];
		memset(y, 0, sizeof *y);
		y->addr = start;
		y->size = pc - start;
		y->secend = secend;
		y->name = "";
		y->rank = 99;
	}
	free(locs);
	/* The symbols were searched above; only now do they grow. */
	if (nnew > 0 && pclni_grow(&im->syms, &im->capsyms, im->nsyms + nnew,
	    sizeof *im->syms) < 0) {
		free(fresh);
		return pclni_dw_nomem(im);
	}
	for (k = 0; k < nnew; k++)
		im->syms[im->nsyms++] = fresh[k];
	free(fresh);
	im->st->nfde_funcs = nnew;
	return 0;
}
