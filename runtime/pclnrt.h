/* pclnrt.h -- the pcln runtime: find a pc's function, file, line,
 * stack-pointer delta and pcdata in a pcln blob, and walk a stack.
 *
 * Safety, for every function declared here:
 *  - it allocates nothing, takes no lock, calls no libc function and
 *    writes no global (the runtime has no writable global at all; the
 *    only state is in storage the caller passes);
 *  - it is reentrant and async-signal-safe: call it from a signal handler,
 *    a profiler tick or a crashing thread;
 *  - except the registry's writers (pclnrt_register, pclnrt_unregister,
 *    pclnrt_module_reusable, pclnrt_registry_stats_get), which serialise
 *    on a spin lock inside the registry: call them from threads, never
 *    from a signal handler (lookups, reader records and brackets are
 *    lock-free and async-signal-safe);
 *  - it is bounded on any input: on a corrupt blob that was never verified
 *    every loop ends (a pc-value walk within one step per blob byte, a
 *    search within log2(nfunc) steps, a traceback within MAX frames) and
 *    no read leaves [BLOB, BLOB + LEN).  A corrupt blob gives wrong or
 *    missing answers, never a fault.  pclnrt_init refuses a blob whose
 *    header cannot be right; full verification is pcln_verify (libpcln).
 *
 * Freestanding C11: this header needs only <stdint.h>, <stddef.h> and
 * <stdatomic.h> (it uses _Atomic, so it is C, not C++); the same lookups
 * also compile for BPF (bpf/, and pclnrt_format.h's portability layer);
 * the runtime
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
 * PCLNRT_CORRUPT (-2: the blob is damaged where the answer lies); the
 * registry's writers also PCLNRT_EXISTS, PCLNRT_OVERLAP and PCLNRT_FULL.
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
#define PCLNRT_EXISTS		(-3)	/* registered already */
#define PCLNRT_OVERLAP		(-4)	/* meets a registered module */
#define PCLNRT_FULL		(-5)	/* no room in the caller's storage */
#define PCLNRT_BADARG		(-6)	/* a description that cannot be */
					/* encoded (pclnrt_jit_module) */
#define PCLNRT_BUILDID_MISMATCH	(-7)	/* pclnrt_check_build_id */

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
	pclnrt_bptr blob;		/* (a pointer, but for the BPF build:
					 * pclnrt_format.h) */
	size_t len;
	pclnrt_bptr funcsize;		/* FUNCSIZE section, or NULL */
	uint64_t nfunc;
	uint64_t minpc, maxpc;		/* first entry, end pc (sentinel) */
	uint32_t filetab;		/* offset of the file table */
	uint32_t nslots;		/* file table slots (nfile + 1) */
	uint8_t ptrsize, quantum, big;
	pclnrt_bptr findex;		/* FUNCINDEX section, or NULL if
					 * absent or its header is bad */
	uint64_t findexlen;
	pclnrt_bptr inltree;		/* INLPACK or INLTREE section, or
					 * NULL (also if its header is bad) */
	uint64_t inltreelen;
	struct pclnrt_inlform inlform;	/* its records' layout */
	pclnrt_bptr ckpt;		/* PCCKPT section, or NULL if absent
					 * or its header is bad */
	uint64_t ckptlen;
	pclnrt_bptr buildid;		/* BUILDID section, or NULL */
	uint8_t buildidlen;
	pclnrt_bptr symname;		/* SYMNAME's records, or NULL (also
					 * if its size is not its count's) */
	uint64_t nsymname;		/* their count */
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
	pclnrt_str name;	/* NUL-terminated, in the blob; NULL if bad */
	uint64_t entry;		/* first pc */
	uint64_t end;		/* entry + size: first pc past the code */
	int32_t args, frame;
	uint32_t index;		/* position in the function table */
	/* private */
	const pclnrt_table *t;
	uint32_t funcoff, npcdata, nfuncdata;
	/* (a new field: copy it in traceback.c's funccopy too) */
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
pclnrt_str pclnrt_filename(const pclnrt_table *t, int32_t fileno);

/* File and line at PC: *PATH (NULL if unknown) and *LINE (0 if unknown).
 * Returns PCLNRT_OK if both are known, else the failing status. */
int pclnrt_funcline(const pclnrt_func *f, uint64_t pc, pclnrt_str *path,
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

/* --- a frame-step cache ----------------------------------------------- */

/* A profiler unwinds the same return addresses in sample after sample,
 * far more of them than a pc-value cache of PCLNRT_PCCACHE_SIZE rows
 * holds.  A step cache remembers, per run-time pc, all that
 * pclnrt_traceback looks up for one frame: the module and function, the
 * file and line, the sp delta (and the status of its lookup), the CFA
 * rule and the frame-pointer save slot.  It is direct-mapped over NENT
 * entries (a power of two) in the caller's storage ENT: nothing is
 * allocated and nothing locked, and a cache belongs to one thread at a
 * time.  An entry is keyed by the registry and its generation too, so
 * one made before a module was registered or removed never hits, nor
 * one of another registry (pclnrt_generation: no two registries share
 * a generation), and one cache can serve the walks of many registries;
 * a walk takes the generation once, at its start.  Like the pc-value
 * cache, initialise it again if a registered module's blob is changed
 * in place.  A hit gives exactly the frame the lookups would. */
typedef struct pclnrt_stepcache_ent {
	const struct pclnrt_registry *reg; /* NULL: empty */
	size_t gen;			/* REG's generation */
	uint64_t look;			/* run-time pc looked up */
	const struct pclnrt_module *module;
	pclnrt_func func;
	const char *file;
	int32_t line, spdelta, cfarule, fpsave;
	int32_t sprc;			/* the pcsp lookup's status */
	uint32_t usefp;			/* CFA rule and save slot looked up */
} pclnrt_stepcache_ent;

typedef struct pclnrt_stepcache {
	pclnrt_stepcache_ent *ent;
	uint64_t mask;			/* NENT - 1 */
	uint64_t hits, misses;		/* statistics, for tuning */
} pclnrt_stepcache;

/* Make C an empty cache over ENT[0..NENT): PCLNRT_OK, or PCLNRT_BADARG
 * if NENT is not a power of two or ENT is NULL. */
int pclnrt_stepcache_init(pclnrt_stepcache *c, pclnrt_stepcache_ent *ent,
    size_t nent);

/* --- inlined calls ------------------------------------------------------ */

/* One inlined call: function NAME was inlined, called from FILE:LINE
 * (NULL / 0 if damaged). */
typedef struct pclnrt_inlcall {
	const char *name;
	const char *file;
	int32_t line;
} pclnrt_inlcall;

/* The inlined calls at link-time PC of F, innermost first, from the
 * trailer's INLPACK or INLTREE section (doc/FORMAT.md): CALLS[0].NAME is the
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

/* --- build-ids --------------------------------------------------------- */

/* Program headers looked at, at most (a bound for corrupt input). */
#define PCLNRT_MAX_PHNUM	65535u

/* The build-id in a note area NOTES[0..LEN) (a PT_NOTE segment or an
 * SHT_NOTE section) whose notes are aligned to ALIGN (8, else 4) and
 * whose words are big-endian if BIG: the descriptor of the first note
 * named "GNU" of type NT_GNU_BUILD_ID (3).  Returns PCLNRT_OK and
 * *ID (pointing into NOTES) and *IDLEN, PCLNRT_NOTFOUND if there is
 * none, PCLNRT_CORRUPT if a note runs past the end before it.  Reads
 * only NOTES[0..LEN); allocates nothing, takes no lock, safe in a signal
 * handler; at most LEN / 12 steps. */
int pclnrt_note_build_id(const void *notes, size_t len, size_t align,
    int big, const uint8_t **id, size_t *idlen);

/* The build-id of a loaded object, from its program headers as
 * dl_iterate_phdr reports them (PHDR, PHNUM, and the load bias BIAS,
 * dlpi_addr): the first PT_NOTE segment, at BIAS + p_vaddr, holding one.
 * The headers are the host's (ELF64 on a 64-bit host).  Returns
 * PCLNRT_OK and *ID (pointing into the loaded object) and *IDLEN, or
 * PCLNRT_NOTFOUND.  Reads only the headers and the note segments;
 * allocates nothing, takes no lock, safe in a signal handler; at most
 * PHNUM (<= PCLNRT_MAX_PHNUM) segments. */
int pclnrt_phdr_build_id(const void *phdr, size_t phnum, uintptr_t bias,
    const uint8_t **id, size_t *idlen);

/* The build-id T records (its BUILDID section): PCLNRT_OK with *ID
 * (into the blob) and *IDLEN, or PCLNRT_NOTFOUND.  O(1); allocates
 * nothing, takes no lock, safe in a signal handler. */
int pclnrt_table_build_id(const pclnrt_table *t, const uint8_t **id,
    size_t *idlen);

/* The name F's object's symbol table gives F, where its table records
 * one (its SYMNAME section: of the symbols at F's entry, the one perf
 * names it by), else F's own name (F->name).  NULL only where F->name
 * is.  O(log n) in the section's records; allocates nothing, takes no
 * lock, safe in a signal handler; a record whose name is not a string
 * in the blob is not taken. */
pclnrt_str pclnrt_symname(const pclnrt_func *f);

/* Is T the table of the object with build-id ID[0..LEN) (for a running
 * object: pclnrt_phdr_build_id)?  Returns PCLNRT_OK if T records exactly
 * that build-id, PCLNRT_BUILDID_MISMATCH if it records another (the
 * table is stale or someone else's: do not register it),
 * PCLNRT_NOTFOUND if T records none or LEN is 0 (nothing to compare).
 * At most LEN byte comparisons; allocates nothing, takes no lock, safe
 * in a signal handler. */
int pclnrt_check_build_id(const pclnrt_table *t, const uint8_t *id,
    size_t len);

/* --- the code map: modules and JIT functions at run-time addresses ----- */

/* A blob placed in the address space: run-time pc = link-time pc + bias.
 * A module is a shared object's table, or one JIT-compiled function
 * (pclnrt_jit_module, below).  Filled by pclnrt_module_init before
 * registration; never written by the caller while registered.  The
 * caller owns the storage. */
typedef struct pclnrt_module {
	pclnrt_table table;
	uint64_t bias;
	uint64_t lo, hi;	/* run-time [first entry, end pc) */
	const char *name;	/* caller's label (may be NULL) */
	/* private: written by the registry's writers only, under its
	 * lock; never read by lookups */
	uint32_t id;		/* region number while registered, else 0 */
	uintptr_t ticket;	/* epoch of its removal */
} pclnrt_module;

/* pclnrt_init(&M->table, BLOB, LEN) and set the bias and run-time range.
 * NAME is kept by pointer.  Returns 0 or a negative enum
 * pclnrt_init_error (PCLNRT_EINIT_FUNCTAB if the range wraps). */
int pclnrt_module_init(pclnrt_module *m, const void *blob, size_t len,
    uint64_t bias, const char *name);

/* The registry: a code map from run-time pc to module, in storage the
 * caller provides.  It is a radix tree over the pc's bits: a root of 16
 * slots (bits 63..60) and up to PCLNRT_CM_LEVELS levels of nodes of
 * PCLNRT_CM_FANOUT 32-bit slots (bits 59..52, ..., 11..4), a slot of the
 * last level covering a 16-byte granule.  A slot holds nothing, a
 * module's number (when at most one module meets the slot's range) or a
 * node.  A lookup therefore reads at most 1 + PCLNRT_CM_LEVELS = 8
 * slots, one module pointer and the module's range, whatever the number
 * of modules: no search, no hashing.
 *
 * Memory: a node is 1 KiB (+ 16 bytes of writer metadata).  A node
 * exists only where two modules meet inside its range, so a node holds
 * a module's first or last byte: at most 2 * PCLNRT_CM_LEVELS = 14 nodes
 * per module, whatever the order of additions and removals.  Typical:
 * shared objects a few nodes in all; a dense code heap about one
 * last-level node per 4 KiB page (make bench: 95 bytes per function of
 * ~270 bytes, all counted).  Per module number the map also keeps a
 * pointer and 16 bytes of writer metadata.
 * Two modules may not share a 16-byte granule (JIT code is aligned to
 * at least 16 bytes; shared objects are whole pages apart).
 *
 * Readers (pclnrt_registry_find, _findfunc, pclnrt_traceback) take no
 * lock, write nothing shared, are async-signal-safe and may run in any
 * thread or signal handler while other threads add and remove modules:
 * they see a module completely or not at all.  Writers (register,
 * unregister) serialise on a spin lock inside the registry: call them
 * from threads, never from a signal handler.
 *
 * Reclamation: after pclnrt_unregister returns, no new lookup finds the
 * module, but a reader that found it earlier may still be using it (its
 * table, blob, and the names and frames returned).  Readers that may
 * race with removal announce themselves: each holds a reader record
 * (pclnrt_reader_claim) and brackets its lookups, and every use of their
 * results, with pclnrt_read_enter / pclnrt_read_exit: a store to its own
 * record (a cache line of its own) and one fence, no shared write.  The
 * registry counts removals in an epoch; a removed module carries the
 * epoch of its removal, and its storage and blob may be reused once
 * pclnrt_module_reusable says so: when every reader record is outside a
 * bracket or entered after the removal.  The map's own nodes and module
 * numbers are reclaimed the same way, inside the registry.  Without
 * removal, or when no reader runs, no bracket is needed. */
#define PCLNRT_CM_ROOT		16	/* root slots: pc bits 63..60 */
#define PCLNRT_CM_FANOUT	256	/* slots of a node: 8 bits of pc */
#define PCLNRT_CM_LEVELS	7	/* node levels below the root */
#define PCLNRT_CM_GRANULE	16	/* bytes of a last-level slot */

/* A reader record: one cache line, written only by the thread (and that
 * thread's signal handlers) holding it. */
typedef struct pclnrt_reader {
	atomic_uintptr_t epoch;		/* 0: outside a bracket */
	atomic_uint nest;		/* bracket depth */
	atomic_int claimed;
	unsigned char pad_[64 - sizeof(atomic_uintptr_t) -
	    sizeof(atomic_uint) - sizeof(atomic_int)];
} pclnrt_reader;

typedef struct pclnrt_cmnode {
	_Atomic uint32_t slot[PCLNRT_CM_FANOUT];
} pclnrt_cmnode;

/* Writer metadata of a node or a module number (private). */
struct pclnrt_cmmeta {
	uint32_t next;		/* free or retired list link */
	uint32_t nused;		/* non-empty slots (nodes) */
	uintptr_t ticket;	/* epoch of its retirement */
};

/* The registry.  Public fields may be read; the rest is private. */
typedef struct pclnrt_registry {
	_Atomic uint32_t root[PCLNRT_CM_ROOT];
	_Atomic(pclnrt_module *) *region;	/* by module number */
	pclnrt_cmnode *node;
	pclnrt_reader *reader;
	struct pclnrt_cmmeta *rmeta, *nmeta;
	uint32_t nregion, nnode, nreader;
	atomic_uintptr_t epoch;		/* removals + 1 */
	atomic_size_t generation;	/* bumped by every (un)registration */
	atomic_flag lock;		/* writers */
	/* Writer state, under the lock. */
	uint32_t rfree, rlimbo, rlimbo_tail;	/* list heads, 0: empty */
	uint32_t nfree, nlimbo, nlimbo_tail;	/* node index + 1, 0: empty */
	uint32_t nregistered;		/* modules registered */
	uint32_t nodes_used;		/* nodes in the tree */
	uint32_t nodes_retired;		/* nodes waiting for readers */
	uintptr_t safe;			/* highest horizon seen */
} pclnrt_registry;

/* Bytes of storage for a registry of NMODULE modules, NNODE nodes and
 * NREADER reader records, alignment slack included (a constant
 * expression, for static arrays). */
#define PCLNRT_REGISTRY_SIZE(nmodule, nnode, nreader) \
	(64 + ((size_t)(nmodule) + 1) * (sizeof(void *) + \
	    sizeof(struct pclnrt_cmmeta)) + \
	 (size_t)(nreader) * sizeof(pclnrt_reader) + 64 + \
	 (size_t)(nnode) * (sizeof(pclnrt_cmnode) + \
	    sizeof(struct pclnrt_cmmeta)))

/* Set up R over MEM[0..SIZE) (caller storage, outliving R; any
 * alignment): room for NMODULE modules and NREADER reader records, the
 * rest for nodes (PCLNRT_REGISTRY_SIZE gives SIZE for a node count; 14
 * nodes per module is always enough).  Not concurrent with any other
 * use of R.  Returns PCLNRT_OK, or PCLNRT_FULL if MEM cannot hold the
 * modules, the readers and one node (R then holds nothing). */
int pclnrt_registry_init(pclnrt_registry *r, void *mem, size_t size,
    size_t nmodule, size_t nreader);

/* Publish module M (initialised by pclnrt_module_init; its range
 * [lo, hi) may be empty) at its run-time range.  Safe against concurrent
 * lookups, registrations and removals.  Returns PCLNRT_OK;
 * PCLNRT_EXISTS if M is registered already (here or in another
 * registry); PCLNRT_OVERLAP if its range meets a registered module's,
 * or shares a 16-byte granule with one; PCLNRT_FULL if no module number
 * or not enough nodes are free (nodes of removed modules become free
 * once no reader may hold them).  On failure nothing changed. */
int pclnrt_register(pclnrt_registry *r, pclnrt_module *m);

/* Remove module M.  Returns PCLNRT_OK, or PCLNRT_NOTFOUND if M is not
 * registered in R.  See pclnrt_module_reusable before freeing M. */
int pclnrt_unregister(pclnrt_registry *r, pclnrt_module *m);

/* 1 if module M, removed from R, and its blob may be freed or reused:
 * no reader record is inside a bracket it entered before the removal.
 * 0 if one may still hold M (poll again later; never from inside a
 * bracket of your own, nor from a signal handler that interrupted one).
 * A module never registered, or registered now, gives 0 for the
 * latter.  O(reader records). */
int pclnrt_module_reusable(pclnrt_registry *r, const pclnrt_module *m);

/* Claim a free reader record of R for the calling thread (or signal
 * handler); NULL if all are taken.  Lock-free and async-signal-safe.
 * Release it when the thread is done with lookups. */
pclnrt_reader *pclnrt_reader_claim(pclnrt_registry *r);
void pclnrt_reader_release(pclnrt_registry *r, pclnrt_reader *rd);

/* Bracket lookups with reader record RD (see Reclamation).  Brackets
 * nest, and a signal handler may bracket with the record of the thread
 * it interrupted.  Wait-free, async-signal-safe: a load of the epoch, a
 * store to RD and a fence on entry, a store on exit. */
void pclnrt_read_enter(pclnrt_registry *r, pclnrt_reader *rd);
void pclnrt_read_exit(pclnrt_registry *r, pclnrt_reader *rd);

/* A counter that changes with every registration and removal (for
 * caches keyed on the module set).  pclnrt_registry_init starts it
 * where no registry of the process has been (2^32 apart on 64-bit
 * hosts, 2^16 on 32-bit ones), so a registry made again, at the same
 * address or not, never shows an old one's generation. */
size_t pclnrt_generation(pclnrt_registry *r);

/* Find the module whose run-time range holds PC: at most 8 slot loads
 * (see above).  Stores it in *M and returns PCLNRT_OK, else
 * PCLNRT_NOTFOUND. */
int pclnrt_registry_find(const pclnrt_registry *r, uint64_t pc,
    const pclnrt_module **m);

/* Find run-time PC's module, then its function (at link-time PC -
 * bias).  Stores the module in *M (if M is not NULL) and fills *F;
 * returns a status as pclnrt_findfunc, PCLNRT_NOTFOUND if no module
 * holds PC. */
int pclnrt_registry_findfunc(const pclnrt_registry *r, uint64_t pc,
    const pclnrt_module **m, pclnrt_func *f);

/* Counts for tuning and tests: modules registered, nodes in the tree
 * and nodes waiting for readers before reuse, and the capacities. */
typedef struct pclnrt_registry_stats {
	size_t modules, nodes, retired;
	size_t max_modules, max_nodes, max_readers;
} pclnrt_registry_stats;
void pclnrt_registry_stats_get(pclnrt_registry *r,
    pclnrt_registry_stats *s);

/* --- JIT functions ------------------------------------------------------ */

/* A JIT emits functions one at a time.  Each becomes a module of its
 * own: a one-function Go 1.2 blob written into caller storage, without
 * the libpcln builder, then registered like any module, so findfunc,
 * funcline, pcsp, pcdata and the traceback see it as they see compiled
 * code (and the BPF build as well).  Cost: about 80 bytes plus the name,
 * the file name and 2 bytes a row for the blob, plus the module, and a
 * few hundred nanoseconds (bench/: "jit" figures).
 *
 * A table is a list of rows: row I's VALUE holds from pc offset OFF
 * (bytes from the entry) to row I + 1's OFF, the last row's to the end
 * of the code.  Offsets strictly increase and the first is 0.  Rows
 * equal to the one before are merged. */
typedef struct pclnrt_jitrow {
	uint32_t off;
	int32_t value;
} pclnrt_jitrow;

typedef struct pclnrt_jittab {
	const pclnrt_jitrow *row;	/* NULL or NROW rows */
	uint32_t nrow;			/* 0: no table */
} pclnrt_jittab;

typedef struct pclnrt_jitfunc {
	uint64_t entry;		/* run-time address of the first byte */
	uint32_t size;		/* bytes of code, >= 1 */
	const char *name;	/* NUL-terminated; copied */
	int32_t args, frame;	/* as the Func record's */
	pclnrt_jittab pcsp;	/* stack-pointer delta (PCLNRT_CONV_STACK:
				 * bytes pushed since the entry) */
	const char *file;	/* NULL: no file and no lines; copied */
	pclnrt_jittab line;	/* lines in FILE (needs FILE) */
	const pclnrt_jittab *pcdata;	/* NPCDATA tables (nrow 0: absent) */
	uint32_t npcdata;
} pclnrt_jitfunc;

/* Bytes of storage pclnrt_jit_module needs for F, or 0 if F cannot be
 * encoded (no name, size 0, rows out of order or past the end, a line
 * table without a file, an entry beyond this machine's pointers).
 * O(rows). */
size_t pclnrt_jit_size(const pclnrt_jitfunc *f);

/* Write F's one-function blob (this machine's pointer size and byte
 * order, pc quantum 1, no trailer) into BUF[0..CAP) and initialise M
 * over it with bias 0 and range [entry, entry + size), named after the
 * function (the name in the blob).  BUF and M then belong to the
 * module: keep them while it is registered and reusable says no.
 * Stores the blob's length in *LEN if LEN is not NULL.  Returns
 * PCLNRT_OK, PCLNRT_FULL if CAP < pclnrt_jit_size(F), or PCLNRT_BADARG.
 * Allocates nothing, takes no lock; O(rows). */
int pclnrt_jit_module(pclnrt_module *m, void *buf, size_t cap,
    const pclnrt_jitfunc *f, size_t *len);

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
/* Use the step cache W->steps (pclnrt_stepcache); without this flag the
 * field is not read, so a caller built before it existed is unchanged. */
#define PCLNRT_TB_STEPS		0x4

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
	const pclnrt_registry *modules;
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
	pclnrt_stepcache *steps; /* with PCLNRT_TB_STEPS: NULL, or the
				 * frames' step cache (pclnrt_stepcache) */
	/* A copy of the stack (a profiler's sample): the words in
	 * [copy_base, copy_base + copy_len) are read from COPY itself,
	 * with no call; others through READ.  COPY NULL: none. */
	const uint8_t *copy;
	uint64_t copy_base, copy_len;
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
 * returned may have been written.  The walk does not bracket its module
 * lookups: a caller racing with removals brackets the walk and its use
 * of the frames with pclnrt_read_enter / pclnrt_read_exit. */
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
