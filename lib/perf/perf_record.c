/* perf_record.c -- the records of a perf.data data section.
 *
 * A record is { u32 type; u16 misc; u16 size; } and SIZE - 8 bytes of
 * body (<linux/perf_event.h>, enum perf_event_type).  Kernel records
 * (type < 64) other than SAMPLE end, when the attribute's sample_id_all
 * is set, in a sample_id trailer: { u32 pid, tid } TID, { u64 time }
 * TIME, { u64 id } ID, { u64 stream_id } STREAM_ID, { u32 cpu, res }
 * CPU, { u64 id } IDENTIFIER, each if its sample_type bit is set.  A
 * SAMPLE's fields follow sample_type in the order parse_sample reads
 * them.  perf's own records (type >= 64) have no trailer; AUXTRACE is
 * followed by a payload its size field does not count.
 *
 * Framing damage (a size below 8, or past the data's end) ends the walk
 * with an error at the record's offset: nothing after it can be found.
 * A record whose size is sound but whose fields are not is returned
 * marked bad, and the walk goes on.
 *
 * perf record -z writes the records as one zstd stream, cut into
 * PERF_RECORD_COMPRESSED records at any byte (perf's
 * zstd_compress_stream_to_records); FINISHED_ROUND stays outside.  Each
 * COMPRESSED record goes out as it is, then the records it holds, in a
 * chunk of their own (struct perf_chunk), whose offset they carry.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef HAVE_LIBZSTD
#define ZSTD_STATIC_LINKING_ONLY 1	/* ZSTD_getFrameHeader */
#include <zstd.h>
#include <zstd_errors.h>
#endif

#include "perf_internal.h"

#define MISC_BUILD_ID	PCLN_PERF_MISC_MMAP_BUILD_ID
#define FORMAT_TOTAL_TIME_ENABLED	1u
#define FORMAT_TOTAL_TIME_RUNNING	2u
#define FORMAT_ID			4u
#define FORMAT_GROUP			8u
#define FORMAT_LOST			16u
#define BRANCH_HW_INDEX			(1u << 17)

static const char *const record_names[] = {
	[1] = "MMAP", [2] = "LOST", [3] = "COMM", [4] = "EXIT",
	[5] = "THROTTLE", [6] = "UNTHROTTLE", [7] = "FORK", [8] = "READ",
	[9] = "SAMPLE", [10] = "MMAP2", [11] = "AUX", [12] = "ITRACE_START",
	[13] = "LOST_SAMPLES", [14] = "SWITCH", [15] = "SWITCH_CPU_WIDE",
	[16] = "NAMESPACES", [17] = "KSYMBOL", [18] = "BPF_EVENT",
	[19] = "CGROUP", [20] = "TEXT_POKE", [21] = "AUX_OUTPUT_HW_ID",
	[64] = "HEADER_ATTR", [65] = "HEADER_EVENT_TYPE",
	[66] = "HEADER_TRACING_DATA", [67] = "HEADER_BUILD_ID",
	[68] = "FINISHED_ROUND", [69] = "ID_INDEX", [70] = "AUXTRACE_INFO",
	[71] = "AUXTRACE", [72] = "AUXTRACE_ERROR", [73] = "THREAD_MAP",
	[74] = "CPU_MAP", [75] = "STAT_CONFIG", [76] = "STAT",
	[77] = "STAT_ROUND", [78] = "EVENT_UPDATE", [79] = "TIME_CONV",
	[80] = "HEADER_FEATURE", [81] = "COMPRESSED", [82] = "FINISHED_INIT",
};

const char *
pcln_perf_record_name(uint32_t type)
{
	if (type < sizeof record_names / sizeof record_names[0])
		return record_names[type];
	return NULL;
}

static const char *
rname(uint32_t type)
{
	const char *n = pcln_perf_record_name(type);

	return n != NULL ? n : "record";
}

/* Mark EV bad: "TYPE record at offset 0x...: WHAT". */
static int
bad(pcln_perf *p, pcln_perf_event *ev, const char *fmt, ...)
	PCLNI_PRINTF(3, 4);

static int
bad(pcln_perf *p, pcln_perf_event *ev, const char *fmt, ...)
{
	int n;
	va_list ap;

	n = snprintf(p->badmsg, sizeof p->badmsg, "%s record at offset "
	    "0x%llx (%u bytes): ", rname(ev->type),
	    (unsigned long long)ev->offset, ev->size);
	if (n < 0 || (size_t)n >= sizeof p->badmsg)
		n = 0;
	va_start(ap, fmt);
	vsnprintf(p->badmsg + n, sizeof p->badmsg - (size_t)n, fmt, ap);
	va_end(ap);
	ev->bad = 1;
	ev->badmsg = p->badmsg;
	return 0;
}


/* Three a sample, and more a record: by halves (without -mpopcnt,
 * __builtin_popcountll is a call into libgcc's table, twice as long). */
static unsigned
popcount64(uint64_t v)
{
	v -= v >> 1 & UINT64_C(0x5555555555555555);
	v = (v & UINT64_C(0x3333333333333333)) +
	    (v >> 2 & UINT64_C(0x3333333333333333));
	v = (v + (v >> 4)) & UINT64_C(0x0f0f0f0f0f0f0f0f);
	return (unsigned)((v * UINT64_C(0x0101010101010101)) >> 56);
}

/* The cursor of one record's body: bounded reads (in line: a sample's
 * fields are a dozen of them, and each a call was a fifth of its
 * parse). */
struct cur {
	const pcln_perf *p;
	const uint8_t *q, *end;
	int short_;
	const char *what;		/* the field that did not fit */
};

PCLNRT_INLINE const uint8_t *
take(struct cur *c, uint64_t n, const char *what)
{
	const uint8_t *r = c->q;

	if (c->short_)
		return NULL;
	if (n > (uint64_t)(c->end - c->q)) {
		c->short_ = 1;
		c->what = what;
		return NULL;
	}
	c->q += n;
	return r;
}

PCLNRT_INLINE uint64_t
take64(struct cur *c, const char *what)
{
	const uint8_t *r = take(c, 8, what);

	return r != NULL ? perf_u64(c->p, r) : 0;
}

PCLNRT_INLINE void
take32x2(struct cur *c, uint32_t *a, uint32_t *b, const char *what)
{
	const uint8_t *r = take(c, 8, what);

	*a = r != NULL ? perf_u32(c->p, r) : 0;
	*b = r != NULL ? perf_u32(c->p, r + 4) : 0;
}

/* The TID and TIME fields, in a sample and in a sample_id trailer. */
static void
take_tid_time(struct cur *c, pcln_perf_event *ev, uint64_t st)
{
	if (st & PCLN_PERF_SAMPLE_TID) {
		take32x2(c, &ev->pid, &ev->tid, "TID");
		ev->has_tid = 1;
	}
	if (st & PCLN_PERF_SAMPLE_TIME) {
		ev->time = take64(c, "TIME");
		ev->has_time = 1;
	}
}

static int
parse_sample(pcln_perf *p, pcln_perf_event *ev)
{
	struct cur c = { p, ev->raw + 8, ev->raw + ev->size, 0, NULL };
	const pcln_perf_attr *a = &p->attrs[0];
	uint64_t st, n;
	uint32_t res;

	if (p->id_pos >= 0) {
		if ((uint64_t)(ev->size - 8) / 8 <= (uint64_t)p->id_pos)
			return bad(p, ev, "too short for its sample id");
		ev->id = perf_u64(p, ev->raw + 8 + 8 * p->id_pos);
		if ((a = pclni_perf_attr_of(p, ev->id)) == NULL)
			return bad(p, ev, "sample id %llu belongs to no "
			    "attribute", (unsigned long long)ev->id);
	}
	ev->attr = a;
	st = a->sample_type;
	if (st & PCLN_PERF_SAMPLE_IDENTIFIER)
		ev->id = take64(&c, "IDENTIFIER");
	if (st & PCLN_PERF_SAMPLE_IP)
		ev->u.sample.ip = take64(&c, "IP");
	take_tid_time(&c, ev, st);
	if (st & PCLN_PERF_SAMPLE_ADDR)
		ev->u.sample.addr = take64(&c, "ADDR");
	if (st & PCLN_PERF_SAMPLE_ID)
		ev->id = take64(&c, "ID");
	if (st & PCLN_PERF_SAMPLE_STREAM_ID)
		(void)take64(&c, "STREAM_ID");
	if (st & PCLN_PERF_SAMPLE_CPU) {
		take32x2(&c, &ev->cpu, &res, "CPU");
		ev->has_cpu = 1;
	}
	if (st & PCLN_PERF_SAMPLE_PERIOD)
		ev->u.sample.period = take64(&c, "PERIOD");
	if (st & PCLN_PERF_SAMPLE_READ) {
		uint64_t rf = a->read_format, per = 8;

		if (rf & FORMAT_ID)
			per += 8;
		if (rf & FORMAT_LOST)
			per += 8;
		if (rf & FORMAT_GROUP) {
			n = take64(&c, "READ");
			if (rf & FORMAT_TOTAL_TIME_ENABLED)
				(void)take64(&c, "READ");
			if (rf & FORMAT_TOTAL_TIME_RUNNING)
				(void)take64(&c, "READ");
			if (n > (uint64_t)ev->size / per)
				return bad(p, ev, "READ group of %llu values "
				    "does not fit", (unsigned long long)n);
			(void)take(&c, n * per, "READ");
		} else {
			if (rf & FORMAT_TOTAL_TIME_ENABLED)
				per += 8;
			if (rf & FORMAT_TOTAL_TIME_RUNNING)
				per += 8;
			(void)take(&c, per, "READ");
		}
	}
	if (st & PCLN_PERF_SAMPLE_CALLCHAIN) {
		n = take64(&c, "CALLCHAIN");
		if (!c.short_ && n > (uint64_t)(c.end - c.q) / 8)
			return bad(p, ev, "call chain of %llu entries does "
			    "not fit", (unsigned long long)n);
		ev->u.sample.nr = n;
		ev->u.sample.callchain = take(&c, 8 * n, "CALLCHAIN");
	}
	if (st & PCLN_PERF_SAMPLE_RAW) {
		const uint8_t *r = take(&c, 4, "RAW");

		if (r != NULL) {
			ev->u.sample.raw_size = perf_u32(p, r);
			ev->u.sample.raw = take(&c, ev->u.sample.raw_size,
			    "RAW");
			if (ev->u.sample.raw == NULL)
				ev->u.sample.raw_size = 0;
		}
	}
	if (st & PCLN_PERF_SAMPLE_BRANCH_STACK) {
		n = take64(&c, "BRANCH_STACK");
		if (a->branch_sample_type & BRANCH_HW_INDEX)
			(void)take64(&c, "BRANCH_STACK");
		if (!c.short_ && n > (uint64_t)(c.end - c.q) / 24)
			return bad(p, ev, "branch stack of %llu entries does "
			    "not fit", (unsigned long long)n);
		(void)take(&c, 24 * n, "BRANCH_STACK");
	}
	if (st & PCLN_PERF_SAMPLE_REGS_USER) {
		ev->u.sample.regs_abi = take64(&c, "REGS_USER");
		if (ev->u.sample.regs_abi != 0) {
			ev->u.sample.regs_mask = a->sample_regs_user;
			ev->u.sample.regs = take(&c,
			    8 * (uint64_t)popcount64(a->sample_regs_user),
			    "REGS_USER");
		}
	}
	if (st & PCLN_PERF_SAMPLE_STACK_USER) {
		n = take64(&c, "STACK_USER");
		ev->u.sample.stack_size = n;
		if (n != 0) {
			ev->u.sample.stack = take(&c, n, "STACK_USER");
			ev->u.sample.stack_dyn = take64(&c, "STACK_USER");
			/* The kernel never copies more than it reserved;
			 * a larger dyn_size is damage: use what is there. */
			if (ev->u.sample.stack_dyn > n)
				ev->u.sample.stack_dyn = n;
		}
	}
	if (st & (PCLN_PERF_SAMPLE_WEIGHT | PCLN_PERF_SAMPLE_WEIGHT_STRUCT))
		(void)take64(&c, "WEIGHT");
	if (st & PCLN_PERF_SAMPLE_DATA_SRC)
		(void)take64(&c, "DATA_SRC");
	if (st & PCLN_PERF_SAMPLE_TRANSACTION)
		(void)take64(&c, "TRANSACTION");
	if (st & PCLN_PERF_SAMPLE_REGS_INTR) {
		if (take64(&c, "REGS_INTR") != 0)
			(void)take(&c,
			    8 * (uint64_t)popcount64(a->sample_regs_intr),
			    "REGS_INTR");
	}
	if (st & PCLN_PERF_SAMPLE_PHYS_ADDR)
		(void)take64(&c, "PHYS_ADDR");
	if (st & PCLN_PERF_SAMPLE_CGROUP)
		(void)take64(&c, "CGROUP");
	if (st & PCLN_PERF_SAMPLE_DATA_PAGE_SIZE)
		(void)take64(&c, "DATA_PAGE_SIZE");
	if (st & PCLN_PERF_SAMPLE_CODE_PAGE_SIZE)
		(void)take64(&c, "CODE_PAGE_SIZE");
	if (st & PCLN_PERF_SAMPLE_AUX) {
		n = take64(&c, "AUX");
		(void)take(&c, n, "AUX");
	}
	if (c.short_) {
		memset(&ev->u, 0, sizeof ev->u);
		return bad(p, ev, "field %s does not fit (sample_type 0x%llx)",
		    c.what, (unsigned long long)st);
	}
	return 0;
}

/* The sample_id trailer of a kernel record; *BODYEND: where it begins. */
static int
parse_trailer(pcln_perf *p, pcln_perf_event *ev, const uint8_t **bodyend)
{
	const pcln_perf_attr *a = &p->attrs[0];
	uint64_t st, tsz = 0;
	struct cur c;
	uint32_t res;

	*bodyend = ev->raw + ev->size;
	if (p->id_pos_end >= 0 && a->sample_id_all) {
		if ((uint64_t)(ev->size - 8) / 8 < (uint64_t)p->id_pos_end)
			return bad(p, ev, "too short for its sample id");
		ev->id = perf_u64(p, ev->raw + ev->size - 8 * p->id_pos_end);
		if ((a = pclni_perf_attr_of(p, ev->id)) == NULL)
			a = &p->attrs[0];	/* perf's synthesized records
						 * may carry id 0 */
	}
	ev->attr = a;
	if (!a->sample_id_all)
		return 0;
	st = a->sample_type;
	tsz = 8 * (uint64_t)popcount64(st & (PCLN_PERF_SAMPLE_TID |
	    PCLN_PERF_SAMPLE_TIME | PCLN_PERF_SAMPLE_ID |
	    PCLN_PERF_SAMPLE_STREAM_ID | PCLN_PERF_SAMPLE_CPU |
	    PCLN_PERF_SAMPLE_IDENTIFIER));
	if (tsz > (uint64_t)ev->size - 8)
		return bad(p, ev, "too short for its %llu-byte sample_id",
		    (unsigned long long)tsz);
	*bodyend = ev->raw + ev->size - tsz;
	c.p = p;
	c.q = *bodyend;
	c.end = ev->raw + ev->size;
	c.short_ = 0;
	take_tid_time(&c, ev, st);
	if (st & PCLN_PERF_SAMPLE_ID)
		ev->id = take64(&c, "ID");
	if (st & PCLN_PERF_SAMPLE_STREAM_ID)
		(void)take64(&c, "STREAM_ID");
	if (st & PCLN_PERF_SAMPLE_CPU) {
		take32x2(&c, &ev->cpu, &res, "CPU");
		ev->has_cpu = 1;
	}
	return 0;
}

/* A NUL-terminated string in [S, END), or NULL. */
static const char *
str_in(const uint8_t *s, const uint8_t *end)
{
	if (s >= end || memchr(s, '\0', (size_t)(end - s)) == NULL)
		return NULL;
	return (const char *)s;
}

static int
parse_body(pcln_perf *p, pcln_perf_event *ev)
{
	const uint8_t *b = ev->raw + 8, *end;
	size_t need = 0;

	if (parse_trailer(p, ev, &end) < 0 || ev->bad)
		return 0;
	switch (ev->type) {
	case PCLN_PERF_RECORD_MMAP:
		need = 40;
		break;
	case PCLN_PERF_RECORD_MMAP2:
		need = 72;
		break;
	case PCLN_PERF_RECORD_COMM:
		need = 8;
		break;
	case PCLN_PERF_RECORD_FORK:
	case PCLN_PERF_RECORD_EXIT:
		need = 24;
		break;
	case PCLN_PERF_RECORD_LOST:
		need = 16;
		break;
	case PCLN_PERF_RECORD_LOST_SAMPLES:
		need = 8;
		break;
	default:
		return 0;
	}
	if ((size_t)(end - b) < need)
		return bad(p, ev, "%zu bytes of fields, expected at least %zu",
		    (size_t)(end - b), need);
	switch (ev->type) {
	case PCLN_PERF_RECORD_MMAP:
	case PCLN_PERF_RECORD_MMAP2:
		ev->pid = perf_u32(p, b);
		ev->tid = perf_u32(p, b + 4);
		ev->has_tid = 1;
		ev->u.mmap.addr = perf_u64(p, b + 8);
		ev->u.mmap.len = perf_u64(p, b + 16);
		ev->u.mmap.pgoff = perf_u64(p, b + 24);
		if (ev->type == PCLN_PERF_RECORD_MMAP) {
			ev->u.mmap.filename = str_in(b + 32, end);
			ev->u.mmap.prot = 5;	/* r-x: MMAP is code */
			break;
		}
		if (ev->misc & MISC_BUILD_ID) {
			size_t n = b[32];

			if (n > PCLN_PERF_BUILDID_MAX)
				n = PCLN_PERF_BUILDID_MAX;
			ev->u.mmap.build_id = b + 36;
			ev->u.mmap.build_id_len = n;
		} else {
			ev->u.mmap.maj = perf_u32(p, b + 32);
			ev->u.mmap.min = perf_u32(p, b + 36);
			ev->u.mmap.ino = perf_u64(p, b + 40);
		}
		ev->u.mmap.prot = perf_u32(p, b + 56);
		ev->u.mmap.flags = perf_u32(p, b + 60);
		ev->u.mmap.filename = str_in(b + 64, end);
		break;
	case PCLN_PERF_RECORD_COMM:
		ev->pid = perf_u32(p, b);
		ev->tid = perf_u32(p, b + 4);
		ev->has_tid = 1;
		ev->u.comm.comm = str_in(b + 8, end);
		ev->u.comm.exec = (ev->misc & PCLN_PERF_MISC_COMM_EXEC) != 0;
		if (ev->u.comm.comm == NULL)
			return bad(p, ev, "command name without its NUL");
		break;
	case PCLN_PERF_RECORD_FORK:
	case PCLN_PERF_RECORD_EXIT:
		ev->pid = perf_u32(p, b);
		ev->u.fork.ppid = perf_u32(p, b + 4);
		ev->tid = perf_u32(p, b + 8);
		ev->u.fork.ptid = perf_u32(p, b + 12);
		ev->u.fork.time = perf_u64(p, b + 16);
		ev->has_tid = 1;
		break;
	case PCLN_PERF_RECORD_LOST:
		ev->u.lost.id = perf_u64(p, b);
		ev->u.lost.lost = perf_u64(p, b + 8);
		break;
	case PCLN_PERF_RECORD_LOST_SAMPLES:
		ev->u.lost.lost = perf_u64(p, b);
		break;
	default:
		break;
	}
	if ((ev->type == PCLN_PERF_RECORD_MMAP ||
	    ev->type == PCLN_PERF_RECORD_MMAP2) && ev->u.mmap.filename == NULL)
		return bad(p, ev, "file name without its NUL");
	return 0;
}

static struct perf_chunk *
chunk_of(pcln_perf *p, uint64_t voff)
{
	return &p->chunks[((voff & ~PERF_VOFF_CHUNK) >> PERF_VOFF_SHIFT) -
	    p->chunk0];
}

/* The bytes from R that record R's framing spans: its size, and what
 * follows it (perf_payload; R has at least 16 bytes then). */
static uint64_t
extent(const pcln_perf *p, const uint8_t *r)
{
	uint16_t n = perf_u16(p, r + 6);

	return n + perf_payload(p, r, n);
}

static void
parse(pcln_perf *p, pcln_perf_event *ev)
{
	if (ev->type == PCLN_PERF_RECORD_SAMPLE)
		(void)parse_sample(p, ev);
	else if (ev->type < PCLN_PERF_RECORD_USER_FIRST)
		(void)parse_body(p, ev);
}

/* The record at VOFF of a chunk (its framing checked when the chunk was
 * made) into EV, as read_at; its offset is its COMPRESSED record's, or
 * its own in a chunk read from the file. */
static void
read_chunk(pcln_perf *p, uint64_t voff, pcln_perf_event *ev, uint64_t *next)
{
	struct perf_chunk *c = chunk_of(p, voff);
	const uint8_t *r = c->data + (voff & PERF_VOFF_MASK);

	memset(ev, 0, sizeof *ev);
	ev->offset = c->infile ? c->file_off + (voff & PERF_VOFF_MASK) :
	    c->file_off;
	ev->raw = r;
	ev->type = perf_u32(p, r);
	ev->misc = perf_u16(p, r + 4);
	ev->size = perf_u16(p, r + 6);
	*next = voff + extent(p, r);
	/* The last: freed at the next call. */
	if (c->pending > 0 && --c->pending == 0)
		p->done_chunk = ((voff & ~PERF_VOFF_CHUNK) >> PERF_VOFF_SHIFT) +
		    1;
	if (!c->infile)
		p->ndecomp++;
	parse(p, ev);
}

int
pclni_perf_frame(const pcln_perf *p, const uint8_t *r, uint64_t off,
    uint64_t avail, uint64_t *step, pcln_err *err)
{
	uint64_t end = p->info.data_end, pay = 0;
	uint32_t type;
	uint16_t size;

	if (end - off < 8)
		return pclni_seterr(err, PCLN_ETRUNC, (int64_t)off,
		    "perf.data: record at offset 0x%llx: %llu bytes left in "
		    "the data section (ends at 0x%llx), a record header "
		    "needs 8", (unsigned long long)off,
		    (unsigned long long)(end - off), (unsigned long long)end);
	if (avail < 8)
		return 0;
	type = perf_u32(p, r);
	size = perf_u16(p, r + 6);
	if (size < 8)
		return pclni_seterr(err, PCLN_EHEADER, (int64_t)off,
		    "perf.data: %s record at offset 0x%llx: size %u, "
		    "expected at least 8", rname(type),
		    (unsigned long long)off, size);
	if (size > end - off)
		return pclni_seterr(err, PCLN_ETRUNC, (int64_t)off,
		    "perf.data: %s record at offset 0x%llx: size %u runs "
		    "past the data section's end 0x%llx%s", rname(type),
		    (unsigned long long)off, size,
		    (unsigned long long)end,
		    p->info.truncated ? " (the file is truncated)" : "");
	if (size >= 16) {
		if (avail < 16)
			return 0;
		pay = perf_payload(p, r, size);
		if (pay > end - off - size)
			return pclni_seterr(err, PCLN_ETRUNC, (int64_t)off,
			    "perf.data: %s record at offset 0x%llx: "
			    "its %llu-byte payload runs past the data "
			    "section's end 0x%llx", rname(type),
			    (unsigned long long)off,
			    (unsigned long long)pay, (unsigned long long)end);
	}
	*step = size + pay;
	return 1;
}

/* Read the record framing at OFF into EV and parse it; *NEXT gets the
 * next record's offset.  -1 and ERR on framing damage. */
/* The record at OFF goes out unread: its chunk's count of records to go
 * out, as read_chunk's. */
static void
skip_at(pcln_perf *p, uint64_t off)
{
	struct perf_chunk *c;

	if (!(off & PERF_VOFF_CHUNK))
		return;
	c = chunk_of(p, off);
	if (c->pending > 0 && --c->pending == 0)
		p->done_chunk = ((off & ~PERF_VOFF_CHUNK) >> PERF_VOFF_SHIFT) +
		    1;
	if (!c->infile)
		p->ndecomp++;
}

static int
read_at(pcln_perf *p, uint64_t off, pcln_perf_event *ev, uint64_t *next,
    pcln_err *err)
{
	uint64_t end = p->info.data_end, step;
	const uint8_t *r;

	if (off & PERF_VOFF_CHUNK) {
		read_chunk(p, off, ev, next);
		return 0;
	}
	memset(ev, 0, sizeof *ev);
	ev->offset = off;
	r = p->buf + off;
	if (end - off >= 8) {
		ev->raw = r;
		ev->type = perf_u32(p, r);
		ev->misc = perf_u16(p, r + 4);
		ev->size = perf_u16(p, r + 6);
	}
	if (pclni_perf_frame(p, r, off, end - off, &step, err) < 0)
		return -1;
	*next = off + step;
	parse(p, ev);
	return 0;
}

static int
cmp_recidx(const void *a, const void *b)
{
	const struct perf_recidx *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* V[0..N) by time, then in the order the scan met them (the records of
 * a COMPRESSED one right after it, as perf queues them; the walk's
 * offsets are not the file's order where it read chunks).  A profile is
 * in order but for a few records a round late (a PERF_RECORD_MMAP2 from
 * another CPU's buffer):
 * an insertion sort costs a compare a record there, where qsort costs
 * n log n calls.  Past 8 moves a record, qsort: damaged or odd files
 * stay O(n log n). */
static void
sort_order(struct perf_recidx *v, size_t n)
{
	size_t i, j, moves = 0, budget = 8 * n + 64;
	struct perf_recidx x;

	for (i = 1; i < n; i++) {
		if (cmp_recidx(&v[i - 1], &v[i]) <= 0)
			continue;
		x = v[i];
		for (j = i; j > 0 && moves < budget &&
		    cmp_recidx(&v[j - 1], &x) > 0; j--, moves++)
			v[j] = v[j - 1];
		v[j] = x;
		if (moves >= budget) {
			qsort(v, n, sizeof *v, cmp_recidx);
			return;
		}
	}
}

/* The time of the record at OFF (framing already checked by read_at's
 * caller): a sample's TIME field is at a fixed place (after IDENTIFIER,
 * IP and TID); other kernel records carry it in their sample_id trailer.
 * 1 and *TIME, or 0 if the record has none. */
static int
record_time(pcln_perf *p, const uint8_t *r, uint32_t type, uint16_t size,
    uint64_t *time)
{
	uint64_t st = p->sample_type0;
	pcln_perf_event ev;
	const uint8_t *end;
	unsigned k = 0;

	if (!(st & PCLN_PERF_SAMPLE_TIME))
		return 0;
	if (type == PCLN_PERF_RECORD_SAMPLE) {
		k += (st & PCLN_PERF_SAMPLE_IDENTIFIER) != 0;
		k += (st & PCLN_PERF_SAMPLE_IP) != 0;
		k += (st & PCLN_PERF_SAMPLE_TID) != 0;
		if (8u + 8u * k + 8u > size)
			return 0;
		*time = perf_u64(p, r + 8 + 8 * k);
		return 1;
	}
	if (type >= PCLN_PERF_RECORD_USER_FIRST)
		return 0;
	memset(&ev, 0, sizeof ev);
	ev.raw = r;
	ev.type = type;
	ev.size = size;
	if (parse_trailer(p, &ev, &end) < 0 || ev.bad || !ev.has_time)
		return 0;
	*time = ev.time;
	return 1;
}

/* The framing of the record at OFF: its type and size in *TYPE, *SIZE,
 * the next record's offset in *NEXT.  -1 and ERR on damage. */
static int
frame_at(pcln_perf *p, uint64_t off, uint32_t *type, uint16_t *size,
    uint64_t *next, pcln_err *err)
{
	pcln_perf_event ev;

	/* read_at's checks without the parse: the framing only. */
	memset(&ev, 0, sizeof ev);
	if (p->info.data_end - off < 8 ||
	    perf_u16(p, p->buf + off + 6) < 8 ||
	    perf_u16(p, p->buf + off + 6) > p->info.data_end - off ||
	    perf_u32(p, p->buf + off) == PCLN_PERF_RECORD_AUXTRACE ||
	    perf_u32(p, p->buf + off) ==
	    PCLN_PERF_RECORD_HEADER_TRACING_DATA) {
		if (read_at(p, off, &ev, next, err) < 0)
			return -1;
		*type = ev.type;
		*size = ev.size;
		return 0;
	}
	*type = perf_u32(p, p->buf + off);
	*size = perf_u16(p, p->buf + off + 6);
	*next = off + *size;
	return 0;
}

/* --- perf record -z ---------------------------------------------------- */

/* What one COMPRESSED record may decompress to (perf's are at most its
 * ring buffer, 512 KiB by default): beyond, the file is taken for
 * damaged, not a reason to allocate gigabytes. */
#define CHUNK_MAX	((size_t)256 << 20)

uint8_t *
pclni_perf_buf_get(pcln_perf *p, size_t want, size_t *cap)
{
	size_t i;
	uint8_t *b;

	for (i = 0; i < PERF_SPARES; i++)
		if (p->spare[i] != NULL && p->sparecap[i] >= want) {
			b = p->spare[i];
			*cap = p->sparecap[i];
			p->spare[i] = NULL;
			return b;
		}
	*cap = want;
	return malloc(want);
}

void
pclni_perf_buf_put(pcln_perf *p, uint8_t *b, size_t cap)
{
	size_t i, small = 0;

	if (b == NULL)
		return;
	for (i = 0; i < PERF_SPARES; i++) {
		if (p->spare[i] == NULL) {
			p->spare[i] = b;
			p->sparecap[i] = cap;
			return;
		}
		if (p->sparecap[i] < p->sparecap[small])
			small = i;
	}
	if (p->sparecap[small] < cap) {
		free(p->spare[small]);
		p->spare[small] = b;
		p->sparecap[small] = cap;
	} else
		free(b);
}

/* Free the chunk whose last record went out at the call before (the
 * caller is past it now), and the freed ones at the front. */
static void
release_chunks(pcln_perf *p)
{
	size_t k = 0;

	if (p->done_chunk != 0) {
		pclni_perf_chunk_free(p, &p->chunks[p->done_chunk - 1 -
		    p->chunk0]);
		p->done_chunk = 0;
	}
	while (k < p->nchunks && p->chunks[k].data == NULL)
		k++;
	if (k > 0) {
		memmove(p->chunks, p->chunks + k, (p->nchunks - k) *
		    sizeof *p->chunks);
		p->nchunks -= k;
		p->chunk0 += k;
	}
}

void
pclni_perf_free_chunks(pcln_perf *p)
{
	size_t i;

	/* (the reader stopped first: it may be reading a chunk's
	 * COMPRESSED records, and its buffers go back to it) */
	pclni_perf_ra_stop(p);
	for (i = 0; i < p->nchunks; i++)
		if (p->chunks[i].mapped || p->chunks[i].zseg != NULL)
			continue;	/* (the mapping's, a segment's) */
		else if ((p->chunks[i].infile || p->chunks[i].rabuf) &&
		    p->ra != NULL)
			pclni_perf_chunk_free(p, &p->chunks[i]);
		else if (p->chunks[i].data != NULL)
			free(p->chunks[i].data - p->chunks[i].skip);
	pclni_perf_ra_close(p);
	for (i = 0; i < PERF_SPARES; i++)
		free(p->spare[i]);
	free(p->chunks);
	pclni_perf_zs_free(&p->z);
}

void
pclni_perf_zs_free(struct perf_zs *z)
{
	struct perf_zseg *s, *next;

	for (s = z->segs; s != NULL; s = next) {
		next = s->next;
		pcln_huge_free(s->buf, s->maplen);
		free(s);
	}
	z->segs = z->cur = NULL;
	z->wpos = z->rpos = z->ntail = 0;
	z->inhdr = 0;
	z->nhdr = 0;
#ifdef HAVE_LIBZSTD
	ZSTD_freeDCtx(z->dctx);
#endif
	z->dctx = NULL;
}

void
pclni_perf_zseg_release(struct perf_zseg *s)
{
	__atomic_sub_fetch(&s->refs, 1, __ATOMIC_RELEASE);
}

size_t
pclni_perf_zsegs(const pcln_perf *p, uint64_t *nswitch)
{
	const struct perf_zseg *s;
	size_t n = 0;

	for (s = p->z.segs; s != NULL; s = s->next)
		n++;
	*nswitch = p->z.nswitch;
	return n;
}

uint64_t
pcln_perf_decompressed(const pcln_perf *p)
{
	return p->ndecomp;
}

int
pcln_perf_zstd(void)
{
#ifdef HAVE_LIBZSTD
	return 1;
#else
	return 0;
#endif
}

#ifdef HAVE_LIBZSTD
static int
zerr(pcln_err *err, int code, uint64_t off, const char *what)
{
	return pclni_seterr(err, code, (int64_t)off, "perf.data: COMPRESSED "
	    "record at offset 0x%llx: %s", (unsigned long long)off, what);
}

static int
zfail(struct perf_zunit *u, int code, uint64_t off, const char *what)
{
	u->data = NULL;
	u->seg = NULL;
	u->r = -1;
	if (code == PCLN_ENOMEM)
		pclni_seterr(&u->err, code, -1, "out of memory");
	else
		zerr(&u->err, code, off, what);
	return -1;
}

/* The largest window taken (zstd's own default limit for its streaming
 * decompression): beyond, the file is taken for damaged. */
#define ZWINDOW_LOG	27
#define ZWINDOW_MAX	((size_t)1 << ZWINDOW_LOG)

/* Move the writing to another segment: one whose units all went back
 * (not the current one), or a new one, with room for the bytes carried
 * over (the records begun and not yet handed out, which move with it: a
 * unit is contiguous), two blocks and the largest record so far (twice
 * the carried bytes: a record that grows past segment after segment is
 * copied a bounded number of times).  0, or -1: no memory. */
/* A segment is ZSEG_MIN bytes at least (several of perf's records: some
 * 180 KiB each on bench/perf.sh's -z profile), in malloc's heap (not
 * zeroed: zstd writes every byte a unit holds) below ZSEG_HUGE, where
 * they are used again once the walk gave their units back.  In
 * segments of 64 KiB at least each held one or two records in 448 KiB;
 * with the reader's lead bounded (ZQ_BYTES, perf_file.c) the -z
 * profile's heap at the exit was 10 MB, not 16, the same time in runs
 * one after another (17.6 against 17.7 ms, medians of 15) and less at
 * the slow end right after a perf script run (p75 / p90 26.9 / 28.1
 * against 34.9 / 36.1 ms, 11 runs): a fresh huge page, zeroed by the
 * kernel, was a third of that run's samples. */
#define ZSEG_MIN	((size_t)1 << 20)
#define ZSEG_HUGE	((size_t)2 << 20)

static int
zswitch(struct perf_zs *z)
{
	struct perf_zseg *s;
	size_t carry = z->cur != NULL ? z->wpos - z->rpos : 0;
	size_t need = 2 * carry + 2 * z->blockmax + z->hint, min;

	/* (in 64 KiB) */
	min = z->segmin != 0 ? z->segmin : ZSEG_MIN;
	need = need < min ? min : (need + 0xffff) & ~(size_t)0xffff;
	for (s = z->segs; s != NULL; s = s->next)
		if (s != z->cur && s->cap >= need &&
		    __atomic_load_n(&s->refs, __ATOMIC_ACQUIRE) == 0)
			break;
	if (s == NULL) {
		if ((s = calloc(1, sizeof *s)) == NULL)
			return -1;
		if (need < ZSEG_HUGE) {
			s->buf = malloc(need);
			s->maplen = need;
		} else
			s->buf = pcln_huge_alloc(need, &s->maplen);
		if (s->buf == NULL) {
			free(s);
			return -1;
		}
		s->cap = need;
		s->next = z->segs;
		z->segs = s;
	}
	if (carry > 0)
		memcpy(s->buf, z->cur->buf + z->rpos, carry);
	z->cur = s;
	z->rpos = 0;
	z->wpos = carry;
	z->nswitch++;
	return 0;
}

/* At a frame's start (NHDR counting its header's bytes so far), the
 * header's bytes from IN (N, from I) kept in Z->hdr until it is whole,
 * then its window checked: 0, or -1 and U (damage: a window larger than
 * ZWINDOW_MAX, or a header zstd cannot read).  Its bytes are zstd's
 * too: only looked at here. */
static int
zheader(const pcln_perf *p, struct perf_zs *z, uint64_t off,
    const uint8_t *in, size_t n, size_t i, uint16_t size,
    struct perf_zunit *u)
{
	ZSTD_frameHeader fh;
	size_t take, hr;
	char why[160];

	(void)p;
	take = sizeof z->hdr - z->nhdr < n - i ? sizeof z->hdr - z->nhdr :
	    n - i;
	memcpy(z->hdr + z->nhdr, in + i, take);
	z->nhdr += take;
	hr = ZSTD_getFrameHeader(&fh, z->hdr, z->nhdr);
	if (hr != 0 && !ZSTD_isError(hr) && z->nhdr < sizeof z->hdr)
		return 0;	/* (the rest in the next record) */
	z->inhdr = 0;
	z->nhdr = 0;
	if (hr != 0) {
		snprintf(why, sizeof why, "zstd: %s (a frame header, at byte "
		    "%zu of its %u)", ZSTD_isError(hr) ?
		    ZSTD_getErrorName(hr) : "header cut", i + 8,
		    (unsigned)size);
		return zfail(u, PCLN_EHEADER, off, why);
	}
	if (fh.frameType == ZSTD_frame && fh.windowSize > ZWINDOW_MAX) {
		snprintf(why, sizeof why, "zstd: %s (a window of %llu bytes, "
		    "at byte %zu of its %u; expected at most %zu)",
		    ZSTD_getErrorString(
		    ZSTD_error_frameParameter_windowTooLarge),
		    (unsigned long long)fh.windowSize, i + 8, (unsigned)size,
		    ZWINDOW_MAX);
		return zfail(u, PCLN_EHEADER, off, why);
	}
	return 0;
}

int
pclni_perf_zunpack(const pcln_perf *p, struct perf_zs *z, uint64_t off,
    const uint8_t *r, uint16_t size, struct perf_zunit *u)
{
	const uint8_t *in = r + 8;
	size_t n = (size_t)size - 8, made = 0, o, ret;
	ZSTD_inBuffer zin;
	ZSTD_outBuffer zout;
	char why[160];

	memset(u, 0, sizeof *u);
	if (z->dctx == NULL) {
		if ((z->dctx = ZSTD_createDCtx()) == NULL ||
		    ZSTD_isError(ZSTD_DCtx_setParameter(z->dctx,
		    ZSTD_d_windowLogMax, ZWINDOW_LOG)))
			return zfail(u, PCLN_ENOMEM, off, NULL);
		z->inhdr = 1;
		z->nhdr = 0;
		z->blockmax = ZSTD_BLOCKSIZE_MAX;
	}
	/* A record (perf's) begins where another ended: room for the
	 * largest so far. */
	if (z->cur != NULL && z->cur->cap - z->wpos < z->hint + z->blockmax &&
	    zswitch(z) < 0)
		return zfail(u, PCLN_ENOMEM, off, NULL);
	zin.src = in;
	zin.size = n;
	zin.pos = 0;
	for (;;) {
		if (z->inhdr && zin.pos < n && zheader(p, z, off, in, n,
		    zin.pos, size, u) < 0)
			return -1;
		if ((z->cur == NULL || z->cur->cap - z->wpos < z->blockmax) &&
		    zswitch(z) < 0)
			return zfail(u, PCLN_ENOMEM, off, NULL);
		zout.dst = z->cur->buf + z->wpos;
		zout.size = z->cur->cap - z->wpos;
		zout.pos = 0;
		ret = ZSTD_decompressStream(z->dctx, &zout, &zin);
		if (ZSTD_isError(ret)) {
			snprintf(why, sizeof why, "zstd: %s (at byte %zu of "
			    "its %u)", ZSTD_getErrorName(ret), zin.pos + 8,
			    (unsigned)size);
			return zfail(u, PCLN_EHEADER, off, why);
		}
		z->wpos += zout.pos;
		made += zout.pos;
		if (z->wpos - z->rpos > CHUNK_MAX)
			return zfail(u, PCLN_EHEADER, off,
			    "decompresses to more than 256 MiB");
		if (ret == 0) {
			/* (a frame's end: what follows is another's
			 * header) */
			z->inhdr = 1;
			z->nhdr = 0;
		}
		/* (all of it in, and zstd had room for all it made) */
		if (zin.pos == n && zout.pos < zout.size)
			break;
	}
	if (z->cur == NULL)
		return 0;		/* (nothing out yet) */
	/* Whole records from the start; the rest is the next one's
	 * beginning. */
	for (o = z->rpos; z->wpos - o >= 8; ) {
		const uint8_t *q = z->cur->buf + o;
		uint64_t m = perf_u16(p, q + 6);

		if (m < 8) {
			snprintf(why, sizeof why, "the record at byte %zu of "
			    "what it and those before decompress to has size "
			    "%u, expected at least 8", o - z->rpos,
			    (unsigned)m);
			return zfail(u, PCLN_EHEADER, off, why);
		}
		if (m >= 16 && z->wpos - o < 16)
			break;	/* (its payload's size may be past) */
		if ((m = extent(p, q)) > z->wpos - o)
			break;
		o += m;
	}
	if (made > z->hint)
		z->hint = made;
	if (o > z->rpos) {
		u->data = z->cur->buf + z->rpos;
		u->len = o - z->rpos;
		u->seg = z->cur;
		__atomic_add_fetch(&z->cur->refs, 1, __ATOMIC_RELAXED);
	}
	z->rpos = o;
	z->ntail = u->ntail = z->wpos - o;
	return 0;
}

/* The COMPRESSED record R (SIZE bytes at file offset OFF) decompressed
 * into a new chunk, after the record the one before cut: its id in *ID
 * (by the reader thread where it decompresses them, or here).  Its
 * whole records stay there, the start of a record it cuts goes to the
 * tail.  -1 and ERR: no memory, a zstd error, damaged framing. */
static int
open_chunk(pcln_perf *p, uint64_t off, const uint8_t *r, uint16_t size,
    uint64_t *id, pcln_err *err)
{
	struct perf_chunk *c;
	struct perf_zunit u;
	int rabuf = 1;

	if (p->chunk0 + p->nchunks >= PERF_CHUNK_IDS)
		return zerr(err, PCLN_EUNSUPPORTED, off, "more COMPRESSED "
		    "records than this reader counts");
	if (pclni_grow(&p->chunks, &p->capchunks, p->nchunks + 1,
	    sizeof *p->chunks) < 0)
		return pclni_seterr(err, PCLN_ENOMEM, -1, "out of memory");
	if (p->ra == NULL || pclni_perf_ra_zunit(p, &u) == 0) {
		rabuf = 0;
		(void)pclni_perf_zunpack(p, &p->z, off, r, size, &u);
	}
	if (u.r < 0) {
		if (err != NULL)
			*err = u.err;
		return -1;
	}
	p->z.ntail = u.ntail;		/* (the reader's: for check_tail) */
	c = &p->chunks[p->nchunks++];
	c->data = u.data;
	c->cap = 0;
	c->len = u.len;
	c->zseg = u.seg;
	c->file_off = off;
	c->pending = 0;
	c->infile = 0;
	c->rabuf = rabuf;
	c->mapped = 0;
	c->next_off = 0;
	c->skip = 0;
	*id = p->chunk0 + p->nchunks - 1;
	return 0;
}
#endif

/* The COMPRESSED record at OFF (R, SIZE bytes): its records framed into
 * P->order (ORDERED) or ready for the unordered walk (P->upos).  0, or
 * -1 and ERR.  Without libzstd it is a record like any other. */
static int
expand(pcln_perf *p, uint64_t off, const uint8_t *r, uint16_t size,
    int ordered, pcln_err *err)
{
#ifdef HAVE_LIBZSTD
	struct perf_chunk *c;
	uint64_t id = 0, o, t, base;

	if (size < 8 || open_chunk(p, off, r, size, &id, err) < 0)
		return -1;
	c = &p->chunks[id - p->chunk0];
	base = PERF_VOFF_CHUNK | id << PERF_VOFF_SHIFT;
	for (o = 0; o < c->len; o += extent(p, c->data + o)) {
		const uint8_t *q = c->data + o;

		c->pending++;
		if (!ordered)
			continue;
		if (pclni_grow(&p->order, &p->caporder, p->norder + 1,
		    sizeof *p->order) < 0)
			return pclni_seterr(err, PCLN_ENOMEM, -1,
			    "out of memory");
		if (record_time(p, q, perf_u32(p, q), perf_u16(p, q + 6), &t)) {
			p->scantime = t;
			if (t > p->newest)
				p->newest = t;
		}
		p->order[p->norder].time = p->scantime;
		p->order[p->norder].offset = base | o;
		p->order[p->norder].seq = p->scanseq++;
		p->order[p->norder].type = perf_u32(p, q);
		p->norder++;
	}
	if (c->pending == 0)		/* no record in it */
		pclni_perf_chunk_free(p, c);
	else if (!ordered)
		p->upos = base;
	return 0;
#else
	(void)p, (void)off, (void)r, (void)size, (void)ordered, (void)err;
	return 0;
#endif
}

/* The end of the data: the compressed records must not end inside a
 * record.  0, or -1 and ERR. */
static int
check_tail(pcln_perf *p, pcln_err *err)
{
	if (p->z.ntail == 0)
		return 0;
	return pclni_seterr(err, PCLN_ETRUNC, (int64_t)p->info.data_end,
	    "perf.data: the COMPRESSED records end inside a record (%zu "
	    "bytes of it), at the data section's end 0x%llx%s", p->z.ntail,
	    (unsigned long long)p->info.data_end, p->info.truncated ?
	    " (the file is truncated)" : "");
}

/* The time-ordered walk reads the records' framing a round at a time,
 * as perf does (ordered_events): perf record writes a
 * PERF_RECORD_FINISHED_ROUND after each pass over the cpus' buffers, and
 * a record after the next round's end is no older than the newest one
 * before this round's end.  So at the end of round N, the records
 * framed so far that are no newer than the newest before the end of
 * round N - 1 (LIMIT) go out, sorted, and the others wait.  Where the
 * rule holds this is the order of sorting the whole file, without a pass
 * over the whole file first: each record is read again while it is still
 * in the caches and the TLB (a 48 MB profile: 2.3 ms of 4.5 for the
 * records' two reads).  Without rounds the whole file is one. */
/* The next record in file order: 1 with the offset the walk keeps for
 * it (its file offset, or its place in a chunk read from the file:
 * pcln_perf_open_fd) in *OFF, its file offset in *FOFF, its bytes at *R
 * and its type and size; 0 at the data's end; -1 and ERR on damage (or
 * no memory, or a failed read). */
static int
scan_next(pcln_perf *p, uint64_t *off, uint64_t *foff, const uint8_t **r,
    uint32_t *type, uint16_t *size, pcln_err *err)
{
	uint64_t next, id, ext;
	struct perf_chunk *c;
	const uint8_t *q;

	if (p->fd < 0) {
		if (p->scanpos >= p->info.data_end)
			return 0;
		if (frame_at(p, p->scanpos, type, size, &next, err) < 0)
			return -1;
		*off = *foff = p->scanpos;
		*r = p->buf + p->scanpos;
		/* Each record is a cache miss (a sample with a stack copy
		 * is 8 KiB long): ask for the one four ahead, guessing
		 * that the records there are as long as this one. */
		if (next - p->scanpos < (p->info.data_end - next) / 4)
			__builtin_prefetch(p->buf + next + 3 * (next -
			    p->scanpos));
		p->scanpos = next;
		return 1;
	}
	for (;;) {
		if (p->fcur != 0) {
			id = p->fcur - 1;
			c = &p->chunks[id - p->chunk0];
			if (p->fpos < c->len) {
				q = c->data + p->fpos;
				*off = PERF_VOFF_CHUNK | id << PERF_VOFF_SHIFT |
				    p->fpos;
				*foff = c->file_off + p->fpos;
				*r = q;
				*type = perf_u32(p, q);
				*size = perf_u16(p, q + 6);
				ext = extent(p, q);
				/* (the one four ahead, as above) */
				if (ext < (c->len - p->fpos) / 5)
					__builtin_prefetch(q + 4 * ext);
				p->fpos += ext;
				c->pending++;
				return 1;
			}
			/* Past its records: the scan lets it go (the
			 * records of it that went out were read at the
			 * calls before). */
			p->scanpos = c->next_off;
			p->fcur = 0;
			if (--c->pending == 0)
				pclni_perf_chunk_free(p, c);
		}
		if (p->fdamaged) {
			if (err != NULL)
				*err = p->fdamage;
			return -1;
		}
		if (p->scanpos >= p->info.data_end)
			return 0;
		if (pclni_perf_file_chunk(p, err) < 0)
			return -1;
	}
}

/* The scan is over: at the data's end, or at damage (DAMAGED, with
 * P->damage, which the walk returns after the records before it), or
 * out of memory (-1 and ERR). */
static int
scan_end(pcln_perf *p, int damaged, pcln_err *err)
{
	if (damaged && p->damage.code == PCLN_ENOMEM) {
		if (err != NULL)
			*err = p->damage;
		return -1;
	}
	p->damaged = damaged;
	p->scanpos = p->info.data_end;
	p->scanned = 1;
	if (!p->damaged && check_tail(p, &p->damage) < 0)
		p->damaged = 1;
	return 0;
}

static int
scan_round(pcln_perf *p, pcln_err *err)
{
	uint64_t off, foff, t;
	const uint8_t *r;
	uint32_t type;
	uint16_t size;
	int k;

	while ((k = scan_next(p, &off, &foff, &r, &type, &size,
	    &p->damage)) != 0) {
		if (k < 0)
			return scan_end(p, 1, err);
		if (pclni_grow(&p->order, &p->caporder, p->norder + 1,
		    sizeof *p->order) < 0)
			return pclni_seterr(err, PCLN_ENOMEM, -1,
			    "out of memory");
		if (record_time(p, r, type, size, &t)) {
			p->scantime = t;
			if (t > p->newest)
				p->newest = t;
		}
		p->order[p->norder].time = p->scantime;
		p->order[p->norder].offset = off;
		p->order[p->norder].seq = p->scanseq++;
		p->order[p->norder].type = type;
		p->norder++;
		if (type == PCLN_PERF_RECORD_COMPRESSED &&
		    expand(p, foff, r, size, 1, &p->damage) < 0)
			return scan_end(p, 1, err);
		if (type == PCLN_PERF_RECORD_FINISHED_ROUND)
			return 1;
	}
	return scan_end(p, 0, err);
}

/* Make the next records ready (P->next < P->nready), reading rounds
 * until some are: 1, 0 at the end, -1 and ERR on no memory. */
static int
next_ready(pcln_perf *p, pcln_err *err)
{
	size_t lo, hi;
	int round;

	while (p->next >= p->nready) {
		if (p->scanned) {
			if (p->nready == p->norder)
				return 0;
			p->nready = p->norder;	/* the rest (sorted) */
			break;
		}
		/* The records gone out make room. */
		if (p->next > 0)
			memmove(p->order, p->order + p->next, (p->norder -
			    p->next) * sizeof *p->order);
		p->norder -= p->next;
		p->nready = p->next = 0;
		if ((round = scan_round(p, err)) < 0)
			return -1;
		sort_order(p->order, p->norder);
		if (!round)
			continue;	/* (all of it, above) */
		/* Those no newer than LIMIT (sorted: the first ones). */
		for (lo = 0, hi = p->norder; lo < hi;) {
			size_t mid = lo + (hi - lo) / 2;

			if (p->order[mid].time <= p->limit)
				lo = mid + 1;
			else
				hi = mid;
		}
		p->nready = lo;
		p->limit = p->newest;
	}
	return 1;
}

/* The records in time order are far apart in the file, and each costs
 * misses in the cache and the TLB.  While record K is unwound: K + 2's
 * first bytes are asked for (the header, the fields, the registers and
 * the top of the stack copy, as far as the last sample's walk read:
 * samples of a profile are alike; 1 to 4 KiB), and the last line of
 * K + 1, whose header came in by then (the stack copy's dyn_size is
 * there). */
#define PF_MIN	1024
#define PF_MAX	4096

void
pclni_perf_used(const pcln_perf *p, size_t bytes)
{
	/* (P is the caller's const view of a record reader it owns: the
	 * hint is no part of what it reads.) */
	((pcln_perf *)(uintptr_t)p)->pf_bytes = bytes < PF_MIN ? PF_MIN :
	    bytes > PF_MAX ? PF_MAX : (bytes + 63) & ~(size_t)63;
}

/* Record OFF's bytes (a file offset into the mapped profile, or a place
 * in a chunk the scan holds) and how many of them there are up to the
 * end of what holds it. */
static const uint8_t *
record_bytes(pcln_perf *p, uint64_t off, uint64_t *avail)
{
	if (off & PERF_VOFF_CHUNK) {
		const struct perf_chunk *c = chunk_of(p, off);
		uint64_t o = off & PERF_VOFF_MASK;

		*avail = o < c->len ? c->len - o : 0;
		return c->data + o;
	}
	*avail = off < p->info.data_end ? p->info.data_end - off : 0;
	return p->buf + off;
}

/* Is the sample that is the N-th met this reader's share? */
static int
share_mine(const pcln_perf *p, uint64_t n)
{
	if (p->share_n == 0)
		return 1;
	/* (asked for each sample, and for the ones after it: a 64-bit
	 * division is some 40 cycles, a fifth of pcln_perf_next's time in
	 * two threads; two parts of a power of two take none) */
	if (p->share_shift != 0)
		return (unsigned)(n >> p->share_shift & 1) == p->share_part;
	return n / p->share_block % p->share_n == p->share_part;
}

/* The place in the order of the record after K that goes out (its
 * samples this reader's share) and the one after that, in *A and *B
 * (P->norder where there is none ready): K + 1 and K + 2 without a
 * share. */
static void
own_next(const pcln_perf *p, size_t k, size_t *a, size_t *b)
{
	uint64_t n = p->nsamples;
	size_t j, *to = a;

	*a = *b = p->norder;
	if (p->share_n == 0) {
		*a = k + 1;
		*b = k + 2;
		return;
	}
	/* (the record at K is this reader's: counted) */
	n += p->order[k].type == PCLN_PERF_RECORD_SAMPLE;
	for (j = k + 1; j < p->nready; j++) {
		if (p->order[j].type == PCLN_PERF_RECORD_SAMPLE &&
		    !share_mine(p, n++))
			continue;
		*to = j;
		if (to == b)
			return;
		to = b;
	}
}

static void
prefetch_records(pcln_perf *p, size_t k)
{
	const uint8_t *r;
	uint64_t n, i, want, avail;
	size_t k1, k2;

	own_next(p, k, &k1, &k2);
	if (k2 < p->norder) {
		r = record_bytes(p, p->order[k2].offset, &avail);
		want = p->pf_bytes != 0 ? p->pf_bytes : PF_MIN;
		n = avail < want ? avail : want;
		for (i = 0; i < n; i += 64)
			__builtin_prefetch(r + i);
	}
	if (k1 < p->norder) {
		r = record_bytes(p, p->order[k1].offset, &avail);
		if (avail >= 8 && (n = perf_u16(p, r + 6)) > PF_MAX &&
		    n <= avail)
			__builtin_prefetch(r + n - 8);
	}
}

static int next_record(pcln_perf *p, pcln_perf_event *ev, pcln_err *err);

int
pcln_perf_next(pcln_perf *p, pcln_perf_event *ev, pcln_err *err)
{
	int r;

	/* (the ordered walk leaves the other shares' samples unread) */
	while ((r = next_record(p, ev, err)) == 1 && !p->ordered &&
	    ev->type == PCLN_PERF_RECORD_SAMPLE)
		if (share_mine(p, p->nsamples++))
			break;
	return r;
}

int
pcln_perf_share(pcln_perf *p, unsigned part, unsigned nparts,
    unsigned block)
{
	if (p == NULL || nparts == 0 || part >= nparts || block == 0 ||
	    p->nsamples != 0)
		return -1;
	p->share_part = part;
	p->share_n = nparts > 1 ? nparts : 0;
	p->share_block = block;
	p->share_shift = 0;
	if (nparts == 2 && block > 1 && (block & (block - 1)) == 0)
		while ((1u << p->share_shift) < block)
			p->share_shift++;
	return 0;
}

uint64_t
pcln_perf_samples_met(const pcln_perf *p)
{
	return p->nsamples;
}

static int
next_record(pcln_perf *p, pcln_perf_event *ev, pcln_err *err)
{
	uint64_t next;

	pclni_clearerr(err);
	if (p->done_chunk != 0)
		release_chunks(p);
	if (p->ordered) {
		int r;

		/* The samples of another share: gone out unread. */
		while ((r = next_ready(p, err)) == 1 && p->share_n != 0 &&
		    p->order[p->next].type == PCLN_PERF_RECORD_SAMPLE &&
		    !share_mine(p, p->nsamples)) {
			p->nsamples++;
			skip_at(p, p->order[p->next++].offset);
			if (p->done_chunk != 0)
				release_chunks(p);
		}
		if (r == 1) {
			prefetch_records(p, p->next);
			p->nsamples += p->order[p->next].type ==
			    PCLN_PERF_RECORD_SAMPLE;
			(void)read_at(p, p->order[p->next++].offset, ev,
			    &next, err);
			return 1;
		}
		if (r < 0)
			return -1;
		if (p->damaged) {
			if (err != NULL)
				*err = p->damage;
			return -1;
		}
		return 0;
	}
	if (p->upos != 0) {	/* in a COMPRESSED record's records */
		struct perf_chunk *c = chunk_of(p, p->upos);

		read_chunk(p, p->upos, ev, &next);
		p->upos = (next & PERF_VOFF_MASK) < c->len ? next : 0;
		return 1;
	}
	if (p->fd >= 0) {	/* the file's chunks, in file order */
		uint64_t off, foff;
		const uint8_t *r;
		uint32_t type;
		uint16_t size;
		int k = scan_next(p, &off, &foff, &r, &type, &size, err);

		if (k <= 0)
			return k < 0 || check_tail(p, err) < 0 ? -1 : 0;
		read_chunk(p, off, ev, &next);
		if (type == PCLN_PERF_RECORD_COMPRESSED &&
		    expand(p, foff, r, size, 0, err) < 0)
			return -1;
		return 1;
	}
	if (p->pos >= p->info.data_end)
		return check_tail(p, err) < 0 ? -1 : 0;
	if (read_at(p, p->pos, ev, &next, err) < 0)
		return -1;
	if (ev->type == PCLN_PERF_RECORD_COMPRESSED &&
	    expand(p, p->pos, ev->raw, ev->size, 0, err) < 0)
		return -1;
	p->pos = next;
	return 1;
}

uint64_t
pcln_perf_callchain(const pcln_perf *p, const pcln_perf_event *ev, size_t i)
{
	if (ev->u.sample.callchain == NULL || i >= ev->u.sample.nr)
		return 0;
	return perf_u64(p, ev->u.sample.callchain + 8 * i);
}

int
pcln_perf_reg(const pcln_perf *p, const pcln_perf_event *ev, unsigned reg,
    uint64_t *v)
{
	uint64_t mask = ev->u.sample.regs_mask;

	if (ev->u.sample.regs == NULL || reg >= 64 || !(mask >> reg & 1))
		return -1;
	*v = perf_u64(p, ev->u.sample.regs +
	    8 * popcount64(mask & (((uint64_t)1 << reg) - 1)));
	return 0;
}
