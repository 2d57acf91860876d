/* dump_size.c -- where the bytes of a blob go.
 *
 * Walks a verified blob: every Func record, name, file-table slot and
 * pc-value table is counted once however many functions share it (the
 * builder deduplicates tables and names); the names of inlined functions
 * (the INLPACK or INLTREE section's records) are function names; the
 * trailer is its sections, directory and footer; what no part claims is
 * padding.  The
 * parts add up to the blob's length and match the builder's
 * pcln_build_stats.
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "pclnrt_format.h"
#include "dump.h"

const char *const dump_part_names[PART_N] = {
	"header", "functab", "funcs", "funcnames", "filetab", "filenames",
	PCLN_TAB_NAME_PCSP, PCLN_TAB_NAME_PCFILE, PCLN_TAB_NAME_PCLN,
	"pcdata", "padding", "trailer"
};

/* A reference to a blob object: its offset and the kind that names it. */
struct ref {
	uint32_t off;
	int kind;
	uint64_t entry;		/* for tables: the function's entry */
};

struct refs {
	struct ref *v;
	size_t n, cap;
};

static int
push(struct refs *r, uint32_t off, int kind, uint64_t entry)
{
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 256;
		struct ref *nv = realloc(r->v, cap * sizeof *nv);
		if (nv == NULL)
			return -1;
		r->v = nv;
		r->cap = cap;
	}
	r->v[r->n].off = off;
	r->v[r->n].kind = kind;
	r->v[r->n].entry = entry;
	r->n++;
	return 0;
}

static int
cmp_ref(const void *a, const void *b)
{
	const struct ref *x = a, *y = b;

	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return x->kind - y->kind;
}

/* Sort and keep the first (lowest kind) of each offset. */
static void
uniq(struct refs *r)
{
	size_t i, n = 0;

	if (r->n == 0)
		return;
	qsort(r->v, r->n, sizeof *r->v, cmp_ref);
	for (i = 0; i < r->n; i++)
		if (n == 0 || r->v[n - 1].off != r->v[i].off)
			r->v[n++] = r->v[i];
	r->n = n;
}

/* The trailer's directory entry I (the blob is verified). */
void
dump_trailer_entry(const dump_input *in, uint32_t i, uint32_t *tag, uint32_t *off,
    uint32_t *size)
{
	if (pcln_get_section(in->t, i, tag, off, size) < 0)
		*tag = *off = *size = 0;
}

uint32_t
dump_trailer_nsect(const dump_input *in)
{
	return (uint32_t)pcln_nsections(in->t);
}

/* Push the name of every INLPACK or INLTREE record (kind 1) onto STRS:
 * the section is a header, the record starts, then the records
 * (runtime/pclnrt_format.h). */
static int
inline_names(const dump_input *in, struct refs *strs)
{
	uint32_t nsect = dump_trailer_nsect(in), s, tag, off, size;
	int big = in->info.target.bigendian;
	struct pclnrt_inlform fm;
	uint64_t r, go12;

	go12 = in->info.go12size;
	for (s = 0; s < nsect; s++) {
		dump_trailer_entry(in, s, &tag, &off, &size);
		if ((tag != PCLN_SECT_INLTREE && tag != PCLN_SECT_INLPACK) ||
		    off > in->len || in->len - off < size ||
		    pclnrt_inlform_get(in->blob + off, size, tag,
		    in->info.nfunc, big, &fm) != 0)
			continue;
		for (r = fm.recs; size - r >= fm.size; r += fm.size) {
			struct pclnrt_inlrec rec;
			uint32_t name;

			pclnrt_inlrec_get(in->blob + off + r, &fm, big, &rec);
			name = rec.name;
			if (name == 0 || name >= go12 || memchr(in->blob +
			    name, 0, (size_t)(go12 - name)) == NULL)
				continue;
			if (push(strs, name, 1, 0) < 0)
				return -1;
		}
	}
	return 0;
}

static void
oom(pcln_err *err)
{
	err->code = PCLN_ENOMEM;
	err->offset = -1;
	strcpy(err->msg, "computing the size breakdown");
}

int
dump_compute_sizes(const dump_input *in, dump_sizes *sz, pcln_err *err)
{
	const pcln_table *t = in->t;
	unsigned ps = in->info.target.ptrsize;
	size_t n = in->info.nfunc, i, k;
	struct refs funcs = { 0 }, strs = { 0 }, tabs = { 0 };
	uint64_t sum = 0;
	int rc = -1;

	memset(sz, 0, sizeof *sz);
	sz->total = in->len;
	sz->bytes[PART_HEADER] = PCLN_FUNCTAB_OFF(ps);
	sz->bytes[PART_FUNCTAB] = PCLN_HDR_END(ps, n) - PCLN_FUNCTAB_OFF(ps);
	sz->bytes[PART_FILETAB] = 4 * ((uint64_t)in->info.nfile + 1);
	if (in->info.has_trailer) {
		/* Sections, directory and footer; alignment gaps between
		 * them count as padding, as in the builder's statistics. */
		uint32_t nsect = dump_trailer_nsect(in), tag, off, size, s;

		sz->bytes[PART_TRAILER] = PCLN_FOOTER_SIZE +
		    (uint64_t)nsect * PCLN_DIRENT_SIZE;
		for (s = 0; s < nsect; s++) {
			dump_trailer_entry(in, s, &tag, &off, &size);
			sz->bytes[PART_TRAILER] += size;
		}
	}

	for (i = 0; i < n; i++) {
		pcln_func f;

		if (pcln_get_func(t, i, &f) < 0)
			continue;
		if (push(&funcs, f.funcoff, (int)f.npcdata, f.nfuncdata) < 0 ||
		    push(&strs, (uint32_t)((const uint8_t *)f.name - in->blob),
		    0, 0) < 0)
			goto nomem;
		for (k = 0; k < 3; k++) {
			if (f.tab_off[k] == 0)
				continue;
			sz->refs[k]++;
			if (push(&tabs, f.tab_off[k], (int)k, f.entry) < 0)
				goto nomem;
		}
		for (k = 0; k < f.npcdata; k++) {
			uint32_t off = pcln_table_offset(t, i,
			    PCLN_TAB_PCDATA((int)k));
			if (off == 0)
				continue;
			sz->refs[3]++;
			if (push(&tabs, off, 3, f.entry) < 0)
				goto nomem;
		}
	}
	if (inline_names(in, &strs) < 0)
		goto nomem;
	for (i = 1; i <= in->info.nfile; i++) {
		const char *name = pcln_file_name(t, (uint32_t)i);
		if (name != NULL &&
		    push(&strs, (uint32_t)((const uint8_t *)name - in->blob),
		    2, 0) < 0)
			goto nomem;
	}

	/* Func records: KIND carries npcdata and ENTRY nfuncdata here. */
	uniq(&funcs);
	for (i = 0; i < funcs.n; i++) {
		uint32_t np = (uint32_t)funcs.v[i].kind;
		uint64_t nf = funcs.v[i].entry;
		sz->bytes[PART_FUNCS] += nf > 0 ?
		    PCLN_FUNC_FUNCDATA(ps, np, nf) : PCLN_FUNC_PCDATA(ps, np);
	}
	/* Strings shared by a function and a file count as function
	 * names; so do the names of inlined functions (kind 1), counted
	 * apart too when no function in the table has that name. */
	uniq(&strs);
	for (i = 0; i < strs.n; i++) {
		const char *s = (const char *)in->blob + strs.v[i].off;
		uint64_t len = strlen(s) + 1;
		if (strs.v[i].kind <= 1) {
			sz->bytes[PART_FUNCNAMES] += len;
			sz->nfuncnames++;
			sz->ninlnames += strs.v[i].kind == 1;
		} else {
			sz->bytes[PART_FILENAMES] += len;
			sz->nfilenames++;
		}
	}
	/* A table shared between kinds counts under the first of pcsp,
	 * pcfile, pcln, pcdata. */
	uniq(&tabs);
	for (i = 0; i < tabs.n; i++) {
		int kind = tabs.v[i].kind;
		sz->bytes[PART_PCSP + kind] += pclnrt_table_size(in->blob +
		    tabs.v[i].off, in->blob + in->len,
		    in->info.target.quantum);
		sz->distinct[kind]++;
	}
	for (k = 0; k < PART_N; k++)
		if (k != PART_PADDING)
			sum += sz->bytes[k];
	sz->bytes[PART_PADDING] = in->len >= sum ? in->len - sum : 0;
	rc = 0;
	goto out;
nomem:
	oom(err);
out:
	free(funcs.v);
	free(strs.v);
	free(tabs.v);
	return rc;
}
