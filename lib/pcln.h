/* pcln.h -- libpcln: build, read, verify and iterate pcln blobs.
 *
 * A pcln blob is a Go 1.2 pclntab (magic 0xfffffffb) optionally followed by
 * a pcln trailer; doc/FORMAT.md is its specification and
 * runtime/pclnrt_format.h its one C definition.
 *
 * Memory: the builder and the table handle allocate with malloc and are
 * freed by their _free/_close function.  pcln_open does not copy the blob:
 * the caller's buffer must outlive the table.  Strings returned by the
 * reader point into the blob.  Nothing in libpcln is async-signal-safe;
 * use the runtime (pclnrt.h) in a signal handler.  Handles are not shared
 * between threads without the caller's locking; distinct handles are
 * independent.
 *
 * Errors: functions return -1 (or NULL) and fill an optional pcln_err.
 * Nothing in the library aborts or prints.
 */
#ifndef PCLN_H
#define PCLN_H

#include <stddef.h>
#include <stdint.h>

#include "pclnrt_format.h"	/* the layout: PCLN_TAB_*, PCLN_SECT_* */

#ifdef __cplusplus
extern "C" {
#endif

#define PCLN_VERSION_STRING "0.1.0"

/* --- errors --------------------------------------------------------- */

/* X(code, short message).  One list makes both the enum and the text. */
#define PCLN_ERROR_LIST(X) \
	X(PCLN_OK,		"no error") \
	X(PCLN_ENOMEM,		"out of memory") \
	X(PCLN_EINVAL,		"invalid argument") \
	X(PCLN_EIO,		"input/output error") \
	X(PCLN_ESYNTAX,		"syntax error") \
	X(PCLN_ERANGE,		"value out of range") \
	X(PCLN_EORDER,		"not in increasing order") \
	X(PCLN_EOVERLAP,	"functions overlap") \
	X(PCLN_EDUP,		"duplicate definition") \
	X(PCLN_ECONFLICT,	"conflicting target properties") \
	X(PCLN_EUNDEF,		"undefined symbol") \
	X(PCLN_ETRUNC,		"truncated") \
	X(PCLN_EMAGIC,		"bad magic") \
	X(PCLN_EHEADER,		"bad header") \
	X(PCLN_EFUNCTAB,	"bad function table") \
	X(PCLN_EFUNC,		"bad Func record") \
	X(PCLN_ESTRING,		"bad string") \
	X(PCLN_EPCTAB,		"bad pc-value table") \
	X(PCLN_EFILETAB,	"bad file table") \
	X(PCLN_ETRAILER,	"bad trailer") \
	X(PCLN_ECHECKSUM,	"checksum mismatch") \
	X(PCLN_EVARINT,		"bad varint") \
	X(PCLN_ENOTFOUND,	"not found") \
	X(PCLN_EMATH,		"internal layout error") \
	X(PCLN_EUNSUPPORTED,	"unsupported") \
	X(PCLN_EDAMAGED,	"damaged input section") \
	X(PCLN_EBUILDID,	"build-id mismatch")

#define PCLN_ERROR_ENUM_(code, msg) code,
enum pcln_errcode { PCLN_ERROR_LIST(PCLN_ERROR_ENUM_) PCLN_NERRORS };
#undef PCLN_ERROR_ENUM_

/* An error report.  MSG is a complete sentence-fragment naming what went
 * wrong, where (file:line, or table and byte offset) and what was expected,
 * e.g. "Func record of function 3 (main.f) at offset 0x120: pcsp offset
 * 0x9000 beyond blob end 0x800".  OFFSET is the blob byte offset (or
 * input line number) the error is about, or -1. */
typedef struct pcln_err {
	int code;		/* enum pcln_errcode */
	int64_t offset;
	char msg[512];
} pcln_err;

/* The short message for CODE; never NULL. */
const char *pcln_strerror(int code);

/* --- memory in huge pages -------------------------------------------- */

/* A region of at least N bytes, zeroed: from 2 MiB on, mapped on its
 * own, aligned to 2 MiB and asked for in transparent huge pages (where
 * the kernel has none to give, small pages, as malloc's); below,
 * calloc's (glibc maps a block of 128 KiB or more on its own, in small
 * pages each made where it is first written; a program that keeps
 * malloc's heap in huge pages, as pclndump perf does, has it there).
 * For a buffer written all
 * over soon after it is made, such as a walk's pclnrt_stepcache entries
 * (the runtime allocates nothing: its caller gives them), a profile
 * reader's chunks or an output buffer.  A huge page costs one page fault
 * for 2 MiB, and its first touch zeroes all of it: cheaper than small
 * pages where a fault is dear (11 us on the guest of
 * doc/PERFORMANCE.md's 2026-12-05 figures), dearer than the few
 * hundred small pages a smaller buffer touches where faults are cheap
 * (1.3 us against 0.3 ms a huge page on 2026-12-06's).  Returns the
 * region and its length in *LEN (for pcln_huge_free), or NULL (no
 * memory, or N is 0). */
void *pcln_huge_alloc(size_t n, size_t *len);
/* Give back the region P (LEN bytes, as pcln_huge_alloc said): unmap
 * it, or free it where it was calloc's; P NULL: nothing. */
void pcln_huge_free(void *p, size_t len);

/* --- varint / zig-zag encoding (decoding lives in the runtime) -------- */

/* Write V as a uvarint to BUF (at least 5 bytes); return bytes written. */
size_t pcln_put_uvarint(uint8_t *buf, uint32_t v);
/* The zig-zag form of V. */
uint32_t pcln_zigzag(int32_t v);
/* Decode a uvarint from BUF[0..LEN); store it in *V and return bytes used,
 * or -1 (truncated) / -2 (overflow).  A wrapper over the runtime's reader. */
int pcln_get_uvarint(const uint8_t *buf, size_t len, uint32_t *v);

/* --- target ----------------------------------------------------------- */

typedef struct pcln_target {
	unsigned ptrsize;	/* 4 or 8 */
	unsigned quantum;	/* 1, 2 or 4 */
	int bigendian;		/* 0 or 1 */
} pcln_target;

/* --- builder ---------------------------------------------------------- */

typedef struct pcln_builder pcln_builder;

/* Table numbers are the format header's: PCLN_TAB_PCSP (0),
 * PCLN_TAB_PCFILE (1), PCLN_TAB_PCLN (2), PCLN_TAB_PCDATA(i) (3 + i).
 * PCLN_TABLE_* are their earlier names, kept for the API. */
#define PCLN_TABLE_PCSP		PCLN_TAB_PCSP
#define PCLN_TABLE_PCFILE	PCLN_TAB_PCFILE
#define PCLN_TABLE_PCLN		PCLN_TAB_PCLN
#define PCLN_TABLE_PCDATA(i)	PCLN_TAB_PCDATA(i)
#define PCLN_MAX_PCDATA		1024
#define PCLN_MAX_FUNCDATA	1024

/* Write flags. */
#define PCLN_WRITE_GO12		0x1	/* plain Go 1.2: no trailer */
#define PCLN_WRITE_INDEX	0x2	/* FUNCINDEX section at any nfunc */
#define PCLN_WRITE_NOINDEX	0x4	/* no FUNCINDEX section */
#define PCLN_WRITE_INLTREE	0x8	/* inlined calls in the 16-byte
					 * INLTREE section, as before
					 * INLPACK (doc/FORMAT.md) */
/* Without either flag the trailer gets a FUNCINDEX section (constant-time
 * pclnrt_findfunc / pcln_find_func) when the blob has at least this many
 * functions (below it a binary search is at most 8 steps anyway).  The
 * builder picks the coarsest sub-buckets whose scans are at most 8
 * steps within 1/64 of the rest of the blob (else the shortest scans in
 * that budget; PCLN_WRITE_INDEX allows twice the rest + 4096 bytes,
 * for texts of very uneven density); the index is omitted if no
 * sub-bucket size in the budget gives scans of at most 32 steps
 * (PCLN_FIDX_SCAN_LIMIT). */
#define PCLN_INDEX_MIN_FUNCS	256

/* pc-value checkpoints (doc/FORMAT.md, PCCKPT): with a stride of K, every
 * table with more than K rows gets one checkpoint per K rows, so that a
 * lookup (pclnrt_pcvalue, pcln_pcvalue) decodes at most K rows after a
 * binary search among them.  Written in the trailer (not with
 * PCLN_WRITE_GO12) when at least one table is that long.  The default
 * stride; doc/PERFORMANCE.md has the measurements behind it. */
#define PCLN_CKPT_DEFAULT	16u

/* A new, empty builder for target T.  Returns NULL (and fills ERR) on an
 * invalid target or no memory. */
pcln_builder *pcln_builder_new(const pcln_target *t, pcln_err *err);
void pcln_builder_free(pcln_builder *b);

/* Add a function; return its handle (>= 0, in order of addition) or -1.
 * ENTRY is its link-time address, SIZE its code size in bytes (> 0, a
 * multiple of the quantum, as ENTRY must be too; at most 0xffffffff, the
 * FUNCSIZE limit).  ENTRY + SIZE must fit in a target pointer, as it may
 * become the sentinel end pc (PCLN_ERANGE otherwise).  The name is copied;
 * equal names are stored once. */
long pcln_builder_add_func(pcln_builder *b, const char *name, uint64_t entry,
    uint64_t size, int32_t args, int32_t frame, pcln_err *err);

/* Number a file path (copied); the same path gives the same number.
 * Returns the file number (>= 1) or -1. */
long pcln_builder_add_file(pcln_builder *b, const char *path, pcln_err *err);

/* Add a point to table TABLE of function F: from PCOFF (bytes from the
 * function's entry, < size, a multiple of the quantum) on the value is
 * VALUE, until the next point or the function's end.  Points must be added
 * in strictly increasing PCOFF order (PCLN_EORDER).  A table whose first
 * point is not at 0 holds -1 before it.  Consecutive equal values are
 * merged.  For pcfile, VALUE is a file number already returned by
 * pcln_builder_add_file and the first point must be at PCOFF 0 (a pcfile
 * value is never -1).  Points are stored compactly (8 bytes each). */
int pcln_builder_add_point(pcln_builder *b, long f, int table,
    uint64_t pcoff, int32_t value, pcln_err *err);

/* Set table TABLE of function F from already-encoded bytes (Go 1.2
 * encoding, including the terminating 0), replacing any points.  The
 * bytes are validated (decode, termination exactly at BYTES + LEN,
 * coverage of exactly [0, size), pcfile values) and decoded into points,
 * then re-encoded canonically at write time; rows of zero length are
 * dropped.  LEN 0 makes the table absent. */
int pcln_builder_set_table_bytes(pcln_builder *b, long f, int table,
    const uint8_t *bytes, size_t len, pcln_err *err);

/* Add an inlined call to function F's inline tree (doc/FORMAT.md,
 * INLTREE; written as INLPACK unless PCLN_WRITE_INLTREE): function NAME (copied) was inlined there, called from FILE
 * (a number from pcln_builder_add_file) line LINE, inside the inlined
 * call PARENT (an index this function returned earlier for F) or -1 (in
 * F itself).  Returns the call's index in F's tree (0, 1, ... in order
 * of addition) or -1.  Pcdata table PCLN_PCDATA_INLTREE of F maps each
 * pc to the index of its innermost inlined call, or -1.  The tree is
 * written in the trailer, so not with PCLN_WRITE_GO12. */
long pcln_builder_add_inline(pcln_builder *b, long f, long parent,
    const char *name, long file, int32_t line, pcln_err *err);

/* Record build-id ID[0..LEN) (an object's NT_GNU_BUILD_ID descriptor,
 * 1 to PCLN_BUILDID_MAX bytes; LEN 0: none, the default) in the BUILDID
 * trailer section of later writes (not with PCLN_WRITE_GO12): the
 * identity of the object the table describes, which readers compare
 * before they trust the table for an object (pcln_check_build_id,
 * pclnrt_check_build_id).  The bytes are copied. */
int pcln_builder_set_build_id(pcln_builder *b, const uint8_t *id,
    size_t len, pcln_err *err);

/* Record NAME (copied) as the name function F's object's symbol table
 * gives it, in the SYMNAME trailer section of later writes (not with
 * PCLN_WRITE_GO12; doc/FORMAT.md): of the symbols at its entry, the one
 * perf names it by, where that is not F's own name (the one
 * pcln_builder_add_func was given, what addr2line says).  NAME NULL or
 * F's own name: none (the default). */
int pcln_builder_set_symname(pcln_builder *b, long f, const char *name,
    pcln_err *err);

/* Set the checkpoint stride (rows per checkpoint, 1 ..
 * PCLN_CKPT_STRIDE_MAX; 0: write no checkpoints) for later writes.  The
 * default is PCLN_CKPT_DEFAULT. */
int pcln_builder_set_checkpoints(pcln_builder *b, unsigned stride,
    pcln_err *err);

/* Set funcdata slot IDX (< PCLN_MAX_FUNCDATA) of function F to VALUE
 * (0 = nil; must fit a target pointer).  The function's nfuncdata is the
 * highest slot set + 1; unset slots below it are nil. */
int pcln_builder_set_funcdata(pcln_builder *b, long f, unsigned idx,
    uint64_t value, pcln_err *err);

/* Statistics of the last pcln_builder_write. */
typedef struct pcln_build_stats {
	size_t nfunc, nfile;
	size_t ntables, ntables_unique;	/* pc-value tables before/after dedupe */
	size_t nnames, nnames_unique;
	size_t dedupe_saved;		/* bytes saved by deduplication */
	size_t rows;			/* rows encoded (after dedupe) */
	/* bytes per part; they add up to total.  names holds function
	 * names and file paths; header is magic..nfunc, functab the pairs,
	 * sentinel and file table offset; funcs the Func records without
	 * their alignment padding; trailer its sections, directory and
	 * footer.  A table shared by dedupe counts once, in the part of
	 * the first function (in entry order) that uses it. */
	size_t header, functab, funcs, names, filetab, pcsp, pcfile, pcln,
	    pcdata, padding, trailer, total;
	size_t findex;			/* FUNCINDEX bytes (part of trailer) */
	size_t ckpt;			/* PCCKPT bytes (part of trailer) */
	size_t nckpt;			/* checkpoints written */
	size_t nckdesc;			/* (function, table) descriptors */
} pcln_build_stats;

/* Per-function placement, for link maps. */
typedef struct pcln_func_layout {
	uint64_t entry, size;
	uint32_t funcoff;
	uint32_t tab_off[3];		/* pcsp, pcfile, pcln offsets (0 none) */
	uint32_t tab_len[3];
} pcln_func_layout;

/* Lay out and encode the blob.  On success store a malloc'ed buffer in
 * *OUT (the caller frees it) and its length in *LEN and return 0.
 * Functions are sorted by entry; overlapping functions are an error
 * (PCLN_EOVERLAP, naming both).  The output is deterministic: the same
 * calls give the same bytes.  The writer checks its own arithmetic and
 * fails with PCLN_EMATH rather than write a wrong blob (it also runs
 * pcln_verify on the result).  Every offset must fit an int32: a blob
 * over 2 GiB fails with PCLN_ERANGE.  Names, file paths and pc-value
 * tables are deduplicated (tables by content, hashed with XXH64).
 * With PCLN_WRITE_GO12 there is no FUNCSIZE: a function with no table at
 * all then reads back as extending to the next entry.  The builder may be
 * written again, and added to, after a write. */
int pcln_builder_write(pcln_builder *b, unsigned flags, uint8_t **out,
    size_t *len, pcln_err *err);

/* After a successful write: statistics (all zero before the first), and
 * the layout of function handle F (NULL if out of range or before the
 * first write).  Both stay valid until the next write or the free. */
const pcln_build_stats *pcln_builder_stats(const pcln_builder *b);
const pcln_func_layout *pcln_builder_layout(const pcln_builder *b, long f);

/* --- verifier --------------------------------------------------------- */

/* Check an untrusted blob completely: header, sorted function table,
 * sentinel, every offset in range and aligned, every string terminated,
 * every table terminating inside the blob and covering exactly its
 * function, file numbers in range, trailer and checksum.  Return 0, or -1
 * with the first fault (its byte offset and what was expected) in ERR.
 * A function's size is FUNCSIZE, or without a trailer where its first
 * present table ends, in the order pcsp, pcln, pcfile, pcdata[0..] (the
 * next entry if it has none); the last function ends exactly at the
 * sentinel end pc.  Nothing may follow the last byte the Go 1.2
 * part uses except a whole trailer, so a truncated or damaged trailer is
 * an error (PCLN_ETRAILER) rather than ignored.  Structural faults are
 * reported before a checksum mismatch.  Linear in the blob's size. */
int pcln_verify(const uint8_t *blob, size_t len, pcln_err *err);

/* Check function I of an untrusted blob as pcln_verify would (its
 * function-table entry and the next one, Func record, name, every table,
 * the names of the files its pcfile table and inline records use, its
 * inline records and inline indexes, its checkpoints), after O(1) checks
 * of the header, trailer and file table header.  For readers that open a
 * blob trusted and check each function before first use: the cost is
 * that function's data, not the blob's.  The checksum, the other
 * functions and the FUNCINDEX section (which readers cross-check anyway)
 * are not checked.  Return 0, or -1 with the first fault in ERR
 * (PCLN_EINVAL if I is not a function). */
int pcln_verify_func(const uint8_t *blob, size_t len, size_t i,
    pcln_err *err);

/* --- reader ----------------------------------------------------------- */

typedef struct pcln_table pcln_table;

#define PCLN_OPEN_TRUSTED	0x1	/* skip pcln_verify: caller checked */

/* Open BLOB[0..LEN) without copying it (it must outlive the table).
 * Verifies it first unless PCLN_OPEN_TRUSTED.  A trusted blob still gets
 * O(1) header checks; if it is in fact corrupt, answers may be wrong but
 * no read leaves BLOB[0..LEN) and every call ends.  Without FUNCSIZE, a
 * function's end costs one decode of its first table. */
pcln_table *pcln_open(const uint8_t *blob, size_t len, unsigned flags,
    pcln_err *err);
void pcln_close(pcln_table *t);

typedef struct pcln_info {
	pcln_target target;
	size_t nfunc;
	size_t nfile;
	uint64_t text_start, text_end;	/* first entry, sentinel end pc */
	size_t go12size;		/* bytes of the Go 1.2 part */
	int has_trailer;
	uint32_t trailer_version;
	uint64_t checksum;		/* valid if has_trailer */
	uint32_t filetab_off;
} pcln_info;

void pcln_get_info(const pcln_table *t, pcln_info *info);

/* The trailer's directory: the number of entries (0 without a trailer),
 * and entry I's TAG, OFFSET and SIZE (doc/FORMAT.md section 8; tags a
 * reader does not know are listed too).  pcln_get_section returns 0, or
 * -1 if I is out of range. */
size_t pcln_nsections(const pcln_table *t);
int pcln_get_section(const pcln_table *t, size_t i, uint32_t *tag,
    uint32_t *off, uint32_t *size);

/* The build-id the table records (its BUILDID section, doc/FORMAT.md):
 * 1 with *ID (into the blob) and *LEN, 0 if it has none (or the section
 * is not 1 to PCLN_BUILDID_MAX bytes). */
int pcln_get_build_id(const pcln_table *t, const uint8_t **id, size_t *len);
/* Lowercase hex of ID[0..LEN) into BUF (2 * LEN + 1 bytes); BUF. */
char *pcln_build_id_hex(const uint8_t *id, size_t len, char *buf);
/* Is T the table for the object with build-id ID[0..LEN) (its
 * NT_GNU_BUILD_ID note)?  0 if the table records that build-id; else -1
 * with ERR (PCLN_EBUILDID) giving both in hex ("table is for build-id
 * X; the object's is Y"), or saying which side has none. */
int pcln_check_build_id(const pcln_table *t, const uint8_t *id, size_t len,
    pcln_err *err);

typedef struct pcln_func {
	size_t index;
	uint64_t entry;
	uint64_t end;		/* entry + size: code end (gap excluded) */
	uint64_t next;		/* next function's entry, or the end pc */
	const char *name;
	int32_t args, frame;
	uint32_t funcoff;
	uint32_t tab_off[3];	/* pcsp, pcfile, pcln */
	uint32_t npcdata, nfuncdata;
} pcln_func;

size_t pcln_nfunc(const pcln_table *t);
/* Function I (0 <= I < nfunc).  Returns 0 or -1. */
int pcln_get_func(const pcln_table *t, size_t i, pcln_func *f);
/* Index of the function whose code [entry, end) holds PC; -1 if PC is
 * outside every function (before the first, in a gap, at/after end).
 * O(1) through the FUNCINDEX section if the blob has one, else a binary
 * search. */
long pcln_find_func(const pcln_table *t, uint64_t pc);
/* Offset of table TABLE of function I (0 for none or out of range). */
uint32_t pcln_table_offset(const pcln_table *t, size_t i, int table);
/* Funcdata slot IDX of function I, 0 if nil or out of range. */
uint64_t pcln_funcdata(const pcln_table *t, size_t i, unsigned idx);

size_t pcln_nfile(const pcln_table *t);
/* Name of file number N (1 <= N <= nfile), or NULL. */
const char *pcln_file_name(const pcln_table *t, uint32_t n);

/* A row of a decoded table: VALUE holds for [START, END). */
typedef struct pcln_row {
	uint64_t start, end;
	int32_t value;
} pcln_row;

/* Iterate the rows of table TABLE of function I.  Decodes incrementally:
 * a full pass costs one decode of the table. */
typedef struct pcln_rowiter {
	const pcln_table *t;
	uint64_t limit;		/* function end */
	const uint8_t *p, *end;	/* decoder state (opaque) */
	uint64_t pc;
	int32_t value;
	int first, done;
} pcln_rowiter;

/* Start iterating; returns 0, or -1 if the function or table does not
 * exist (an absent table iterates as empty, returning 0). */
int pcln_rows_begin(pcln_rowiter *it, const pcln_table *t, size_t i,
    int table);
/* Next row: 1 and *ROW filled, 0 at the end, -1 on a corrupt table. */
int pcln_rows_next(pcln_rowiter *it, pcln_row *row);
/* The next rows, up to MAX of them, into ROWS: the number stored, 0 at
 * the end, or -1 on a corrupt table (the rows before the fault come
 * first, from the calls before; as read(2) does).  The same rows as
 * pcln_rows_next, faster for whole tables: the decoder's state stays in
 * registers for the whole batch.  An iterator may mix both calls. */
long pcln_rows_fill(pcln_rowiter *it, pcln_row *rows, size_t max);

/* Value of table TABLE of function I at PC; 0 and *VALUE, or -1 if PC is
 * not covered or the table is absent.  ROW, if not NULL, gets the range. */
int pcln_pcvalue(const pcln_table *t, size_t i, int table, uint64_t pc,
    int32_t *value, pcln_row *row);

/* Everything about PC in one call. */
typedef struct pcln_loc {
	long func;		/* index, -1 if PC is in no function */
	const char *name;
	uint64_t entry;
	const char *file;	/* NULL if unknown */
	int32_t line;		/* 0 if unknown */
	int32_t spdelta;	/* pcsp value at PC, if has_sp */
	int has_sp;
} pcln_loc;

/* Returns 0, or -1 (LOC->func -1) if PC is in no function. */
int pcln_lookup(const pcln_table *t, uint64_t pc, pcln_loc *loc);

/* Reverse lookup: call CB for every pc range that maps to FILE:LINE (FILE
 * matched exactly, or as a path suffix after a '/'), in function order;
 * adjacent ranges of one function are merged into one.  CB may be NULL to
 * only count; CB returns nonzero to stop.  A LINE below 1 ("no line")
 * matches nothing.  Costs one pass over each function's pcfile and pcln
 * tables, walked in step.  Returns the number of ranges reported
 * (including the one CB stopped at), or -1 (FILE NULL or no memory). */
typedef int (*pcln_range_cb)(void *arg, size_t func, uint64_t start,
    uint64_t end);
long pcln_line_to_pcs(const pcln_table *t, const char *file, int32_t line,
    pcln_range_cb cb, void *arg);

/* pcln_line_to_pcs for a blob opened PCLN_OPEN_TRUSTED and checked one
 * function at a time: CHECK(ARG, I) is called before function I's
 * pcfile and pcln tables are read (for each function that has both, in
 * order), and a nonzero return leaves the function out.  A reader that
 * checks with pcln_verify_func there answers exactly as over a verified
 * blob, from one pass over the tables, without verifying the whole blob
 * first.  CHECK may be NULL (pcln_line_to_pcs). */
typedef int (*pcln_func_check_cb)(void *arg, size_t func);
long pcln_line_to_pcs_checked(const pcln_table *t, const char *file,
    int32_t line, pcln_func_check_cb check, pcln_range_cb cb, void *arg);

#ifdef __cplusplus
}
#endif

#endif /* PCLN_H */
