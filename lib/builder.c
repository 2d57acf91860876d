/* builder.c -- collect functions, files and pc-value points; lay out,
 * deduplicate and encode a pcln blob.
 *
 * Layout written (see runtime/pclnrt_format.h for the field offsets):
 *
 *   header | functab | sentinel end pc | uint32 file table offset
 *   | pad to P | Func records (each P-aligned, in entry order)
 *   | names (function names, then file paths; NUL-terminated, deduplicated)
 *   | pc-value tables (deduplicated by content)
 *   | pad to 4 | file table                       <- end of the Go 1.2 part
 *   [ | pad to 8 | FUNCSIZE section | pad to 8 | INLTREE section (if any
 *     function has inlined calls) | pad to 8 | FUNCINDEX section (from
 *     PCLN_INDEX_MIN_FUNCS functions, or as the flags say) | pad to 8
 *     | PCCKPT section (if a table has more rows than the stride: a
 *     block of checkpoints per function that has such tables)
 *     | pad to 8 | directory
 *     | 32-byte footer ]                          <- unless PCLN_WRITE_GO12
 *
 * Memory: one record per function (about 100 bytes), one growing array of
 * 8-byte points per non-empty table, interned names; the write needs about
 * the output's size again plus 20 bytes per function and 4 per table.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "internal.h"

struct point {
	uint32_t off;		/* bytes from the function's entry */
	int32_t value;
};

struct ptab {
	struct point *pt;
	uint32_t n, cap;
};

/* An inlined call (INLTREE record). */
struct binl {
	int32_t parent;
	uint32_t name;		/* item number in the names pool */
	int32_t file, line;
};

struct bfunc {
	uint64_t entry;
	uint32_t size;
	uint32_t name;		/* item number in the names pool */
	int32_t args, frame;
	uint32_t npcdata, nfuncdata;
	struct ptab tab[3];	/* pcsp, pcfile, pcln */
	struct ptab *pcdata;	/* [npcdata] */
	uint64_t *funcdata;	/* [nfuncdata] */
	struct binl *inl;	/* inline tree [ninl] */
	uint32_t ninl, inlcap;
};

struct pcln_builder {
	pcln_target t;
	struct bfunc *f;
	size_t nf, fcap;
	struct pclni_pool names;	/* function names, with their NUL */
	struct pclni_pool files;	/* file paths, with their NUL */
	size_t names_total;		/* name bytes before deduplication */
	pcln_build_stats stats;		/* of the last successful write */
	pcln_func_layout *layout;	/* [nlayout], by handle */
	size_t nlayout;
	unsigned ckstride;		/* checkpoint stride, 0: none */
};

/* A growing byte buffer. */
struct bbuf {
	uint8_t *p;
	size_t len, cap;
};

static int
bbuf_reserve(struct bbuf *b, size_t more)
{
	size_t cap;
	uint8_t *p;

	if (b->len + more <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 256;
	while (cap < b->len + more)
		cap *= 2;
	if ((p = realloc(b->p, cap)) == NULL)
		return -1;
	b->p = p;
	b->cap = cap;
	return 0;
}

static const char *
fname(const pcln_builder *b, const struct bfunc *f)
{
	return (const char *)b->names.data + b->names.off[f->name];
}

pcln_builder *
pcln_builder_new(const pcln_target *t, pcln_err *err)
{
	pcln_builder *b;

	pclni_clearerr(err);
	if (t == NULL) {
		pclni_seterr(err, PCLN_EINVAL, -1, "target: NULL");
		return NULL;
	}
	if (t->ptrsize != 4 && t->ptrsize != 8) {
		pclni_seterr(err, PCLN_EINVAL, -1,
		    "target: pointer size %u, expected 4 or 8", t->ptrsize);
		return NULL;
	}
	if (t->quantum != 1 && t->quantum != 2 && t->quantum != 4) {
		pclni_seterr(err, PCLN_EINVAL, -1,
		    "target: pc quantum %u, expected 1, 2 or 4", t->quantum);
		return NULL;
	}
	if ((b = calloc(1, sizeof *b)) == NULL) {
		pclni_seterr(err, PCLN_ENOMEM, -1, "builder: out of memory");
		return NULL;
	}
	b->t = *t;
	b->t.bigendian = t->bigendian != 0;
	b->ckstride = PCLN_CKPT_DEFAULT;
	pclni_pool_init(&b->names);
	pclni_pool_init(&b->files);
	return b;
}

void
pcln_builder_free(pcln_builder *b)
{
	size_t i, j;

	if (b == NULL)
		return;
	for (i = 0; i < b->nf; i++) {
		struct bfunc *f = &b->f[i];
		for (j = 0; j < 3; j++)
			free(f->tab[j].pt);
		for (j = 0; j < f->npcdata; j++)
			free(f->pcdata[j].pt);
		free(f->pcdata);
		free(f->funcdata);
		free(f->inl);
	}
	free(b->f);
	pclni_pool_free(&b->names);
	pclni_pool_free(&b->files);
	free(b->layout);
	free(b);
}

long
pcln_builder_add_func(pcln_builder *b, const char *name, uint64_t entry,
    uint64_t size, int32_t args, int32_t frame, pcln_err *err)
{
	unsigned ps, q;
	uint64_t maxpc;
	struct bfunc *f;
	long id;

	pclni_clearerr(err);
	if (b == NULL || name == NULL)
		return pclni_seterr(err, PCLN_EINVAL, -1,
		    "add function: NULL %s", b == NULL ? "builder" : "name");
	ps = b->t.ptrsize;
	q = b->t.quantum;
	maxpc = ps == 8 ? UINT64_MAX : UINT32_MAX;
	if (size == 0 || size > UINT32_MAX)
		return pclni_seterr(err, PCLN_ERANGE, -1,
		    "function %s at 0x%" PRIx64 ": size %" PRIu64
		    ", expected 1 to 0xffffffff", name, entry, size);
	if (entry % q != 0 || size % q != 0)
		return pclni_seterr(err, PCLN_ERANGE, -1,
		    "function %s at 0x%" PRIx64 " size 0x%" PRIx64
		    ": entry and size must be multiples of the pc quantum %u",
		    name, entry, size, q);
	if (entry > maxpc || size > maxpc - entry)
		return pclni_seterr(err, PCLN_ERANGE, -1,
		    "function %s at 0x%" PRIx64 " size 0x%" PRIx64
		    ": end pc does not fit in %u bytes", name, entry, size,
		    ps);
	if (b->nf >= (size_t)INT32_MAX)
		return pclni_seterr(err, PCLN_ERANGE, -1,
		    "function %s: too many functions", name);
	if (b->nf == b->fcap) {
		size_t cap = b->fcap ? b->fcap * 2 : 64;
		struct bfunc *nf = realloc(b->f, cap * sizeof *nf);
		if (nf == NULL)
			return pclni_seterr(err, PCLN_ENOMEM, -1,
			    "function %s: out of memory", name);
		b->f = nf;
		b->fcap = cap;
	}
	id = pclni_pool_add(&b->names, name, strlen(name) + 1, NULL);
	if (id < 0)
		return pclni_seterr(err, id == -1 ? PCLN_ENOMEM : PCLN_ERANGE,
		    -1, "function %s: %s", name, id == -1 ?
		    "out of memory" : "names exceed 2 GiB");
	f = &b->f[b->nf];
	memset(f, 0, sizeof *f);
	f->entry = entry;
	f->size = (uint32_t)size;
	f->name = (uint32_t)id;
	f->args = args;
	f->frame = frame;
	b->names_total += strlen(name) + 1;
	return (long)b->nf++;
}

long
pcln_builder_add_inline(pcln_builder *b, long f, long parent,
    const char *name, long file, int32_t line, pcln_err *err)
{
	struct bfunc *fn;
	struct binl *r;
	long id;

	pclni_clearerr(err);
	if (b == NULL || name == NULL)
		return pclni_seterr(err, PCLN_EINVAL, -1,
		    "add inline: NULL %s", b == NULL ? "builder" : "name");
	if (f < 0 || (size_t)f >= b->nf)
		return pclni_seterr(err, PCLN_EINVAL, -1,
		    "add inline %s: no function %ld", name, f);
	fn = &b->f[f];
	if (parent < -1 || parent >= (long)fn->ninl)
		return pclni_seterr(err, PCLN_ERANGE, -1,
		    "add inline %s to function %ld (%s): parent %ld, "
		    "expected -1 to %ld", name, f, fname(b, fn), parent,
		    (long)fn->ninl - 1);
	if (file < 1 || (size_t)file > b->files.n)
		return pclni_seterr(err, PCLN_ERANGE, -1,
		    "add inline %s to function %ld (%s): file %ld, expected "
		    "1 to %zu", name, f, fname(b, fn), file, b->files.n);
	if (fn->ninl >= (uint32_t)INT32_MAX / 2)
		return pclni_seterr(err, PCLN_ERANGE, -1,
		    "add inline %s: too many inlined calls", name);
	if (fn->ninl == fn->inlcap) {
		uint32_t cap = fn->inlcap ? fn->inlcap * 2 : 8;
		struct binl *ni = realloc(fn->inl, cap * sizeof *ni);
		if (ni == NULL)
			return pclni_seterr(err, PCLN_ENOMEM, -1,
			    "add inline %s: out of memory", name);
		fn->inl = ni;
		fn->inlcap = cap;
	}
	id = pclni_pool_add(&b->names, name, strlen(name) + 1, NULL);
	if (id < 0)
		return pclni_seterr(err, id == -1 ? PCLN_ENOMEM : PCLN_ERANGE,
		    -1, "add inline %s: %s", name, id == -1 ?
		    "out of memory" : "names exceed 2 GiB");
	b->names_total += strlen(name) + 1;
	r = &fn->inl[fn->ninl];
	r->parent = (int32_t)parent;
	r->name = (uint32_t)id;
	r->file = (int32_t)file;
	r->line = line;
	return (long)fn->ninl++;
}

long
pcln_builder_add_file(pcln_builder *b, const char *path, pcln_err *err)
{
	long id;

	pclni_clearerr(err);
	if (b == NULL || path == NULL)
		return pclni_seterr(err, PCLN_EINVAL, -1, "add file: NULL %s",
		    b == NULL ? "builder" : "path");
	id = pclni_pool_add(&b->files, path, strlen(path) + 1, NULL);
	if (id < 0)
		return pclni_seterr(err, id == -1 ? PCLN_ENOMEM : PCLN_ERANGE,
		    -1, "file %s: %s", path, id == -1 ? "out of memory" :
		    "file names exceed 2 GiB");
	if (id >= INT32_MAX - 1)
		return pclni_seterr(err, PCLN_ERANGE, -1,
		    "file %s: too many files", path);
	return id + 1;
}

/* Find function F's table TABLE; with CREATE, make room for a pcdata
 * index not seen yet.  NULL (and ERR filled) on a bad argument. */
static struct ptab *
get_tab(pcln_builder *b, long f, int table, int create, pcln_err *err)
{
	struct bfunc *fn;
	uint32_t idx;

	if (b == NULL || f < 0 || (size_t)f >= b->nf) {
		pclni_seterr(err, PCLN_EINVAL, -1, "no function handle %ld", f);
		return NULL;
	}
	fn = &b->f[f];
	if (table < 0 || table >= PCLN_TABLE_PCDATA(PCLN_MAX_PCDATA)) {
		pclni_seterr(err, PCLN_ERANGE, -1,
		    "function %ld (%s): table %d, expected 0 to %d", f,
		    fname(b, fn), table, PCLN_TABLE_PCDATA(PCLN_MAX_PCDATA) - 1);
		return NULL;
	}
	if (table < 3)
		return &fn->tab[table];
	idx = (uint32_t)(table - 3);
	if (idx >= fn->npcdata) {
		struct ptab *pd;
		if (!create)
			return NULL;
		pd = realloc(fn->pcdata, (idx + 1) * sizeof *pd);
		if (pd == NULL) {
			pclni_seterr(err, PCLN_ENOMEM, -1,
			    "function %ld (%s): out of memory", f,
			    fname(b, fn));
			return NULL;
		}
		memset(pd + fn->npcdata, 0,
		    (idx + 1 - fn->npcdata) * sizeof *pd);
		fn->pcdata = pd;
		fn->npcdata = idx + 1;
	}
	return &fn->pcdata[idx];
}

/* Check a point's value for table TABLE. */
static int
check_value(pcln_builder *b, long f, int table, uint32_t pcoff,
    int32_t value, pcln_err *err)
{
	if (table == PCLN_TABLE_PCFILE &&
	    (value < 1 || (size_t)value > b->files.n))
		return pclni_seterr(err, PCLN_ERANGE, -1,
		    "function %ld (%s): pcfile value %" PRId32 " at +0x%"
		    PRIx32 " is not a file number 1..%zu", f,
		    fname(b, &b->f[f]), value, pcoff, b->files.n);
	return 0;
}

static int
push_point(struct ptab *t, uint32_t off, int32_t value)
{
	if (t->n == t->cap) {
		uint32_t cap = t->cap ? t->cap * 2 : 4;
		struct point *p;
		if (t->cap > UINT32_MAX / 2 ||
		    (p = realloc(t->pt, (size_t)cap * sizeof *p)) == NULL)
			return -1;
		t->pt = p;
		t->cap = cap;
	}
	t->pt[t->n].off = off;
	t->pt[t->n].value = value;
	t->n++;
	return 0;
}

int
pcln_builder_add_point(pcln_builder *b, long f, int table, uint64_t pcoff,
    int32_t value, pcln_err *err)
{
	struct ptab *t;
	struct bfunc *fn;

	pclni_clearerr(err);
	if ((t = get_tab(b, f, table, 1, err)) == NULL)
		return -1;
	fn = &b->f[f];
	if (pcoff >= fn->size || pcoff % b->t.quantum != 0)
		return pclni_seterr(err, PCLN_ERANGE, -1,
		    "function %ld (%s): table %d point at +0x%" PRIx64
		    ", expected a multiple of %u below the size 0x%" PRIx32,
		    f, fname(b, fn), table, pcoff, b->t.quantum, fn->size);
	if (t->n > 0 && pcoff <= t->pt[t->n - 1].off)
		return pclni_seterr(err, PCLN_EORDER, -1,
		    "function %ld (%s): table %d point at +0x%" PRIx64
		    " not after the previous point at +0x%" PRIx32, f,
		    fname(b, fn), table, pcoff, t->pt[t->n - 1].off);
	if (table == PCLN_TABLE_PCFILE && t->n == 0 && pcoff != 0)
		return pclni_seterr(err, PCLN_ERANGE, -1,
		    "function %ld (%s): first pcfile point at +0x%" PRIx64
		    ", expected +0 (no file is -1)", f, fname(b, fn), pcoff);
	if (check_value(b, f, table, (uint32_t)pcoff, value, err) != 0)
		return -1;
	if (push_point(t, (uint32_t)pcoff, value) != 0)
		return pclni_seterr(err, PCLN_ENOMEM, -1,
		    "function %ld (%s): out of memory", f, fname(b, fn));
	return 0;
}

int
pcln_builder_set_table_bytes(pcln_builder *b, long f, int table,
    const uint8_t *bytes, size_t len, pcln_err *err)
{
	struct pclnrt_pcstep s;
	struct ptab *t, nt = { NULL, 0, 0 };
	struct bfunc *fn;
	int rc;

	pclni_clearerr(err);
	if ((t = get_tab(b, f, table, 1, err)) == NULL)
		return -1;
	fn = &b->f[f];
	if (len > 0 && bytes == NULL)
		return pclni_seterr(err, PCLN_EINVAL, -1,
		    "function %ld (%s): table %d: NULL bytes", f, fname(b, fn),
		    table);
	if (len == 0) {		/* an empty table is an absent one */
		t->n = 0;
		return 0;
	}
	pclnrt_pcstep_init(&s, bytes, bytes + len, 0, b->t.quantum);
	while ((rc = pclnrt_pcstep(&s)) == 1) {
		if (s.nextpc > fn->size) {
			free(nt.pt);
			return pclni_seterr(err, PCLN_EPCTAB,
			    (int64_t)(s.p - bytes),
			    "function %ld (%s): table %d row ending at +0x%"
			    PRIx64 " (byte 0x%tx) beyond the size 0x%" PRIx32,
			    f, fname(b, fn), table, s.nextpc, s.p - bytes,
			    fn->size);
		}
		if (s.nextpc == s.pc)
			continue;	/* an empty row holds nowhere */
		if (check_value(b, f, table, (uint32_t)s.pc, s.value, err) != 0 ||
		    push_point(&nt, (uint32_t)s.pc, s.value) != 0) {
			free(nt.pt);
			if (err != NULL && err->code == PCLN_OK)
				pclni_seterr(err, PCLN_ENOMEM, -1,
				    "function %ld: out of memory", f);
			return -1;
		}
	}
	if (rc < 0) {
		free(nt.pt);
		return pclni_seterr(err, rc == -1 ? PCLN_ETRUNC : PCLN_EVARINT,
		    (int64_t)(s.p - bytes), "function %ld (%s): table %d: %s "
		    "at byte 0x%tx of %zu, expected a terminated table", f,
		    fname(b, fn), table, rc == -1 ? "runs off the end" :
		    "varint overflow", s.p - bytes, len);
	}
	if ((size_t)(s.p - bytes) != len || s.nextpc != fn->size) {
		free(nt.pt);
		if ((size_t)(s.p - bytes) != len)
			return pclni_seterr(err, PCLN_EPCTAB,
			    (int64_t)(s.p - bytes), "function %ld (%s): table "
			    "%d ends at byte 0x%tx, expected the end %zu", f,
			    fname(b, fn), table, s.p - bytes, len);
		return pclni_seterr(err, PCLN_EPCTAB, (int64_t)len,
		    "function %ld (%s): table %d covers [0, 0x%" PRIx64
		    "), expected [0, 0x%" PRIx32 ")", f, fname(b, fn), table,
		    s.nextpc, fn->size);
	}
	if (table == PCLN_TABLE_PCFILE && nt.n > 0 && nt.pt[0].off != 0) {
		free(nt.pt);
		return pclni_seterr(err, PCLN_ERANGE, 0, "function %ld (%s): "
		    "pcfile table starts with no file", f, fname(b, fn));
	}
	free(t->pt);
	*t = nt;
	return 0;
}

int
pcln_builder_set_checkpoints(pcln_builder *b, unsigned stride, pcln_err *err)
{
	pclni_clearerr(err);
	if (b == NULL)
		return pclni_seterr(err, PCLN_EINVAL, -1,
		    "set checkpoints: NULL builder");
	if (stride > PCLN_CKPT_STRIDE_MAX)
		return pclni_seterr(err, PCLN_EINVAL, -1, "set checkpoints: "
		    "stride %u, expected 0 (none) to %u", stride,
		    PCLN_CKPT_STRIDE_MAX);
	b->ckstride = stride;
	return 0;
}

int
pcln_builder_set_funcdata(pcln_builder *b, long f, unsigned idx,
    uint64_t value, pcln_err *err)
{
	struct bfunc *fn;

	pclni_clearerr(err);
	if (b == NULL || f < 0 || (size_t)f >= b->nf)
		return pclni_seterr(err, PCLN_EINVAL, -1,
		    "no function handle %ld", f);
	fn = &b->f[f];
	if (idx >= PCLN_MAX_FUNCDATA)
		return pclni_seterr(err, PCLN_ERANGE, -1,
		    "function %ld (%s): funcdata index %u, expected below %d",
		    f, fname(b, fn), idx, PCLN_MAX_FUNCDATA);
	if (b->t.ptrsize == 4 && value > UINT32_MAX)
		return pclni_seterr(err, PCLN_ERANGE, -1,
		    "function %ld (%s): funcdata %u value 0x%" PRIx64
		    " does not fit in 4 bytes", f, fname(b, fn), idx, value);
	if (idx >= fn->nfuncdata) {
		uint64_t *fd = realloc(fn->funcdata, (idx + 1) * sizeof *fd);
		if (fd == NULL)
			return pclni_seterr(err, PCLN_ENOMEM, -1,
			    "function %ld (%s): out of memory", f,
			    fname(b, fn));
		memset(fd + fn->nfuncdata, 0,
		    (idx + 1 - fn->nfuncdata) * sizeof *fd);
		fn->funcdata = fd;
		fn->nfuncdata = idx + 1;
	}
	fn->funcdata[idx] = value;
	return 0;
}

const pcln_build_stats *
pcln_builder_stats(const pcln_builder *b)
{
	return b == NULL ? NULL : &b->stats;
}

const pcln_func_layout *
pcln_builder_layout(const pcln_builder *b, long f)
{
	if (b == NULL || f < 0 || (size_t)f >= b->nlayout)
		return NULL;
	return &b->layout[f];
}

/* --- writing ---------------------------------------------------------- */

/* Encode table T of a function of SIZE bytes into OUT (replacing its
 * contents): rows of (zig-zag value delta, pc delta / Q), equal
 * consecutive values merged, -1 before a first point above 0, the last row
 * running to SIZE, then the terminating 0.  An empty T encodes as nothing
 * (an absent table).  *ROWS gets the number of rows. */
static int
encode(const struct ptab *t, uint32_t size, unsigned q, struct bbuf *out,
    size_t *rows)
{
	int32_t prev = -1, val;
	uint32_t start = 0, end, i = 0;
	size_t n = 0;

	out->len = 0;
	*rows = 0;
	if (t->n == 0)
		return 0;
	if (bbuf_reserve(out, ((size_t)t->n + 1) * 2 * PCLN_VARINT_MAX + 1))
		return -1;
	if (t->pt[0].off > 0)
		val = -1;
	else
		val = t->pt[i++].value;
	for (;;) {
		while (i < t->n && t->pt[i].value == val)
			i++;
		end = i < t->n ? t->pt[i].off : size;
		out->len += pcln_put_uvarint(out->p + out->len,
		    pcln_zigzag((int32_t)((uint32_t)val - (uint32_t)prev)));
		out->len += pcln_put_uvarint(out->p + out->len,
		    (end - start) / q);
		n++;
		prev = val;
		if (i == t->n)
			break;
		start = t->pt[i].off;
		val = t->pt[i++].value;
	}
	out->p[out->len++] = 0;
	*rows = n;
	return 0;
}

struct skey {
	uint64_t entry;
	uint32_t h;		/* handle: the tiebreak that makes it total */
};

static int
skey_cmp(const void *a, const void *b)
{
	const struct skey *x = a, *y = b;

	if (x->entry != y->entry)
		return x->entry < y->entry ? -1 : 1;
	return x->h < y->h ? -1 : x->h > y->h;
}

/* Size of a Func record with NPCDATA and NFUNCDATA slots. */
static uint64_t
func_rec_size(unsigned ps, uint32_t npcdata, uint32_t nfuncdata)
{
	if (nfuncdata == 0)
		return PCLN_FUNC_PCDATA(ps, (uint64_t)npcdata);
	return pclni_funcdata_off(ps, npcdata, nfuncdata);
}

/* Everything one write needs, freed together. */
struct wstate {
	struct skey *key;	/* [nf] sorted */
	uint32_t *funcoff;	/* [nf] by sorted position */
	uint32_t *tabid;	/* per table, sorted order: pool item + 1 */
	size_t *tabbase;	/* [nf] index of a function's first table */
	struct pclni_pool tabs;
	struct bbuf scratch;
	struct ckinfo *ck;	/* per table pool item: its checkpoints */
	size_t ckcap;
	struct ckstate *cks;	/* the checkpoints of every distinct table */
	size_t ncks, ckscap;
	uint32_t *ckblk;	/* [nf + 1] PCCKPT block offsets */
	pcln_func_layout *layout;
	uint8_t *buf;
};

/* The checkpoints of one distinct table (PCCKPT): states W->cks[first
 * .. first + count - 1]. */
struct ckinfo {
	size_t first;
	uint32_t count;		/* 0: none (at most STRIDE rows) */
	uint16_t form;		/* PCLN_CKPT_NARROW or _WIDE */
};

struct ckstate {
	uint32_t pcoff, byteoff;
	int32_t value;
};

/* Record in W->cks the checkpoints of the table T[0..LEN) of ROWS rows
 * (the state after every STRIDE rows but the last) and describe them in
 * *CI.  The pc offsets come from the bytes alone (the table covers
 * exactly its function), so equal tables get equal checkpoints.  Narrow
 * if every pc and byte offset fits 16 bits. */
static int
ckpt_table(struct wstate *w, const uint8_t *t, size_t len, size_t rows,
    unsigned q, unsigned stride, struct ckinfo *ci)
{
	struct pclnrt_pcstep s;
	size_t r = 0;
	uint64_t span = 0;

	memset(ci, 0, sizeof *ci);
	if (stride == 0 || rows <= stride)
		return 0;
	ci->count = (uint32_t)((rows - 1) / stride);
	ci->first = w->ncks;
	if (pclni_grow(&w->cks, &w->ckscap, w->ncks + ci->count,
	    sizeof *w->cks) != 0)
		return -1;
	pclnrt_pcstep_init(&s, t, t + len, 0, q);
	while (pclnrt_pcstep(&s) == 1) {
		span = s.nextpc;
		if (++r % stride != 0 || r >= rows)
			continue;
		w->cks[w->ncks].pcoff = (uint32_t)s.nextpc;
		w->cks[w->ncks].byteoff = (uint32_t)(s.p - t);
		w->cks[w->ncks].value = s.value;
		w->ncks++;
	}
	/* The table's pc span is its function's size. */
	ci->form = span <= 0x10000 && len <= 0x10000 ? PCLN_CKPT_NARROW :
	    PCLN_CKPT_WIDE;
	return w->ncks == ci->first + ci->count ? 0 : -3;
}

/* Write the arrays of the checkpoints CI at P; return their size. */
static size_t
ckpt_arrays(const struct wstate *w, const struct ckinfo *ci, uint8_t *p,
    int big)
{
	unsigned wd = ci->form == PCLN_CKPT_NARROW ? 2 : 4;
	size_t aw = (size_t)((ci->count * wd + 3) & ~3u), k;
	const struct ckstate *c = &w->cks[ci->first];

	for (k = 0; k < ci->count; k++) {
		if (wd == 2) {
			pclni_store16(p + 2 * k, c[k].pcoff, big);
			pclni_store16(p + aw + 2 * k, c[k].byteoff, big);
		} else {
			pclni_store32(p + 4 * k, c[k].pcoff, big);
			pclni_store32(p + aw + 4 * k, c[k].byteoff, big);
		}
		pclni_store32(p + 2 * aw + 4 * k, (uint32_t)c[k].value, big);
	}
	return (size_t)PCLN_CKPT_ARRAYS(ci->count, wd);
}

/* FUNCINDEX (runtime/pclnrt_format.h): the builder aims for lookups of
 * at most FIDX_SCAN_GOAL forward steps (so a lookup reads one 20-byte
 * bucket record and at most 10 functab entries, 3 to 4 cache lines), in
 * an index of at most FIDX_BUDGET(rest) bytes, REST being the bytes of
 * the blob without the index: 1/64 of it, so the index is under 1.6 % of
 * the blob.  Asked for explicitly (PCLN_WRITE_INDEX) it may take
 * FIDX_BUDGET_FORCED, for texts of very uneven density. */
#define FIDX_SCAN_GOAL		8u
#define FIDX_BUDGET(rest)	((uint64_t)(rest) / 64u)
#define FIDX_BUDGET_FORCED(rest) (4096u + 2u * (uint64_t)(rest))

/* One pass over the N sorted functions (entries in KEY, the text ending
 * at MAXPC) for sub-buckets of 2^S bytes in NB buckets: the largest
 * forward scan any pc needs goes to *MAXSCAN, and, if OUT is not NULL,
 * the bucket records to OUT.  -1 if a bucket's deltas overflow a byte or
 * the scan exceeds PCLN_FIDX_SCAN_LIMIT.  O(N + 16 NB). */
static int
fidx_sweep(const struct skey *key, size_t n, uint64_t maxpc, unsigned s,
    uint64_t nb, uint8_t *out, int big, uint32_t *maxscan)
{
	uint64_t minpc = key[0].entry, j, nsub = nb * PCLN_FIDX_NSUB;
	uint64_t sub = (uint64_t)1 << s;
	size_t i = 0, k, base = 0;

	*maxscan = 0;
	for (j = 0; j < nsub; j++) {
		uint64_t lo = minpc + (j << s), last = lo + (sub - 1);
		if (lo >= maxpc)
			last = lo;	/* past the text: never looked up */
		while (i + 1 < n && key[i + 1].entry <= lo)
			i++;
		for (k = i; k + 1 < n && key[k + 1].entry <= last; k++)
			;
		if (k - i > PCLN_FIDX_SCAN_LIMIT)
			return -1;
		if (k - i > *maxscan)
			*maxscan = (uint32_t)(k - i);
		if (j % PCLN_FIDX_NSUB == 0) {
			base = i;
			if (out != NULL)
				pclni_store32(out + PCLN_FIDX_BUCKET *
				    (j / PCLN_FIDX_NSUB), (uint32_t)base, big);
		}
		if (i - base > 255)
			return -1;
		if (out != NULL)
			out[PCLN_FIDX_BUCKET * (j / PCLN_FIDX_NSUB) + 4 +
			    j % PCLN_FIDX_NSUB] = (uint8_t)(i - base);
	}
	return 0;
}

/* Choose the sub-bucket shift: the largest whose scan is at most
 * FIDX_SCAN_GOAL, or, if that would outgrow BUDGET bytes, the smallest
 * scan within it.  Returns the index's size in bytes (0: no
 * usable index) with *SHIFT and *NB set. */
static uint64_t
fidx_choose(const struct skey *key, size_t n, uint64_t maxpc,
    uint64_t budget, unsigned *shift, uint64_t *nb)
{
	uint64_t range, avg, size = 0;
	unsigned s, start = 0;
	uint32_t scan;

	if (n == 0 || maxpc <= key[0].entry)
		return 0;
	range = maxpc - key[0].entry;
	/* Start with sub-buckets ~16 average functions wide. */
	for (avg = range / n; start < PCLN_FIDX_SHIFT_MAX &&
	    ((uint64_t)1 << start) < avg * 16; start++)
		;
	for (s = start + 1; s-- > 0;) {
		uint64_t b = ((range - 1) >> (s + 4)) + 1;
		if (b > UINT32_MAX || PCLN_FIDX_HDR + PCLN_FIDX_BUCKET * b >
		    budget)
			break;
		if (fidx_sweep(key, n, maxpc, s, b, NULL, 0, &scan) != 0)
			continue;
		*shift = s;
		*nb = b;
		size = PCLN_FIDX_HDR + PCLN_FIDX_BUCKET * b;
		if (scan <= FIDX_SCAN_GOAL)
			break;
	}
	return size;
}

/* Write the trailer directory entry (TAG, OFF, SIZE) at P; return its
 * size. */
static size_t
put_dirent(uint8_t *p, uint32_t tag, uint64_t off, uint64_t size, int big)
{
	pclni_store32(p + PCLN_DIRENT_TAG, tag, big);
	pclni_store32(p + PCLN_DIRENT_OFF, (uint32_t)off, big);
	pclni_store32(p + PCLN_DIRENT_SIZEF, (uint32_t)size, big);
	return PCLN_DIRENT_SIZE;
}

static void
wstate_free(struct wstate *w)
{
	free(w->key);
	free(w->funcoff);
	free(w->tabid);
	free(w->tabbase);
	pclni_pool_free(&w->tabs);
	free(w->scratch.p);
	free(w->ck);
	free(w->cks);
	free(w->ckblk);
	free(w->layout);
	free(w->buf);
}

#define BADMATH(what, off, end) \
	do { \
		wstate_free(&w); \
		return pclni_seterr(err, PCLN_EMATH, (int64_t)(off), \
		    "bad math in %s: off=%" PRIu64 " but end=%" PRIu64, \
		    what, (uint64_t)(off), (uint64_t)(end)); \
	} while (0)

int
pcln_builder_write(pcln_builder *b, unsigned flags, uint8_t **out,
    size_t *len, pcln_err *err)
{
	struct wstate w;
	pcln_build_stats st;
	unsigned ps, q;
	int big, trailer;
	size_t n, k, j, ntab = 0, nfile;
	uint64_t pos, hdr_end, names_start, tables_start, filetab_off;
	uint64_t go12size = 0, sect_off = 0, dir_off = 0, foot_off = 0, total;
	uint64_t inl_off = 0, inl_size = 0, ninl = 0;
	uint64_t fi_off = 0, fi_size = 0, fi_nb = 0;
	uint64_t ck_off = 0, ck_size = 0, ck_ndesc = 0;
	unsigned fi_shift = 0;
	uint32_t nsect = 1, fi_scan = 0;
	uint64_t c, funcs_end, sum;
	uint8_t *buf;
	pcln_err verr;

	pclni_clearerr(err);
	if (b == NULL || out == NULL || len == NULL)
		return pclni_seterr(err, PCLN_EINVAL, -1, "write: NULL argument");
	if (flags & ~(unsigned)(PCLN_WRITE_GO12 | PCLN_WRITE_INDEX |
	    PCLN_WRITE_NOINDEX) || (flags & PCLN_WRITE_INDEX &&
	    flags & PCLN_WRITE_NOINDEX))
		return pclni_seterr(err, PCLN_EINVAL, -1,
		    "write: unknown flags 0x%x", flags);
	memset(&w, 0, sizeof w);
	memset(&st, 0, sizeof st);
	pclni_pool_init(&w.tabs);
	ps = b->t.ptrsize;
	q = b->t.quantum;
	big = b->t.bigendian;
	trailer = !(flags & PCLN_WRITE_GO12);
	n = b->nf;
	nfile = b->files.n;

	/* Sort by entry (the handle breaks ties, so the order is total and
	 * the output deterministic), then reject overlaps. */
	w.key = malloc((n ? n : 1) * sizeof *w.key);
	w.funcoff = malloc((n ? n : 1) * sizeof *w.funcoff);
	w.tabbase = malloc((n + 1) * sizeof *w.tabbase);
	w.layout = calloc(n ? n : 1, sizeof *w.layout);
	if (!w.key || !w.funcoff || !w.tabbase || !w.layout)
		goto nomem;
	for (k = 0; k < n; k++) {
		w.key[k].entry = b->f[k].entry;
		w.key[k].h = (uint32_t)k;
	}
	qsort(w.key, n, sizeof *w.key, skey_cmp);
	for (k = 1; k < n; k++) {
		const struct bfunc *p = &b->f[w.key[k - 1].h];
		const struct bfunc *f = &b->f[w.key[k].h];
		if (p->entry + p->size > f->entry) {
			pclni_seterr(err, PCLN_EOVERLAP, -1,
			    "function %" PRIu32 " (%s) [0x%" PRIx64 ", 0x%"
			    PRIx64 ") overlaps function %" PRIu32 " (%s) [0x%"
			    PRIx64 ", 0x%" PRIx64 ")", w.key[k - 1].h,
			    fname(b, p), p->entry, p->entry + p->size,
			    w.key[k].h, fname(b, f), f->entry,
			    f->entry + f->size);
			wstate_free(&w);
			return -1;
		}
	}

	/* Place the header, functab and Func records. */
	hdr_end = PCLN_HDR_END(ps, (uint64_t)n);
	st.header = 8 + ps;
	st.functab = hdr_end - st.header;
	pos = pclni_align(hdr_end, ps);
	st.padding += pos - hdr_end;
	for (k = 0; k < n; k++) {
		const struct bfunc *f = &b->f[w.key[k].h];
		uint64_t rs = func_rec_size(ps, f->npcdata, f->nfuncdata);
		if (pos > INT32_MAX)
			goto range;
		w.funcoff[k] = (uint32_t)pos;
		w.tabbase[k] = ntab;
		ntab += 3 + (size_t)f->npcdata;
		st.funcs += rs;
		st.padding += pclni_align(rs, ps) - rs;
		pos += pclni_align(rs, ps);
	}
	w.tabbase[n] = ntab;
	funcs_end = pos;
	names_start = pos;
	st.names = b->names.len + b->files.len;
	st.nnames = n;
	st.nnames_unique = b->names.n;
	st.dedupe_saved = b->names_total - b->names.len;
	pos += st.names;
	tables_start = pos;

	/* Encode and deduplicate every table. */
	w.tabid = calloc(ntab ? ntab : 1, sizeof *w.tabid);
	if (w.tabid == NULL)
		goto nomem;
	for (k = 0; k < n; k++) {
		const struct bfunc *f = &b->f[w.key[k].h];
		for (j = 0; j < 3 + (size_t)f->npcdata; j++) {
			const struct ptab *t = j < 3 ? &f->tab[j] :
			    &f->pcdata[j - 3];
			size_t rows;
			long id;
			int isnew;
			if (encode(t, f->size, q, &w.scratch, &rows) != 0)
				goto nomem;
			if (w.scratch.len == 0)
				continue;
			st.ntables++;
			id = pclni_pool_add(&w.tabs, w.scratch.p,
			    w.scratch.len, &isnew);
			if (id == -1)
				goto nomem;
			if (id < 0)
				goto range;
			w.tabid[w.tabbase[k] + j] = (uint32_t)id + 1;
			if (!isnew) {
				st.dedupe_saved += w.scratch.len;
				continue;
			}
			st.ntables_unique++;
			st.rows += rows;
			if (trailer) {
				int rc;
				if (pclni_grow(&w.ck, &w.ckcap, (size_t)id + 1,
				    sizeof *w.ck) != 0)
					goto nomem;
				rc = ckpt_table(&w, w.scratch.p, w.scratch.len,
				    rows, q, b->ckstride, &w.ck[id]);
				if (rc == -1)
					goto nomem;
				if (rc == -2)
					goto range;
				if (rc != 0)
					BADMATH("checkpoints", w.ncks,
					    w.ck[id].first);
			}
			if (j == 0)
				st.pcsp += w.scratch.len;
			else if (j == 1)
				st.pcfile += w.scratch.len;
			else if (j == 2)
				st.pcln += w.scratch.len;
			else
				st.pcdata += w.scratch.len;
		}
	}
	pos += w.tabs.len;
	filetab_off = pclni_align(pos, 4);
	st.padding += filetab_off - pos;
	st.filetab = 4 * (nfile + 1);
	go12size = filetab_off + st.filetab;
	pos = go12size;
	for (k = 0; k < n; k++)
		ninl += b->f[k].ninl;
	if (trailer) {
		sect_off = pclni_align(pos, PCLN_SECT_ALIGN);
		dir_off = pclni_align(sect_off + 4 * (uint64_t)n,
		    PCLN_SECT_ALIGN);
		if (ninl > 0) {
			inl_off = dir_off;
			inl_size = 4 * ((uint64_t)n + 1) +
			    PCLN_INL_SIZE * ninl;
			dir_off = pclni_align(inl_off + inl_size,
			    PCLN_SECT_ALIGN);
			nsect++;
		}
		if (!(flags & PCLN_WRITE_NOINDEX) && (flags & PCLN_WRITE_INDEX ||
		    n >= PCLN_INDEX_MIN_FUNCS) && n > 0) {
			const struct bfunc *l = &b->f[w.key[n - 1].h];
			uint64_t rest = dir_off + (nsect + 1) *
			    PCLN_DIRENT_SIZE + PCLN_FOOTER_SIZE;
			fi_size = fidx_choose(w.key, n, l->entry + l->size,
			    flags & PCLN_WRITE_INDEX ? FIDX_BUDGET_FORCED(rest) :
			    FIDX_BUDGET(rest), &fi_shift, &fi_nb);
		}
		if (fi_size > 0) {
			fi_off = dir_off;
			dir_off = pclni_align(fi_off + fi_size,
			    PCLN_SECT_ALIGN);
			nsect++;
		}
		/* PCCKPT: a block per function with long tables. */
		if (w.ncks > 0) {
			uint64_t blk = 0;
			if ((w.ckblk = malloc((n + 1) * sizeof *w.ckblk)) ==
			    NULL)
				goto nomem;
			for (k = 0; k < n; k++) {
				uint64_t nd = 0, arr = 0;
				w.ckblk[k] = (uint32_t)blk;
				for (j = w.tabbase[k]; j < w.tabbase[k + 1];
				    j++) {
					const struct ckinfo *ci;
					if (w.tabid[j] == 0 || (ci = &w.ck[
					    w.tabid[j] - 1])->count == 0)
						continue;
					nd++;
					arr += PCLN_CKPT_ARRAYS(ci->count,
					    ci->form == PCLN_CKPT_NARROW ? 2 : 4);
				}
				if (nd > 0)
					blk += 4 + PCLN_CKPT_DESC * nd + arr;
				ck_ndesc += nd;
				if (blk > INT32_MAX)
					goto range;
			}
			w.ckblk[n] = (uint32_t)blk;
			st.nckpt = 0;
			for (k = 0; k < ntab; k++)
				if (w.tabid[k] != 0)
					st.nckpt += w.ck[w.tabid[k] - 1].count;
			ck_off = dir_off;
			ck_size = PCLN_CKPT_HDR + 4 * ((uint64_t)n + 1) + blk;
			dir_off = pclni_align(ck_off + ck_size,
			    PCLN_SECT_ALIGN);
			nsect++;
		}
		foot_off = dir_off + nsect * PCLN_DIRENT_SIZE;
		pos = foot_off + PCLN_FOOTER_SIZE;
		st.findex = fi_size;
		st.ckpt = ck_size;
		st.nckdesc = ck_ndesc;
		st.trailer = 4 * n + inl_size + fi_size + ck_size +
		    nsect * PCLN_DIRENT_SIZE + PCLN_FOOTER_SIZE;
		st.padding += pos - go12size - st.trailer;
	}
	total = pos;
	if (total > INT32_MAX)
		goto range;
	st.nfunc = n;
	st.nfile = nfile;
	st.total = (size_t)total;
	sum = st.header + st.functab + st.funcs + st.names + st.filetab +
	    st.pcsp + st.pcfile + st.pcln + st.pcdata + st.padding + st.trailer;
	if (sum != total)
		BADMATH("stats", sum, total);

	if ((w.buf = calloc(1, (size_t)total)) == NULL)
		goto nomem;
	buf = w.buf;

	/* Header, functab, sentinel, file table offset. */
	pclni_store32(buf, PCLN_GO12_MAGIC, big);
	buf[PCLN_HDR_QUANTUM] = (uint8_t)q;
	buf[PCLN_HDR_PTRSIZE] = (uint8_t)ps;
	pclni_storeptr(buf + PCLN_HDR_NFUNC, n, ps, big);
	c = PCLN_FUNCTAB_OFF(ps);
	for (k = 0; k < n; k++) {
		pclni_storeptr(buf + c, b->f[w.key[k].h].entry, ps, big);
		c += ps;
		pclni_storeptr(buf + c, w.funcoff[k], ps, big);
		c += ps;
	}
	if (c != PCLN_FTAB_END(ps, (uint64_t)n))
		BADMATH("functab", c, PCLN_FTAB_END(ps, (uint64_t)n));
	if (n > 0) {
		const struct bfunc *l = &b->f[w.key[n - 1].h];
		pclni_storeptr(buf + c, l->entry + l->size, ps, big);
	}
	c += ps;
	pclni_store32(buf + c, (uint32_t)filetab_off, big);
	c += 4;
	if (c != hdr_end)
		BADMATH("functab header", c, hdr_end);

	/* Func records. */
	for (k = 0; k < n; k++) {
		const struct bfunc *f = &b->f[w.key[k].h];
		pcln_func_layout *lo = &w.layout[w.key[k].h];
		uint64_t off = w.funcoff[k], want;
		uint32_t tab[3];
		c = pclni_align(c, ps);
		if (c != off)
			BADMATH("functab: Func record start", c, off);
		for (j = 0; j < 3; j++) {
			uint32_t id = w.tabid[w.tabbase[k] + j];
			tab[j] = id ? (uint32_t)tables_start +
			    w.tabs.off[id - 1] : 0;
			lo->tab_off[j] = tab[j];
			lo->tab_len[j] = id ? w.tabs.size[id - 1] : 0;
		}
		lo->entry = f->entry;
		lo->size = f->size;
		lo->funcoff = (uint32_t)off;
		pclni_storeptr(buf + c, f->entry, ps, big);
		c += ps;
		pclni_store32(buf + c, (uint32_t)names_start +
		    b->names.off[f->name], big);
		pclni_store32(buf + c + 4, (uint32_t)f->args, big);
		pclni_store32(buf + c + 8, (uint32_t)f->frame, big);
		pclni_store32(buf + c + 12, tab[0], big);
		pclni_store32(buf + c + 16, tab[1], big);
		pclni_store32(buf + c + 20, tab[2], big);
		pclni_store32(buf + c + 24, f->npcdata, big);
		pclni_store32(buf + c + 28, f->nfuncdata, big);
		c += 32;
		for (j = 0; j < f->npcdata; j++) {
			uint32_t id = w.tabid[w.tabbase[k] + 3 + j];
			pclni_store32(buf + c, id ? (uint32_t)tables_start +
			    w.tabs.off[id - 1] : 0, big);
			c += 4;
		}
		if (f->nfuncdata > 0) {
			c = pclni_align(c, ps);
			for (j = 0; j < f->nfuncdata; j++) {
				pclni_storeptr(buf + c, f->funcdata[j], ps,
				    big);
				c += ps;
			}
		}
		want = off + func_rec_size(ps, f->npcdata, f->nfuncdata);
		if (c != want)
			BADMATH("functab: Func record end", c, want);
	}
	c = pclni_align(c, ps);
	if (c != funcs_end)
		BADMATH("functab: end of Func records", c, funcs_end);

	/* Names, then file paths; tables; file table. */
	if (b->names.len)
		memcpy(buf + c, b->names.data, b->names.len);
	c += b->names.len;
	if (b->files.len)
		memcpy(buf + c, b->files.data, b->files.len);
	c += b->files.len;
	if (c != tables_start)
		BADMATH("names", c, tables_start);
	if (w.tabs.len)
		memcpy(buf + c, w.tabs.data, w.tabs.len);
	c += w.tabs.len;
	c = pclni_align(c, 4);
	if (c != filetab_off)
		BADMATH("pc-value tables", c, filetab_off);
	pclni_store32(buf + c, (uint32_t)(nfile + 1), big);
	c += 4;
	for (j = 0; j < nfile; j++) {
		pclni_store32(buf + c, (uint32_t)(names_start + b->names.len +
		    b->files.off[j]), big);
		c += 4;
	}
	if (c != go12size)
		BADMATH("file table", c, go12size);

	/* Trailer. */
	if (trailer) {
		c = pclni_align(c, PCLN_SECT_ALIGN);
		if (c != sect_off)
			BADMATH("trailer: FUNCSIZE", c, sect_off);
		for (k = 0; k < n; k++) {
			pclni_store32(buf + c, b->f[w.key[k].h].size, big);
			c += 4;
		}
		c = pclni_align(c, PCLN_SECT_ALIGN);
		if (ninl > 0) {
			uint64_t idx = 0;
			if (c != inl_off)
				BADMATH("trailer: INLTREE", c, inl_off);
			for (k = 0; k <= n; k++) {
				pclni_store32(buf + c, (uint32_t)idx, big);
				c += 4;
				if (k < n)
					idx += b->f[w.key[k].h].ninl;
			}
			for (k = 0; k < n; k++) {
				const struct bfunc *f = &b->f[w.key[k].h];
				for (j = 0; j < f->ninl; j++) {
					const struct binl *r = &f->inl[j];
					pclni_store32(buf + c + PCLN_INL_PARENT,
					    (uint32_t)r->parent, big);
					pclni_store32(buf + c + PCLN_INL_NAME,
					    (uint32_t)names_start +
					    b->names.off[r->name], big);
					pclni_store32(buf + c + PCLN_INL_FILE,
					    (uint32_t)r->file, big);
					pclni_store32(buf + c + PCLN_INL_LINE,
					    (uint32_t)r->line, big);
					c += PCLN_INL_SIZE;
				}
			}
			if (c != inl_off + inl_size)
				BADMATH("trailer: INLTREE end", c,
				    inl_off + inl_size);
			c = pclni_align(c, PCLN_SECT_ALIGN);
		}
		if (fi_size > 0) {
			const struct bfunc *l = &b->f[w.key[n - 1].h];
			if (c != fi_off)
				BADMATH("trailer: FUNCINDEX", c, fi_off);
			if (fidx_sweep(w.key, n, l->entry + l->size, fi_shift,
			    fi_nb, buf + c + PCLN_FIDX_HDR, big, &fi_scan) != 0)
				BADMATH("trailer: FUNCINDEX sweep", c, fi_off);
			pclni_store32(buf + c + PCLN_FIDX_SHIFT, fi_shift, big);
			pclni_store32(buf + c + PCLN_FIDX_MAXSCAN, fi_scan, big);
			pclni_store32(buf + c + PCLN_FIDX_NBUCKET,
			    (uint32_t)fi_nb, big);
			c += fi_size;
			if (c != fi_off + fi_size)
				BADMATH("trailer: FUNCINDEX end", c,
				    fi_off + fi_size);
			c = pclni_align(c, PCLN_SECT_ALIGN);
		}
		if (ck_size > 0) {
			uint64_t blocks;
			if (c != ck_off)
				BADMATH("trailer: PCCKPT", c, ck_off);
			pclni_store32(buf + c + PCLN_CKPT_STRIDE, b->ckstride,
			    big);
			pclni_store32(buf + c + PCLN_CKPT_BLKBYTES, w.ckblk[n],
			    big);
			c += PCLN_CKPT_HDR;
			for (k = 0; k <= n; k++)
				pclni_store32(buf + c + 4 * k, w.ckblk[k], big);
			c += 4 * ((uint64_t)n + 1);
			blocks = c;
			for (k = 0; k < n; k++) {
				uint64_t nd = 0, arr;
				if (c != blocks + w.ckblk[k])
					BADMATH("trailer: PCCKPT block", c,
					    blocks + w.ckblk[k]);
				if (w.ckblk[k + 1] == w.ckblk[k])
					continue;
				for (j = w.tabbase[k]; j < w.tabbase[k + 1];
				    j++)
					if (w.tabid[j] != 0 &&
					    w.ck[w.tabid[j] - 1].count > 0)
						nd++;
				pclni_store32(buf + c, (uint32_t)nd, big);
				arr = 4 + PCLN_CKPT_DESC * nd;
				nd = 0;
				for (j = w.tabbase[k]; j < w.tabbase[k + 1];
				    j++) {
					const struct ckinfo *ci;
					uint8_t *de;
					if (w.tabid[j] == 0 || (ci = &w.ck[
					    w.tabid[j] - 1])->count == 0)
						continue;
					de = buf + c + 4 + PCLN_CKPT_DESC *
					    nd++;
					pclni_store16(de, (uint32_t)(j -
					    w.tabbase[k]), big);
					pclni_store16(de + 2, ci->form, big);
					pclni_store32(de + 4, (uint32_t)arr,
					    big);
					pclni_store32(de + 8, ci->count, big);
					arr += ckpt_arrays(&w, ci, buf + c +
					    arr, big);
				}
				c += arr;
			}
			if (c != ck_off + ck_size)
				BADMATH("trailer: PCCKPT end", c,
				    ck_off + ck_size);
			c = pclni_align(c, PCLN_SECT_ALIGN);
		}
		if (c != dir_off)
			BADMATH("trailer: directory", c, dir_off);
		c += put_dirent(buf + c, PCLN_SECT_FUNCSIZE, sect_off, 4 * n,
		    big);
		if (ninl > 0)
			c += put_dirent(buf + c, PCLN_SECT_INLTREE, inl_off,
			    inl_size, big);
		if (fi_size > 0)
			c += put_dirent(buf + c, PCLN_SECT_FUNCINDEX, fi_off,
			    fi_size, big);
		if (ck_size > 0)
			c += put_dirent(buf + c, PCLN_SECT_PCCKPT, ck_off,
			    ck_size, big);
		if (c != foot_off)
			BADMATH("trailer: footer", c, foot_off);
		pclni_store32(buf + c + PCLN_FOOTER_VERSION,
		    PCLN_TRAILER_VERSION, big);
		pclni_store32(buf + c + PCLN_FOOTER_GO12SIZE,
		    (uint32_t)go12size, big);
		pclni_store32(buf + c + PCLN_FOOTER_DIROFF, (uint32_t)dir_off,
		    big);
		pclni_store32(buf + c + PCLN_FOOTER_NSECT, nsect, big);
		memcpy(buf + c + PCLN_FOOTER_MAGIC, PCLN_TRAILER_MAGIC, 8);
		pclni_store64(buf + c + PCLN_FOOTER_CHECKSUM,
		    XXH64(buf, (size_t)total - 16, 0), 1);
		c += PCLN_FOOTER_SIZE;
	}
	if (c != total)
		BADMATH("blob end", c, total);

	/* The last word: the verifier must accept what we wrote. */
	if (pcln_verify(buf, (size_t)total, &verr) != 0) {
		wstate_free(&w);
		return pclni_seterr(err, PCLN_EMATH, verr.offset,
		    "bad math: written blob fails verification: %s",
		    verr.msg);
	}

	*out = w.buf;
	*len = (size_t)total;
	w.buf = NULL;
	free(b->layout);
	b->layout = w.layout;
	b->nlayout = n;
	w.layout = NULL;
	b->stats = st;
	wstate_free(&w);
	return 0;

nomem:
	wstate_free(&w);
	return pclni_seterr(err, PCLN_ENOMEM, -1, "write: out of memory");
range:
	wstate_free(&w);
	return pclni_seterr(err, PCLN_ERANGE, -1,
	    "write: blob would exceed 2 GiB; offsets must fit int32");
}
