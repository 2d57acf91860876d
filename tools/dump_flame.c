/* dump_flame.c -- stacks merged into a tree; written as folded stacks or
 * as an interactive SVG flame graph.
 *
 * The tree: a node per distinct path of (name, kind) from the root, with
 * the samples of every stack through it (TOTAL) and ending in it (SELF);
 * children are found through one hash table keyed by (parent, name,
 * kind).  Names are interned by content, so equal names from different
 * tables merge.
 *
 * The flame graph follows the form Brendan Gregg's flamegraph.pl made
 * common (the x axis is the sample population sorted by name, not time;
 * the y axis stack depth, the root at the bottom; a frame's width is its
 * share), written here from scratch: the SVG holds one <g> per frame
 * with its rectangle, label and <title> tooltip, and a small script
 * zooms on a click, searches by regular expression and shows the frame
 * under the pointer (name, samples, share, file:line) on the bottom
 * line.  Frames narrower than 0.1 pixel are left out, with their
 * descendants (which are narrower still).
 */
#include <config.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dump_perf.h"

struct node {
	uint32_t name;			/* interned */
	uint32_t parent, child, sibling;	/* 0: none (0 is the root) */
	uint8_t kind;
	uint64_t total, self;
	const char *file;		/* first seen */
	int32_t lmin, lmax;		/* lines seen in FILE */
	uint64_t fseq;			/* the stack that set FILE (its
					 * SEQ, flame_seq) */
};

#define PCACHE	4096

struct pslot {
	const char *s;
	uint32_t id;
};

struct flame {
	struct pslot pcache[PCACHE];	/* name pointer -> id */
	struct node *n;
	size_t nn, capn;
	uint32_t *ht;			/* node index + 1 per slot */
	size_t htcap;
	const char **names;
	uint32_t *nameht;		/* name index + 1 per slot */
	size_t nnames, capnames, namehtcap;
	uint64_t seq;			/* the next stack's (flame_seq) */
};

static uint64_t
hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	while (*s != '\0')
		h = (h ^ (uint8_t)*s++) * 1099511628211ull;
	return h;
}

static uint64_t
mix(uint64_t a, uint64_t b)
{
	uint64_t h = a * 0x9e3779b97f4a7c15ull ^ b;

	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9ull;
	return h ^ (h >> 29);
}

flame *
flame_new(void)
{
	flame *f = calloc(1, sizeof *f);

	if (f == NULL)
		return NULL;
	f->capn = 1024;
	f->htcap = 2048;
	f->capnames = 256;
	f->namehtcap = 512;
	f->n = calloc(f->capn, sizeof *f->n);
	f->ht = calloc(f->htcap, sizeof *f->ht);
	f->names = calloc(f->capnames, sizeof *f->names);
	f->nameht = calloc(f->namehtcap, sizeof *f->nameht);
	if (f->n == NULL || f->ht == NULL || f->names == NULL ||
	    f->nameht == NULL) {
		flame_free(f);
		return NULL;
	}
	f->names[0] = "all";
	f->nnames = 1;
	f->n[0].kind = FK_ROOT;
	f->nn = 1;
	return f;
}

void
flame_free(flame *f)
{
	if (f == NULL)
		return;
	free(f->n);
	free(f->ht);
	free(f->names);
	free(f->nameht);
	free(f);
}

uint64_t
flame_total(const flame *f)
{
	return f->n[0].total;
}

void
flame_seq(flame *f, uint64_t seq)
{
	f->seq = seq;
}

static int intern(flame *f, const char *s, uint32_t *id);
static uint32_t child(flame *f, uint32_t parent, uint32_t name,
    unsigned kind);

/* SRC's node I and what is under it added under DST's node D. */
static int
merge_node(flame *dst, uint32_t d, const flame *src, uint32_t i)
{
	const struct node *y = &src->n[i];
	uint32_t c, id;
	struct node *x;

	x = &dst->n[d];
	x->total += y->total;
	x->self += y->self;
	if (y->file != NULL) {
		if (x->file == NULL || (y->fseq < x->fseq &&
		    strcmp(x->file, y->file) != 0)) {
			x->file = y->file;
			x->lmin = y->lmin;
			x->lmax = y->lmax;
			x->fseq = y->fseq;
		} else if (x->file == y->file || strcmp(x->file, y->file) ==
		    0) {
			x->lmin = y->lmin < x->lmin ? y->lmin : x->lmin;
			x->lmax = y->lmax > x->lmax ? y->lmax : x->lmax;
			x->fseq = y->fseq < x->fseq ? y->fseq : x->fseq;
		}
	}
	for (c = y->child; c != 0; c = src->n[c].sibling) {
		uint32_t k;

		if (intern(dst, src->names[src->n[c].name], &id) < 0 ||
		    (k = child(dst, d, id, src->n[c].kind)) == 0 ||
		    merge_node(dst, k, src, c) < 0)
			return -1;
	}
	return 0;
}

int
flame_merge(flame *dst, const flame *src)
{
	return merge_node(dst, 0, src, 0);
}

static int intern_str(flame *f, const char *s, uint32_t *id);

static int
intern(flame *f, const char *s, uint32_t *id)
{
	struct pslot *ps = &f->pcache[((uintptr_t)s >> 3) % PCACHE];

	/* Names are pointers into tables that stay put: most lookups are
	 * answered by the pointer alone. */
	if (ps->s == s) {
		*id = ps->id;
		return 0;
	}
	if (intern_str(f, s, id) < 0)
		return -1;
	ps->s = s;
	ps->id = *id;
	return 0;
}

static int
intern_str(flame *f, const char *s, uint32_t *id)
{
	size_t mask, i;
	uint32_t k;

	if (2 * (f->nnames + 1) > f->namehtcap) {
		size_t ncap = f->namehtcap * 2, j;
		uint32_t *nh = calloc(ncap, sizeof *nh);

		if (nh == NULL)
			return -1;
		for (j = 1; j < f->nnames; j++) {
			i = hash_str(f->names[j]) & (ncap - 1);
			while (nh[i] != 0)
				i = (i + 1) & (ncap - 1);
			nh[i] = (uint32_t)j + 1;
		}
		free(f->nameht);
		f->nameht = nh;
		f->namehtcap = ncap;
	}
	mask = f->namehtcap - 1;
	for (i = hash_str(s) & mask; (k = f->nameht[i]) != 0;
	    i = (i + 1) & mask)
		if (strcmp(f->names[k - 1], s) == 0) {
			*id = k - 1;
			return 0;
		}
	if (f->nnames == f->capnames) {
		const char **nv = realloc(f->names, 2 * f->capnames *
		    sizeof *nv);

		if (nv == NULL)
			return -1;
		f->names = nv;
		f->capnames *= 2;
	}
	f->names[f->nnames] = s;
	f->nameht[i] = (uint32_t)f->nnames + 1;
	*id = (uint32_t)f->nnames++;
	return 0;
}

static uint64_t
node_key(uint32_t parent, uint32_t name, unsigned kind)
{
	return mix(((uint64_t)parent << 32) | name, kind);
}

static int
rehash(flame *f)
{
	size_t ncap = f->htcap * 2, j, i;
	uint32_t *nh = calloc(ncap, sizeof *nh);

	if (nh == NULL)
		return -1;
	for (j = 1; j < f->nn; j++) {
		const struct node *x = &f->n[j];

		i = node_key(x->parent, x->name, x->kind) & (ncap - 1);
		while (nh[i] != 0)
			i = (i + 1) & (ncap - 1);
		nh[i] = (uint32_t)j + 1;
	}
	free(f->ht);
	f->ht = nh;
	f->htcap = ncap;
	return 0;
}

/* The child of PARENT named NAME of KIND, made if new: its index, or 0
 * on no memory. */
static uint32_t
child(flame *f, uint32_t parent, uint32_t name, unsigned kind)
{
	size_t mask, i;
	uint32_t k;
	struct node *x;

	if (2 * (f->nn + 1) > f->htcap && rehash(f) < 0)
		return 0;
	mask = f->htcap - 1;
	for (i = node_key(parent, name, kind) & mask; (k = f->ht[i]) != 0;
	    i = (i + 1) & mask) {
		x = &f->n[k - 1];
		if (x->parent == parent && x->name == name && x->kind == kind)
			return k - 1;
	}
	if (f->nn == f->capn) {
		struct node *nv = realloc(f->n, 2 * f->capn * sizeof *nv);

		if (nv == NULL)
			return 0;
		f->n = nv;
		f->capn *= 2;
	}
	if (f->nn >= UINT32_MAX - 1)
		return 0;
	x = &f->n[f->nn];
	memset(x, 0, sizeof *x);
	x->name = name;
	x->kind = (uint8_t)kind;
	x->parent = parent;
	x->sibling = f->n[parent].child;
	f->n[parent].child = (uint32_t)f->nn;
	f->ht[i] = (uint32_t)f->nn + 1;
	return (uint32_t)f->nn++;
}

int
flame_add(flame *f, const struct oframe *frames, size_t n, uint64_t count)
{
	uint32_t cur = 0, id;
	size_t i;

	f->n[0].total += count;
	for (i = 0; i < n; i++) {
		struct node *x;

		if (intern(f, frames[i].name, &id) < 0 ||
		    (cur = child(f, cur, id, (unsigned)frames[i].kind)) == 0)
			return -1;
		x = &f->n[cur];
		x->total += count;
		if (frames[i].file != NULL && frames[i].line > 0) {
			if (x->file == NULL) {
				x->file = frames[i].file;
				x->lmin = x->lmax = frames[i].line;
				x->fseq = f->seq;
			} else if (x->file == frames[i].file ||
			    strcmp(x->file, frames[i].file) == 0) {
				if (frames[i].line < x->lmin)
					x->lmin = frames[i].line;
				if (frames[i].line > x->lmax)
					x->lmax = frames[i].line;
			}
		}
	}
	f->n[cur].self += count;
	return 0;
}

/* The children of node I sorted by name (then kind), into a new array
 * of *N indexes (NULL with *N 0 if none or no memory: *ERRP then set). */
static const flame *sort_f;

static int
cmp_child(const void *a, const void *b)
{
	const struct node *x = &sort_f->n[*(const uint32_t *)a];
	const struct node *y = &sort_f->n[*(const uint32_t *)b];
	int c = strcmp(sort_f->names[x->name], sort_f->names[y->name]);

	return c != 0 ? c : (int)x->kind - (int)y->kind;
}

static uint32_t *
children(const flame *f, uint32_t i, size_t *n, int *errp)
{
	uint32_t k, *v;
	size_t m = 0;

	*n = 0;
	for (k = f->n[i].child; k != 0; k = f->n[k].sibling)
		m++;
	if (m == 0)
		return NULL;
	if ((v = malloc(m * sizeof *v)) == NULL) {
		*errp = 1;
		return NULL;
	}
	m = 0;
	for (k = f->n[i].child; k != 0; k = f->n[k].sibling)
		v[m++] = k;
	sort_f = f;
	qsort(v, m, sizeof *v, cmp_child);
	*n = m;
	return v;
}

/* --- folded ---------------------------------------------------------- */

struct fold {
	const flame *f;
	FILE *out;
	char *path;
	size_t len, cap;
	int err;
};

static void
fold(struct fold *st, uint32_t i)
{
	const char *name = st->f->names[st->f->n[i].name];
	size_t nl = strlen(name), save = st->len, nc, k;
	uint32_t *v;

	if (st->err)
		return;
	if (st->len + nl + 2 > st->cap) {
		size_t ncap = (st->len + nl + 2) * 2;
		char *np = realloc(st->path, ncap);

		if (np == NULL) {
			st->err = 1;
			return;
		}
		st->path = np;
		st->cap = ncap;
	}
	if (st->len > 0)
		st->path[st->len++] = ';';
	memcpy(st->path + st->len, name, nl);
	st->len += nl;
	st->path[st->len] = '\0';
	if (st->f->n[i].self > 0)
		fprintf(st->out, "%s %" PRIu64 "\n", st->path,
		    st->f->n[i].self);
	v = children(st->f, i, &nc, &st->err);
	for (k = 0; k < nc; k++)
		fold(st, v[k]);
	free(v);
	st->len = save;
}

int
flame_write_folded(const flame *f, FILE *out)
{
	struct fold st = { f, out, NULL, 0, 0, 0 };
	uint32_t *v;
	size_t nc, k;

	v = children(f, 0, &nc, &st.err);
	for (k = 0; k < nc; k++)
		fold(&st, v[k]);
	free(v);
	free(st.path);
	return st.err || ferror(out) ? -1 : 0;
}

/* --- SVG ------------------------------------------------------------- */

#define SVG_WIDTH	1200
#define FRAME_H		16
#define FONT_SIZE	12
#define XPAD		10
#define YPAD_TOP	(FONT_SIZE * 3)
#define YPAD_BOTTOM	(FONT_SIZE * 2 + 10)
#define MIN_WIDTH	0.1	/* pixels */

static void
xml_escape(FILE *o, const char *s)
{
	for (; *s != '\0'; s++) {
		switch (*s) {
		case '&':
			fputs("&amp;", o);
			break;
		case '<':
			fputs("&lt;", o);
			break;
		case '>':
			fputs("&gt;", o);
			break;
		case '"':
			fputs("&quot;", o);
			break;
		case '\'':
			fputs("&apos;", o);
			break;
		default:
			/* Control bytes are not allowed in XML 1.0. */
			if ((unsigned char)*s < 0x20 && *s != '\t')
				fputc('?', o);
			else
				fputc(*s, o);
		}
	}
}

/* A colour per frame: the hue by kind (as flamegraph.pl's palettes:
 * warm for code in tables, aqua inlined, orange kernel, green JIT, grey
 * unknown), the shade by a hash of the name so neighbours differ and the
 * same function has the same colour everywhere. */
static void
colour(unsigned kind, const char *name, int *r, int *g, int *b)
{
	uint64_t h = hash_str(name);
	double v1 = (double)(h & 0xff) / 255.0;
	double v2 = (double)(h >> 8 & 0xff) / 255.0;
	double v3 = (double)(h >> 16 & 0xff) / 255.0;

	switch (kind) {
	case FK_INLINE:
		*r = 50 + (int)(60 * v1);
		*g = 165 + (int)(55 * v2);
		*b = 165 + (int)(55 * v2);
		break;
	case FK_KERNEL:
		*r = 190 + (int)(65 * v1);
		*g = 90 + (int)(65 * v1);
		*b = 0;
		break;
	case FK_JIT:
		*r = (int)(40 * v3);
		*g = 190 + (int)(50 * v2);
		*b = (int)(55 * v1);
		break;
	case FK_UNKNOWN:
		*r = *g = *b = 160 + (int)(40 * v1);
		break;
	case FK_ROOT:
		*r = 200;
		*g = 200;
		*b = 200;
		break;
	default:
		*r = 205 + (int)(50 * v3);
		*g = (int)(230 * v1);
		*b = (int)(55 * v2);
		break;
	}
}

static const char *const kind_names[] = {
	[FK_USER] = "", [FK_INLINE] = " [inlined]", [FK_KERNEL] = " [kernel]",
	[FK_JIT] = " [jit]", [FK_UNKNOWN] = "", [FK_ROOT] = "",
};

/* The label of a frame W pixels wide: as many characters as fit (a
 * character is about 0.59 of the font size), cut with "..", none if fewer
 * than 3 fit; cut between UTF-8 characters.  The script fits labels
 * again after a zoom. */
static void
label(FILE *o, const char *name, double w)
{
	double fit = (w - 6) / (FONT_SIZE * 0.59);
	size_t n = fit > 0 ? (size_t)fit : 0, len = strlen(name), cut;
	char buf[1024];

	if (n < 3)
		return;
	if (len <= n) {
		xml_escape(o, name);
		return;
	}
	cut = n - 2 < sizeof buf - 3 ? n - 2 : sizeof buf - 3;
	while (cut > 0 && ((unsigned char)name[cut] & 0xc0) == 0x80)
		cut--;
	memcpy(buf, name, cut);
	memcpy(buf + cut, "..", 3);
	xml_escape(o, buf);
}

struct svg {
	const flame *f;
	FILE *o;
	double scale;			/* pixels per sample */
	int height;
	unsigned maxdepth;
	int err;
};

static unsigned
depth_of(const flame *f, uint32_t i, double scale, int *err)
{
	uint32_t k;
	unsigned d = 0, c;

	(void)err;
	for (k = f->n[i].child; k != 0; k = f->n[k].sibling) {
		if ((double)f->n[k].total * scale < MIN_WIDTH)
			continue;
		c = depth_of(f, k, scale, err) + 1;
		if (c > d)
			d = c;
	}
	return d;
}

static void
svg_frame(struct svg *s, uint32_t i, uint64_t x0, unsigned depth)
{
	const struct node *x = &s->f->n[i];
	const char *name = s->f->names[x->name];
	double px = XPAD + (double)x0 * s->scale;
	double pw = (double)x->total * s->scale;
	double py = s->height - YPAD_BOTTOM - (double)(depth + 1) * FRAME_H;
	double pct = 100.0 * (double)x->total / (double)s->f->n[0].total;
	uint32_t *v;
	size_t nc, k;
	int r, g, b;
	uint64_t cx = x0;

	if (s->err || pw < MIN_WIDTH)
		return;
	colour(x->kind, name, &r, &g, &b);
	fprintf(s->o, "<g class=\"f\" data-x=\"%" PRIu64 "\" data-w=\"%"
	    PRIu64 "\"><title>", x0, x->total);
	xml_escape(s->o, name);
	fprintf(s->o, "%s (%" PRIu64 " sample%s, %.2f%%)",
	    x->kind < sizeof kind_names / sizeof kind_names[0] ?
	    kind_names[x->kind] : "", x->total, x->total == 1 ? "" : "s",
	    pct);
	if (x->file != NULL) {
		fputc(' ', s->o);
		xml_escape(s->o, x->file);
		if (x->lmin == x->lmax)
			fprintf(s->o, ":%d", x->lmin);
		else
			fprintf(s->o, ":%d-%d", x->lmin, x->lmax);
	}
	fprintf(s->o, "</title><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
	    "height=\"%d\" fill=\"rgb(%d,%d,%d)\" rx=\"2\" ry=\"2\"/>"
	    "<text x=\"%.1f\" y=\"%.1f\">", px, py, pw, FRAME_H - 1, r, g, b,
	    px + 3, py + FRAME_H - 5);
	label(s->o, name, pw);
	fputs("</text></g>\n", s->o);
	v = children(s->f, i, &nc, &s->err);
	for (k = 0; k < nc; k++) {
		svg_frame(s, v[k], cx, depth + 1);
		cx += s->f->n[v[k]].total;
	}
	free(v);
}

/* The script: zoom, search, details.  Labels are fitted by the script
 * (at load and after each zoom), so the file holds each name once in
 * its <title>. */
static const char svg_script[] =
"var W = WIDTH, XPAD = 10, FONT = 12, frames = [], total = 0;\n"
"var details, matched, searchBtn, resetBtn, searching = null;\n"
"function init(evt) {\n"
"  details = document.getElementById('details');\n"
"  matched = document.getElementById('matched');\n"
"  searchBtn = document.getElementById('search');\n"
"  resetBtn = document.getElementById('unzoom');\n"
"  var gs = document.getElementsByClassName('f');\n"
"  for (var i = 0; i < gs.length; i++) {\n"
"    var g = gs[i], t = g.getElementsByTagName('title')[0].textContent;\n"
"    var f = { g: g, x: +g.getAttribute('data-x'),\n"
"      w: +g.getAttribute('data-w'), title: t,\n"
"      name: t.replace(/ (\\[[a-z]+\\] )?\\(\\d+ samples?, [0-9.]+%\\).*$/, ''),\n"
"      rect: g.getElementsByTagName('rect')[0],\n"
"      text: g.getElementsByTagName('text')[0] };\n"
"    f.fill = f.rect.getAttribute('fill');\n"
"    frames.push(f);\n"
"    if (f.w > total) total = f.w;\n"
"    g.addEventListener('click', zoomer(f));\n"
"    g.addEventListener('mouseover', shower(f));\n"
"    g.addEventListener('mouseout', function () { details.textContent = ' '; });\n"
"  }\n"
"  resetBtn.addEventListener('click', function () { zoom(null); });\n"
"  searchBtn.addEventListener('click', search);\n"
"  zoom(null);\n"
"}\n"
"function zoomer(f) { return function () { zoom(f); }; }\n"
"function shower(f) { return function () { details.textContent = f.title; }; }\n"
"function fit(f, x, w) {\n"
"  f.rect.setAttribute('x', x.toFixed(1));\n"
"  f.rect.setAttribute('width', w.toFixed(1));\n"
"  f.text.setAttribute('x', (x + 3).toFixed(1));\n"
"  var n = Math.floor((w - 6) / (FONT * 0.59));\n"
"  var s = f.name;\n"
"  if (n < 3) s = ''; else if (s.length > n) s = s.substring(0, n - 2) + '..';\n"
"  f.text.textContent = s;\n"
"}\n"
"function zoom(z) {\n"
"  var x0 = z ? z.x : 0, w0 = z ? z.w : total, sc = (W - 2 * XPAD) / w0;\n"
"  var y0 = z ? +z.rect.getAttribute('y') : 1e9;\n"
"  for (var i = 0; i < frames.length; i++) {\n"
"    var f = frames[i], y = +f.rect.getAttribute('y');\n"
"    if (f.x >= x0 && f.x + f.w <= x0 + w0 && y <= y0) {\n"
"      f.g.style.display = ''; f.g.style.opacity = 1;\n"
"      fit(f, XPAD + (f.x - x0) * sc, f.w * sc);\n"
"    } else if (f.x <= x0 && f.x + f.w >= x0 + w0 && y > y0) {\n"
"      f.g.style.display = ''; f.g.style.opacity = 0.5;\n"
"      fit(f, XPAD, W - 2 * XPAD);\n"
"    } else\n"
"      f.g.style.display = 'none';\n"
"  }\n"
"  resetBtn.style.opacity = z ? 1 : 0;\n"
"}\n"
"function search() {\n"
"  if (searching !== null) { clear(); return; }\n"
"  var term = prompt('Search for (regular expression):', '');\n"
"  if (term) mark(term);\n"
"}\n"
"function clear() {\n"
"  searching = null;\n"
"  for (var i = 0; i < frames.length; i++)\n"
"    frames[i].rect.setAttribute('fill', frames[i].fill);\n"
"  matched.textContent = ' ';\n"
"  searchBtn.textContent = 'Search';\n"
"}\n"
"function mark(term) {\n"
"  var re;\n"
"  try { re = new RegExp(term); } catch (e) { matched.textContent = 'bad expression'; return; }\n"
"  clear();\n"
"  searching = term;\n"
"  var hits = [];\n"
"  for (var i = 0; i < frames.length; i++) {\n"
"    var f = frames[i];\n"
"    if (re.test(f.name)) { f.rect.setAttribute('fill', 'rgb(230,0,230)'); hits.push(f); }\n"
"  }\n"
"  hits.sort(function (a, b) { return a.x - b.x || b.w - a.w; });\n"
"  var sum = 0, end = -1;\n"
"  for (var j = 0; j < hits.length; j++) {\n"
"    var h = hits[j];\n"
"    if (h.x >= end) { sum += h.w; end = h.x + h.w; }\n"
"    else if (h.x + h.w > end) { sum += h.x + h.w - end; end = h.x + h.w; }\n"
"  }\n"
"  matched.textContent = 'Matched: ' + (100 * sum / total).toFixed(1) + '%';\n"
"  searchBtn.textContent = 'Reset Search';\n"
"}\n"
"function find(term) { mark(term); return matched.textContent; }\n";

int
flame_write_svg(const flame *f, FILE *o, const char *title,
    const char *subtitle)
{
	struct svg s;
	uint64_t total = f->n[0].total;
	const char *p;

	memset(&s, 0, sizeof s);
	s.f = f;
	s.o = o;
	s.scale = total > 0 ? (double)(SVG_WIDTH - 2 * XPAD) / (double)total :
	    0;
	s.maxdepth = total > 0 ? depth_of(f, 0, s.scale, &s.err) : 0;
	s.height = (int)(s.maxdepth + 1) * FRAME_H + YPAD_TOP + YPAD_BOTTOM;
	fprintf(o, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
	    "<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" "
	    "\"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd\">\n"
	    "<svg version=\"1.1\" width=\"%d\" height=\"%d\" viewBox=\"0 0 "
	    "%d %d\" onload=\"init(evt)\" xmlns=\"http://www.w3.org/2000/svg\""
	    " xmlns:xlink=\"http://www.w3.org/1999/xlink\">\n"
	    "<!-- Flame graph written by pclndump perf (pcln). -->\n"
	    "<style type=\"text/css\">\n"
	    "text { font-family: Verdana, sans-serif; font-size: %dpx; "
	    "fill: rgb(0,0,0); }\n"
	    ".f text { pointer-events: none; }\n"
	    ".f:hover rect { stroke: black; stroke-width: 0.5; cursor: "
	    "pointer; }\n"
	    "#title { text-anchor: middle; font-size: 17px; }\n"
	    "#subtitle { text-anchor: middle; fill: rgb(96,96,96); }\n"
	    ".btn { cursor: pointer; }\n"
	    "</style>\n<script type=\"text/ecmascript\"><![CDATA[\n",
	    SVG_WIDTH, s.height, SVG_WIDTH, s.height, FONT_SIZE);
	/* The script, with its width. */
	for (p = svg_script; *p != '\0'; p++) {
		if (strncmp(p, "WIDTH", 5) == 0) {
			fprintf(o, "%d", SVG_WIDTH);
			p += 4;
		} else
			fputc(*p, o);
	}
	fprintf(o, "]]></script>\n"
	    "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" "
	    "fill=\"rgb(248,248,240)\"/>\n"
	    "<text id=\"title\" x=\"%d\" y=\"%d\">", SVG_WIDTH, s.height,
	    SVG_WIDTH / 2, FONT_SIZE * 2);
	xml_escape(o, title);
	fprintf(o, "</text>\n<text id=\"subtitle\" x=\"%d\" y=\"%d\">",
	    SVG_WIDTH / 2, FONT_SIZE * 2 + 14);
	xml_escape(o, subtitle);
	fprintf(o, "</text>\n"
	    "<text id=\"unzoom\" class=\"btn\" x=\"%d\" y=\"%d\" "
	    "style=\"opacity:0\">Reset Zoom</text>\n"
	    "<text id=\"search\" class=\"btn\" x=\"%d\" y=\"%d\" "
	    "text-anchor=\"end\">Search</text>\n"
	    "<text id=\"details\" x=\"%d\" y=\"%d\"> </text>\n"
	    "<text id=\"matched\" x=\"%d\" y=\"%d\" text-anchor=\"end\"> "
	    "</text>\n", XPAD, FONT_SIZE * 2, SVG_WIDTH - XPAD, FONT_SIZE * 2,
	    XPAD, s.height - FONT_SIZE / 2 - 4, SVG_WIDTH - XPAD,
	    s.height - FONT_SIZE / 2 - 4);
	if (total > 0)
		svg_frame(&s, 0, 0, 0);
	fputs("</svg>\n", o);
	return s.err || ferror(o) ? -1 : 0;
}
