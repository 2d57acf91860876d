/* perf_internal.h -- shared by lib/perf's files (not installed). */
#ifndef PCLN_PERF_INTERNAL_H
#define PCLN_PERF_INTERNAL_H

#include <stddef.h>
#include <sys/types.h>
#include <stdint.h>

#include "internal.h"
#include "pcln_perf.h"

/* An id of the file's attributes, for the id -> attribute search. */
struct perf_idmap {
	uint64_t id;
	size_t attr;
};

/* A record of the data section, for the time-ordered walk: OFFSET is
 * its byte offset in the file, or (PERF_VOFF_CHUNK set) the chunk and
 * the byte offset in it of a record that came compressed. */
struct perf_recidx {
	uint64_t time;
	uint64_t offset;
	uint64_t seq;			/* the scan's count: equal times go
					 * in file order, as perf's do */
	uint32_t type;			/* the record's */
};

#define PERF_SPARES		8
#define PERF_VOFF_CHUNK		(UINT64_C(1) << 63)
#define PERF_VOFF_SHIFT		40	/* the chunk's id above this */
#define PERF_VOFF_MASK		((UINT64_C(1) << PERF_VOFF_SHIFT) - 1)
#define PERF_CHUNK_IDS		(UINT64_C(1) << (63 - PERF_VOFF_SHIFT))

/* The records of one PERF_RECORD_COMPRESSED (perf record -z), as
 * decompressed: DATA[0..LEN) is whole records, the first ones perhaps
 * begun in the record before (perf cuts its zstd stream anywhere).
 * Freed once every record framed in it went out and the caller moved
 * on. */
struct perf_chunk {
	uint8_t *data;
	size_t len, cap;
	uint64_t file_off;		/* of the COMPRESSED record; of the
					 * first record of a chunk read from
					 * the file (INFILE) */
	size_t pending;			/* its records not yet gone out (and
					 * 1 while the scan is in it: INFILE) */
	int infile;			/* read from the file (perf_file.c):
					 * a record's offset is FILE_OFF + its
					 * place in DATA */
	int rabuf;			/* DATA is the reader thread's (a
					 * COMPRESSED record it decompressed) */
	struct perf_zseg *zseg;		/* a COMPRESSED record's: the
					 * segment DATA is in (released when
					 * it is freed) */
	int mapped;			/* DATA is in the file's mapping
					 * (INFILE, PCLN_PERF_MAPREAD): not
					 * freed */
	uint64_t next_off;		/* INFILE: the file offset after its
					 * last record */
	size_t skip;			/* the bytes of the buffer before
					 * DATA (a piece of the reader's,
					 * perf_file.c): the buffer is DATA
					 * less SKIP, CAP bytes */
};

/* perf record -z's decompressor (perf_record.c).  The records are
 * decompressed by zstd's streaming decompressor, which keeps the
 * window in a buffer of its own and copies out of it, into segments,
 * one after the other in a segment until it is nearly full, then in
 * another whose units all went back, or a new one.  (Straight into the
 * segments, with zstd's buffer-less API, the segments held the window
 * and zstd's matches reached into them: on the guest of 2026-12-07 the
 * -z bench profile took 21.8 ms against 20.5 this way, medians of 31 in
 * turns; its 55.7 MB decompressed in 13 ms into one flat buffer, in 7.3
 * to 7.7 ms copied out into one of 1 to 4 MiB.)  The units handed out
 * (whole records) count in their segment's REFS, which the walk
 * releases (pclni_perf_zseg_release, from either thread). */
struct perf_zseg {
	struct perf_zseg *next;		/* the decompressor's, all */
	uint8_t *buf;
	size_t cap, maplen;		/* pcln_huge_alloc's */
	unsigned refs;			/* (atomic) */
};

/* DCTX the zstd context (NULL before one); INHDR: a frame's header
 * comes next (or has begun), HDR its bytes so far (NHDR), looked at for
 * its window before zstd reads them; BLOCKMAX the most a block
 * decompresses to; SEGS every segment, CUR the one written, at WPOS,
 * RPOS the start of a record the last COMPRESSED record cut (NTAIL =
 * WPOS - RPOS after each); HINT the most a record decompressed to.  One
 * per reader of the stream: the walk's, or the reader thread's
 * (perf_file.c). */
struct perf_zs {
	void *dctx;
	int inhdr;
	uint8_t hdr[32];
	size_t nhdr;
	size_t blockmax;
	struct perf_zseg *segs, *cur;
	size_t wpos, rpos;
	size_t ntail;
	size_t hint;
	size_t segmin;			/* (for tests) the least a segment
					 * is, 0: ZSEG_MIN */
	uint64_t nswitch;		/* (for tests) the moves to another
					 * segment */
};

#define CLAIM_SHIFT	16

struct pcln_perf {
	const uint8_t *buf;
	size_t len;
	int big;
	pcln_perf_info info;
	pcln_perf_attr *attrs;
	uint64_t *ids;			/* every attribute's ids */
	struct perf_idmap *idmap;	/* sorted by id */
	size_t nidmap;
	pcln_perf_buildid *buildids;
	char *cmdline;			/* malloc'ed, joined by spaces */
	char warn[512];
	char badmsg[256];		/* the last bad record's message */
	/* sample layout, the same for every attribute (perf requires it) */
	uint64_t sample_type0;
	int id_pos;			/* u64 index of the id in a sample,
					 * -1 if none */
	int id_pos_end;			/* u64 index from the end in a
					 * sample_id trailer, -1 if none */
	/* the walk */
	uint64_t pos;			/* next record's offset (unordered) */
	uint64_t lasttime;
	int ordered;			/* PCLN_PERF_ORDERED */
	/* The records framed and not yet gone out, sorted: ORDER[NEXT..
	 * NREADY) may go, the rest wait for a later round (perf_record.c,
	 * scan_round); CAPORDER slots. */
	struct perf_recidx *order;
	size_t norder, caporder, next, nready;
	uint64_t scanpos;		/* the next record to frame */
	int scanned;			/* to the end (or the damage) */
	uint64_t scantime;		/* the last record's time (file order) */
	uint64_t scanseq;		/* records framed so far */
	uint64_t newest;		/* the newest time framed */
	uint64_t limit;			/* the newest before the last round */
	pcln_err damage;		/* where the ordered scan stopped */
	int damaged;
	/* How much of a record ahead to ask for (prefetch_records): the
	 * bytes from its start that the last sample's walk read, told
	 * by pclni_perf_used (lib/perf/perf_space.c). */
	size_t pf_bytes;
	const uint8_t *tracing;		/* pcln_perf_tracing_data's */
	size_t ntracing;
	/* perf record -z (perf_record.c, decompress): the zstd stream runs
	 * through every COMPRESSED record, decompressed by Z (or by the
	 * reader thread's, RA: then Z.NTAIL is only the count it
	 * reported); CHUNKS[0..NCHUNKS) are those of ids CHUNK0.., freed
	 * from the front. */
	struct perf_zs z;
	struct perf_chunk *chunks;
	size_t nchunks, capchunks;
	uint64_t chunk0;
	uint8_t *spare[PERF_SPARES];	/* freed chunks' buffers, for the
					 * next (no page faults, no copies
					 * as a buffer grows) */
	size_t sparecap[PERF_SPARES];
	/* pcln_perf_share: the samples of blocks SHARE_PART, SHARE_PART +
	 * SHARE_N, ... of SHARE_BLOCK samples go out (SHARE_N 0: all);
	 * NSAMPLES counts the samples met. */
	unsigned share_part, share_n, share_block;
	unsigned share_shift;		/* log2 of a power-of-two block of
					 * two parts, else 0 */
	uint64_t nsamples;
	uint64_t done_chunk;		/* 1 + the id of the chunk whose last
					 * record went out, or 0 */
	uint64_t ndecomp;		/* records read from them */
	uint64_t upos;			/* the unordered walk in a chunk, or
					 * 0 */
	/* pcln_perf_open_fd (perf_file.c): FD >= 0, the data section is
	 * read with pread into chunks (INFILE) from SCANPOS on, FCUR (1 +
	 * the id of the chunk the scan is in, or 0) at FPOS; the rest of
	 * the file through MAP[0..MAPLEN), which the close unmaps.  A
	 * chunk's framing damage waits in FDAMAGE until the scan reaches
	 * it.  FD is -1 for pcln_perf_open. */
	int fd;
	void *map;
	size_t maplen;
	uint64_t fcur;
	size_t fpos;
	pcln_err fdamage;
	int fdamaged;
	uint64_t nread;			/* bytes read from FD */
	size_t chunk_size;		/* what a chunk reads (FILE_CHUNK) */
	/* PCLN_PERF_MAPREAD: how the chunks are read (PCLNI_PERF_READ_*);
	 * while it probes, the fastest of each way so far, in ns a MiB,
	 * the chunks probed and the buffer the copies go to (PROBELEN
	 * bytes, pcln_huge_alloc's, or NULL).  Only the thread that reads
	 * the chunks (the reader, or the walk) touches them. */
	int readmode;
	unsigned nprobe;
	uint64_t probe_map, probe_copy;
	uint8_t *probebuf;
	size_t probelen;
	uint64_t dropped;		/* MAPREAD: the mapping's entries
					 * before this file offset dropped */
	/* pcln_perf_open_twin: TWIN_OF's mapping is this handle's (MAP not
	 * its own: not unmapped, nor dropped from here); HAS_TWIN: another
	 * handle reads in this one's mapping (it drops later). */
	const struct pcln_perf *twin_of;
	int has_twin;
	/* (the first's) a chunk being populated, or populated, by one of
	 * the two (CLAIM_BUSY, CLAIM_DONE in perf_file.c), by its start's
	 * 64 KiB (CLAIM_SHIFT); NULL: none */
	uint8_t *claim;
	size_t nclaim;
	unsigned claim_spin;		/* the pauses a twin waits for one
					 * being populated */
	struct perf_ra *ra;		/* PCLN_PERF_READAHEAD's reader
					 * thread (perf_file.c), or NULL */
};

/* The bytes that follow record R (SIZE bytes, framing sound) and its
 * size does not count: an AUXTRACE's payload (u64 at 8), a pipe's
 * HEADER_TRACING_DATA's tracing data (u32 at 8, 8-aligned by perf).  0
 * for the others. */
static inline uint64_t perf_payload(const pcln_perf *p, const uint8_t *r,
    uint16_t size);

/* A COMPRESSED record decompressed (pclni_perf_zunpack): R 0, DATA
 * holds LEN bytes of whole records (in SEG, of which the unit holds a
 * count: NULL if LEN is 0), and the decompressor keeps NTAIL bytes of
 * the next; R -1, ERR (DATA NULL). */
struct perf_zunit {
	uint8_t *data;
	size_t len, ntail;
	struct perf_zseg *seg;
	int r;
	pcln_err err;
};
/* Decompress the COMPRESSED record R (SIZE bytes at file offset OFF) of
 * P with Z, after the record the one before cut, into *U: 0, or -1 (no
 * memory, a zstd error, damaged framing: U->err).  Reads only what the
 * open fixed of P: the reader thread calls it. */
int pclni_perf_zunpack(const pcln_perf *p, struct perf_zs *z, uint64_t off,
    const uint8_t *r, uint16_t size, struct perf_zunit *u);
/* A unit's segment given back (either thread). */
void pclni_perf_zseg_release(struct perf_zseg *s);
/* For tests: the segments the walk's own decompressor made, and its
 * moves from one to another. */
size_t pclni_perf_zsegs(const pcln_perf *p, uint64_t *nswitch);
void pclni_perf_zs_free(struct perf_zs *z);
/* The reader thread's next COMPRESSED record, decompressed (in file
 * order, as the scan meets them): 1 and *U; 0 if the thread does not
 * decompress them (there is none, or no libzstd): the walk does.
 * (perf_file.c) */
int pclni_perf_ra_zunit(pcln_perf *p, struct perf_zunit *u);
/* For tests: how many the walk took from the reader thread. */
uint64_t pclni_perf_ra_zunits(const pcln_perf *p);
/* For tests: the pauses the walk waits awake for a chunk before it
 * sleeps (0 where the process may run on one CPU only; fixed when the
 * reader starts, at the first record).  (perf_file.c) */
unsigned pclni_perf_ra_spin(const pcln_perf *p);
/* The pieces of the data section the reader thread's walk took (0: it
 * read in chunks, or had no reader), and of them, in *BYWALK (where not
 * NULL), those the walk copied itself. */
uint64_t pclni_perf_ra_pieces(const pcln_perf *p, uint64_t *bywalk);
/* For tests: the decompressors' segments SEGMIN bytes at least, and the
 * reader's lead ZQBYTES of records at most (0: the defaults); and the
 * most bytes of records the reader had ahead. */
void pclni_perf_set_zlimits(pcln_perf *p, size_t segmin, size_t zqbytes);
size_t pclni_perf_ra_zmax(const pcln_perf *p);
/* For tests (PCLN_PERF_PIN): 1 while the walk's thread is kept on the
 * CPU *CPU (the one it was kept on, or -1 if never), 0 otherwise; *RTID
 * the reader's thread id (0 before it ran). */
int pclni_perf_ra_pin(const pcln_perf *p, int *cpu, pid_t *rtid);

/* Free what perf record -z's records and the file's chunks took
 * (perf_record.c). */
void pclni_perf_free_chunks(pcln_perf *p);
/* A chunk's buffer of at least WANT bytes (its size in *CAP), a spare
 * one if one is large enough; NULL: no memory.  And B (CAP bytes) given
 * back, kept for the next chunk or freed (perf_record.c). */
uint8_t *pclni_perf_buf_get(pcln_perf *p, size_t want, size_t *cap);
void pclni_perf_buf_put(pcln_perf *p, uint8_t *b, size_t cap);
/* The framing of the record R at file offset OFF, of which AVAIL bytes
 * are at hand: 1 and the bytes it spans (its size and payload) in
 * *STEP; 0 if AVAIL is too short to tell; -1 and ERR if it is damaged
 * (a size below 8, or past the data section's end).  (perf_record.c) */
int pclni_perf_frame(const pcln_perf *p, const uint8_t *r, uint64_t off,
    uint64_t avail, uint64_t *step, pcln_err *err);
/* The file's next chunk of records, from P->scanpos (perf_file.c): 0
 * and P->fcur set, or -1 and ERR. */
int pclni_perf_file_chunk(pcln_perf *p, pcln_err *err);
/* A chunk's buffer given back: to the reader thread's, the spares or
 * free (DATA NULL then).  (perf_file.c) */
void pclni_perf_chunk_free(pcln_perf *p, struct perf_chunk *c);
/* The reader thread's buffer B (CAP bytes) given back; the thread
 * stopped and its buffers freed (P->ra NULL then).  (perf_file.c) */
void pclni_perf_ra_put(pcln_perf *p, uint8_t *b, size_t cap);
void pclni_perf_ra_close(pcln_perf *p);
/* The reader thread stopped (joined): it reads no chunk from then on,
 * and its buffers are still there for pclni_perf_ra_put. */
void pclni_perf_ra_stop(pcln_perf *p);
/* For tests: read N bytes a chunk from now on (at least
 * PCLNI_PERF_CHUNK_MIN: a record is at most 64 KiB, and its payload's
 * size is in its first 16 bytes). */
#define PCLNI_PERF_CHUNK_MIN	((size_t)65536 + 16)
void pclni_perf_set_chunk(pcln_perf *p, size_t n);
/* How the data section's chunks are read (perf_file.c): copied with
 * pread, in the mapping (populated ahead), or the one of the two that
 * was faster on the first chunks (PCLN_PERF_MAPREAD).  For tests: the
 * way from now on. */
#define PCLNI_PERF_READ_COPY	(-1)
#define PCLNI_PERF_READ_PROBE	0
#define PCLNI_PERF_READ_MAP	1
void pclni_perf_set_read(pcln_perf *p, int mode);
/* For tests: the way the chunks are read now (PCLNI_PERF_READ_*). */
int pclni_perf_read_mode(const pcln_perf *p);

/* The walk of the sample at REC read its record up to REC + BYTES. */
void pclni_perf_used(const pcln_perf *p, size_t bytes);

static inline uint64_t
perf_u64(const pcln_perf *p, const uint8_t *q)
{
	return pclnrt_load64(q, p->big);
}

static inline uint32_t
perf_u32(const pcln_perf *p, const uint8_t *q)
{
	return pclnrt_load32(q, p->big);
}

static inline uint16_t
perf_u16(const pcln_perf *p, const uint8_t *q)
{
	return (uint16_t)pclnrt_load16(q, p->big);
}

static inline uint64_t
perf_payload(const pcln_perf *p, const uint8_t *r, uint16_t size)
{
	uint32_t type = perf_u32(p, r);

	if (type == PCLN_PERF_RECORD_AUXTRACE && size >= 16)
		return perf_u64(p, r + 8);
	if (type == PCLN_PERF_RECORD_HEADER_TRACING_DATA && size >= 16)
		return perf_u32(p, r + 8);
	return 0;
}

/* perf_header.c */
int pclni_perf_open_header(pcln_perf *p, pcln_err *err);
/* The attribute whose ids hold ID, or NULL. */
pcln_perf_attr *pclni_perf_attr_of(const pcln_perf *p, uint64_t id);


#endif /* PCLN_PERF_INTERNAL_H */
