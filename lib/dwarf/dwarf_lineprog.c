/* dwarf_lineprog.c -- the one thing about a line program libdw does not
 * tell: which rows sit at the very end of their own sequence.
 *
 * Such a row (gas writes one where a .loc precedes the end of a section)
 * describes no byte.  libdw sorts every row of a unit by address (an
 * end of sequence first, then input order), so when one sequence ends
 * where another of the same unit starts, its empty final row and the
 * next sequence's first rows meet at one address and, depending on
 * which sequence came first in the program, the empty row may win:
 * the function starting there then gets the previous function's last
 * line.  dwarf_line.c asks only for units where an end of sequence and
 * a row share an address (20 units of 13,000 sequences ends in
 * googlemock's test program); this decodes that unit's program (the
 * standard and special opcodes of DWARF 2-5, no more) just far enough to
 * list the rows at their sequence's end.
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "dwarf_internal.h"

struct cursor {
	const unsigned char *p, *end;
	int big, bad;
};

static uint64_t
getn(struct cursor *c, unsigned n)
{
	uint64_t v = 0;
	unsigned i;

	if (n > 8 || (size_t)(c->end - c->p) < n) {
		c->bad = 1;
		c->p = c->end;
		return 0;
	}
	for (i = 0; i < n; i++)
		v |= (uint64_t)c->p[c->big ? n - 1 - i : i] << (8 * i);
	c->p += n;
	return v;
}

static uint64_t
uleb(struct cursor *c)
{
	uint64_t v = 0;
	unsigned shift = 0;

	while (c->p < c->end) {
		unsigned char b = *c->p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			return v;
	}
	c->bad = 1;
	return v;
}

static int64_t
sleb(struct cursor *c)
{
	uint64_t v = 0;
	unsigned shift = 0;
	unsigned char b = 0;

	while (c->p < c->end) {
		b = *c->p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			break;
	}
	if (shift < 64 && (b & 0x40))
		v |= ~(uint64_t)0 << shift;
	return (int64_t)v;
}

/* The program header fields the opcodes need. */
struct lhdr {
	unsigned version, min_inst, max_ops, line_range, opcode_base;
	int line_base;
	const unsigned char *std_lens;
	unsigned addr_size;
};

/* The state machine's registers that identify a row. */
struct lstate {
	uint64_t addr;
	unsigned op_index;
	uint64_t file, col;
	int64_t line;
};

/* The last rows of the sequence being decoded, at one address. */
#define TAIL_MAX 8
struct tail {
	struct lstate r[TAIL_MAX];
	size_t n;
};

static int
read_header(struct cursor *c, struct lhdr *h)
{
	uint64_t len, hlen;
	unsigned osz = 4;

	len = getn(c, 4);
	if (len == 0xffffffffu) {
		osz = 8;
		len = getn(c, 8);
	}
	if (c->bad || len > (uint64_t)(c->end - c->p))
		return -1;
	c->end = c->p + len;
	h->version = (unsigned)getn(c, 2);
	if (h->version < 2 || h->version > 5)
		return -1;
	if (h->version >= 5) {
		h->addr_size = (unsigned)getn(c, 1);
		(void)getn(c, 1);
	}
	hlen = getn(c, osz);
	if (c->bad || hlen > (uint64_t)(c->end - c->p))
		return -1;
	{
		const unsigned char *prog = c->p + hlen;
		h->min_inst = (unsigned)getn(c, 1);
		h->max_ops = h->version >= 4 ? (unsigned)getn(c, 1) : 1;
		(void)getn(c, 1);		/* default_is_stmt */
		h->line_base = (signed char)getn(c, 1);
		h->line_range = (unsigned)getn(c, 1);
		h->opcode_base = (unsigned)getn(c, 1);
		h->std_lens = c->p;
		if (c->bad || h->line_range == 0 || h->max_ops == 0 ||
		    h->opcode_base == 0 ||
		    (size_t)(prog - c->p) < h->opcode_base - 1)
			return -1;
		c->p = prog;
	}
	return 0;
}

static void
advance(const struct lhdr *h, struct lstate *s, uint64_t adv)
{
	s->addr += h->min_inst * ((s->op_index + adv) / h->max_ops);
	s->op_index = (unsigned)((s->op_index + adv) % h->max_ops);
}

static void
emit(struct tail *t, const struct lstate *s)
{
	if (t->n > 0 && t->r[0].addr != s->addr)
		t->n = 0;
	if (t->n == TAIL_MAX)
		memmove(t->r, t->r + 1, (TAIL_MAX - 1) * sizeof *t->r);
	else
		t->n++;
	t->r[t->n - 1] = *s;
}

/* The end of a sequence at S->addr: the tail rows there are empty. */
static int
end_sequence(struct imp *im, Dwarf_Files *files, size_t nfiles,
    struct tail *t, const struct lstate *s, struct emptyrow **out,
    size_t *n, size_t *cap)
{
	size_t k;

	for (k = 0; k < t->n; k++) {
		struct emptyrow *e;
		if (t->r[k].addr != s->addr)
			continue;
		if (pclni_grow(out, cap, *n + 1, sizeof **out) < 0)
			return pclni_dw_nomem(im);
		e = &(*out)[(*n)++];
		e->addr = s->addr;
		e->line = (int)t->r[k].line;
		e->col = (int)t->r[k].col;
		e->file = files != NULL && t->r[k].file < nfiles ?
		    pclni_dw_str(im, dwarf_filesrc(files, t->r[k].file, NULL,
		    NULL)) : NULL;
	}
	t->n = 0;
	return 0;
}

/* One extended opcode (after its 0 byte). */
static int
extended(struct imp *im, struct cursor *c, const struct lhdr *h,
    struct lstate *s, struct tail *t, Dwarf_Files *files, size_t nfiles,
    struct emptyrow **out, size_t *n, size_t *cap)
{
	uint64_t len = uleb(c);
	const unsigned char *next;
	unsigned sub;

	if (c->bad || len == 0 || len > (uint64_t)(c->end - c->p)) {
		c->bad = 1;
		return 0;
	}
	next = c->p + len;
	sub = (unsigned)getn(c, 1);
	if (sub == DW_LNE_end_sequence) {
		if (end_sequence(im, files, nfiles, t, s, out, n, cap) < 0)
			return -1;
		memset(s, 0, sizeof *s);
		s->file = 1;
		s->line = 1;
	} else if (sub == DW_LNE_set_address) {
		s->addr = getn(c, (unsigned)(len - 1));
		s->op_index = 0;
	}
	c->p = next;
	return 0;
}

static int
run(struct imp *im, struct cursor *c, const struct lhdr *h,
    Dwarf_Files *files, size_t nfiles, struct emptyrow **out, size_t *n)
{
	struct lstate s = { 0, 0, 1, 0, 1 };
	struct tail t = { .n = 0 };
	size_t cap = 0;

	while (c->p < c->end && !c->bad) {
		unsigned op = *c->p++, k;
		if (op >= h->opcode_base) {
			unsigned adj = op - h->opcode_base;
			advance(h, &s, adj / h->line_range);
			s.line += h->line_base + (int)(adj % h->line_range);
			emit(&t, &s);
			continue;
		}
		switch (op) {
		case 0:
			if (extended(im, c, h, &s, &t, files, nfiles, out, n,
			    &cap) < 0)
				return -1;
			break;
		case DW_LNS_copy: emit(&t, &s); break;
		case DW_LNS_advance_pc: advance(h, &s, uleb(c)); break;
		case DW_LNS_advance_line: s.line += sleb(c); break;
		case DW_LNS_set_file: s.file = uleb(c); break;
		case DW_LNS_set_column: s.col = uleb(c); break;
		case DW_LNS_const_add_pc:
			advance(h, &s, (255 - h->opcode_base) / h->line_range);
			break;
		case DW_LNS_fixed_advance_pc:
			s.addr += getn(c, 2);
			s.op_index = 0;
			break;
		default:	/* no operands, or ULEB128s to skip */
			for (k = 0; k < h->std_lens[op - 1]; k++)
				(void)uleb(c);
			break;
		}
	}
	return 0;
}

static Elf_Data *
debug_line_data(struct imp *im)
{
	GElf_Shdr sh;
	Elf_Scn *scn = pclni_dw_section(im->elf, ".debug_line", &sh);

	if (scn == NULL || ((sh.sh_flags & SHF_COMPRESSED) &&
	    elf_compress(scn, 0, 0) < 0))
		return NULL;
	return elf_getdata(scn, NULL);
}

int
pclni_dw_sequence_ends(struct imp *im, uint32_t u, struct emptyrow **out,
    size_t *n)
{
	Dwarf_Die *cu = &im->units[u].die;
	Dwarf_Attribute a;
	Dwarf_Word off;
	Dwarf_Files *files = NULL;
	size_t nfiles = 0;
	Elf_Data *d;
	struct cursor c;
	struct lhdr h;

	*out = NULL;
	*n = 0;
	if (dwarf_attr(cu, DW_AT_stmt_list, &a) == NULL ||
	    dwarf_formudata(&a, &off) != 0 ||
	    (d = debug_line_data(im)) == NULL || d->d_buf == NULL ||
	    off >= d->d_size)
		return 0;
	if (dwarf_getsrcfiles(cu, &files, &nfiles) != 0)
		files = NULL;
	c.p = (const unsigned char *)d->d_buf + off;
	c.end = (const unsigned char *)d->d_buf + d->d_size;
	c.big = im->st->target.bigendian;
	c.bad = 0;
	memset(&h, 0, sizeof h);
	if (read_header(&c, &h) < 0)
		return 0;
	return run(im, &c, &h, files, nfiles, out, n);
}
