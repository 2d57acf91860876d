/* pcln_go.h -- import a Go pclntab, in any layout Go has used, into a
 * pcln builder.
 *
 * Go's linkers have written four layouts of the .gopclntab section (see
 * doc/FORMAT.md, "Reading Go's later layouts"):
 *
 *   magic       layout        written by     entries       Func record
 *   0xfffffffb  PCLN_GO_12    Go 1.2-1.15    uintptr       uintptr entry
 *                              (1.12-1.15: funcID and nfuncdata packed)
 *   0xfffffffa  PCLN_GO_116   Go 1.16-1.17   uintptr       uintptr entry
 *   0xfffffff0  PCLN_GO_118   Go 1.18-1.19   uint32 off    uint32 entryoff
 *   0xfffffff1  PCLN_GO_120   Go 1.20-       uint32 off    + startLine
 *
 * The importer reads functions (entry, name, args, the Func's third word
 * -- frame size up to Go 1.10, deferreturn later, carried verbatim), the
 * pcsp, pcfile and pcln tables, the pcdata tables 0 to 2 (Go's 3, the
 * garbage collector's ArgLiveIndex since Go 1.18, is left out: pcdata 3
 * and 4 of a pcln blob are the CFA rules a walk follows), and (Go 1.2 and 1.16
 * layouts, where they are pointers) the funcdata values, and adds them
 * to a new pcln_builder whose target is the table's own (pointer size,
 * quantum, byte order).  Function sizes come from where each function's
 * pcsp table ends (then pcln, pcfile, pcdata; the next entry if it has
 * none), so alignment padding between Go functions becomes a pcln gap.
 * Per-compilation-unit file numbers (Go 1.16 on) are mapped to one global
 * file table.  Pcfile rows whose file is unknown to Go (file -1, or a
 * cutab slot of ^0) are imported as value -1.
 *
 * Every read is bounds-checked against LEN; a corrupt table gives an
 * error naming the structure, its byte offset in DATA and what was
 * expected, never a read outside DATA.
 *
 * Memory: the builder returned in *OUT is the caller's (pcln_builder_free).
 * Not async-signal-safe (it allocates).
 */
#ifndef PCLN_GO_H
#define PCLN_GO_H

#include <stddef.h>
#include <stdint.h>

#include "pcln.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PCLN_GO_MAGIC_12	PCLN_GO12_MAGIC	/* the format header's */
#define PCLN_GO_MAGIC_116	0xfffffffau
#define PCLN_GO_MAGIC_118	0xfffffff0u
#define PCLN_GO_MAGIC_120	0xfffffff1u

/* Layouts, named for the first Go release that wrote each. */
enum pcln_go_layout {
	PCLN_GO_UNKNOWN = 0,
	PCLN_GO_12 = 12,
	PCLN_GO_116 = 116,
	PCLN_GO_118 = 118,
	PCLN_GO_120 = 120
};

/* What the importer found. */
typedef struct pcln_go_info {
	int layout;		/* enum pcln_go_layout */
	uint32_t magic;
	pcln_target target;	/* the table's own */
	int packed_nfuncdata;	/* Go 1.2 layout: the Func's last word packs
				 * funcID and an 8-bit nfuncdata (Go
				 * 1.12-1.15 wrote it so) */
	size_t nfunc;		/* functions imported */
	size_t nfile;		/* distinct file names imported */
	uint64_t text_start;	/* base of entry offsets (1.18+), else the
				 * first entry */
	uint64_t end_pc;	/* the functab's end pc */
} pcln_go_info;

/* The layout of DATA[0..LEN) from its 8-byte header: an enum
 * pcln_go_layout, or PCLN_GO_UNKNOWN (0) if it is not a Go pclntab (bad
 * magic, pads, quantum or pointer size).  Allocates nothing. */
int pcln_go_layout_of(const uint8_t *data, size_t len);

/* For a table with the Go 1.2 magic: 1 if its Func records pack funcID
 * and an 8-bit nfuncdata into their last word (as the Go 1.12-1.15
 * linkers write them; pcln's verifier refuses such a table), 0 if they
 * hold an int32 nfuncdata (Go 1.2-1.11, and pcln), -1 if DATA is not such
 * a table or its function table does not fit.  Reads one byte per
 * function (stopping at the first packed one); allocates nothing. */
int pcln_go_packed(const uint8_t *data, size_t len);

/* Import the Go pclntab DATA[0..LEN) into a new builder stored in *OUT.
 * TEXT_START is used for the 1.18+ layouts, whose entries are offsets:
 * the header's textStart word is used if it is nonzero (as Go's linker
 * writes it in a non-PIE binary), else TEXT_START (pass the address of
 * the .text section / runtime.text).  It is ignored for the older
 * layouts.  INFO, if not NULL, is filled.  Returns 0, or -1 with *OUT
 * NULL and ERR filled. */
int pcln_go_import(const uint8_t *data, size_t len, uint64_t text_start,
    pcln_builder **out, pcln_go_info *info, pcln_err *err);

/* The same for an ELF image ELF[0..LEN): find .gopclntab (in a PIE,
 * .data.rel.ro.gopclntab) and .text (whose address is the text start if
 * the header's is 0) and import the table. */
int pcln_go_import_elf(const uint8_t *elf, size_t len, pcln_builder **out,
    pcln_go_info *info, pcln_err *err);

/* Convenience: import DATA (a Go pclntab, or an ELF image if it starts
 * with the ELF magic) and write it as a pcln blob with write FLAGS
 * (PCLN_WRITE_GO12 for no trailer).  *BLOB is malloc'ed, the caller frees
 * it.  Returns 0 or -1. */
int pcln_go_convert(const uint8_t *data, size_t len, uint64_t text_start,
    unsigned flags, uint8_t **blob, size_t *bloblen, pcln_go_info *info,
    pcln_err *err);

#ifdef __cplusplus
}
#endif

#endif /* PCLN_GO_H */
