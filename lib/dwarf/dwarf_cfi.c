/* dwarf_cfi.c -- the CFI (.eh_frame, else .debug_frame) into pcsp and
 * the CFA-rule pcdata (PCLN_PCDATA_CFA, PCLN_PCDATA_FPSAVE).
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "dwarf_internal.h"

static int
addpt(struct imp *im, int which, uint64_t off, int32_t v)
{
	struct plist *l = &im->pts[which];

	if (v != 0)
		l->used = 1;
	if (l->n > 0 && l->val[l->n - 1] == v)
		return 0;
	if (pclni_grow(&l->off, &l->cap, l->n + 1, sizeof *l->off) < 0 ||
	    pclni_grow(&l->val, &l->cap2, l->n + 1, sizeof *l->val) < 0)
		return pclni_dw_nomem(im);
	l->off[l->n] = off;
	l->val[l->n++] = v;
	return 0;
}

/* libdw's error code for "no FDE covers this pc" (DWARF_E_NO_MATCH,
 * not exported): that of a lookup no FDE can answer. */
static int
nomatch_errno(Dwarf_CFI *cfi)
{
	Dwarf_Frame *fr = NULL;

	if (dwarf_cfi_addrframe(cfi, (Dwarf_Addr)-1, &fr) == 0) {
		free(fr);
		return -1;
	}
	return dwarf_errno();
}

/* The CFI frame at PC, from .eh_frame or else .debug_frame.  If there
 * is none because an FDE covering PC cannot be executed (rather than
 * because none covers it), *BADSEC names its section and *BADERR holds
 * libdw's error. */
static Dwarf_Frame *
frame_at(struct imp *im, uint64_t pc, const char **badsec, int *baderr)
{
	Dwarf_CFI *cfi[2] = { im->cfi_eh, im->cfi_dbg };
	static const char *const name[2] = { ".eh_frame", ".debug_frame" };
	int i, e;

	*badsec = NULL;
	for (i = 0; i < 2; i++) {
		Dwarf_Frame *fr = NULL;
		if (cfi[i] == NULL)
			continue;
		if (dwarf_cfi_addrframe(cfi[i], pc, &fr) == 0)
			return fr;
		e = dwarf_errno();
		if (*badsec == NULL && e != nomatch_errno(cfi[i])) {
			*badsec = name[i];
			*baderr = e;
		}
	}
	return NULL;
}

/* Read an encoded pointer (DW_EH_PE_*) of ENC at *P (below END) whose
 * position in its section is at address ADDR; PS is the absptr size.
 * 0, or -1 for an encoding we do not decode (or a short read). */
static int
read_encoded(const uint8_t **p, const uint8_t *end, unsigned enc,
    unsigned ps, uint64_t addr, int big, uint64_t *out)
{
	const uint8_t *q = *p;
	uint64_t v = 0;
	unsigned n, i, sh = 0;

	if (enc == 0xff || (enc & 0x80) != 0 || ((enc & 0x70) != 0 &&
	    (enc & 0x70) != 0x10))
		return -1;	/* omitted, indirect, or not absolute/pcrel */
	switch (enc & 0x0f) {
	case 0x00: n = ps; break;
	case 0x02: case 0x0a: n = 2; break;
	case 0x03: case 0x0b: n = 4; break;
	case 0x04: case 0x0c: n = 8; break;
	case 0x01: case 0x09:	/* uleb128, sleb128 */
		for (;;) {
			if (q >= end || sh > 63)
				return -1;
			v |= (uint64_t)(*q & 0x7f) << sh;
			sh += 7;
			if ((*q++ & 0x80) == 0)
				break;
		}
		if ((enc & 0x0f) == 0x09 && sh < 64 && (q[-1] & 0x40))
			v |= ~(uint64_t)0 << sh;
		goto done;
	default:
		return -1;
	}
	if ((size_t)(end - q) < n)
		return -1;
	for (i = 0; i < n; i++)
		v |= (uint64_t)q[big ? i : n - 1 - i] << (8 * (n - 1 - i));
	if ((enc & 0x08) && n < 8 && (v >> (8 * n - 1)) & 1)
		v |= ~(uint64_t)0 << (8 * n);	/* sdata2, sdata4 */
	q += n;
done:
	if ((enc & 0x70) == 0x10)
		v += addr;
	*p = q;
	*out = v;
	return 0;
}

/* The byte offset in section NAME of the FDE that covers PC, or
 * UINT64_MAX if it cannot be found. */
static uint64_t
fde_offset(struct imp *im, const char *name, uint64_t pc)
{
	GElf_Ehdr ehdr;
	GElf_Shdr sh;
	Elf_Scn *scn = pclni_dw_section(im->elf, name, &sh);
	Elf_Data *d;
	int eh = strcmp(name, ".eh_frame") == 0;
	Dwarf_Off off = 0, next;
	unsigned ps;
	int big;

	if (scn == NULL || sh.sh_type == SHT_NOBITS ||
	    (d = elf_getdata(scn, NULL)) == NULL ||
	    gelf_getehdr(im->elf, &ehdr) == NULL)
		return UINT64_MAX;
	ps = ehdr.e_ident[EI_CLASS] == ELFCLASS64 ? 8 : 4;
	big = ehdr.e_ident[EI_DATA] == ELFDATA2MSB;
	while (off < d->d_size) {
		Dwarf_CFI_Entry e, c;
		Dwarf_Off cnext;
		const uint8_t *p, *end;
		unsigned enc = 0;
		uint64_t loc, len;

		if (dwarf_next_cfi(ehdr.e_ident, d, eh, off, &next, &e) != 0 ||
		    next <= off)
			break;
		if (!dwarf_cfi_cie_p(&e) && dwarf_next_cfi(ehdr.e_ident, d, eh,
		    e.fde.CIE_pointer, &cnext, &c) == 0 && dwarf_cfi_cie_p(&c)) {
			/* The FDE pointer encoding: 'R' in a "z" augmentation. */
			const char *a = c.cie.augmentation;
			const uint8_t *ad = c.cie.augmentation_data;
			const uint8_t *ae = ad + c.cie.augmentation_data_size;
			int ok = 1;
			if (eh && a[0] == 'z' && ad != NULL) {
				for (a++; *a != '\0' && ok; a++) {
					uint64_t skip;
					if (*a == 'R' && ad < ae)
						enc = *ad++;
					else if (*a == 'L' && ad < ae)
						ad++;
					else if (*a == 'P' && ad < ae) {
						unsigned pe = *ad++;
						ok = read_encoded(&ad, ae, pe & 0x0f,
						    ps, 0, big, &skip) == 0;
					} else if (*a != 'S' && *a != 'B')
						ok = 0;
				}
			} else if (eh && a[0] != '\0')
				ok = 0;
			p = e.fde.start;
			end = e.fde.end;
			if (ok && read_encoded(&p, end, enc, ps, sh.sh_addr +
			    (uint64_t)(p - (const uint8_t *)d->d_buf), big,
			    &loc) == 0 && read_encoded(&p, end, enc & 0x0f, ps, 0,
			    big, &len) == 0 && pc >= loc && pc - loc < len)
				return off;
		}
		off = next;
	}
	return UINT64_MAX;
}

/* Warn that the FDE of section SEC covering PC in Y cannot be executed
 * (libdw's error ERR): Y's pcs from PC on get pcsp unknown. */
static int
bad_fde(struct imp *im, const struct sym *y, uint64_t pc, const char *sec,
    int err)
{
	uint64_t off = fde_offset(im, sec, pc);
	const char *fn = y->name != NULL ? y->name : "a function";

	if (off == UINT64_MAX)
		return pclni_dw_damage(im, sec, 0, "the FDE of %s covering 0x%llx "
		    "(not located) cannot be executed (%s); pcs from 0x%llx "
		    "to its end get stack-pointer delta unknown (-1)",
		    fn, (unsigned long long)pc, dwarf_errmsg(err),
		    (unsigned long long)pc);
	return pclni_dw_damage(im, sec, off, "the FDE of %s cannot be "
	    "executed at 0x%llx (%s); pcs from there to its end get "
	    "stack-pointer delta unknown (-1)", fn,
	    (unsigned long long)pc, dwarf_errmsg(err));
}

/* Where the caller's frame pointer is, by FR's rule for it: the offset
 * below the CFA it is saved at (> 0), or 0 (unchanged, or a rule we do
 * not represent: *BAD set). */
static int32_t
fpsave_rule(struct imp *im, Dwarf_Frame *fr, int *bad)
{
	Dwarf_Op mem[3], *ops = NULL;
	size_t nops = 0;
	int64_t n;

	*bad = 0;
	if (im->fpreg < 0 ||
	    dwarf_frame_register(fr, im->fpreg, mem, &ops, &nops) != 0 ||
	    ops == NULL || nops == 0)
		return 0;	/* undefined or same value */
	if (ops[0].atom != DW_OP_call_frame_cfa) {
		*bad = 1;
		return 0;
	}
	if (nops == 1)
		n = 0;
	else if (nops == 3 && ops[1].atom == DW_OP_consts &&
	    ops[2].atom == DW_OP_plus)
		n = (int64_t)ops[1].number;
	else if (nops == 2 && ops[1].atom == DW_OP_plus_uconst)
		n = (int64_t)ops[1].number;
	else {
		*bad = 1;
		return 0;
	}
	if (n >= 0 || n < -INT32_MAX) {
		*bad = 1;
		return 0;
	}
	return (int32_t)-n;
}

/* Does FR's CFI leave the return address undefined (the outermost
 * frame)?  libdw: no operations, and OPS pointing at our array. */
static int
ra_undefined(Dwarf_Frame *fr)
{
	Dwarf_Op mem[3], *ops = NULL;
	size_t nops = 1;
	int ra = dwarf_frame_info(fr, NULL, NULL, NULL);

	return ra >= 0 && dwarf_frame_register(fr, ra, mem, &ops, &nops) == 0 &&
	    nops == 0 && ops == mem;
}

#define CFI_GAP_MAX	64	/* bytes looked through for the next FDE */

/* The first pc after PC (below END, at most CFI_GAP_MAX bytes on) that
 * some FDE covers, else END. */
static uint64_t
next_fde(struct imp *im, uint64_t pc, uint64_t end)
{
	uint64_t q, step = im->st->target.quantum > 0 ?
	    im->st->target.quantum : 1;

	for (q = pc + step; q < end && q - pc <= CFI_GAP_MAX; q += step) {
		const char *badsec = NULL;
		int baderr = 0;
		Dwarf_Frame *fr = frame_at(im, q, &badsec, &baderr);

		if (fr != NULL) {
			free(fr);
			return q;
		}
	}
	return end;
}

/* Fill the pcsp, CFA-rule and FP-save points of Y from the CFI; *FRAME
 * gets the largest pcsp. */
int
pclni_dw_read_cfi(struct imp *im, const struct sym *y,
    int32_t *frame)
{
	uint64_t pc = y->addr, end = y->addr + y->size;
	int any = 0, k;

	for (k = 0; k < 3; k++) {
		im->pts[k].n = 0;
		im->pts[k].used = 0;
	}
	*frame = 0;
	while (pc < end) {
		const char *badsec;
		int baderr = 0;
		Dwarf_Frame *fr = frame_at(im, pc, &badsec, &baderr);
		Dwarf_Addr fs, fe;
		Dwarf_Op *ops;
		size_t nops;
		int32_t v = PCLN_DWARF_SP_UNKNOWN, cfa = 0, save;
		uint64_t next;
		int bad;

		if (fr == NULL) {
			if (badsec != NULL &&
			    bad_fde(im, y, pc, badsec, baderr) < 0)
				return -1;
			if (addpt(im, P_SP, pc - y->addr, v) < 0 ||
			    addpt(im, P_CFA, pc - y->addr, 0) < 0 ||
			    addpt(im, P_FPSAVE, pc - y->addr, 0) < 0)
				return -1;
			if (any) {
				/* A gap between two FDEs of one symbol (glibc's
				 * clone3: the parent's FDE, a few instructions
				 * without CFI, then the child's, whose return
				 * address is undefined): go on at the next FDE,
				 * looked for at most CFI_GAP_MAX bytes on. */
				uint64_t q = next_fde(im, pc, end);

				im->st->ncfi_other++;
				im->st->bytes_other += (q < end ? q : end) - pc;
				if (q < end) {
					pc = q;
					continue;
				}
			}
			break;
		}
		any = 1;
		im->st->ncfirows++;
		if (dwarf_frame_info(fr, &fs, &fe, NULL) < 0 || fe <= pc)
			fe = end;
		next = fe < end ? fe : end;
		if (dwarf_frame_cfa(fr, &ops, &nops) == 0 && ops != NULL &&
		    nops == 1 && ops[0].atom == DW_OP_bregx) {
			int64_t kk = (int64_t)ops[0].number2;
			if (ops[0].number == (Dwarf_Word)im->spreg) {
				if (im->stackconv)
					kk -= im->st->target.ptrsize;
				if (kk >= 0 && kk <= INT32_MAX) {
					v = (int32_t)kk;
					im->st->ncfi_sp++;
				}
			} else if (im->fpreg >= 0 &&
			    ops[0].number == (Dwarf_Word)im->fpreg &&
			    kk != 0 && kk >= -INT32_MAX && kk <= INT32_MAX) {
				cfa = (int32_t)kk;
				im->st->ncfi_fp++;
			}
		}
		save = fpsave_rule(im, fr, &bad);
		if (ra_undefined(fr)) {
			/* _start, a thread's first frame: no caller. */
			v = PCLN_PCSP_OUTERMOST;
			cfa = save = 0;
			bad = 0;
			im->st->ncfi_outermost++;
		}
		if ((v == PCLN_DWARF_SP_UNKNOWN && cfa == 0) || bad) {
			im->st->ncfi_other++;
			im->st->bytes_other += next - pc;
		}
		free(fr);
		if (v > *frame)
			*frame = v;
		if (addpt(im, P_SP, pc - y->addr, v) < 0 ||
		    addpt(im, P_CFA, pc - y->addr, cfa) < 0 ||
		    addpt(im, P_FPSAVE, pc - y->addr, save) < 0)
			return -1;
		pc = next;
	}
	if (!any)
		im->st->nnocfi++;
	return 0;
}


/* The data of section WANT, or NULL. */
static Elf_Data *
section_data(struct imp *im, const char *want, uint64_t *size)
{
	GElf_Shdr sh;
	Elf_Scn *scn = pclni_dw_section(im->elf, want, &sh);

	if (scn == NULL || sh.sh_type == SHT_NOBITS)
		return NULL;
	*size = sh.sh_size;
	return elf_getdata(scn, NULL);
}

/* Walk the entries of NAME (.eh_frame if EH) one by one: the first that
 * cannot be read is a warning naming its offset. */
static int
check_section(struct imp *im, const char *name, int eh, Dwarf_CFI *cfi)
{
	GElf_Ehdr ehdr;
	Elf_Data *d;
	Dwarf_Off off = 0, next;
	uint64_t size = 0;

	if ((d = section_data(im, name, &size)) == NULL || size == 0 ||
	    gelf_getehdr(im->elf, &ehdr) == NULL)
		return 0;
	if (cfi == NULL)
		return pclni_dw_damage(im, name, 0, "libdw cannot read it (%s); "
		    "no function gets a stack-pointer delta from it",
		    dwarf_errmsg(-1));
	while (off < d->d_size) {
		Dwarf_CFI_Entry e;
		int r = dwarf_next_cfi(ehdr.e_ident, d, eh, off, &next, &e);
		if (r > 0)
			break;
		if (r < 0)
			return pclni_dw_damage(im, name, off, "this entry cannot "
			    "be read (%s); frames it or later entries describe "
			    "get stack-pointer delta unknown (-1)",
			    dwarf_errmsg(-1));
		if (next <= off)
			break;
		off = next;
	}
	return 0;
}

int
pclni_dw_check_cfi(struct imp *im)
{
	if (check_section(im, ".eh_frame", 1, im->cfi_eh) < 0)
		return -1;
	return check_section(im, ".debug_frame", 0, im->cfi_dbg);
}
