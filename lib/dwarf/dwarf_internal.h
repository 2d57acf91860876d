/* dwarf_internal.h -- shared state of the ELF/DWARF importer (lib/dwarf/dwarf*.c;
 * the public side is pcln_dwarf.h).
 *
 *   dwarf.c         the import: target, symbols, the per-function loop
 *   dwarf_line.c    .debug_line -> pcfile/pcln; file paths
 *   dwarf_cfi.c     .eh_frame/.debug_frame -> pcsp and the CFA rules
 *   dwarf_inline.c  subprograms by pc, DWARF names, the inline tree
 */
#ifndef PCLN_DWARF_INTERNAL_H
#define PCLN_DWARF_INTERNAL_H

#include <stdint.h>

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>

#include "internal.h"
#include "pcln_dwarf.h"

struct sym {
	uint64_t addr, size, secend;
	const char *name;
	int rank;		/* lower is preferred */
	long f;			/* builder handle, once added */
};

/* A line-table interval: FILE:LINE holds for [START, END). */
struct lrow {
	uint64_t start, end;
	const char *file;
	int32_t line;
	size_t order;		/* input order, to keep sorting stable */
};

/* A subprogram's pc range. */
struct subr {
	uint64_t start, end;
	Dwarf_Die die;
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
	int fd;
	Elf *elf;
	Dwarf *dw;
	Dwarf_CFI *cfi_eh, *cfi_dbg;
	pcln_builder *b;
	pcln_dwarf_stats *st;
	pcln_err *err;
	struct sym *syms;
	size_t nsyms, capsyms;
	struct lrow *rows;
	size_t nrows, caprows;
	struct subr *subs;	/* subprograms by pc, sorted */
	size_t nsubs, capsubs;
	struct { uint64_t start, end; } *cur;	/* current unit's ranges */
	size_t ncur, capcur;
	unsigned flags;		/* PCLN_DWARF_* */
	int spreg;		/* DWARF number of the stack pointer */
	int stackconv;		/* return address pushed (x86) */
	int fpreg;		/* DWARF number of the frame pointer */
	/* relative file names joined with their unit's DW_AT_comp_dir, by
	 * the name's address (libdw keeps one per unit file entry) */
	struct pathent { const char *name; char *path; } *paths;
	size_t npaths, cappaths;	/* cappaths: a power of 2 */
	/* per-function scratch: pcsp, CFA-rule and FP-save points */
	struct plist pts[3];
	/* .debug_str and .debug_line_str as libdw reads them: it does not
	 * check that a string there ends inside the section */
	struct { const char *p; size_t n; } strsec[2];
};


int pclni_dw_nomem(struct imp *im);
int pclni_dw_in_function(const struct imp *im, uint64_t pc);

/* dwarf_line.c: every unit's rows as sorted intervals (and the
 * subprogram index); a function's pcfile and pcln points. */
int pclni_dw_read_lines(struct imp *im);
int pclni_dw_add_lines(struct imp *im, long f, const struct sym *y);
const char *pclni_dw_path_of(struct imp *im, const char *compdir,
    const char *name);
const char *pclni_dw_comp_dir(const struct imp *im, Dwarf_Die *cudie);

/* dwarf_cfi.c: a function's pcsp, CFA and FP-save points in im->pts. */
int pclni_dw_read_cfi(struct imp *im, const struct sym *y, int32_t *frame);

/* dwarf_inline.c */
int pclni_dw_index_subprograms(struct imp *im, Dwarf_Die *parent,
    int depth);
void pclni_dw_sort_subprograms(struct imp *im);
int pclni_dw_subprogram_at(struct imp *im, uint64_t pc, Dwarf_Die *sub);
const char *pclni_dw_die_name(const struct imp *im, Dwarf_Die *die);
const char *pclni_dw_str(const struct imp *im, const char *s);
int pclni_dw_add_inlines(struct imp *im, long f, const struct sym *y,
    Dwarf_Die *sub);

#endif /* PCLN_DWARF_INTERNAL_H */
