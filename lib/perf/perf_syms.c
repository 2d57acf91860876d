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
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "perf_internal.h"

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
};

/* A hex number (optional 0x) at *S; advances *S.  0 or -1. */
static int
gethex(char **s, uint64_t *v)
{
	char *q = *s, *end;
	unsigned long long x;

	if (!isxdigit((unsigned char)q[0]))
		return -1;
	errno = 0;
	x = strtoull(q, &end, 16);
	if (errno != 0 || end == q)
		return -1;
	*v = x;
	*s = end;
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
	if (s->n > 0)
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

void
pcln_perf_syms_free(pcln_perf_syms *s)
{
	if (s == NULL)
		return;
	free(s->text);
	free(s->v);
	free(s);
}

const char *
pcln_perf_syms_find(const pcln_perf_syms *s, uint64_t addr, uint64_t *start,
    const char **module)
{
	size_t lo = 0, hi = s->n;
	const struct sym *y;

	/* The last symbol starting at or below ADDR. */
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
	return s->n;
}

size_t
pcln_perf_syms_bad(const pcln_perf_syms *s)
{
	return s->bad;
}
