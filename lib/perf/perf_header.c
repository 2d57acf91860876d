/* perf_header.c -- the perf.data file header, event attributes and
 * feature sections.
 *
 * The file (perf's tools/perf/Documentation/perf.data-file-format.txt):
 *
 *   offset 0   u64 magic "PERFILE2" (its byte order is the file's)
 *          8   u64 size of this header (104)
 *         16   u64 attr_size: one attribute entry (perf_event_attr + ids)
 *         24   { u64 offset, size } attrs
 *         40   { u64 offset, size } data: the records
 *         56   { u64 offset, size } event_types (unused since 2012)
 *         72   u64 adds_features[4]: feature bit I set means section I
 *   data.offset + data.size: { u64 offset, size } per set feature bit,
 *   in bit order.
 *
 * An attribute entry is a perf_event_attr of attr_size - 16 bytes (older
 * perfs wrote shorter ones: fields past its end read as 0) followed by
 * { u64 offset, size } of its u64 sample ids.
 *
 * A pipe-mode stream (perf record -o -) has a header of 16 bytes { magic,
 * size }, and records from there: the attributes and features in the
 * first ones (open_pipe).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "perf_internal.h"

#define HEADER_SIZE	104
#define ATTR_MIN	64	/* PERF_ATTR_SIZE_VER0 */
#define ATTR_MAX	4096	/* perf_event_attr is 136 bytes in 2024 */

/* Feature bits (perf's util/header.h). */
enum {
	FEAT_TRACING_DATA = 1,
	FEAT_BUILD_ID = 2,
	FEAT_HOSTNAME = 3,
	FEAT_OSRELEASE = 4,
	FEAT_VERSION = 5,
	FEAT_ARCH = 6,
	FEAT_CMDLINE = 11,
	FEAT_EVENT_DESC = 12,
};

static const char *const feat_names[] = {
	[1] = "TRACING_DATA", [2] = "BUILD_ID", [3] = "HOSTNAME",
	[4] = "OSRELEASE", [5] = "VERSION", [6] = "ARCH", [7] = "NRCPUS",
	[8] = "CPUDESC", [9] = "CPUID", [10] = "TOTAL_MEM", [11] = "CMDLINE",
	[12] = "EVENT_DESC",
};

#define MISC_BUILD_ID_SIZE	(1u << 15)

/* Does [OFF, OFF + N) lie in the file?  Else ERR, naming WHAT. */
static int
need(const pcln_perf *p, uint64_t off, uint64_t n, const char *what,
    pcln_err *err)
{
	if (off <= p->len && n <= p->len - off)
		return 0;
	return pclni_seterr(err, PCLN_ETRUNC, (int64_t)off,
	    "perf.data: %s at offset 0x%llx: %llu bytes needed, the file "
	    "ends at 0x%llx", what, (unsigned long long)off,
	    (unsigned long long)n, (unsigned long long)p->len);
}

static void
warn(pcln_perf *p, const char *fmt, ...) PCLNI_PRINTF(2, 3);

static void
warn(pcln_perf *p, const char *fmt, ...)
{
	size_t n = strlen(p->warn);
	va_list ap;

	if (n + 4 >= sizeof p->warn)
		return;
	if (n > 0) {
		p->warn[n++] = ';';
		p->warn[n++] = ' ';
	}
	va_start(ap, fmt);
	vsnprintf(p->warn + n, sizeof p->warn - n, fmt, ap);
	va_end(ap);
}

/* Reverse the bits of V: a big-endian compiler allocates bit fields from
 * the most significant bit, so attr.flags' first field is its bit 63. */
static uint64_t
bitrev64(uint64_t v)
{
	uint64_t r = 0;
	int i;

	for (i = 0; i < 64; i++, v >>= 1)
		r = (r << 1) | (v & 1);
	return r;
}

/* A u64 field at OFF of an attribute of N bytes, 0 past its end. */
static uint64_t
attr64(const pcln_perf *p, const uint8_t *a, size_t n, size_t off)
{
	return off + 8 <= n ? perf_u64(p, a + off) : 0;
}

static uint32_t
attr32(const pcln_perf *p, const uint8_t *a, size_t n, size_t off)
{
	return off + 4 <= n ? perf_u32(p, a + off) : 0;
}

static int
cmp_idmap(const void *a, const void *b)
{
	const struct perf_idmap *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* The sample's u64 index of the id (IDENTIFIER first, else ID after
 * IP, TID, TIME, ADDR), or -1. */
static int
sample_id_pos(uint64_t st)
{
	int pos = 0;

	if (st & PCLN_PERF_SAMPLE_IDENTIFIER)
		return 0;
	if (!(st & PCLN_PERF_SAMPLE_ID))
		return -1;
	if (st & PCLN_PERF_SAMPLE_IP)
		pos++;
	if (st & PCLN_PERF_SAMPLE_TID)
		pos++;
	if (st & PCLN_PERF_SAMPLE_TIME)
		pos++;
	if (st & PCLN_PERF_SAMPLE_ADDR)
		pos++;
	return pos;
}

/* The u64 index, counted from the record's end (1 = last), of the id in a
 * sample_id trailer (TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER), or -1. */
static int
trailer_id_pos(uint64_t st)
{
	int pos = 1;

	if (st & PCLN_PERF_SAMPLE_IDENTIFIER)
		return 1;
	if (!(st & PCLN_PERF_SAMPLE_ID))
		return -1;
	if (st & PCLN_PERF_SAMPLE_CPU)
		pos++;
	if (st & PCLN_PERF_SAMPLE_STREAM_ID)
		pos++;
	return pos;
}

/* Attribute I from its perf_event_attr at OFF, of at most ABYTES bytes,
 * and its NIDS ids at IOFF (P->ids from *K on; *K moves past them).  0,
 * or -1 and ERR. */
static int
fill_attr(pcln_perf *p, size_t i, uint64_t off, size_t abytes,
    uint64_t ioff, uint64_t nids, uint64_t *k, pcln_err *err)
{
	const uint8_t *a = p->buf + off;
	pcln_perf_attr *at = &p->attrs[i];
	uint64_t j;
	size_t an;

	at->offset = (int64_t)off;
	at->type = perf_u32(p, a);
	at->size = perf_u32(p, a + 4);
	/* Read no further than both the entry and the attr's own size
	 * say (an older attr in a newer entry is padded). */
	an = at->size != 0 && at->size < abytes ? at->size : abytes;
	at->config = attr64(p, a, an, 8);
	at->sample_period = attr64(p, a, an, 16);
	at->sample_type = attr64(p, a, an, 24);
	at->read_format = attr64(p, a, an, 32);
	at->flags = attr64(p, a, an, 40);
	if (p->big)
		at->flags = bitrev64(at->flags);
	at->freq = (int)(at->flags >> 10 & 1);
	at->sample_id_all = (int)(at->flags >> 18 & 1);
	at->exclude_callchain_user = (int)(at->flags >> 22 & 1);
	at->branch_sample_type = attr64(p, a, an, 72);
	at->sample_regs_user = attr64(p, a, an, 80);
	at->sample_stack_user = attr32(p, a, an, 88);
	at->sample_regs_intr = attr64(p, a, an, 96);
	if (at->sample_type & ~(uint64_t)PCLN_PERF_SAMPLE_KNOWN)
		return pclni_seterr(err, PCLN_EUNSUPPORTED, (int64_t)off + 24,
		    "perf.data: attribute %llu at offset 0x%llx: sample_type "
		    "0x%llx has fields this reader does not know (known: "
		    "0x%x)", (unsigned long long)i, (unsigned long long)off,
		    (unsigned long long)at->sample_type,
		    PCLN_PERF_SAMPLE_KNOWN);
	at->nids = (size_t)nids;
	at->ids = p->ids != NULL ? p->ids + *k : NULL;
	for (j = 0; j < nids; j++, (*k)++) {
		p->ids[*k] = perf_u64(p, p->buf + ioff + 8 * j);
		p->idmap[*k].id = p->ids[*k];
		p->idmap[*k].attr = i;
	}
	return 0;
}

static int finish_attrs(pcln_perf *p, uint64_t k, pcln_err *err);

static int
read_attrs(pcln_perf *p, uint64_t aoff, uint64_t asize, pcln_err *err)
{
	uint64_t asz = p->info.attr_size, n, i, totids = 0, k = 0;
	size_t abytes = (size_t)asz - 16;

	n = asize / asz;
	if (asize % asz != 0)
		return pclni_seterr(err, PCLN_EHEADER, 24,
		    "perf.data: header at offset 0x18: attrs size %llu is not "
		    "a multiple of attr_size %llu", (unsigned long long)asize,
		    (unsigned long long)asz);
	if (n == 0)
		return pclni_seterr(err, PCLN_EHEADER, 24,
		    "perf.data: header at offset 0x18: no event attributes");
	if (need(p, aoff, asize, "the attrs section", err) < 0)
		return -1;
	p->attrs = calloc((size_t)n, sizeof *p->attrs);
	if (p->attrs == NULL)
		return pclni_seterr(err, PCLN_ENOMEM, -1, "out of memory");
	p->info.nattr = (size_t)n;
	for (i = 0; i < n; i++) {
		uint64_t off = aoff + i * asz;
		const uint8_t *b = p->buf + off + abytes;
		uint64_t ioff = perf_u64(p, b), isz = perf_u64(p, b + 8);

		if (isz % 8 != 0 || need(p, ioff, isz, "an attribute's ids",
		    err) < 0)
			return pclni_seterr(err, PCLN_EHEADER, (int64_t)off +
			    (int64_t)abytes, "perf.data: attribute %llu at "
			    "offset 0x%llx: its ids section (offset 0x%llx, "
			    "%llu bytes) is not in the file",
			    (unsigned long long)i, (unsigned long long)off,
			    (unsigned long long)ioff, (unsigned long long)isz);
		totids += isz / 8;
	}
	if (totids > 0) {
		p->ids = malloc((size_t)totids * sizeof *p->ids);
		p->idmap = malloc((size_t)totids * sizeof *p->idmap);
		if (p->ids == NULL || p->idmap == NULL)
			return pclni_seterr(err, PCLN_ENOMEM, -1,
			    "out of memory");
	}
	for (i = 0; i < n; i++) {
		uint64_t off = aoff + i * asz;
		const uint8_t *b = p->buf + off + abytes;

		if (fill_attr(p, (size_t)i, off, abytes, perf_u64(p, b),
		    perf_u64(p, b + 8) / 8, &k, err) < 0)
			return -1;
	}
	return finish_attrs(p, k, err);
}

/* The ids sorted for the search, the samples' id place: the attributes'
 * end (K ids).  0, or -1 and ERR. */
static int
finish_attrs(pcln_perf *p, uint64_t k, pcln_err *err)
{
	size_t i, n = p->info.nattr;

	p->nidmap = (size_t)k;
	if (k > 0)
		qsort(p->idmap, (size_t)k, sizeof *p->idmap, cmp_idmap);
	p->sample_type0 = p->attrs[0].sample_type;
	p->id_pos = sample_id_pos(p->sample_type0);
	p->id_pos_end = trailer_id_pos(p->sample_type0);
	for (i = 1; i < n; i++)
		if (sample_id_pos(p->attrs[i].sample_type) != p->id_pos ||
		    trailer_id_pos(p->attrs[i].sample_type) != p->id_pos_end)
			return pclni_seterr(err, PCLN_EUNSUPPORTED,
			    p->attrs[i].offset + 24, "perf.data: attribute "
			    "%llu at offset 0x%llx: its sample id is not where "
			    "attribute 0's is (perf requires one place)",
			    (unsigned long long)i,
			    (unsigned long long)p->attrs[i].offset);
	if (n > 1 && p->id_pos < 0)
		warn(p, "%llu attributes but samples carry no id: all are "
		    "taken as attribute 0", (unsigned long long)n);
	return 0;
}

/* A perf_header_string { u32 len; char s[len]; } at *OFF within END:
 * the string (NUL-terminated within len), or NULL. */
static const char *
feat_string(const pcln_perf *p, uint64_t *off, uint64_t end)
{
	uint64_t n;
	const char *s;

	if (*off > end || end - *off < 4)
		return NULL;
	n = perf_u32(p, p->buf + *off);
	if (n == 0 || n > end - *off - 4)
		return NULL;
	s = (const char *)p->buf + *off + 4;
	if (memchr(s, '\0', (size_t)n) == NULL)
		return NULL;
	*off += 4 + n;
	return s;
}

static int
feat_buildids(pcln_perf *p, uint64_t off, uint64_t size)
{
	uint64_t end = off + size, o, n = 0;
	size_t k = 0;
	int pass;

	/* Two passes: count, then fill. */
	for (pass = 0; pass < 2; pass++) {
		for (o = off; o + 8 <= end; ) {
			const uint8_t *r = p->buf + o;
			uint16_t misc = perf_u16(p, r + 4);
			uint16_t rsz = perf_u16(p, r + 6);
			const char *name = (const char *)r + 36;

			if (rsz < 37 || rsz > end - o) {
				if (pass == 0)
					warn(p, "BUILD_ID feature: entry at "
					    "offset 0x%llx: size %u (expected "
					    "37 to %llu)",
					    (unsigned long long)o, rsz,
					    (unsigned long long)(end - o));
				break;
			}
			if (memchr(name, '\0', rsz - 36u) != NULL) {
				if (pass == 1) {
					pcln_perf_buildid *b =
					    &p->buildids[k++];
					b->pid = (int32_t)perf_u32(p, r + 8);
					b->misc = misc;
					memcpy(b->id, r + 12,
					    PCLN_PERF_BUILDID_MAX);
					b->len = misc & MISC_BUILD_ID_SIZE ?
					    r[32] : PCLN_PERF_BUILDID_MAX;
					if (b->len > PCLN_PERF_BUILDID_MAX)
						b->len = PCLN_PERF_BUILDID_MAX;
					b->filename = name;
				} else
					n++;
			}
			o += rsz;
		}
		if (pass == 0) {
			if (n == 0)
				return 0;
			free(p->buildids);
			p->buildids = calloc((size_t)n, sizeof *p->buildids);
			if (p->buildids == NULL)
				return -1;
		}
	}
	p->info.nbuildid = k;
	return 0;
}

static int
feat_cmdline(pcln_perf *p, uint64_t off, uint64_t size)
{
	uint64_t end = off + size, o = off + 4, nr, i;
	size_t total = 0, n;
	const char *s;

	if (size < 4)
		return 0;
	nr = perf_u32(p, p->buf + off);
	if (nr > size / 5)
		return 0;
	for (i = 0; i < nr; i++) {
		if ((s = feat_string(p, &o, end)) == NULL)
			return 0;
		total += strlen(s) + 1;
	}
	free(p->cmdline);	/* (a pipe may say it twice) */
	if ((p->cmdline = malloc(total + 1)) == NULL)
		return -1;
	p->cmdline[0] = '\0';
	o = off + 4;
	for (i = 0, n = 0; i < nr; i++) {
		s = feat_string(p, &o, end);
		if (i > 0)
			p->cmdline[n++] = ' ';
		memcpy(p->cmdline + n, s, strlen(s) + 1);
		n += strlen(s);
	}
	p->info.cmdline = p->cmdline;
	return 0;
}

/* EVENT_DESC: { u32 nr, attr_size; { attr; u32 nr_ids; string name;
 * u64 ids[nr_ids]; } [nr] }.  Names go to the attribute with the same
 * first id, else the same position. */
static void
feat_event_desc(pcln_perf *p, uint64_t off, uint64_t size)
{
	uint64_t end = off + size, o, nr, asz, i, j, nids;
	const char *name;

	if (size < 8)
		return;
	nr = perf_u32(p, p->buf + off);
	asz = perf_u32(p, p->buf + off + 4);
	o = off + 8;
	for (i = 0; i < nr; i++) {
		if (asz > end - o || end - o - asz < 4)
			return;
		o += asz;
		nids = perf_u32(p, p->buf + o);
		o += 4;
		if ((name = feat_string(p, &o, end)) == NULL)
			return;
		if (nids > (end - o) / 8)
			return;
		for (j = 0; j < p->info.nattr; j++) {
			pcln_perf_attr *a = &p->attrs[j];

			if (nids > 0 && a->nids > 0 ?
			    a->ids[0] == perf_u64(p, p->buf + o) : i == j) {
				if (a->name == NULL)
					a->name = name;
				break;
			}
		}
		o += 8 * nids;
	}
}

/* Feature BIT (named FNAME), its section at SOFF, SSIZE bytes (in the
 * file's table of sections, or a pipe's HEADER_FEATURE record). */
static void
read_feature(pcln_perf *p, unsigned bit, const char *fname, uint64_t soff,
    uint64_t ssize)
{
	switch (bit) {
	case FEAT_TRACING_DATA:
		p->tracing = p->buf + soff;
		p->ntracing = (size_t)ssize;
		break;
	case FEAT_BUILD_ID:
		if (feat_buildids(p, soff, ssize) < 0)
			warn(p, "BUILD_ID feature: out of memory");
		break;
	case FEAT_HOSTNAME:
	case FEAT_OSRELEASE:
	case FEAT_VERSION:
	case FEAT_ARCH: {
		uint64_t o = soff;
		const char *s = feat_string(p, &o, soff + ssize);

		if (s == NULL)
			warn(p, "feature %s at offset 0x%llx: not a "
			    "string", fname, (unsigned long long)soff);
		else if (bit == FEAT_HOSTNAME)
			p->info.hostname = s;
		else if (bit == FEAT_OSRELEASE)
			p->info.osrelease = s;
		else if (bit == FEAT_VERSION)
			p->info.version = s;
		else
			p->info.arch = s;
		break;
	}
	case FEAT_CMDLINE:
		if (feat_cmdline(p, soff, ssize) < 0)
			warn(p, "CMDLINE feature: out of memory");
		break;
	case FEAT_EVENT_DESC:
		feat_event_desc(p, soff, ssize);
		break;
	default:
		break;
	}
}

static void
read_features(pcln_perf *p)
{
	uint64_t toff = p->info.data_offset + p->info.data_size, n = 0;
	unsigned bit;

	for (bit = 1; bit < 256; bit++) {
		uint64_t soff, ssize, e;
		const char *fname;

		if (!(p->info.features[bit / 64] >> (bit % 64) & 1))
			continue;
		e = toff + 16 * n++;
		fname = bit < sizeof feat_names / sizeof feat_names[0] &&
		    feat_names[bit] != NULL ? feat_names[bit] : "?";
		if (e > p->len || p->len - e < 16) {
			warn(p, "the feature sections' table (offset 0x%llx) "
			    "is past the end of the file (0x%llx)",
			    (unsigned long long)toff,
			    (unsigned long long)p->len);
			return;
		}
		soff = perf_u64(p, p->buf + e);
		ssize = perf_u64(p, p->buf + e + 8);
		if (soff > p->len || ssize > p->len - soff) {
			warn(p, "feature %s (%u): section at offset 0x%llx, "
			    "%llu bytes, is not in the file", fname, bit,
			    (unsigned long long)soff,
			    (unsigned long long)ssize);
			continue;
		}
		read_feature(p, bit, fname, soff, ssize);
	}
}

/* perf record -o -: { magic, u64 size 16 } and the records, the first
 * of which say what a file's header and sections say (perf's
 * perf_event__synthesize_attrs and _features): HEADER_ATTR { attr; u64
 * ids[] }, HEADER_FEATURE { u64 feature; its section }, EVENT_UPDATE {
 * u64 type; u64 id; ... } (type 2: the event's name).  They come before
 * the first kernel record; the walk hands them out like any other. */
#define EVENT_UPDATE_NAME	2

pcln_perf_attr *
pclni_perf_attr_of(const pcln_perf *p, uint64_t id)
{
	size_t lo = 0, hi = p->nidmap;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->idmap[mid].id < id)
			lo = mid + 1;
		else if (p->idmap[mid].id > id)
			hi = mid;
		else
			return &p->attrs[p->idmap[mid].attr];
	}
	return NULL;
}

static int
open_pipe(pcln_perf *p, pcln_err *err)
{
	uint64_t off, nattr = 0, nids = 0, k = 0;
	size_t i = 0;
	int pass;

	p->info.pipe = 1;
	p->info.data_offset = 16;
	p->info.data_size = p->len - 16;
	p->info.data_end = p->len;
	for (pass = 0; pass < 2; pass++) {
		for (off = 16; p->len - off >= 8; ) {
			const uint8_t *r = p->buf + off;
			uint32_t type = perf_u32(p, r);
			uint16_t size = perf_u16(p, r + 6);
			uint64_t asz;

			if (size < 8 || size > p->len - off ||
			    type < PCLN_PERF_RECORD_USER_FIRST)
				break;	/* (framing damage: the walk says) */
			switch (type) {
			case PCLN_PERF_RECORD_HEADER_ATTR:
				asz = size >= 16 ? perf_u32(p, r + 12) : 0;
				if (asz < ATTR_MIN || asz > size - 8u ||
				    asz % 8 != 0)
					return pclni_seterr(err, PCLN_EHEADER,
					    (int64_t)off + 12, "perf.data: "
					    "HEADER_ATTR record at offset "
					    "0x%llx (%u bytes): attr size "
					    "%llu, expected a multiple of 8 "
					    "from %d to %u",
					    (unsigned long long)off, size,
					    (unsigned long long)asz, ATTR_MIN,
					    size - 8u);
				if (pass == 0) {
					nattr++;
					nids += (size - 8 - asz) / 8;
				} else if (fill_attr(p, i++, off + 8,
				    (size_t)asz, off + 8 + asz, (size - 8 -
				    asz) / 8, &k, err) < 0)
					return -1;
				break;
			case PCLN_PERF_RECORD_HEADER_TRACING_DATA:
				/* { header; u32 size, pad; } then the data */
				if (pass == 1 && size >= 16 && p->tracing ==
				    NULL && perf_payload(p, r, size) <=
				    p->len - off - size) {
					p->tracing = r + size;
					p->ntracing = (size_t)perf_payload(p, r,
					    size);
				}
				break;
			case PCLN_PERF_RECORD_HEADER_FEATURE:
				if (pass == 1 && size >= 16) {
					uint64_t bit = perf_u64(p, r + 8);

					if (bit < 256) {
						p->info.features[bit / 64] |=
						    UINT64_C(1) << bit % 64;
						read_feature(p, (unsigned)bit,
						    bit < sizeof feat_names /
						    sizeof feat_names[0] &&
						    feat_names[bit] != NULL ?
						    feat_names[bit] : "?",
						    off + 16, size - 16u);
					}
				}
				break;
			default:
				break;
			}
			if (perf_payload(p, r, size) > p->len - off - size)
				break;
			off += size + perf_payload(p, r, size);
		}
		if (pass == 1)
			break;
		if (nattr == 0)
			return pclni_seterr(err, PCLN_EHEADER, 16, "perf.data: "
			    "a pipe-mode stream (header size 16) without a "
			    "HEADER_ATTR record before its first event");
		p->info.nattr = (size_t)nattr;
		p->attrs = calloc((size_t)nattr, sizeof *p->attrs);
		if (nids > 0) {
			p->ids = malloc((size_t)nids * sizeof *p->ids);
			p->idmap = malloc((size_t)nids * sizeof *p->idmap);
		}
		if (p->attrs == NULL || (nids > 0 && (p->ids == NULL ||
		    p->idmap == NULL)))
			return pclni_seterr(err, PCLN_ENOMEM, -1,
			    "out of memory");
	}
	if (finish_attrs(p, k, err) < 0)
		return -1;
	/* The events' names, now that their ids are known. */
	for (off = 16; p->len - off >= 8; ) {
		const uint8_t *r = p->buf + off;
		uint32_t type = perf_u32(p, r);
		uint16_t size = perf_u16(p, r + 6);

		if (size < 8 || size > p->len - off ||
		    type < PCLN_PERF_RECORD_USER_FIRST)
			break;
		if (type == PCLN_PERF_RECORD_EVENT_UPDATE && size > 24 &&
		    perf_u64(p, r + 8) == EVENT_UPDATE_NAME &&
		    memchr(r + 24, '\0', size - 24u) != NULL) {
			pcln_perf_attr *a = pclni_perf_attr_of(p,
			    perf_u64(p, r + 16));

			if (a != NULL && a->name == NULL)
				a->name = (const char *)r + 24;
		}
		if (perf_payload(p, r, size) > p->len - off - size)
			break;
		off += size + perf_payload(p, r, size);
	}
	return 0;
}

int
pclni_perf_open_header(pcln_perf *p, pcln_err *err)
{
	const uint8_t *h = p->buf;
	uint64_t aoff, asize;
	int i;

	if (p->len < 8 || (memcmp(h, "PERFILE2", 8) != 0 &&
	    memcmp(h, "2ELIFREP", 8) != 0)) {
		if (p->len >= 8 && memcmp(h, "PERFFILE", 8) == 0)
			return pclni_seterr(err, PCLN_EUNSUPPORTED, 0,
			    "perf.data: offset 0: version 1 file (\"PERFFILE\")"
			    ", not read: expected \"PERFILE2\"");
		return pclni_seterr(err, PCLN_EMAGIC, 0, "perf.data: offset "
		    "0: not a perf.data file: expected magic \"PERFILE2\"");
	}
	p->big = h[0] == '2';
	p->info.big = p->big;
	if (need(p, 0, 16, "the header", err) < 0)
		return -1;
	p->info.header_size = perf_u64(p, h + 8);
	if (p->info.header_size == 16)
		return open_pipe(p, err);
	if (p->info.header_size < HEADER_SIZE)
		return pclni_seterr(err, PCLN_EHEADER, 8, "perf.data: offset "
		    "8: header size %llu, expected at least %d",
		    (unsigned long long)p->info.header_size, HEADER_SIZE);
	if (need(p, 0, HEADER_SIZE, "the header", err) < 0)
		return -1;
	p->info.attr_size = perf_u64(p, h + 16);
	if (p->info.attr_size < ATTR_MIN + 16 ||
	    p->info.attr_size > ATTR_MAX + 16 || p->info.attr_size % 8 != 0)
		return pclni_seterr(err, PCLN_EHEADER, 16, "perf.data: offset "
		    "0x10: attr_size %llu, expected a multiple of 8 from %d "
		    "to %d", (unsigned long long)p->info.attr_size,
		    ATTR_MIN + 16, ATTR_MAX + 16);
	aoff = perf_u64(p, h + 24);
	asize = perf_u64(p, h + 32);
	p->info.data_offset = perf_u64(p, h + 40);
	p->info.data_size = perf_u64(p, h + 48);
	for (i = 0; i < 4; i++)
		p->info.features[i] = perf_u64(p, h + 72 + 8 * i);
	if (p->info.data_offset < HEADER_SIZE || p->info.data_offset > p->len)
		return pclni_seterr(err, PCLN_EHEADER, 40, "perf.data: offset "
		    "0x28: data section offset 0x%llx, expected from 0x%x to "
		    "the file's end 0x%llx",
		    (unsigned long long)p->info.data_offset, HEADER_SIZE,
		    (unsigned long long)p->len);
	if (p->info.data_size > p->len - p->info.data_offset) {
		p->info.truncated = 1;
		p->info.data_end = p->len;
	} else if (p->info.data_size == 0) {
		/* perf record did not finish: the header was not rewritten
		 * (perf says "file not finished writing"); read what is
		 * there. */
		p->info.truncated = 1;
		p->info.data_end = p->len;
	} else
		p->info.data_end = p->info.data_offset + p->info.data_size;
	if (read_attrs(p, aoff, asize, err) < 0)
		return -1;
	if (!p->info.truncated)
		read_features(p);
	else
		warn(p, "the data section (offset 0x%llx, %llu bytes) ends "
		    "past the file's end (0x%llx): truncated; no feature "
		    "sections", (unsigned long long)p->info.data_offset,
		    (unsigned long long)p->info.data_size,
		    (unsigned long long)p->len);
	return 0;
}

pcln_perf *
pcln_perf_open(const uint8_t *buf, size_t len, unsigned flags,
    pcln_err *err)
{
	pcln_perf *p;

	pclni_clearerr(err);
	if (buf == NULL && len > 0) {
		pclni_seterr(err, PCLN_EINVAL, -1, "perf.data: no buffer");
		return NULL;
	}
	if ((p = calloc(1, sizeof *p)) == NULL) {
		pclni_seterr(err, PCLN_ENOMEM, -1, "out of memory");
		return NULL;
	}
	p->buf = buf;
	p->len = len;
	p->fd = -1;
	if (pclni_perf_open_header(p, err) < 0) {
		pcln_perf_close(p);
		return NULL;
	}
	p->pos = p->info.data_offset;
	p->scanpos = p->info.data_offset;
	p->ordered = (flags & PCLN_PERF_ORDERED) != 0;
	return p;
}

void
pcln_perf_close(pcln_perf *p)
{
	if (p == NULL)
		return;
	free(p->attrs);
	free(p->ids);
	free(p->idmap);
	free(p->buildids);
	free(p->cmdline);
	free(p->order);
	pclni_perf_free_chunks(p);
	pcln_huge_free(p->probebuf, p->probelen);
	free(p->claim);
	if (p->map != NULL && p->twin_of == NULL)
		munmap(p->map, p->maplen);
	free(p);
}

int
pcln_perf_tracing_data(const pcln_perf *p, const uint8_t **data,
    size_t *len)
{
	if (p->tracing == NULL || p->ntracing == 0)
		return 0;
	*data = p->tracing;
	*len = p->ntracing;
	return 1;
}

const pcln_perf_info *
pcln_perf_get_info(const pcln_perf *p)
{
	return &p->info;
}

const pcln_perf_attr *
pcln_perf_get_attr(const pcln_perf *p, size_t i)
{
	return i < p->info.nattr ? &p->attrs[i] : NULL;
}

const pcln_perf_buildid *
pcln_perf_get_buildid(const pcln_perf *p, size_t i)
{
	return i < p->info.nbuildid ? &p->buildids[i] : NULL;
}

const char *
pcln_perf_warnings(const pcln_perf *p)
{
	return p->warn;
}
