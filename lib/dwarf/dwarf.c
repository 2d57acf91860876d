/* dwarf.c -- import an ELF program's symbols, line table, CFI and
 * inline tree into a pcln builder, through elfutils' libelf and libdw
 * (pcln_dwarf.h).  This file is the driver: it takes the file and its
 * DWARF from lib/find's search (pcln_find.h: the DWARF may be in a
 * separate debug file, compressed, split or fetched), sets the target
 * and runs the passes in order (dwarf_internal.h lists them):
 *
 *   1. symbols (dwarf_sym.c)
 *   2. per compile unit: its line rows (dwarf_line.c) and subprograms
 *      and scopes (dwarf_subr.c); then both sorted
 *   3. per function: name, CFI, lines, inline tree, into the builder
 *   4. if some frame is frame-pointer based: the FP-save tables
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "dwarf_internal.h"

static uint64_t
section_size(Elf *elf, const char *want)
{
	GElf_Shdr sh;

	return pclni_dw_section(elf, want, &sh) != NULL ? sh.sh_size : 0;
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
	st->debug_line = section_size(im->elf, ".debug_line");
	st->debug_info = section_size(im->elf, ".debug_info");
	st->eh_frame = section_size(im->elf, ".eh_frame");
	st->debug_frame = section_size(im->elf, ".debug_frame");
	return 0;
}

/* The DWARF (lib/find opened it) and the CFI; a section libdw refuses
 * is a warning. */
static int
open_debug(struct imp *im)
{
	if ((im->dw = pcln_debuginfo_dwarf(im->di)) != NULL) {
		/* The sizes of the file the DWARF is in. */
		Elf *de = dwarf_getelf(im->dw);
		im->st->debug_line = section_size(de, ".debug_line");
		im->st->debug_info = section_size(de, ".debug_info");
		im->st->debug_frame = section_size(de, ".debug_frame");
	} else if (im->st->debug_info > 0 &&
	    pclni_dw_damage(im, ".debug_info", 0, "libdw cannot read the "
	    "debug information (%s); functions get no lines, DWARF names or "
	    "inlined calls", dwarf_errmsg(-1)) < 0)
		return -1;
	pclni_dw_string_sections(im);
	im->cfi_eh = dwarf_getcfi_elf(im->elf);
	if (im->dw != NULL)
		im->cfi_dbg = dwarf_getcfi(im->dw);
	return pclni_dw_check_cfi(im);
}

/* Add the unit whose DIE is at OFF + HSIZE (header at OFF). */
static int
add_unit(struct imp *im, Dwarf_Off off, size_t hsize, Dwarf_Off abbrev)
{
	struct unit *un;
	uint8_t utype = 0;
	Dwarf_Die die;
	int tag;

	if (dwarf_offdie(im->dw, off + hsize, &die) == NULL)
		return pclni_dw_damage(im, ".debug_info", off, "the unit "
		    "cannot be read (%s); it is left out", dwarf_errmsg(-1));
	if ((tag = dwarf_tag(&die)) == DW_TAG_invalid)
		return pclni_dw_damage(im, ".debug_abbrev", abbrev, "the "
		    "abbreviations of the unit at .debug_info+0x%llx cannot be "
		    "read (%s); the unit is left out", (unsigned long long)off,
		    dwarf_errmsg(-1));
	if (dwarf_cu_info(die.cu, NULL, &utype, NULL, NULL, NULL, NULL,
	    NULL) != 0 || (utype != DW_UT_compile && utype != DW_UT_partial &&
	    utype != DW_UT_skeleton) || tag == DW_TAG_type_unit)
		return 0;
	if (pclni_grow(&im->units, &im->capunits, im->nunits + 1,
	    sizeof *im->units) < 0)
		return pclni_dw_nomem(im);
	un = &im->units[im->nunits++];
	memset(un, 0, sizeof *un);
	un->die = die;
	un->off = off;
	un->compdir = pclni_dw_comp_dir(im, &die);
	un->mangles = pclni_dw_lang_mangles(&die);
	/* Split DWARF: the skeleton has the line table, its split unit (a
	 * .dwo file or a .dwp package, which libdw found) the subprograms
	 * and the language. */
	if (utype == DW_UT_skeleton) {
		im->st->nskeleton++;
		if (dwarf_cu_info(die.cu, NULL, NULL, NULL, &un->split, NULL,
		    NULL, NULL) == 0 &&
		    dwarf_tag(&un->split) == DW_TAG_compile_unit) {
			un->has_split = 1;
			un->mangles = pclni_dw_lang_mangles(&un->split);
			im->st->nsplit++;
		}
	}
	return 0;
}

/* Pass 2: every unit's rows and subprograms. */
static int
read_units(struct imp *im)
{
	Dwarf_Off off = 0, next, abbrev;
	size_t hsize, u;
	int r;

	if (im->dw == NULL)
		return 0;
	while ((r = dwarf_next_unit(im->dw, off, &next, &hsize, NULL, &abbrev,
	    NULL, NULL, NULL, NULL)) == 0) {
		if (add_unit(im, off, hsize, abbrev) < 0)
			return -1;
		off = next;
	}
	if (r < 0 && pclni_dw_damage(im, ".debug_info", off, "this unit "
	    "header cannot be read (%s); it and the units after it are left "
	    "out", dwarf_errmsg(-1)) < 0)
		return -1;
	for (u = 0; u < im->nunits; u++)
		if (pclni_dw_unit_lines(im, (uint32_t)u) < 0 ||
		    pclni_dw_unit_subprograms(im, (uint32_t)u) < 0)
			return -1;
	pclni_dw_sort_lines(im);
	pclni_dw_sort_subprograms(im);
	return 0;
}

/* The pcsp, CFA-rule and FP-save tables of F from im->pts.  FP-save is
 * written wherever a function saves the frame pointer, in every object:
 * a walk through a whole process reaches the frame-pointer-based frames
 * of one object through the frames of another, which must give back the
 * caller's frame pointer they saved. */
static int
add_frame_points(struct imp *im, long f)
{
	static const int table[3] = { PCLN_TAB_PCSP,
	    PCLN_TAB_PCDATA(PCLN_PCDATA_CFA),
	    PCLN_TAB_PCDATA(PCLN_PCDATA_FPSAVE) };
	size_t k;
	int t;

	for (t = 0; t < 3; t++) {
		const struct plist *l = &im->pts[t];
		/* The rule tables only where they say something. */
		if (t != P_SP && !l->used)
			continue;
		for (k = 0; k < l->n; k++)
			if (pcln_builder_add_point(im->b, f, table[t],
			    l->off[k], l->val[k], im->err) < 0)
				return -1;
	}
	return 0;
}

/* Pass 3 for one function Y. */
static int
add_function(struct imp *im, struct sym *y)
{
	const char *name = y->name;
	Dwarf_Die sub;
	int32_t frame;
	long f, u, owner;
	int bad = 0;

	if (pclni_dw_read_cfi(im, y, &frame) < 0)
		return -1;
	/* The unit that describes the code: the one whose subprogram
	 * holds the entry, or else whose line rows do; the lowest (the
	 * copy the linker kept) if several do. */
	u = pclni_dw_subprogram_at(im, y->addr, &sub);
	owner = u >= 0 ? u : pclni_dw_line_unit_at(im, y->addr);
	if (u >= 0) {
		name = pclni_dw_func_name(im, y, &sub, (uint32_t)u, &bad);
		if (bad < 0)
			return -1;
		if (strcmp(name, y->name) != 0)
			im->st->ndwarfnames++;
	}
	if ((f = pcln_builder_add_func(im->b, name, y->addr, y->size, 0,
	    frame, im->err)) < 0)
		return -1;
	im->st->nfunc++;
	im->st->text_bytes += y->size;
	y->f = f;
	/* The name perf gives it where that is another (SYMNAME). */
	if (y->pname != NULL && strcmp(y->pname, name) != 0) {
		if (pcln_builder_set_symname(im->b, f, y->pname, im->err) < 0)
			return -1;
		im->st->nsymnames++;
	}
	if (add_frame_points(im, f) < 0 ||
	    pclni_dw_add_lines(im, f, y, owner) < 0)
		return -1;
	if (u >= 0 && (im->flags & PCLN_DWARF_NO_INLINE) == 0 &&
	    pclni_dw_add_inlines(im, f, y, &sub, (uint32_t)u) < 0)
		return -1;
	return 0;
}

static int
run(struct imp *im)
{
	size_t i;

	if (set_target(im) < 0 || pclni_dw_read_symbols(im) < 0 ||
	    open_debug(im) < 0)
		return -1;
	/* Stripped to .dynsym: the local functions have FDEs, not names. */
	if (im->dynsym_only) {
		if (pclni_dw_add_fde_funcs(im) < 0)
			return -1;
		pclni_dw_sort_syms(im);
	}
	if (im->nsyms == 0)
		return pclni_seterr(im->err, PCLN_ENOTFOUND, -1,
		    "%s: no function symbols (expected STT_FUNC symbols in "
		    ".symtab or .dynsym, in a debug file or MiniDebugInfo, or "
		    "FDEs in .eh_frame)", im->path);
	if (read_units(im) < 0)
		return -1;
	if ((im->b = pcln_builder_new(&im->st->target, im->err)) == NULL)
		return -1;
	for (i = 0; i < im->nsyms; i++)
		if (im->syms[i].size > 0 && add_function(im, &im->syms[i]) < 0)
			return -1;
	return 0;
}

static void
cleanup(struct imp *im)
{
	size_t i;
	int k;

	if (im->cfi_eh != NULL)
		dwarf_cfi_end(im->cfi_eh);
	free(im->code);
	free(im->syms);
	free(im->units);
	free(im->rows);
	free(im->subs);
	free(im->scopes);
	free(im->cur);
	free(im->qbuf);
	for (k = 0; k < 3; k++) {
		free(im->pts[k].off);
		free(im->pts[k].val);
	}
	for (i = 0; i < im->cappaths; i++)
		free(im->paths[i].path);
	free(im->paths);
}

int
pcln_dwarf_import_debuginfo(pcln_debuginfo *di, unsigned flags,
    pcln_dwarf_warn_fn *warn, void *arg, pcln_builder **out,
    pcln_dwarf_stats *stats, pcln_err *err)
{
	struct imp im;
	pcln_dwarf_stats st;
	int rc;

	pclni_clearerr(err);
	*out = NULL;
	memset(&im, 0, sizeof im);
	memset(&st, 0, sizeof st);
	im.di = di;
	im.path = pcln_debuginfo_path(di);
	im.elf = pcln_debuginfo_elf(di);
	im.flags = flags;
	im.warn = warn;
	im.warn_arg = arg;
	im.st = &st;
	im.err = err;
	rc = run(&im);
	/* The table says which object it is for. */
	if (rc == 0 && pcln_builder_set_build_id(im.b,
	    pcln_debuginfo_result(di)->build_id,
	    pcln_debuginfo_result(di)->build_id_len, err) < 0)
		rc = -1;
	if (rc < 0) {
		pcln_builder_free(im.b);
		im.b = NULL;
	}
	*out = im.b;
	if (stats != NULL)
		*stats = st;
	cleanup(&im);
	return rc;
}

int
pcln_dwarf_import_opts(const char *path, unsigned flags,
    const pcln_find_opts *opts, pcln_dwarf_warn_fn *warn, void *arg,
    pcln_builder **out, pcln_dwarf_stats *stats, pcln_find_result *found,
    pcln_err *err)
{
	pcln_debuginfo *di;
	int rc;

	*out = NULL;
	if (stats != NULL)
		memset(stats, 0, sizeof *stats);
	if ((di = pcln_debuginfo_open(path, opts, err)) == NULL)
		return -1;
	if (found != NULL)
		*found = *pcln_debuginfo_result(di);
	rc = pcln_dwarf_import_debuginfo(di, flags, warn, arg, out, stats,
	    err);
	pcln_debuginfo_close(di);
	return rc;
}

int
pcln_dwarf_import_warn(const char *path, unsigned flags,
    pcln_dwarf_warn_fn *warn, void *arg, pcln_builder **out,
    pcln_dwarf_stats *stats, pcln_err *err)
{
	static const pcln_find_opts self = { NULL, PCLN_FIND_NO_SEARCH };

	return pcln_dwarf_import_opts(path, flags, &self, warn, arg, out,
	    stats, NULL, err);
}

int
pcln_dwarf_import(const char *path, unsigned flags, pcln_builder **out,
    pcln_dwarf_stats *stats, pcln_err *err)
{
	return pcln_dwarf_import_warn(path, flags, NULL, NULL, out, stats,
	    err);
}
