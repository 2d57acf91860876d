/* pclnrt_format.h -- the one C definition of the pcln blob layout.
 *
 * THIS FILE AND doc/FORMAT.md MUST AGREE.  A layout change edits both,
 * bumps PCLN_TRAILER_VERSION (for trailer changes) and adds a ChangeLog
 * entry.  Nothing else in the project spells an offset of the layout.
 *
 * Freestanding: <stdint.h> and <stddef.h> only.  Every function here is
 * static inline, allocates nothing, takes no lock, touches no global and
 * is safe in a signal handler.  Every read is bounds-checked against the
 * END pointer the caller passes, so even an unverified, corrupt blob never
 * causes a read outside it.
 *
 * The picture (offsets from the start of the blob; P = pointer size,
 * all multi-byte integers in the blob's byte order, which the magic tells):
 *
 *   0        uint32  magic 0xfffffffb
 *   4        uint8   0
 *   5        uint8   0
 *   6        uint8   pc quantum (1, 2 or 4)
 *   7        uint8   pointer size P (4 or 8)
 *   8        uintP   nfunc
 *   8+P      functab: nfunc pairs of (uintP entry pc, uintP func offset),
 *                     sorted by entry, strictly increasing
 *   8+P+2nP  uintP   end pc (the sentinel: functab[nfunc].entry)
 *   8+P+2nP+P uint32 file table offset
 *   ...      Func records (P-aligned), names, pc-value tables, file table
 *   go12size end of the Go 1.2 part
 *   ...      optional pcln trailer (see below), found from the blob's end
 *
 * Func record, at a P-aligned func offset:
 *   0        uintP   entry (equals the functab entry)
 *   P+0      int32   nameoff   (offset of a NUL-terminated name)
 *   P+4      int32   args
 *   P+8      int32   frame
 *   P+12     int32   pcsp      (pc-value table offsets; 0 = no table)
 *   P+16     int32   pcfile
 *   P+20     int32   pcln
 *   P+24     int32   npcdata
 *   P+28     int32   nfuncdata
 *   P+32     uint32  pcdata[npcdata]   (table offsets; 0 = no table)
 *   align P  uintP   funcdata[nfuncdata] (0 = nil; padding only if
 *                                         nfuncdata > 0)
 *
 * File table, at the file table offset (4-aligned):
 *   uint32 nslots (= number of files + 1), then uint32 name offsets for
 *   slots 1..nslots-1.  File numbers in pcfile tables start at 1.
 *
 * pc-value table: rows of (zig-zag uvarint value delta, uvarint pc delta
 * / quantum).  The value starts at -1 and the pc at the function entry.
 * A row gives the value that holds from the current pc for pc delta bytes.
 * A value delta of 0 ends the table, except in the first row.
 *
 * Trailer (all integers in the blob's byte order except the checksum):
 *   the last PCLN_FOOTER_SIZE bytes of the blob are the footer:
 *   0   uint32 trailer version (PCLN_TRAILER_VERSION)
 *   4   uint32 go12size: length of the Go 1.2 part
 *   8   uint32 directory offset (8-aligned, from the blob's start)
 *   12  uint32 number of directory entries
 *   16  uint64 XXH64 (seed 0) of blob bytes [0, len - 16), big-endian
 *   24  8 bytes PCLN_TRAILER_MAGIC "PCLNTRLR"
 *   The directory holds entries of (uint32 tag, uint32 offset, uint32 size)
 *   with sections 8-aligned between go12size and the directory.
 */
#ifndef PCLNRT_FORMAT_H
#define PCLNRT_FORMAT_H

#include <stddef.h>
#include <stdint.h>

/* Header. */
#define PCLN_GO12_MAGIC		0xfffffffbu
#define PCLN_HDR_PAD0		4
#define PCLN_HDR_PAD1		5
#define PCLN_HDR_QUANTUM	6
#define PCLN_HDR_PTRSIZE	7
#define PCLN_HDR_NFUNC		8
#define PCLN_FUNCTAB_OFF(ps)	(8u + (ps))
/* Offset of functab entry I's entry pc and func offset. */
#define PCLN_FTAB_ENTRY(ps, i)	(PCLN_FUNCTAB_OFF(ps) + 2u * (ps) * (i))
#define PCLN_FTAB_FUNCOFF(ps, i) (PCLN_FTAB_ENTRY(ps, i) + (ps))
/* The sentinel sits where functab[nfunc].entry would. */
#define PCLN_FTAB_END(ps, n)	PCLN_FTAB_ENTRY(ps, n)
#define PCLN_FILETABOFF_OFF(ps, n) (PCLN_FTAB_END(ps, n) + (ps))
/* Bytes from the blob's start to the end of the file-table offset. */
#define PCLN_HDR_END(ps, n)	(PCLN_FILETABOFF_OFF(ps, n) + 4u)

/* Func record, offsets from the Func's start. */
#define PCLN_FUNC_ENTRY		0
#define PCLN_FUNC_NAMEOFF(ps)	((ps) + 0u)
#define PCLN_FUNC_ARGS(ps)	((ps) + 4u)
#define PCLN_FUNC_FRAME(ps)	((ps) + 8u)
#define PCLN_FUNC_PCSP(ps)	((ps) + 12u)
#define PCLN_FUNC_PCFILE(ps)	((ps) + 16u)
#define PCLN_FUNC_PCLN(ps)	((ps) + 20u)
#define PCLN_FUNC_NPCDATA(ps)	((ps) + 24u)
#define PCLN_FUNC_NFUNCDATA(ps)	((ps) + 28u)
#define PCLN_FUNC_SIZE(ps)	((ps) + 32u)
#define PCLN_FUNC_PCDATA(ps, i)	(PCLN_FUNC_SIZE(ps) + 4u * (i))
/* Offset of funcdata slot J in a Func with NPCDATA pcdata slots. */
#define PCLN_FUNC_FUNCDATA(ps, npcdata, j) \
	(((PCLN_FUNC_SIZE(ps) + 4u * (uint64_t)(npcdata) + (ps) - 1u) & ~((uint64_t)(ps) - 1u)) \
	 + (ps) * (j))

/* The three tables every Func names, by number; pcdata[i] is 3 + i. */
#define PCLN_TAB_PCSP		0
#define PCLN_TAB_PCFILE		1
#define PCLN_TAB_PCLN		2
#define PCLN_TAB_PCDATA(i)	(3 + (i))
/* Their names, as doc/FORMAT.md, descriptions and pclndump spell them
 * (pclnrt_table_name maps a number to one). */
#define PCLN_TAB_NAME_PCSP	"pcsp"
#define PCLN_TAB_NAME_PCFILE	"pcfile"
#define PCLN_TAB_NAME_PCLN	"pcln"

/* Trailer. */
#define PCLN_TRAILER_VERSION	1u
#define PCLN_TRAILER_MAGIC	"PCLNTRLR"
#define PCLN_FOOTER_SIZE	32u
#define PCLN_FOOTER_VERSION	0
#define PCLN_FOOTER_GO12SIZE	4
#define PCLN_FOOTER_DIROFF	8
#define PCLN_FOOTER_NSECT	12
#define PCLN_FOOTER_CHECKSUM	16
#define PCLN_FOOTER_MAGIC	24
#define PCLN_DIRENT_SIZE	12u
#define PCLN_DIRENT_TAG		0
#define PCLN_DIRENT_OFF		4
#define PCLN_DIRENT_SIZEF	8
#define PCLN_SECT_ALIGN		8u

/* Section tags.
 * FUNCSIZE: uint32[nfunc], the size in bytes of each function's code, in
 *   functab order.  entry + size <= the next entry; pcs in
 *   [entry + size, next entry) are a gap that belongs to no function.  The
 *   pc-value tables of a function cover exactly [entry, entry + size), so a
 *   blob without this section still tells gaps (see doc/FORMAT.md). */
#define PCLN_SECT_FUNCSIZE	1u

/* INLTREE: inlined calls, the way Go records them (its inltree and
 *   _PCDATA_InlTreeIndex).  A uint32 start[nfunc + 1], in functab order
 *   (function i's records are those numbered start[i] .. start[i+1] - 1;
 *   start[0] = 0), then the records, PCLN_INL_SIZE bytes each:
 *     0  int32   parent  the enclosing inlined call, as an index local
 *                        to the function (below this record's), or -1:
 *                        called from the function itself
 *     4  uint32  name    blob offset of the inlined function's name
 *     8  int32   file    file number (1..nfile) of the call site
 *    12  int32   line    line of the call site
 *   A function's pcdata table PCLN_PCDATA_INLTREE gives, at each pc, the
 *   local index of the innermost inlined call there, or -1 (none).  A pc
 *   at inline index k is in the body of record k's function, at the
 *   function's pcfile/pcln position; the caller's position is k's file
 *   and line, in record parent's function (or the real function). */
#define PCLN_SECT_INLTREE	2u
#define PCLN_PCDATA_INLTREE	2u
#define PCLN_INL_SIZE		16u
#define PCLN_INL_PARENT		0
#define PCLN_INL_NAME		4
#define PCLN_INL_FILE		8
#define PCLN_INL_LINE		12

/* FUNCINDEX: a constant-time function index, in the spirit of Go 1.5's
 *   findfunctab.  The text [minpc, maxpc) (minpc = functab[0].entry, maxpc
 *   = the sentinel) is cut into sub-buckets of 2^shift bytes, 16 to a
 *   bucket.  Section layout (uint32s in the blob's byte order):
 *     0   shift    log2 of the sub-bucket size in bytes, 0..PCLN_FIDX_SHIFT_MAX
 *     4   maxscan  the most forward steps any lookup needs (<= SCAN_LIMIT)
 *     8   nbucket  ((maxpc - minpc - 1) >> (shift + 4)) + 1
 *     12  0        reserved
 *     16  nbucket records of PCLN_FIDX_BUCKET bytes:
 *           0  uint32 base      function index of the bucket's sub-bucket 0
 *           4  uint8  delta[16] sub-bucket j starts in function base + delta[j]
 *   "Starts in" = the last function whose entry is <= the sub-bucket's
 *   first pc.  A lookup reads one record, then steps forward at most
 *   maxscan times while functab[i + 1].entry <= pc: it touches one record
 *   and at most maxscan + 2 functab entries, whatever nfunc is. */
#define PCLN_SECT_FUNCINDEX	3u
#define PCLN_FIDX_SHIFT		0
#define PCLN_FIDX_MAXSCAN	4
#define PCLN_FIDX_NBUCKET	8
#define PCLN_FIDX_RESERVED	12
#define PCLN_FIDX_HDR		16u
#define PCLN_FIDX_NSUB		16u	/* sub-buckets per bucket */
#define PCLN_FIDX_BUCKET	20u	/* uint32 base + uint8 delta[16] */
#define PCLN_FIDX_SHIFT_MAX	40u
#define PCLN_FIDX_SCAN_LIMIT	32u	/* readers ignore a larger maxscan */

/* PCCKPT: pc-value checkpoints, so that a lookup decodes at most K rows
 *   of a table instead of every row from the function's entry.  Every
 *   table (of every function) with more than K rows has a descriptor and
 *   one checkpoint per K rows: checkpoint m (m = 1 .. (rows - 1) / K) is
 *   the walk's state after row m * K.  Section layout (integers in the
 *   blob's byte order):
 *     0   stride   K, rows per checkpoint, 1..PCLN_CKPT_STRIDE_MAX
 *     4   0        reserved
 *     8   blkbytes bytes of the function blocks below
 *     12  0        reserved
 *     16  uint32 start[nfunc + 1]: function i's block is bytes start[i]
 *           .. start[i + 1] - 1 of the blocks (empty: no long table);
 *           start[0] = 0, start[nfunc] = blkbytes, multiples of 4
 *     16 + 4 (nfunc + 1): the blocks.  A block:
 *       0   uint32 ndesc
 *       4   ndesc descriptors of PCLN_CKPT_DESC bytes:
 *             0  uint16 table  0 pcsp, 1 pcfile, 2 pcln, 3 + i pcdata[i];
 *                              strictly increasing
 *             2  uint16 form   PCLN_CKPT_NARROW or PCLN_CKPT_WIDE
 *             4  uint32 first  offset of its arrays from the block's start
 *             8  uint32 count  its checkpoints, (rows - 1) / K
 *       then each descriptor's arrays, in descriptor order, each padded
 *       to 4 bytes (narrow: uint16 elements, wide: uint32):
 *             pcoff[count]    bytes from the entry to where row m * K
 *                             ends (row m * K + 1 starts); non-decreasing
 *             byteoff[count]  bytes from the table's first byte to row
 *                             m * K + 1's first byte
 *             int32 value[count]  row m * K's value
 *   A lookup reads start[i] (prefetched by pclnrt_findfunc), the block's
 *   descriptors (binary search by table, at most 16 steps), the table's
 *   pcoff array (binary search for the last pcoff <= pc - entry, at
 *   most 32 steps) and one byteoff and value, and resumes the walk
 *   there: the pcoffs are packed so that the search touches few cache
 *   lines, and a function's checkpoints sit together. */
#define PCLN_SECT_PCCKPT	4u
#define PCLN_CKPT_STRIDE	0
#define PCLN_CKPT_RESERVED0	4
#define PCLN_CKPT_BLKBYTES	8
#define PCLN_CKPT_RESERVED	12
#define PCLN_CKPT_HDR		16u
#define PCLN_CKPT_DESC		12u
#define PCLN_CKPT_NARROW	1u	/* uint16 pcoff and byteoff */
#define PCLN_CKPT_WIDE		2u	/* uint32 pcoff and byteoff */
#define PCLN_CKPT_STRIDE_MAX	65536u
/* Bytes of one descriptor's arrays: two arrays of COUNT elements of W
 * (2 or 4) bytes, each padded to 4, and COUNT int32 values. */
#define PCLN_CKPT_ARRAYS(count, w) \
	(2 * (((uint64_t)(count) * (w) + 3) & ~(uint64_t)3) + \
	 4 * (uint64_t)(count))

/* Trailer section 5, BUILDID: the build-id of the object the table
 * describes, the descriptor of its NT_GNU_BUILD_ID note, as it is (1 to
 * PCLN_BUILDID_MAX bytes; the section's size is its length).  Readers
 * compare it with the object's note before they trust the table for it
 * (pclnrt_check_build_id, pcln_check_build_id). */
#define PCLN_SECT_BUILDID	5u
#define PCLN_BUILDID_MAX	64u

/* Trailer section 6, INLPACK: the INLTREE section's records, bit-packed
 *   into 8 bytes each (the writer's choice when they fit; a blob holds at
 *   most one of INLTREE and INLPACK).  Header, then start[] as in
 *   INLTREE, then the records, each a uint64 in the blob's byte order:
 *     0  uint8   pbits   bits of (parent + 1)          0 .. 32
 *     1  uint8   fbits   bits of file                  0 .. 32
 *     2  uint8   lbits   bits of line (not negative)   0 .. 32
 *     3  uint8   nbits   bits of (name - namebase)     0 .. 32
 *     4  uint32  namebase
 *     8  uint32  start[nfunc + 1]
 *     PCLN_INLP_RECS(nfunc): the records (8-aligned in the section)
 *   pbits + fbits + lbits + nbits <= 64.  A record R holds, from its low
 *   bit: parent + 1 (pbits), file (fbits), line (lbits), name - namebase
 *   (nbits); the fields mean what INLTREE's do. */
#define PCLN_SECT_INLPACK	6u
#define PCLN_INLP_PBITS		0
#define PCLN_INLP_FBITS		1
#define PCLN_INLP_LBITS		2
#define PCLN_INLP_NBITS		3
#define PCLN_INLP_NAMEBASE	4
#define PCLN_INLP_START		8u
#define PCLN_INLP_RECS(nfunc) \
	(PCLN_INLP_START + ((4 * ((uint64_t)(nfunc) + 1) + 7) & ~(uint64_t)7))
#define PCLN_INLP_SIZE		8u
#define PCLN_INLP_MAXBITS	32u

/* Trailer section 7, SYMNAME: the name a function's object's symbol
 *   table gives it, where that is not its own name (nameoff in its
 *   Func).  Of the symbols at its entry, the one perf and most profilers
 *   name it by (perf's choose_best_symbol: a symbol with a size before
 *   one without, a strong one before a weak one, a global one before a
 *   local one, fewer leading underscores, a longer name, then the first
 *   in the symbol table); its own name is what addr2line says (DWARF's,
 *   where DWARF describes it).  Functions without a record have none
 *   other than their own.
 *     0  uint32  count
 *     4  uint32  0 (reserved)
 *     8  count records of 8 bytes:
 *          0  uint32  func   position in the function table; strictly
 *                            increasing, below nfunc
 *          4  uint32  name   blob offset of its NUL-terminated name (in
 *                            the Go 1.2 part, as any name)
 *   The section's size is 8 + 8 * count. */
#define PCLN_SECT_SYMNAME	7u
#define PCLN_SYMN_HDR		8u
#define PCLN_SYMN_SIZE		8u

/* pcsp value for "not known here" (pclnld --elf writes it where the CFA
 * is not sp-based): pclnrt_traceback stops (PCLNRT_STOP_NO_SP) unless
 * the CFA-rule pcdata below says where the frame is. */
#define PCLN_PCSP_UNKNOWN	(-1)

/* pcsp value for "the outermost frame": the CFI leaves the return address
 * undefined here (_start, a thread's first function after clone):
 * pclnrt_traceback writes the frame and stops (PCLNRT_STOP_OUTERMOST)
 * rather than read a caller that does not exist. */
#define PCLN_PCSP_OUTERMOST	(-2)

/* CFA rules beyond pcsp (pclnld --elf; honoured by pclnrt_traceback with
 * PCLNRT_TB_FP):
 *   pcdata PCLN_PCDATA_CFA: where nonzero, the CFA (the caller's sp just
 *     before its call; the return address is the word below it) is the
 *     frame pointer (rbp on x86-64) plus this value; 0: sp-based (pcsp).
 *   pcdata PCLN_PCDATA_FPSAVE: where nonzero, the caller's frame pointer
 *     is saved at CFA minus this value; 0: the frame pointer still holds
 *     the caller's value. */
#define PCLN_PCDATA_CFA		3u
#define PCLN_PCDATA_FPSAVE	4u

/* pcdata PCLN_PCDATA_DISCRIM (pclnld --elf): the DWARF discriminator of
 * the line row at a pc (0: none), for "FILE:LINE (discriminator N)" as
 * binutils prints it.  Only in functions where it is nonzero somewhere;
 * values are uint32 stored as int32. */
#define PCLN_PCDATA_DISCRIM	5u

/* Limits the encoder and decoder agree on. */
#define PCLN_VARINT_MAX		5	/* bytes in a uvarint of 32 bits */

/* --- blob access: the host and the BPF build ---
 *
 * Every read of a blob in this header and in the runtime's lookups goes
 * through pclnrt_load8/16/32 (below) at positions of type pclnrt_bptr,
 * and every loop a BPF program runs is bounded by PCLNRT_BOUND.  On the
 * host a position is a pointer, the loads read it, PCLNRT_BOUND(K, N)
 * is 1 and PCLNRT_WHILE(K, N, COND) is while (COND): the code is what it
 * would be without this layer (callgrind counts the same instructions
 * per lookup).  The BPF build
 * (bpf/pclnrt.bpf.c) compiles the same sources with clang -target bpf
 * and PCLNRT_BPF defined, after defining these itself: a position is an
 * offset into the blob store (a BPF array map), the loads are functions
 * of its own that read the map (the verifier checks each once),
 * PCLNRT_BOUND(K, N) is (K) < (N) and PCLNRT_WHILE(K, N, COND) runs at
 * most N times, counting in K: the verifier accepts only loops with a
 * constant bound.  pclnrt_str is a string's position (host: const
 * char *). */
#ifndef PCLNRT_BPF
typedef const uint8_t *pclnrt_bptr;
typedef const char *pclnrt_str;
#define PCLNRT_BOUND(k, n)	((void)(k), 1)
#define PCLNRT_WHILE(k, n, cond) while (((void)(k), (cond)))
#define PCLNRT_STR(p)		((const char *)(p))
#define PCLNRT_NOSTR		NULL
#endif
/* Loop bounds of the BPF build, where the host has none: rows decoded
 * by one lookup (at most a checkpoint stride: tables of longer strides
 * give PCLNRT_CORRUPT there), steps of a binary search, tables tried to
 * find a function's size in a blob without FUNCSIZE. */
#define PCLNRT_BPF_MAXROWS	64
#define PCLNRT_BPF_MAXSEARCH	64
#define PCLNRT_BPF_MAXTABS	8

/* The decoders below are the inner loops of every lookup and walk: force
 * them inline (GCC left pclnrt_pcstep out of line in non-PIC objects,
 * and the call's round trips through memory made walks 3.5x slower). */
#if defined(__GNUC__)
#define PCLNRT_INLINE	static inline __attribute__((always_inline))
#else
#define PCLNRT_INLINE	static inline
#endif

/* --- byte-wise loads, explicit byte order --- */

#ifndef PCLNRT_BPF
PCLNRT_INLINE uint8_t
pclnrt_load8(pclnrt_bptr p)
{
	return p[0];
}

static inline uint32_t
pclnrt_load32(pclnrt_bptr p, int big)
{
	if (big)
		return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
		    (uint32_t)p[2] << 8 | (uint32_t)p[3];
	return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 |
	    (uint32_t)p[1] << 8 | (uint32_t)p[0];
}

static inline uint32_t
pclnrt_load16(pclnrt_bptr p, int big)
{
	return big ? (uint32_t)p[0] << 8 | p[1] : (uint32_t)p[1] << 8 | p[0];
}
#endif /* !PCLNRT_BPF */

static inline uint64_t
pclnrt_load64(pclnrt_bptr p, int big)
{
	uint64_t a = pclnrt_load32(p, big), b = pclnrt_load32(p + 4, big);
	return big ? a << 32 | b : b << 32 | a;
}

/* Load a pointer-sized (PS = 4 or 8) unsigned integer. */
static inline uint64_t
pclnrt_loadptr(pclnrt_bptr p, unsigned ps, int big)
{
	return ps == 8 ? pclnrt_load64(p, big) : pclnrt_load32(p, big);
}

/* --- inline records: INLTREE (16 bytes) or INLPACK (8, bit-packed) ---
 *
 * struct pclnrt_inlform: how one section lays out its records: SIZE
 * (PCLN_INL_SIZE or PCLN_INLP_SIZE), RECS (offset of record 0 from the
 * section's start), the four widths and the name base of INLPACK.
 * pclnrt_inlform_get: read it from section S of LEN bytes (TAG
 * PCLN_SECT_INLTREE or PCLN_SECT_INLPACK) for NFUNC functions; returns 0,
 * or -1 if the header does not fit or its widths are out of range.
 * pclnrt_inlrec_get: record K at R (S + RECS + SIZE * K, which fits). */
struct pclnrt_inlform {
	uint64_t recs;
	uint32_t size, namebase;
	uint8_t w[4];		/* pbits, fbits, lbits, nbits */
	uint8_t at[4];		/* each field's first bit (0 if empty) */
	uint32_t mask[4];	/* each field's mask (0 if empty) */
};

struct pclnrt_inlrec {
	int32_t parent, file, line;
	uint32_t name;
};

#ifndef PCLNRT_BPF	/* the inline tree is the host's */
static inline int
pclnrt_inlform_get(pclnrt_bptr s, uint64_t len, uint32_t tag,
    uint64_t nfunc, int big, struct pclnrt_inlform *fm)
{
	unsigned i, sum = 0;

	fm->namebase = 0;
	for (i = 0; i < 4; i++) {
		fm->w[i] = fm->at[i] = 0;
		fm->mask[i] = 0;
	}
	if (tag == PCLN_SECT_INLTREE) {
		fm->size = PCLN_INL_SIZE;
		fm->recs = 4 * (nfunc + 1);
		return len >= fm->recs ? 0 : -1;
	}
	fm->size = PCLN_INLP_SIZE;
	fm->recs = PCLN_INLP_RECS(nfunc);
	if (len < fm->recs)
		return -1;
	for (i = 0; i < 4; i++) {
		fm->w[i] = s[i];
		if (fm->w[i] > PCLN_INLP_MAXBITS)
			return -1;
		if (fm->w[i] > 0) {
			fm->at[i] = (uint8_t)sum;
			fm->mask[i] = (uint32_t)(((uint64_t)1 << fm->w[i]) - 1);
		}
		sum += fm->w[i];
		if (sum > 64)
			return -1;
	}
	fm->namebase = pclnrt_load32(s + PCLN_INLP_NAMEBASE, big);
	return 0;
}

static inline void
pclnrt_inlrec_get(pclnrt_bptr r, const struct pclnrt_inlform *fm, int big,
    struct pclnrt_inlrec *o)
{
	uint64_t v;

	if (fm->size == PCLN_INL_SIZE) {
		o->parent = (int32_t)pclnrt_load32(r + PCLN_INL_PARENT, big);
		o->name = pclnrt_load32(r + PCLN_INL_NAME, big);
		o->file = (int32_t)pclnrt_load32(r + PCLN_INL_FILE, big);
		o->line = (int32_t)pclnrt_load32(r + PCLN_INL_LINE, big);
		return;
	}
	v = pclnrt_load64(r, big);
	o->parent = (int32_t)(((uint32_t)v & fm->mask[0]) - 1);
	o->file = (int32_t)((uint32_t)(v >> fm->at[1]) & fm->mask[1]);
	o->line = (int32_t)((uint32_t)(v >> fm->at[2]) & fm->mask[2]);
	o->name = fm->namebase + ((uint32_t)(v >> fm->at[3]) & fm->mask[3]);
}
#endif /* !PCLNRT_BPF */

/* --- the header: the only parse in the project ---
 *
 * pclnrt_header: read the header of B[0..LEN) (LEN >= 8): the byte order
 * from the magic (either order), the pc quantum and the pointer size,
 * into *H as stored.  Return PCLN_HDR_OK if they are valid, else the
 * first check that fails, in this order: PCLN_HDR_EMAGIC,
 * PCLN_HDR_EQUANTUM, PCLN_HDR_EPTRSIZE.  H->padok says whether the two
 * pad bytes are 0 (the runtime and the verifier require it; a trusted
 * reader does not look).
 *
 * pclnrt_nfunc_fits: do the header, NFUNC functab entries, the sentinel
 * and the file-table offset fit in a Go 1.2 part of GO12 bytes?
 * HDR_END(ps, nfunc) = HDR_END(ps, 0) + 2 * ps * nfunc (2 * ps is 8 or
 * 16: a shift, not a division). */
#define PCLN_HDR_OK		0
#define PCLN_HDR_EMAGIC		1
#define PCLN_HDR_EQUANTUM	2
#define PCLN_HDR_EPTRSIZE	3

struct pclnrt_header {
	uint8_t big, quantum, ptrsize;
	uint8_t padok;
};

#ifndef PCLNRT_BPF	/* opening a blob is the host's */
static inline int
pclnrt_header(const uint8_t *b, struct pclnrt_header *h)
{
	h->quantum = b[PCLN_HDR_QUANTUM];
	h->ptrsize = b[PCLN_HDR_PTRSIZE];
	h->padok = b[PCLN_HDR_PAD0] == 0 && b[PCLN_HDR_PAD1] == 0;
	h->big = pclnrt_load32(b, 1) == PCLN_GO12_MAGIC;
	if (!h->big && pclnrt_load32(b, 0) != PCLN_GO12_MAGIC)
		return PCLN_HDR_EMAGIC;
	if (h->quantum != 1 && h->quantum != 2 && h->quantum != 4)
		return PCLN_HDR_EQUANTUM;
	if (h->ptrsize != 4 && h->ptrsize != 8)
		return PCLN_HDR_EPTRSIZE;
	return PCLN_HDR_OK;
}
#endif /* !PCLNRT_BPF */

static inline int
pclnrt_nfunc_fits(uint64_t go12, unsigned ps, uint64_t nfunc)
{
	return go12 >= PCLN_HDR_END(ps, 0) &&
	    nfunc <= (go12 - PCLN_HDR_END(ps, 0)) >> (ps == 8 ? 4 : 3);
}

/* The name of table TABLE (PCLN_TAB_NAME_*), NULL for a pcdata table
 * or a bad number. */
static inline const char *
pclnrt_table_name(int table)
{
	static const char *const names[3] = {
		PCLN_TAB_NAME_PCSP, PCLN_TAB_NAME_PCFILE, PCLN_TAB_NAME_PCLN
	};

	return table >= 0 && table < 3 ? names[table] : NULL;
}

/* --- the trailer's footer and directory: the only parse in the project ---
 *
 * pclnrt_footer: if the blob B[0..LEN) ends in a trailer footer (its
 * magic; LEN >= PCLN_FOOTER_SIZE), fill *F with the footer's fields as
 * stored and return 1; else return 0 (a plain Go 1.2 blob).  The caller
 * judges the fields: the runtime ignores a trailer of another version,
 * the verifier reports it, the reader shows it.
 *
 * pclnrt_dir_fits: do the first N directory entries of F lie between
 * the directory offset and the footer?  No division.
 *
 * pclnrt_dirent: directory entry I of F, which pclnrt_dir_fits(F, I + 1)
 * accepted.
 *
 * pclnrt_sections: collect the first N entries of F's directory
 * (pclnrt_dir_fits(F, N)) into *S by tag: the known tags 1 ..
 * PCLN_SECT_LAST, the last entry of a repeated tag winning; entries of
 * other tags are skipped.  Returns 0, or -1 if some entry's section does
 * not lie inside [go12size, directory) (S then still holds every
 * entry).  At most N loop steps. */
#define PCLN_SECT_LAST		PCLN_SECT_SYMNAME	/* the highest tag */

struct pclnrt_footer {
	uint64_t at;		/* offset of the footer, LEN - PCLN_FOOTER_SIZE */
	uint32_t version, go12size, diroff, nsect;
	uint64_t checksum;	/* as stored (big-endian) */
};

struct pclnrt_dirent {
	uint32_t tag, off, size;
};

struct pclnrt_sections {
	uint8_t present[PCLN_SECT_LAST + 1];	/* by tag; [0] unused */
	uint64_t off[PCLN_SECT_LAST + 1];
	uint64_t size[PCLN_SECT_LAST + 1];
};

#ifndef PCLNRT_BPF	/* opening a blob is the host's */
static inline int
pclnrt_footer(const uint8_t *b, uint64_t len, int big,
    struct pclnrt_footer *f)
{
	static const char magic[] = PCLN_TRAILER_MAGIC;
	const uint8_t *ft;
	unsigned k;

	if (len < PCLN_FOOTER_SIZE)
		return 0;
	ft = b + len - PCLN_FOOTER_SIZE;
	for (k = 0; k < 8; k++)
		if (ft[PCLN_FOOTER_MAGIC + k] != (uint8_t)magic[k])
			return 0;
	f->at = len - PCLN_FOOTER_SIZE;
	f->version = pclnrt_load32(ft + PCLN_FOOTER_VERSION, big);
	f->go12size = pclnrt_load32(ft + PCLN_FOOTER_GO12SIZE, big);
	f->diroff = pclnrt_load32(ft + PCLN_FOOTER_DIROFF, big);
	f->nsect = pclnrt_load32(ft + PCLN_FOOTER_NSECT, big);
	f->checksum = pclnrt_load64(ft + PCLN_FOOTER_CHECKSUM, 1);
	return 1;
}

static inline int
pclnrt_dir_fits(const struct pclnrt_footer *f, uint64_t n)
{
	return f->diroff <= f->at && n * PCLN_DIRENT_SIZE <= f->at - f->diroff;
}

static inline void
pclnrt_dirent(const uint8_t *b, const struct pclnrt_footer *f, uint64_t i,
    int big, struct pclnrt_dirent *d)
{
	const uint8_t *p = b + f->diroff + i * PCLN_DIRENT_SIZE;

	d->tag = pclnrt_load32(p + PCLN_DIRENT_TAG, big);
	d->off = pclnrt_load32(p + PCLN_DIRENT_OFF, big);
	d->size = pclnrt_load32(p + PCLN_DIRENT_SIZEF, big);
}

static inline int
pclnrt_sections(const uint8_t *b, const struct pclnrt_footer *f, uint64_t n,
    int big, struct pclnrt_sections *s)
{
	struct pclnrt_dirent d;
	uint64_t i;
	unsigned k;
	int rc = 0;

	for (k = 0; k <= PCLN_SECT_LAST; k++) {
		s->present[k] = 0;
		s->off[k] = s->size[k] = 0;
	}
	for (i = 0; i < n; i++) {
		pclnrt_dirent(b, f, i, big, &d);
		if (d.off < f->go12size || d.off > f->diroff ||
		    d.size > f->diroff - d.off)
			rc = -1;
		if (d.tag >= 1 && d.tag <= PCLN_SECT_LAST) {
			s->present[d.tag] = 1;
			s->off[d.tag] = d.off;
			s->size[d.tag] = d.size;
		}
	}
	return rc;
}
#endif /* !PCLNRT_BPF */

/* --- the varint reader: the only one in the project ---
 *
 * Decode one uvarint (little-endian base 128, at most 5 bytes, value
 * below 2^32) from *P, not reading at or past END.  On success store it
 * in *V, advance *P and return 0.  Return -1 on truncation (END reached
 * inside the varint) and -2 on overflow (a 5th byte above 0x0f, or a
 * continuation bit on the 5th byte); *P is then left unchanged.
 * The one-byte case, which is most deltas, is the first test. */
PCLNRT_INLINE int
pclnrt_uvarint(pclnrt_bptr *p, pclnrt_bptr end, uint32_t *v)
{
	pclnrt_bptr q = *p;
	uint32_t x = 0;
	unsigned shift;

	if (q < end && pclnrt_load8(q) < 0x80) {
		*v = pclnrt_load8(q);
		*p = q + 1;
		return 0;
	}
	/* Two bytes (values below 2^14: most line and pc deltas the
	 * one-byte case misses).  Signed, for the BPF build's unsigned
	 * positions as for pointers. */
	if ((int64_t)(end - q) >= 2 && pclnrt_load8(q + 1) < 0x80) {
		*v = (pclnrt_load8(q) & 0x7f) | pclnrt_load8(q + 1) << 7;
		*p = q + 2;
		return 0;
	}
	for (shift = 0; shift < 35; shift += 7) {
		uint8_t b;
		if (q >= end)
			return -1;
		b = (uint8_t)pclnrt_load8(q++);
		if (shift == 28 && b > 0x0f)
			return -2;
		x |= (uint32_t)(b & 0x7f) << shift;
		if (b < 0x80) {
			*v = x;
			*p = q;
			return 0;
		}
	}
	return -2;	/* not reached: shift 28 with b > 0x0f returned */
}

PCLNRT_INLINE int32_t
pclnrt_unzigzag(uint32_t u)
{
	return (int32_t)((u >> 1) ^ (0u - (u & 1)));
}

/* --- the varint writer: the only one in the project ---
 *
 * Write V as a uvarint to BUF (room for PCLN_VARINT_MAX bytes); return
 * the bytes written.  pclnrt_zigzag maps a signed delta to the unsigned
 * value pclnrt_unzigzag undoes. */
static inline unsigned
pclnrt_put_uvarint(uint8_t *buf, uint32_t v)
{
	unsigned n = 0;

	while (v >= 0x80) {
		buf[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	buf[n++] = (uint8_t)v;
	return n;
}

static inline uint32_t
pclnrt_zigzag(int32_t v)
{
	return ((uint32_t)v << 1) ^ (0u - ((uint32_t)v >> 31));
}

/* --- the pc-value stepper: the only one in the project ---
 *
 * State of a walk over one pc-value table.  Initialise with
 * pclnrt_pcstep_init, then call pclnrt_pcstep until it returns <= 0.
 * After a return of 1 the row is: VALUE holds for [PC, NEXTPC).
 */
struct pclnrt_pcstep {
	pclnrt_bptr p;		/* next byte to decode */
	pclnrt_bptr end;	/* end of the blob: no read at or past it */
	uint64_t pc;		/* start of the current row */
	uint64_t nextpc;	/* end of the current row */
	int32_t value;		/* value of the current row */
	uint32_t quantum;
	int first;		/* 1 before the first row */
};

static inline void
pclnrt_pcstep_init(struct pclnrt_pcstep *s, pclnrt_bptr table,
    pclnrt_bptr end, uint64_t entry, uint32_t quantum)
{
	s->p = table;
	s->end = end;
	s->pc = entry;
	s->nextpc = entry;
	s->value = -1;
	s->quantum = quantum;
	s->first = 1;
}

/* Decode the next row.  Return 1 for a row, 0 at the end of the table,
 * -1 for a table that runs off the end of the blob, -2 for a varint that
 * overflows.  Each call consumes at least one byte or returns <= 0, so a
 * loop over it ends within (END - table) calls on any input. */
PCLNRT_INLINE int
pclnrt_pcstep(struct pclnrt_pcstep *s)
{
	uint32_t uv, pcd;
	int rc;

	if ((rc = pclnrt_uvarint(&s->p, s->end, &uv)) != 0)
		return rc;
	if (uv == 0 && !s->first)
		return 0;
	if ((rc = pclnrt_uvarint(&s->p, s->end, &pcd)) != 0)
		return rc;
	s->first = 0;
	s->pc = s->nextpc;
	s->value = (int32_t)((uint32_t)s->value + (uint32_t)pclnrt_unzigzag(uv));
	s->nextpc = s->pc + (uint64_t)pcd * s->quantum;
	return 1;
}

/* --- the function index lookup: the only one in the project ---
 *
 * pclnrt_index_ok: is IX, IXLEN a usable FUNCINDEX section header for a
 * text of [MINPC, MAXPC)?  O(1); a reader ignores an index that is not.
 *
 * pclnrt_index_find: IX, a FUNCINDEX section pclnrt_index_ok accepted;
 * FUNCTAB: the blob's function table of NFUNC entries
 * plus the sentinel, all inside the blob (the caller checked);
 * MINPC <= PC < the sentinel.  Store in *I the index of the last function
 * whose entry is <= PC and return 0, or return -1 if the index cannot
 * say (a damaged index: the caller falls back to a binary search, and
 * still checks entry(*I) <= PC < entry(*I + 1)).  At most maxscan
 * (<= PCLN_FIDX_SCAN_LIMIT) loop steps; no division. */
static inline int
pclnrt_index_ok(pclnrt_bptr ix, uint64_t ixlen, int big, uint64_t minpc,
    uint64_t maxpc)
{
	uint64_t shift, nb;

	if (!ix || ixlen < PCLN_FIDX_HDR || maxpc <= minpc)
		return 0;
	shift = pclnrt_load32(ix + PCLN_FIDX_SHIFT, big);
	nb = pclnrt_load32(ix + PCLN_FIDX_NBUCKET, big);
	return shift <= PCLN_FIDX_SHIFT_MAX &&
	    pclnrt_load32(ix + PCLN_FIDX_MAXSCAN, big) <= PCLN_FIDX_SCAN_LIMIT &&
	    nb == ((maxpc - minpc - 1) >> (shift + 4)) + 1 &&
	    ixlen == PCLN_FIDX_HDR + PCLN_FIDX_BUCKET * nb;
}

static inline int
pclnrt_index_find(pclnrt_bptr ix, pclnrt_bptr functab, unsigned ps,
    int big, uint64_t nfunc, uint64_t minpc, uint64_t pc, uint64_t *i)
{
	uint64_t off = pc - minpc, shift, b, k, n, maxscan;
	pclnrt_bptr rec;

	shift = pclnrt_load32(ix + PCLN_FIDX_SHIFT, big);
	maxscan = pclnrt_load32(ix + PCLN_FIDX_MAXSCAN, big);
	b = off >> (shift + 4);
	if (b >= pclnrt_load32(ix + PCLN_FIDX_NBUCKET, big))
		return -1;
	rec = ix + PCLN_FIDX_HDR + PCLN_FIDX_BUCKET * b;
	n = (uint64_t)pclnrt_load32(rec, big) +
	    pclnrt_load8(rec + 4 + ((off >> shift) & (PCLN_FIDX_NSUB - 1)));
	if (n >= nfunc)
		return -1;
	/* functab + 2 * ps * (n + 1) is entry n + 1 (the sentinel at most). */
	for (k = 0; k < maxscan && n + 1 < nfunc &&
	    PCLNRT_BOUND(k, PCLN_FIDX_SCAN_LIMIT); k++) {
		if (pclnrt_loadptr(functab + 2 * ps * (n + 1), ps, big) > pc)
			break;
		n++;
	}
	*i = n;
	return 0;
}

/* --- the checkpoint lookup: the only one in the project ---
 *
 * CK, CKLEN: a PCCKPT section that pclnrt_ckpt_ok accepted for NFUNC
 * functions; FI: a function index < NFUNC; TABLE: a table number; PCOFF:
 * pc - entry.  If the function's table has a checkpoint at or before
 * PCOFF, store the last one's state (row end offset, byte offset from
 * the table's start, value) and return 1; else return 0 (decode from
 * the entry).  Every read is checked against the function's block, so a
 * damaged section gives 0 or a wrong checkpoint, never a read outside
 * it.  At most 33 + 33 loop steps (two binary searches over uint32
 * counts; a valid block has at most 3 + 1024 descriptors), no division.
 *
 * Whatever it returns, it also stores in OUT->LO, OUT->HI the PCOFF
 * interval [LO, HI) over which the same call gives the same answer (the
 * same checkpoint, or 0): the bounds the search's comparisons put on
 * PCOFF, so the interval is exact even for an unsorted, damaged array.
 * In a valid block it is [this pcoff, the next pcoff).  The pc-value
 * cache relies on it to return exactly what the uncached lookup would. */
struct pclnrt_ckpt {
	uint32_t pcoff;
	uint32_t byteoff;
	int32_t value;
	uint64_t lo, hi;	/* the PCOFF interval of this answer */
};

static inline int
pclnrt_ckpt_ok(pclnrt_bptr ck, uint64_t cklen, int big, uint64_t nfunc)
{
	if (!ck || cklen < PCLN_CKPT_HDR)
		return 0;
	return pclnrt_load32(ck + PCLN_CKPT_STRIDE, big) >= 1 &&
	    cklen == PCLN_CKPT_HDR + 4 * (nfunc + 1) +
	    (uint64_t)pclnrt_load32(ck + PCLN_CKPT_BLKBYTES, big);
}

static inline int
pclnrt_ckpt_find(pclnrt_bptr ck, uint64_t cklen, int big, uint64_t nfunc,
    uint64_t fi, uint32_t table, uint64_t pcoff, struct pclnrt_ckpt *out)
{
	uint64_t b0, b1, bl, nd, lo, hi, mid, first, cnt, w, aw, k = 0;
	pclnrt_bptr blk, d, a;

	out->lo = 0;
	out->hi = UINT64_MAX;
	if (fi >= nfunc)
		return 0;
	b0 = pclnrt_load32(ck + PCLN_CKPT_HDR + 4 * fi, big);
	b1 = pclnrt_load32(ck + PCLN_CKPT_HDR + 4 * fi + 4, big);
	lo = PCLN_CKPT_HDR + 4 * (nfunc + 1);	/* the blocks */
	if (b0 + 4 > b1 || b1 > cklen - lo)
		return 0;
	blk = ck + lo + b0;
	bl = b1 - b0;
	nd = pclnrt_load32(blk, big);
	if (nd == 0 || 4 + PCLN_CKPT_DESC * nd > bl)
		return 0;
	/* The descriptor of TABLE, sorted by table. */
	lo = 0;
	hi = nd;
	PCLNRT_WHILE(k, 33, hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		if (pclnrt_load16(blk + 4 + PCLN_CKPT_DESC * mid, big) <= table)
			lo = mid;
		else
			hi = mid;
	}
	d = blk + 4 + PCLN_CKPT_DESC * lo;
	if (pclnrt_load16(d, big) != table)
		return 0;
	w = pclnrt_load16(d + 2, big) == PCLN_CKPT_NARROW ? 2 : 4;
	first = pclnrt_load32(d + 4, big);
	cnt = pclnrt_load32(d + 8, big);
	if (cnt == 0 || first > bl || PCLN_CKPT_ARRAYS(cnt, w) > bl - first)
		return 0;
	a = blk + first;
	aw = (cnt * w + 3) & ~(uint64_t)3;	/* one padded array */
	/* The last pcoff <= PCOFF. */
	lo = 0;
	hi = cnt;
	PCLNRT_WHILE(k, 33, lo < hi) {
		uint64_t p;
		mid = lo + (hi - lo) / 2;
		p = w == 2 ? pclnrt_load16(a + 2 * mid, big) :
		    pclnrt_load32(a + 4 * mid, big);
		if (p <= pcoff) {
			lo = mid + 1;
			out->lo = p > out->lo ? p : out->lo;
		} else {
			hi = mid;
			out->hi = p < out->hi ? p : out->hi;
		}
	}
	if (lo == 0)
		return 0;
	lo--;
	if (w == 2) {
		out->pcoff = pclnrt_load16(a + 2 * lo, big);
		out->byteoff = pclnrt_load16(a + aw + 2 * lo, big);
	} else {
		out->pcoff = pclnrt_load32(a + 4 * lo, big);
		out->byteoff = pclnrt_load32(a + aw + 4 * lo, big);
	}
	out->value = (int32_t)pclnrt_load32(a + 2 * aw + 4 * lo, big);
	return 1;
}

/* --- a function's end: the only rule in the project ---
 *
 * With FUNCSIZE, a function ends at entry + its size.  Without it, the
 * code ends where the first present of its tables, in the order pcsp,
 * pcln, pcfile, pcdata[0], pcdata[1], ..., ends (every table covers
 * exactly the function); without any table, at the next entry
 * (doc/FORMAT.md §7).
 *
 * pclnrt_sizing_table(K): the K-th table number in that order.
 *
 * pclnrt_table_end: walk the table at P (reading nothing at or past END)
 * of a function at ENTRY with pc quantum Q; store where its last row
 * ends in *OUT and return 0, or return -1 if it is damaged or a row ends
 * beyond LIMIT.  At most END - P steps.
 *
 * pclnrt_table_size: the encoded bytes of the table at P, its
 * terminating 0 included (up to where decoding stops if it is damaged;
 * nothing at or past END is read).
 *
 * pclnrt_func_end: the end, without FUNCSIZE, of the function at ENTRY
 * whose Func record is at FUNCOFF of B[0..LEN) (its fixed part, the
 * PCLN_FUNC_SIZE(PS) bytes, inside the blob; the caller checked), the
 * next entry being NEXT; tables are read up to TABEND <= LEN.  Return 0
 * with *END, or -1 if a pcdata slot lies outside the blob or the sizing
 * table starts at or past TABEND, is damaged or runs past NEXT.  A slot
 * past the blob's end stops the loop. */
static inline uint64_t
pclnrt_sizing_table(uint64_t k)
{
	return k == 0 ? PCLN_TAB_PCSP : k == 1 ? PCLN_TAB_PCLN :
	    k == 2 ? PCLN_TAB_PCFILE : k;
}

static inline int
pclnrt_table_end(pclnrt_bptr p, pclnrt_bptr end, uint64_t entry,
    uint32_t q, uint64_t limit, uint64_t *out)
{
	struct pclnrt_pcstep s;
	unsigned k = 0;
	int rc = 1;

	pclnrt_pcstep_init(&s, p, end, entry, q);
	PCLNRT_WHILE(k, PCLNRT_BPF_MAXROWS, (rc = pclnrt_pcstep(&s)) == 1)
		if (s.nextpc < s.pc || s.nextpc > limit)
			return -1;
	if (rc != 0)
		return -1;
	*out = s.nextpc;
	return 0;
}

static inline uint64_t
pclnrt_table_size(pclnrt_bptr p, pclnrt_bptr end, uint32_t q)
{
	struct pclnrt_pcstep s;

	pclnrt_pcstep_init(&s, p, end, 0, q);
	while (pclnrt_pcstep(&s) > 0)
		;
	return (uint64_t)(s.p - p);
}

static inline int
pclnrt_func_end(pclnrt_bptr b, uint64_t len, uint64_t tabend, unsigned ps,
    int big, uint32_t q, uint64_t funcoff, uint64_t entry, uint64_t next,
    uint64_t *end)
{
	uint64_t k, t, slot;
	uint64_t npcdata = pclnrt_load32(b + funcoff + PCLN_FUNC_NPCDATA(ps),
	    big);
	uint32_t off;

	for (k = 0; k < 3 + npcdata && PCLNRT_BOUND(k, PCLNRT_BPF_MAXTABS);
	    k++) {
		t = pclnrt_sizing_table(k);
		slot = funcoff + (t < PCLN_TAB_PCDATA(0) ?
		    PCLN_FUNC_PCSP(ps) + 4 * t :
		    PCLN_FUNC_PCDATA(ps, t - PCLN_TAB_PCDATA(0)));
		if (slot > len || len - slot < 4)
			return -1;
		if ((off = pclnrt_load32(b + slot, big)) == 0)
			continue;
		if (off >= tabend)
			return -1;
		return pclnrt_table_end(b + off, b + tabend, entry, q, next,
		    end);
	}
	*end = next;
	return 0;
}

/* --- finding a pc's function: the only search in the project ---
 *
 * FUNCTAB: the blob's function table of NFUNC >= 1 entries plus the
 * sentinel, all inside the blob (the caller checked); MINPC = entry 0 <=
 * PC < the sentinel; IX: a FUNCINDEX section pclnrt_index_ok accepted,
 * or NULL.  Return the largest I with entry(I) <= PC: from the index in
 * one bucket read and at most maxscan steps, else (no index, or a
 * damaged one whose answer the function table contradicts) by binary
 * search, which keeps entry(lo) <= PC < entry(hi) and so needs no bounds
 * test: the sentinel is entry(NFUNC).  At most 64 + 32 steps even on an
 * unsorted table; the caller still checks entry(I) <= PC < entry(I + 1)
 * (an unsorted table can break it). */
PCLNRT_INLINE uint64_t
pclnrt_ftab_entry(pclnrt_bptr functab, unsigned ps, int big, uint64_t i)
{
	return pclnrt_loadptr(functab + 2 * (uint64_t)ps * i, ps, big);
}

PCLNRT_INLINE uint64_t
pclnrt_functab_find(pclnrt_bptr functab, unsigned ps, int big,
    uint64_t nfunc, pclnrt_bptr ix, uint64_t minpc, uint64_t pc)
{
	uint64_t lo = 0, hi = nfunc, mid, k = 0;

	if (ix && pclnrt_index_find(ix, functab, ps, big, nfunc,
	    minpc, pc, &lo) == 0 &&
	    pclnrt_ftab_entry(functab, ps, big, lo) <= pc &&
	    pclnrt_ftab_entry(functab, ps, big, lo + 1) > pc)
		return lo;
	lo = 0;
	PCLNRT_WHILE(k, PCLNRT_BPF_MAXSEARCH, hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		if (pclnrt_ftab_entry(functab, ps, big, mid) <= pc)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* --- resuming a walk at a checkpoint: the only one in the project ---
 *
 * S: a walk just initialised at the start of table TABLE of function FI
 * (S->pc is its entry); CK, CKLEN: a PCCKPT section pclnrt_ckpt_ok
 * accepted for NFUNC functions, or NULL.  Move S to the table's last
 * checkpoint at or before PC, if there is one inside the blob; else
 * leave S at the table's start.  Either way the next pclnrt_pcstep
 * decodes the row holding the checkpoint's end.
 *
 * pclnrt_pcstep_seek_range does the same and, if GOT is not NULL,
 * stores in GOT->LO, GOT->HI the interval of PC - entry over which the
 * same starting point is chosen (pclnrt_ckpt_find's; all of them
 * without checkpoints): the pc-value cache's exactness needs it. */
PCLNRT_INLINE void
pclnrt_pcstep_seek_range(struct pclnrt_pcstep *s, pclnrt_bptr ck,
    uint64_t cklen, int big, uint64_t nfunc, uint64_t fi, uint32_t table,
    uint64_t pc, struct pclnrt_ckpt *got)
{
	struct pclnrt_ckpt c;

	c.lo = 0;
	c.hi = UINT64_MAX;
	if (ck && pclnrt_ckpt_find(ck, cklen, big, nfunc, fi, table,
	    pc - s->pc, &c) && c.byteoff < (uint64_t)(s->end - s->p)) {
		s->p += c.byteoff;
		s->pc = s->nextpc = s->pc + c.pcoff;
		s->value = c.value;
		s->first = 0;
	}
	if (got != NULL) {
		got->lo = c.lo;
		got->hi = c.hi;
	}
}

PCLNRT_INLINE void
pclnrt_pcstep_seek(struct pclnrt_pcstep *s, pclnrt_bptr ck,
    uint64_t cklen, int big, uint64_t nfunc, uint64_t fi, uint32_t table,
    uint64_t pc)
{
	pclnrt_pcstep_seek_range(s, ck, cklen, big, nfunc, fi, table, pc,
	    NULL);
}

#endif /* PCLNRT_FORMAT_H */
