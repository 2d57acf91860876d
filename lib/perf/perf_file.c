/* perf_file.c -- a perf.data file read from its descriptor.
 *
 * A --call-graph dwarf sample is a record of some 8 KiB, nearly all of
 * it the user stack copy, and a profile is read once from its start to
 * its end.  Read through a mapping, each page of it costs a TLB miss
 * and a page-table entry: on the guest where this was measured, 1.2 us
 * a page whether MAP_POPULATE made the entries or faults did, 20 ms for
 * a profile of 67 MB.  Read with pread into a buffer of 256 KiB that is
 * used again and again, the kernel's copy of the same 67 MB took 4.6 ms
 * (bench/mapfloor.c times both).  So the data section is read here in
 * chunks of whole records, which the walk frees (into its spare buffers)
 * once their records went out, as it frees the records of perf record
 * -z (perf_record.c); the header, the attributes and the feature
 * sections, a few KiB at both ends of the file, are read through a
 * mapping that is not populated: only their pages come in.
 */
#include <config.h>

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
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
 * FILE_OFF, the next chunk starts at NEXT_OFF; GOT bytes were read.  R
 * -1: nothing was read (ERR; DATA given back); DAMAGED: the chunk's
 * records, then the damage in ERR. */
struct fill {
	uint8_t *data;
	size_t cap, len, got;
	uint64_t file_off, next_off;
	int r, damaged;
	pcln_err err;
};

/* Read the records at OFF into B (CAP >= P->chunk_size bytes) and frame
 * them into *F.  Reads only what the open fixed (P->info, P->big, P->fd,
 * P->chunk_size): the reader thread calls it as the walk does. */
static void
fill(const pcln_perf *p, uint64_t off, uint8_t *b, size_t cap,
    struct fill *f)
{
	uint64_t end = p->info.data_end, step = 0;
	size_t want, got = 0, o;
	int r = 1;

	memset(f, 0, sizeof *f);
	f->data = b;
	f->cap = cap;
	f->file_off = off;
	want = end - off < p->chunk_size ? (size_t)(end - off) :
	    p->chunk_size;
	if (read_full(p->fd, b, want, off, &got) < 0 || got < want) {
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
	f->got = got;
	/* Whole records; the one that does not fit starts the next
	 * chunk. */
	for (o = 0; o < got; o += step)
		if ((r = pclni_perf_frame(p, b + o, off + o, got - o, &step,
		    &f->err)) <= 0 || step > got - o)
			break;
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
}

/* --- the reader thread (PCLN_PERF_READAHEAD) ----------------------------
 *
 * The kernel's copy of the records is a third of what a sample costs
 * the walk (0.33 of 1.06 us on the profile of bench/perf.sh's "long"):
 * a second thread reads the chunks ahead, RA_DEPTH of them at most, and
 * the walk takes them in file order.  The reader only calls fill(),
 * which reads what the open fixed; the queue, the free buffers and the
 * flags are under MU.  Its first buffers are one region of 2 MiB, in a
 * transparent huge page where the kernel has them: one page fault, not
 * 512 (a fault costs 11 us on the guest where this was measured). */

#define RA_DEPTH	4
#define RA_POOL		((size_t)8 << 20)

struct perf_ra {
	pthread_t thread;
	int started;
	pthread_mutex_t mu;
	pthread_cond_t cv;		/* the queue or the flags changed */
	struct fill q[RA_DEPTH];
	size_t head, count;
	uint8_t *free;			/* buffers given back: a list through
					 * their first bytes (next, cap) */
	int stop;			/* the close: end now */
	int done;			/* the reader ended */
	uint8_t *pool;			/* RA_POOL bytes, or NULL */
	void *poolmap;
	size_t poolmaplen;
	size_t pooluse;			/* bytes of the pool handed out */
};

struct freebuf {
	uint8_t *next;
	size_t cap;
};

/* A buffer for a chunk (under MU): a free one, a piece of the pool, or
 * NULL (then malloc, outside the lock). */
static uint8_t *
ra_take(struct perf_ra *ra, size_t want, size_t *cap)
{
	struct freebuf h;
	uint8_t *b;

	if ((b = ra->free) != NULL) {
		memcpy(&h, b, sizeof h);
		if (h.cap >= want) {
			ra->free = h.next;
			*cap = h.cap;
			return b;
		}
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

static void *
ra_main(void *arg)
{
	pcln_perf *p = arg;
	struct perf_ra *ra = p->ra;
	uint64_t pos = p->scanpos;
	struct fill f;
	uint8_t *b;
	size_t cap = 0;
	int last = 0;

	while (!last) {
		pthread_mutex_lock(&ra->mu);
		while (!ra->stop && ra->count == RA_DEPTH)
			pthread_cond_wait(&ra->cv, &ra->mu);
		if (ra->stop) {
			pthread_mutex_unlock(&ra->mu);
			break;
		}
		b = ra_take(ra, p->chunk_size, &cap);
		pthread_mutex_unlock(&ra->mu);
		if (b == NULL && (b = malloc(cap = p->chunk_size)) == NULL) {
			memset(&f, 0, sizeof f);
			f.r = -1;
			pclni_seterr(&f.err, PCLN_ENOMEM, -1, "out of memory");
		} else
			fill(p, pos, b, cap, &f);
		last = f.r < 0 || f.damaged || f.next_off >= p->info.data_end;
		pos = f.next_off;
		pthread_mutex_lock(&ra->mu);
		ra->q[(ra->head + ra->count) % RA_DEPTH] = f;
		ra->count++;
		pthread_cond_broadcast(&ra->cv);
		pthread_mutex_unlock(&ra->mu);
	}
	pthread_mutex_lock(&ra->mu);
	ra->done = 1;
	pthread_cond_broadcast(&ra->cv);
	pthread_mutex_unlock(&ra->mu);
	return NULL;
}

/* Start the reader (at the walk's first chunk, after a test's
 * pclni_perf_set_chunk).  0, or -1: the walk reads alone. */
static int
ra_start(pcln_perf *p)
{
	struct perf_ra *ra = p->ra;
	size_t len = 2 * RA_POOL;
	uint8_t *m;

	m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE |
	    MAP_ANONYMOUS, -1, 0);
	if (m != MAP_FAILED) {
		ra->poolmap = m;
		ra->poolmaplen = len;
		ra->pool = (uint8_t *)(((uintptr_t)m + RA_POOL - 1) &
		    ~(uintptr_t)(RA_POOL - 1));
#ifdef MADV_HUGEPAGE
		(void)madvise(ra->pool, RA_POOL, MADV_HUGEPAGE);
#endif
	}
	if (pthread_create(&ra->thread, NULL, ra_main, p) != 0)
		return -1;
	ra->started = 1;
	return 0;
}

void
pclni_perf_ra_put(pcln_perf *p, uint8_t *b, size_t cap)
{
	struct perf_ra *ra = p->ra;
	struct freebuf h;

	pthread_mutex_lock(&ra->mu);
	h.next = ra->free;
	h.cap = cap;
	memcpy(b, &h, sizeof h);
	ra->free = b;
	pthread_cond_broadcast(&ra->cv);
	pthread_mutex_unlock(&ra->mu);
}

static void
ra_free_buf(struct perf_ra *ra, uint8_t *b)
{
	if (!in_pool(ra, b))
		free(b);
}

void
pclni_perf_ra_close(pcln_perf *p)
{
	struct perf_ra *ra = p->ra;
	struct freebuf h;
	uint8_t *b;

	if (ra == NULL)
		return;
	if (ra->started) {
		pthread_mutex_lock(&ra->mu);
		ra->stop = 1;
		pthread_cond_broadcast(&ra->cv);
		pthread_mutex_unlock(&ra->mu);
		pthread_join(ra->thread, NULL);
	}
	for (; ra->count > 0; ra->count--, ra->head = (ra->head + 1) %
	    RA_DEPTH)
		if (ra->q[ra->head].r == 0)
			ra_free_buf(ra, ra->q[ra->head].data);
	for (b = ra->free; b != NULL; b = h.next) {
		memcpy(&h, b, sizeof h);
		ra_free_buf(ra, b);
	}
	if (ra->poolmap != NULL)
		munmap(ra->poolmap, ra->poolmaplen);
	pthread_mutex_destroy(&ra->mu);
	pthread_cond_destroy(&ra->cv);
	free(ra);
	p->ra = NULL;
}

/* The next chunk from the reader into *F: 0, or -1 if it cannot start
 * (*F untouched: the walk reads alone from then on). */
static int
ra_next(pcln_perf *p, struct fill *f)
{
	struct perf_ra *ra = p->ra;

	if (!ra->started && ra_start(p) < 0)
		return -1;
	pthread_mutex_lock(&ra->mu);
	while (ra->count == 0 && !ra->done)
		pthread_cond_wait(&ra->cv, &ra->mu);
	if (ra->count == 0) {
		/* (the reader ended after the chunk the walk read last:
		 * the walk asks no further) */
		pthread_mutex_unlock(&ra->mu);
		memset(f, 0, sizeof *f);
		f->r = -1;
		pclni_seterr(&f->err, PCLN_EMATH, (int64_t)p->scanpos,
		    "perf.data: record at offset 0x%llx: asked for past the "
		    "reader's end", (unsigned long long)p->scanpos);
		return 0;
	}
	*f = ra->q[ra->head];
	ra->head = (ra->head + 1) % RA_DEPTH;
	ra->count--;
	pthread_cond_broadcast(&ra->cv);
	pthread_mutex_unlock(&ra->mu);
	return 0;
}

/* --- the walk's side ---------------------------------------------------- */

/* Give back a chunk's buffer. */
static void
give_back(pcln_perf *p, uint8_t *b, size_t cap)
{
	if (p->ra != NULL)
		pclni_perf_ra_put(p, b, cap);
	else
		pclni_perf_buf_put(p, b, cap);
}

int
pclni_perf_file_chunk(pcln_perf *p, pcln_err *err)
{
	uint64_t off = p->scanpos;
	struct perf_chunk *c;
	struct fill f;
	size_t cap;
	uint8_t *b;

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
		if ((b = pclni_perf_buf_get(p, p->chunk_size, &cap)) == NULL)
			return pclni_seterr(err, PCLN_ENOMEM, -1,
			    "out of memory");
		fill(p, off, b, cap, &f);
	}
	if (f.r < 0) {
		if (f.data != NULL)
			give_back(p, f.data, f.cap);
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
	if (c->infile)
		give_back(p, c->data, c->cap);
	else
		pclni_perf_buf_put(p, c->data, c->cap);
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
		if ((flags & PCLN_PERF_READAHEAD) && (p->ra = calloc(1,
		    sizeof *p->ra)) != NULL) {
			pthread_mutex_init(&p->ra->mu, NULL);
			pthread_cond_init(&p->ra->cv, NULL);
		}
	}
	return p;
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
