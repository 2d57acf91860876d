/* verify.c -- check an untrusted pcln blob completely.
 *
 * Order: header, trailer (so FUNCSIZE is known), functab and sentinel,
 * file table, every Func record and its tables, and last the checksum (so
 * a structural fault is reported as itself, not as a checksum mismatch).
 * All arithmetic is in uint64_t on values bounded by the blob length, so
 * nothing overflows; every loop is bounded by nfunc or by the blob's bytes.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <xxhash.h>

#include "internal.h"

struct vctx {
	const uint8_t *b;
	uint64_t len;
	uint64_t go12;		/* length of the Go 1.2 part */
	int big;
	unsigned ps, q;
	uint64_t n;
	uint64_t hdr_end;
	uint64_t endpc;
	uint64_t nfile;
	int64_t funcsize;	/* offset of the FUNCSIZE section, or -1 */
	uint64_t nfuncsize;	/* entries in it */
	int64_t inltree;	/* offset of the INLPACK or INLTREE section,
				 * or -1 */
	uint64_t ninlsize;	/* its size */
	uint64_t ninlrec;	/* its records (inltree_head) */
	uint32_t inltag;	/* which of the two */
	struct pclnrt_inlform inl;	/* its layout (inltree_head) */
	int64_t findex;		/* offset of the FUNCINDEX section, or -1 */
	uint64_t nfindex;	/* its size */
	int64_t ckpt;		/* offset of the PCCKPT section, or -1 */
	uint64_t nckpt;		/* its size */
	int64_t symname;	/* offset of the SYMNAME section, or -1 */
	uint64_t nsymsize;	/* its size */
	uint64_t nsymrec;	/* its records (symname_head) */
	int has_trailer;
	struct pclnrt_footer foot;	/* if has_trailer */
	int one;		/* pcln_verify_func: check file names as used */
	uint64_t filetab;	/* offset of the file table */
	uint64_t extent;	/* end of the furthest structure seen */
	uint64_t last_end;	/* end of the last function checked */
	pcln_err *err;
};

static uint32_t
ld32(const struct vctx *v, uint64_t off)
{
	return pclnrt_load32(v->b + off, v->big);
}

static uint64_t
ldptr(const struct vctx *v, uint64_t off)
{
	return pclnrt_loadptr(v->b + off, v->ps, v->big);
}

static void
reach(struct vctx *v, uint64_t end)
{
	if (end > v->extent)
		v->extent = end;
}

/* Is there a NUL-terminated string at OFF inside the Go 1.2 part? */
static int
str_ok(struct vctx *v, uint64_t off)
{
	const uint8_t *nul;

	if (off < v->hdr_end || off >= v->go12 ||
	    (nul = memchr(v->b + off, 0, (size_t)(v->go12 - off))) == NULL)
		return 0;
	reach(v, (uint64_t)(nul - v->b) + 1);
	return 1;
}

static int
check_header(struct vctx *v)
{
	pcln_err *err = v->err;
	struct pclnrt_header h;
	int rc;

	if (v->len < 8)
		return pclni_seterr(err, PCLN_ETRUNC, (int64_t)v->len,
		    "blob of %" PRIu64 " bytes: shorter than the 8-byte header",
		    v->len);
	rc = pclnrt_header(v->b, &h);
	v->big = h.big;
	v->q = h.quantum;
	v->ps = h.ptrsize;
	if (rc == PCLN_HDR_EMAGIC)
		return pclni_seterr(err, PCLN_EMAGIC, 0, "header at 0x0: magic "
		    "0x%08" PRIx32 ", expected 0xfffffffb in either byte order",
		    pclnrt_load32(v->b, 1));
	if (!h.padok) {
		int at = v->b[PCLN_HDR_PAD0] ? PCLN_HDR_PAD0 : PCLN_HDR_PAD1;
		return pclni_seterr(err, PCLN_EHEADER, at, "header at 0x%x: pad "
		    "byte 0x%02x, expected 0", at, v->b[at]);
	}
	if (rc == PCLN_HDR_EQUANTUM)
		return pclni_seterr(err, PCLN_EHEADER, PCLN_HDR_QUANTUM,
		    "header at 0x6: pc quantum %u, expected 1, 2 or 4", v->q);
	if (rc == PCLN_HDR_EPTRSIZE)
		return pclni_seterr(err, PCLN_EHEADER, PCLN_HDR_PTRSIZE,
		    "header at 0x7: pointer size %u, expected 4 or 8", v->ps);
	if (v->len < 8 + v->ps)
		return pclni_seterr(err, PCLN_ETRUNC, (int64_t)v->len,
		    "blob of %" PRIu64 " bytes: header needs %u bytes", v->len,
		    8 + v->ps);
	return 0;
}

/* The trailer, if the blob ends in one.  Sets go12 and the sections. */
static int
check_trailer(struct vctx *v)
{
	pcln_err *err = v->err;
	struct pclnrt_footer f;
	struct pclnrt_sections sx;
	uint64_t foot, go12, diroff, nsect, i, prev_end, prev_tag = 0;

	v->go12 = v->len;
	v->funcsize = -1;
	if (!pclnrt_footer(v->b, v->len, v->big, &f))
		return 0;	/* plain Go 1.2 */
	foot = f.at;
	go12 = f.go12size;
	diroff = f.diroff;
	nsect = f.nsect;
	if (f.version != PCLN_TRAILER_VERSION)
		return pclni_seterr(err, PCLN_ETRAILER,
		    (int64_t)(foot + PCLN_FOOTER_VERSION), "trailer footer at "
		    "0x%" PRIx64 ": version %" PRIu32 ", expected %u", foot,
		    f.version, PCLN_TRAILER_VERSION);
	if (go12 < PCLN_HDR_END(v->ps, 0) || go12 > foot)
		return pclni_seterr(err, PCLN_ETRAILER,
		    (int64_t)(foot + PCLN_FOOTER_GO12SIZE), "trailer footer at "
		    "0x%" PRIx64 ": Go 1.2 size 0x%" PRIx64 ", expected 0x%x "
		    "to 0x%" PRIx64, foot, go12, PCLN_HDR_END(v->ps, 0), foot);
	if (diroff % PCLN_SECT_ALIGN != 0 || diroff < go12 ||
	    !pclnrt_dir_fits(&f, nsect) ||
	    diroff + nsect * PCLN_DIRENT_SIZE != foot)
		return pclni_seterr(err, PCLN_ETRAILER,
		    (int64_t)(foot + PCLN_FOOTER_DIROFF), "trailer footer at "
		    "0x%" PRIx64 ": directory at 0x%" PRIx64 " with %" PRIu64
		    " entries, expected 8-aligned, at least 0x%" PRIx64 " and "
		    "ending at the footer", foot, diroff, nsect, go12);
	/* Sections: in directory order, sorted by tag and by offset, 8-aligned,
	 * between go12size rounded up to 8 and the directory, zero padding
	 * between them. */
	prev_end = go12;
	for (i = 0; i < nsect; i++) {
		uint64_t de = diroff + i * PCLN_DIRENT_SIZE, k;
		struct pclnrt_dirent d;
		pclnrt_dirent(v->b, &f, i, v->big, &d);
		if (i > 0 && d.tag <= prev_tag)
			return pclni_seterr(err, PCLN_ETRAILER, (int64_t)de,
			    "trailer directory entry %" PRIu64 " at 0x%" PRIx64
			    ": tag %" PRIu32 " not above the previous tag %"
			    PRIu64, i, de, d.tag, prev_tag);
		if (d.off % PCLN_SECT_ALIGN != 0 || d.off < prev_end ||
		    d.off > diroff || d.size > diroff - d.off)
			return pclni_seterr(err, PCLN_ETRAILER, (int64_t)de,
			    "trailer directory entry %" PRIu64 " at 0x%" PRIx64
			    ": section at 0x%" PRIx32 " size 0x%" PRIx32
			    ", expected 8-aligned inside [0x%" PRIx64 ", 0x%"
			    PRIx64 ")", i, de, d.off, d.size, prev_end, diroff);
		for (k = prev_end; k < d.off; k++)
			if (v->b[k] != 0)
				return pclni_seterr(err, PCLN_ETRAILER,
				    (int64_t)k, "trailer padding byte at 0x%"
				    PRIx64 " is 0x%02x, expected 0", k, v->b[k]);
		if (d.tag == PCLN_SECT_BUILDID &&
		    (d.size == 0 || d.size > PCLN_BUILDID_MAX))
			return pclni_seterr(err, PCLN_ETRAILER,
			    (int64_t)de, "trailer directory entry %"
			    PRIu64 " at 0x%" PRIx64 ": BUILDID size %"
			    PRIu32 ", expected 1 to %u bytes", i, de, d.size,
			    PCLN_BUILDID_MAX);
		if (d.tag == PCLN_SECT_FUNCSIZE && d.size % 4 != 0)
			return pclni_seterr(err, PCLN_ETRAILER,
			    (int64_t)de, "trailer directory entry %"
			    PRIu64 " at 0x%" PRIx64 ": FUNCSIZE size %"
			    PRIu32 ", expected a multiple of 4", i, de,
			    d.size);
		prev_tag = d.tag;
		prev_end = (uint64_t)d.off + d.size;
	}
	for (i = prev_end; i < diroff; i++)
		if (v->b[i] != 0)
			return pclni_seterr(err, PCLN_ETRAILER, (int64_t)i,
			    "trailer padding byte at 0x%" PRIx64 " is 0x%02x, "
			    "expected 0", i, v->b[i]);
	/* Every entry is checked: each known tag is there at most once. */
	pclnrt_sections(v->b, &f, nsect, v->big, &sx);
	if (sx.present[PCLN_SECT_FUNCSIZE]) {
		v->funcsize = (int64_t)sx.off[PCLN_SECT_FUNCSIZE];
		v->nfuncsize = sx.size[PCLN_SECT_FUNCSIZE] / 4;
	}
	if (sx.present[PCLN_SECT_INLTREE] && sx.present[PCLN_SECT_INLPACK])
		return pclni_seterr(err, PCLN_ETRAILER,
		    (int64_t)sx.off[PCLN_SECT_INLPACK], "trailer INLPACK "
		    "section at 0x%" PRIx64 ": the blob has an INLTREE section "
		    "too, expected one of the two", sx.off[PCLN_SECT_INLPACK]);
	v->inltag = sx.present[PCLN_SECT_INLPACK] ? PCLN_SECT_INLPACK :
	    PCLN_SECT_INLTREE;
	if (sx.present[v->inltag]) {
		v->inltree = (int64_t)sx.off[v->inltag];
		v->ninlsize = sx.size[v->inltag];
	}
	if (sx.present[PCLN_SECT_FUNCINDEX]) {
		v->findex = (int64_t)sx.off[PCLN_SECT_FUNCINDEX];
		v->nfindex = sx.size[PCLN_SECT_FUNCINDEX];
	}
	if (sx.present[PCLN_SECT_PCCKPT]) {
		v->ckpt = (int64_t)sx.off[PCLN_SECT_PCCKPT];
		v->nckpt = sx.size[PCLN_SECT_PCCKPT];
	}
	if (sx.present[PCLN_SECT_SYMNAME]) {
		v->symname = (int64_t)sx.off[PCLN_SECT_SYMNAME];
		v->nsymsize = sx.size[PCLN_SECT_SYMNAME];
	}
	v->go12 = go12;
	v->has_trailer = 1;
	v->foot = f;
	return 0;
}

/* The function table's size, FUNCSIZE's agreement and the sentinel;
 * the entries are check_ftab_entry's. */
static int
functab_head(struct vctx *v)
{
	pcln_err *err = v->err;

	if (v->go12 < PCLN_HDR_END(v->ps, 0))
		return pclni_seterr(err, PCLN_ETRUNC, (int64_t)v->go12,
		    "Go 1.2 part of %" PRIu64 " bytes: shorter than the %u "
		    "bytes of an empty function table", v->go12,
		    PCLN_HDR_END(v->ps, 0));
	v->n = ldptr(v, PCLN_HDR_NFUNC);
	if (!pclnrt_nfunc_fits(v->go12, v->ps, v->n))
		return pclni_seterr(err, PCLN_EHEADER, PCLN_HDR_NFUNC,
		    "header at 0x8: nfunc %" PRIu64 " needs a functab larger "
		    "than the %" PRIu64 "-byte Go 1.2 part", v->n, v->go12);
	v->hdr_end = PCLN_HDR_END(v->ps, v->n);
	reach(v, v->hdr_end);
	if (v->funcsize >= 0 && v->nfuncsize != v->n)
		return pclni_seterr(err, PCLN_ETRAILER, v->funcsize,
		    "trailer FUNCSIZE section at 0x%" PRIx64 ": %" PRIu64
		    " sizes, expected nfunc = %" PRIu64, (uint64_t)v->funcsize,
		    v->nfuncsize, v->n);
	v->endpc = ldptr(v, PCLN_FTAB_END(v->ps, v->n));
	return 0;
}

/* Function table entry I: above the previous entry (the sentinel above
 * the last), a multiple of the quantum, its func offset aligned and
 * inside the Go 1.2 part. */
static int
check_ftab_entry(struct vctx *v, uint64_t i)
{
	pcln_err *err = v->err;
	uint64_t at = PCLN_FTAB_ENTRY(v->ps, i);
	uint64_t e = ldptr(v, at), fo = ldptr(v, at + v->ps);
	uint64_t prev = i > 0 ? ldptr(v, at - 2 * v->ps) : 0;

	if (i > 0 && e <= prev)
		return pclni_seterr(err, PCLN_EORDER, (int64_t)at,
		    "functab[%" PRIu64 "] at 0x%" PRIx64 ": entry 0x%" PRIx64
		    " not above previous entry 0x%" PRIx64, i, at, e, prev);
	if (e % v->q != 0)
		return pclni_seterr(err, PCLN_EFUNCTAB, (int64_t)at,
		    "functab[%" PRIu64 "] at 0x%" PRIx64 ": entry 0x%" PRIx64
		    " not a multiple of the pc quantum %u", i, at, e, v->q);
	if (fo % v->ps != 0 || fo < v->hdr_end || fo > v->go12 ||
	    v->go12 - fo < PCLN_FUNC_SIZE(v->ps))
		return pclni_seterr(err, PCLN_EFUNCTAB, (int64_t)(at + v->ps),
		    "functab[%" PRIu64 "] at 0x%" PRIx64 ": func offset 0x%"
		    PRIx64 ", expected a multiple of %u with a Func record "
		    "inside [0x%" PRIx64 ", 0x%" PRIx64 ")", i, at + v->ps, fo,
		    v->ps, v->hdr_end, v->go12);
	if (i + 1 == v->n && v->endpc < e)
		return pclni_seterr(err, PCLN_EFUNCTAB,
		    (int64_t)PCLN_FTAB_END(v->ps, v->n), "functab sentinel at "
		    "0x%" PRIx64 ": end pc 0x%" PRIx64 " below the last "
		    "entry 0x%" PRIx64, (uint64_t)PCLN_FTAB_END(v->ps, v->n),
		    v->endpc, e);
	return 0;
}

/* HEAD, then PER for every function: how pcln_verify checks the
 * function table and the per-function sections (pcln_verify_func runs
 * the same HEAD and PER for one function). */
static int
each_func(struct vctx *v, int (*head)(struct vctx *),
    int (*per)(struct vctx *, uint64_t))
{
	uint64_t i;

	if (head(v) != 0)
		return -1;
	for (i = 0; i < v->n; i++)
		if (per(v, i) != 0)
			return -1;
	return 0;
}

/* The file table's offset and slot count (file_ok checks a name). */
static int
filetab_head(struct vctx *v)
{
	pcln_err *err = v->err;
	uint64_t at = PCLN_FILETABOFF_OFF(v->ps, v->n);
	uint64_t ft = ld32(v, at), ns;

	if (ft % 4 != 0 || ft < v->hdr_end || ft > v->go12 - 4)
		return pclni_seterr(err, PCLN_EFILETAB, (int64_t)at,
		    "file table offset at 0x%" PRIx64 ": 0x%" PRIx64 ", expected "
		    "4-aligned inside [0x%" PRIx64 ", 0x%" PRIx64 ")", at, ft,
		    v->hdr_end, v->go12 - 4);
	ns = ld32(v, ft);
	if (ns < 1 || ns > (v->go12 - ft) / 4)
		return pclni_seterr(err, PCLN_EFILETAB, (int64_t)ft,
		    "file table at 0x%" PRIx64 ": %" PRIu64 " slots, expected 1 "
		    "to %" PRIu64, ft, ns, (v->go12 - ft) / 4);
	v->filetab = ft;
	v->nfile = ns - 1;
	reach(v, ft + 4 * ns);
	return 0;
}

/* File I's name (1 <= I <= nfile) is a string in the Go 1.2 part. */
static int
file_ok(struct vctx *v, uint64_t i)
{
	uint64_t so = ld32(v, v->filetab + 4 * i);

	if (!str_ok(v, so))
		return pclni_seterr(v->err, PCLN_ESTRING,
		    (int64_t)(v->filetab + 4 * i), "file table slot %" PRIu64
		    " at 0x%" PRIx64 ": name offset 0x%" PRIx64 " is not a "
		    "NUL-terminated string inside [0x%" PRIx64 ", 0x%" PRIx64
		    ")", i, v->filetab + 4 * i, so, v->hdr_end, v->go12);
	return 0;
}

static int
check_filetab(struct vctx *v)
{
	uint64_t i;

	if (filetab_head(v) != 0)
		return -1;
	for (i = 1; i <= v->nfile; i++)
		if (file_ok(v, i) != 0)
			return -1;
	return 0;
}

/* Decode the table at OFF (field at FIELD) of function I from ENTRY; it
 * must end at or before LIMIT.  Store the covered end in *END. */
static int
check_table(struct vctx *v, uint64_t i, uint64_t field, int tab,
    uint64_t off, uint64_t entry, uint64_t limit, uint64_t *end)
{
	pcln_err *err = v->err;
	struct pclnrt_pcstep s;
	char name[32];
	int rc;

	/* The name is for messages: formatted only on the way to one. */
#define NAME	(tab < 3 ? pclnrt_table_name(tab) : \
	    (snprintf(name, sizeof name, "pcdata[%d]", tab - 3), name))
	if (off < v->hdr_end || off >= v->go12)
		return pclni_seterr(err, PCLN_EPCTAB, (int64_t)field,
		    "function %" PRIu64 " at 0x%" PRIx64 ": %s offset 0x%"
		    PRIx64 ", expected 0 or inside [0x%" PRIx64 ", 0x%" PRIx64
		    ")", i, field, NAME, off, v->hdr_end, v->go12);
	pclnrt_pcstep_init(&s, v->b + off, v->b + v->go12, entry, v->q);
	while ((rc = pclnrt_pcstep(&s)) == 1) {
		if (s.nextpc < s.pc || s.nextpc > limit)
			return pclni_seterr(err, PCLN_EPCTAB,
			    (int64_t)(s.p - v->b), "function %" PRIu64 " %s "
			    "table at 0x%" PRIx64 ": row [0x%" PRIx64 ", 0x%"
			    PRIx64 ") ending at byte 0x%tx runs past 0x%"
			    PRIx64, i, NAME, off, s.pc, s.nextpc, s.p - v->b,
			    limit);
		if (tab == PCLN_TAB_PCFILE && s.value >= 1 &&
		    (uint64_t)s.value <= v->nfile && v->one &&
		    file_ok(v, (uint64_t)s.value) != 0)
			return -1;
		if (tab == PCLN_TAB_PCFILE &&
		    (s.value < 1 || (uint64_t)s.value > v->nfile))
			return pclni_seterr(err, PCLN_EFILETAB,
			    (int64_t)(s.p - v->b), "function %" PRIu64 " pcfile "
			    "table at 0x%" PRIx64 ": file %" PRId32 " for [0x%"
			    PRIx64 ", 0x%" PRIx64 ") before byte 0x%tx, expected "
			    "1 to %" PRIu64, i, off, s.value, s.pc, s.nextpc,
			    s.p - v->b, v->nfile);
	}
	if (rc == -1)
		return pclni_seterr(err, PCLN_ETRUNC, (int64_t)v->go12,
		    "function %" PRIu64 " %s table at 0x%" PRIx64 ": runs off "
		    "the end of the Go 1.2 part at 0x%" PRIx64 ", expected a "
		    "terminating 0", i, NAME, off, v->go12);
	if (rc == -2)
		return pclni_seterr(err, PCLN_EVARINT, (int64_t)(s.p - v->b),
		    "function %" PRIu64 " %s table at 0x%" PRIx64 ": varint at "
		    "0x%tx overflows 32 bits", i, NAME, off, s.p - v->b);
	*end = s.nextpc;
	reach(v, (uint64_t)(s.p - v->b));
	return 0;
#undef NAME
}

static int
check_func(struct vctx *v, uint64_t i)
{
	pcln_err *err = v->err;
	uint64_t at = PCLN_FTAB_ENTRY(v->ps, i);
	uint64_t entry = ldptr(v, at), fo = ldptr(v, at + v->ps);
	uint64_t next = i + 1 < v->n ? ldptr(v, at + 2 * v->ps) : v->endpc;
	uint64_t fe, nameoff, npc, nfd, recend, limit, size = 0, tend = 0, j;
	int sized = 0, t;

	fe = ldptr(v, fo);
	if (fe != entry)
		return pclni_seterr(err, PCLN_EFUNC, (int64_t)fo, "Func record "
		    "of function %" PRIu64 " at 0x%" PRIx64 ": entry 0x%" PRIx64
		    ", expected the functab entry 0x%" PRIx64, i, fo, fe, entry);
	nameoff = ld32(v, fo + PCLN_FUNC_NAMEOFF(v->ps));
	if (!str_ok(v, nameoff))
		return pclni_seterr(err, PCLN_ESTRING,
		    (int64_t)(fo + PCLN_FUNC_NAMEOFF(v->ps)), "Func record of "
		    "function %" PRIu64 " at 0x%" PRIx64 ": name offset 0x%"
		    PRIx64 " is not a NUL-terminated string inside [0x%" PRIx64
		    ", 0x%" PRIx64 ")", i, fo, nameoff, v->hdr_end, v->go12);
	npc = ld32(v, fo + PCLN_FUNC_NPCDATA(v->ps));
	nfd = ld32(v, fo + PCLN_FUNC_NFUNCDATA(v->ps));
	recend = nfd ? fo + pclni_funcdata_off(v->ps, npc, nfd) :
	    fo + PCLN_FUNC_PCDATA(v->ps, npc);
	if (npc > INT32_MAX || nfd > INT32_MAX || recend > v->go12)
		return pclni_seterr(err, PCLN_EFUNC,
		    (int64_t)(fo + PCLN_FUNC_NPCDATA(v->ps)), "Func record of "
		    "function %" PRIu64 " at 0x%" PRIx64 ": npcdata %" PRId32
		    " nfuncdata %" PRId32 " make it end at 0x%" PRIx64
		    ", expected inside the Go 1.2 part (0x%" PRIx64 ")", i, fo,
		    (int32_t)npc, (int32_t)nfd, recend, v->go12);
	reach(v, recend);
	/* The size: FUNCSIZE, else where pcsp (pcln, pcfile) ends. */
	if (v->funcsize >= 0) {
		size = ld32(v, (uint64_t)v->funcsize + 4 * i);
		if (size == 0 || size > next - entry)
			return pclni_seterr(err, PCLN_EPCTAB,
			    (int64_t)((uint64_t)v->funcsize + 4 * i),
			    "FUNCSIZE of function %" PRIu64 " at 0x%" PRIx64
			    ": size 0x%" PRIx64 ", expected 1 to 0x%" PRIx64
			    " (up to the next entry 0x%" PRIx64 ")", i,
			    (uint64_t)v->funcsize + 4 * i, size, next - entry,
			    next);
		sized = 1;
	}
	limit = sized ? entry + size : next;
	/* pcsp, pcln, pcfile, pcdata[0..]: without FUNCSIZE the first
	 * present table in this order sizes the function. */
	for (j = 0; j < 3 + npc; j++) {
		uint64_t field, o;
		t = (int)pclnrt_sizing_table(j);
		field = j < 3 ? fo + PCLN_FUNC_PCSP(v->ps) + 4u * (unsigned)t :
		    fo + PCLN_FUNC_PCDATA(v->ps, j - 3);
		if ((o = ld32(v, field)) == 0)
			continue;
		if (check_table(v, i, field, t, o, entry, limit, &tend) != 0)
			return -1;
		if (!sized) {
			size = tend - entry;
			limit = tend;
			sized = 1;
		} else if (tend != entry + size)
			return pclni_seterr(err, PCLN_EPCTAB, (int64_t)field,
			    "function %" PRIu64 " table %d (offset field at 0x%"
			    PRIx64 ") covers [0x%" PRIx64 ", 0x%" PRIx64 "), "
			    "expected [0x%" PRIx64 ", 0x%" PRIx64 ")", i, t,
			    field, entry, tend, entry, entry + size);
	}
	v->last_end = sized ? entry + size : next;
	return 0;
}

/* The name of the inline section, for messages. */
static const char *
inlsect(const struct vctx *v)
{
	return v->inltag == PCLN_SECT_INLPACK ? "INLPACK" : "INLTREE";
}

/* Offset of the inline section's start[] array. */
static uint64_t
inlstart(const struct vctx *v)
{
	return (uint64_t)v->inltree +
	    (v->inltag == PCLN_SECT_INLPACK ? PCLN_INLP_START : 0);
}

/* The inline section's header and size, the zero padding before
 * INLPACK's records, and the ends of its start[] array. */
static int
inltree_head(struct vctx *v)
{
	pcln_err *err = v->err;
	const struct pclnrt_inlform *fm = &v->inl;
	uint64_t base = (uint64_t)v->inltree, st0 = inlstart(v), k;

	if (pclnrt_inlform_get(v->b + base, v->ninlsize, v->inltag, v->n,
	    v->big, &v->inl) != 0 && v->ninlsize >= fm->recs)
		return pclni_seterr(err, PCLN_ETRAILER, (int64_t)base,
		    "trailer INLPACK section at 0x%" PRIx64 ": widths %u, %u, "
		    "%u, %u, expected each at most %u and at most 64 together",
		    base, v->b[base], v->b[base + 1], v->b[base + 2],
		    v->b[base + 3], PCLN_INLP_MAXBITS);
	if (v->ninlsize < fm->recs || (v->ninlsize - fm->recs) % fm->size != 0)
		return pclni_seterr(err, PCLN_ETRAILER, (int64_t)base,
		    "trailer %s section at 0x%" PRIx64 ": size %" PRIu64
		    ", expected %" PRIu64 " (header and start[nfunc + 1]) "
		    "plus a multiple of %u", inlsect(v), base, v->ninlsize,
		    fm->recs, fm->size);
	v->ninlrec = (v->ninlsize - fm->recs) / fm->size;
	for (k = st0 + 4 * (v->n + 1); k < base + fm->recs; k++)
		if (v->b[k] != 0)
			return pclni_seterr(err, PCLN_ETRAILER, (int64_t)k,
			    "trailer INLPACK padding byte at 0x%" PRIx64
			    " is 0x%02x, expected 0", k, v->b[k]);
	for (k = 0; k < 2; k++) {
		uint64_t i = k ? v->n : 0, st = ld32(v, st0 + 4 * i);
		if (st != (k ? v->ninlrec : 0))
			return pclni_seterr(err, PCLN_ETRAILER,
			    (int64_t)(st0 + 4 * i), "trailer %s start[%"
			    PRIu64 "] at 0x%" PRIx64 ": %" PRIu64 ", expected %s",
			    inlsect(v), i, st0 + 4 * i, st,
			    k ? "the record count" : "0");
	}
	return 0;
}

/* Function I's inline records: a range start[i] .. start[i+1] - 1 of
 * the records, each with a parent below it, a name and a file; its
 * inline pcdata values name its own records. */
static int
check_inl_func(struct vctx *v, uint64_t i)
{
	pcln_err *err = v->err;
	const struct pclnrt_inlform *fm = &v->inl;
	uint64_t base = (uint64_t)v->inltree + fm->recs, st0 = inlstart(v);
	uint64_t s0 = ld32(v, st0 + 4 * i), s1 = ld32(v, st0 + 4 * i + 4);
	uint64_t fo, npc, toff, k;
	struct pclnrt_pcstep s;
	int packed = v->inltag == PCLN_SECT_INLPACK, rc;

	if (s1 < s0 || s1 > v->ninlrec)
		return pclni_seterr(err, PCLN_ETRAILER,
		    (int64_t)(st0 + 4 * i + 4), "trailer %s start[%"
		    PRIu64 "] at 0x%" PRIx64 ": %" PRIu64 ", expected not "
		    "below the previous one and at most the record count",
		    inlsect(v), i + 1, st0 + 4 * i + 4, s1);
	for (k = s0; k < s1; k++) {
		uint64_t r = base + fm->size * k;
		struct pclnrt_inlrec in;
		uint64_t file;

		pclnrt_inlrec_get(v->b + r, fm, v->big, &in);
		file = (uint32_t)in.file;
		if (in.parent < -1 || in.parent >= (int64_t)(k - s0))
			return pclni_seterr(err, PCLN_ETRAILER, (int64_t)r,
			    "%s record %" PRIu64 " of function %" PRIu64
			    " at 0x%" PRIx64 ": parent %" PRId32 ", expected -1 "
			    "to %" PRId64, inlsect(v), k - s0, i, r, in.parent,
			    (int64_t)(k - s0) - 1);
		if (!str_ok(v, in.name))
			return pclni_seterr(err, PCLN_ESTRING,
			    (int64_t)(r + (packed ? 0 : PCLN_INL_NAME)),
			    "%s record %" PRIu64 " of function %" PRIu64
			    " at 0x%" PRIx64 ": name offset 0x%" PRIx32 " is not "
			    "a string in the Go 1.2 part", inlsect(v), k - s0,
			    i, r, in.name);
		if (file < 1 || file > v->nfile)
			return pclni_seterr(err, PCLN_EFILETAB,
			    (int64_t)(r + (packed ? 0 : PCLN_INL_FILE)),
			    "%s record %" PRIu64 " of function %" PRIu64
			    " at 0x%" PRIx64 ": file %" PRIu64 ", expected 1 to %"
			    PRIu64, inlsect(v), k - s0, i, r, file, v->nfile);
		if (v->one && file_ok(v, file) != 0)
			return -1;
	}
	fo = ldptr(v, PCLN_FTAB_ENTRY(v->ps, i) + v->ps);
	npc = ld32(v, fo + PCLN_FUNC_NPCDATA(v->ps));
	if (npc <= PCLN_PCDATA_INLTREE || (toff = ld32(v, fo +
	    PCLN_FUNC_PCDATA(v->ps, PCLN_PCDATA_INLTREE))) == 0)
		return 0;
	/* check_func decoded this table already: it terminates. */
	pclnrt_pcstep_init(&s, v->b + toff, v->b + v->go12, 0, v->q);
	while ((rc = pclnrt_pcstep(&s)) == 1)
		if (s.value < -1 || s.value >= (int64_t)(s1 - s0))
			return pclni_seterr(err, PCLN_EPCTAB, (int64_t)toff,
			    "function %" PRIu64 " inline pcdata table at 0x%"
			    PRIx64 ": index %" PRId32 ", expected -1 to %" PRId64,
			    i, toff, s.value, (int64_t)(s1 - s0) - 1);
	return 0;
}

/* The FUNCINDEX section (after the function table was checked): its
 * header matches the text, and every sub-bucket names exactly the last
 * function whose entry is <= the sub-bucket's first pc, with maxscan
 * exactly the longest forward scan a pc in it needs.  O(nfunc + the
 * number of sub-buckets), and that number is bounded by the size. */
static int
check_findex(struct vctx *v)
{
	pcln_err *err = v->err;
	uint64_t base = (uint64_t)v->findex, minpc, shift, scan, nb, res;
	uint64_t j, i = 0, k, seen = 0, rb = 0, sub;

	if (v->n == 0 || v->nfindex < PCLN_FIDX_HDR)
		return pclni_seterr(err, PCLN_ETRAILER, (int64_t)base,
		    "trailer FUNCINDEX section at 0x%" PRIx64 ": size %" PRIu64
		    " with %" PRIu64 " functions, expected at least %u bytes "
		    "and one function", base, v->nfindex, v->n, PCLN_FIDX_HDR);
	minpc = ldptr(v, PCLN_FTAB_ENTRY(v->ps, 0));
	shift = ld32(v, base + PCLN_FIDX_SHIFT);
	scan = ld32(v, base + PCLN_FIDX_MAXSCAN);
	nb = ld32(v, base + PCLN_FIDX_NBUCKET);
	res = ld32(v, base + PCLN_FIDX_RESERVED);
	if (shift > PCLN_FIDX_SHIFT_MAX || scan > PCLN_FIDX_SCAN_LIMIT ||
	    res != 0)
		return pclni_seterr(err, PCLN_ETRAILER, (int64_t)base,
		    "trailer FUNCINDEX section at 0x%" PRIx64 ": shift %"
		    PRIu64 " maxscan %" PRIu64 " reserved %" PRIu64 ", expected "
		    "at most %u, at most %u and 0", base, shift, scan, res,
		    PCLN_FIDX_SHIFT_MAX, PCLN_FIDX_SCAN_LIMIT);
	if (v->endpc <= minpc ||
	    nb != ((v->endpc - minpc - 1) >> (shift + 4)) + 1 ||
	    v->nfindex != PCLN_FIDX_HDR + PCLN_FIDX_BUCKET * nb)
		return pclni_seterr(err, PCLN_ETRAILER,
		    (int64_t)(base + PCLN_FIDX_NBUCKET), "trailer FUNCINDEX "
		    "section at 0x%" PRIx64 ": %" PRIu64 " buckets in %" PRIu64
		    " bytes, expected %" PRIu64 " buckets of 2^%" PRIu64
		    " bytes for text [0x%" PRIx64 ", 0x%" PRIx64 ")", base, nb,
		    v->nfindex, v->endpc > minpc ? ((v->endpc - minpc - 1) >>
		    (shift + 4)) + 1 : 0, shift + 4, minpc, v->endpc);
	sub = (uint64_t)1 << shift;
	for (j = 0; j < nb * PCLN_FIDX_NSUB; j++) {
		uint64_t lo = minpc + (j << shift), last = lo + (sub - 1);
		uint64_t rec = base + PCLN_FIDX_HDR + PCLN_FIDX_BUCKET *
		    (j / PCLN_FIDX_NSUB), got;
		uint8_t d = v->b[rec + 4 + j % PCLN_FIDX_NSUB];
		if (lo >= v->endpc)
			last = lo;
		while (i + 1 < v->n && ldptr(v, PCLN_FTAB_ENTRY(v->ps, i + 1))
		    <= lo)
			i++;
		for (k = i; k + 1 < v->n && ldptr(v, PCLN_FTAB_ENTRY(v->ps,
		    k + 1)) <= last && k - i <= scan; k++)
			;
		if (j % PCLN_FIDX_NSUB == 0)
			rb = ld32(v, rec);
		got = rb + d;
		if (got != i || (j % PCLN_FIDX_NSUB == 0 && d != 0) ||
		    k - i > scan)
			return pclni_seterr(err, PCLN_ETRAILER,
			    (int64_t)(rec + 4 + j % PCLN_FIDX_NSUB), "trailer "
			    "FUNCINDEX sub-bucket %" PRIu64 " (pc 0x%" PRIx64
			    "): function %" PRIu64 " (delta %u) and scan %"
			    PRIu64 ", expected function %" PRIu64 " (delta 0 "
			    "first) and scan at most %" PRIu64, j, lo, got, d,
			    k - i, i, scan);
		if (k - i > seen)
			seen = k - i;
	}
	if (seen != scan)
		return pclni_seterr(err, PCLN_ETRAILER,
		    (int64_t)(base + PCLN_FIDX_MAXSCAN), "trailer FUNCINDEX "
		    "section at 0x%" PRIx64 ": maxscan %" PRIu64 ", expected %"
		    PRIu64, base, scan, seen);
	return 0;
}

/* One table of function I against its checkpoints (PCCKPT): TAB, at
 * blob offset OFF (present; check_func decoded it), has a descriptor DE
 * (0 if none) that must exist exactly when the table has more than
 * STRIDE rows, with arrays at blob offset ARR, ROOM bytes before its
 * block (at B0) ends, their size in *ASIZE, that must hold the walk's
 * states after every STRIDE rows. */
static int
check_ckpt_table(struct vctx *v, uint64_t i, uint64_t tab, uint64_t off,
    uint64_t de, uint64_t stride, uint64_t b0, uint64_t arr, uint64_t room,
    uint64_t *asize)
{
	pcln_err *err = v->err;
	struct pclnrt_pcstep s;
	uint64_t rows = 0, form = 0, cnt = 0, w = 4, aw = 0, m = 0;
	uint64_t bad = 0, got[3] = { 0, 0, 0 }, want[3] = { 0, 0, 0 };
	uint64_t badm = 0, badrow = 0;
	int shape = 0;

	*asize = 0;
	if (de != 0) {
		form = pclnrt_load16(v->b + de + 2, v->big);
		cnt = ld32(v, de + 8);
		if (form == PCLN_CKPT_NARROW)
			w = 2;
		shape = (form == PCLN_CKPT_NARROW || form == PCLN_CKPT_WIDE) &&
		    ld32(v, de + 4) == arr - b0 &&
		    PCLN_CKPT_ARRAYS(cnt, w) <= room;
		aw = (cnt * w + 3) & ~(uint64_t)3;
	}
	/* One pass: count the rows and compare each checkpoint (if the
	 * descriptor's shape lets the arrays be read) with the state. */
	pclnrt_pcstep_init(&s, v->b + off, v->b + v->go12, 0, v->q);
	while (pclnrt_pcstep(&s) == 1) {
		rows++;
		if (!shape || bad || rows % stride != 0 || m >= cnt)
			continue;
		if (w == 2) {
			got[0] = pclnrt_load16(v->b + arr + 2 * m, v->big);
			got[1] = pclnrt_load16(v->b + arr + aw + 2 * m, v->big);
		} else {
			got[0] = ld32(v, arr + 4 * m);
			got[1] = ld32(v, arr + aw + 4 * m);
		}
		got[2] = ld32(v, arr + 2 * aw + 4 * m);
		want[0] = s.nextpc;
		want[1] = (uint64_t)(s.p - (v->b + off));
		want[2] = (uint32_t)s.value;
		if (got[0] != want[0] || got[1] != want[1] || got[2] != want[2]) {
			bad = 1;
			badm = m;
			badrow = rows;
		}
		m++;
	}
	if (de == 0 && rows > stride)
		return pclni_seterr(err, PCLN_ETRAILER, (int64_t)v->ckpt,
		    "trailer PCCKPT section at 0x%" PRIx64 ": no descriptor for"
		    " function %" PRIu64 " table %" PRIu64 " (%" PRIu64 " rows),"
		    " expected one for every table over the stride %" PRIu64,
		    (uint64_t)v->ckpt, i, tab, rows, stride);
	if (de == 0)
		return 0;
	if (rows <= stride || !shape || cnt != (rows - 1) / stride)
		return pclni_seterr(err, PCLN_ETRAILER, (int64_t)de,
		    "PCCKPT descriptor at 0x%" PRIx64 " of function %" PRIu64
		    " table %" PRIu64 " (%" PRIu64 " rows, stride %" PRIu64 "): "
		    "form %" PRIu64 ", %" PRIu64 " checkpoints, expected %s", de,
		    i, tab, rows, stride, form, cnt, rows <= stride ?
		    "no descriptor (too few rows)" : "form 1 or 2, (rows - 1) "
		    "/ stride checkpoints, and arrays right after the previous "
		    "ones inside the block");
	if (bad)
		return pclni_seterr(err, PCLN_ETRAILER,
		    (int64_t)(arr + w * badm), "PCCKPT checkpoint %" PRIu64
		    " of function %" PRIu64 " table %" PRIu64 " (arrays at 0x%"
		    PRIx64 "): pc offset 0x%" PRIx64 " byte %" PRIu64 " value %"
		    PRId32 ", expected 0x%" PRIx64 " byte %" PRIu64 " value %"
		    PRId32 " (the state after row %" PRIu64 ")", badm, i, tab,
		    arr, got[0], got[1], (int32_t)got[2], want[0], want[1],
		    (int32_t)want[2], badrow);
	*asize = PCLN_CKPT_ARRAYS(cnt, w);
	/* Padding inside the arrays is zero, so the bytes are canonical. */
	for (m = cnt * w; m < aw; m++)
		if (v->b[arr + m] != 0 || v->b[arr + aw + m] != 0)
			return pclni_seterr(err, PCLN_ETRAILER, (int64_t)(arr +
			    m), "PCCKPT arrays at 0x%" PRIx64 " of function %"
			    PRIu64 " table %" PRIu64 ": padding not zero", arr,
			    i, tab);
	return 0;
}

/* The PCCKPT section's header and the ends of its start[] array. */
static int
ckpt_head(struct vctx *v)
{
	pcln_err *err = v->err;
	uint64_t base = (uint64_t)v->ckpt, stride, res0, res, blkb, k;

	if (v->nckpt < PCLN_CKPT_HDR)
		return pclni_seterr(err, PCLN_ETRAILER, (int64_t)base,
		    "trailer PCCKPT section at 0x%" PRIx64 ": size %" PRIu64
		    ", expected at least %u", base, v->nckpt, PCLN_CKPT_HDR);
	stride = ld32(v, base + PCLN_CKPT_STRIDE);
	res0 = ld32(v, base + PCLN_CKPT_RESERVED0);
	blkb = ld32(v, base + PCLN_CKPT_BLKBYTES);
	res = ld32(v, base + PCLN_CKPT_RESERVED);
	if (stride < 1 || stride > PCLN_CKPT_STRIDE_MAX || res0 != 0 ||
	    res != 0 || v->nckpt != PCLN_CKPT_HDR + 4 * (v->n + 1) + blkb)
		return pclni_seterr(err, PCLN_ETRAILER, (int64_t)base,
		    "trailer PCCKPT section at 0x%" PRIx64 ": stride %" PRIu64
		    " reserved %" PRIu64 " %" PRIu64 ", %" PRIu64 " block bytes "
		    "in %" PRIu64 " bytes, expected a stride of 1 to %u, 0, 0, "
		    "and 16 + 4 * (nfunc + 1) + block bytes", base, stride,
		    res0, res, blkb, v->nckpt, PCLN_CKPT_STRIDE_MAX);
	for (k = 0; k < 2; k++) {
		uint64_t i = k ? v->n : 0, at = base + PCLN_CKPT_HDR + 4 * i;
		uint64_t st = ld32(v, at);
		if (st != (k ? blkb : 0))
			return pclni_seterr(err, PCLN_ETRAILER, (int64_t)at,
			    "trailer PCCKPT start[%" PRIu64 "] at 0x%" PRIx64
			    ": %" PRIu64 ", expected %s", i, at, st, k ?
			    "the block bytes" : "0");
	}
	return 0;
}

/* Function I's PCCKPT block: start[i + 1] in range, then its
 * descriptors, sorted by table, for exactly its tables over the stride,
 * whose arrays follow one another to the block's end
 * (check_ckpt_table). */
static int
check_ckpt_func(struct vctx *v, uint64_t i)
{
	pcln_err *err = v->err;
	uint64_t base = (uint64_t)v->ckpt;
	uint64_t stride = ld32(v, base + PCLN_CKPT_STRIDE);
	uint64_t blkb = ld32(v, base + PCLN_CKPT_BLKBYTES);
	uint64_t blocks = base + PCLN_CKPT_HDR + 4 * (v->n + 1);
	uint64_t at = base + PCLN_CKPT_HDR + 4 * i + 4;
	uint64_t s0 = ld32(v, at - 4), s1 = ld32(v, at), b0, b1;
	uint64_t fo = ldptr(v, PCLN_FTAB_ENTRY(v->ps, i) + v->ps);
	uint64_t npc = ld32(v, fo + PCLN_FUNC_NPCDATA(v->ps));
	uint64_t nd = 0, d = 0, arr, tab;

	if (s1 < s0 || s1 > blkb || s1 % 4 != 0)
		return pclni_seterr(err, PCLN_ETRAILER, (int64_t)at,
		    "trailer PCCKPT start[%" PRIu64 "] at 0x%" PRIx64 ": %"
		    PRIu64 ", expected a multiple of 4, not below the previous "
		    "one and at most the block bytes", i + 1, at, s1);
	b0 = blocks + s0;
	b1 = blocks + s1;
	if (b1 > b0) {
		nd = b1 - b0 >= 4 ? ld32(v, b0) : 0;
		if (nd == 0 || 4 + PCLN_CKPT_DESC * nd > b1 - b0)
			return pclni_seterr(err, PCLN_ETRAILER, (int64_t)b0,
			    "PCCKPT block of function %" PRIu64 " at 0x%" PRIx64
			    " (%" PRIu64 " bytes): %" PRIu64 " descriptors, "
			    "expected 1 to fit", i, b0, b1 - b0, nd);
	}
	arr = nd ? b0 + 4 + PCLN_CKPT_DESC * nd : b0;
	for (tab = 0; tab < 3 + npc; tab++) {
		uint64_t field = tab < 3 ? fo + PCLN_FUNC_PCSP(v->ps) + 4 * tab :
		    fo + PCLN_FUNC_PCDATA(v->ps, tab - 3);
		uint64_t off = ld32(v, field), de = 0, asz;
		if (d < nd && pclnrt_load16(v->b + b0 + 4 + PCLN_CKPT_DESC * d,
		    v->big) == tab) {
			de = b0 + 4 + PCLN_CKPT_DESC * d++;
			if (off == 0)
				return pclni_seterr(err, PCLN_ETRAILER,
				    (int64_t)de, "PCCKPT descriptor at 0x%"
				    PRIx64 " of function %" PRIu64 ": table %"
				    PRIu64 " is absent", de, i, tab);
		}
		if (off != 0 && check_ckpt_table(v, i, tab, off, de, stride, b0,
		    arr, b1 - arr, &asz) != 0)
			return -1;
		if (de != 0)
			arr += asz;
	}
	if (d != nd || arr != b1)
		return pclni_seterr(err, PCLN_ETRAILER, (int64_t)(d < nd ?
		    b0 + 4 + PCLN_CKPT_DESC * d : arr), "PCCKPT block of "
		    "function %" PRIu64 " at 0x%" PRIx64 ": %s, expected tables "
		    "in increasing order below %" PRIu64 " and arrays filling "
		    "the block", i, b0, d < nd ? "descriptor for no table" :
		    "bytes after the arrays", 3 + npc);
	return 0;
}

/* The SYMNAME section's header (after the function table was
 * checked): its size is its count's, the reserved word 0, at most
 * nfunc records. */
static int
symname_head(struct vctx *v)
{
	uint64_t base = (uint64_t)v->symname, n;

	if (v->nsymsize < PCLN_SYMN_HDR)
		return pclni_seterr(v->err, PCLN_ETRAILER, (int64_t)base,
		    "trailer SYMNAME section at 0x%" PRIx64 ": %" PRIu64
		    " bytes, expected at least %u", base, v->nsymsize,
		    PCLN_SYMN_HDR);
	n = ld32(v, base);
	if (n > v->n || v->nsymsize != PCLN_SYMN_HDR + PCLN_SYMN_SIZE * n)
		return pclni_seterr(v->err, PCLN_ETRAILER, (int64_t)base,
		    "trailer SYMNAME section at 0x%" PRIx64 ": count %" PRIu64
		    " in %" PRIu64 " bytes, expected at most nfunc = %" PRIu64
		    " records and %u + %u bytes each", base, n, v->nsymsize,
		    v->n, PCLN_SYMN_HDR, PCLN_SYMN_SIZE);
	if (ld32(v, base + 4) != 0)
		return pclni_seterr(v->err, PCLN_ETRAILER, (int64_t)base + 4,
		    "trailer SYMNAME section at 0x%" PRIx64 ": reserved word "
		    "0x%" PRIx32 ", expected 0", base, ld32(v, base + 4));
	v->nsymrec = n;
	return 0;
}

/* SYMNAME record K: its function above the record before's (PREV, or
 * -1 for the first) and below nfunc, its name a string in the Go 1.2
 * part. */
static int
check_symrec(struct vctx *v, uint64_t k, int64_t prev)
{
	uint64_t at = (uint64_t)v->symname + PCLN_SYMN_HDR +
	    PCLN_SYMN_SIZE * k;
	uint64_t f = ld32(v, at), name = ld32(v, at + 4);

	if (f >= v->n || (int64_t)f <= prev)
		return pclni_seterr(v->err, PCLN_ETRAILER, (int64_t)at,
		    "trailer SYMNAME record %" PRIu64 " at 0x%" PRIx64
		    ": function %" PRIu64 ", expected above %" PRId64
		    " and below nfunc = %" PRIu64, k, at, f, prev, v->n);
	if (!str_ok(v, name))
		return pclni_seterr(v->err, PCLN_ETRAILER, (int64_t)at + 4,
		    "trailer SYMNAME record %" PRIu64 " at 0x%" PRIx64
		    ": name at 0x%" PRIx64 " is not a NUL-terminated string "
		    "inside [0x%" PRIx64 ", 0x%" PRIx64 ")", k, at, name,
		    v->hdr_end, v->go12);
	return 0;
}

static int
check_symname(struct vctx *v)
{
	int64_t prev = -1;
	uint64_t k;

	if (symname_head(v) != 0)
		return -1;
	for (k = 0; k < v->nsymrec; k++) {
		if (check_symrec(v, k, prev) != 0)
			return -1;
		prev = (int64_t)ld32(v, (uint64_t)v->symname +
		    PCLN_SYMN_HDR + PCLN_SYMN_SIZE * k);
	}
	return 0;
}

/* Function I's SYMNAME record, if it has one (a binary search, then
 * that record as check_symrec sees it, against the one before). */
static int
check_symname_func(struct vctx *v, uint64_t i)
{
	uint64_t lo = 0, hi, mid, base = (uint64_t)v->symname +
	    PCLN_SYMN_HDR;

	if (symname_head(v) != 0)
		return -1;
	hi = v->nsymrec;
	while (lo < hi) {
		uint64_t f;
		mid = lo + (hi - lo) / 2;
		f = ld32(v, base + PCLN_SYMN_SIZE * mid);
		if (f == i)
			return check_symrec(v, mid, mid == 0 ? -1 :
			    (int64_t)ld32(v, base + PCLN_SYMN_SIZE *
			    (mid - 1)));
		if (f < i)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/* The function's end against the sentinel, for the last function. */
static int
check_last_end(struct vctx *v)
{
	if (v->n > 0 && v->last_end != v->endpc)
		return pclni_seterr(v->err, PCLN_EFUNCTAB,
		    (int64_t)PCLN_FTAB_END(v->ps, v->n), "functab sentinel at "
		    "0x%" PRIx64 ": end pc 0x%" PRIx64 ", expected the end of "
		    "the last function 0x%" PRIx64,
		    (uint64_t)PCLN_FTAB_END(v->ps, v->n), v->endpc, v->last_end);
	return 0;
}

int
pcln_verify_func(const uint8_t *blob, size_t len, size_t i, pcln_err *err)
{
	struct vctx v;

	pclni_clearerr(err);
	if (blob == NULL)
		return pclni_seterr(err, PCLN_EINVAL, -1, "blob: NULL");
	memset(&v, 0, sizeof v);
	v.b = blob;
	v.len = len;
	v.err = err;
	v.inltree = -1;
	v.findex = -1;
	v.ckpt = -1;
	v.symname = -1;
	v.one = 1;
	if (check_header(&v) != 0 || check_trailer(&v) != 0 ||
	    functab_head(&v) != 0 || filetab_head(&v) != 0)
		return -1;
	if (i >= v.n)
		return pclni_seterr(err, PCLN_EINVAL, -1, "function %zu: the "
		    "blob has %" PRIu64 " functions", i, v.n);
	if (check_ftab_entry(&v, i) != 0 || (i + 1 < v.n &&
	    check_ftab_entry(&v, i + 1) != 0) || check_func(&v, i) != 0 ||
	    (i + 1 == v.n && check_last_end(&v) != 0))
		return -1;
	if (v.inltree >= 0 && (inltree_head(&v) != 0 ||
	    check_inl_func(&v, i) != 0))
		return -1;
	if (v.ckpt >= 0 && (ckpt_head(&v) != 0 || check_ckpt_func(&v, i) != 0))
		return -1;
	if (v.symname >= 0 && check_symname_func(&v, i) != 0)
		return -1;
	return 0;
}

int
pcln_verify(const uint8_t *blob, size_t len, pcln_err *err)
{
	struct vctx v;
	uint64_t i;

	pclni_clearerr(err);
	if (blob == NULL)
		return pclni_seterr(err, PCLN_EINVAL, -1, "blob: NULL");
	memset(&v, 0, sizeof v);
	v.b = blob;
	v.len = len;
	v.err = err;
	v.inltree = -1;
	v.findex = -1;
	v.ckpt = -1;
	v.symname = -1;
	if (check_header(&v) != 0 || check_trailer(&v) != 0 ||
	    each_func(&v, functab_head, check_ftab_entry) != 0 ||
	    check_filetab(&v) != 0)
		return -1;
	for (i = 0; i < v.n; i++)
		if (check_func(&v, i) != 0)
			return -1;
	if (check_last_end(&v) != 0)
		return -1;
	if (v.inltree >= 0 && each_func(&v, inltree_head, check_inl_func) != 0)
		return -1;
	if (v.findex >= 0 && check_findex(&v) != 0)
		return -1;
	if (v.ckpt >= 0 && each_func(&v, ckpt_head, check_ckpt_func) != 0)
		return -1;
	if (v.symname >= 0 && check_symname(&v) != 0)
		return -1;
	/* Nothing may follow the Go 1.2 data but a whole trailer: this is
	 * what catches a truncated or damaged trailer. */
	if (v.extent != v.go12)
		return pclni_seterr(err, PCLN_ETRAILER, (int64_t)v.extent,
		    "0x%" PRIx64 " bytes after the end of the Go 1.2 data at 0x%"
		    PRIx64 ", expected %s", v.go12 - v.extent, v.extent,
		    v.has_trailer ? "the trailer's Go 1.2 size to end there" :
		    "none, or a pcln trailer ending in \"" PCLN_TRAILER_MAGIC
		    "\"");
	if (v.has_trailer) {
		uint64_t foot = v.foot.at, want = v.foot.checksum;
		uint64_t got = XXH64(blob, (size_t)(v.len - 16), 0);
		if (got != want)
			return pclni_seterr(err, PCLN_ECHECKSUM,
			    (int64_t)(foot + PCLN_FOOTER_CHECKSUM), "trailer "
			    "footer at 0x%" PRIx64 ": checksum 0x%016" PRIx64
			    ", computed 0x%016" PRIx64, foot, want, got);
	}
	return 0;
}
