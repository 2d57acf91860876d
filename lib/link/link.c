/* link.c -- link descriptions: collect, place, resolve, build.
 *
 * Pass 1 reads every statement (so syntax errors come out in input
 * order) and keeps what placement and resolution need: target lines,
 * data symbols and a small header per function.  Then fixed functions
 * are checked for overlaps and the others are placed.  Pass 2 feeds the
 * builder, which holds the tables in encoded form.  So memory is the
 * function headers plus the builder's, proportional to the output and
 * not to the input text or the code size.
 *
 * Pass 2 is done during pass 1 when it can be (a speculative builder):
 * the functions are fed at a provisional entry and moved once placed,
 * and funcdata references wait for the data symbols.  The speculation
 * holds when the target found at the first file or function statement
 * is the final one and nothing fed fails; else its builder is dropped
 * and pass 2 reads the inputs again, so the output and the first error
 * are those of two passes.  One read of the input instead of two.
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "desc.h"
#include "internal.h"
#include "pcln_link.h"

struct input {
	char *name;
	char *text;		/* NULL for a file */
	size_t len;
};

/* 32 bytes per function: a million-function link keeps 32 MB here. */
struct lfunc {
	uint64_t entry;
	uint32_t size;		/* the reader caps it at 0xffffffff */
	uint32_t name;		/* item in the name pool */
	uint32_t input;
	uint32_t line;		/* saturates at UINT32_MAX */
	int32_t handle;		/* builder handle, -1 if dropped */
	uint8_t alignlog, fixed, dropped, dupok;
};

struct ldata {
	uint64_t addr;
	uint32_t input;
	long line;
};

/* Where a target property was set: input index, or CMDLINE. */
#define CMDLINE		((uint32_t)-1)
struct tprop {
	unsigned value;		/* 0 = unset */
	uint32_t input;
	long line;
};

struct pcln_link {
	pcln_link_opts opts;
	struct input *in;
	size_t nin, incap;
	int ran;

	struct tprop ptrsize, quantum, endian;
	pcln_target target;

	struct pclni_pool names;	/* function names */
	uint32_t *byname;		/* name item -> function index */
	size_t bycap;
	struct lfunc *f;
	size_t nf, fcap;

	struct pclni_pool dnames;	/* data symbol names */
	struct ldata *d;
	size_t nd, dcap;

	size_t *order;			/* live functions by entry */
	size_t nlive;
	pcln_builder *b;
	pcln_link_stats stats;

	/* Pass 2 during pass 1 (see the top): SPEC 1 while it holds, the
	 * target it assumed, the funcdata references it deferred. */
	int spec;
	pcln_target spectarget;
	struct pclni_pool refnames;
	struct dref *dref;
	size_t ndref, drefcap;
};

/* A funcdata reference to a data symbol, resolved after pass 1. */
struct dref {
	int64_t off;
	uint32_t name;		/* item in refnames */
	uint32_t idx;
	int32_t handle;
	uint32_t input;
	long line;
};

static int
nomem(pcln_err *err)
{
	return pclni_seterr(err, PCLN_ENOMEM, -1, "out of memory");
}

pcln_link *
pcln_link_new(const pcln_link_opts *opts, pcln_err *err)
{
	pcln_link *l;

	if (opts != NULL) {
		if ((opts->ptrsize != 0 && opts->ptrsize != 4 &&
		    opts->ptrsize != 8) ||
		    (opts->quantum != 0 && opts->quantum != 1 &&
		    opts->quantum != 2 && opts->quantum != 4) ||
		    opts->endian < 0 || opts->endian > 2) {
			pclni_seterr(err, PCLN_EINVAL, -1, "invalid link "
			    "options (ptrsize 4 or 8, quantum 1, 2 or 4)");
			return NULL;
		}
	}
	if ((l = calloc(1, sizeof *l)) == NULL) {
		nomem(err);
		return NULL;
	}
	if (opts != NULL)
		l->opts = *opts;
	pclni_pool_init(&l->names);
	pclni_pool_init(&l->dnames);
	pclni_pool_init(&l->refnames);
	if (l->opts.ptrsize) {
		l->ptrsize.value = l->opts.ptrsize;
		l->ptrsize.input = CMDLINE;
	}
	if (l->opts.quantum) {
		l->quantum.value = l->opts.quantum;
		l->quantum.input = CMDLINE;
	}
	if (l->opts.endian) {
		l->endian.value = (unsigned)l->opts.endian;
		l->endian.input = CMDLINE;
	}
	return l;
}

void
pcln_link_free(pcln_link *l)
{
	size_t i;

	if (l == NULL)
		return;
	for (i = 0; i < l->nin; i++) {
		free(l->in[i].name);
		free(l->in[i].text);
	}
	free(l->in);
	pclni_pool_free(&l->names);
	pclni_pool_free(&l->dnames);
	pclni_pool_free(&l->refnames);
	free(l->dref);
	free(l->byname);
	free(l->f);
	free(l->d);
	free(l->order);
	pcln_builder_free(l->b);
	free(l);
}

static int
add_input(pcln_link *l, const char *name, const char *text, size_t len,
    int mem, pcln_err *err)
{
	struct input *in;

	if (l->nin >= UINT32_MAX - 1)
		return pclni_seterr(err, PCLN_ERANGE, -1, "too many inputs");
	if (pclni_grow(&l->in, &l->incap, l->nin + 1, sizeof *l->in) < 0)
		return nomem(err);
	in = &l->in[l->nin];
	memset(in, 0, sizeof *in);
	if ((in->name = strdup(name)) == NULL)
		return nomem(err);
	if (mem) {
		if ((in->text = malloc(len ? len : 1)) == NULL) {
			free(in->name);
			return nomem(err);
		}
		if (len)
			memcpy(in->text, text, len);
		in->len = len;
	}
	l->nin++;
	return 0;
}

int
pcln_link_add_file(pcln_link *l, const char *path, pcln_err *err)
{
	return add_input(l, path, NULL, 0, 0, err);
}

int
pcln_link_add_text(pcln_link *l, const char *name, const char *text,
    size_t len, pcln_err *err)
{
	if (text == NULL && len != 0)
		return pclni_seterr(err, PCLN_EINVAL, -1, "no text");
	return add_input(l, name, text, len, 1, err);
}

static desc_reader *
open_input(pcln_link *l, size_t i, unsigned quantum, pcln_err *err)
{
	struct input *in = &l->in[i];

	if (in->text == NULL)
		return desc_open_file(in->name, quantum, err);
	return desc_open_mem(in->name, in->text, in->len, quantum, err);
}

static const char *
where(const pcln_link *l, uint32_t input)
{
	return input == CMDLINE ? "the command line" : l->in[input].name;
}

static const char *
fname(const pcln_link *l, const struct lfunc *f)
{
	return (const char *)l->names.data + l->names.off[f->name];
}

/* Merge target property P (NAME) with VALUE from INPUT:LINE. */
static int
merge_prop(pcln_link *l, struct tprop *p, const char *name, unsigned value,
    uint32_t input, long line, pcln_err *err)
{
	static const char *const endians[] = { "?", "little", "big" };
	char a[16], b[16];

	if (value == 0)
		return 0;
	if (p->value == 0) {
		p->value = value;
		p->input = input;
		p->line = line;
		return 0;
	}
	if (p->value == value)
		return 0;
	if (strcmp(name, "endian") == 0) {
		snprintf(a, sizeof a, "%s", endians[value]);
		snprintf(b, sizeof b, "%s", endians[p->value]);
	} else {
		snprintf(a, sizeof a, "%u", value);
		snprintf(b, sizeof b, "%u", p->value);
	}
	if (p->input == CMDLINE)
		return desc_error(err, PCLN_ECONFLICT, where(l, input), line,
		    "%s %s conflicts with %s %s on the command line", name, a,
		    name, b);
	return desc_error(err, PCLN_ECONFLICT, where(l, input), line,
	    "%s %s conflicts with %s %s at %s:%ld", name, a, name, b,
	    where(l, p->input), p->line);
}

static int
collect_func(pcln_link *l, uint32_t input, const struct desc_stmt *st,
    pcln_err *err)
{
	struct lfunc *f;
	long item;
	int isnew;

	if (l->nf >= INT32_MAX)
		return desc_error(err, PCLN_ERANGE, where(l, input), st->line,
		    "too many functions");
	item = pclni_pool_add(&l->names, st->name, strlen(st->name) + 1,
	    &isnew);
	if (item < 0)
		return desc_error(err, item == -1 ? PCLN_ENOMEM : PCLN_ERANGE,
		    where(l, input), st->line, "%s", item == -1 ?
		    "out of memory" : "function names exceed 2 GiB");
	if (pclni_grow(&l->f, &l->fcap, l->nf + 1, sizeof *l->f) < 0 ||
	    pclni_grow(&l->byname, &l->bycap, l->names.n, sizeof *l->byname) < 0)
		return nomem(err);
	f = &l->f[l->nf];
	memset(f, 0, sizeof *f);
	f->name = (uint32_t)item;
	f->input = input;
	f->line = st->line > (long)UINT32_MAX ? UINT32_MAX : (uint32_t)st->line;
	f->size = (uint32_t)st->size;
	while (((uint64_t)1 << f->alignlog) < st->align)
		f->alignlog++;
	f->entry = st->addr;
	f->fixed = (unsigned char)st->has_entry;
	f->dupok = (unsigned char)st->dupok;
	f->handle = -1;
	if (!isnew) {
		const struct lfunc *g = &l->f[l->byname[item]];
		if (!st->dupok || !g->dupok)
			return desc_error(err, PCLN_EDUP, where(l, input),
			    st->line, "function %s already defined at %s:%ld "
			    "(mark both 'dupok' to allow)", st->name,
			    where(l, g->input), (long)g->line);
		f->dropped = 1;
		l->stats.ndropped++;
	} else
		l->byname[item] = (uint32_t)l->nf;
	l->nf++;
	return 0;
}

static int
collect_data(pcln_link *l, uint32_t input, const struct desc_stmt *st,
    pcln_err *err)
{
	long item;
	int isnew;

	item = pclni_pool_add(&l->dnames, st->name, strlen(st->name) + 1,
	    &isnew);
	if (item < 0)
		return desc_error(err, item == -1 ? PCLN_ENOMEM : PCLN_ERANGE,
		    where(l, input), st->line, "%s", item == -1 ?
		    "out of memory" : "data names exceed 2 GiB");
	if (!isnew)
		return desc_error(err, PCLN_EDUP, where(l, input), st->line,
		    "data symbol %s already defined at %s:%ld", st->name,
		    where(l, l->d[item].input), l->d[item].line);
	if (pclni_grow(&l->d, &l->dcap, l->nd + 1, sizeof *l->d) < 0)
		return nomem(err);
	l->d[l->nd].addr = st->addr;
	l->d[l->nd].input = input;
	l->d[l->nd].line = st->line;
	l->nd++;
	return 0;
}

struct span {
	uint64_t entry, end;
	size_t idx;
};

static int
span_cmp(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	if (x->entry != y->entry)
		return x->entry < y->entry ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Sort SPANS[0..N) by span_cmp; inputs are mostly in order already,
 * and then there is nothing to do. */
static void
sort_spans(struct span *v, size_t n)
{
	size_t i;

	for (i = 1; i < n; i++)
		if (span_cmp(&v[i - 1], &v[i]) > 0)
			break;
	if (i < n)
		qsort(v, n, sizeof *v, span_cmp);
}

static int
overlap_error(pcln_link *l, const struct lfunc *a, const struct lfunc *b,
    pcln_err *err)
{
	return desc_error(err, PCLN_EOVERLAP, where(l, b->input), b->line,
	    "function %s [0x%llx, 0x%llx) overlaps function %s [0x%llx, "
	    "0x%llx) at %s:%ld", fname(l, b), (unsigned long long)b->entry,
	    (unsigned long long)(b->entry + b->size), fname(l, a),
	    (unsigned long long)a->entry,
	    (unsigned long long)(a->entry + a->size), where(l, a->input),
	    (long)a->line);
}

/* Check the fixed functions, place the others, sort all by entry. */
static int
place(pcln_link *l, pcln_err *err)
{
	uint64_t q = l->target.quantum, cursor, limit;
	struct span *fx = NULL, *all = NULL;
	size_t nfx = 0, i, j, n = 0;
	int rc = -1;

	limit = l->target.ptrsize == 4 ? (uint64_t)1 << 32 : UINT64_MAX;
	cursor = l->opts.has_text_base ? l->opts.text_base :
	    PCLN_LINK_DEFAULT_TEXT_BASE;
	if ((fx = malloc((l->nf + 1) * sizeof *fx)) == NULL ||
	    (all = malloc((l->nf + 1) * sizeof *all)) == NULL) {
		nomem(err);
		goto out;
	}
	for (i = 0; i < l->nf; i++) {
		struct lfunc *f = &l->f[i];
		const char *in = where(l, f->input);
		if (f->dropped)
			continue;
		if (f->size % q != 0) {
			desc_error(err, PCLN_ERANGE, in, f->line, "func %s: "
			    "size 0x%llx is not a multiple of the pc quantum "
			    "%u", fname(l, f), (unsigned long long)f->size,
			    (unsigned)q);
			goto out;
		}
		if (!f->fixed)
			continue;
		if (f->entry % q != 0) {
			desc_error(err, PCLN_ERANGE, in, f->line, "func %s: "
			    "entry 0x%llx is not a multiple of the pc quantum "
			    "%u", fname(l, f), (unsigned long long)f->entry,
			    (unsigned)q);
			goto out;
		}
		if (f->entry + f->size > limit ||
		    f->entry + f->size < f->entry) {
			desc_error(err, PCLN_ERANGE, in, f->line, "func %s: "
			    "[0x%llx, 0x%llx) beyond the %u-byte address "
			    "space", fname(l, f), (unsigned long long)f->entry,
			    (unsigned long long)(f->entry + f->size),
			    l->target.ptrsize);
			goto out;
		}
		fx[nfx].entry = f->entry;
		fx[nfx].end = f->entry + f->size;
		fx[nfx].idx = i;
		nfx++;
	}
	sort_spans(fx, nfx);
	for (i = 1, j = 0; i < nfx; i++) {
		/* J: the fixed function reaching furthest so far. */
		if (fx[i].entry < fx[j].end) {
			const struct lfunc *a = &l->f[fx[j].idx];
			const struct lfunc *b = &l->f[fx[i].idx];
			/* Report the later one in input order. */
			if (fx[j].idx > fx[i].idx)
				overlap_error(l, b, a, err);
			else
				overlap_error(l, a, b, err);
			goto out;
		}
		if (fx[i].end > fx[j].end)
			j = i;
	}
	for (i = 0, j = 0; i < l->nf; i++) {
		struct lfunc *f = &l->f[i];
		uint64_t a = (uint64_t)1 << f->alignlog, addr;
		if (f->dropped || f->fixed)
			continue;
		if (a < q)
			a = q;
		for (;;) {
			if (cursor > limit - (a - 1) ||
			    (addr = pclni_align(cursor, a)) > limit - f->size) {
				desc_error(err, PCLN_ERANGE,
				    where(l, f->input), f->line, "func %s: "
				    "no room left below 0x%llx to place it",
				    fname(l, f), (unsigned long long)limit);
				goto out;
			}
			while (j < nfx && fx[j].end <= addr)
				j++;
			if (j < nfx && fx[j].entry < addr + f->size) {
				cursor = fx[j].end;
				continue;
			}
			break;
		}
		f->entry = addr;
		cursor = addr + f->size;
		l->stats.nplaced++;
	}
	for (i = 0; i < l->nf; i++) {
		if (l->f[i].dropped)
			continue;
		all[n].entry = l->f[i].entry;
		all[n].end = l->f[i].entry + l->f[i].size;
		all[n].idx = i;
		n++;
	}
	sort_spans(all, n);
	if ((l->order = malloc((n + 1) * sizeof *l->order)) == NULL) {
		nomem(err);
		goto out;
	}
	for (i = 0; i < n; i++) {
		l->order[i] = all[i].idx;
		if (i == 0 || all[i].end > l->stats.text_end)
			l->stats.text_end = all[i].end;
	}
	l->nlive = n;
	l->stats.nfixed = nfx;
	l->stats.text_start = n ? all[0].entry : 0;
	rc = 0;
out:
	free(fx);
	free(all);
	return rc;
}

static int
wrap(pcln_link *l, uint32_t input, long line, const pcln_err *berr,
    pcln_err *err)
{
	return desc_error(err, berr->code, where(l, input), line, "%s",
	    berr->msg);
}

static int
funcdata(pcln_link *l, uint32_t input, int32_t handle,
    const struct desc_stmt *st, pcln_err *err)
{
	uint64_t v = st->addr, max;
	pcln_err berr;

	max = l->target.ptrsize == 4 ? UINT32_MAX : UINT64_MAX;
	if (st->isref) {
		int isnew;
		long item = pclni_pool_add(&l->dnames, st->name,
		    strlen(st->name) + 1, &isnew);
		if (item < 0)
			return nomem(err);
		if (isnew)
			return desc_error(err, PCLN_EUNDEF, where(l, input),
			    st->line, "funcdata %u: undefined data symbol %s "
			    "(expected a 'data %s ADDRESS' line in some "
			    "input)", st->idx, st->name, st->name);
		v = l->d[item].addr;
		if ((st->refoff >= 0 && v > max - (uint64_t)st->refoff) ||
		    (st->refoff < 0 && v < -(uint64_t)st->refoff))
			return desc_error(err, PCLN_ERANGE, where(l, input),
			    st->line, "funcdata %u: %s%+lld = 0x%llx%+lld is "
			    "outside the %u-byte address space", st->idx,
			    st->name, (long long)st->refoff,
			    (unsigned long long)v, (long long)st->refoff,
			    l->target.ptrsize);
		v += (uint64_t)st->refoff;
		l->stats.nrefs++;
	} else if (v > max)
		return desc_error(err, PCLN_ERANGE, where(l, input), st->line,
		    "funcdata %u: value 0x%llx does not fit in %u bytes",
		    st->idx, (unsigned long long)v, l->target.ptrsize);
	if (pcln_builder_set_funcdata(l->b, handle, st->idx, v, &berr) < 0)
		return wrap(l, input, st->line, &berr, err);
	return 0;
}

/* Input-local file numbers ('file N PATH') -> the builder's. */
struct filemap {
	long *num;		/* [cap], 0 = not declared */
	size_t cap;
};

static int
declare_file(pcln_link *l, struct filemap *m, uint32_t input,
    const struct desc_stmt *st, pcln_err *err)
{
	pcln_err berr;
	long n;

	if (st->idx >= m->cap) {
		size_t old = m->cap;
		if (pclni_grow(&m->num, &m->cap, (size_t)st->idx + 1,
		    sizeof *m->num) < 0)
			return nomem(err);
		memset(m->num + old, 0, (m->cap - old) * sizeof *m->num);
	}
	if ((n = pcln_builder_add_file(l->b, st->name, &berr)) < 0)
		return wrap(l, input, st->line, &berr, err);
	if (m->num[st->idx] != 0 && m->num[st->idx] != n)
		return desc_error(err, PCLN_EDUP, where(l, input), st->line,
		    "file %u already declared with another path", st->idx);
	m->num[st->idx] = n;
	return 0;
}

/* A pcfile table as hex bytes: its values are input-local file numbers.
 * Decode it with the runtime's stepper, renumber, and add the rows as
 * points (the builder checks them again). */
static int
pcfile_hex(pcln_link *l, const struct filemap *m, uint32_t input,
    const struct lfunc *f, const struct desc_stmt *st, pcln_err *err)
{
	struct pclnrt_pcstep s;
	pcln_err berr;
	int rc;

	pclnrt_pcstep_init(&s, st->bytes, st->bytes + st->nbytes, 0,
	    l->target.quantum);
	while ((rc = pclnrt_pcstep(&s)) == 1) {
		int32_t v = s.value;
		if (s.nextpc == s.pc)
			continue;
		if (v < 1 || (size_t)v >= m->cap || m->num[v] == 0)
			return desc_error(err, PCLN_EFILETAB, where(l, input),
			    st->line, "pcfile: file %d at pc offset 0x%llx "
			    "is not declared by a 'file' line before it", v,
			    (unsigned long long)s.pc);
		if (s.nextpc > f->size)
			break;
		if (pcln_builder_add_point(l->b, f->handle, PCLN_TAB_PCFILE,
		    s.pc, (int32_t)m->num[v], &berr) < 0)
			return wrap(l, input, st->line, &berr, err);
	}
	if (rc < 0)
		return desc_error(err, PCLN_EPCTAB, where(l, input), st->line,
		    "pcfile: %s in the hex bytes", rc == -1 ?
		    "table runs past its end" : "varint overflows");
	if (s.nextpc != f->size || s.p != st->bytes + st->nbytes)
		return desc_error(err, PCLN_EPCTAB, where(l, input), st->line,
		    "pcfile: hex table covers [0, 0x%llx) in %zu of %zu "
		    "bytes, expected [0, 0x%llx) ending with the last byte",
		    (unsigned long long)s.nextpc, (size_t)(s.p - st->bytes),
		    st->nbytes, (unsigned long long)f->size);
	return 0;
}

/* What feeding one input needs between statements. */
struct feeder {
	struct lfunc *f;	/* the open function, NULL between them */
	struct filemap fm;
};

/* A dropped function is never fed, but pass 2's reader, which knows
 * the quantum, checks its size, entry and pc offsets: -1 where it would
 * fail. */
static int
dropped_quantum(const pcln_link *l, const struct desc_stmt *st)
{
	unsigned q = l->target.quantum;
	size_t k;

	if (q <= 1)
		return 0;
	if (st->kind == DESC_FUNC)
		return st->size % q != 0 || (st->has_entry &&
		    st->addr % q != 0) ? -1 : 0;
	if (st->kind == DESC_POINTS)
		for (k = 0; k < st->npts; k++)
			if (st->pts[k].pcoff % q != 0)
				return -1;
	return 0;
}

/* Feed statement ST of input IN to the builder.  F is the statement's
 * function header for a 'func'.  DEFER: keep funcdata references for
 * resolve_drefs (their data symbol may come later). */
static int
feed(pcln_link *l, struct feeder *fd, uint32_t in, const struct desc_stmt *st,
    struct lfunc *f, int defer, pcln_err *err)
{
	pcln_err berr;
	size_t k;
	int rc = 0;

	if (st->kind == DESC_FILE)
		return declare_file(l, &fd->fm, in, st, err);
	if (st->kind == DESC_FUNC) {
		long h;
		fd->f = f;
		if (f->dropped)
			return defer ? dropped_quantum(l, st) : 0;
		h = pcln_builder_add_func(l->b, st->name, f->entry, f->size,
		    st->args, st->frame, &berr);
		f->handle = (int32_t)h;
		return h < 0 ? wrap(l, in, st->line, &berr, err) : 0;
	}
	if (st->kind == DESC_END) {
		fd->f = NULL;
		return 0;
	}
	f = fd->f;
	if (f != NULL && f->dropped && defer)
		return dropped_quantum(l, st);
	if (f == NULL || f->dropped)
		return 0;
	if (st->kind == DESC_POINTS && st->table != PCLN_TAB_PCFILE) {
		/* All at once; a point the builder refuses, again alone
		 * for its message. */
		for (k = 0; k < st->npts; k++) {
			long n = pclni_builder_add_points(l->b, f->handle,
			    st->table, st->pts + k, st->npts - k, &berr);
			if (n < 0)
				return wrap(l, in, st->line, &berr, err);
			if ((k += (size_t)n) < st->npts &&
			    pcln_builder_add_point(l->b, f->handle, st->table,
			    st->pts[k].pcoff, st->pts[k].value, &berr) < 0)
				return wrap(l, in, st->line, &berr, err);
		}
	} else if (st->kind == DESC_POINTS) {
		/* The last path's file number: pcfile points repeat it. */
		const char *lastpath = NULL;
		long lastn = 0;
		for (k = 0; k < st->npts; k++) {
			int32_t v = st->pts[k].value;
			if (st->table == PCLN_TAB_PCFILE) {
				const char *path = st->paths[v];
				if (lastpath == NULL ||
				    strcmp(path, lastpath) != 0) {
					lastn = pcln_builder_add_file(l->b,
					    path, &berr);
					if (lastn < 0)
						return wrap(l, in, st->line,
						    &berr, err);
					lastpath = path;
				}
				v = (int32_t)lastn;
			}
			if (pcln_builder_add_point(l->b, f->handle, st->table,
			    st->pts[k].pcoff, v, &berr) < 0)
				return wrap(l, in, st->line, &berr, err);
		}
	} else if (st->kind == DESC_HEX && st->table == PCLN_TAB_PCFILE)
		rc = pcfile_hex(l, &fd->fm, in, f, st, err);
	else if (st->kind == DESC_HEX) {
		if (pcln_builder_set_table_bytes(l->b, f->handle, st->table,
		    st->bytes, st->nbytes, &berr) < 0)
			rc = wrap(l, in, st->line, &berr, err);
	} else if (st->kind == DESC_FUNCDATA && defer && st->isref) {
		struct dref *d;
		long item = pclni_pool_add(&l->refnames, st->name,
		    strlen(st->name) + 1, NULL);
		if (item < 0 || pclni_grow(&l->dref, &l->drefcap,
		    l->ndref + 1, sizeof *l->dref) < 0)
			return nomem(err);
		d = &l->dref[l->ndref++];
		d->off = st->refoff;
		d->name = (uint32_t)item;
		d->idx = st->idx;
		d->handle = f->handle;
		d->input = in;
		d->line = st->line;
	} else if (st->kind == DESC_FUNCDATA)
		rc = funcdata(l, in, f->handle, st, err);
	return rc;
}

/* The target: the options and target lines so far, else the defaults. */
static void
current_target(const pcln_link *l, pcln_target *t)
{
	memset(t, 0, sizeof *t);
	t->ptrsize = l->ptrsize.value ? l->ptrsize.value :
	    PCLN_LINK_DEFAULT_PTRSIZE;
	t->quantum = l->quantum.value ? l->quantum.value :
	    PCLN_LINK_DEFAULT_QUANTUM;
	t->bigendian = l->endian.value == 2;
}

static int
new_builder(pcln_link *l, pcln_err *err)
{
	pcln_err berr;

	if ((l->b = pcln_builder_new(&l->target, &berr)) == NULL)
		return pclni_seterr(err, berr.code, -1, "%s", berr.msg);
	if (l->opts.has_checkpoints && pcln_builder_set_checkpoints(l->b,
	    l->opts.checkpoints, &berr) < 0)
		return pclni_seterr(err, berr.code, -1, "%s", berr.msg);
	return 0;
}

/* Give up the speculation: pass 2 will read the inputs again. */
static void
unspec(pcln_link *l)
{
	size_t i;

	l->spec = 0;
	pcln_builder_free(l->b);
	l->b = NULL;
	for (i = 0; i < l->nf; i++)
		l->f[i].handle = -1;
	l->ndref = 0;
	l->stats.nrefs = 0;
}

/* Pass 1: target lines, data symbols, function headers; and pass 2 as
 * far as the speculation holds. */
static int
pass1(pcln_link *l, pcln_err *err)
{
	size_t i;

	l->spec = 1;
	for (i = 0; i < l->nin; i++) {
		desc_reader *r = open_input(l, i, 0, err);
		struct desc_stmt st;
		uint32_t in = (uint32_t)i;
		struct feeder fd = { NULL, { NULL, 0 } };
		pcln_err serr;
		int rc;

		if (r == NULL)
			return -1;
		while ((rc = desc_next(r, &st, err)) > 0) {
			if (st.kind == DESC_TARGET)
				rc = merge_prop(l, &l->ptrsize, "ptrsize",
				    st.target.ptrsize, in, st.line, err) < 0 ||
				    merge_prop(l, &l->quantum, "quantum",
				    st.target.quantum, in, st.line, err) < 0 ||
				    merge_prop(l, &l->endian, "endian",
				    (unsigned)st.target.endian, in, st.line,
				    err) < 0 ? -1 : 0;
			else if (st.kind == DESC_DATA)
				rc = collect_data(l, in, &st, err);
			else if (st.kind == DESC_FUNC)
				rc = collect_func(l, in, &st, err);
			else
				rc = 0;
			if (rc < 0)
				break;
			if (!l->spec || st.kind == DESC_TARGET ||
			    st.kind == DESC_DATA)
				continue;
			serr.code = 0;
			if (l->b == NULL) {
				current_target(l, &l->target);
				l->spectarget = l->target;
				rc = new_builder(l, &serr);
			}
			if (rc == 0)
				rc = feed(l, &fd, in, &st, st.kind == DESC_FUNC ?
				    &l->f[l->nf - 1] : NULL, 1, &serr);
			if (rc < 0 && serr.code == PCLN_ENOMEM) {
				/* Out of memory now is out of memory. */
				if (err != NULL)
					*err = serr;
				break;
			}
			if (rc < 0)
				unspec(l);
			rc = 1;
		}
		free(fd.fm.num);
		l->stats.nlines += (size_t)desc_lines(r);
		desc_close(r);
		if (rc < 0)
			return -1;
	}
	return 0;
}

/* After placement: whether the speculative builder is the one pass 2
 * would have made (then move its functions to their places and resolve
 * the funcdata references), else drop it. */
static int
settle_spec(pcln_link *l, pcln_err *err)
{
	pcln_err serr;
	size_t i;

	if (!l->spec)
		return 0;
	if (l->b == NULL || l->spectarget.ptrsize != l->target.ptrsize ||
	    l->spectarget.quantum != l->target.quantum ||
	    l->spectarget.bigendian != l->target.bigendian) {
		unspec(l);
		return 0;
	}
	for (i = 0; i < l->nf; i++) {
		const struct lfunc *f = &l->f[i];
		if (!f->dropped && !f->fixed && pclni_builder_set_entry(l->b,
		    f->handle, f->entry) < 0) {
			unspec(l);
			return 0;
		}
	}
	for (i = 0; i < l->ndref; i++) {
		const struct dref *d = &l->dref[i];
		struct desc_stmt st;
		memset(&st, 0, sizeof st);
		st.kind = DESC_FUNCDATA;
		st.line = d->line;
		st.name = (const char *)l->refnames.data +
		    l->refnames.off[d->name];
		st.idx = d->idx;
		st.isref = 1;
		st.refoff = d->off;
		serr.code = 0;
		if (pclni_pool_find(&l->dnames, st.name,
		    strlen(st.name) + 1) < 0 ||
		    funcdata(l, d->input, d->handle, &st, &serr) < 0) {
			if (serr.code == PCLN_ENOMEM) {
				if (err != NULL)
					*err = serr;
				return -1;
			}
			unspec(l);
			return 0;
		}
	}
	return 0;
}

/* Pass 2: feed the builder, reading the inputs again. */
static int
pass2(pcln_link *l, pcln_err *err)
{
	size_t i, fi = 0;

	if (new_builder(l, err) < 0)
		return -1;
	for (i = 0; i < l->nin; i++) {
		desc_reader *r = open_input(l, i, l->target.quantum, err);
		struct desc_stmt st;
		uint32_t in = (uint32_t)i;
		struct feeder fd = { NULL, { NULL, 0 } };
		struct lfunc *f = NULL;
		int rc;

		if (r == NULL)
			return -1;
		while ((rc = desc_next(r, &st, err)) > 0) {
			if (st.kind == DESC_FUNC) {
				if (fi >= l->nf) {
					rc = desc_error(err, PCLN_EIO,
					    where(l, in), st.line, "input "
					    "changed during the link");
					break;
				}
				f = &l->f[fi++];
			}
			if ((rc = feed(l, &fd, in, &st, f, 0, err)) < 0)
				break;
		}
		desc_close(r);
		free(fd.fm.num);
		if (rc < 0)
			return -1;
	}
	return 0;
}

int
pcln_link_run(pcln_link *l, uint8_t **out, size_t *len, pcln_err *err)
{
	pcln_err berr;

	if (l->ran)
		return pclni_seterr(err, PCLN_EINVAL, -1, "link already run");
	l->ran = 1;
	if (pass1(l, err) < 0)
		return -1;
	current_target(l, &l->target);
	if (place(l, err) < 0)
		return -1;
	if (settle_spec(l, err) < 0 || (l->b == NULL && pass2(l, err) < 0))
		return -1;
	if (pcln_builder_write(l->b, l->opts.write_flags, out, len,
	    &berr) < 0) {
		if (err != NULL)
			*err = berr;
		return -1;
	}
	l->stats.ninputs = l->nin;
	l->stats.nfunc = l->nlive;
	l->stats.ndata = l->nd;
	l->stats.target = l->target;
	l->stats.build = pcln_builder_stats(l->b);
	return 0;
}

const pcln_link_stats *
pcln_link_get_stats(const pcln_link *l)
{
	return l->stats.build != NULL ? &l->stats : NULL;
}

int
pcln_link_get_func(const pcln_link *l, size_t i, pcln_link_func *out)
{
	const struct lfunc *f;

	if (l->stats.build == NULL || i >= l->nlive)
		return -1;
	f = &l->f[l->order[i]];
	out->name = fname(l, f);
	out->file = where(l, f->input);
	out->line = f->line;
	out->fixed = f->fixed;
	out->entry = f->entry;
	out->size = f->size;
	out->layout = pcln_builder_layout(l->b, f->handle);
	return 0;
}
