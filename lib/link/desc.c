/* desc.c -- the description reader: one statement per line.
 *
 * doc/DESCRIPTION.md is the language reference; the grammar there and the
 * parser here must agree.  The input is read in chunks of RCHUNK bytes
 * into a buffer the reader owns (a line longer than that grows it); each
 * line is split in place into tokens and checked.  The reader holds one
 * chunk, or one line if longer, of the input.
 */
#include <config.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "desc.h"
#include "internal.h"

#define NTABLES		(3 + PCLN_MAX_PCDATA)

/* Bytes read at a time. */
#define RCHUNK		((size_t)1 << 20)

struct tok {
	char *s;
	int quoted;
};

struct desc_reader {
	char *name;
	FILE *fp;
	const char *mem;
	size_t memlen, mempos;
	char *buf;		/* the chunk buffer: [pos, end) not yet read */
	size_t bufcap, pos, end;
	int eof;
	char *line;		/* the current line, in BUF */
	char tn[32];		/* a table's name, for messages */
	long lineno;
	unsigned quantum;

	struct tok *toks;
	size_t ntoks, tokcap;

	/* The open function, if any. */
	int infunc;
	char *fname;
	long fline;
	uint64_t fsize;
	uint64_t *last;		/* last pc offset per table */
	unsigned char *state;	/* per table: 0 none, 1 points, 2 hex */
	unsigned char *fdseen;	/* per funcdata slot */
	int *touched;		/* tables and slots to reset at end */
	size_t ntouched;

	struct desc_point *pts;
	size_t ptcap;
	const char **paths;
	size_t pathcap;
	uint8_t *bytes;
	size_t bytecap;
};

int
desc_error(pcln_err *err, int code, const char *file, long line,
    const char *fmt, ...)
{
	va_list ap;
	int n;

	if (err == NULL)
		return -1;
	err->code = code;
	err->offset = line > 0 ? line : -1;
	if (line > 0)
		n = snprintf(err->msg, sizeof err->msg, "%s:%ld: ", file, line);
	else
		n = snprintf(err->msg, sizeof err->msg, "%s: ", file);
	if (n < 0 || (size_t)n >= sizeof err->msg)
		return -1;
	va_start(ap, fmt);
	vsnprintf(err->msg + n, sizeof err->msg - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

static desc_reader *
reader_new(const char *name, unsigned quantum, pcln_err *err)
{
	desc_reader *r = calloc(1, sizeof *r);

	if (r == NULL || (r->name = strdup(name)) == NULL ||
	    (r->last = calloc(NTABLES, sizeof *r->last)) == NULL ||
	    (r->state = calloc(NTABLES, 1)) == NULL ||
	    (r->fdseen = calloc(PCLN_MAX_FUNCDATA, 1)) == NULL ||
	    (r->touched = malloc((NTABLES + PCLN_MAX_FUNCDATA) *
	    sizeof *r->touched)) == NULL) {
		desc_close(r);
		desc_error(err, PCLN_ENOMEM, name, 0, "out of memory");
		return NULL;
	}
	r->quantum = quantum;
	return r;
}

desc_reader *
desc_open_file(const char *path, unsigned quantum, pcln_err *err)
{
	desc_reader *r;
	FILE *fp = fopen(path, "r");

	if (fp == NULL) {
		desc_error(err, PCLN_EIO, path, 0, "cannot open: %s",
		    strerror(errno));
		return NULL;
	}
	if ((r = reader_new(path, quantum, err)) == NULL) {
		fclose(fp);
		return NULL;
	}
	r->fp = fp;
	return r;
}

desc_reader *
desc_open_mem(const char *name, const char *text, size_t len,
    unsigned quantum, pcln_err *err)
{
	desc_reader *r = reader_new(name, quantum, err);

	if (r == NULL)
		return NULL;
	r->mem = text;
	r->memlen = len;
	return r;
}

void
desc_close(desc_reader *r)
{
	if (r == NULL)
		return;
	if (r->fp != NULL)
		fclose(r->fp);
	free(r->name);
	free(r->buf);
	free(r->toks);
	free(r->fname);
	free(r->last);
	free(r->state);
	free(r->fdseen);
	free(r->touched);
	free(r->pts);
	free(r->paths);
	free(r->bytes);
	free(r);
}

long
desc_lines(const desc_reader *r)
{
	return r->lineno;
}

/* Read more input after BUF[0..END), moving the unread part to the
 * front and growing BUF when a line fills it.  0, or -1 on error. */
static int
fill(desc_reader *r, pcln_err *err)
{
	size_t n, want;

	if (r->pos > 0) {
		memmove(r->buf, r->buf + r->pos, r->end - r->pos);
		r->end -= r->pos;
		r->pos = 0;
	}
	/* One byte stays free for the NUL after the last line. */
	if (r->bufcap - r->end < RCHUNK / 2 + 1 &&
	    pclni_grow(&r->buf, &r->bufcap, r->end + RCHUNK + 1, 1) < 0)
		return desc_error(err, PCLN_ENOMEM, r->name, r->lineno + 1,
		    "out of memory");
	want = r->bufcap - r->end - 1;
	if (r->fp != NULL) {
		errno = 0;
		n = fread(r->buf + r->end, 1, want, r->fp);
		if (n < want) {
			if (ferror(r->fp))
				return desc_error(err, PCLN_EIO, r->name,
				    r->lineno + 1, "read error: %s",
				    strerror(errno ? errno : EIO));
			r->eof = 1;
		}
	} else {
		n = r->memlen - r->mempos;
		if (n > want)
			n = want;
		else
			r->eof = 1;
		memcpy(r->buf + r->end, r->mem + r->mempos, n);
		r->mempos += n;
	}
	r->end += n;
	return 0;
}

/* Point r->line at the next line (NUL-terminated, newline stripped).
 * Return 1, 0 at the end, -1 on error. */
static int
read_line(desc_reader *r, size_t *lenp, pcln_err *err)
{
	char *s = NULL, *nl = NULL;
	size_t len, scanned = 0;

	for (;;) {
		if (r->buf != NULL) {	/* NULL before the first fill */
			s = r->buf + r->pos;
			nl = r->end > r->pos + scanned ? memchr(s + scanned,
			    '\n', r->end - r->pos - scanned) : NULL;
		}
		if (nl != NULL || r->eof)
			break;
		scanned = r->end - r->pos;
		if (fill(r, err) < 0)
			return -1;
	}
	if (nl == NULL) {
		/* The last line, without a newline. */
		if (r->pos >= r->end)
			return 0;
		nl = r->buf + r->end;
	}
	len = (size_t)(nl - s);
	r->pos += len + (nl < r->buf + r->end);
	*nl = 0;
	r->line = s;
	r->lineno++;
	if (len > 0 && s[len - 1] == '\r')
		s[--len] = 0;
	if (memchr(s, 0, len) != NULL)
		return desc_error(err, PCLN_ESYNTAX, r->name, r->lineno,
		    "NUL byte in line");
	*lenp = len;
	return 1;
}

/* Bytes that end an unquoted run of a token: NUL, space, tab, '#', '"'. */
static const unsigned char tokstop[256] = {
	[0] = 1, [' '] = 1, ['\t'] = 1, ['#'] = 1, ['"'] = 1,
};

/* Split r->line in place into tokens.  Returns 0 or -1. */
static int
tokenize(desc_reader *r, pcln_err *err)
{
	char *p = r->line, *w;

	r->ntoks = 0;
	for (;;) {
		struct tok t;
		int stop;

		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == 0 || *p == '#')
			return 0;
		t.s = p;
		t.quoted = 0;
		/* Unquoted runs stay where they are: only a string moves
		 * the rest of the token back over its quotes and escapes. */
		while (!tokstop[(unsigned char)*p])
			p++;
		w = p;
		while (*p && *p != ' ' && *p != '\t' && *p != '#') {
			if (*p != '"') {
				*w++ = *p++;
				continue;
			}
			t.quoted = 1;
			p++;
			while (*p != '"') {
				char c = *p;
				if (c == 0)
					return desc_error(err, PCLN_ESYNTAX,
					    r->name, r->lineno,
					    "unterminated string");
				if (c == '\\') {
					switch (p[1]) {
					case '\\': case '"': c = p[1]; break;
					case 'n': c = '\n'; break;
					case 't': c = '\t'; break;
					default:
						return desc_error(err,
						    PCLN_ESYNTAX, r->name,
						    r->lineno, "bad escape "
						    "in string (expected \\\\, "
						    "\\\", \\n or \\t)");
					}
					p++;
				}
				*w++ = c;
				p++;
			}
			p++;
		}
		stop = *p == 0 || *p == '#';
		if (*p)
			p++;
		*w = 0;
		if (r->ntoks == r->tokcap && pclni_grow(&r->toks, &r->tokcap,
		    r->ntoks + 1, sizeof t) < 0)
			return desc_error(err, PCLN_ENOMEM, r->name, r->lineno,
			    "out of memory");
		r->toks[r->ntoks++] = t;
		if (stop)
			return 0;
	}
}

/* Parse an unsigned decimal or 0x-hex number, the whole of S. */
static int
parse_u64(const char *s, uint64_t *v)
{
	uint64_t x = 0, lim = UINT64_MAX / 10;
	unsigned base = 10, d, limd = (unsigned)(UINT64_MAX % 10);

	/* LIM and LIMD are constants: no division per digit (it was a
	 * fifth of pclnld's time on a large description). */
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		lim = UINT64_MAX / 16;
		limd = (unsigned)(UINT64_MAX % 16);
		s += 2;
	}
	if (*s == 0)
		return -1;
	if (base == 10) {
		for (; (d = (unsigned)(unsigned char)*s - '0') <= 9; s++) {
			if (x > lim || (x == lim && d > limd))
				return -2;
			x = x * 10 + d;
		}
		if (*s != 0)
			return -1;
		*v = x;
		return 0;
	}
	for (; *s; s++) {
		if (*s >= '0' && *s <= '9')
			d = (unsigned)(*s - '0');
		else if (base == 16 && *s >= 'a' && *s <= 'f')
			d = (unsigned)(*s - 'a' + 10);
		else if (base == 16 && *s >= 'A' && *s <= 'F')
			d = (unsigned)(*s - 'A' + 10);
		else
			return -1;
		if (x > lim || (x == lim && d > limd))
			return -2;
		x = x * base + d;
	}
	*v = x;
	return 0;
}

/* A signed number in [LO, HI]: -1 bad syntax, -2 out of range. */
static int
parse_i64(const char *s, int64_t lo, int64_t hi, int64_t *v)
{
	uint64_t u;
	int neg = 0, rc;

	if (*s == '-' || *s == '+')
		neg = *s++ == '-';
	if ((rc = parse_u64(s, &u)) < 0)
		return rc;
	if (neg) {
		if (u > (uint64_t)INT64_MAX + 1)
			return -2;
		*v = u == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)u;
	} else {
		if (u > (uint64_t)INT64_MAX)
			return -2;
		*v = (int64_t)u;
	}
	return *v < lo || *v > hi ? -2 : 0;
}

static int
bad_number(desc_reader *r, pcln_err *err, int rc, const char *what,
    const char *tok, const char *range)
{
	if (rc == -1)
		return desc_error(err, PCLN_ESYNTAX, r->name, r->lineno,
		    "bad %s '%s' (expected a number, decimal or 0x hex)",
		    what, tok);
	return desc_error(err, PCLN_ERANGE, r->name, r->lineno,
	    "%s %s out of range (expected %s)", what, tok, range);
}

/* TABLE's name, for a message (in r->tn for a pcdata table). */
static const char *
tname(desc_reader *r, int table)
{
	if (table < 3)
		return pclnrt_table_name(table);
	snprintf(r->tn, sizeof r->tn, "pcdata %d", table - 3);
	return r->tn;
}

/* A point's VALUE, the whole of S, as the common case: optional sign,
 * up to 10 decimal digits, in the 32-bit range.  1 and *V, or 0 for
 * parse_i64 to decide (and word any error). */
static int
fast_i32(const char *s, int64_t *v)
{
	int64_t x = 0;
	unsigned nd = 0, d;
	int neg = 0;

	if (*s == '-')
		neg = 1, s++;
	else if (*s == '+')
		s++;
	for (; (d = (unsigned)(unsigned char)*s - '0') <= 9 && nd < 10;
	    s++, nd++)
		x = x * 10 + d;
	if (nd == 0 || *s != 0)
		return 0;
	if (neg)
		x = -x;
	if (x < INT32_MIN || x > INT32_MAX)
		return 0;
	*v = x;
	return 1;
}

/* The number of the table named KW (pcsp, pcfile, pcln), else -1. */
static int
name_table(const char *kw)
{
	int t;

	if (kw[0] != 'p' || kw[1] != 'c')
		return -1;
	for (t = PCLN_TAB_PCSP; t <= PCLN_TAB_PCLN; t++)
		if (strcmp(kw, pclnrt_table_name(t)) == 0)
			return t;
	return -1;
}

static void
end_func(desc_reader *r)
{
	size_t i;

	for (i = 0; i < r->ntouched; i++) {
		int t = r->touched[i];
		if (t < NTABLES)
			r->state[t] = 0;
		else
			r->fdseen[t - NTABLES] = 0;
	}
	r->ntouched = 0;
	r->infunc = 0;
}

static int
need_func(desc_reader *r, const char *kw, pcln_err *err)
{
	if (!r->infunc)
		return desc_error(err, PCLN_ESYNTAX, r->name, r->lineno,
		    "'%s' outside a function (expected it between "
		    "'func' and 'end')", kw);
	return 0;
}

static int
no_func(desc_reader *r, const char *kw, pcln_err *err)
{
	if (r->infunc)
		return desc_error(err, PCLN_ESYNTAX, r->name, r->lineno,
		    "'%s' inside function %s (missing 'end' for the "
		    "function at line %ld)", kw, r->fname, r->fline);
	return 0;
}

static int
parse_target(desc_reader *r, struct desc_stmt *st, pcln_err *err)
{
	size_t i;
	uint64_t v;

	if (no_func(r, "target", err) < 0)
		return -1;
	if (r->ntoks < 3 || r->ntoks % 2 == 0)
		return desc_error(err, PCLN_ESYNTAX, r->name, r->lineno,
		    "expected 'target KEY VALUE ...' with keys ptrsize, "
		    "quantum, endian");
	memset(&st->target, 0, sizeof st->target);
	for (i = 1; i < r->ntoks; i += 2) {
		const char *k = r->toks[i].s, *s = r->toks[i + 1].s;
		if (strcmp(k, "ptrsize") == 0 && !st->target.ptrsize) {
			if (parse_u64(s, &v) < 0 || (v != 4 && v != 8))
				return desc_error(err, PCLN_ERANGE, r->name,
				    r->lineno, "bad ptrsize '%s' (expected "
				    "4 or 8)", s);
			st->target.ptrsize = (unsigned)v;
		} else if (strcmp(k, "quantum") == 0 && !st->target.quantum) {
			if (parse_u64(s, &v) < 0 ||
			    (v != 1 && v != 2 && v != 4))
				return desc_error(err, PCLN_ERANGE, r->name,
				    r->lineno, "bad quantum '%s' (expected "
				    "1, 2 or 4)", s);
			st->target.quantum = (unsigned)v;
		} else if (strcmp(k, "endian") == 0 && !st->target.endian) {
			if (strcmp(s, "little") == 0)
				st->target.endian = 1;
			else if (strcmp(s, "big") == 0)
				st->target.endian = 2;
			else
				return desc_error(err, PCLN_ESYNTAX, r->name,
				    r->lineno, "bad endian '%s' (expected "
				    "little or big)", s);
		} else
			return desc_error(err, PCLN_ESYNTAX, r->name,
			    r->lineno, "unknown or repeated target key '%s' "
			    "(expected ptrsize, quantum or endian, once)", k);
	}
	st->kind = DESC_TARGET;
	return 0;
}

static int
parse_data(desc_reader *r, struct desc_stmt *st, pcln_err *err)
{
	int rc;

	if (no_func(r, "data", err) < 0)
		return -1;
	if (r->ntoks != 3 || r->toks[1].s[0] == 0)
		return desc_error(err, PCLN_ESYNTAX, r->name, r->lineno,
		    "expected 'data NAME ADDRESS'");
	if ((rc = parse_u64(r->toks[2].s, &st->addr)) < 0)
		return bad_number(r, err, rc, "address", r->toks[2].s,
		    "below 2^64");
	st->name = r->toks[1].s;
	st->kind = DESC_DATA;
	return 0;
}

static int
parse_file(desc_reader *r, struct desc_stmt *st, pcln_err *err)
{
	uint64_t n;
	int rc;

	if (no_func(r, "file", err) < 0)
		return -1;
	if (r->ntoks != 3 || r->toks[2].s[0] == 0)
		return desc_error(err, PCLN_ESYNTAX, r->name, r->lineno,
		    "expected 'file NUMBER PATH'");
	if ((rc = parse_u64(r->toks[1].s, &n)) < 0 || n < 1 ||
	    n > DESC_MAX_FILE)
		return bad_number(r, err, rc == -1 ? -1 : -2, "file number",
		    r->toks[1].s, "1 to 1000000");
	st->idx = (unsigned)n;
	st->name = r->toks[2].s;
	st->kind = DESC_FILE;
	return 0;
}

static int
parse_func(desc_reader *r, struct desc_stmt *st, pcln_err *err)
{
	size_t i;
	int has_size = 0, has_args = 0, has_frame = 0, has_align = 0, rc;
	int64_t v;

	if (no_func(r, "func", err) < 0)
		return -1;
	if (r->ntoks < 2 || r->toks[1].s[0] == 0)
		return desc_error(err, PCLN_ESYNTAX, r->name, r->lineno,
		    "expected 'func NAME size N ...'");
	st->name = r->toks[1].s;
	st->size = 0;
	st->args = st->frame = 0;
	st->has_entry = st->dupok = 0;
	st->addr = 0;
	st->align = 1;
	for (i = 2; i < r->ntoks; i++) {
		const char *k = r->toks[i].s, *s;
		int *seen;

		if (strcmp(k, "dupok") == 0 && !st->dupok) {
			st->dupok = 1;
			continue;
		}
		if (strcmp(k, "size") == 0)
			seen = &has_size;
		else if (strcmp(k, "args") == 0)
			seen = &has_args;
		else if (strcmp(k, "frame") == 0)
			seen = &has_frame;
		else if (strcmp(k, "entry") == 0)
			seen = &st->has_entry;
		else if (strcmp(k, "align") == 0)
			seen = &has_align;
		else
			seen = NULL;
		if (seen == NULL || *seen)
			return desc_error(err, PCLN_ESYNTAX, r->name,
			    r->lineno, "unknown or repeated func attribute "
			    "'%s' (expected size, args, frame, entry, align "
			    "or dupok, once each)", k);
		*seen = 1;
		if (i + 1 >= r->ntoks)
			return desc_error(err, PCLN_ESYNTAX, r->name,
			    r->lineno, "'%s' needs a value", k);
		s = r->toks[++i].s;
		if (seen == &has_size) {
			if ((rc = parse_i64(s, 1, UINT32_MAX, &v)) < 0)
				return bad_number(r, err, rc, "size", s,
				    "1 to 0xffffffff");
			st->size = (uint64_t)v;
		} else if (seen == &has_args || seen == &has_frame) {
			if ((rc = parse_i64(s, INT32_MIN, INT32_MAX, &v)) < 0)
				return bad_number(r, err, rc, k, s,
				    "a 32-bit signed number");
			*(seen == &has_args ? &st->args : &st->frame) =
			    (int32_t)v;
		} else if (seen == &st->has_entry) {
			if ((rc = parse_u64(s, &st->addr)) < 0)
				return bad_number(r, err, rc, "entry", s,
				    "below 2^64");
		} else {
			if ((rc = parse_i64(s, 1, 1 << 30, &v)) < 0 ||
			    (v & (v - 1)) != 0)
				return desc_error(err, rc == -1 ?
				    PCLN_ESYNTAX : PCLN_ERANGE, r->name,
				    r->lineno, "bad align '%s' (expected a "
				    "power of two from 1 to 2^30)", s);
			st->align = (uint64_t)v;
		}
	}
	if (!has_size)
		return desc_error(err, PCLN_ESYNTAX, r->name, r->lineno,
		    "func %s has no size (expected 'size N')", st->name);
	if (st->has_entry && st->addr > UINT64_MAX - st->size)
		return desc_error(err, PCLN_ERANGE, r->name, r->lineno,
		    "func %s: entry 0x%llx + size 0x%llx overflows", st->name,
		    (unsigned long long)st->addr,
		    (unsigned long long)st->size);
	if (r->quantum > 1 && st->size % r->quantum != 0)
		return desc_error(err, PCLN_ERANGE, r->name, r->lineno,
		    "func %s: size 0x%llx is not a multiple of the pc "
		    "quantum %u", st->name, (unsigned long long)st->size,
		    r->quantum);
	if (r->quantum > 1 && st->has_entry && st->addr % r->quantum != 0)
		return desc_error(err, PCLN_ERANGE, r->name, r->lineno,
		    "func %s: entry 0x%llx is not a multiple of the pc "
		    "quantum %u", st->name, (unsigned long long)st->addr,
		    r->quantum);
	free(r->fname);
	if ((r->fname = strdup(st->name)) == NULL)
		return desc_error(err, PCLN_ENOMEM, r->name, r->lineno,
		    "out of memory");
	r->infunc = 1;
	r->fline = r->lineno;
	r->fsize = st->size;
	st->kind = DESC_FUNC;
	return 0;
}

static int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* TABLE's points or hex bytes from token FIRST on. */
static int
parse_table(desc_reader *r, struct desc_stmt *st, int table, size_t first,
    pcln_err *err)
{
	size_t i;
	int rc;

	if (first >= r->ntoks)
		return desc_error(err, PCLN_ESYNTAX, r->name, r->lineno,
		    "%s: expected points 'PCOFF:VALUE ...' or 'hex BYTES'",
		    tname(r, table));
	st->table = table;
	if (r->state[table] == 0)
		r->touched[r->ntouched++] = table;
	if (strcmp(r->toks[first].s, "hex") == 0 && !r->toks[first].quoted) {
		size_t n = 0;
		if (r->state[table] != 0)
			return desc_error(err, PCLN_EDUP, r->name, r->lineno,
			    "%s of function %s given twice (hex bytes give "
			    "a whole table)", tname(r, table), r->fname);
		r->state[table] = 2;
		for (i = first + 1; i < r->ntoks; i++) {
			const char *s = r->toks[i].s;
			size_t l = strlen(s), j;
			if (l % 2 != 0)
				return desc_error(err, PCLN_ESYNTAX, r->name,
				    r->lineno, "%s: odd number of hex digits "
				    "in '%s'", tname(r, table), s);
			if (pclni_grow(&r->bytes, &r->bytecap, n + l / 2, 1) < 0)
				return desc_error(err, PCLN_ENOMEM, r->name,
				    r->lineno, "out of memory");
			for (j = 0; j < l; j += 2) {
				int a = hexval(s[j]), b = hexval(s[j + 1]);
				if (a < 0 || b < 0)
					return desc_error(err, PCLN_ESYNTAX,
					    r->name, r->lineno, "%s: bad hex "
					    "byte '%c%c' (expected 00-ff)",
					    tname(r, table), s[j], s[j + 1]);
				r->bytes[n++] = (uint8_t)(a << 4 | b);
			}
		}
		if (n == 0)
			return desc_error(err, PCLN_ESYNTAX, r->name,
			    r->lineno, "%s: 'hex' needs bytes", tname(r, table));
		st->bytes = r->bytes;
		st->nbytes = n;
		st->kind = DESC_HEX;
		return 0;
	}
	if (r->state[table] == 2)
		return desc_error(err, PCLN_EDUP, r->name, r->lineno,
		    "%s of function %s already given as hex bytes", tname(r, table),
		    r->fname);
	if (pclni_grow(&r->pts, &r->ptcap, r->ntoks - first, sizeof *r->pts) < 0 ||
	    (table == PCLN_TAB_PCFILE && pclni_grow(&r->paths, &r->pathcap,
	    r->ntoks - first, sizeof *r->paths) < 0))
		return desc_error(err, PCLN_ENOMEM, r->name, r->lineno,
		    "out of memory");
	st->npts = 0;
	for (i = first; i < r->ntoks; i++) {
		char *s = r->toks[i].s, *colon;
		struct desc_point *pt = &r->pts[st->npts];
		uint64_t off = 0;
		unsigned nd = 0, d;
		int64_t v = 0;
		int fast = 0;

		/* The common case first: a decimal PCOFF of at most 19
		 * digits (no overflow), ':', a decimal VALUE; anything else
		 * takes the general path, which words the errors. */
		for (colon = s; (d = (unsigned)(unsigned char)*colon - '0') <= 9 &&
		    nd < 19; colon++, nd++)
			off = off * 10 + d;
		if (nd > 0 && *colon == ':')
			fast = table == PCLN_TAB_PCFILE ||
			    fast_i32(colon + 1, &v);
		if (fast)
			pt->pcoff = off;
		else {
			colon = strchr(s, ':');
			if (colon == NULL || colon == s)
				return desc_error(err, PCLN_ESYNTAX, r->name,
				    r->lineno, "%s: bad point '%s' (expected "
				    "PCOFF:%s)", tname(r, table), s,
				    table == PCLN_TAB_PCFILE ? "PATH" :
				    "VALUE");
			*colon = 0;
			if ((rc = parse_u64(s, &pt->pcoff)) < 0)
				return bad_number(r, err, rc, "pc offset", s,
				    "below 2^64");
		}
		if (pt->pcoff >= r->fsize)
			return desc_error(err, PCLN_ERANGE, r->name, r->lineno,
			    "%s: pc offset 0x%llx beyond the size 0x%llx of "
			    "function %s", tname(r, table), (unsigned long long)pt->pcoff,
			    (unsigned long long)r->fsize, r->fname);
		if (r->quantum > 1 && pt->pcoff % r->quantum != 0)
			return desc_error(err, PCLN_ERANGE, r->name, r->lineno,
			    "%s: pc offset 0x%llx is not a multiple of the pc "
			    "quantum %u", tname(r, table), (unsigned long long)pt->pcoff,
			    r->quantum);
		if (r->state[table] == 1 && pt->pcoff <= r->last[table])
			return desc_error(err, PCLN_EORDER, r->name, r->lineno,
			    "%s: pc offset 0x%llx not after the previous "
			    "point's 0x%llx (points must increase)", tname(r, table),
			    (unsigned long long)pt->pcoff,
			    (unsigned long long)r->last[table]);
		r->state[table] = 1;
		r->last[table] = pt->pcoff;
		if (table == PCLN_TAB_PCFILE) {
			if (colon[1] == 0)
				return desc_error(err, PCLN_ESYNTAX, r->name,
				    r->lineno, "pcfile: empty path at pc "
				    "offset 0x%llx",
				    (unsigned long long)pt->pcoff);
			r->paths[st->npts] = colon + 1;
			pt->value = (int32_t)st->npts;
		} else {
			if (!fast && (rc = parse_i64(colon + 1, INT32_MIN,
			    INT32_MAX, &v)) < 0)
				return bad_number(r, err, rc, "value",
				    colon + 1, "a 32-bit signed number");
			pt->value = (int32_t)v;
		}
		st->npts++;
	}
	st->pts = r->pts;
	st->paths = r->paths;
	st->kind = DESC_POINTS;
	return 0;
}

/* A pcsp or pcln line of plain points, "PCOFF:VALUE" in decimal, valid,
 * read straight from the line P (after the keyword) without splitting
 * it: 1 and *ST, or 0 (nothing changed) for the general path, which
 * also words any error; -1 out of memory. */
static int
fast_points(desc_reader *r, struct desc_stmt *st, int table, const char *p,
    pcln_err *err)
{
	uint64_t last = r->last[table], q = r->quantum;
	int have = r->state[table] == 1;
	size_t n = 0;

	if (r->state[table] == 2)
		return 0;
	for (;;) {
		uint64_t off = 0;
		int64_t v = 0;
		unsigned nd, d;
		int neg = 0;

		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == 0)
			break;
		for (nd = 0; (d = (unsigned)(unsigned char)*p - '0') <= 9 &&
		    nd < 19; p++, nd++)
			off = off * 10 + d;
		if (nd == 0 || *p++ != ':')
			return 0;
		if (*p == '-')
			neg = 1, p++;
		else if (*p == '+')
			p++;
		for (nd = 0; (d = (unsigned)(unsigned char)*p - '0') <= 9 &&
		    nd < 10; p++, nd++)
			v = v * 10 + d;
		if (nd == 0 || (*p != ' ' && *p != '\t' && *p != 0))
			return 0;
		if (neg)
			v = -v;
		if (v < INT32_MIN || v > INT32_MAX || off >= r->fsize ||
		    (q > 1 && off % q != 0) || (have && off <= last))
			return 0;
		if (n == r->ptcap && pclni_grow(&r->pts, &r->ptcap, n + 1,
		    sizeof *r->pts) < 0)
			return desc_error(err, PCLN_ENOMEM, r->name, r->lineno,
			    "out of memory");
		r->pts[n].pcoff = off;
		r->pts[n].value = (int32_t)v;
		n++;
		last = off;
		have = 1;
	}
	if (n == 0)
		return 0;
	if (r->state[table] == 0)
		r->touched[r->ntouched++] = table;
	r->state[table] = 1;
	r->last[table] = last;
	st->table = table;
	st->pts = r->pts;
	st->npts = n;
	st->paths = r->paths;
	st->kind = DESC_POINTS;
	return 1;
}

static int
parse_funcdata(desc_reader *r, struct desc_stmt *st, pcln_err *err)
{
	const struct tok *t;
	uint64_t idx;
	int64_t off = 0;
	int rc;
	char *s;

	if (need_func(r, "funcdata", err) < 0)
		return -1;
	if (r->ntoks != 3 && r->ntoks != 4)
		return desc_error(err, PCLN_ESYNTAX, r->name, r->lineno,
		    "expected 'funcdata INDEX VALUE' or 'funcdata INDEX "
		    "SYMBOL[+OFFSET]'");
	if ((rc = parse_u64(r->toks[1].s, &idx)) < 0 ||
	    idx >= PCLN_MAX_FUNCDATA)
		return bad_number(r, err, rc == -1 ? -1 : -2, "funcdata index",
		    r->toks[1].s, "0 to 1023");
	if (r->fdseen[idx])
		return desc_error(err, PCLN_EDUP, r->name, r->lineno,
		    "funcdata %u of function %s given twice", (unsigned)idx,
		    r->fname);
	r->fdseen[idx] = 1;
	r->touched[r->ntouched++] = NTABLES + (int)idx;
	st->idx = (unsigned)idx;
	t = &r->toks[2];
	s = t->s;
	st->isref = 0;
	st->refoff = 0;
	if (!t->quoted && ((s[0] >= '0' && s[0] <= '9') || s[0] == '-')) {
		if (r->ntoks != 3)
			return desc_error(err, PCLN_ESYNTAX, r->name,
			    r->lineno, "funcdata: a constant takes no offset");
		if ((rc = parse_u64(s, &st->addr)) < 0)
			return bad_number(r, err, rc, "funcdata value", s,
			    "0 to 2^64-1");
		st->kind = DESC_FUNCDATA;
		return 0;
	}
	if (!t->quoted && r->ntoks == 3) {
		/* SYMBOL+N or SYMBOL-N: split at the last sign followed by
		 * a number. */
		char *p = s + strlen(s);
		while (p > s && p[-1] != '+' && p[-1] != '-')
			p--;
		if (p > s + 1 && *p >= '0' && *p <= '9' &&
		    parse_i64(p - 1, INT64_MIN, INT64_MAX, &off) == 0)
			p[-1] = 0;
		else
			off = 0;
	} else if (r->ntoks == 4) {
		const char *o = r->toks[3].s;
		if ((o[0] != '+' && o[0] != '-') ||
		    (rc = parse_i64(o, INT64_MIN, INT64_MAX, &off)) < 0)
			return desc_error(err, PCLN_ESYNTAX, r->name,
			    r->lineno, "funcdata: bad offset '%s' (expected "
			    "+N or -N)", o);
	}
	if (s[0] == 0)
		return desc_error(err, PCLN_ESYNTAX, r->name, r->lineno,
		    "funcdata: empty symbol name");
	st->isref = 1;
	st->name = s;
	st->refoff = off;
	st->kind = DESC_FUNCDATA;
	return 0;
}

int
desc_next(desc_reader *r, struct desc_stmt *st, pcln_err *err)
{
	for (;;) {
		const char *kw;
		size_t len;
		int rc, table;

		if ((rc = read_line(r, &len, err)) < 0)
			return -1;
		if (rc == 0) {
			if (r->infunc)
				return desc_error(err, PCLN_ESYNTAX, r->name,
				    r->fline, "func %s has no 'end' before "
				    "the end of the input", r->fname);
			return 0;
		}
		if (r->infunc) {
			/* Most lines: pcsp and pcln points. */
			const char *p = r->line;
			int t = -1;
			while (*p == ' ' || *p == '\t')
				p++;
			if (p[0] == 'p' && p[1] == 'c') {
				if (p[2] == 's' && p[3] == 'p')
					t = PCLN_TAB_PCSP;
				else if (p[2] == 'l' && p[3] == 'n')
					t = PCLN_TAB_PCLN;
				if (t >= 0 && p[4] != ' ' && p[4] != '\t')
					t = -1;
			}
			if (t >= 0) {
				memset(st, 0, sizeof *st);
				st->line = r->lineno;
				if ((rc = fast_points(r, st, t, p + 5,
				    err)) != 0)
					return rc;
			}
		}
		if (tokenize(r, err) < 0)
			return -1;
		if (r->ntoks == 0)
			continue;
		memset(st, 0, sizeof *st);
		st->line = r->lineno;
		kw = r->toks[0].s;
		if (r->toks[0].quoted)
			kw = "";
		/* The statements most lines are come first. */
		if ((table = name_table(kw)) >= 0) {
			if ((rc = need_func(r, kw, err)) == 0)
				rc = parse_table(r, st, table, 1, err);
		} else if (strcmp(kw, "target") == 0)
			rc = parse_target(r, st, err);
		else if (strcmp(kw, "data") == 0)
			rc = parse_data(r, st, err);
		else if (strcmp(kw, "func") == 0)
			rc = parse_func(r, st, err);
		else if (strcmp(kw, "file") == 0)
			rc = parse_file(r, st, err);
		else if (strcmp(kw, "end") == 0) {
			if ((rc = need_func(r, "end", err)) == 0 &&
			    r->ntoks != 1)
				rc = desc_error(err, PCLN_ESYNTAX, r->name,
				    r->lineno, "'end' takes nothing after it");
			if (rc == 0) {
				end_func(r);
				st->kind = DESC_END;
			}
		} else if (strcmp(kw, "pcdata") == 0) {
			uint64_t idx;
			if ((rc = need_func(r, kw, err)) == 0) {
				if (r->ntoks < 2)
					rc = desc_error(err, PCLN_ESYNTAX,
					    r->name, r->lineno, "expected "
					    "'pcdata INDEX PCOFF:VALUE ...'");
				else if ((rc = parse_u64(r->toks[1].s,
				    &idx)) < 0 || idx >= PCLN_MAX_PCDATA)
					rc = bad_number(r, err,
					    rc == -1 ? -1 : -2,
					    "pcdata index", r->toks[1].s,
					    "0 to 1023");
				else
					rc = parse_table(r, st,
					    PCLN_TAB_PCDATA((int)idx), 2,
					    err);
			}
		} else if (strcmp(kw, "funcdata") == 0)
			rc = parse_funcdata(r, st, err);
		else
			rc = desc_error(err, PCLN_ESYNTAX, r->name, r->lineno,
			    "unknown statement '%s' (expected target, data, "
			    "file, func, pcsp, pcfile, pcln, pcdata, funcdata or "
			    "end)", r->toks[0].s);
		if (rc < 0)
			return -1;
		return 1;
	}
}
