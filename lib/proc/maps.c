/* maps.c -- parse /proc/PID/maps (pcln_proc.h).
 *
 * The kernel writes each line as (fs/proc/task_mmu.c, show_map_vma):
 *   "%08lx-%08lx %c%c%c%c %08llx %02x:%02x %lu " then, padded with blanks
 *   to a column, the path (escaped: a newline in a name becomes "\012"),
 *   or "[heap]", "[stack]", "[vdso]", "[vvar]", "[anon:NAME]", or
 *   nothing.  A file removed since it was mapped gets " (deleted)".
 * The text is untrusted (a test, a fuzzer, a copy from elsewhere):
 * every field is checked, every number bounded, and a bad line reported
 * as "line N, column C: expected ...".
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "pcln_proc.h"

#define MAPS_LINE_MAX	8192
#define DELETED_SUFFIX	" (deleted)"

struct cur {
	const char *p, *end, *line;	/* position, end of line, its start */
	size_t lineno;
	pcln_err *err;
};

static int
bad(struct cur *c, const char *what)
{
	return pclni_seterr(c->err, PCLN_ESYNTAX, (int64_t)c->lineno,
	    "maps line %zu, column %zu: expected %s", c->lineno,
	    (size_t)(c->p - c->line) + 1, what);
}

static int
hexval(int ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

/* A hex number of 1 to 16 digits (MAXDIGITS at most). */
static int
hexnum(struct cur *c, uint64_t *v, int maxdigits, const char *what)
{
	int n = 0, d;

	*v = 0;
	while (c->p < c->end && (d = hexval((unsigned char)*c->p)) >= 0) {
		if (++n > maxdigits)
			return bad(c, what);
		*v = *v << 4 | (uint64_t)d;
		c->p++;
	}
	return n == 0 ? bad(c, what) : 0;
}

static int
decnum(struct cur *c, uint64_t *v, const char *what)
{
	int n = 0;

	*v = 0;
	while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
		unsigned dg = (unsigned)(*c->p - '0');
		if (*v > (UINT64_MAX - dg) / 10)
			return bad(c, what);
		*v = *v * 10 + dg;
		c->p++;
		n++;
	}
	return n == 0 ? bad(c, what) : 0;
}

static int
expect(struct cur *c, char ch, const char *what)
{
	if (c->p >= c->end || *c->p != ch)
		return bad(c, what);
	c->p++;
	return 0;
}

static int
perm(struct cur *c, char yes, unsigned bit, unsigned *prot, const char *what)
{
	if (c->p < c->end && *c->p == yes)
		*prot |= bit;
	else if (c->p >= c->end || *c->p != '-')
		return bad(c, what);
	c->p++;
	return 0;
}

/* One line C->line .. C->end into *M; the path is copied to PATH (at
 * least C->end - C->line + 1 bytes). */
static int
parse_line(struct cur *c, pcln_mapping *m, char *path)
{
	uint64_t v;
	const char *s;
	size_t n;

	memset(m, 0, sizeof *m);
	c->p = c->line;
	if (hexnum(c, &m->start, 16, "the start address in hex") < 0 ||
	    expect(c, '-', "'-' after the start address") < 0 ||
	    hexnum(c, &m->end, 16, "the end address in hex") < 0)
		return -1;
	if (m->end <= m->start) {
		c->p = c->line;
		return bad(c, "an end address above the start address");
	}
	if (expect(c, ' ', "a blank after the addresses") < 0 ||
	    perm(c, 'r', PCLN_MAP_READ, &m->prot, "'r' or '-'") < 0 ||
	    perm(c, 'w', PCLN_MAP_WRITE, &m->prot, "'w' or '-'") < 0 ||
	    perm(c, 'x', PCLN_MAP_EXEC, &m->prot, "'x' or '-'") < 0)
		return -1;
	if (c->p < c->end && *c->p == 's')
		m->prot |= PCLN_MAP_SHARED;
	else if (c->p >= c->end || *c->p != 'p')
		return bad(c, "'p' or 's'");
	c->p++;
	if (expect(c, ' ', "a blank after the permissions") < 0 ||
	    hexnum(c, &m->offset, 16, "the file offset in hex") < 0 ||
	    expect(c, ' ', "a blank after the offset") < 0 ||
	    hexnum(c, &v, 8, "the device's major number in hex") < 0)
		return -1;
	m->major = (uint32_t)v;
	if (expect(c, ':', "':' in the device") < 0 ||
	    hexnum(c, &v, 8, "the device's minor number in hex") < 0)
		return -1;
	m->minor = (uint32_t)v;
	if (expect(c, ' ', "a blank after the device") < 0 ||
	    decnum(c, &m->inode, "the inode in decimal") < 0)
		return -1;
	/* The path: after the blanks, the rest of the line. */
	if (c->p < c->end && *c->p != ' ')
		return bad(c, "a blank or the end of the line after the inode");
	while (c->p < c->end && *c->p == ' ')
		c->p++;
	s = c->p;
	n = (size_t)(c->end - s);
	if (n >= sizeof DELETED_SUFFIX - 1 &&
	    memcmp(s + n - (sizeof DELETED_SUFFIX - 1), DELETED_SUFFIX,
	    sizeof DELETED_SUFFIX - 1) == 0) {
		n -= sizeof DELETED_SUFFIX - 1;
		m->deleted = 1;
	}
	if (memchr(s, 0, n) != NULL) {
		c->p = (const char *)memchr(s, 0, n);
		return bad(c, "a path without NUL bytes");
	}
	memcpy(path, s, n);
	path[n] = 0;
	m->path = path;
	return 0;
}

int
pcln_maps_parse(const char *text, size_t len, pcln_maps_cb cb, void *arg,
    pcln_err *err)
{
	struct cur c;
	const char *end = text + len, *nl;
	char *path;
	pcln_mapping m;
	int rc = 0;

	pclni_clearerr(err);
	if (text == NULL && len > 0)
		return pclni_seterr(err, PCLN_EINVAL, -1,
		    "maps text is NULL");
	if ((path = malloc(MAPS_LINE_MAX + 1)) == NULL)
		return pclni_seterr(err, PCLN_ENOMEM, -1,
		    "out of memory for a maps line");
	memset(&c, 0, sizeof c);
	c.err = err;
	c.line = text;
	while (len > 0 && c.line < end) {
		c.lineno++;
		nl = memchr(c.line, '\n', (size_t)(end - c.line));
		c.end = nl != NULL ? nl : end;
		if ((size_t)(c.end - c.line) > MAPS_LINE_MAX) {
			c.p = c.line + MAPS_LINE_MAX;
			rc = bad(&c, "a line of at most 8192 bytes");
			break;
		}
		if (parse_line(&c, &m, path) < 0) {
			rc = -1;
			break;
		}
		if (cb != NULL && (rc = cb(arg, &m)) != 0)
			break;
		if (nl == NULL)
			break;
		c.line = nl + 1;
	}
	free(path);
	return rc;
}
