/* pclnrt.h -- the pcln runtime: find a pc's function, file, line,
 * stack-pointer delta and pcdata in a pcln blob, and walk a stack.
 *
 * Safety, for every function declared here:
 *  - it allocates nothing, takes no lock, calls no libc function and
 *    writes no global (the runtime has no writable global at all; the
 *    only state is in storage the caller passes);
 *  - it is reentrant and async-signal-safe: call it from a signal handler,
 *    a profiler tick or a crashing thread;
 *  - it is bounded on any input: on a corrupt blob that was never verified
 *    every loop ends (a pc-value walk within one step per blob byte, a
 *    search within log2(nfunc) steps, a traceback within MAX frames) and
 *    no read leaves [BLOB, BLOB + LEN).  A corrupt blob gives wrong or
 *    missing answers, never a fault.  pclnrt_init refuses a blob whose
 *    header cannot be right; full verification is pcln_verify (libpcln).
 *
 * Freestanding C11: this header needs only <stdint.h>, <stddef.h> and
 * <stdatomic.h> (it uses _Atomic, so it is C, not C++); the runtime
 * objects reference no external symbol and define only pclnrt_ symbols
 * (tests/runtime-nolibc.sh proves it, with gcc and clang).  The layout is
 * in pclnrt_format.h.
 *
 * Addresses: a blob holds link-time pcs.  A module (below) adds a load
 * BIAS (run-time address minus link-time address, modulo 2^64).  The
 * single-table functions take and return link-time pcs.
 *
 * Status codes: functions that can fail return PCLNRT_OK (0), or
 * PCLNRT_NOTFOUND (-1: no such function, table, row or entry) or
 * PCLNRT_CORRUPT (-2: the blob is damaged where the answer lies).
 */
#ifndef PCLNRT_H
#define PCLNRT_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "pclnrt_format.h"	/* PCLN_TAB_* table numbers, the layout */

#ifdef __cplusplus
extern "C" {
#endif

#define PCLNRT_OK		0
#define PCLNRT_NOTFOUND		(-1)
#define PCLNRT_CORRUPT		(-2)

/* Reasons pclnrt_init refuses a blob: X(code, value, message). */
#define PCLNRT_INIT_ERROR_LIST(X) \
	X(PCLNRT_EINIT_OK,	0,  "no error") \
	X(PCLNRT_EINIT_SHORT,	-10, "blob shorter than its header") \
	X(PCLNRT_EINIT_MAGIC,	-11, "bad magic") \
	X(PCLNRT_EINIT_HEADER,	-12, "bad header (padding, quantum or pointer size)") \
	X(PCLNRT_EINIT_FUNCTAB,	-13, "function table does not fit in the blob") \
	X(PCLNRT_EINIT_SENTINEL, -14, "end pc not above the last entry") \
	X(PCLNRT_EINIT_FILETAB,	-15, "file table out of range") \
	X(PCLNRT_EINIT_TRAILER,	-16, "bad trailer or FUNCSIZE section")

#define PCLNRT_EINIT_ENUM_(code, val, msg) code = val,
enum pclnrt_init_error { PCLNRT_INIT_ERROR_LIST(PCLNRT_EINIT_ENUM_) };
#undef PCLNRT_EINIT_ENUM_

/* --- one blob ---------------------------------------------------------- */

/* A blob opened for lookups.  The caller owns the storage.  Set by
 * pclnrt_init and never written afterwards; callers may read nfunc,
 * minpc, maxpc, ptrsize, quantum and big, the rest is private. */
typedef struct pclnrt_table {
	const uint8_t *blob;
	size_t len;
	const uint8_t *funcsize;	/* FUNCSIZE section, or NULL */
	uint64_t nfunc;
	uint64_t minpc, maxpc;		/* first entry, end pc (sentinel) */
	uint32_t filetab;		/* offset of the file table */
	uint32_t nslots;		/* file table slots (nfile + 1) */
	uint8_t ptrsize, quantum, big;
	const uint8_t *findex;		/* FUNCINDEX section, or NULL if
					 * absent or its header is bad */
	uint64_t findexlen;
	const uint8_t *inltree;		/* INLTREE section, or NULL */
	uint64_t inltreelen;
	const uint8_t *ckpt;		/* PCCKPT section, or NULL if absent
					 * or its header is bad */
	uint64_t ckptlen;
	uint64_t lastnul;		/* offset of the blob's last 0 byte
					 * + 1; 0 if it has none */
} pclnrt_table;

/* Open BLOB[0..LEN) in *T without copying it: BLOB must stay valid and
 * unchanged while T is used.  Checks, in O(1): magic (either byte order),
 * header bytes, that the function table, sentinel and file-table header
 * fit in LEN, that the end pc is above the last entry, that the file
 * table (offset 0: no files) fits, and, if the blob ends in a trailer of
 * version PCLN_TRAILER_VERSION, its footer, directory and FUNCSIZE
 * section (a trailer of another version is ignored; the checksum is
 * pcln_verify's; a FUNCINDEX section whose header does not fit the text
 * is ignored).  On failure T finds nothing.  Returns
 * PCLNRT_EINIT_OK (0) or a negative enum pclnrt_init_error. */
int pclnrt_init(pclnrt_table *t, const void *blob, size_t len);

/* The message for an enum pclnrt_init_error CODE; never NULL. */
const char *pclnrt_init_strerror(int code);

/* Check the trailer checksum of BLOB[0..LEN): if the blob ends in a
 * trailer footer (last 8 bytes "PCLNTRLR"), compare the XXH64 (seed 0) of
 * BLOB[0..LEN-16) with the footer's big-endian checksum.  Call it before
 * pclnrt_init or pclnrt_module_init to refuse a damaged blob at
 * registration.  One pass over the blob; allocates nothing, takes no
 * lock, safe in a signal handler.  Returns PCLNRT_OK if it matches,
 * PCLNRT_CORRUPT if not, PCLNRT_NOTFOUND if there is no trailer (a plain
 * Go 1.2 blob has no checksum) or BLOB is NULL. */
int pclnrt_verify_checksum(const void *blob, size_t len);

/* XXH64 of BUF[0..LEN) with SEED (BUF may be NULL when LEN is 0), as the
 * xxHash specification defines it; the runtime's own, freestanding. */
uint64_t pclnrt_xxh64(const void *buf, size_t len, uint64_t seed);

/* A function found by pclnrt_findfunc.  Public fields are link-time. */
typedef struct pclnrt_func {
	const char *name;	/* NUL-terminated, in the blob; NULL if bad */
	uint64_t entry;		/* first pc */
	uint64_t end;		/* entry + size: first pc past the code */
	int32_t args, frame;
	uint32_t index;		/* position in the function table */
	/* private */
	const pclnrt_table *t;
	uint32_t funcoff, npcdata, nfuncdata;
} pclnrt_func;

/* Find the function of T whose code [entry, end) holds link-time PC:
 * through the trailer's FUNCINDEX section in constant time (one bucket
 * record, at most maxscan <= 32 forward steps: doc/FORMAT.md section 8),
 * else by binary search over the function table (the sentinel gives the
 * end).
 * A pc before the first function, at or after the end pc, or in a gap
 * [entry + size, next entry) belongs to no function.  The size comes from
 * the trailer's FUNCSIZE section, else from where the pcsp table (else
 * pcln, else pcfile, else the first present pcdata table) ends, else the
 * next entry (doc/FORMAT.md section 7).  Costs O(1) with the index,
 * O(log nfunc) without, plus one
 * pass over that table for blobs without a trailer.  Fills *F and returns
 * PCLNRT_OK; else PCLNRT_NOTFOUND, or PCLNRT_CORRUPT if the function's
 * record is damaged. */
int pclnrt_findfunc(const pclnrt_table *t, uint64_t pc, pclnrt_func *f);

/* Table numbers (pclnrt_format.h): PCLN_TAB_PCSP, PCLN_TAB_PCFILE,
 * PCLN_TAB_PCLN, PCLN_TAB_PCDATA(i). */

/* The value of table TABLE of function F at link-time PC.  On PCLNRT_OK
 * stores it in *VALUE and, if START and END are not NULL, the pc range
 * [*START, *END) over which it holds (one row of the table, clipped to
 * the function).  PCLNRT_NOTFOUND if the table is absent or PC is outside
 * [F->entry, F->end) or not covered; PCLNRT_CORRUPT if the table does not
 * decode.  Costs one pass over the table up to PC. */
int pclnrt_pcvalue(const pclnrt_func *f, int table, uint64_t pc,
    int32_t *value, uint64_t *start, uint64_t *end);

/* Stack-pointer delta at PC (bytes the function has pushed/allocated
 * since entry), in *SPDELTA.  Returns a status. */
int pclnrt_pcsp(const pclnrt_func *f, uint64_t pc, int32_t *spdelta);

/* File number (1..nfile) at PC, in *FILENO.  Returns a status. */
int pclnrt_pcfile(const pclnrt_func *f, uint64_t pc, int32_t *fileno);

/* Value of pcdata table INDEX at PC, in *VALUE.  Returns a status. */
int pclnrt_pcdata(const pclnrt_func *f, uint32_t index, uint64_t pc,
    int32_t *value);

/* Funcdata slot INDEX of F (0 = nil), in *VALUE.  PCLNRT_NOTFOUND if
 * INDEX >= the function's nfuncdata. */
int pclnrt_funcdata(const pclnrt_func *f, uint32_t index, uint64_t *value);

/* Name of file number FILENO (1..nfile) of T, in the blob; NULL if out
 * of range or damaged. */
const char *pclnrt_filename(const pclnrt_table *t, int32_t fileno);

/* File and line at PC: *PATH (NULL if unknown) and *LINE (0 if unknown).
 * Returns PCLNRT_OK if both are known, else the failing status. */
int pclnrt_funcline(const pclnrt_func *f, uint64_t pc, const char **path,
    int32_t *line);

/* --- a pc-value cache ------------------------------------------------- */

/* Deep stacks, repeated tracebacks and profilers look up the same rows
 * again and again (a recursive function, a hot loop).  A cache in the
 * caller's storage remembers the last PCLNRT_PCCACHE_SIZE rows found,
 * keyed by the table handle, the function and the table number, each
 * with the full-width pc range it answers for, so any pc of a cached
 * row hits.  Nothing is allocated and nothing locked: a cache belongs
 * to one thread (or one walk) at a time.  Re-initialise it when a
 * pclnrt_table it has seen is initialised again or goes away, or its
 * blob is unmapped or changed (the key is the handle's address).
 * Replacement is round robin.  The range is the row's, narrowed where a
 * damaged blob would make the uncached lookup answer differently inside
 * it (an unsorted checkpoint array, rows wrapping past 2^64), so the
 * cache changes only the cost, never an answer, on any blob. */
#define PCLNRT_PCCACHE_SIZE	16

typedef struct pclnrt_pccache {
	struct pclnrt_pccache_ent {
		const pclnrt_table *t;	/* NULL: empty */
		uint64_t key;		/* function index << 32 | table */
		uint64_t start, end;	/* link-time pcs [start, end) */
		int32_t value;
	} ent[PCLNRT_PCCACHE_SIZE];
	uint32_t next;			/* the next slot to replace */
	uint64_t hits, misses;		/* statistics, for tuning: misses
				 * count lookups that decoded */
} pclnrt_pccache;

/* Empty C. */
void pclnrt_pccache_init(pclnrt_pccache *c);

/* pclnrt_pcvalue through the cache C (NULL: no cache) for F, which
 * pclnrt_findfunc (or pclnrt_registry_findfunc) filled: exactly the same
 * answer in *VALUE and the same status, verified blob or not.  Only
 * PCLNRT_OK answers are cached. */
int pclnrt_pcvalue_cached(const pclnrt_func *f, int table, uint64_t pc,
    int32_t *value, pclnrt_pccache *c);

/* pclnrt_funcline through the cache C (NULL: no cache). */
int pclnrt_funcline_cached(const pclnrt_func *f, uint64_t pc,
    const char **path, int32_t *line, pclnrt_pccache *c);

/* --- inlined calls ------------------------------------------------------ */

/* One inlined call: function NAME was inlined, called from FILE:LINE
 * (NULL / 0 if damaged). */
typedef struct pclnrt_inlcall {
	const char *name;
	const char *file;
	int32_t line;
} pclnrt_inlcall;

/* The inlined calls at link-time PC of F, innermost first, from the
 * trailer's INLTREE section (doc/FORMAT.md): CALLS[0].NAME is the
 * function whose body PC is in (its position: pclnrt_funcline), and
 * CALLS[0].FILE:LINE where it was called, in CALLS[1].NAME, ..., and
 * CALLS[*N - 1].FILE:LINE is the call's position in F itself.  Stores at
 * most MAX calls and their number in *N (0: PC is not in inlined code,
 * or the blob has no inline tree).  Returns PCLNRT_OK, or PCLNRT_CORRUPT
 * (with the calls found so far) if the tree is damaged.  Allocates
 * nothing, takes no lock, safe in a signal handler; costs one pass over
 * F's inline pcdata table plus one step per call. */
int pclnrt_inline(const pclnrt_func *f, uint64_t pc, pclnrt_inlcall *calls,
    size_t max, size_t *n);

/* --- modules ----------------------------------------------------------- */

/* A blob placed in the address space: run-time pc = link-time pc + bias.
 * Filled by pclnrt_module_init before registration; never written while
 * registered.  The caller owns the storage. */
typedef struct pclnrt_module {
	pclnrt_table table;
	uint64_t bias;
	uint64_t lo, hi;	/* run-time [first entry, end pc) */
	const char *name;	/* caller's label (may be NULL) */
} pclnrt_module;

/* pclnrt_init(&M->table, BLOB, LEN) and set the bias and run-time range.
 * NAME is kept by pointer.  Returns 0 or a negative enum
 * pclnrt_init_error (PCLNRT_EINIT_FUNCTAB if the range wraps). */
int pclnrt_module_init(pclnrt_module *m, const void *blob, size_t len,
    uint64_t bias, const char *name);

/* A set of modules, in caller-provided slots.  Lookups take no lock and
 * may run in any thread or signal handler while other threads register
 * and remove modules.  Registration publishes a fully initialised module
 * with one atomic compare-and-swap and a reader loads each slot
 * atomically (both sequentially consistent, which includes
 * release/acquire), so a reader sees a module completely or not at all.
 * Only pointer-sized atomics are used: lock-free, no libatomic.
 *
 * Removal rule: after pclnrt_unregister returns no new lookup finds the
 * module, but a reader that found it earlier may still be using it (its
 * table, blob and the names and frames returned).  Readers that may race
 * with removal bracket each lookup and every use of its results with
 * pclnrt_read_begin / pclnrt_read_end.  The remover, after
 * pclnrt_unregister, waits until pclnrt_readers() returns 0 (once; later
 * readers cannot find the module) before freeing or reusing the module
 * or its blob.  It must not wait inside its own begin/end bracket, and a
 * signal handler must not wait at all.  Without removal, or when the
 * caller knows no reader is running, no bracket is needed. */
typedef struct pclnrt_registry {
	_Atomic(pclnrt_module *) *slots;
	size_t nslots;
	atomic_size_t readers;		/* readers inside begin/end */
	atomic_size_t generation;	/* bumped by every (un)registration */
} pclnrt_registry;

/* Set up R over SLOTS[0..NSLOTS) (caller storage, outliving R); all
 * slots are cleared.  Not concurrent with any other use of R. */
void pclnrt_registry_init(pclnrt_registry *r,
    _Atomic(pclnrt_module *) *slots, size_t nslots);

/* Publish module M (initialised by pclnrt_module_init) in a free slot.
 * Safe against concurrent lookups, registrations and removals.  Returns
 * PCLNRT_OK, or PCLNRT_NOTFOUND if every slot is taken. */
int pclnrt_register(pclnrt_registry *r, pclnrt_module *m);

/* Remove module M.  Returns PCLNRT_OK, or PCLNRT_NOTFOUND if M is not
 * registered.  See the removal rule above before freeing M. */
int pclnrt_unregister(pclnrt_registry *r, pclnrt_module *m);

/* Reader bracket and reader count, for the removal rule. */
void pclnrt_read_begin(pclnrt_registry *r);
void pclnrt_read_end(pclnrt_registry *r);
size_t pclnrt_readers(pclnrt_registry *r);

/* A counter that changes with every registration and removal (for
 * caches keyed on the module set). */
size_t pclnrt_generation(pclnrt_registry *r);

/* Find run-time PC: the first registered module whose range holds it,
 * then its function (at link-time PC - bias).  Stores the module in *M
 * (if M is not NULL) and fills *F; returns a status as pclnrt_findfunc,
 * PCLNRT_NOTFOUND if no module holds PC. */
int pclnrt_registry_findfunc(pclnrt_registry *r, uint64_t pc,
    const pclnrt_module **m, pclnrt_func *f);

/* --- traceback --------------------------------------------------------- */

/* Read LEN (4 or 8) bytes at ADDR of the walked memory into BUF.  Return
 * 0 on success, nonzero if the memory cannot be read.  Must be
 * async-signal-safe if the traceback runs in a signal handler. */
typedef int (*pclnrt_readfn)(void *arg, uint64_t addr, uint8_t *buf,
    size_t len);

/* Architecture conventions.
 * PCLNRT_CONV_STACK (x86, x86-64): a call pushes the return address.  At
 *   a pc with stack-pointer delta D the return address is the word at
 *   sp + D and the caller's sp is sp + D + ptrsize.
 * PCLNRT_CONV_LR (Go's arm, arm64, ppc64, riscv64 convention): a call
 *   leaves the return address in the link register; a function that
 *   calls saves it at offset 0 of its own frame (the prologue does
 *   "MOVD.W R30, -D(RSP)": LR at the new sp).  At a pc with delta D the
 *   caller's sp is sp + D.  In the first frame, if D is 0 (a leaf, or
 *   before the prologue) the return address is the LR register passed
 *   in; otherwise, and in every later frame, it is the word at sp + 0.
 *   A later frame with D = 0 has no saved LR: the walk stops
 *   (PCLNRT_STOP_NOFRAME). */
#define PCLNRT_CONV_STACK	0
#define PCLNRT_CONV_LR		1

/* Flags. */
#define PCLNRT_TB_FIRST_RETADDR	0x1	/* the first pc is a return address */
/* Honour the CFA-rule pcdata (PCLN_PCDATA_CFA, PCLN_PCDATA_FPSAVE;
 * PCLNRT_CONV_STACK only): where a function's CFA is the frame pointer
 * plus an offset (pclnld --elf: a frame pointer after alloca, a realigned
 * stack) the walk uses the frame pointer, which it tracks from FP (the
 * first frame's value) through the frames that save it.  A saved frame
 * pointer that cannot be read leaves it unknown; the walk stops
 * (PCLNRT_STOP_READ) only at a frame whose CFA needs it. */
#define PCLNRT_TB_FP		0x2

/* Why a traceback stopped: X(code, name). */
#define PCLNRT_STOP_LIST(X) \
	X(PCLNRT_STOP_END,	"end of stack (return address 0)") \
	X(PCLNRT_STOP_LIMIT,	"frame limit reached") \
	X(PCLNRT_STOP_UNKNOWN_PC, "pc in no known function") \
	X(PCLNRT_STOP_NO_SP,	"no stack-pointer delta at pc") /* or -1 */ \
	X(PCLNRT_STOP_NOFRAME,	"no saved return address (frame size 0)") \
	X(PCLNRT_STOP_READ,	"memory read failed") \
	X(PCLNRT_STOP_WRONG_WAY, "stack goes the wrong way") \
	X(PCLNRT_STOP_BADARG,	"bad argument") \
	X(PCLNRT_STOP_OUTERMOST, "outermost frame (no caller)") /* pcsp -2 */

#define PCLNRT_STOP_ENUM_(code, msg) code,
enum pclnrt_stop { PCLNRT_STOP_LIST(PCLNRT_STOP_ENUM_) PCLNRT_NSTOP };
#undef PCLNRT_STOP_ENUM_

/* The message for stop reason STOP; never NULL. */
const char *pclnrt_stop_string(int stop);

/* Where and how to walk. */
typedef struct pclnrt_walk {
	pclnrt_registry *modules;
	unsigned ptrsize;	/* 4 or 8: size of a stack word */
	int bigendian;		/* byte order of stack words */
	int conv;		/* PCLNRT_CONV_STACK or PCLNRT_CONV_LR */
	unsigned flags;		/* PCLNRT_TB_* */
	pclnrt_readfn read;	/* NULL: read this process's memory */
	void *read_arg;
	uint64_t pc, sp, lr;	/* first frame; LR used by CONV_LR only */
	uint64_t fp;		/* first frame's frame pointer (rbp on
				 * x86-64); used with PCLNRT_TB_FP only */
	pclnrt_pccache *cache;	/* NULL, or a cache for every table
				 * lookup of the walk (pclnrt_pccache) */
} pclnrt_walk;

/* One frame.  PC is run-time; for every frame but the first (unless
 * PCLNRT_TB_FIRST_RETADDR) it is a return address and the function, file,
 * line and spdelta are those of PC - 1. */
typedef struct pclnrt_frame {
	uint64_t pc;		/* the frame's pc */
	uint64_t sp;		/* its stack pointer (at PC) */
	uint64_t entry;		/* run-time entry of the function */
	uint64_t off;		/* pc - entry, as Go prints "+0x1c" */
	const char *file;	/* NULL if unknown */
	int32_t line;		/* 0 if unknown */
	int32_t spdelta;	/* valid unless the walk stopped NO_SP */
	const pclnrt_module *module;
	pclnrt_func func;	/* link-time fields */
} pclnrt_frame;

/* Where a walk stopped: REASON (enum pclnrt_stop) and the pc and sp it
 * was at: the unknown pc (UNKNOWN_PC), the frame not written (LIMIT,
 * END), the last frame written (NO_SP, NOFRAME, READ, OUTERMOST), or the
 * caller that went the wrong way (WRONG_WAY). */
typedef struct pclnrt_stopinfo {
	int reason;
	uint64_t pc, sp;
} pclnrt_stopinfo;

/* Walk the stack described by W, writing at most MAX frames to FRAMES.
 * Returns the number of frames written and, if STOP is not NULL, stores
 * why and where the walk stopped in *STOP.  The frame whose caller could
 * not be found (read failure, no sp delta, no saved LR, wrong way) is
 * written; an unknown pc is not.  PCLNRT_STOP_LIMIT means MAX frames were
 * written and the next frame's pc (a return address read from the last
 * one) was not looked up.  A return address of 0 ends the stack
 * (PCLNRT_STOP_END), and so does a frame whose pcsp value is
 * PCLN_PCSP_OUTERMOST (PCLNRT_STOP_OUTERMOST, the frame written).  Each
 * caller's sp must be above its callee's (equal only for a first-frame
 * leaf under PCLNRT_CONV_LR), so the walk always moves up the stack.
 * Stack words are read only through W->read.  FRAMES[n] past the count
 * returned may have been written.  Module lookups are not bracketed: see
 * the removal rule for pclnrt_read_begin. */
size_t pclnrt_traceback(const pclnrt_walk *w, pclnrt_frame *frames,
    size_t max, pclnrt_stopinfo *stop);

/* The default reader: copies LEN bytes from this process's address ADDR.
 * It cannot detect bad addresses; use it on stacks known to be mapped.
 * ARG is unused. */
int pclnrt_read_direct(void *arg, uint64_t addr, uint8_t *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* PCLNRT_H */
