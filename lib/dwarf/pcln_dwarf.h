/* pcln_dwarf.h -- import an ELF program's symbols, DWARF line table and
 * call frame information into a pcln builder (needs elfutils' libdw;
 * built only when configure found it, HAVE_LIBDW).
 *
 * What becomes what:
 *  - functions: STT_FUNC / STT_GNU_IFUNC symbols of .symtab (else
 *    .dynsym) defined in an executable section, and the labels there
 *    (named STT_NOTYPE symbols: assembly entry points without ".type",
 *    as ld.so's _start) that no function symbol's code holds, as
 *    binutils' addr2line and perf name them.  Aliases at one address
 *    are folded to one name (global before weak before local, then the
 *    name without a leading '_', then the shortest, then the smallest in
 *    byte order).  A zero-sized symbol extends to the next symbol or the
 *    end of its section (at most PCLN_DWARF_ZERO_MAX bytes); a symbol
 *    that overlaps the next is cut at the next.  A function is named by
 *    the rule of doc/IMPORT.md, binutils' own: its subprogram's linkage
 *    name; else, in C, its DW_AT_name (gcc's clones "f.constprop.0" and
 *    split-off parts "f.cold", a function of its own, are named "f");
 *    else (C++ with internal linkage) its symbol; without DWARF, by the
 *    symbol.  The code of a function described by several units (COMDAT
 *    copies) is described by the first unit that claims it, the copy
 *    the linker kept.  A file stripped to .dynsym (no .symtab) names
 *    only its exported functions, but its .eh_frame still has an FDE
 *    for each: every FDE of .eh_frame_hdr's table that no symbol covers
 *    becomes a function named "" (unnamed: printed "??", as gdb does),
 *    from its start to the end of its last CFI row (cut at the next FDE
 *    or symbol), so a walk goes on through it.
 *  - pcfile and pcln: from .debug_line of every compile unit (DWARF
 *    2-5).  A row holds from its address to the next row of its
 *    sequence (it may run on from one function into the next, as from
 *    "f.cold" into "g.cold"); of several rows at one address the last
 *    wins, but not a row at its own sequence's end; rows outside their
 *    unit's ranges are not used (as addr2line does not).  A row's DWARF
 *    discriminator goes to pcdata PCLN_PCDATA_DISCRIM (only in functions
 *    where one is nonzero).  Bytes no row covers get line 0
 *    ("unknown").  Relative paths are joined to the unit's
 *    DW_AT_comp_dir, as addr2line does.
 *  - pcsp: from the CFI (.eh_frame, else .debug_frame).  Where the CFA
 *    is sp + K, the value is K - ptrsize on x86 and x86-64 (the distance
 *    from sp to the return address, the runtime's PCLNRT_CONV_STACK
 *    convention) and K elsewhere (PCLNRT_CONV_LR); otherwise it is
 *    PCLN_DWARF_SP_UNKNOWN (-1).  On x86 and x86-64, where the CFA is
 *    the frame pointer + K (after alloca, a realigned stack), pcdata
 *    PCLN_PCDATA_CFA holds K, and where the caller's frame pointer is
 *    saved at CFA - M, pcdata PCLN_PCDATA_FPSAVE holds M (each only in
 *    functions where it is nonzero somewhere; FPSAVE in every object,
 *    since a walk through a whole process may reach a frame-pointer CFA
 *    of another object through this one's frames; doc/FORMAT.md); the
 *    traceback follows them with PCLNRT_TB_FP.  Where neither rule fits (or there
 *    is no CFI) a walk stops (PCLNRT_STOP_NO_SP) instead of guessing;
 *    such rows and their code bytes are counted in the statistics.
 *    Where the CFI leaves the return address undefined (_start, a
 *    thread's first frame after clone: the outermost frame), pcsp is
 *    PCLN_PCSP_OUTERMOST (-2) and a walk ends there
 *    (PCLNRT_STOP_OUTERMOST).
 *  - inline tree: every DW_TAG_inlined_subroutine under the function's
 *    subprogram (through lexical blocks) whose ranges meet the function's
 *    code becomes a record (pcln_builder_add_inline: name, DW_AT_call_file
 *    and DW_AT_call_line, parent; named by the origin's linkage name,
 *    else its DW_AT_name, qualified from its scopes in C++), and pcdata
 *    table PCLN_PCDATA_INLTREE
 *    maps each pc to the innermost one (-1: none).  The blob then needs
 *    the trailer (not --go12); PCLN_DWARF_NO_INLINE leaves it out.
 *
 * Damaged sections are warnings (pcln_dwarf_import_warn) or, with
 * PCLN_DWARF_STRICT, errors (doc/IMPORT.md).
 *
 * Memory: the builder returned in *OUT is the caller's.  Not
 * async-signal-safe (it allocates).
 */
#ifndef PCLN_DWARF_H
#define PCLN_DWARF_H

#include <stddef.h>
#include <stdint.h>

#include "pcln.h"
#include "pcln_find.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PCLN_DWARF_SP_UNKNOWN	(-1)
#define PCLN_DWARF_ZERO_MAX	0x10000u

/* Import flags. */
#define PCLN_DWARF_NO_INLINE	0x1	/* no inline tree */
#define PCLN_DWARF_STRICT	0x2	/* damaged input is an error */

/* At most this many warnings are passed to the callback; the statistics
 * count them all. */
#define PCLN_DWARF_MAX_WARN	20

/* What an import found. */
typedef struct pcln_dwarf_stats {
	pcln_target target;
	uint16_t machine;		/* e_machine */
	size_t nsyms;			/* function symbols considered */
	size_t naliases;		/* folded into another name */
	size_t nzero;			/* zero-sized symbols given a size */
	size_t ncut;			/* cut at the next symbol */
	size_t nfunc;			/* functions added */
	size_t nfde_funcs;		/* of which unnamed, from FDEs that
					 * no .dynsym symbol covers */
	size_t ndwarfnames;		/* named by DWARF, not the symbol */
	size_t nsymnames;		/* with a symbol-table name of their
					 * own (SYMNAME, doc/FORMAT.md) */
	size_t ncu;			/* compile units with a line table */
	size_t nlinerows;		/* line rows read */
	size_t nlinefuncs;		/* functions with a line table */
	size_t ncfirows;		/* CFI rows read */
	size_t ncfi_sp;			/* of which sp-based */
	size_t ncfi_fp;			/* frame-pointer-based (CFA rule) */
	size_t ncfi_outermost;		/* return address undefined: the
					 * outermost frame (pcsp -2) */
	size_t ncfi_other;		/* neither, or a frame-pointer save
					 * rule not representable */
	uint64_t bytes_other;		/* code bytes under those rows */
	size_t nnocfi;			/* functions with no CFI at all */
	size_t ninline;			/* inlined calls recorded */
	uint64_t text_bytes;		/* code bytes of all functions */
	/* Section sizes of the input, for comparisons (0 if absent). */
	uint64_t debug_line, debug_info, eh_frame, debug_frame;
	/* Added in 0.2: */
	size_t nwarnings;		/* damaged input, see the callback */
	size_t noutside;		/* function symbols whose code is not
					 * in the file (left out) */
	size_t ndiscr;			/* functions with discriminators */
	size_t nfolded;			/* functions also described by a
					 * unit whose copy was not kept */
	size_t nskeleton;		/* split-DWARF skeleton units */
	size_t nsplit;			/* of which their split unit was
					 * read (.dwo or .dwp) */
	size_t nlabels;			/* labels (STT_NOTYPE) made
					 * functions */
} pcln_dwarf_stats;

/* A warning: MSG names the file, the section and the byte offset of
 * damaged input and what was left out because of it. */
typedef void pcln_dwarf_warn_fn(void *arg, const char *msg);

/* Import the ELF file PATH (an executable or shared object) into a new
 * builder stored in *OUT, with FLAGS (PCLN_DWARF_*), reading the file's
 * own sections only.  The target is the file's pointer size and byte
 * order, quantum 1 on x86, 4 on arm64, 2 on riscv, else 1.  STATS, if
 * not NULL, is filled.  A file without DWARF still gives functions and
 * (from .eh_frame) pcsp.  The table records the file's build-id
 * (BUILDID).  Returns 0, or -1 with *OUT NULL and ERR filled (PCLN_EIO:
 * cannot open; PCLN_EHEADER: not ELF; PCLN_ENOTFOUND: no function
 * symbols). */
int pcln_dwarf_import(const char *path, unsigned flags,
    pcln_builder **out, pcln_dwarf_stats *stats, pcln_err *err);

/* pcln_dwarf_import, and each warning about damaged input (a section
 * libdw cannot read, a function whose code is not in the file) to
 * WARN(ARG, MSG) if WARN is not NULL (the first PCLN_DWARF_MAX_WARN of
 * them; STATS->nwarnings counts all).  With PCLN_DWARF_STRICT in FLAGS
 * the first one is an error instead (PCLN_EDAMAGED). */
int pcln_dwarf_import_warn(const char *path, unsigned flags,
    pcln_dwarf_warn_fn *warn, void *arg, pcln_builder **out,
    pcln_dwarf_stats *stats, pcln_err *err);

/* pcln_dwarf_import_warn with the debug information searched for as
 * OPTS says (pcln_find.h; NULL: the defaults): a separate debug file,
 * compressed sections, MiniDebugInfo's symbols, split units.  FOUND, if
 * not NULL, gets what the search found (its note says where it looked
 * when it found nothing). */
int pcln_dwarf_import_opts(const char *path, unsigned flags,
    const pcln_find_opts *opts, pcln_dwarf_warn_fn *warn, void *arg,
    pcln_builder **out, pcln_dwarf_stats *stats, pcln_find_result *found,
    pcln_err *err);

/* The same from a file already opened and searched (DI stays the
 * caller's). */
int pcln_dwarf_import_debuginfo(pcln_debuginfo *di, unsigned flags,
    pcln_dwarf_warn_fn *warn, void *arg, pcln_builder **out,
    pcln_dwarf_stats *stats, pcln_err *err);

#ifdef __cplusplus
}
#endif

#endif /* PCLN_DWARF_H */
