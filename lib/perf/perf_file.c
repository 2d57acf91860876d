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
#define FILE_CHUNK	((size_t)256 << 10)

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

int
pclni_perf_file_chunk(pcln_perf *p, pcln_err *err)
{
	uint64_t off = p->scanpos, end = p->info.data_end, step = 0;
	size_t want, cap, got = 0, o;
	struct perf_chunk *c;
	pcln_err e;
	uint8_t *b;
	int r = 1;

	if (p->chunk0 + p->nchunks >= PERF_CHUNK_IDS)
		return pclni_seterr(err, PCLN_EUNSUPPORTED, (int64_t)off,
		    "perf.data: record at offset 0x%llx: more chunks of the "
		    "data section than this reader counts",
		    (unsigned long long)off);
	want = end - off < p->chunk_size ? (size_t)(end - off) :
	    p->chunk_size;
	if (pclni_grow(&p->chunks, &p->capchunks, p->nchunks + 1,
	    sizeof *p->chunks) < 0 ||
	    (b = pclni_perf_buf_get(p, p->chunk_size, &cap)) == NULL)
		return pclni_seterr(err, PCLN_ENOMEM, -1, "out of memory");
	if (read_full(p->fd, b, want, off, &got) < 0 || got < want) {
		int en = errno;

		pclni_perf_buf_put(p, b, cap);
		if (got < want)
			return pclni_seterr(err, PCLN_ETRUNC, (int64_t)(off +
			    got), "perf.data: the file ends at offset 0x%llx, "
			    "inside the data section, which ended at 0x%llx "
			    "when it was opened: it changed while read",
			    (unsigned long long)(off + got),
			    (unsigned long long)end);
		return pclni_seterr(err, PCLN_EIO, (int64_t)off, "perf.data: "
		    "cannot read at offset 0x%llx: %s",
		    (unsigned long long)off, strerror(en));
	}
	p->nread += got;
	/* Whole records; the one that does not fit starts the next
	 * chunk. */
	for (o = 0; o < got; o += step)
		if ((r = pclni_perf_frame(p, b + o, off + o, got - o, &step,
		    &e)) <= 0 || step > got - o)
			break;
	if (o == 0 && r <= 0) {
		pclni_perf_buf_put(p, b, cap);
		if (r == 0)	/* (GOT is all the data left, or more than a
				 * record's 64 KiB) */
			return pclni_seterr(err, PCLN_EMATH, (int64_t)off,
			    "perf.data: record at offset 0x%llx: framed "
			    "from %zu bytes", (unsigned long long)off, got);
		if (err != NULL)
			*err = e;
		return -1;
	}
	c = &p->chunks[p->nchunks++];
	c->data = b;
	c->cap = cap;
	c->file_off = off;
	c->infile = 1;
	c->pending = 1;			/* the scan's */
	if (o == 0) {
		/* A record longer than a chunk with its payload (an
		 * AUXTRACE's trace data), which is never read: its SIZE
		 * bytes (at most 64 KiB, fewer than a chunk reads, and the
		 * data section holds them) are its chunk. */
		c->len = perf_u16(p, b + 6);
		c->next_off = off + step;
	} else {
		c->len = o;
		c->next_off = off + o;
		if (r < 0) {		/* after this chunk's records */
			p->fdamage = e;
			p->fdamaged = 1;
		}
	}
	p->fcur = p->chunk0 + p->nchunks;
	p->fpos = 0;
	return 0;
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
