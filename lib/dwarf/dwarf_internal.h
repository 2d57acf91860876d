/* dwarf_internal.h -- shared state of the ELF/DWARF importer (lib/dwarf/;
 * the public side is pcln_dwarf.h).
 *
 * The driver orders the passes; each pass file uses only this header's
 * helpers (dwarf_util.c), never another pass:
 *
 *   dwarf.c         the driver: open, target, then the passes in order,
 *                   and the per-function loop that feeds the builder
 *   dwarf_sym.c     pass 1: ELF function symbols -> struct sym
 *   dwarf_fde.c     pass 1b, once the CFI is open, where pass 1 found
 *                   .dynsym only: FDEs no symbol covers -> struct sym
 *   dwarf_line.c    pass 2 (per unit): .debug_line -> struct lrow;
 *                   later, per function: pcfile, pcln, discriminators
 *   dwarf_lineprog.c  for dwarf_line.c: rows at their sequence's end
 *   dwarf_subr.c    pass 2 (per unit): subprograms by pc, scopes for
 *                   names; then the naming rule (doc/IMPORT.md)
 *   dwarf_inline.c  per function: DW_TAG_inlined_subroutine -> the
 *                   inline tree and its pc index
 *   dwarf_cfi.c     per function: CFI -> pcsp and the CFA rules
 *   dwarf_util.c    below them all: warnings, strings, paths, lookups
 */
#ifndef PCLN_DWARF_INTERNAL_H
#define PCLN_DWARF_INTERNAL_H

#include <stdint.h>

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>

#include "internal.h"
#include "pcln_dwarf.h"
#include "pcln_find.h"

struct sym {
	uint64_t addr, size, secend;
	const char *name;
	int rank;		/* lower is preferred */
	int label;		/* STT_NOTYPE: an assembler label */
	long f;			/* builder handle, once added */
	unsigned bind;		/* STB_*, from the symbol table */
	size_t seq;		/* its place among the symbols read */
	const char *pname;	/* (fold_syms) of the function symbols at
				 * its address, the one perf names it by;
				 * NULL: none */
};

/* A compile unit, in .debug_info order (the linker keeps the first copy
 * of COMDAT code, so a lower index is the copy that was kept). */
struct unit {
	Dwarf_Die die;
	Dwarf_Off off;		/* of the unit header in .debug_info */
	const char *compdir;
	int mangles;		/* its language mangles names (binutils'
				 * mangle_style != 0): C++, D, Rust, ... */
	Dwarf_Files *files;	/* for DW_AT_call_file, or NULL */
	size_t nfiles;
	Dwarf_Die split;	/* a skeleton's split unit (.dwo/.dwp) */
	int has_split;
};

/* A line-table interval: FILE:LINE holds for [START, END). */
struct lrow {
	uint64_t start, end;
	const char *file;
	int32_t line;
	uint32_t discr;		/* DWARF discriminator, 0 none */
	uint32_t unit;		/* index in imp.units */
	size_t order;		/* input order, to keep sorting stable */
};

/* A subprogram's pc range. */
struct subr {
	uint64_t start, end;
	Dwarf_Die die;
	uint32_t unit;
};

/* A DIE that can qualify a name (namespace, class, structure, union,
 * subprogram), in DIE-offset order: what "a::b::f" is made of. */
struct scope {
	Dwarf_Off off, parent;	/* parent: 0 at the unit's top */
	Dwarf_Off spec;		/* a subprogram's DW_AT_specification or
				 * DW_AT_abstract_origin, or 0 */
	const char *name;	/* NULL: anonymous */
	int tag;
};

/* A row at the address where its own sequence ends (it describes no
 * byte), by what identifies it among libdw's rows there. */
struct emptyrow {
	uint64_t addr;
	int line, col;
	const char *file;
};

/* Points of one table under construction. */
struct plist {
	uint64_t *off;
	int32_t *val;
	size_t n, cap, cap2;
	int used;		/* a nonzero value was added */
};

enum { P_SP, P_CFA, P_FPSAVE };

struct imp {
	const char *path;
	pcln_debuginfo *di;	/* the file and its debug information
				 * (lib/find), which owns ELF and DW */
	Elf *elf;		/* the file */
	Dwarf *dw;		/* its DWARF, wherever it was found */
	Dwarf_CFI *cfi_eh, *cfi_dbg;
	pcln_builder *b;
	pcln_dwarf_stats *st;
	pcln_err *err;
	unsigned flags;		/* PCLN_DWARF_* */
	pcln_dwarf_warn_fn *warn;
	void *warn_arg;
	struct sym *syms;
	size_t nsyms, capsyms;
	struct { uint64_t lo, hi; size_t ndx; } *code;	/* code sections */
	size_t ncode, capcode;
	struct unit *units;
	size_t nunits, capunits;
	struct lrow *rows;
	size_t nrows, caprows;
	struct subr *subs;	/* subprograms by pc, sorted */
	size_t nsubs, capsubs;
	struct scope *scopes;	/* by DIE offset */
	size_t nscopes, capscopes;
	struct range { uint64_t start, end; } *cur;	/* scratch */
	size_t ncur, capcur;
	int spreg;		/* DWARF number of the stack pointer */
	int stackconv;		/* return address pushed (x86) */
	int dynsym_only;	/* no .symtab: the symbols are .dynsym's */
	int fpreg;		/* DWARF number of the frame pointer */
	/* relative file names joined with their unit's DW_AT_comp_dir, by
	 * the name's address (libdw keeps one per unit file entry) */
	struct pathent { const char *name; char *path; } *paths;
	size_t npaths, cappaths;	/* cappaths: a power of 2 */
	/* .debug_str and .debug_line_str as libdw reads them: it does not
	 * check that a string there ends inside the section */
	struct { const char *p; size_t n; } strsec[2];
	char *qbuf;		/* scratch for qualified names */
	size_t qcap;
	/* per-function scratch: pcsp, CFA-rule and FP-save points */
	struct plist pts[3];
};

/* --- dwarf_util.c: helpers every pass may use ----------------------- */

int pclni_dw_nomem(struct imp *im);
/* Damaged input in SECTION at byte OFFSET: a warning (im->warn), or with
 * PCLN_DWARF_STRICT an error.  Returns 0 (go on) or -1 (stop). */
int pclni_dw_damage(struct imp *im, const char *section, uint64_t offset,
    const char *fmt, ...) PCLNI_PRINTF(4, 5);
/* The string of attribute A of DIE; on a damaged string section a warning
 * (*BAD set to -1 with --strict) and NULL. */
const char *pclni_dw_string(struct imp *im, Dwarf_Die *die,
    Dwarf_Attribute *a, int *bad);
/* NAME as addr2line prints it (joined to COMPDIR if relative); NULL only
 * if out of memory. */
const char *pclni_dw_path_of(struct imp *im, const char *compdir,
    const char *name);
const char *pclni_dw_comp_dir(const struct imp *im, Dwarf_Die *cudie);
void pclni_dw_string_sections(struct imp *im);
const char *pclni_dw_str(const struct imp *im, const char *s);
/* Index of the function symbol holding PC, or -1. */
long pclni_dw_sym_at(const struct imp *im, uint64_t pc);
/* The section named WANT and its header in *SH, or NULL. */
Elf_Scn *pclni_dw_section(Elf *elf, const char *want, GElf_Shdr *sh);
/* Ranges of DIE into im->cur, sorted and merged; -1 out of memory. */
int pclni_dw_die_ranges(struct imp *im, Dwarf_Die *die);

/* --- dwarf_sym.c: pass 1 ------------------------------------------- */

/* The function symbols of every table the search chose
 * (pcln_debuginfo_symtab: .symtab, a debug file's, .dynsym and
 * MiniDebugInfo's; im->dynsym_only set if .dynsym was the only one),
 * sorted and folded; none is not an error here. */
int pclni_dw_read_symbols(struct imp *im);
/* Sort im->syms again (after more were added). */
void pclni_dw_sort_syms(struct imp *im);

/* --- dwarf_fde.c ----------------------------------------------------- */

/* An unnamed function for each FDE of .eh_frame_hdr no symbol covers
 * (objects stripped to .dynsym); needs the CFI (open_debug).  Appends
 * to im->syms: the driver sorts them again (pclni_dw_sort_syms). */
int pclni_dw_add_fde_funcs(struct imp *im);

/* --- dwarf_line.c -------------------------------------------------- */

/* Pass 2: unit U's rows into im->rows (sorted by pclni_dw_sort_lines). */
int pclni_dw_unit_lines(struct imp *im, uint32_t u);
void pclni_dw_sort_lines(struct imp *im);
/* Per function: pcfile, pcln and discriminator points of Y, from the
 * rows of unit OWNER (or of any unit if OWNER < 0). */
int pclni_dw_add_lines(struct imp *im, long f, const struct sym *y,
    long owner);
/* The lowest unit with a row at PC, or -1. */
long pclni_dw_line_unit_at(const struct imp *im, uint64_t pc);

/* --- dwarf_lineprog.c ---------------------------------------------- */

/* The rows of unit U's line program that sit at their own sequence's
 * end, in *OUT (malloc'ed, the caller frees) and *N. */
int pclni_dw_sequence_ends(struct imp *im, uint32_t u,
    struct emptyrow **out, size_t *n);

/* --- dwarf_subr.c -------------------------------------------------- */

int pclni_dw_lang_mangles(Dwarf_Die *cu);

/* Pass 2: unit U's subprograms (with code) and scopes. */
int pclni_dw_unit_subprograms(struct imp *im, uint32_t u);
void pclni_dw_sort_subprograms(struct imp *im);
/* The subprogram whose code holds PC (of the lowest unit if several), in
 * *SUB; its unit, or -1 if none. */
long pclni_dw_subprogram_at(struct imp *im, uint64_t pc, Dwarf_Die *sub);
/* The name of the function Y whose subprogram is SUB (of unit U), by the
 * rule of doc/IMPORT.md; never NULL unless out of memory (*BAD -1) or
 * --strict damage (*BAD -1). */
const char *pclni_dw_func_name(struct imp *im, const struct sym *y,
    Dwarf_Die *sub, uint32_t u, int *bad);
/* The name of an inlined call's origin (of unit U); NULL if none. */
const char *pclni_dw_inline_name(struct imp *im, Dwarf_Die *die,
    uint32_t u, int *bad);

/* --- dwarf_inline.c ------------------------------------------------ */

int pclni_dw_add_inlines(struct imp *im, long f, const struct sym *y,
    Dwarf_Die *sub, uint32_t u);

/* --- dwarf_cfi.c --------------------------------------------------- */

/* Check .eh_frame/.debug_frame entry by entry (warnings name the byte
 * offset of a damaged entry). */
int pclni_dw_check_cfi(struct imp *im);
/* A function's pcsp, CFA and FP-save points in im->pts. */
int pclni_dw_read_cfi(struct imp *im, const struct sym *y, int32_t *frame);

#endif /* PCLN_DWARF_INTERNAL_H */
