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

/* The CFI frame at PC, from .eh_frame or else .debug_frame. */
static Dwarf_Frame *
frame_at(struct imp *im, uint64_t pc)
{
	Dwarf_Frame *fr = NULL;

	if (im->cfi_eh != NULL &&
	    dwarf_cfi_addrframe(im->cfi_eh, pc, &fr) == 0)
		return fr;
	fr = NULL;
	if (im->cfi_dbg != NULL &&
	    dwarf_cfi_addrframe(im->cfi_dbg, pc, &fr) == 0)
		return fr;
	return NULL;
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
		Dwarf_Frame *fr = frame_at(im, pc);
		Dwarf_Addr fs, fe;
		Dwarf_Op *ops;
		size_t nops;
		int32_t v = PCLN_DWARF_SP_UNKNOWN, cfa = 0, save;
		uint64_t next;
		int bad;

		if (fr == NULL) {
			if (addpt(im, P_SP, pc - y->addr, v) < 0 ||
			    addpt(im, P_CFA, pc - y->addr, 0) < 0 ||
			    addpt(im, P_FPSAVE, pc - y->addr, 0) < 0)
				return -1;
			if (any) {
				im->st->ncfi_other++;
				im->st->bytes_other += end - pc;
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
