/* perf_syms.c -- symbol tables in text: /proc/kallsyms and perf map files.
 *
 *   kallsyms:  "ffffffff81000000 T _text"  or  "... t name\t[module]"
 *   perf map:  "7f0000001000 40 jit_add"    (START SIZE NAME, hex, NAME
 *              to the end of the line: JIT compilers write
 *              /tmp/perf-PID.map so that profilers can name their code)
 *
 * A kallsyms symbol runs to the next higher address; a map symbol has its
 * size.  Of kallsyms aliases at one address the one perf names is kept
 * (perf's choose_best_symbol rules: not weak, global, fewer leading
 * underscores, then the longer name).  A line that does not parse is
 * skipped and counted.
 */
#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcln_elf.h"
#include "perf_internal.h"
#include "pclnrt.h"	/* pclnrt_xxh64 */

struct sym {
	uint64_t start, size;		/* size 0: to the next symbol */
	const char *name, *module;
	char type;
	size_t line;			/* for a stable sort */
};

struct pcln_perf_syms {
	char *text;
	struct sym *v;
	size_t n, bad;
	int sized;			/* map file */
	/* A sorted view (pcln_perf_syms_sorted): VIEW[0..VLEN), its lines
	 * read at lookup; the names found so far, by line offset (NAMES,
	 * NNAMES of CAPNAMES slots, a power of two). */
	const char *view;
	size_t vlen;
	const uint8_t *index;		/* NINDEX entries, or NULL */
	size_t nindex;
	struct vname { size_t off; char *name, *module; } *names;
	size_t nnames, capnames;
	/* pcln_perf_syms_plt_lazy: the ELF image LAZY[0..LAZYLEN), whose
	 * PLT [LAZYLO, LAZYHI) names an entry at the first lookup in it
	 * (PLZ: its sections, found at the first lookup in the PLT, and
	 * the names so far). */
	const uint8_t *lazy;
	size_t lazylen;
	uint64_t lazylo, lazyhi;
	struct pltlazy *plz;
};

/* The first line of a sorted symbol text: the symbol count, the byte
 * count of the lines after it (the body) and the xxh64 of all that
 * follows the line, in hex, fixed-width.  After the body, from the next
 * multiple of 8 in the file, the index: for every SORTED_STRIDE-th line
 * its address and its offset in the body, two u64 little-endian (16
 * bytes), the first line's first (version 2; 1 had no index).  A find
 * halves the index, then reads at most SORTED_STRIDE lines: on a kernel's
 * 120,000 symbols, 17 probes into 120 KB and one block, not 22 probes
 * each looking for a line's start across 5.4 MB. */
#define SORTED_MAGIC	"# pcln sorted kallsyms 2 "
#define SORTED_STRIDE	16

/* The hex digits at Q[0..MAX) into *V: how many there are (0: none), or
 * -1 past 64 bits.  By hand: strtoull costs more than the rest of a
 * kallsyms line together. */
static long
hexdigits(const unsigned char *q, size_t max, uint64_t *v)
{
	uint64_t x = 0;
	size_t n;

	for (n = 0; n < max; n++) {
		unsigned d = q[n];

		if (d - '0' <= 9)
			d -= '0';
		else if ((d | 0x20) - 'a' <= 5)
			d = (d | 0x20) - 'a' + 10;
		else
			break;
		if (x >> 60 != 0)
			return -1;
		x = x << 4 | d;
	}
	*v = x;
	return (long)n;
}

/* A hex number (optional 0x) at *S, NUL-terminated; advances *S.  0 or
 * -1 (no digit, or more than 64 bits). */
static int
gethex(char **s, uint64_t *v)
{
	const unsigned char *q = (const unsigned char *)*s;
	long n;

	if (q[0] == '0' && (q[1] == 'x' || q[1] == 'X') && isxdigit(q[2]))
		q += 2;
	if ((n = hexdigits(q, SIZE_MAX, v)) <= 0)
		return -1;
	*s = (char *)(uintptr_t)(q + n);
	return 0;
}

static int
cmp_sym(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

static size_t
underscores(const char *s)
{
	size_t n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/* Is A a better name than B for one address, as perf chooses? */
static int
better(const struct sym *a, const struct sym *b)
{
	int wa = a->type == 'w' || a->type == 'W';
	int wb = b->type == 'w' || b->type == 'W';
	int ga = a->type >= 'A' && a->type <= 'Z';
	int gb = b->type >= 'A' && b->type <= 'Z';
	size_t ua, ub;

	if (wa != wb)
		return wb;
	if (ga != gb)
		return ga;
	ua = underscores(a->name);
	ub = underscores(b->name);
	if (ua != ub)
		return ua < ub;
	return strlen(a->name) > strlen(b->name);
}

static pcln_perf_syms *
parse(const char *text, size_t len, int sized, pcln_err *err)
{
	pcln_perf_syms *s = calloc(1, sizeof *s);
	size_t cap = 0, line = 0, i, j;
	char *q, *end;

	if (s == NULL || (s->text = malloc(len + 1)) == NULL) {
		free(s);
		pclni_seterr(err, PCLN_ENOMEM, -1, "out of memory");
		return NULL;
	}
	memcpy(s->text, text, len);
	s->text[len] = '\0';
	s->sized = sized;
	for (q = s->text, end = s->text + len; q < end; line++) {
		char *nl = memchr(q, '\n', (size_t)(end - q));
		char *eol = nl != NULL ? nl : end;
		struct sym y;

		*eol = '\0';
		memset(&y, 0, sizeof y);
		y.line = line;
		if (*q == '\0')
			goto next;
		if (gethex(&q, &y.start) < 0 || *q != ' ')
			goto skip;
		q++;
		if (sized) {
			if (gethex(&q, &y.size) < 0 || *q != ' ' ||
			    y.size == 0)
				goto skip;
			q++;
			y.name = q;
			y.type = 'T';
			if (*q == '\0')
				goto skip;
		} else {
			char *t;

			y.type = *q;
			if (strchr("tTwW", y.type) == NULL || y.type == '\0')
				goto next;	/* not text: not counted */
			if (q[1] != ' ' || q[2] == '\0')
				goto skip;
			y.name = q + 2;
			if ((t = strchr(y.name, '\t')) != NULL) {
				*t++ = '\0';
				if (*t == '[') {
					char *rb = strchr(t, ']');

					if (rb != NULL)
						rb[1] = '\0';
					y.module = t;
				}
			}
		}
		if (pclni_grow(&s->v, &cap, s->n + 1, sizeof *s->v) < 0) {
			pcln_perf_syms_free(s);
			pclni_seterr(err, PCLN_ENOMEM, -1, "out of memory");
			return NULL;
		}
		s->v[s->n++] = y;
		goto next;
skip:
		s->bad++;
next:
		q = eol + 1;
	}
	/* /proc/kallsyms comes sorted: sort only what is not. */
	for (i = 1; i < s->n && s->v[i - 1].start <= s->v[i].start; i++)
		;
	if (i < s->n)
		qsort(s->v, s->n, sizeof *s->v, cmp_sym);
	if (!sized) {
		/* One symbol per address: the best alias. */
		for (i = 0, j = 0; i < s->n; i++) {
			if (j > 0 && s->v[j - 1].start == s->v[i].start) {
				if (better(&s->v[i], &s->v[j - 1]))
					s->v[j - 1] = s->v[i];
			} else
				s->v[j++] = s->v[i];
		}
		s->n = j;
	}
	return s;
}

pcln_perf_syms *
pcln_perf_syms_kallsyms(const char *text, size_t len, pcln_err *err)
{
	return parse(text, len, 0, err);
}

pcln_perf_syms *
pcln_perf_syms_map(const char *text, size_t len, pcln_err *err)
{
	return parse(text, len, 1, err);
}

/* --- PLT stubs ---------------------------------------------------------
 *
 * Each 16-byte entry of .plt.sec (with IBT, -fcf-protection) or of .plt
 * (after entry 0, the resolver's) jumps through its GOT slot: "ff 25
 * disp32", jmp *disp32(%rip), after an endbr64 and a bnd prefix in
 * .plt.sec.  The .rela.plt relocation of that slot names the entry, as
 * objdump and perf 6.3 do: not the i-th relocation for the i-th entry,
 * which misnames every entry where IFUNCs' R_X86_64_IRELATIVE
 * relocations come last and their entries first (glibc's libc).  An
 * R_X86_64_JUMP_SLOT (7) entry is SYMBOL@plt; an R_X86_64_IRELATIVE (37)
 * one is named after the IFUNC its addend resolves (.dynsym, then
 * .symtab), else objdump's "*ABS*+0xADDEND@plt". */
struct pltrel {
	uint64_t got, addend;
	uint32_t type, sym;
	size_t idx;			/* its place in .rela.plt */
};

/* By slot, then by place in .rela.plt: of relocations of one slot (a
 * damaged file), the first in the file sorts first. */
static int
cmp_pltrel(const void *a, const void *b)
{
	const struct pltrel *x = a, *y = b;

	if (x->got != y->got)
		return x->got < y->got ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* The name of symbol K of SYMS (24-byte Elf64_Sym) in STRS, or NULL. */
static const char *
elfsym_name(const pcln_elf_section *syms, const pcln_elf_section *strs,
    uint64_t k, size_t *len)
{
	uint64_t off;
	const char *name;

	if (syms->data == NULL || strs->data == NULL ||
	    k >= syms->size / 24 ||
	    (off = pclnrt_load32(syms->data + 24 * k, 0)) >= strs->size)
		return NULL;
	name = (const char *)strs->data + off;
	*len = strnlen(name, (size_t)(strs->size - off));
	if (*len == (size_t)(strs->size - off) || *len == 0 ||
	    memchr(name, '\n', *len) != NULL)
		return NULL;
	return name;
}

/* The IFUNCs IRELATIVE relocations name, by resolver address. */
struct ifname {
	uint64_t addr;
	const char *name;
	size_t len;
	unsigned rank;
};

static int
cmp_ifname(const void *a, const void *b)
{
	const struct ifname *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* How well the Elf64_Sym at E names an IFUNC at its address: 0 not at
 * all (not a defined function), else of aliases an IFUNC (type 10)
 * before a plain function, then a global before a weak one. */
static unsigned
ifunc_rank(const uint8_t *e)
{
	unsigned type = e[4] & 0xf;

	if ((type != 10 && type != 2) || pclnrt_load16(e + 6, 0) == 0)
		return 0;
	return (type == 10 ? 4 : 1) + ((e[4] >> 4) == 1 ? 2 : 0);
}

/* Name each of V[0..N) (sorted by address) not named yet after a
 * function of SYMS at its address: of aliases, an IFUNC (type 10)
 * before a plain function, then a global before a weak one, then the
 * first.  One pass over SYMS. */
static void
name_ifuncs(const pcln_elf_section *syms, const pcln_elf_section *strs,
    struct ifname *v, size_t n)
{
	uint64_t k;

	if (syms->data == NULL || n == 0)
		return;
	for (k = 1; k < syms->size / 24; k++) {
		const uint8_t *e = syms->data + 24 * k;
		unsigned r = ifunc_rank(e);
		struct ifname key, *f;
		const char *name;
		size_t len;

		if (r == 0)
			continue;
		key.addr = pclnrt_load64(e + 8, 0);
		if ((f = bsearch(&key, v, n, sizeof *v, cmp_ifname)) == NULL ||
		    (f->name != NULL && f->rank >= 8) ||
		    (name = elfsym_name(syms, strs, k, &len)) == NULL)
			continue;
		if (f->name == NULL || r > f->rank) {
			f->name = name;
			f->len = len;
			f->rank = r;
		}
	}
	/* Named from this table: a later one does not rename them. */
	for (k = 0; k < n; k++)
		if (v[k].name != NULL)
			v[k].rank |= 8;
}

/* Of SRT[0..N) (sorted by cmp_pltrel), the first relocation of slot
 * GOT in the file, or NULL. */
static const struct pltrel *
slot_rel(const struct pltrel *srt, size_t n, uint64_t got)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (srt[mid].got < got)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && srt[lo].got == got ? &srt[lo] : NULL;
}

/* The GOT slot entry E (at ADDR, 16 bytes) jumps through, or 0. */
static uint64_t
plt_got(const uint8_t *e, uint64_t addr)
{
	unsigned k;

	for (k = 0; k + 6 <= 16; k++)
		if (e[k] == 0xff && e[k + 1] == 0x25)
			return addr + k + 6 + (uint64_t)(int64_t)(int32_t)
			    pclnrt_load32(e + k + 2, 0);
	return 0;
}

pcln_perf_syms *
pcln_perf_syms_plt(const uint8_t *buf, size_t len, pcln_err *err)
{
	pcln_elf_section rela, dynsym, dynstr, plt, symtab, strtab;
	pcln_elf_info info;
	pcln_perf_syms *s = NULL;
	struct pltrel *rel = NULL, *srt;
	struct ifname *ifn = NULL;
	uint64_t i, nrel, nent, first, tl = 0;
	size_t k, at, nif = 0;
	int sec, pass;
	char absname[48];

	pclni_clearerr(err);
	if (pcln_elf_get_info(buf, len, &info, NULL) < 0 ||
	    info.machine != 62 || info.elfclass != 64 || info.bigendian ||
	    pcln_elf_find_section(buf, len, ".rela.plt", &rela, NULL) <= 0 ||
	    rela.data == NULL || pcln_elf_find_section(buf, len, ".dynsym",
	    &dynsym, NULL) <= 0 || pcln_elf_find_section(buf, len, ".dynstr",
	    &dynstr, NULL) <= 0)
		goto none;
	if (pcln_elf_find_section(buf, len, ".symtab", &symtab, NULL) <= 0 ||
	    pcln_elf_find_section(buf, len, ".strtab", &strtab, NULL) <= 0)
		symtab.data = strtab.data = NULL;
	sec = pcln_elf_find_section(buf, len, ".plt.sec", &plt, NULL);
	if ((sec <= 0 && pcln_elf_find_section(buf, len, ".plt", &plt,
	    NULL) <= 0) || plt.data == NULL)
		goto none;
	first = sec > 0 ? 0 : 1;
	nent = plt.size / 16;
	if ((nrel = rela.size / 24) == 0 || nent <= first)
		goto none;
	/* REL in the file's order, SRT sorted by slot (REL itself where
	 * the file has them in order, as a rule). */
	if (nrel > SIZE_MAX / 2 / sizeof *rel ||
	    (rel = malloc(2 * nrel * sizeof *rel)) == NULL)
		goto nomem;
	for (i = 0; i < nrel; i++) {
		const uint8_t *r = rela.data + 24 * i;
		uint64_t info64 = pclnrt_load64(r + 8, 0);

		rel[i].got = pclnrt_load64(r, 0);
		rel[i].type = (uint32_t)info64;
		rel[i].sym = (uint32_t)(info64 >> 32);
		rel[i].addend = pclnrt_load64(r + 16, 0);
		rel[i].idx = (size_t)i;
	}
	for (i = 1; i < nrel && rel[i - 1].got <= rel[i].got; i++)
		;
	srt = rel;
	if (i < nrel) {
		srt = rel + nrel;
		memcpy(srt, rel, nrel * sizeof *rel);
		qsort(srt, nrel, sizeof *srt, cmp_pltrel);
	}
	for (i = 0, nif = 0; i < nrel; i++)
		nif += rel[i].type == 37;
	if (nif > 0 && (ifn = calloc(nif, sizeof *ifn)) == NULL)
		goto nomem;
	for (i = 0, nif = 0; i < nrel; i++)
		if (rel[i].type == 37)
			ifn[nif++].addr = rel[i].addend;
	if (nif > 1) {
		qsort(ifn, nif, sizeof *ifn, cmp_ifname);
		for (i = 1, k = 1; i < nif; i++)
			if (ifn[i].addr != ifn[k - 1].addr)
				ifn[k++] = ifn[i];
		nif = k;
	}
	name_ifuncs(&dynsym, &dynstr, ifn, nif);
	name_ifuncs(&symtab, &strtab, ifn, nif);
	if ((s = calloc(1, sizeof *s)) == NULL)
		goto nomem;
	s->sized = 1;
	for (pass = 0; pass < 2; pass++) {
		at = 0;
		if (pass == 1 && ((s->text = malloc(tl + 1)) == NULL ||
		    (s->v = calloc(nent, sizeof *s->v)) == NULL))
			goto nomem;
		for (i = first; i < nent; i++) {
			uint64_t addr = plt.addr + 16 * i;
			const struct pltrel *r;
			uint64_t got;
			const char *name = NULL;
			size_t nl = 0;

			/* The slot's relocation, as plt_entry finds it: the
			 * entry's own (the I-th, as a rule) if it is that
			 * slot's, else the slot's first in the file. */
			if ((got = plt_got(plt.data + 16 * i, addr)) == 0)
				continue;
			if (i - first < nrel && rel[i - first].got == got)
				r = &rel[i - first];
			else if ((r = slot_rel(srt, nrel, got)) == NULL)
				continue;
			if (r->type == 7)
				name = elfsym_name(&dynsym, &dynstr, r->sym,
				    &nl);
			else if (r->type == 37) {
				struct ifname ik, *f;

				ik.addr = r->addend;
				if ((f = bsearch(&ik, ifn, nif, sizeof *ifn,
				    cmp_ifname)) != NULL && f->name != NULL) {
					name = f->name;
					nl = f->len;
				} else {
					nl = (size_t)snprintf(absname,
					    sizeof absname, "*ABS*+0x%llx",
					    (unsigned long long)r->addend);
					name = absname;
				}
			}
			if (name == NULL)
				continue;
			if (pass == 0) {
				tl += nl + sizeof "@plt";
				continue;
			}
			k = s->n++;
			s->v[k].start = addr;
			s->v[k].size = 16;
			s->v[k].type = 'T';
			s->v[k].line = k;
			s->v[k].name = s->text + at;
			memcpy(s->text + at, name, nl);
			memcpy(s->text + at + nl, "@plt", sizeof "@plt");
			at += nl + sizeof "@plt";
		}
	}
	free(rel);
	free(ifn);
	if (s->n > 0)
		return s;
	pcln_perf_syms_free(s);
none:
	pclni_seterr(err, PCLN_ENOTFOUND, -1, "no x86-64 PLT with named "
	    "entries");
	return NULL;
nomem:
	free(rel);
	free(ifn);
	pcln_perf_syms_free(s);
	pclni_seterr(err, PCLN_ENOMEM, -1, "out of memory");
	return NULL;
}

/* The PLT section pcln_perf_syms_plt reads entries from, in *PLT: 1, or
 * 0 if BUF has none it could name. */
static int
plt_section(const uint8_t *buf, size_t len, pcln_elf_section *plt)
{
	pcln_elf_info info;
	pcln_elf_section rela;

	return pcln_elf_get_info(buf, len, &info, NULL) == 0 &&
	    info.machine == 62 && info.elfclass == 64 && !info.bigendian &&
	    pcln_elf_find_section(buf, len, ".rela.plt", &rela, NULL) > 0 &&
	    rela.data != NULL && rela.size >= 24 &&
	    (pcln_elf_find_section(buf, len, ".plt.sec", plt, NULL) > 0 ||
	    pcln_elf_find_section(buf, len, ".plt", plt, NULL) > 0) &&
	    plt->data != NULL && plt->size >= 16;
}

pcln_perf_syms *
pcln_perf_syms_plt_lazy(const uint8_t *buf, size_t len, pcln_err *err)
{
	pcln_elf_section plt;
	pcln_perf_syms *s;

	pclni_clearerr(err);
	if (!plt_section(buf, len, &plt)) {
		pclni_seterr(err, PCLN_ENOTFOUND, -1, "no x86-64 PLT");
		return NULL;
	}
	if ((s = calloc(1, sizeof *s)) == NULL) {
		pclni_seterr(err, PCLN_ENOMEM, -1, "out of memory");
		return NULL;
	}
	s->sized = 1;
	s->lazy = buf;
	s->lazylen = len;
	s->lazylo = plt.addr;
	s->lazyhi = plt.addr + plt.size;
	return s;
}

/* A lazy table's sections, found at its first lookup in the PLT, and
 * the name of each entry looked up so far: NAME[I] NULL for not yet,
 * NONAME for none. */
struct pltlazy {
	pcln_elf_section plt, rela, dynsym, dynstr, symtab, strtab;
	uint64_t first, nent;
	char **name;
};

static char NONAME[] = "";

/* Of SYMS's functions at ADDR, the name that names an IFUNC there
 * (ifunc_rank; of equals the first), or NULL. */
static const char *
ifunc_name(const pcln_elf_section *syms, const pcln_elf_section *strs,
    uint64_t addr, size_t *len)
{
	const char *best = NULL, *name;
	unsigned rank = 0, r;
	size_t nl;
	uint64_t k;

	if (syms->data == NULL)
		return NULL;
	for (k = 1; k < syms->size / 24; k++) {
		const uint8_t *e = syms->data + 24 * k;

		if ((r = ifunc_rank(e)) > rank &&
		    pclnrt_load64(e + 8, 0) == addr &&
		    (name = elfsym_name(syms, strs, k, &nl)) != NULL) {
			best = name;
			*len = nl;
			rank = r;
		}
	}
	return best;
}

/* The sections of S's image a lookup needs, or NULL (no memory, or
 * none to name entries from). */
static struct pltlazy *
plt_sections(pcln_perf_syms *s)
{
	const uint8_t *buf = s->lazy;
	size_t len = s->lazylen;
	struct pltlazy *z;
	int sec;

	if (s->plz != NULL)
		return s->plz;
	if ((z = calloc(1, sizeof *z)) == NULL)
		return NULL;
	sec = pcln_elf_find_section(buf, len, ".plt.sec", &z->plt, NULL);
	if ((sec <= 0 && pcln_elf_find_section(buf, len, ".plt", &z->plt,
	    NULL) <= 0) || z->plt.data == NULL ||
	    pcln_elf_find_section(buf, len, ".rela.plt", &z->rela, NULL) <= 0 ||
	    z->rela.data == NULL ||
	    pcln_elf_find_section(buf, len, ".dynsym", &z->dynsym, NULL) <= 0 ||
	    pcln_elf_find_section(buf, len, ".dynstr", &z->dynstr, NULL) <= 0)
		z->nent = 0;
	else
		z->nent = z->plt.size / 16;
	if (pcln_elf_find_section(buf, len, ".symtab", &z->symtab, NULL) <= 0 ||
	    pcln_elf_find_section(buf, len, ".strtab", &z->strtab, NULL) <= 0)
		z->symtab.data = z->strtab.data = NULL;
	z->first = sec > 0 ? 0 : 1;
	if (z->nent > 0 && (z->name = calloc((size_t)z->nent,
	    sizeof *z->name)) == NULL) {
		free(z);
		return NULL;
	}
	s->plz = z;
	return z;
}

/* The name of PLT entry I of S, as pcln_perf_syms_plt names it, read
 * now if it was not: its GOT slot's relocation (the I-th, as a rule;
 * else the slot's first in the file), that relocation's symbol, or for
 * an IRELATIVE one its IFUNC's.  Only the pages holding these are
 * read. */
static const char *
plt_entry(pcln_perf_syms *s, uint64_t i)
{
	struct pltlazy *z = plt_sections(s);
	const uint8_t *r = NULL;
	uint64_t got, nrel, k, info64;
	const char *name = NULL;
	char absname[48], *t;
	size_t nl = 0;

	if (z == NULL || i >= z->nent || i < z->first)
		return NULL;
	if (z->name[i] != NULL)
		return z->name[i] == NONAME ? NULL : z->name[i];
	z->name[i] = NONAME;
	got = plt_got(z->plt.data + 16 * i, z->plt.addr + 16 * i);
	nrel = z->rela.size / 24;
	if (got == 0)
		return NULL;
	if (i - z->first < nrel &&
	    pclnrt_load64(z->rela.data + 24 * (i - z->first), 0) == got)
		r = z->rela.data + 24 * (i - z->first);
	for (k = 0; r == NULL && k < nrel; k++)
		if (pclnrt_load64(z->rela.data + 24 * k, 0) == got)
			r = z->rela.data + 24 * k;
	if (r == NULL)
		return NULL;
	info64 = pclnrt_load64(r + 8, 0);
	if ((uint32_t)info64 == 7)
		name = elfsym_name(&z->dynsym, &z->dynstr, info64 >> 32, &nl);
	else if ((uint32_t)info64 == 37) {
		uint64_t addend = pclnrt_load64(r + 16, 0);

		if ((name = ifunc_name(&z->dynsym, &z->dynstr, addend,
		    &nl)) == NULL && (name = ifunc_name(&z->symtab,
		    &z->strtab, addend, &nl)) == NULL) {
			nl = (size_t)snprintf(absname, sizeof absname,
			    "*ABS*+0x%llx", (unsigned long long)addend);
			name = absname;
		}
	}
	if (name == NULL || (t = malloc(nl + sizeof "@plt")) == NULL)
		return NULL;
	memcpy(t, name, nl);
	memcpy(t + nl, "@plt", sizeof "@plt");
	return z->name[i] = t;
}

void
pcln_perf_syms_free(pcln_perf_syms *s)
{
	size_t i;

	if (s == NULL)
		return;
	for (i = 0; i < s->capnames; i++) {
		free(s->names[i].name);
		free(s->names[i].module);
	}
	free(s->names);
	if (s->plz != NULL) {
		for (i = 0; i < s->plz->nent; i++)
			if (s->plz->name[i] != NONAME)
				free(s->plz->name[i]);
		free(s->plz->name);
		free(s->plz);
	}
	free(s->text);
	free(s->v);
	free(s);
}

char *
pcln_perf_syms_sorted_text(const pcln_perf_syms *s, size_t *lenp,
    pcln_err *err)
{
	size_t i, cap = 64, n, k, pad, nidx;
	uint64_t h;
	char *out, *body;
	size_t *offs;
	uint8_t *idx;

	if (s->sized || s->view != NULL) {
		pclni_seterr(err, PCLN_EINVAL, -1, "not a parsed kallsyms");
		return NULL;
	}
	for (i = 0; i < s->n; i++)
		cap += 16 + 3 + strlen(s->v[i].name) + 1 + (s->v[i].module ?
		    1 + strlen(s->v[i].module) : 0);
	nidx = (s->n + SORTED_STRIDE - 1) / SORTED_STRIDE;
	/* The body first, after room for the header line (fixed width);
	 * then up to 7 bytes of padding and the index. */
	k = sizeof SORTED_MAGIC - 1 + 3 * 17;
	offs = malloc((nidx + 1) * sizeof *offs);
	if (offs == NULL || (out = malloc(k + cap + 8 + 16 * nidx + 1)) ==
	    NULL) {
		free(offs);
		pclni_seterr(err, PCLN_ENOMEM, -1, "out of memory");
		return NULL;
	}
	body = out + k;
	for (i = 0, n = 0; i < s->n; i++) {
		const struct sym *y = &s->v[i];
		int j;

		if (i % SORTED_STRIDE == 0)
			offs[i / SORTED_STRIDE] = n;
		for (j = 15; j >= 0; j--)
			body[n++] = "0123456789abcdef"[(y->start >> (4 * j)) &
			    0xf];
		body[n++] = ' ';
		body[n++] = y->type;
		body[n++] = ' ';
		memcpy(body + n, y->name, strlen(y->name));
		n += strlen(y->name);
		if (y->module != NULL) {
			body[n++] = '\t';
			memcpy(body + n, y->module, strlen(y->module));
			n += strlen(y->module);
		}
		body[n++] = '\n';
	}
	pad = (8 - (k + n) % 8) % 8;
	memset(body + n, '\n', pad);
	idx = (uint8_t *)body + n + pad;
	for (i = 0; i < nidx; i++) {
		pclni_store64(idx + 16 * i, s->v[i * SORTED_STRIDE].start, 0);
		pclni_store64(idx + 16 * i + 8, offs[i], 0);
	}
	free(offs);
	h = pclnrt_xxh64(body, n + pad + 16 * nidx, 0);
	/* (snprintf's NUL lands on the header's last byte, its newline) */
	snprintf(out, k + 1, SORTED_MAGIC "%016zx %016zx %016llx", s->n, n,
	    (unsigned long long)h);
	out[k - 1] = '\n';
	*lenp = k + n + pad + 16 * nidx;
	return out;
}

static pcln_perf_syms *
sorted_open(const char *text, size_t len, int checked, pcln_err *err)
{
	size_t k = sizeof SORTED_MAGIC - 1 + 3 * 17, pad, rest;
	uint64_t count, n, h;
	char *q;
	pcln_perf_syms *s;

	if (len < k || memcmp(text, SORTED_MAGIC, sizeof SORTED_MAGIC - 1) !=
	    0 || text[k - 1] != '\n') {
		pclni_seterr(err, PCLN_EHEADER, 0, "sorted symbols: no "
		    "header line \"%s\"", SORTED_MAGIC);
		return NULL;
	}
	/* "MAGIC %016x %016x %016x\n" */
	q = (char *)(uintptr_t)(text + sizeof SORTED_MAGIC - 1);
	if (gethex(&q, &count) < 0 || *q++ != ' ' || gethex(&q, &n) < 0 ||
	    *q++ != ' ' || gethex(&q, &h) < 0 || q != text + k - 1) {
		pclni_seterr(err, PCLN_EHEADER, 0, "sorted symbols: bad "
		    "header line");
		return NULL;
	}
	/* The body, the padding to a multiple of 8, the index; or the body
	 * alone. */
	pad = n <= len - k ? (8 - (k + (size_t)n) % 8) % 8 : 0;
	rest = n <= len - k ? len - k - (size_t)n : 0;
	if (n > len - k || (rest > 0 && (rest < pad || (rest - pad) % 16 !=
	    0)) || (checked && pclnrt_xxh64(text + k, len - k, 0) != h)) {
		pclni_seterr(err, PCLN_ECHECKSUM, (int64_t)k, "sorted symbols: "
		    "%zu bytes after the header, with a hash other than its "
		    "header's (header: %llu bytes of symbols and an index)",
		    len - k, (unsigned long long)n);
		return NULL;
	}
	if ((s = calloc(1, sizeof *s)) == NULL) {
		pclni_seterr(err, PCLN_ENOMEM, -1, "out of memory");
		return NULL;
	}
	s->n = (size_t)count;
	s->view = text + k;
	s->vlen = (size_t)n;
	if (rest > 0) {
		s->index = (const uint8_t *)text + k + n + pad;
		s->nindex = (rest - pad) / 16;
	}
	return s;
}

pcln_perf_syms *
pcln_perf_syms_sorted(const char *text, size_t len, pcln_err *err)
{
	return sorted_open(text, len, 1, err);
}

pcln_perf_syms *
pcln_perf_syms_sorted_unchecked(const char *text, size_t len, pcln_err *err)
{
	return sorted_open(text, len, 0, err);
}

/* The address of the view's line at OFF, or UINT64_MAX if it has none
 * (damage: such a line sorts last, so every search stays bounded). */
static uint64_t
view_addr(const pcln_perf_syms *s, size_t off)
{
	size_t room = s->vlen - off;
	uint64_t v;
	long n = hexdigits((const unsigned char *)s->view + off,
	    room < 16 ? room : 16, &v);

	return n > 0 && (size_t)n < room && s->view[off + (size_t)n] == ' ' ?
	    v : UINT64_MAX;
}

/* P[0..N) as a string (not strndup: the view has no NUL to stop at, and
 * strndup may look for one past N). */
static char *
copyn(const char *p, size_t n)
{
	char *q = malloc(n + 1);

	if (q != NULL) {
		memcpy(q, p, n);
		q[n] = '\0';
	}
	return q;
}

/* The name (and module) of the view's line at OFF, copied once. */
static struct vname *
view_name(pcln_perf_syms *s, size_t off)
{
	const char *l = s->view + off, *e, *nm, *tab;
	size_t mask, i;
	struct vname *v;

	if (2 * (s->nnames + 1) > s->capnames) {
		size_t ncap = s->capnames ? 2 * s->capnames : 64, j;
		struct vname *nv = calloc(ncap, sizeof *nv);

		if (nv == NULL)
			return NULL;
		for (j = 0; j < s->capnames; j++) {
			if (s->names[j].name == NULL)
				continue;
			i = (s->names[j].off * 0x9e3779b97f4a7c15u >> 32) &
			    (ncap - 1);
			while (nv[i].name != NULL)
				i = (i + 1) & (ncap - 1);
			nv[i] = s->names[j];
		}
		free(s->names);
		s->names = nv;
		s->capnames = ncap;
	}
	mask = s->capnames - 1;
	for (i = (off * 0x9e3779b97f4a7c15u >> 32) & mask;
	    s->names[i].name != NULL; i = (i + 1) & mask)
		if (s->names[i].off == off)
			return &s->names[i];
	v = &s->names[i];
	if ((e = memchr(l, '\n', s->vlen - off)) == NULL)
		e = s->view + s->vlen;
	/* "ADDR T NAME[\tMODULE]" */
	nm = l + 17 + 2 <= e ? l + 19 : e;
	if ((tab = memchr(nm, '\t', (size_t)(e - nm))) == NULL)
		tab = e;
	if ((v->name = copyn(nm, (size_t)(tab - nm))) == NULL)
		return NULL;
	v->module = tab < e ? copyn(tab + 1, (size_t)(e - tab - 1)) : NULL;
	v->off = off;
	s->nnames++;
	return v;
}

/* pcln_perf_syms_find in a sorted view: the last line at or below ADDR,
 * by halving the byte range (each probe reads one line). */
static const char *
view_find(pcln_perf_syms *s, uint64_t addr, uint64_t *start,
    const char **module)
{
	size_t lo = 0, hi = s->vlen, best = SIZE_MAX, mid, ls;
	const char *nl;
	struct vname *v;
	uint64_t a, bestaddr = 0;

	/* The index's last entry at or below ADDR: its line and the next
	 * entry's bound the search (a damaged entry, or one out of the
	 * body, is not used: the whole body is searched). */
	if (s->nindex > 0) {
		size_t ilo = 0, ihi = s->nindex, j;

		while (ilo < ihi) {
			j = ilo + (ihi - ilo) / 2;
			if (pclnrt_load64(s->index + 16 * j, 0) <= addr)
				ilo = j + 1;
			else
				ihi = j;
		}
		if (ilo == 0) {
			if (s->vlen > 0 && view_addr(s, 0) ==
			    pclnrt_load64(s->index, 0) &&
			    pclnrt_load64(s->index + 8, 0) == 0)
				return NULL;	/* below the first symbol */
		} else {
			uint64_t o = pclnrt_load64(s->index + 16 * (ilo - 1) +
			    8, 0), e = ilo < s->nindex ?
			    pclnrt_load64(s->index + 16 * ilo + 8, 0) : s->vlen;

			if (o < e && e <= s->vlen && (o == 0 ||
			    s->view[o - 1] == '\n') && view_addr(s, (size_t)o) ==
			    pclnrt_load64(s->index + 16 * (ilo - 1), 0)) {
				lo = (size_t)o;
				hi = (size_t)e;
			}
		}
	}
	/* LO is a line start; the answer's line starts in [LO, HI) or is
	 * BEST. */
	while (lo < hi) {
		/* The first line starting in [MID, HI), else LO's line. */
		mid = lo + (hi - lo) / 2;
		ls = lo;
		if (mid > lo && (nl = memchr(s->view + mid - 1, '\n',
		    hi - mid)) != NULL && (size_t)(nl - s->view) + 1 < hi)
			ls = (size_t)(nl - s->view) + 1;
		if ((a = view_addr(s, ls)) <= addr) {
			best = ls;
			bestaddr = a;
			nl = memchr(s->view + ls, '\n', s->vlen - ls);
			lo = nl != NULL ? (size_t)(nl - s->view) + 1 : s->vlen;
		} else
			hi = ls;
	}
	if (best == SIZE_MAX)
		return NULL;
	/* Past the last symbol: unknown (as parsed tables answer). */
	if (lo >= s->vlen && addr - bestaddr >= 0x100000)
		return NULL;
	if ((v = view_name(s, best)) == NULL)
		return NULL;
	if (start != NULL)
		*start = bestaddr;
	if (module != NULL)
		*module = v->module;
	return v->name;
}

/* A sorted view and a lazy PLT name what they find as they are asked:
 * the finds that change them take this lock, so that threads may share
 * a view (pclndump perf's kallsyms) or an object's PLT entries. */
static pthread_mutex_t lazy_mu = PTHREAD_MUTEX_INITIALIZER;

const char *
pcln_perf_syms_find(const pcln_perf_syms *s, uint64_t addr, uint64_t *start,
    const char **module)
{
	size_t lo = 0, hi;
	const struct sym *y;

	if (s->view != NULL) {
		const char *name;

		pthread_mutex_lock(&lazy_mu);
		name = view_find((pcln_perf_syms *)(uintptr_t)s, addr, start,
		    module);
		pthread_mutex_unlock(&lazy_mu);
		return name;
	}
	if (s->lazy != NULL) {
		const char *name;

		if (addr - s->lazylo >= s->lazyhi - s->lazylo)
			return NULL;
		pthread_mutex_lock(&lazy_mu);
		name = plt_entry((pcln_perf_syms *)(uintptr_t)s,
		    (addr - s->lazylo) / 16);
		pthread_mutex_unlock(&lazy_mu);
		if (name == NULL)
			return NULL;
		if (start != NULL)
			*start = s->lazylo + (addr - s->lazylo) / 16 * 16;
		if (module != NULL)
			*module = NULL;
		return name;
	}
	/* The last symbol starting at or below ADDR. */
	hi = s->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	y = &s->v[lo - 1];
	if (s->sized) {
		/* A later map line may cover ADDR when this one does not
		 * (rare: overlapping JIT entries); check back a little. */
		size_t k;

		for (k = 0; k < 8 && k < lo; k++) {
			y = &s->v[lo - 1 - k];
			if (addr - y->start < y->size)
				break;
		}
		if (addr - y->start >= y->size)
			return NULL;
	} else if (lo == s->n && addr - y->start >= 0x100000)
		return NULL;	/* past the last symbol: unknown */
	if (start != NULL)
		*start = y->start;
	if (module != NULL)
		*module = y->module;
	return y->name;
}

size_t
pcln_perf_syms_count(const pcln_perf_syms *s)
{
	if (s->lazy != NULL) {
		uint64_t i, n = 0, nent = (s->lazyhi - s->lazylo) / 16;

		pthread_mutex_lock(&lazy_mu);
		for (i = 0; i < nent; i++)
			n += plt_entry((pcln_perf_syms *)(uintptr_t)s, i) !=
			    NULL;
		pthread_mutex_unlock(&lazy_mu);
		return (size_t)n;
	}
	return s->n;
}

size_t
pcln_perf_syms_bad(const pcln_perf_syms *s)
{
	return s->bad;
}
