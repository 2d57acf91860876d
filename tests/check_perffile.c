/* check_perffile.c -- pcln_perf_open_fd, which reads a perf.data file's
 * records with pread a chunk at a time, returns what pcln_perf_open
 * returns over the whole file in memory: the same records (type, misc,
 * size, offset, time and every byte), in the same order, ordered and
 * unordered, and the same error (code, offset, message) after the same
 * records when the framing is damaged.
 *
 * The profiles are made here: a header and one attribute (samples with
 * IP, TID, TIME, PERIOD and a stack copy; sample_id_all), then samples
 * whose stack copies are 0 to 9 KiB long (so records cross the chunks'
 * ends at every place), COMM and EXIT records with their trailers, a
 * PERF_RECORD_FINISHED_ROUND every 7 records and times shuffled within
 * two rounds (so the ordered walk keeps chunks for records that wait),
 * and an AUXTRACE record whose payload (300 KiB) is longer than a chunk.
 * Each is read with the smallest chunk (64 KiB and 16 bytes), an odd
 * size and the default, by the walk alone and with the reader thread
 * (PCLN_PERF_READAHEAD); then damaged (a record's size 0 at about
 * 400 KiB, past the first chunks), truncated, and cut after the open.
 * The same records as perf record -z writes them (each round one zstd
 * flush, cut into COMPRESSED records of at most 3,001 bytes, the
 * FINISHED_ROUND records outside), which the reader thread decompresses
 * beside the walk: the same records and errors (a COMPRESSED record's
 * byte changed) as the walk's own decompression over the buffer.
 */
#define _GNU_SOURCE 1	/* memfd_create, sched_getaffinity */
#include <config.h>

#include <check.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#ifdef HAVE_LIBZSTD
#include <zstd.h>
#endif

#include "perf_internal.h"

#define ST_IP		(1u << 0)
#define ST_TID		(1u << 1)
#define ST_TIME		(1u << 2)
#define ST_PERIOD	(1u << 8)
#define ST_STACK	(1u << 13)
#define SAMPLE_TYPE	(ST_IP | ST_TID | ST_TIME | ST_PERIOD | ST_STACK)
#define PID		4242

struct out {
	uint8_t *b;
	size_t n, cap;
};

static void
put(struct out *o, const void *p, size_t n)
{
	if (o->n + n > o->cap) {
		o->cap = (o->n + n) * 2;
		o->b = realloc(o->b, o->cap);
		ck_assert_ptr_nonnull(o->b);
	}
	memcpy(o->b + o->n, p, n);
	o->n += n;
}

static void
put64(struct out *o, uint64_t v)
{
	put(o, &v, 8);		/* (the test runs little-endian) */
}

static void
put32x2(struct out *o, uint32_t a, uint32_t b)
{
	put(o, &a, 4);
	put(o, &b, 4);
}

static void
hdr(struct out *o, uint32_t type, uint16_t misc, uint16_t size)
{
	put(o, &type, 4);
	put(o, &misc, 2);
	put(o, &size, 2);
}

/* A sample at TIME with a stack copy of STACK bytes (a multiple of 8). */
static void
sample(struct out *o, uint64_t time, size_t stack)
{
	size_t i;

	hdr(o, PCLN_PERF_RECORD_SAMPLE, 2, (uint16_t)(8 + 8 + 8 + 8 + 8 +
	    8 + stack + 8));
	put64(o, 0x400000 + time % 4096);
	put32x2(o, PID, PID);
	put64(o, time);
	put64(o, 250000);
	put64(o, stack);
	for (i = 0; i < stack; i += 8)
		put64(o, time * 1000 + i);
	put64(o, stack);
}

/* A COMM (NAME, 8 bytes with its NUL) at TIME with its trailer. */
static void
comm(struct out *o, uint64_t time, const char name[8])
{
	hdr(o, PCLN_PERF_RECORD_COMM, 0, 8 + 8 + 8 + 8 + 8);
	put32x2(o, PID, PID);
	put(o, name, 8);
	put32x2(o, PID, PID);
	put64(o, time);
}

/* How make_file writes its records: as they are (0); as perf record -z
 * does, one zstd stream with a flush a round (Z_PERF); so with the
 * smallest window, 1 KiB (Z_SMALL: blocks of 1 KiB, and the reader's
 * segments turn over all the time, records cut between them); a frame
 * a round, windows of 1 KiB and 1 MiB in turn (Z_FRAMES); or Z_PERF's
 * stream with a window of 256 MiB in its header (Z_HUGE: more than the
 * reader takes). */
enum { Z_PERF = 1, Z_SMALL, Z_FRAMES, Z_HUGE };

static uint8_t *zmake(const struct out *d, const size_t *recstart, size_t n,
    struct out *z, int how);

/* The whole file: *LEN bytes, malloc'ed.  DAMAGE: the first record at
 * or after that byte of the data section gets size 0, its offset in
 * *DAMAGED.  ZST: its records as perf record -z writes them (Z_*; no
 * AUXTRACE: perf leaves it out of the stream). */
static uint8_t *
make_file(size_t *len, size_t damage, uint64_t *damaged, int zst)
{
	struct out o = { 0 }, d = { 0 };
	uint64_t attr[16] = { 0 }, t = 1000;
	static const uint64_t shuffle[7] = { 3, 1, 0, 2, 6, 4, 5 };
	size_t i, k, n = 0, recstart[1024];
	uint32_t w;

	/* The data section first (its offset is known: 104 + 144 + 8). */
	for (i = 0; i < 210; i++) {
		if (i == 100 && !zst) {	/* an AUXTRACE and its payload */
			recstart[n++] = d.n;
			hdr(&d, PCLN_PERF_RECORD_AUXTRACE, 0, 48);
			put64(&d, 300 << 10);		/* size */
			put64(&d, 0);			/* offset */
			put64(&d, 0);			/* reference */
			put32x2(&d, 0, PID);		/* idx, tid */
			put32x2(&d, 0, 0);		/* cpu */
			for (k = 0; k < (300 << 10) / 8; k++)
				put64(&d, k);
		}
		if (i % 7 == 6) {
			recstart[n++] = d.n;
			hdr(&d, PCLN_PERF_RECORD_FINISHED_ROUND, 0, 8);
			t += 7000;
			continue;
		}
		recstart[n++] = d.n;
		/* Rounds 10 and 11 out of order within themselves. */
		k = (i / 7 == 10 || i / 7 == 11) ? shuffle[i % 7] : i % 7;
		if (i % 13 == 5)
			comm(&d, t + 1000 * k, i % 2 ? "prog\0\0\0" :
			    "other\0\0");
		else
			sample(&d, t + 1000 * k, 8 + ((i * 1163) % 9216 &
			    ~(size_t)7));
	}
	hdr(&d, PCLN_PERF_RECORD_EXIT, 0, 8 + 24 + 16);
	put32x2(&d, PID, 1);
	put32x2(&d, PID, 1);
	put64(&d, t);
	put32x2(&d, PID, PID);
	put64(&d, t);
	*damaged = 0;
	for (i = 0; i < n && damage != 0; i++)
		if (recstart[i] >= damage) {
			memset(d.b + recstart[i] + 6, 0, 2);
			*damaged = 104 + 144 + 8 + recstart[i];
			break;
		}
	if (zst) {
		struct out z = { 0 };

		free(zmake(&d, recstart, n, &z, zst));
		d = z;
	}

	put(&o, "PERFILE2", 8);
	put64(&o, 104);			/* header size */
	put64(&o, 144);			/* attr_size */
	put64(&o, 104);			/* attrs */
	put64(&o, 144);
	put64(&o, 104 + 144 + 8);	/* data */
	put64(&o, d.n);
	put64(&o, 0);			/* event types */
	put64(&o, 0);
	/* features: perf record -z's HEADER_COMPRESSED (27) */
	put64(&o, zst ? (uint64_t)1 << 27 : 0);
	for (i = 1; i < 4; i++)
		put64(&o, 0);
	w = 1;				/* PERF_TYPE_SOFTWARE */
	memcpy(&attr[0], &w, 4);
	w = 128;			/* its size */
	memcpy((uint8_t *)&attr[0] + 4, &w, 4);
	attr[2] = 4000;			/* sample_freq */
	attr[3] = SAMPLE_TYPE;
	attr[5] = (1u << 10) | (1u << 18);	/* freq, sample_id_all */
	attr[11] = 8192;		/* sample_stack_user (at 88) */
	put(&o, attr, 128);
	put64(&o, 104 + 144);		/* its ids */
	put64(&o, 8);
	put64(&o, 1);
	ck_assert_uint_eq(o.n, 104 + 144 + 8);
	put(&o, d.b, d.n);
	free(d.b);
	if (zst) {
		/* (its section: version, type zstd, level, ratio,
		 * mmap_len) */
		uint32_t sec[5] = { 1, 1, 1, 10, 528384 };

		put64(&o, o.n + 16);
		put64(&o, sizeof sec);
		put(&o, sec, sizeof sec);
	}
	*len = o.n;
	return o.b;
}

static uint8_t *
make(size_t *len, size_t damage, uint64_t *damaged)
{
	return make_file(len, damage, damaged, 0);
}

/* D's records (N, starting at RECSTART, the last one's end D->n) as
 * perf record -z writes them (HOW: Z_*), into Z: D's bytes returned (to
 * free). */
static uint8_t *
zmake(const struct out *d, const size_t *recstart, size_t n, struct out *z,
    int how)
{
#ifdef HAVE_LIBZSTD
	ZSTD_CCtx *cx = ZSTD_createCCtx();
	uint8_t piece[3001 - 8], *zb;
	size_t i, from = 0, end, k, cut, zcap = 1 << 20, first = z->n;
	unsigned round = 0;
	ZSTD_inBuffer in;
	ZSTD_outBuffer out;

	ck_assert_ptr_nonnull(cx);
	zb = malloc(zcap);
	ck_assert_ptr_nonnull(zb);
	if (how == Z_SMALL)
		ck_assert(!ZSTD_isError(ZSTD_CCtx_setParameter(cx,
		    ZSTD_c_windowLog, 10)));	/* (the least) */
	for (i = 0; i <= n; i++) {
		uint32_t type = 0;

		end = i < n ? recstart[i] : d->n;
		if (i < n)
			memcpy(&type, d->b + end, 4);
		if (i < n && type != PCLN_PERF_RECORD_FINISHED_ROUND)
			continue;
		/* D[FROM..END): one round, one flush. */
		in.src = d->b + from;
		in.size = end - from;
		in.pos = 0;
		out.dst = zb;
		out.size = zcap;
		out.pos = 0;
		if (how == Z_FRAMES)
			ck_assert(!ZSTD_isError(ZSTD_CCtx_setParameter(cx,
			    ZSTD_c_windowLog, round++ % 2 ? 20 :
			    10)));
		while (ZSTD_compressStream2(cx, &out, &in, how == Z_FRAMES ?
		    ZSTD_e_end : ZSTD_e_flush) != 0)
			ck_assert_uint_lt(out.pos, zcap);
		for (k = 0; k < out.pos; k += cut) {
			cut = out.pos - k < sizeof piece ? out.pos - k :
			    sizeof piece - (k / 7 % 500);
			memcpy(piece, zb + k, cut);
			hdr(z, PCLN_PERF_RECORD_COMPRESSED, 0,
			    (uint16_t)(8 + cut));
			put(z, piece, cut);
		}
		if (i < n) {	/* the round's end, outside */
			put(z, d->b + end, 8);
			from = end + 8;
		} else
			from = end;
	}
	/* Z_HUGE: the first frame header's window descriptor (after the
	 * magic and the descriptor of a frame that is not one segment),
	 * in the first COMPRESSED record, says 2^28 bytes. */
	if (how == Z_HUGE) {
		ck_assert_uint_eq(z->b[first + 8 + 4] & 0x20, 0);
		z->b[first + 8 + 5] = (28 - 10) << 3;
	}
	ZSTD_freeCCtx(cx);
	free(zb);
#else
	(void)recstart, (void)n, (void)z, (void)how, (void)first;
#endif
	return d->b;
}

static int
memfile(const uint8_t *b, size_t n)
{
	int fd = memfd_create("perf.data", 0);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, b, n), (ssize_t)n);
	return fd;
}

/* The records of Q, read as far as P reads them, are those of P; and
 * the walk ends (or fails) where P's does, with the same error.
 * Returns the count of records. */
static size_t
same_walk(pcln_perf *p, pcln_perf *q)
{
	pcln_perf_event a, b;
	pcln_err ea, eb;
	size_t n = 0;
	int ra, rb;

	for (;;) {
		memset(&ea, 0, sizeof ea);
		memset(&eb, 0, sizeof eb);
		ra = pcln_perf_next(p, &a, &ea);
		rb = pcln_perf_next(q, &b, &eb);
		ck_assert_int_eq(ra, rb);
		if (ra != 1) {
			ck_assert_int_eq(ea.code, eb.code);
			ck_assert_int_eq(ea.offset, eb.offset);
			ck_assert_str_eq(ea.msg, eb.msg);
			return n;
		}
		ck_assert_uint_eq(a.type, b.type);
		ck_assert_uint_eq(a.misc, b.misc);
		ck_assert_uint_eq(a.size, b.size);
		ck_assert_uint_eq(a.offset, b.offset);
		ck_assert_int_eq(a.has_time, b.has_time);
		ck_assert_uint_eq(a.time, b.time);
		ck_assert_int_eq(a.bad, b.bad);
		ck_assert_mem_eq(a.raw, b.raw, a.size);
		if (a.type == PCLN_PERF_RECORD_SAMPLE) {
			ck_assert_uint_eq(a.u.sample.stack_dyn,
			    b.u.sample.stack_dyn);
			ck_assert_mem_eq(a.u.sample.stack, b.u.sample.stack,
			    a.u.sample.stack_dyn);
		}
		n++;
	}
}

/* How the file's chunks are read (PCLNI_PERF_READ_*): the tests below
 * read each file each way, the probe (PCLN_PERF_MAPREAD's) too. */
static const int ways[] = { PCLNI_PERF_READ_COPY, PCLNI_PERF_READ_MAP,
    PCLNI_PERF_READ_PROBE };
#define NWAYS	(sizeof ways / sizeof ways[0])

/* FILE read both ways with chunks of CHUNK bytes (0: the default),
 * FLAGS, its chunks read the way WAY; the count of records. */
static size_t
compare_way(const uint8_t *file, size_t len, size_t chunk, unsigned flags,
    int way, uint64_t *read)
{
	pcln_perf *p, *q;
	pcln_err err;
	size_t n;
	int fd = memfile(file, len);

	p = pcln_perf_open(file, len, flags & ~PCLN_PERF_READAHEAD, &err);
	ck_assert_msg(p != NULL, "%s", err.msg);
	q = pcln_perf_open_fd(fd, flags | PCLN_PERF_MAPREAD, &err);
	ck_assert_msg(q != NULL, "%s", err.msg);
	ck_assert_int_eq(pclni_perf_read_mode(q), PCLNI_PERF_READ_PROBE);
	if (chunk != 0)
		pclni_perf_set_chunk(q, chunk);
	pclni_perf_set_read(q, way);
	n = same_walk(p, q);
	/* The probe decided, where it read four chunks (whole ones, not
	 * the last) before the walk's end. */
	if (way == PCLNI_PERF_READ_PROBE && chunk == PCLNI_PERF_CHUNK_MIN &&
	    n > 200 && len > (1u << 20))
		ck_assert_int_ne(pclni_perf_read_mode(q),
		    PCLNI_PERF_READ_PROBE);
	else if (way != PCLNI_PERF_READ_PROBE)
		ck_assert_int_eq(pclni_perf_read_mode(q), way);
	/* Copied with the reader thread: in pieces (of a file not said to
	 * hold perf record -z's stream), else not. */
	if (way == PCLNI_PERF_READ_COPY && (flags & PCLN_PERF_READAHEAD) &&
	    !(pcln_perf_get_info(q)->features[PCLN_PERF_FEAT_COMPRESSED /
	    64] >> PCLN_PERF_FEAT_COMPRESSED % 64 & 1))
		ck_assert_uint_gt(pclni_perf_ra_pieces(q, NULL), 0);
	else
		ck_assert_uint_eq(pclni_perf_ra_pieces(q, NULL), 0);
	*read = pcln_perf_bytes_read(q);
	ck_assert_uint_eq(pcln_perf_bytes_read(p), 0);
	pcln_perf_close(p);
	pcln_perf_close(q);
	close(fd);
	return n;
}

/* compare_way, each way: the same count of records each way. */
static size_t
compare(const uint8_t *file, size_t len, size_t chunk, unsigned flags,
    uint64_t *read)
{
	size_t n = 0, k, i;
	uint64_t r;

	size_t size = chunk != 0 ? chunk : (size_t)1 << 20;
	int first = 1;

	for (i = 0; i < NWAYS; i++) {
		k = compare_way(file, len, chunk, flags, ways[i], &r);
		if (i == 0)
			n = k;
		ck_assert_uint_eq(k, n);
		if (ways[i] == PCLNI_PERF_READ_COPY &&
		    (flags & PCLN_PERF_READAHEAD)) {
			/* (the reader's pieces: each the chunk size and
			 * 64 KiB more, from fixed places) */
			ck_assert_uint_gt(r, 0);
			ck_assert_uint_le(r, (len / size + 2) * (size +
			    (64 << 10)));
			continue;
		}
		if (first)
			*read = r;
		first = 0;
		ck_assert_uint_eq(r, *read);
	}
	return n;
}

static const size_t chunks[] = { PCLNI_PERF_CHUNK_MIN, 100003, 0 };

START_TEST(test_same)
{
	uint64_t damaged, read;
	size_t len, i, n;
	uint8_t *file = make(&len, 0, &damaged);

	ck_assert_uint_gt(len, 1u << 20);
	for (i = 0; i < sizeof chunks / sizeof chunks[0]; i++) {
		n = compare(file, len, chunks[i], PCLN_PERF_ORDERED, &read);
		ck_assert_uint_eq(n, 212);
		/* The data section, but for the payload longer than a
		 * chunk (never read whole), and records cut at a chunk's
		 * end again as the next one's start. */
		ck_assert_uint_ge(read, len - 256 - (300 << 10));
		ck_assert_uint_le(read, len - 256 + (len / (64 << 10) + 1) *
		    (64 << 10));
		n = compare(file, len, chunks[i], 0, &read);
		ck_assert_uint_eq(n, 212);
		/* The reader thread's chunks are the walk's. */
		n = compare(file, len, chunks[i], PCLN_PERF_ORDERED |
		    PCLN_PERF_READAHEAD, &read);
		ck_assert_uint_eq(n, 212);
		ck_assert_uint_ge(read, len - 256 - (300 << 10));
		n = compare(file, len, chunks[i], PCLN_PERF_READAHEAD, &read);
		ck_assert_uint_eq(n, 212);
		/* And with the two threads kept on CPUs of their own. */
		n = compare(file, len, chunks[i], PCLN_PERF_ORDERED |
		    PCLN_PERF_READAHEAD | PCLN_PERF_PIN, &read);
		ck_assert_uint_eq(n, 212);
	}
	free(file);
}
END_TEST

START_TEST(test_damaged)
{
	uint64_t damaged, read;
	size_t len, i, n;
	uint8_t *file = make(&len, 400 << 10, &damaged);

	ck_assert_uint_gt(damaged, 400 << 10);
	for (i = 0; i < sizeof chunks / sizeof chunks[0]; i++) {
		/* (same_walk checks the error is the buffer's) */
		n = compare(file, len, chunks[i], PCLN_PERF_ORDERED, &read);
		ck_assert_uint_gt(n, 20);
		n = compare(file, len, chunks[i], 0, &read);
		ck_assert_uint_gt(n, 20);
		n = compare(file, len, chunks[i], PCLN_PERF_ORDERED |
		    PCLN_PERF_READAHEAD, &read);
		ck_assert_uint_gt(n, 20);
	}
	free(file);
}
END_TEST

/* This thread kept on the CPU it is on: that CPU alone. */
static cpu_set_t
only_this_cpu(void)
{
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(sched_getcpu() >= 0 ? sched_getcpu() : 0, &one);
	ck_assert_int_eq(sched_setaffinity(0, sizeof one, &one), 0);
	return one;
}

/* The walk waits awake for the reader's chunk only where the two
 * threads may run at once: on one CPU it would keep the reader from
 * running. */
START_TEST(test_spin_cpus)
{
	uint64_t damaged;
	size_t len;
	uint8_t *file = make(&len, 0, &damaged);
	int fd = memfile(file, len), pass;
	cpu_set_t all;
	pcln_perf_event ev;
	pcln_perf *q;
	pcln_err err;

	ck_assert_int_eq(sched_getaffinity(0, sizeof all, &all), 0);
	for (pass = 0; pass < 2; pass++) {
		if (pass == 1)
			(void)only_this_cpu();
		q = pcln_perf_open_fd(fd, PCLN_PERF_ORDERED |
		    PCLN_PERF_READAHEAD, &err);
		ck_assert_msg(q != NULL, "%s", err.msg);
		ck_assert_int_eq(pcln_perf_next(q, &ev, &err), 1);
		if (pass == 1)
			ck_assert_uint_eq(pclni_perf_ra_spin(q), 0);
		else if (CPU_COUNT(&all) > 1)
			ck_assert_uint_gt(pclni_perf_ra_spin(q), 0);
		else
			ck_assert_uint_eq(pclni_perf_ra_spin(q), 0);
		pcln_perf_close(q);
	}
	ck_assert_int_eq(sched_setaffinity(0, sizeof all, &all), 0);
	close(fd);
	free(file);
}
END_TEST

/* The thread's affinity now is exactly WANT. */
static int
affinity_is(pid_t tid, const cpu_set_t *want)
{
	cpu_set_t now;

	return sched_getaffinity(tid, sizeof now, &now) == 0 &&
	    CPU_EQUAL(&now, want);
}

/* PCLN_PERF_PIN: where the thread may run on two CPUs or more, the walk
 * (this thread) is kept on the CPU it was on at its first record and
 * the reader is on all the others, while the reader runs (it waits for
 * the walk: the file is 1.3 MB in pieces of 64 KiB, four ahead); after
 * the close this thread's own affinity is back.  Without the flag, or on one CPU, nothing is
 * kept anywhere. */
START_TEST(test_pin)
{
	uint64_t damaged;
	size_t len;
	uint8_t *file = make(&len, 0, &damaged);
	int fd = memfile(file, len), pass, cpu, r, i;
	cpu_set_t all, one, rest;
	pcln_perf_event ev;
	pcln_perf *q;
	pcln_err err;
	pid_t rtid;
	pcln_perf_reader rs;

	ck_assert_int_eq(sched_getaffinity(0, sizeof all, &all), 0);
	if (CPU_COUNT(&all) < 2)
		fprintf(stderr, "check_perffile: test_pin: this process may "
		    "run on one CPU only: the pinning itself is not tested, "
		    "only that nothing is pinned\n");
	for (pass = 0; pass < 3; pass++) {
		if (pass == 2)
			one = only_this_cpu();
		q = pcln_perf_open_fd(fd, PCLN_PERF_ORDERED |
		    PCLN_PERF_READAHEAD | (pass != 1 ? PCLN_PERF_PIN : 0),
		    &err);
		ck_assert_msg(q != NULL, "%s", err.msg);
		pclni_perf_set_chunk(q, PCLNI_PERF_CHUNK_MIN);
		ck_assert_int_eq(pcln_perf_next(q, &ev, &err), 1);
		r = pclni_perf_ra_pin(q, &cpu, &rtid);
		if (pass == 0 && CPU_COUNT(&all) > 1) {
			ck_assert_int_eq(r, 1);
			ck_assert_int_ge(cpu, 0);
			ck_assert(CPU_ISSET(cpu, &all));
			CPU_ZERO(&one);
			CPU_SET(cpu, &one);
			ck_assert(affinity_is(0, &one));
			/* (the reader's id, once it ran: it is waiting for
			 * the walk to take its pieces) */
			for (i = 0; i < 5000 && rtid == 0; i++) {
				usleep(1000);
				(void)pclni_perf_ra_pin(q, &cpu, &rtid);
			}
			ck_assert_int_gt(rtid, 0);
			rest = all;
			CPU_CLR(cpu, &rest);
			ck_assert(affinity_is(rtid, &rest));
		} else {
			ck_assert_int_eq(r, 0);
			ck_assert_int_eq(cpu, -1);
			ck_assert(affinity_is(0, pass == 2 ? &one : &all));
		}
		while ((r = pcln_perf_next(q, &ev, &err)) == 1)
			;
		ck_assert_int_eq(r, 0);
		/* What the reader did, as pcln_perf_reader_stats says: the
		 * pieces the walk took (the 1.3 MB in 64 KiB), some of
		 * them perhaps copied by the walk, and the CPU kept. */
		ck_assert_int_eq(pcln_perf_reader_stats(q, &rs), 1);
		ck_assert_uint_ge(rs.pieces, len / (64 << 10) - 1);
		ck_assert_uint_le(rs.pieces_by_walk, rs.pieces);
		ck_assert_uint_eq(rs.units, 0);
		ck_assert_int_eq(rs.pinned_cpu, pass == 0 &&
		    CPU_COUNT(&all) > 1 ? cpu : -1);
		pcln_perf_close(q);
		ck_assert(affinity_is(0, pass == 2 ? &one : &all));
	}
	ck_assert_int_eq(sched_setaffinity(0, sizeof all, &all), 0);
	/* No reader thread: nothing to say. */
	q = pcln_perf_open_fd(fd, PCLN_PERF_ORDERED | PCLN_PERF_PIN, &err);
	ck_assert_msg(q != NULL, "%s", err.msg);
	ck_assert_int_eq(pcln_perf_next(q, &ev, &err), 1);
	ck_assert_int_eq(pcln_perf_reader_stats(q, &rs), 0);
	ck_assert_int_eq(rs.pinned_cpu, -1);
	ck_assert(affinity_is(0, &all));
	pcln_perf_close(q);
	close(fd);
	free(file);
}
END_TEST

/* A file cut inside its data section: the header says more. */
START_TEST(test_truncated)
{
	uint64_t damaged, read;
	size_t len, i, n;
	uint8_t *file = make(&len, 0, &damaged);

	for (i = 0; i < sizeof chunks / sizeof chunks[0]; i++) {
		n = compare(file, len - 5000, chunks[i], PCLN_PERF_ORDERED,
		    &read);
		ck_assert_uint_gt(n, 150);
		n = compare(file, len - 5000, chunks[i], 0, &read);
		ck_assert_uint_gt(n, 150);
		n = compare(file, len - 5000, chunks[i], PCLN_PERF_ORDERED |
		    PCLN_PERF_READAHEAD, &read);
		ck_assert_uint_gt(n, 150);
	}
	free(file);
}
END_TEST

/* The file shrinks after the open: an error names where it now ends,
 * after the records before. */
START_TEST(test_shrunk)
{
	unsigned flags = PCLN_PERF_ORDERED | PCLN_PERF_MAPREAD |
	    ((_i & 1) ? PCLN_PERF_READAHEAD : 0);
	uint64_t damaged;
	size_t len, n = 0;
	uint8_t *file = make(&len, 0, &damaged);
	int fd = memfile(file, len), r;
	pcln_perf_event ev;
	pcln_perf *q;
	pcln_err err;

	q = pcln_perf_open_fd(fd, flags, &err);
	ck_assert_msg(q != NULL, "%s", err.msg);
	pclni_perf_set_chunk(q, PCLNI_PERF_CHUNK_MIN);
	/* (copied, or in the mapping: the shrink is seen as the chunk
	 * is mapped, before any of its bytes is read) */
	pclni_perf_set_read(q, (_i & 2) ? PCLNI_PERF_READ_MAP :
	    PCLNI_PERF_READ_COPY);
	ck_assert_int_eq(ftruncate(fd, 200 << 10), 0);
	while ((r = pcln_perf_next(q, &ev, &err)) == 1)
		n++;
	ck_assert_int_eq(r, -1);
	ck_assert_int_eq(err.code, PCLN_ETRUNC);
	ck_assert_int_eq(err.offset, 200 << 10);
	ck_assert_msg(strstr(err.msg, "changed while read") != NULL, "%s",
	    err.msg);
	ck_assert_uint_gt(n, 0);
	pcln_perf_close(q);
	close(fd);
	free(file);
}
END_TEST

/* Two handles sharing the samples (pcln_perf_share) in blocks: each
 * gives every record that is not a sample, and the samples of its
 * blocks; together, every sample of a handle alone, in its order.
 * Ordered or not, read with pread or in the mapping, with the reader
 * thread or not. */
START_TEST(test_share)
{
	static const unsigned flags[] = { PCLN_PERF_ORDERED,
		PCLN_PERF_ORDERED | PCLN_PERF_READAHEAD | PCLN_PERF_MAPREAD,
		0, PCLN_PERF_READAHEAD };
	uint64_t damaged, all[512], other[512], part[2][512];
	size_t len, f, k, n, nall, nother, np[2], at[2];
	uint8_t *file = make(&len, 0, &damaged);
	int fd = memfile(file, len), r;
	pcln_perf_event ev;
	pcln_perf *q;
	pcln_err err;
	unsigned i, block = 5;

	for (f = 0; f < sizeof flags / sizeof flags[0]; f++) {
		/* Alone. */
		q = pcln_perf_open_fd(fd, flags[f], &err);
		ck_assert_msg(q != NULL, "%s", err.msg);
		pclni_perf_set_chunk(q, PCLNI_PERF_CHUNK_MIN);
		nall = nother = 0;
		while ((r = pcln_perf_next(q, &ev, &err)) == 1) {
			if (ev.type == PCLN_PERF_RECORD_SAMPLE)
				all[nall++] = ev.offset;
			else
				other[nother++] = ev.offset;
		}
		ck_assert_int_eq(r, 0);
		ck_assert_uint_eq(pcln_perf_samples_met(q), nall);
		ck_assert_uint_gt(nall, 100);
		pcln_perf_close(q);
		/* In two shares. */
		for (i = 0; i < 2; i++) {
			q = pcln_perf_open_fd(fd, flags[f], &err);
			ck_assert_msg(q != NULL, "%s", err.msg);
			pclni_perf_set_chunk(q, PCLNI_PERF_CHUNK_MIN);
			ck_assert_int_eq(pcln_perf_share(q, i, 2, block), 0);
			np[i] = k = 0;
			while ((r = pcln_perf_next(q, &ev, &err)) == 1) {
				if (ev.type == PCLN_PERF_RECORD_SAMPLE) {
					part[i][np[i]++] = ev.offset;
					continue;
				}
				ck_assert_uint_lt(k, nother);
				ck_assert_uint_eq(ev.offset, other[k]);
				k++;
			}
			ck_assert_int_eq(r, 0);
			ck_assert_uint_eq(k, nother);
			ck_assert_uint_eq(pcln_perf_samples_met(q), nall);
			/* (the share is fixed at the first record) */
			ck_assert_int_eq(pcln_perf_share(q, 0, 1, 1), -1);
			pcln_perf_close(q);
		}
		ck_assert_uint_eq(np[0] + np[1], nall);
		for (n = 0, at[0] = at[1] = 0; n < nall; n++) {
			i = (unsigned)(n / block % 2);
			ck_assert_uint_lt(at[i], np[i]);
			ck_assert_uint_eq(part[i][at[i]++], all[n]);
		}
	}
	q = pcln_perf_open_fd(fd, 0, &err);
	ck_assert_int_eq(pcln_perf_share(q, 2, 2, 1), -1);
	ck_assert_int_eq(pcln_perf_share(q, 0, 0, 1), -1);
	ck_assert_int_eq(pcln_perf_share(q, 0, 2, 0), -1);
	pcln_perf_close(q);
	close(fd);
	free(file);
}
END_TEST

/* pcln_perf_probe_read decides the way before the first record, on the
 * data section's first chunks, and the records are then those of a
 * buffer's handle; asked again, the same answer; after a record, for a
 * handle that copies or reads a buffer, it decides nothing. */
START_TEST(test_probe_read)
{
	uint64_t damaged;
	size_t len;
	uint8_t *file = make(&len, 0, &damaged);
	int fd = memfile(file, len), m;
	pcln_perf_event ev;
	pcln_perf *p, *q;
	pcln_err err;

	ck_assert_uint_gt(len, 6 * PCLNI_PERF_CHUNK_MIN);
	ck_assert_int_eq(pcln_perf_probe_read(NULL), 0);
	p = pcln_perf_open(file, len, PCLN_PERF_ORDERED, &err);
	ck_assert_msg(p != NULL, "%s", err.msg);
	ck_assert_int_eq(pcln_perf_probe_read(p), 0);
	/* A handle that copies: no probe. */
	q = pcln_perf_open_fd(fd, PCLN_PERF_ORDERED, &err);
	ck_assert_msg(q != NULL, "%s", err.msg);
	ck_assert_int_eq(pcln_perf_probe_read(q), 0);
	ck_assert_int_eq(pclni_perf_read_mode(q), PCLNI_PERF_READ_COPY);
	pcln_perf_close(q);
	/* Before the first record (a reader thread not started): decided,
	 * and the records as they are. */
	q = pcln_perf_open_fd(fd, PCLN_PERF_ORDERED | PCLN_PERF_READAHEAD |
	    PCLN_PERF_MAPREAD, &err);
	ck_assert_msg(q != NULL, "%s", err.msg);
	pclni_perf_set_chunk(q, PCLNI_PERF_CHUNK_MIN);
	ck_assert_int_eq(pclni_perf_read_mode(q), PCLNI_PERF_READ_PROBE);
	m = pcln_perf_probe_read(q);
	ck_assert_int_ne(pclni_perf_read_mode(q), PCLNI_PERF_READ_PROBE);
	ck_assert_int_eq(m, pclni_perf_read_mode(q) == PCLNI_PERF_READ_MAP);
	ck_assert_int_eq(pcln_perf_probe_read(q), m);
	ck_assert_uint_gt(same_walk(p, q), 100);
	pcln_perf_close(q);
	pcln_perf_close(p);
	/* After a record (one chunk read, unordered): not decided now. */
	q = pcln_perf_open_fd(fd, PCLN_PERF_MAPREAD, &err);
	ck_assert_msg(q != NULL, "%s", err.msg);
	pclni_perf_set_chunk(q, PCLNI_PERF_CHUNK_MIN);
	ck_assert_int_eq(pcln_perf_next(q, &ev, &err), 1);
	ck_assert_int_eq(pcln_perf_probe_read(q), 0);
	ck_assert_int_eq(pclni_perf_read_mode(q), PCLNI_PERF_READ_PROBE);
	pcln_perf_close(q);
	close(fd);
	free(file);
}
END_TEST

/* A twin (pcln_perf_open_twin) reads in its first handle's mapping: the
 * records of a handle alone, shared in blocks with the first, walked
 * one after the other and in turn (the first with a reader thread that
 * the twin gives up, in the second turn); no twin of a twin, nor of a
 * handle on a buffer. */
START_TEST(test_twin)
{
	uint64_t damaged, got[2][512];
	size_t len, nall, n[2], k, i;
	uint8_t *file = make(&len, 0, &damaged);
	int fd = memfile(file, len), r[2], turn;
	pcln_perf_event ev;
	pcln_perf *q[2], *b;
	pcln_err err;

	q[0] = pcln_perf_open_fd(fd, PCLN_PERF_ORDERED, &err);
	ck_assert_msg(q[0] != NULL, "%s", err.msg);
	for (nall = 0; pcln_perf_next(q[0], &ev, &err) == 1;)
		nall++;
	pcln_perf_close(q[0]);
	for (turn = 0; turn < 2; turn++) {
		q[0] = pcln_perf_open_fd(fd, PCLN_PERF_ORDERED |
		    PCLN_PERF_MAPREAD | (turn == 1 ? PCLN_PERF_READAHEAD : 0),
		    &err);
		ck_assert_msg(q[0] != NULL, "%s", err.msg);
		ck_assert(turn == 0 || q[0]->ra != NULL);
		pclni_perf_set_chunk(q[0], PCLNI_PERF_CHUNK_MIN);
		q[1] = pcln_perf_open_twin(q[0], PCLN_PERF_ORDERED |
		    PCLN_PERF_MAPREAD, &err);
		ck_assert_msg(q[1] != NULL, "%s", err.msg);
		/* (the first's reader thread, not started, given up) */
		ck_assert_ptr_null(q[0]->ra);
		pclni_perf_set_chunk(q[1], PCLNI_PERF_CHUNK_MIN);
		ck_assert_ptr_null(pcln_perf_open_twin(q[1], 0, &err));
		ck_assert_int_eq(err.code, PCLN_EINVAL);
		for (i = 0; i < 2; i++) {
			ck_assert_int_eq(pcln_perf_share(q[i], (unsigned)i, 2,
			    7), 0);
			n[i] = 0;
			r[i] = 1;
		}
		/* One after the other, or a record of each in turn. */
		while (r[0] == 1 || r[1] == 1)
			for (i = 0; i < 2; i++) {
				if (r[i] != 1 || (turn == 0 && i == 1 &&
				    r[0] == 1))
					continue;
				if ((r[i] = pcln_perf_next(q[i], &ev, &err)) ==
				    1 && ev.type == PCLN_PERF_RECORD_SAMPLE)
					got[i][n[i]++] = ev.offset;
			}
		ck_assert_int_eq(r[0], 0);
		ck_assert_int_eq(r[1], 0);
		pcln_perf_close(q[1]);
		pcln_perf_close(q[0]);
		/* Together the samples of the handle alone. */
		{
			size_t at[2] = { 0, 0 }, ns = 0;

			q[0] = pcln_perf_open_fd(fd, PCLN_PERF_ORDERED, &err);
			for (k = 0; pcln_perf_next(q[0], &ev, &err) == 1;) {
				if (ev.type != PCLN_PERF_RECORD_SAMPLE)
					continue;
				i = ns++ / 7 % 2;
				ck_assert_uint_lt(at[i], n[i]);
				ck_assert_uint_eq(got[i][at[i]++], ev.offset);
				k++;
			}
			pcln_perf_close(q[0]);
			ck_assert_uint_eq(k, n[0] + n[1]);
			ck_assert_uint_gt(k, 100);
		}
	}
	ck_assert_uint_gt(nall, 100);
	b = pcln_perf_open(file, len, PCLN_PERF_ORDERED, &err);
	ck_assert_ptr_nonnull(b);
	ck_assert_ptr_null(pcln_perf_open_twin(b, 0, &err));
	pcln_perf_close(b);
	close(fd);
	free(file);
}
END_TEST

/* The walk stops early: the close stops the reader thread and frees its
 * chunks (LeakSanitizer, in the sanitized suite, sees what it leaves). */
START_TEST(test_close_early)
{
	uint64_t damaged;
	size_t len, n;
	uint8_t *file = make(&len, 0, &damaged);
	int fd = memfile(file, len);
	pcln_perf_event ev;
	pcln_perf *q;
	pcln_err err;

	for (n = 0; n < 40; n += 13) {
		size_t k = 0;

		q = pcln_perf_open_fd(fd, PCLN_PERF_ORDERED |
		    PCLN_PERF_READAHEAD, &err);
		ck_assert_msg(q != NULL, "%s", err.msg);
		pclni_perf_set_chunk(q, PCLNI_PERF_CHUNK_MIN);
		while (k < n && pcln_perf_next(q, &ev, &err) == 1)
			k++;
		ck_assert_uint_eq(k, n);
		pcln_perf_close(q);
	}
	close(fd);
	free(file);
}
END_TEST

#ifdef HAVE_LIBZSTD
/* perf record -z's records: decompressed by the reader thread, the
 * same records as the walk's own decompression; and with a COMPRESSED
 * record's bytes changed, the same error after the same records. */
START_TEST(test_zstd)
{
	uint64_t damaged, read;
	size_t len, i, n, n0 = 0, k, at;
	uint8_t *file = make_file(&len, 0, &damaged, Z_PERF);
	pcln_perf *q;
	pcln_perf_event ev;
	pcln_err err;
	int fd, r;

	ck_assert_uint_lt(len, 1u << 20);	/* (compressed) */
	for (i = 0; i < sizeof chunks / sizeof chunks[0]; i++) {
		n0 = compare(file, len, chunks[i], PCLN_PERF_ORDERED |
		    PCLN_PERF_READAHEAD, &read);
		ck_assert_uint_gt(n0, 209);
		n = compare(file, len, chunks[i], PCLN_PERF_READAHEAD, &read);
		ck_assert_uint_gt(n, 209);
		n = compare(file, len, chunks[i], PCLN_PERF_ORDERED, &read);
		ck_assert_uint_gt(n, 209);
	}
	/* Every record decompressed, every COMPRESSED one by the
	 * thread. */
	fd = memfile(file, len);
	q = pcln_perf_open_fd(fd, PCLN_PERF_ORDERED | PCLN_PERF_READAHEAD,
	    &err);
	ck_assert_ptr_nonnull(q);
	for (n = 0, k = 0, at = 0; (r = pcln_perf_next(q, &ev, &err)) == 1;
	    n++) {
		k += ev.type == PCLN_PERF_RECORD_SAMPLE;
		at += ev.type == PCLN_PERF_RECORD_COMPRESSED;
	}
	ck_assert_int_eq(r, 0);
	ck_assert_uint_eq(k, 210 - 30 - 14);	/* (rounds, COMMs) */
	ck_assert_uint_eq(pcln_perf_decompressed(q), 210 - 30 + 1);
	ck_assert_uint_gt(at, 20);
	ck_assert_uint_eq(pclni_perf_ra_zunits(q), at);
	{
		pcln_perf_reader rs;

		ck_assert_int_eq(pcln_perf_reader_stats(q, &rs), 1);
		ck_assert_uint_eq(rs.units, at);
		ck_assert_uint_eq(rs.pieces, 0);
	}
	pcln_perf_close(q);
	close(fd);
	/* 400 bytes of the stream made 0xff, in the middle of the data:
	 * zstd fails there (or what it makes is damaged), the same way. */
	at = 256 + (len - 256) / 2;
	memset(file + at, 0xff, 400);
	n = compare(file, len, 0, PCLN_PERF_ORDERED | PCLN_PERF_READAHEAD,
	    &read);
	ck_assert_uint_lt(n, n0);
	n = compare(file, len, 0, PCLN_PERF_READAHEAD, &read);
	ck_assert_uint_lt(n, n0);
	/* And the close while the thread has records decompressed. */
	fd = memfile(file, len);
	q = pcln_perf_open_fd(fd, PCLN_PERF_ORDERED | PCLN_PERF_READAHEAD,
	    &err);
	ck_assert_ptr_nonnull(q);
	ck_assert_int_eq(pcln_perf_next(q, &ev, &err), 1);
	pcln_perf_close(q);
	close(fd);
	free(file);
}
END_TEST

/* same_records' limits for the decompressors (pclni_perf_set_zlimits:
 * 0 the defaults), and the most the reader had ahead there. */
static size_t zsegmin, zqbytes, zmax;

/* The records of Z (a -z file), walked with FLAGS, are those of PLAIN
 * (the same records as they are) walked alone, byte for byte, but for
 * the COMPRESSED records (and PLAIN's AUXTRACE, which -z leaves out).
 * The count of records. */
static size_t
same_records(const uint8_t *plain, size_t nplain, const uint8_t *z,
    size_t nz, unsigned flags)
{
	pcln_perf *p, *q;
	pcln_perf_event a, b;
	pcln_err ea, eb;
	int fd = memfile(z, nz), ra, rb;
	size_t n = 0;

	p = pcln_perf_open(plain, nplain, flags & PCLN_PERF_ORDERED, &ea);
	ck_assert_msg(p != NULL, "%s", ea.msg);
	q = pcln_perf_open_fd(fd, flags, &eb);
	ck_assert_msg(q != NULL, "%s", eb.msg);
	pclni_perf_set_zlimits(q, zsegmin, zqbytes);
	for (;;) {
		do
			ra = pcln_perf_next(p, &a, &ea);
		while (ra == 1 && a.type == PCLN_PERF_RECORD_AUXTRACE);
		do
			rb = pcln_perf_next(q, &b, &eb);
		while (rb == 1 && b.type == PCLN_PERF_RECORD_COMPRESSED);
		ck_assert_msg((ra == 0 && rb == 0) || (ra == 1 && rb == 1),
		    "record %zu: %d %d %s", n, ra, rb, eb.msg);
		if (ra == 0)
			break;
		ck_assert_uint_eq(a.type, b.type);
		ck_assert_uint_eq(a.misc, b.misc);
		ck_assert_uint_eq(a.size, b.size);
		ck_assert_uint_eq(a.time, b.time);
		ck_assert_mem_eq(a.raw, b.raw, a.size);
		n++;
	}
	zmax = pclni_perf_ra_zmax(q);
	pcln_perf_close(p);
	pcln_perf_close(q);
	close(fd);
	return n;
}

/* The decompressor's segments (pclni_perf_zunpack): in segments of 64
 * KiB at least (1 MiB by default) it moves from one to another, records cut
 * at every place between them, the ordered walk holding the units of
 * two rounds out of order, and uses a few only (those given back are
 * taken again); a frame a round, with windows of 1 KiB and 1 MiB in
 * turn; every record the file's own, with the reader thread and by the
 * walk alone, the reader no further ahead than its bound (2 MiB, or 16
 * KiB) and a unit.  And a window larger than the reader takes is
 * damage. */
START_TEST(test_zstd_segments)
{
	static const int hows[] = { Z_PERF, Z_SMALL, Z_FRAMES };
	static const unsigned flags[] = { PCLN_PERF_ORDERED,
	    PCLN_PERF_ORDERED | PCLN_PERF_READAHEAD, 0,
	    PCLN_PERF_READAHEAD };
	uint64_t damaged, nswitch;
	size_t nplain, nz, i, f, n, nsegs;
	uint8_t *plain = make_file(&nplain, 0, &damaged, 0), *z;
	pcln_perf *q;
	pcln_perf_event ev;
	pcln_err err;
	int fd, r;

	for (i = 0; i < 2 * sizeof hows / sizeof hows[0]; i++) {
		/* (each way with the default segments and lead, then with
		 * segments of 64 KiB and 16 KiB of records ahead) */
		size_t lim = i % 2 ? 16 << 10 : 0;

		zsegmin = i % 2 ? 64 << 10 : 0;
		zqbytes = lim;
		z = make_file(&nz, 0, &damaged, hows[i / 2]);
		for (f = 0; f < sizeof flags / sizeof flags[0]; f++) {
			n = same_records(plain, nplain, z, nz, flags[f]);
			ck_assert_uint_eq(n, 212 - 1);	/* (no AUXTRACE) */
			/* The reader's lead: past its bound by one unit
			 * (a round's records, 63 KiB at most) at most. */
			if (flags[f] & PCLN_PERF_READAHEAD) {
				ck_assert_uint_gt(zmax, 0);
				ck_assert_uint_lt(zmax, (lim != 0 ? lim :
				    (size_t)2 << 20) + (64 << 10));
			} else
				ck_assert_uint_eq(zmax, 0);
		}
		/* The walk's own decompressor, its segments. */
		fd = memfile(z, nz);
		q = pcln_perf_open_fd(fd, PCLN_PERF_ORDERED, &err);
		ck_assert_ptr_nonnull(q);
		pclni_perf_set_zlimits(q, zsegmin, zqbytes);
		while ((r = pcln_perf_next(q, &ev, &err)) == 1)
			continue;
		ck_assert_int_eq(r, 0);
		nsegs = pclni_perf_zsegs(q, &nswitch);
		if (hows[i / 2] == Z_SMALL && zsegmin != 0) {
			ck_assert_uint_gt(nswitch, 1);
			ck_assert_uint_le(nsegs, 8);
		}
		ck_assert_uint_ge(nsegs, 1);
		pcln_perf_close(q);
		close(fd);
		free(z);
	}
	zsegmin = zqbytes = 0;
	free(plain);
	/* A window of 256 MiB: the first COMPRESSED record is damage. */
	z = make_file(&nz, 0, &damaged, Z_HUGE);
	for (f = 0; f < sizeof flags / sizeof flags[0]; f++) {
		fd = memfile(z, nz);
		q = pcln_perf_open_fd(fd, flags[f], &err);
		ck_assert_ptr_nonnull(q);
		while ((r = pcln_perf_next(q, &ev, &err)) == 1)
			ck_assert_uint_ne(ev.type, PCLN_PERF_RECORD_SAMPLE);
		ck_assert_int_eq(r, -1);
		ck_assert_int_eq(err.code, PCLN_EHEADER);
		ck_assert_int_eq(err.offset, 104 + 144 + 8);
		ck_assert_msg(strstr(err.msg, "COMPRESSED record at offset "
		    "0x100: zstd: Frame requires too much memory for "
		    "decoding (a window of 268435456 bytes, at byte ") !=
		    NULL, "%s", err.msg);
		ck_assert_msg(strstr(err.msg, "expected at most 134217728)")
		    != NULL, "%s", err.msg);
		pcln_perf_close(q);
		close(fd);
	}
	free(z);
}
END_TEST
#endif

START_TEST(test_not_regular)
{
	pcln_err err;
	int fds[2];

	ck_assert_int_eq(pipe(fds), 0);
	ck_assert_ptr_null(pcln_perf_open_fd(fds[0], 0, &err));
	ck_assert_int_eq(err.code, PCLN_EINVAL);
	close(fds[0]);
	close(fds[1]);
	ck_assert_ptr_null(pcln_perf_open_fd(-1, 0, &err));
	ck_assert_int_eq(err.code, PCLN_EIO);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("perf file");
	TCase *tc = tcase_create("core");
	TCase *te = tcase_create("errors");
	SRunner *sr;
	int nf;

	tcase_add_test(tc, test_same);
	tcase_add_test(te, test_damaged);
	tcase_add_test(te, test_truncated);
	tcase_add_loop_test(te, test_shrunk, 0, 4);
	tcase_add_test(te, test_not_regular);
	tcase_add_test(te, test_close_early);
	tcase_add_test(tc, test_share);
	tcase_add_test(tc, test_twin);
	tcase_add_test(tc, test_probe_read);
	tcase_add_test(te, test_spin_cpus);
	tcase_add_test(te, test_pin);
#ifdef HAVE_LIBZSTD
	tcase_add_test(tc, test_zstd);
	tcase_add_test(tc, test_zstd_segments);
#endif
	tcase_set_timeout(tc, 60);
	tcase_set_timeout(te, 60);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, te);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf == 0 ? 0 : 1;
}
