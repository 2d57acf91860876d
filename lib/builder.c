/* builder.c -- the builder's model: collect functions, files, inlined
 * calls and pc-value points, checking each as it comes.  Writing the blob
 * is build_write.c's (the Go 1.2 part) and build_trailer.c's (the
 * trailer); build.h has the structures they share.
 *
 * Memory: one record per function (about 200 bytes), each non-empty
 * table in its final encoding (a few bytes a row; struct ptab), interned
 * names.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "build.h"

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
			free(f->tab[j].p);
		for (j = 0; j < f->npcdata; j++)
			free(f->pcdata[j].p);
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

int
pclni_builder_set_entry(pcln_builder *b, long f, uint64_t entry)
{
	uint64_t maxpc;
	struct bfunc *fn;

	if (b == NULL || f < 0 || (size_t)f >= b->nf)
		return -1;
	fn = &b->f[f];
	maxpc = b->t.ptrsize == 8 ? UINT64_MAX : UINT32_MAX;
	if (entry % b->t.quantum != 0 || entry > maxpc ||
	    fn->size > maxpc - entry)
		return -1;
	fn->entry = entry;
	return 0;
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
		    "expected -1 to %ld", name, f, pclni_build_fname(b, fn), parent,
		    (long)fn->ninl - 1);
	if (file < 1 || (size_t)file > b->files.n)
		return pclni_seterr(err, PCLN_ERANGE, -1,
		    "add inline %s to function %ld (%s): file %ld, expected "
		    "1 to %zu", name, f, pclni_build_fname(b, fn), file, b->files.n);
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
	if (table < 0 || table >= PCLN_TAB_PCDATA(PCLN_MAX_PCDATA)) {
		pclni_seterr(err, PCLN_ERANGE, -1,
		    "function %ld (%s): table %d, expected 0 to %d", f,
		    pclni_build_fname(b, fn), table, PCLN_TAB_PCDATA(PCLN_MAX_PCDATA) - 1);
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
			    pclni_build_fname(b, fn));
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
	if (table == PCLN_TAB_PCFILE &&
	    (value < 1 || (size_t)value > b->files.n))
		return pclni_seterr(err, PCLN_ERANGE, -1,
		    "function %ld (%s): pcfile value %" PRId32 " at +0x%"
		    PRIx32 " is not a file number 1..%zu", f,
		    pclni_build_fname(b, &b->f[f]), value, pcoff, b->files.n);
	return 0;
}

/* Add the point (OFF, VALUE) to T, whose points are offsets in units
 * of Q: close the open row at OFF if VALUE changes it.  0, or -1 out of
 * memory (T unchanged). */
static inline int
push_point(struct ptab *t, uint32_t off, int32_t value, unsigned q)
{
	uint8_t *p;

	if (t->n == 0) {
		t->len = t->rows = 0;
		t->start = 0;
		t->prev = -1;
		t->val = off > 0 ? -1 : value;
	}
	if (value != t->val) {
		if (t->cap - t->len < 2 * PCLN_VARINT_MAX) {
			uint32_t cap = t->cap ? t->cap * 2 : 16;
			if (t->cap > UINT32_MAX / 2 ||
			    (p = realloc(t->p, cap)) == NULL)
				return -1;
			t->p = p;
			t->cap = cap;
		}
		/* The runtime's inline coders (not the exported wrappers,
		 * a call each); OFF - START is a multiple of Q (1, 2 or 4),
		 * so the shift divides. */
		p = t->p + t->len;
		p += pclnrt_put_uvarint(p, pclnrt_zigzag((int32_t)((uint32_t)t->val -
		    (uint32_t)t->prev)));
		p += pclnrt_put_uvarint(p, (off - t->start) >> (q >> 1));
		t->len = (uint32_t)(p - t->p);
		t->rows++;
		t->prev = t->val;
		t->start = off;
		t->val = value;
	}
	t->last = off;
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
		    f, pclni_build_fname(b, fn), table, pcoff, b->t.quantum, fn->size);
	if (t->n > 0 && pcoff <= t->last)
		return pclni_seterr(err, PCLN_EORDER, -1,
		    "function %ld (%s): table %d point at +0x%" PRIx64
		    " not after the previous point at +0x%" PRIx32, f,
		    pclni_build_fname(b, fn), table, pcoff, t->last);
	if (table == PCLN_TAB_PCFILE && t->n == 0 && pcoff != 0)
		return pclni_seterr(err, PCLN_ERANGE, -1,
		    "function %ld (%s): first pcfile point at +0x%" PRIx64
		    ", expected +0 (no file is -1)", f, pclni_build_fname(b, fn), pcoff);
	if (check_value(b, f, table, (uint32_t)pcoff, value, err) != 0)
		return -1;
	if (push_point(t, (uint32_t)pcoff, value, b->t.quantum) != 0)
		return pclni_seterr(err, PCLN_ENOMEM, -1,
		    "function %ld (%s): out of memory", f, pclni_build_fname(b, fn));
	return 0;
}

long
pclni_builder_add_points(pcln_builder *b, long f, int table,
    const struct pclni_point *pts, size_t n, pcln_err *err)
{
	struct ptab *t;
	struct bfunc *fn;
	unsigned q;
	size_t k;

	if (table == PCLN_TAB_PCFILE)
		return 0;
	if ((t = get_tab(b, f, table, 1, err)) == NULL)
		return -1;
	fn = &b->f[f];
	q = b->t.quantum;
	for (k = 0; k < n; k++) {
		uint64_t pcoff = pts[k].pcoff;
		if (pcoff >= fn->size || pcoff % q != 0 ||
		    (t->n > 0 && pcoff <= t->last))
			break;
		if (push_point(t, (uint32_t)pcoff, pts[k].value, q) != 0)
			return pclni_seterr(err, PCLN_ENOMEM, -1,
			    "function %ld (%s): out of memory", f,
			    pclni_build_fname(b, fn));
	}
	return (long)k;
}

int
pcln_builder_set_table_bytes(pcln_builder *b, long f, int table,
    const uint8_t *bytes, size_t len, pcln_err *err)
{
	struct pclnrt_pcstep s;
	struct ptab *t, nt;
	struct bfunc *fn;
	int rc;

	pclni_clearerr(err);
	if ((t = get_tab(b, f, table, 1, err)) == NULL)
		return -1;
	fn = &b->f[f];
	memset(&nt, 0, sizeof nt);
	if (len > 0 && bytes == NULL)
		return pclni_seterr(err, PCLN_EINVAL, -1,
		    "function %ld (%s): table %d: NULL bytes", f, pclni_build_fname(b, fn),
		    table);
	if (len == 0) {		/* an empty table is an absent one */
		t->n = 0;
		return 0;
	}
	pclnrt_pcstep_init(&s, bytes, bytes + len, 0, b->t.quantum);
	while ((rc = pclnrt_pcstep(&s)) == 1) {
		if (s.nextpc > fn->size) {
			free(nt.p);
			return pclni_seterr(err, PCLN_EPCTAB,
			    (int64_t)(s.p - bytes),
			    "function %ld (%s): table %d row ending at +0x%"
			    PRIx64 " (byte 0x%tx) beyond the size 0x%" PRIx32,
			    f, pclni_build_fname(b, fn), table, s.nextpc, s.p - bytes,
			    fn->size);
		}
		if (s.nextpc == s.pc)
			continue;	/* an empty row holds nowhere */
		if (check_value(b, f, table, (uint32_t)s.pc, s.value, err) != 0 ||
		    push_point(&nt, (uint32_t)s.pc, s.value,
		    b->t.quantum) != 0) {
			free(nt.p);
			if (err != NULL && err->code == PCLN_OK)
				pclni_seterr(err, PCLN_ENOMEM, -1,
				    "function %ld: out of memory", f);
			return -1;
		}
	}
	if (rc < 0) {
		free(nt.p);
		return pclni_seterr(err, rc == -1 ? PCLN_ETRUNC : PCLN_EVARINT,
		    (int64_t)(s.p - bytes), "function %ld (%s): table %d: %s "
		    "at byte 0x%tx of %zu, expected a terminated table", f,
		    pclni_build_fname(b, fn), table, rc == -1 ? "runs off the end" :
		    "varint overflow", s.p - bytes, len);
	}
	if ((size_t)(s.p - bytes) != len || s.nextpc != fn->size) {
		free(nt.p);
		if ((size_t)(s.p - bytes) != len)
			return pclni_seterr(err, PCLN_EPCTAB,
			    (int64_t)(s.p - bytes), "function %ld (%s): table "
			    "%d ends at byte 0x%tx, expected the end %zu", f,
			    pclni_build_fname(b, fn), table, s.p - bytes, len);
		return pclni_seterr(err, PCLN_EPCTAB, (int64_t)len,
		    "function %ld (%s): table %d covers [0, 0x%" PRIx64
		    "), expected [0, 0x%" PRIx32 ")", f, pclni_build_fname(b, fn), table,
		    s.nextpc, fn->size);
	}
	/* A first row of -1 (a zero first delta) is a first point above 0. */
	if (table == PCLN_TAB_PCFILE && nt.n > 0 && (nt.rows == 0 ?
	    nt.val == -1 : nt.p[0] == 0)) {
		free(nt.p);
		return pclni_seterr(err, PCLN_ERANGE, 0, "function %ld (%s): "
		    "pcfile table starts with no file", f, pclni_build_fname(b, fn));
	}
	free(t->p);
	*t = nt;
	return 0;
}

int
pcln_builder_set_build_id(pcln_builder *b, const uint8_t *id, size_t len,
    pcln_err *err)
{
	if (len > PCLN_BUILDID_MAX || (len > 0 && id == NULL))
		return pclni_seterr(err, PCLN_ERANGE, -1, "build-id of %zu "
		    "bytes: expected 0 (none) to %u", len, PCLN_BUILDID_MAX);
	if (len > 0)
		memcpy(b->buildid, id, len);
	b->nbuildid = len;
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
		    f, pclni_build_fname(b, fn), idx, PCLN_MAX_FUNCDATA);
	if (b->t.ptrsize == 4 && value > UINT32_MAX)
		return pclni_seterr(err, PCLN_ERANGE, -1,
		    "function %ld (%s): funcdata %u value 0x%" PRIx64
		    " does not fit in 4 bytes", f, pclni_build_fname(b, fn), idx, value);
	if (idx >= fn->nfuncdata) {
		uint64_t *fd = realloc(fn->funcdata, (idx + 1) * sizeof *fd);
		if (fd == NULL)
			return pclni_seterr(err, PCLN_ENOMEM, -1,
			    "function %ld (%s): out of memory", f,
			    pclni_build_fname(b, fn));
		memset(fd + fn->nfuncdata, 0,
		    (idx + 1 - fn->nfuncdata) * sizeof *fd);
		fn->funcdata = fd;
		fn->nfuncdata = idx + 1;
	}
	fn->funcdata[idx] = value;
	return 0;
}

int
pcln_builder_set_symname(pcln_builder *b, long f, const char *name,
    pcln_err *err)
{
	struct bfunc *fn;
	long id;

	pclni_clearerr(err);
	if (b == NULL || f < 0 || (size_t)f >= b->nf)
		return pclni_seterr(err, PCLN_EINVAL, -1,
		    "no function handle %ld", f);
	fn = &b->f[f];
	if (name == NULL || strcmp(name, pclni_build_fname(b, fn)) == 0) {
		fn->symname = 0;
		return 0;
	}
	id = pclni_pool_add(&b->names, name, strlen(name) + 1, NULL);
	if (id < 0)
		return pclni_seterr(err, id == -1 ? PCLN_ENOMEM : PCLN_ERANGE,
		    -1, "function %ld (%s): symbol name %s: %s", f,
		    pclni_build_fname(b, fn), name, id == -1 ?
		    "out of memory" : "names exceed 2 GiB");
	fn->symname = (uint32_t)id + 1;
	b->names_total += strlen(name) + 1;
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
