/* internal.h -- private helpers shared by libpcln's source files.
 *
 * Not installed.  Symbols here use the pclni_ prefix so that the export
 * regex of libpcln.la ('^(pcln_|pclnrt_)') keeps them private; white-box
 * tests reach them through libpcln-internal.la.
 */
#ifndef PCLN_INTERNAL_H
#define PCLN_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "pcln.h"
#include "pclnrt_format.h"

#if defined(__GNUC__) || defined(__clang__)
#define PCLNI_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define PCLNI_PRINTF(f, a)
#endif

/* Fill ERR (if not NULL) with CODE, OFFSET (-1 if none) and a message made
 * from FMT.  Always returns -1 so callers can write
 * "return pclni_seterr(...)". */
int pclni_seterr(pcln_err *err, int code, int64_t offset,
    const char *fmt, ...) PCLNI_PRINTF(4, 5);

/* Clear ERR (if not NULL) to PCLN_OK. */
void pclni_clearerr(pcln_err *err);

/* Grow the array whose pointer is at PP (of *CAP elements of SIZE) to
 * hold at least N, doubling.  The pointer is read and written with
 * memcpy, so any object pointer type may be passed without breaking
 * aliasing rules.  Returns 0, or -1 (nothing changed) on overflow or no
 * memory. */
int pclni_grow(void *pp, size_t *cap, size_t n, size_t size);

/* --- byte-wise stores, explicit byte order --- */

static inline void
pclni_store32(uint8_t *p, uint32_t v, int big)
{
	if (big) {
		p[0] = (uint8_t)(v >> 24);
		p[1] = (uint8_t)(v >> 16);
		p[2] = (uint8_t)(v >> 8);
		p[3] = (uint8_t)v;
	} else {
		p[0] = (uint8_t)v;
		p[1] = (uint8_t)(v >> 8);
		p[2] = (uint8_t)(v >> 16);
		p[3] = (uint8_t)(v >> 24);
	}
}

static inline void
pclni_store16(uint8_t *p, uint32_t v, int big)
{
	p[big ? 0 : 1] = (uint8_t)(v >> 8);
	p[big ? 1 : 0] = (uint8_t)v;
}

static inline void
pclni_store64(uint8_t *p, uint64_t v, int big)
{
	if (big) {
		pclni_store32(p, (uint32_t)(v >> 32), 1);
		pclni_store32(p + 4, (uint32_t)v, 1);
	} else {
		pclni_store32(p, (uint32_t)v, 0);
		pclni_store32(p + 4, (uint32_t)(v >> 32), 0);
	}
}

static inline void
pclni_storeptr(uint8_t *p, uint64_t v, unsigned ps, int big)
{
	if (ps == 8)
		pclni_store64(p, v, big);
	else
		pclni_store32(p, (uint32_t)v, big);
}

/* Round X up to a multiple of A (a power of two). */
static inline uint64_t
pclni_align(uint64_t x, uint64_t a)
{
	return (x + a - 1) & ~(a - 1);
}

/* Offset of funcdata slot J in a Func record with NPCDATA pcdata slots,
 * in 64-bit arithmetic (PCLN_FUNC_FUNCDATA's mask is 32-bit, so it is
 * only exact for sums below 2^32). */
static inline uint64_t
pclni_funcdata_off(unsigned ps, uint64_t npcdata, uint64_t j)
{
	return pclni_align(PCLN_FUNC_PCDATA(ps, npcdata), ps) + ps * j;
}

/* --- interning pool: deduplicated byte strings, keyed by XXH3 ---
 *
 * Items are appended to DATA in order of first addition and numbered from
 * 0; adding an item already present returns the old number.  Lookups are
 * O(1) expected (open addressing, load factor <= 1/2).  Offsets and sizes
 * are 32-bit: the pool refuses to grow past INT32_MAX bytes. */
struct pclni_pool {
	uint8_t *data;
	size_t len, cap;	/* bytes used / allocated in DATA */
	uint32_t *off, *size;	/* per item */
	size_t n, ncap;		/* items used / allocated */
	/* Hash slots: the item's 32 low hash bits << 32 | item number + 1,
	 * 0 = empty; a probe reads the item only when the bits match. */
	uint64_t *slot;
	size_t nslot;		/* power of two, at most 2^32 */
	int ext;		/* DATA is the caller's (pclni_pool_init_in) */
};

void pclni_pool_init(struct pclni_pool *p);
/* Make P an empty pool whose data is the caller's BUF[0..CAP): an item
 * is added by writing it at P->data + P->len and passing that place to
 * pclni_pool_add, which copies nothing (a duplicate is left there, to be
 * overwritten by the next item); pclni_pool_free leaves BUF alone. */
void pclni_pool_init_in(struct pclni_pool *p, uint8_t *buf, size_t cap);
void pclni_pool_free(struct pclni_pool *p);
/* Add DATA[0..LEN) to P.  Return its item number, or -1 out of memory,
 * -2 if the pool would exceed INT32_MAX bytes.  *ISNEW (if not NULL) is
 * set to 1 if the item was not yet present.  In a pool of the caller's
 * data (pclni_pool_init_in), DATA must be P->data + P->len, and -1 also
 * means that the item does not fit in its capacity. */
long pclni_pool_add(struct pclni_pool *p, const void *data, size_t len,
    int *isnew);
/* pclni_pool_add in two steps, for a caller that has other work to do
 * while the slot comes from memory: the hash of DATA[0..LEN), a hint
 * that an item of hash H comes next (a prefetch of its slot), and the
 * addition with the hash computed already. */
uint32_t pclni_pool_hash(const void *data, size_t len);
void pclni_pool_prefetch(const struct pclni_pool *p, uint32_t h);
long pclni_pool_add_hashed(struct pclni_pool *p, const void *data,
    size_t len, uint32_t h, int *isnew);
/* The item number of DATA[0..LEN) in P, or -1 if absent (P unchanged). */
long pclni_pool_find(const struct pclni_pool *p, const void *data,
    size_t len);

/* A pc-value point, for pclni_builder_add_points. */
struct pclni_point {
	uint64_t pcoff;
	int32_t value;
};

/* Add PTS[0..N) to table TABLE (not pcfile, whose values
 * pcln_builder_add_point checks) of function F, as that many calls of
 * pcln_builder_add_point would, without their per-call cost.  Returns
 * how many were added: fewer than N where point K fails a check (call
 * pcln_builder_add_point with it for the message), or -1 with ERR set
 * where pcln_builder_add_point would fail for a bad handle or table or
 * out of memory. */
long pclni_builder_add_points(pcln_builder *b, long f, int table,
    const struct pclni_point *pts, size_t n, pcln_err *err);

/* Move function F of builder B (added with a provisional entry) to
 * ENTRY: 0, or -1 if F is no function or ENTRY fails the checks of
 * pcln_builder_add_func (quantum, address space).  For a linker that
 * places functions after feeding their tables. */
int pclni_builder_set_entry(pcln_builder *b, long f, uint64_t entry);

/* --- output files' temporaries (outfile.c, pcln_out.h) ---
 *
 * The one definition of a temporary's name and of when one is stale,
 * for every directory the library writes into (lib/find's cache too). */

/* Is NAME (a directory entry) a temporary, ".BASE.pcln-PID-XXXXXX"?
 * Then 1 with *BASELEN (BASE's length; BASE starts at NAME + 1) and
 * *PID, else 0. */
int pclni_out_temp_name(const char *name, size_t *baselen, long *pid);

/* Remove the temporary NAME in the directory DFD, written by PID, if it
 * is stale (pcln_out.h): a regular file of this user whose writer PID is
 * no process and whose lock nobody holds.  1 if removed, else 0. */
int pclni_out_remove_stale(int dfd, const char *name, long pid);

#endif /* PCLN_INTERNAL_H */
