/* perf_file.c -- a perf.data file read from its descriptor.
 *
 * A --call-graph dwarf sample is a record of some 8 KiB, nearly all of
 * it the user stack copy, and a profile is read once from its start to
 * its end.  Read through a mapping, each page of it costs a TLB miss
 * and a page-table entry: on the guest where this was measured, 1.2 us
 * a page whether MAP_POPULATE made the entries or faults did, 20 ms for
 * a profile of 67 MB.  Read with pread into a buffer of 256 KiB that is
 * used again and again, the kernel's copy of the same 67 MB took 4.6 ms
 * (bench/mapfloor.c times both).  On a later guest it was the other way
 * round: the page cache's large folios mapped with huge entries, 1.7 ms
 * to map and populate a profile of 411 MB against 38 ms to copy it.  So
 * the data section is read here in chunks of whole records, copied
 * (by the reader thread, in pieces at fixed places: below) or,
 * with PCLN_PERF_MAPREAD, in the mapping where the first chunks showed
 * that faster (below), which the walk frees (into its spare buffers, or
 * the mapping's entries dropped) once their records went out, as it
 * frees the records of perf record -z (perf_record.c); the header, the
 * attributes and the feature
 * sections, a few KiB at both ends of the file, are read through a
 * mapping that is not populated: only their pages come in.
 */
#define _GNU_SOURCE 1	/* sched_getaffinity, CPU_COUNT */
#include <config.h>

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "perf_internal.h"

/* The bytes read at a time: whole records up to this, so a chunk holds
 * some 30 samples of 8 KiB.  perf record's rounds are some 250 KiB (its
 * ring buffer's half), and the ordered walk keeps two rounds' chunks:
 * four or five buffers, in PERF_SPARES, warm in the caches. */
#define FILE_CHUNK	((size_t)1024 << 10)

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ	22	/* Linux 5.14 */
#endif

/* N bytes at OFF of FD into B: the count read in *GOT (short at the
 * file's end).  0, or -1 and errno. */
static int
read_full(int fd, uint8_t *b, size_t n, uint64_t off, size_t *got)
{
	size_t k = 0;
	ssize_t r;

	while (k < n) {
		r = pread(fd, b + k, n - k, (off_t)(off + k));
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (r == 0)
			break;
		k += (size_t)r;
	}
	*got = k;
	return 0;
}

/* A chunk read: DATA (CAP bytes) holds LEN bytes of whole records from
 * FILE_OFF, the next chunk starts at NEXT_OFF; GOT bytes were read, in
 * NS nanoseconds.  MAPPED: DATA is in the file's mapping (CAP 0).  R
 * -1: nothing was read (ERR; DATA given back); NOMAP: the file's size
 * could not be had to bring the mapping's pages in, the chunk is to be
 * read; DAMAGED: the chunk's records, then the damage in ERR. */
struct fill {
	uint8_t *data;
	size_t cap, len, got;
	size_t skip;			/* the buffer's bytes before DATA (a
					 * piece's: DATA less SKIP is the
					 * buffer, CAP bytes) */
	uint64_t file_off, next_off, ns;
	int r, damaged, mapped, nomap;
	pcln_err err;
};

static uint64_t
now_ns(void)
{
	struct timespec ts;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A twin's claim of a chunk (pcln_perf_open_twin): being brought in
 * (touch_range), brought in; the other waits for it this many pauses
 * (some 25 to 50 ns) at most, where the process may run on two CPUs
 * (on one, the other could not go on while it waits). */
#define CLAIM_BUSY	1
#define CLAIM_DONE	2
#define CLAIM_SPIN	8192

static inline void cpu_relax(void);

/* With a twin (pcln_perf_open_twin), the claim of the chunk at OFF in
 * the first handle's CLAIM (its first 64 KiB: no two chunks start in
 * the same), or NULL. */
static uint8_t *
claim_of(const pcln_perf *p, uint64_t off)
{
	const pcln_perf *f = p->twin_of != NULL ? p->twin_of : p;
	size_t k = (size_t)(off >> CLAIM_SHIFT);

	if ((p->twin_of == NULL && !p->has_twin) || f->claim == NULL ||
	    k >= f->nclaim)
		return NULL;
	return &f->claim[k];
}

/* The pages of the mapping from START (a page's) up to END, brought
 * in: one byte read in each 64 KiB.  A read fault in a file's mapping
 * maps the page cache's pages around it, up to fault_around_bytes
 * (64 KiB unless an administrator changed it in debugfs) at a time, as
 * many faults as MADV_POPULATE_READ takes, but without the walk of the
 * pages one by one that follows them there (follow_page_pte, 8 % of the
 * CPU on bench/perf.sh's long profile): that profile, 15.3 ms against
 * 16.0 ms (medians of 10, in turn), 1.3 ms of CPU less.  (Where the
 * window is smaller, the pages between fault in when the walk reads
 * them: slower, still right.)  The caller saw the file's size, and
 * that the file holds a byte before END: a page past its end raises
 * SIGBUS. */
#define TOUCH_STEP	((uintptr_t)64 << 10)

static void
touch_range(const uint8_t *start, const uint8_t *end)
{
	uintptr_t a = (uintptr_t)start;
	uint8_t sink = 0;

	if (start >= end)
		return;
	sink ^= *(const volatile uint8_t *)start;
	for (a = (a + TOUCH_STEP) & ~(TOUCH_STEP - 1); a < (uintptr_t)end;
	    a += TOUCH_STEP)
		sink ^= *(const volatile uint8_t *)a;
	(void)sink;
}

/* The bytes of N at OFF the file holds now (fewer: it shrank since the
 * open), or -1: fstat failed. */
static int
file_holds(const pcln_perf *p, uint64_t off, size_t n, size_t *got)
{
	struct stat st;

	if (fstat(p->fd, &st) < 0)
		return -1;
	if (st.st_size < 0 || (uint64_t)st.st_size <= off)
		*got = 0;
	else if ((uint64_t)st.st_size - off < n)
		*got = (size_t)((uint64_t)st.st_size - off);
	else
		*got = n;
	return 0;
}

/* With a twin: the chunk after the one just framed, at OFF (N bytes),
 * claimed and brought in now by the first of the two to frame the one
 * before, while the records of that one are still to go out (some
 * 70 us of them, against 17 us to populate 1 MiB): the two then find it
 * done where they need it, and neither waits for the other's populate,
 * as one did for 40 % of the chunks, 1.3 to 1.6 ms in all, when they
 * claimed a chunk only where they needed it.  (The one ahead does it:
 * it is slowed, and the other takes the lead.)  What the file no
 * longer holds is left for the need to see (the file's size, below). */
static void
populate_ahead(const pcln_perf *p, uint64_t off, size_t n)
{
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
	uint8_t *at = (uint8_t *)p->map + off, none = 0;
	uint8_t *start = (uint8_t *)((uintptr_t)at & ~(pg - 1));
	uint8_t *claim = claim_of(p, off);
	size_t got;

	if (claim == NULL || !__atomic_compare_exchange_n(claim, &none,
	    CLAIM_BUSY, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return;
	if (file_holds(p, off, n, &got) == 0 && got > 0)
		touch_range(start, at + got);
	__atomic_store_n(claim, CLAIM_DONE, __ATOMIC_RELEASE);
}

/* The N bytes at OFF in P's mapping: their pages brought in at once
 * (touch_range), so that the walk takes no fault in them.  0 and *GOT
 * (fewer than N: the file ends sooner, it shrank since the open); -1
 * where the file's size cannot be had (the chunk is then read).  Bytes
 * past a file's end are not there to read: touched, they would raise
 * SIGBUS (PCLN_PERF_MAPREAD says so), so the file's size is looked at
 * first (it can still shrink after that). */
static int
map_range(const pcln_perf *p, uint64_t off, size_t n, size_t *got)
{
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
	uint8_t *at = (uint8_t *)p->map + off;
	uint8_t *start = (uint8_t *)((uintptr_t)at & ~(pg - 1));
	uint8_t *claim = NULL;
	int mine = 1, r;
	unsigned spin;

	*got = n;
	/* A handle and its twin (pcln_perf_open_twin) read the same chunks
	 * in one mapping: the one that gets to a chunk first populates it
	 * (it claims the chunk's first 64 KiB in the first handle's CLAIM:
	 * no two chunks start in the same), and the other takes it as it
	 * is, its pages there or on the way.  (Both populating every
	 * chunk, each waited for the page tables' lock; each populating
	 * every other one, the other got to half of those first and took
	 * them as page faults: 3,700 of them on a profile of 412 MB, 16
	 * pages each, more than populating them cost.)  Most chunks are
	 * claimed ahead (populate_ahead): found done here. */
	if (p->twin_of != NULL || p->has_twin) {
		const pcln_perf *f = p->twin_of != NULL ? p->twin_of : p;

		if ((claim = claim_of(p, off)) != NULL) {
			uint8_t none = 0;

			mine = __atomic_compare_exchange_n(claim, &none,
			    CLAIM_BUSY, 0, __ATOMIC_ACQ_REL,
			    __ATOMIC_ACQUIRE);
			/* (the other populates it now: its pages are a
			 * few microseconds away, where a fault each 16
			 * would cost more) */
			for (spin = 0; !mine && spin < f->claim_spin &&
			    __atomic_load_n(claim, __ATOMIC_ACQUIRE) !=
			    CLAIM_DONE; spin++)
				cpu_relax();
		} else	/* (no claims: every other chunk, by its place) */
			mine = (off / p->chunk_size) % 2 == (p->twin_of !=
			    NULL);
	}
	/* (the file's size says whether it shrank since the open; the one
	 * whose claim it is brings the pages in, the other takes them as
	 * they are) */
	r = file_holds(p, off, n, got);
	if (r == 0 && mine && *got > 0)
		touch_range(start, at + *got);
	if (claim != NULL && mine)
		__atomic_store_n(claim, CLAIM_DONE, __ATOMIC_RELEASE);
	if (r < 0 && !mine) {
		*got = n;	/* (the other's to see) */
		return 0;
	}
	return r;
}

/* The framing of the record R, of which AVAIL bytes are at hand (all
 * in the data section), where it is one of nearly all: it fits, and its
 * type has no payload after it (framed in a few instructions, not
 * pclni_perf_frame's 65): 1 and its size in *STEP; else 0 (the caller
 * asks pclni_perf_frame, which also says what is wrong). */
static inline int
frame_fast(const pcln_perf *p, const uint8_t *r, uint64_t avail,
    uint64_t *step)
{
	uint32_t type;
	uint16_t size;

	if (avail < 8)
		return 0;
	type = perf_u32(p, r);
	size = perf_u16(p, r + 6);
	if (size < 8 || size > avail || type == PCLN_PERF_RECORD_AUXTRACE ||
	    type == PCLN_PERF_RECORD_HEADER_TRACING_DATA)
		return 0;
	*step = size;
	return 1;
}

/* Frame the records of B (GOT bytes of the file from F->file_off, the
 * start of a record) into *F: whole records that start before LIM (GOT
 * for a chunk read on its own); the first that does not fit starts the
 * next chunk.  Returns 1 where it framed a record or more, else 0 (the
 * first did not frame here: F says why, as a chunk read at F->file_off
 * says it). */
static int
frame_chunk(const pcln_perf *p, const uint8_t *b, size_t got, size_t lim,
    struct fill *f)
{
	uint64_t off = f->file_off, step = 0;
	size_t o;
	int r = 1;

	/* Whole records; the one that does not fit starts the next
	 * chunk. */
	for (o = 0; o < got && o < lim; o += step) {
		if ((r = frame_fast(p, b + o, got - o, &step)) == 0 &&
		    ((r = pclni_perf_frame(p, b + o, off + o, got - o, &step,
		    &f->err)) <= 0 || step > got - o))
			break;
		/* Each record's header is a miss in a mapped chunk (a
		 * sample is 8 KiB long), and the next one's place is known
		 * only from it: ask for the one 16 ahead, guessing the
		 * records there are as long as this one (4 ahead, the
		 * framing was 14 % of the long bench profile's time, most
		 * of it waiting for headers; 16: 2 to 4 % less time, 32 no
		 * less than 16). */
		if (f->mapped && step < (got - o) / 17)
			__builtin_prefetch(b + o + 16 * step);
	}
	if (o == 0 && r <= 0) {
		f->r = -1;
		if (r == 0)	/* (GOT is all the data left, or more than a
				 * record's 64 KiB) */
			pclni_seterr(&f->err, PCLN_EMATH, (int64_t)off,
			    "perf.data: record at offset 0x%llx: framed "
			    "from %zu bytes", (unsigned long long)off, got);
	} else if (o == 0) {
		/* A record longer than a chunk with its payload (an
		 * AUXTRACE's trace data), which is never read: its SIZE
		 * bytes (at most 64 KiB, fewer than a chunk reads, and the
		 * data section holds them) are its chunk. */
		f->len = perf_u16(p, b + 6);
		f->next_off = off + step;
	} else {
		f->len = o;
		f->next_off = off + o;
		f->damaged = r < 0;	/* after this chunk's records */
	}
	return o > 0;
}

/* Read the records at OFF into B (CAP >= P->chunk_size bytes), or take
 * them in the file's mapping where B is NULL, and frame them into *F.
 * Reads only what the open fixed (P->info, P->big, P->fd, P->map,
 * P->chunk_size): the reader thread calls it as the walk does. */
static void
fill(const pcln_perf *p, uint64_t off, uint8_t *b, size_t cap,
    struct fill *f)
{
	uint64_t end = p->info.data_end, t0;
	size_t want, got = 0;
	int rr;

	memset(f, 0, sizeof *f);
	f->file_off = off;
	want = end - off < p->chunk_size ? (size_t)(end - off) :
	    p->chunk_size;
	t0 = now_ns();
	if (b == NULL) {
		if (map_range(p, off, want, &got) < 0) {
			f->r = -1;
			f->nomap = 1;
			return;
		}
		b = (uint8_t *)p->map + off;
		f->mapped = 1;
		rr = 0;
	} else {
		f->data = b;
		f->cap = cap;
		rr = read_full(p->fd, b, want, off, &got);
	}
	f->ns = now_ns() - t0;
	if (rr < 0 || got < want) {
		int en = errno;

		f->r = -1;
		if (got < want)
			pclni_seterr(&f->err, PCLN_ETRUNC, (int64_t)(off +
			    got), "perf.data: the file ends at offset 0x%llx, "
			    "inside the data section, which ended at 0x%llx "
			    "when it was opened: it changed while read",
			    (unsigned long long)(off + got),
			    (unsigned long long)end);
		else
			pclni_seterr(&f->err, PCLN_EIO, (int64_t)off,
			    "perf.data: cannot read at offset 0x%llx: %s",
			    (unsigned long long)off, strerror(en));
		return;
	}
	f->data = b;
	f->got = got;
	(void)frame_chunk(p, b, got, got, f);
	if (f->mapped && f->r == 0 && !f->damaged && f->next_off < end)
		populate_ahead(p, f->next_off, end - f->next_off <
		    p->chunk_size ? (size_t)(end - f->next_off) :
		    p->chunk_size);
}

/* --- copied or mapped (PCLN_PERF_MAPREAD) --------------------------------
 *
 * The kernel's copy of a chunk into a buffer costs about the same on
 * every machine, some 0.1 ms a MiB; a mapping's page-table entries cost
 * from next to nothing to more than that, with the hypervisor: 1.2 us a
 * page (0.3 ms a MiB) on the guest where perf_file.c was first
 * measured; on a later one, where the page cache's large folios are
 * mapped by huge entries, copying a profile of 411 MB took 38 ms and
 * mapping it 1.7 ms (bench/mapfloor.c).  So the first PROBE_CHUNKS
 * chunks are mapped, each timed, and PROBE_COPY bytes of each copied
 * too, into a buffer of their own, for the time only; the way that was
 * faster (the fastest chunk of each: a preemption counts against
 * neither) reads the rest.  (Probing by reading every other chunk
 * copied took fresh buffers for them, 256 page faults each: 0.3 to
 * 0.6 ms of the long bench profile's 17 to 20.)  Pieces of 64 KiB, not
 * 256: on the guest of 2026-12-07 afternoon the probe before the first
 * record (pcln_perf_probe_read) took 1.3 to 1.5 ms of the short bench
 * profile's 20, 80 page faults with its buffer's, and 0.35 to 0.45 ms
 * with 64 KiB, deciding the same (copying 160 to 220 us a MiB there,
 * the mapping 350 to 430; in pieces of 256 KiB 150 to 170 and 330 to
 * 360: gdb on four runs of each); where the page cache is mapped by
 * huge entries the mapping's 64 KiB still take a few microseconds
 * against a copy's tens. */

#define PROBE_CHUNKS	4
#define PROBE_COPY	((size_t)64 << 10)

static int
read_mode(const pcln_perf *p)
{
	/* (a twin reads as the handle whose mapping it reads: in the
	 * mapping, unless that one found copying faster) */
	if (p->twin_of != NULL && __atomic_load_n(&p->twin_of->readmode,
	    __ATOMIC_RELAXED) != PCLNI_PERF_READ_COPY &&
	    __atomic_load_n(&p->readmode, __ATOMIC_RELAXED) !=
	    PCLNI_PERF_READ_COPY)
		return PCLNI_PERF_READ_MAP;
	return __atomic_load_n(&p->readmode, __ATOMIC_RELAXED);
}

static void
set_read_mode(pcln_perf *p, int mode)
{
	__atomic_store_n(&p->readmode, mode, __ATOMIC_RELAXED);
}

/* Count a probe: BYTES of the file at FILE_OFF took MAP_NS to bring in
 * in the mapping; a copy of up to PROBE_COPY of them is timed now. */
static void
probe_time(pcln_perf *p, uint64_t map_ns, size_t bytes, uint64_t file_off)
{
	uint64_t mib, t0, ns;
	size_t n, got = 0;

	mib = map_ns * ((uint64_t)1 << 20) / bytes;
	p->probe_map = p->probe_map == 0 || mib < p->probe_map ? mib :
	    p->probe_map;
	/* (its pages made at once and each written: a page fault in the
	 * copy would count against copying, which takes buffers it
	 * reuses; and on a guest that shadows the page tables, a page's
	 * first write after MADV_POPULATE_WRITE still costs some 4 us:
	 * the first copy timed took three times the others) */
	if (p->probebuf == NULL && (p->probebuf = pcln_huge_alloc(PROBE_COPY,
	    &p->probelen)) != NULL) {
		(void)madvise(p->probebuf, p->probelen, MADV_POPULATE_WRITE);
		memset(p->probebuf, 0, p->probelen);
	}
	n = bytes < PROBE_COPY ? bytes : PROBE_COPY;
	if (p->probebuf != NULL) {
		t0 = now_ns();
		if (read_full(p->fd, p->probebuf, n, file_off, &got) == 0 &&
		    got == n) {
			ns = now_ns() - t0;
			mib = ns * ((uint64_t)1 << 20) / n;
			p->probe_copy = p->probe_copy == 0 ||
			    mib < p->probe_copy ? mib : p->probe_copy;
		}
	}
	if (++p->nprobe >= PROBE_CHUNKS)
		set_read_mode(p, p->probe_copy == 0 || p->probe_map <=
		    p->probe_copy ? PCLNI_PERF_READ_MAP :
		    PCLNI_PERF_READ_COPY);
}

/* Where the chunk mapped into F counts for the probe (whole enough to
 * time), time a copy of PROBE_COPY bytes of it too, and count both. */
static void
probed(pcln_perf *p, const struct fill *f)
{
	/* (a file's last chunk, or the lone record of one, may be too
	 * short to time) */
	if (read_mode(p) != PCLNI_PERF_READ_PROBE || f->r < 0 ||
	    !f->mapped || f->got < p->chunk_size / 2)
		return;
	probe_time(p, f->ns, f->got, f->file_off);
}

/* A buffer for a chunk (the caller's way: the reader's or the walk's),
 * its size in *CAP; NULL: no memory. */
typedef uint8_t *(*chunk_buf_fn)(pcln_perf *p, size_t *cap);

/* The chunk at OFF into *F, copied or mapped as P's read mode says. */
static void
next_fill(pcln_perf *p, uint64_t off, chunk_buf_fn get, struct fill *f)
{
	int mode = read_mode(p);
	uint8_t *b;
	size_t cap = 0;

	if (mode == PCLNI_PERF_READ_MAP || mode == PCLNI_PERF_READ_PROBE) {
		fill(p, off, NULL, 0, f);
		if (!f->nomap) {
			probed(p, f);
			return;
		}
		set_read_mode(p, PCLNI_PERF_READ_COPY);
	}
	if ((b = get(p, &cap)) == NULL) {
		memset(f, 0, sizeof *f);
		f->r = -1;
		pclni_seterr(&f->err, PCLN_ENOMEM, -1, "out of memory");
		return;
	}
	fill(p, off, b, cap, f);
	probed(p, f);
}

void
pclni_perf_set_read(pcln_perf *p, int mode)
{
	set_read_mode(p, mode);
}

int
pclni_perf_read_mode(const pcln_perf *p)
{
	return read_mode(p);
}

/* --- the reader thread (PCLN_PERF_READAHEAD) ----------------------------
 *
 * The kernel's copy of the records is a third of what a sample costs
 * the walk (0.33 of 1.06 us on the profile of bench/perf.sh's "long"):
 * a second thread reads the chunks ahead, RA_DEPTH of them at most, and
 * the walk takes them in file order.  The reader only calls fill(),
 * which reads what the open fixed; the queue, the free buffers and the
 * flags are under MU.  Its first buffers are one region of RA_POOL bytes
 * in transparent huge pages where the kernel has them
 * (pcln_huge_alloc): one page fault for 2 MiB, not 512.
 *
 * Each wake of a thread asleep is a futex system call that interrupts
 * the other CPU, some microseconds on the guests measured: a reader
 * with a full queue sleeps until the walk took half of it (RA_LOW), not
 * one chunk; and a walk ahead of the reader waits awake a while
 * (RA_SPIN) before it sleeps, the chunk being some 100 us away, where
 * the process may run on two CPUs or more (on one, the reader could
 * not run while the walk waits awake). */

#define RA_DEPTH	4
#define RA_LOW		(RA_DEPTH / 2)
#define RA_POOL		((size_t)8 << 20)
/* (pauses of some 25 ns) */
#define RA_SPIN		4096

static inline void
cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#else
	__asm__ __volatile__("" ::: "memory");
#endif
}

/* perf record -z: the reader decompresses the COMPRESSED records of the
 * chunks it read too, in file order, up to ZQ_DEPTH ahead of the scan
 * (each what one decompresses to, some 100 KiB in perf's, in the
 * decompressor's segments: perf_record.c): on a profile of 8,000
 * samples, 117 M of the walk's 166 M instructions were zstd's, now
 * beside the walk.  The reader is the longer of the two, and while the
 * walk starts (its tables, the kernel's symbols) it goes on up to 32
 * units ahead, not 4: bench/perf.sh's -z profile 6.98 -> 6.68 ms
 * (medians of 12, in turn; 16: 6.77, 64: 6.79), 0.9 MB more at peak.
 * (When units were copied out of zstd's window, 16 or 64 were no
 * faster.) */
#define ZQ_DEPTH	32
/* ... and no further than ZQ_BYTES of records ahead: each unit ahead is
 * memory the walk has not freed yet, and a fresh page is dear on a
 * guest whose host takes freed memory back (perf_record.c, ZSEG_MIN).
 * With both threads on CPUs of their own (PCLN_PERF_PIN) as fast as 32
 * units (some 6 MB) ahead. */
#define ZQ_BYTES	((size_t)2 << 20)

/* A piece of the data section (PIECES, below): WANT bytes from START
 * copied into BUF (CAP bytes), GOT of them read; R -1: the read failed
 * (EN its errno).  STATE (atomic): PIECE_EMPTY, PIECE_BUSY (claimed, being
 * copied), PIECE_DONE. */
#define PIECE_EMPTY	0
#define PIECE_BUSY	1
#define PIECE_DONE	2

struct ra_piece {
	uint8_t *buf;
	size_t cap, want, got;
	uint64_t start;
	int r, en;
	int state;
};

struct perf_ra {
	pthread_t thread;
	int started, joined;
	pthread_mutex_t mu;
	pthread_cond_t cv;		/* the queue or the flags changed */
	struct fill q[RA_DEPTH];
	size_t head, count;
	int rwait;			/* the reader waits for COUNT to
					 * come down to RA_LOW */
	unsigned spin;			/* the walk's pauses before it sleeps
					 * for a chunk: RA_SPIN, or 0 */
	uint8_t *free;			/* buffers given back: a list through
					 * their first bytes (next, cap) */
	int stop;			/* the close: end now */
	int done;			/* the reader ended */
	uint8_t *pool;			/* RA_POOL bytes, or NULL */
	size_t poollen;			/* pcln_huge_alloc's */
	size_t pooluse;			/* bytes of the pool handed out */
	/* perf record -z: ZON, the reader decompresses (set before it
	 * starts); ZQ the records it did, ZS its decompressor (its
	 * own). */
	int zon;
	uint64_t ztaken;		/* units the walk took */
	struct perf_zunit zq[ZQ_DEPTH];
	size_t zhead, zcount;
	size_t zbytes;			/* the bytes of the units in ZQ */
	size_t zqbytes;			/* the most ahead: ZQ_BYTES */
	size_t zmax;			/* (for tests) the most ZBYTES was */
	struct perf_zs zs;
	/* PIECES (copied, no perf record -z stream): the data section from
	 * BASE copied in pieces at fixed places, by the reader and by the
	 * walk where it would wait (below).  Under MU: CLAIMED, the pieces
	 * handed out to copy; TAKEN, those the walk took; PWAIT, the walk
	 * sleeps for one.  Piece N is in SLOT[N % RA_DEPTH]. */
	int pieces;
	uint64_t base, claimed, taken;
	uint64_t bywalk;		/* pieces the walk copied */
	int pwait;
	struct ra_piece slot[RA_DEPTH];
	/* PCLN_PERF_PIN (set at the open): PINNED, the walk's thread
	 * (WALKER) is kept on PINCPU (-1: never was) and the reader on the
	 * other CPUs (READMASK), the walk's own affinity in WALKMASK, given
	 * back by ra_unpin; RTID the reader's thread id (atomic; 0 before
	 * it runs). */
	int pin, pinned, pincpu;
	uint64_t pos0;			/* where the reader starts (the
					 * walk's place when it started it:
					 * the walk may be past it before the
					 * reader runs) */
	pthread_t walker;
	cpu_set_t walkmask, readmask;
	pid_t rtid;
};

struct freebuf {
	uint8_t *next;
	size_t cap;
};

/* A buffer for a chunk (under MU): a free one (the first large enough:
 * the list holds the few the walk gave back, the file's chunks and the
 * decompressed ones), a piece of the pool, or NULL (then malloc,
 * outside the lock). */
static uint8_t *
ra_take(struct perf_ra *ra, size_t want, size_t *cap)
{
	struct freebuf h, ph;
	uint8_t *b, *prev = NULL;

	for (b = ra->free; b != NULL; prev = b, b = h.next) {
		memcpy(&h, b, sizeof h);
		if (h.cap < want)
			continue;
		if (prev == NULL)
			ra->free = h.next;
		else {
			memcpy(&ph, prev, sizeof ph);
			ph.next = h.next;
			memcpy(prev, &ph, sizeof ph);
		}
		*cap = h.cap;
		return b;
	}
	if (ra->pool != NULL && RA_POOL - ra->pooluse >= want) {
		b = ra->pool + ra->pooluse;
		ra->pooluse += want;
		*cap = want;
		return b;
	}
	return NULL;
}

static int
in_pool(const struct perf_ra *ra, const uint8_t *b)
{
	return ra->pool != NULL && b >= ra->pool && b < ra->pool + RA_POOL;
}

/* B (CAP bytes) onto the free list (either thread). */
static void
ra_give(void *arg, uint8_t *b, size_t cap)
{
	struct perf_ra *ra = arg;
	struct freebuf h;

	pthread_mutex_lock(&ra->mu);
	h.next = ra->free;
	h.cap = cap;
	memcpy(b, &h, sizeof h);
	ra->free = b;
	/* (no one waits for a free buffer: the reader takes malloc's
	 * where there is none) */
	pthread_mutex_unlock(&ra->mu);
}

/* The end of the last COMPRESSED record of the chunk F (whole records,
 * framed by fill), or 0. */
static size_t
zrecords_end(const pcln_perf *p, const struct fill *f)
{
	uint64_t step;
	size_t o, end = 0;

	for (o = 0; o < f->len; o += (size_t)step) {
		if (pclni_perf_frame(p, f->data + o, f->file_off + o,
		    f->len - o, &step, NULL) <= 0)
			break;
		if (perf_u32(p, f->data + o) == PCLN_PERF_RECORD_COMPRESSED)
			end = o + (size_t)step;
	}
	return end;
}

/* Decompress the COMPRESSED records of the chunk F (whole records,
 * framed by fill) before ZEND into the queue, waiting while it is
 * full.  0, or -1:
 * the close stopped it, or a record could not be decompressed (its unit
 * says why; the stream cannot go on). */
static int
ra_unpack(pcln_perf *p, const struct fill *f, size_t zend)
{
	struct perf_ra *ra = p->ra;
	struct perf_zunit u;
	uint64_t step;
	size_t o;

	/* (up to ZEND only: once the walk has the last unit it may go past
	 * the chunk's last records and free it) */
	for (o = 0; o < zend; o += (size_t)step) {
		const uint8_t *q = f->data + o;

		if (pclni_perf_frame(p, q, f->file_off + o, f->len - o,
		    &step, NULL) <= 0)
			break;		/* (fill framed them: never) */
		if (perf_u32(p, q) != PCLN_PERF_RECORD_COMPRESSED)
			continue;
#ifdef HAVE_LIBZSTD
		(void)pclni_perf_zunpack(p, &ra->zs, f->file_off + o, q,
		    perf_u16(p, q + 6), &u);
#else
		memset(&u, 0, sizeof u);	/* (ZON is 0) */
#endif
		pthread_mutex_lock(&ra->mu);
		while (!ra->stop && (ra->zcount == ZQ_DEPTH ||
		    ra->zbytes >= ra->zqbytes))
			pthread_cond_wait(&ra->cv, &ra->mu);
		if (ra->stop) {
			pthread_mutex_unlock(&ra->mu);
			return -1;	/* (U's segment: freed with ZS) */
		}
		ra->zq[(ra->zhead + ra->zcount) % ZQ_DEPTH] = u;
		ra->zbytes += u.len;
		if (ra->zbytes > ra->zmax)
			ra->zmax = ra->zbytes;
		/* (atomic: the walk looks at it before it locks) */
		__atomic_store_n(&ra->zcount, ra->zcount + 1, __ATOMIC_RELEASE);
		pthread_cond_broadcast(&ra->cv);
		pthread_mutex_unlock(&ra->mu);
		if (u.r < 0)
			return -1;
	}
	return 0;
}

/* A buffer for the reader's next chunk: a free one, a piece of the
 * pool or malloc's. */
static uint8_t *
ra_buf_n(pcln_perf *p, size_t want, size_t *cap)
{
	struct perf_ra *ra = p->ra;
	uint8_t *b;

	pthread_mutex_lock(&ra->mu);
	b = ra_take(ra, want, cap);
	pthread_mutex_unlock(&ra->mu);
	if (b == NULL && (b = malloc(want)) != NULL)
		*cap = want;
	return b;
}

static uint8_t *
ra_buf(pcln_perf *p, size_t *cap)
{
	return ra_buf_n(p, p->chunk_size, cap);
}

/* --- the data section in pieces (PIECES) ---------------------------------
 *
 * On the guest of 2026-12-07 the reader thread's copy bounded the walk:
 * on bench/perf.sh's long profile (527 MB) the kernel's copy was 38 %
 * of pclndump perf's samples and the walk waited for it in 24 %
 * (ra_wait), 75 ms in all; and two threads copy the page cache faster
 * than one there (a scratch program preading the long profile in MiBs,
 * every other one each: 32 to 44 ms against 47 to 78; the short one 5.2
 * to 6.8 against 6.5 to 10.6).  But a chunk starts where the records of
 * the one before ended, known only once that one was framed.  So where
 * the chunks are copied, the data section is copied in pieces at fixed
 * places instead: piece N holds the chunk size's bytes from BASE + N
 * times it, and PIECE_OVER more, for the last of its records (one is at
 * most 64 KiB long); the walk frames a piece when it takes it, from
 * where the one before ended (always in its first chunk-size bytes) to
 * the last record that starts in them.  The reader copies the pieces in
 * turn, up to RA_DEPTH ahead of the walk, and the walk, where the piece
 * it needs is not there yet, copies the next one not handed out itself
 * instead of waiting.  Where a chunk does not end in the next piece's
 * first bytes (an AUXTRACE record's payload skipped, a record that does
 * not frame, a file that shrank), the walk reads that chunk itself as
 * before (next_fill), which also says what is wrong as before. */
#define PIECE_OVER	((size_t)64 << 10)

/* Under MU: hand out the next piece to copy, its number in *N; 0 where
 * there is none (RA_DEPTH ahead of the walk, or past the data). */
static int
piece_claim(pcln_perf *p, uint64_t *n)
{
	struct perf_ra *ra = p->ra;
	uint64_t k = ra->claimed;

	if (k >= ra->taken + RA_DEPTH || ra->base + k * p->chunk_size >=
	    p->info.data_end)
		return 0;
	__atomic_store_n(&ra->slot[k % RA_DEPTH].state, PIECE_BUSY,
	    __ATOMIC_RELAXED);
	ra->claimed = k + 1;
	*n = k;
	return 1;
}

/* Copy piece N (claimed) into a buffer, and say so. */
static void
piece_copy(pcln_perf *p, uint64_t n)
{
	struct perf_ra *ra = p->ra;
	struct ra_piece *s = &ra->slot[n % RA_DEPTH];
	uint64_t end = p->info.data_end;
	size_t size = p->chunk_size + PIECE_OVER, cap = 0, got = 0;

	s->start = ra->base + n * p->chunk_size;
	s->want = end - s->start < size ? (size_t)(end - s->start) : size;
	s->r = 0;
	s->en = 0;
	if ((s->buf = ra_buf_n(p, size, &cap)) == NULL) {
		s->r = -1;
		s->en = ENOMEM;
	} else if (read_full(p->fd, s->buf, s->want, s->start, &got) < 0) {
		s->r = -1;
		s->en = errno;
	}
	s->cap = cap;
	s->got = got;
	__atomic_store_n(&s->state, PIECE_DONE, __ATOMIC_RELEASE);
	pthread_mutex_lock(&ra->mu);
	if (ra->pwait)
		pthread_cond_broadcast(&ra->cv);
	pthread_mutex_unlock(&ra->mu);
}

/* The reader's part: the pieces in turn, while the walk has fewer than
 * RA_DEPTH ahead; with all of them, it sleeps until the walk took half
 * (RA_LOW), as with chunks. */
static void
ra_pieces(pcln_perf *p)
{
	struct perf_ra *ra = p->ra;
	uint64_t n;
	int got;

	for (;;) {
		got = 0;
		pthread_mutex_lock(&ra->mu);
		while (!ra->stop && !(got = piece_claim(p, &n)) &&
		    ra->base + ra->claimed * p->chunk_size <
		    p->info.data_end) {
			ra->rwait = 1;
			while (!ra->stop && ra->claimed - ra->taken > RA_LOW)
				pthread_cond_wait(&ra->cv, &ra->mu);
			ra->rwait = 0;
		}
		pthread_mutex_unlock(&ra->mu);
		if (ra->stop || !got)
			return;
		piece_copy(p, n);
	}
}

/* Give piece S's buffer back, and take the next. */
static void
piece_taken(pcln_perf *p, struct ra_piece *s, int keep)
{
	struct perf_ra *ra = p->ra;

	if (!keep && s->buf != NULL)
		ra_give(ra, s->buf, s->cap);
	s->buf = NULL;
	__atomic_store_n(&s->state, PIECE_EMPTY, __ATOMIC_RELAXED);
	pthread_mutex_lock(&ra->mu);
	ra->taken++;
	if (ra->rwait && ra->claimed - ra->taken <= RA_LOW)
		pthread_cond_broadcast(&ra->cv);
	pthread_mutex_unlock(&ra->mu);
}

/* Wait for piece S of the walk's: copying the next ones not handed out
 * meanwhile, then awake a while, then asleep. */
static void
piece_wait(pcln_perf *p, struct ra_piece *s)
{
	struct perf_ra *ra = p->ra;
	uint64_t n;
	unsigned i;
	int got;

	while (__atomic_load_n(&s->state, __ATOMIC_ACQUIRE) != PIECE_DONE) {
		pthread_mutex_lock(&ra->mu);
		got = piece_claim(p, &n);
		pthread_mutex_unlock(&ra->mu);
		if (!got)
			break;
		piece_copy(p, n);
		ra->bywalk++;
	}
	for (i = 0; i < ra->spin && __atomic_load_n(&s->state,
	    __ATOMIC_ACQUIRE) != PIECE_DONE; i++)
		cpu_relax();
	if (__atomic_load_n(&s->state, __ATOMIC_ACQUIRE) == PIECE_DONE)
		return;
	pthread_mutex_lock(&ra->mu);
	ra->pwait = 1;
	while (__atomic_load_n(&s->state, __ATOMIC_ACQUIRE) != PIECE_DONE)
		pthread_cond_wait(&ra->cv, &ra->mu);
	ra->pwait = 0;
	pthread_mutex_unlock(&ra->mu);
}

static uint8_t *walk_buf(pcln_perf *p, size_t *cap);

/* The walk's next chunk, at P->scanpos, from its piece into *F. */
static void
pieces_next(pcln_perf *p, struct fill *f)
{
	struct perf_ra *ra = p->ra;
	uint64_t off = p->scanpos, k, pend;
	struct ra_piece *s;
	size_t skip;

	k = (off - ra->base) / p->chunk_size;
	/* Pieces before it (an AUXTRACE's payload, never read): those
	 * handed out are waited for and given back, the others are not
	 * copied. */
	while (off >= ra->base && ra->taken < k) {
		pthread_mutex_lock(&ra->mu);
		if (ra->claimed == ra->taken) {
			ra->claimed = ra->taken = k;
			pthread_mutex_unlock(&ra->mu);
			break;
		}
		pthread_mutex_unlock(&ra->mu);
		s = &ra->slot[ra->taken % RA_DEPTH];
		piece_wait(p, s);
		piece_taken(p, s, 0);
	}
	if (off < ra->base || k != ra->taken) {
		/* (in a piece taken: a chunk that ended early) */
		next_fill(p, off, walk_buf, f);
		return;
	}
	s = &ra->slot[k % RA_DEPTH];
	piece_wait(p, s);
	memset(f, 0, sizeof *f);
	skip = (size_t)(off - s->start);
	pend = s->start + p->chunk_size < p->info.data_end ? s->start +
	    p->chunk_size : p->info.data_end;
	f->file_off = off;
	if (s->r == 0 && s->got > skip) {
		f->data = s->buf + skip;
		f->cap = s->cap;
		f->skip = skip;
		f->got = s->got;
		if (frame_chunk(p, f->data, s->got - skip, (size_t)(pend -
		    off), f)) {
			piece_taken(p, s, 1);
			return;
		}
	}
	/* (the first record does not frame in the piece: read as a chunk
	 * of its own, which says why) */
	piece_taken(p, s, 0);
	next_fill(p, off, walk_buf, f);
}

static void *
ra_main(void *arg)
{
	pcln_perf *p = arg;
	struct perf_ra *ra = p->ra;
	uint64_t pos = ra->pos0;
	struct fill f;
	size_t zend;
	int last = 0;

	__atomic_store_n(&ra->rtid, (pid_t)syscall(SYS_gettid),
	    __ATOMIC_RELEASE);
	if (ra->pieces) {
		ra_pieces(p);
		last = 1;
	}
	while (!last) {
		pthread_mutex_lock(&ra->mu);
		if (ra->count == RA_DEPTH) {
			ra->rwait = 1;
			while (!ra->stop && ra->count > RA_LOW)
				pthread_cond_wait(&ra->cv, &ra->mu);
			ra->rwait = 0;
		}
		if (ra->stop) {
			pthread_mutex_unlock(&ra->mu);
			break;
		}
		pthread_mutex_unlock(&ra->mu);
		next_fill(p, pos, ra_buf, &f);
		last = f.r < 0 || f.damaged || f.next_off >= p->info.data_end;
		pos = f.next_off;
		/* (where its COMPRESSED records end, found before the walk
		 * has it) */
		zend = ra->zon && f.r == 0 ? zrecords_end(p, &f) : 0;
		pthread_mutex_lock(&ra->mu);
		ra->q[(ra->head + ra->count) % RA_DEPTH] = f;
		__atomic_store_n(&ra->count, ra->count + 1, __ATOMIC_RELEASE);
		pthread_cond_broadcast(&ra->cv);
		pthread_mutex_unlock(&ra->mu);
		/* (the walk frees the chunk only once the scan went past
		 * its records, each COMPRESSED one waiting for its unit:
		 * it is there while this reads it) */
		if (zend > 0 && ra_unpack(p, &f, zend) < 0)
			last = 1;
	}
	pthread_mutex_lock(&ra->mu);
	__atomic_store_n(&ra->done, 1, __ATOMIC_RELEASE);
	pthread_cond_broadcast(&ra->cv);
	pthread_mutex_unlock(&ra->mu);
	return NULL;
}

/* Start the reader (at the walk's first chunk, after a test's
 * pclni_perf_set_chunk).  0, or -1: the walk reads alone. */
/* PCLN_PERF_PIN: on a guest of 2026-12-07 (two vCPUs, a kernel that
 * packs threads onto few), the reader thread was started on the walk's
 * CPU in two runs of three and stayed there, the two threads taking
 * turns on one CPU while the other idled (perf sched timehist): the -z
 * bench profile then took as long as its CPU time (22 to 26 ms), and 16
 * to 18 where the two overlapped.  Kept off the walk's CPU, the reader
 * alone was no better (the walk was moved onto its CPU); with the walk
 * kept on its own too, 15.3 / 16.3 / 18.2 ms (p10, median, p90 of 21 in
 * turns, against 17.4 / 21.6 / 24.7); the short and SQLite profiles
 * some 0.5 ms less, the long one the same.  The walk's thread (the
 * caller's) is kept on the CPU it is
 * on, where the caller's affinity allows more than one, and the reader
 * is started on the others (AT): 0, or -1 (nothing changed). */
static int
ra_pin(struct perf_ra *ra, const cpu_set_t *cpus, pthread_attr_t *at)
{
	cpu_set_t one;
	int cpu = sched_getcpu();

	if (cpu < 0 || cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, cpus) ||
	    CPU_COUNT(cpus) < 2)
		return -1;
	ra->readmask = *cpus;
	CPU_CLR(cpu, &ra->readmask);
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (pthread_attr_setaffinity_np(at, sizeof ra->readmask,
	    &ra->readmask) != 0 || sched_setaffinity(0, sizeof one,
	    &one) != 0)
		return -1;
	ra->walkmask = *cpus;
	ra->walker = pthread_self();
	ra->pinned = 1;
	ra->pincpu = cpu;
	return 0;
}

/* The walk's thread given its own affinity back (by that thread only:
 * at its first take after the reader ended, or at the close). */
static void
ra_unpin(struct perf_ra *ra)
{
	if (!ra->pinned || !pthread_equal(pthread_self(), ra->walker))
		return;
	(void)sched_setaffinity(0, sizeof ra->walkmask, &ra->walkmask);
	ra->pinned = 0;
}

/* After a take of the walk's: once the reader ended, the walk is let
 * go. */
static inline void
ra_took(struct perf_ra *ra)
{
	if (ra->pinned && __atomic_load_n(&ra->done, __ATOMIC_ACQUIRE))
		ra_unpin(ra);
}

static int
ra_start(pcln_perf *p)
{
	struct perf_ra *ra = p->ra;
	cpu_set_t cpus;
	pthread_attr_t at;
	int r;

	ra->pool = pcln_huge_alloc(RA_POOL, &ra->poollen);
	/* (where the header does not say perf record -z's stream is there,
	 * a COMPRESSED record met after all is the walk's to decompress) */
	ra->zon = pcln_perf_zstd() &&
	    (p->info.features[PCLN_PERF_FEAT_COMPRESSED / 64] >>
	    PCLN_PERF_FEAT_COMPRESSED % 64 & 1);
	if (read_mode(p) == PCLNI_PERF_READ_COPY && !ra->zon) {
		ra->pieces = 1;
		ra->zon = 0;
		ra->base = p->scanpos;
	}
	ra->spin = sched_getaffinity(0, sizeof cpus, &cpus) == 0 &&
	    CPU_COUNT(&cpus) > 1 ? RA_SPIN : 0;
	ra->pos0 = p->scanpos;
	ra->pincpu = -1;
	if (ra->spin > 0 && ra->pin && pthread_attr_init(&at) == 0) {
		r = ra_pin(ra, &cpus, &at) < 0 ? -1 :
		    pthread_create(&ra->thread, &at, ra_main, p);
		pthread_attr_destroy(&at);
		if (r == 0) {
			ra->started = 1;
			return 0;
		}
		ra_unpin(ra);
		ra->pincpu = -1;
	}
	if (pthread_create(&ra->thread, NULL, ra_main, p) != 0)
		return -1;
	ra->started = 1;
	return 0;
}

void
pclni_perf_ra_put(pcln_perf *p, uint8_t *b, size_t cap)
{
	ra_give(p->ra, b, cap);
}

static void
ra_free_buf(struct perf_ra *ra, uint8_t *b)
{
	if (!in_pool(ra, b))
		free(b);
}

void
pclni_perf_ra_stop(pcln_perf *p)
{
	struct perf_ra *ra = p->ra;

	if (ra == NULL || !ra->started || ra->joined)
		return;
	pthread_mutex_lock(&ra->mu);
	ra->stop = 1;
	pthread_cond_broadcast(&ra->cv);
	pthread_mutex_unlock(&ra->mu);
	pthread_join(ra->thread, NULL);
	ra->joined = 1;
	ra_unpin(ra);
}

void
pclni_perf_ra_close(pcln_perf *p)
{
	struct perf_ra *ra = p->ra;
	struct freebuf h;
	uint8_t *b;

	if (ra == NULL)
		return;
	pclni_perf_ra_stop(p);
	for (; ra->count > 0; ra->count--, ra->head = (ra->head + 1) %
	    RA_DEPTH)
		if (ra->q[ra->head].r == 0)
			ra_free_buf(ra, ra->q[ra->head].data);
	for (; ra->pieces && ra->taken < ra->claimed; ra->taken++)
		if (ra->slot[ra->taken % RA_DEPTH].buf != NULL)
			ra_free_buf(ra, ra->slot[ra->taken % RA_DEPTH].buf);
	/* (the units in ZQ are in ZS's segments) */
	ra->zcount = 0;
	pclni_perf_zs_free(&ra->zs);
	for (b = ra->free; b != NULL; b = h.next) {
		memcpy(&h, b, sizeof h);
		ra_free_buf(ra, b);
	}
	pcln_huge_free(ra->pool, ra->poollen);
	pthread_mutex_destroy(&ra->mu);
	pthread_cond_destroy(&ra->cv);
	free(ra);
	p->ra = NULL;
}

/* The next chunk from the reader into *F: 0, or -1 if it cannot start
 * (*F untouched: the walk reads alone from then on). */
/* Wait for the first of a queue of the reader's (its count at COUNT):
 * 1, MU held; or 0 if the reader ended with it empty (ERR says so, of
 * WHAT at the scan's offset). */
static int
ra_wait(pcln_perf *p, const size_t *count, const char *what, pcln_err *err)
{
	struct perf_ra *ra = p->ra;
	unsigned i;

	/* (awake first: COUNT and DONE are stored atomically, under MU
	 * too) */
	for (i = 0; i < ra->spin && __atomic_load_n(count,
	    __ATOMIC_ACQUIRE) == 0 && !__atomic_load_n(&ra->done,
	    __ATOMIC_ACQUIRE); i++)
		cpu_relax();
	pthread_mutex_lock(&ra->mu);
	while (*count == 0 && !ra->done)
		pthread_cond_wait(&ra->cv, &ra->mu);
	if (*count != 0)
		return 1;
	pthread_mutex_unlock(&ra->mu);
	pclni_seterr(err, PCLN_EMATH, (int64_t)p->scanpos, "perf.data: %s "
	    "0x%llx: asked for past the reader's end", what,
	    (unsigned long long)p->scanpos);
	return 0;
}

static int
ra_next(pcln_perf *p, struct fill *f)
{
	struct perf_ra *ra = p->ra;

	if (!ra->started && ra_start(p) < 0)
		return -1;
	if (ra->pieces) {
		pieces_next(p, f);
		ra_took(ra);
		return 0;
	}
	memset(f, 0, sizeof *f);
	if (!ra_wait(p, &ra->count, "record at offset", &f->err)) {
		/* (the reader ended after the chunk the walk read last:
		 * the walk asks no further) */
		f->r = -1;
		return 0;
	}
	*f = ra->q[ra->head];
	ra->head = (ra->head + 1) % RA_DEPTH;
	__atomic_store_n(&ra->count, ra->count - 1, __ATOMIC_RELEASE);
	if (ra->rwait && ra->count <= RA_LOW)
		pthread_cond_broadcast(&ra->cv);
	pthread_mutex_unlock(&ra->mu);
	ra_took(ra);
	return 0;
}

int
pclni_perf_ra_zunit(pcln_perf *p, struct perf_zunit *u)
{
	struct perf_ra *ra = p->ra;

	if (ra == NULL || !ra->zon || !ra->started)
		return 0;
	memset(u, 0, sizeof *u);
	if (!ra_wait(p, &ra->zcount, "COMPRESSED record near offset",
	    &u->err)) {
		/* (the reader ended before this record: after damage or
		 * at the close, which the scan does not go past) */
		u->r = -1;
		return 1;
	}
	*u = ra->zq[ra->zhead];
	ra->ztaken++;
	ra->zhead = (ra->zhead + 1) % ZQ_DEPTH;
	ra->zbytes -= u->len;
	__atomic_store_n(&ra->zcount, ra->zcount - 1, __ATOMIC_RELEASE);
	pthread_cond_broadcast(&ra->cv);
	pthread_mutex_unlock(&ra->mu);
	ra_took(ra);
	return 1;
}

/* --- the walk's side ---------------------------------------------------- */

/* A mapped chunk's records went out: the mapping's entries for the
 * file before it, less a region, are dropped (MADV_DONTNEED), else the
 * whole profile would count in the process's resident memory (416 MB
 * for a profile of 411 MB, against 20 MB with copies).  In regions of
 * DROP_UNIT: the kernel maps a file's large folios with huge entries,
 * and dropping a part of one splits it.  A page dropped while records
 * in it are still read (a chunk the ordered walk still holds) comes
 * back at a fault, from the page cache. */
#define DROP_UNIT	((uint64_t)2 << 20)

/* With a twin (pcln_perf_open_twin), which reads the same mapping as
 * far as this handle, give or take a little (the two take turns at
 * blocks of samples: one is a block or two, a few MiB, ahead at most):
 * the pages are kept this far behind, for the other's records, and
 * each of the two drops every other region of DROP_TWIN_UNIT.  (8 MiB
 * behind, not 32: as fast, as many page faults, 8 MB less at the
 * peak.)  (Each drop interrupts the other CPU,
 * where the other thread runs, to flush its TLB, which a guest pays
 * dearly: in regions of 2 MiB, 206 drops on the long bench profile,
 * 0.7 to 0.9 ms more of its 17 to 20, for 6 MB less at its peak.  One
 * handle alone drops as often at no cost.) */
#define DROP_TWIN	((uint64_t)8 << 20)
#define DROP_TWIN_UNIT	((uint64_t)8 << 20)

static void
drop_mapped(pcln_perf *p, const struct perf_chunk *c)
{
	int twins = p->has_twin || p->twin_of != NULL;
	uint64_t lag = twins ? DROP_TWIN : DROP_UNIT;
	uint64_t unit = twins ? DROP_TWIN_UNIT : DROP_UNIT;
	uint64_t upto = c->file_off > lag ? (c->file_off - lag) &
	    ~(unit - 1) : 0, u;

	if (upto <= p->dropped)
		return;
	if (!twins)
		(void)madvise((uint8_t *)p->map + p->dropped,
		    (size_t)(upto - p->dropped), MADV_DONTNEED);
	else
		/* (each twin every other region) */
		for (u = p->dropped; u < upto; u += unit)
			if ((u / unit) % 2 == (p->twin_of != NULL))
				(void)madvise((uint8_t *)p->map + u,
				    (size_t)unit, MADV_DONTNEED);
	p->dropped = upto;
}

/* Give back a chunk's buffer. */
static void
give_back(pcln_perf *p, uint8_t *b, size_t cap)
{
	if (p->ra != NULL)
		pclni_perf_ra_put(p, b, cap);
	else
		pclni_perf_buf_put(p, b, cap);
}

/* A buffer for the walk's next chunk (it reads alone). */
static uint8_t *
walk_buf(pcln_perf *p, size_t *cap)
{
	return pclni_perf_buf_get(p, p->chunk_size, cap);
}

int
pclni_perf_file_chunk(pcln_perf *p, pcln_err *err)
{
	uint64_t off = p->scanpos;
	struct perf_chunk *c;
	struct fill f;

	if (p->chunk0 + p->nchunks >= PERF_CHUNK_IDS)
		return pclni_seterr(err, PCLN_EUNSUPPORTED, (int64_t)off,
		    "perf.data: record at offset 0x%llx: more chunks of the "
		    "data section than this reader counts",
		    (unsigned long long)off);
	if (pclni_grow(&p->chunks, &p->capchunks, p->nchunks + 1,
	    sizeof *p->chunks) < 0)
		return pclni_seterr(err, PCLN_ENOMEM, -1, "out of memory");
	if (p->ra == NULL || ra_next(p, &f) < 0) {
		if (p->ra != NULL)
			pclni_perf_ra_close(p);
		next_fill(p, off, walk_buf, &f);
	}
	if (f.r < 0) {
		if (f.data != NULL && !f.mapped)
			give_back(p, f.data - f.skip, f.cap);
		if (err != NULL)
			*err = f.err;
		return -1;
	}
	p->nread += f.got;
	c = &p->chunks[p->nchunks++];
	c->data = f.data;
	c->cap = f.cap;
	c->len = f.len;
	c->file_off = f.file_off;
	c->next_off = f.next_off;
	c->infile = 1;
	c->rabuf = 0;
	c->zseg = NULL;
	c->mapped = f.mapped;
	c->skip = f.skip;
	c->pending = 1;			/* the scan's */
	if (f.damaged) {
		p->fdamage = f.err;
		p->fdamaged = 1;
	}
	p->fcur = p->chunk0 + p->nchunks;
	p->fpos = 0;
	return 0;
}

void
pclni_perf_chunk_free(pcln_perf *p, struct perf_chunk *c)
{
	if (c->data == NULL)
		return;
	if (c->zseg != NULL)
		pclni_perf_zseg_release(c->zseg);
	else if (c->mapped)
		drop_mapped(p, c);
	else if (c->infile || c->rabuf)
		give_back(p, c->data - c->skip, c->cap);
	else
		pclni_perf_buf_put(p, c->data - c->skip, c->cap);
	c->data = NULL;
}

pcln_perf *
pcln_perf_open_fd(int fd, unsigned flags, pcln_err *err)
{
	struct stat st;
	void *map = NULL;
	size_t len;
	pcln_perf *p;

	pclni_clearerr(err);
	if (fstat(fd, &st) < 0) {
		pclni_seterr(err, PCLN_EIO, -1, "perf.data: cannot stat: %s",
		    strerror(errno));
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		pclni_seterr(err, PCLN_EINVAL, -1, "perf.data: not a regular "
		    "file (a pipe's stream is read whole, with "
		    "pcln_perf_open)");
		return NULL;
	}
	len = (size_t)st.st_size;
	if ((uint64_t)st.st_size != len) {
		pclni_seterr(err, PCLN_ERANGE, -1, "perf.data: %llu bytes, "
		    "more than this machine maps",
		    (unsigned long long)st.st_size);
		return NULL;
	}
	if (len > 0 && (map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd,
	    0)) == MAP_FAILED) {
		pclni_seterr(err, PCLN_EIO, -1, "perf.data: cannot map: %s",
		    strerror(errno));
		return NULL;
	}
	if ((p = pcln_perf_open(map, len, flags, err)) == NULL) {
		if (map != NULL)
			munmap(map, len);
		return NULL;
	}
	p->map = map;
	p->maplen = len;
	if (p->info.pipe) {
		/* A pipe's stream saved in a file: its records are read
		 * through the mapping, as pcln_perf_open reads them; ask
		 * for its pages at once (no gain to fault them one by
		 * one). */
		(void)madvise(map, len, MADV_POPULATE_READ);
	} else {
		p->fd = fd;
		p->chunk_size = FILE_CHUNK;
		p->readmode = (flags & PCLN_PERF_MAPREAD) ?
		    PCLNI_PERF_READ_PROBE : PCLNI_PERF_READ_COPY;
		if ((flags & PCLN_PERF_READAHEAD) && (p->ra = calloc(1,
		    sizeof *p->ra)) != NULL) {
			pthread_mutex_init(&p->ra->mu, NULL);
			pthread_cond_init(&p->ra->cv, NULL);
			p->ra->pin = (flags & PCLN_PERF_PIN) != 0;
			p->ra->zqbytes = ZQ_BYTES;
			p->ra->pincpu = -1;
		}
	}
	return p;
}

pcln_perf *
pcln_perf_open_twin(pcln_perf *first, unsigned flags, pcln_err *err)
{
	pcln_perf *p;

	pclni_clearerr(err);
	if (first == NULL || first->fd < 0 || first->map == NULL ||
	    first->twin_of != NULL || first->info.pipe) {
		pclni_seterr(err, PCLN_EINVAL, -1, "perf.data: a twin is of a "
		    "handle of pcln_perf_open_fd on a file (not a twin)");
		return NULL;
	}
	if ((p = pcln_perf_open(first->map, first->maplen, flags &
	    PCLN_PERF_ORDERED, err)) == NULL)
		return NULL;
	p->map = first->map;
	p->maplen = first->maplen;
	p->twin_of = first;
	p->fd = first->fd;
	p->chunk_size = first->chunk_size;
	p->readmode = (flags & PCLN_PERF_MAPREAD) ? PCLNI_PERF_READ_PROBE :
	    PCLNI_PERF_READ_COPY;
	/* (FIRST's reader thread, where it has one that has not started,
	 * is given up: with a twin, three threads on two CPUs took longer
	 * than the two populating their chunks themselves) */
	if (first->ra != NULL && !first->ra->started)
		pclni_perf_ra_close(first);
	if (first->claim == NULL) {
		cpu_set_t cpus;

		first->nclaim = (first->maplen >> CLAIM_SHIFT) + 1;
		first->claim = calloc(first->nclaim, 1);
		first->claim_spin = sched_getaffinity(0, sizeof cpus,
		    &cpus) == 0 && CPU_COUNT(&cpus) > 1 ? CLAIM_SPIN : 0;
	}
	first->has_twin = 1;
	return p;
}

void
pclni_perf_set_zlimits(pcln_perf *p, size_t segmin, size_t zqbytes)
{
	p->z.segmin = segmin;
	if (p->ra != NULL) {
		p->ra->zs.segmin = segmin;
		p->ra->zqbytes = zqbytes != 0 ? zqbytes : ZQ_BYTES;
	}
}

size_t
pclni_perf_ra_zmax(const pcln_perf *p)
{
	return p->ra != NULL ? p->ra->zmax : 0;
}

int
pclni_perf_ra_pin(const pcln_perf *p, int *cpu, pid_t *rtid)
{
	const struct perf_ra *ra = p->ra;

	*cpu = ra != NULL ? ra->pincpu : -1;
	*rtid = ra != NULL ? __atomic_load_n(&ra->rtid, __ATOMIC_ACQUIRE) :
	    0;
	return ra != NULL && ra->pinned;
}

unsigned
pclni_perf_ra_spin(const pcln_perf *p)
{
	return p->ra != NULL ? p->ra->spin : 0;
}

uint64_t
pclni_perf_ra_pieces(const pcln_perf *p, uint64_t *bywalk)
{
	const struct perf_ra *ra = p->ra;

	if (bywalk != NULL)
		*bywalk = ra != NULL ? ra->bywalk : 0;
	return ra != NULL && ra->pieces ? ra->taken : 0;
}

uint64_t
pclni_perf_ra_zunits(const pcln_perf *p)
{
	return p->ra != NULL ? p->ra->ztaken : 0;
}

void
pclni_perf_set_chunk(pcln_perf *p, size_t n)
{
	p->chunk_size = n < PCLNI_PERF_CHUNK_MIN ? PCLNI_PERF_CHUNK_MIN : n;
}

uint64_t
pcln_perf_bytes_read(const pcln_perf *p)
{
	return p->nread;
}

int
pcln_perf_reader_stats(const pcln_perf *p, pcln_perf_reader *r)
{
	const struct perf_ra *ra = p != NULL ? p->ra : NULL;

	memset(r, 0, sizeof *r);
	r->pinned_cpu = -1;
	if (ra == NULL || !ra->started)
		return 0;
	r->pieces = ra->pieces ? ra->taken : 0;
	r->pieces_by_walk = ra->bywalk;
	r->units = ra->ztaken;
	r->pinned_cpu = ra->pincpu;
	return 1;
}

/* Decide now, before the first record is read, on up to PROBE_CHUNKS
 * pieces from the data section's start (PROBE_COPY bytes, a quarter of
 * a chunk at most; framed by no one: only their pages count), each
 * brought in in the mapping and copied as next_fill's probe does with
 * whole chunks: a caller that chooses its threads by the way (a twin
 * reads in the mapping; pcln_perf_open_twin) asks before it makes
 * them.  (Whole chunks mapped first cost 0.3 to 0.4 ms each on the
 * guest of 2026-12-07 afternoon, before the reader thread could
 * start.)  The pieces stay mapped, their pages there for a walk that
 * reads them in the mapping.  Where the data section is too short to
 * time, nothing is decided (the reads decide as before). */
int
pcln_perf_probe_read(pcln_perf *p)
{
	uint64_t off, end, t0, ns;
	size_t piece, got;
	unsigned k;

	if (p == NULL || p->fd < 0 || p->info.pipe || p->twin_of != NULL)
		return 0;
	piece = p->chunk_size / 4 < PROBE_COPY ? p->chunk_size / 4 :
	    PROBE_COPY;
	if (read_mode(p) == PCLNI_PERF_READ_PROBE && (p->ra == NULL ||
	    !p->ra->started) && p->nchunks == 0) {
		end = p->info.data_end;
		for (k = 0; k < PROBE_CHUNKS &&
		    read_mode(p) == PCLNI_PERF_READ_PROBE; k++) {
			off = p->scanpos + (uint64_t)k * piece;
			if (off >= end || end - off < piece)
				break;
			t0 = now_ns();
			if (map_range(p, off, piece, &got) < 0) {
				set_read_mode(p, PCLNI_PERF_READ_COPY);
				break;
			}
			ns = now_ns() - t0;
			if (got < piece)	/* (it shrank) */
				break;
			probe_time(p, ns, piece, off);
		}
	}
	return read_mode(p) == PCLNI_PERF_READ_MAP;
}
