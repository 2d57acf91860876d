/* dump_json.c -- a tiny JSON writer for pclndump.
 *
 * Strings are escaped as RFC 8259 requires: '"', '\\' and the control
 * characters below 0x20 (as \n, \t, ... or \u00XX).  Names in a blob are
 * bytes; a byte sequence that is not valid UTF-8 is written as U+FFFD so
 * the output is always valid UTF-8 JSON (doc/JSON.md).
 */
#include <config.h>

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "dump.h"

void
json_init(json *j, FILE *f, int pretty)
{
	memset(j, 0, sizeof *j);
	j->f = f;
	j->pretty = pretty;
}

static void
newline(json *j)
{
	int i;

	if (!j->pretty)
		return;
	putc('\n', j->f);
	for (i = 0; i < j->depth; i++)
		fputs("  ", j->f);
}

/* Separator before a value or key at the current depth. */
static void
before_value(json *j)
{
	if (j->after_key) {
		j->after_key = 0;
		return;
	}
	if (j->depth > 0) {
		if (j->count[j->depth] > 0)
			putc(',', j->f);
		newline(j);
		j->count[j->depth]++;
	}
}

static void
begin(json *j, int c)
{
	before_value(j);
	putc(c, j->f);
	if (j->depth + 1 < JSON_MAXDEPTH)
		j->depth++;
	j->count[j->depth] = 0;
}

static void
end(json *j, int c)
{
	int had = j->count[j->depth] > 0;

	if (j->depth > 0)
		j->depth--;
	if (had)
		newline(j);
	putc(c, j->f);
}

void
json_begin_object(json *j)
{
	begin(j, '{');
}

void
json_end_object(json *j)
{
	end(j, '}');
}

void
json_begin_array(json *j)
{
	begin(j, '[');
}

void
json_end_array(json *j)
{
	end(j, ']');
}

void
json_key(json *j, const char *key)
{
	before_value(j);
	json_write_string(j->f, key);
	fputs(j->pretty ? ": " : ":", j->f);
	j->after_key = 1;
}

/* Length of the valid UTF-8 sequence at S, or 0 if it is not one. */
static size_t
utf8_len(const unsigned char *s)
{
	uint32_t c;
	size_t n, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, c = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, c = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, c = s[0] & 0x07;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)	/* also stops at the NUL */
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && c < 0x800) || (n == 4 && c < 0x10000) ||
	    (c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff)
		return 0;
	return n;
}

void
json_write_string(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	putc('"', f);
	while (*s != 0) {
		size_t n;

		switch (*s) {
		case '"':  fputs("\\\"", f); s++; continue;
		case '\\': fputs("\\\\", f); s++; continue;
		case '\b': fputs("\\b", f); s++; continue;
		case '\f': fputs("\\f", f); s++; continue;
		case '\n': fputs("\\n", f); s++; continue;
		case '\r': fputs("\\r", f); s++; continue;
		case '\t': fputs("\\t", f); s++; continue;
		default:
			break;
		}
		if (*s < 0x20) {
			fprintf(f, "\\u%04x", *s);
			s++;
			continue;
		}
		n = utf8_len(s);
		if (n == 0) {
			fputs("\xef\xbf\xbd", f);	/* U+FFFD */
			s++;
			continue;
		}
		fwrite(s, 1, n, f);
		s += n;
	}
	putc('"', f);
}

void
json_string(json *j, const char *s)
{
	before_value(j);
	if (s == NULL)
		fputs("null", j->f);
	else
		json_write_string(j->f, s);
}

void
json_int(json *j, int64_t v)
{
	before_value(j);
	fprintf(j->f, "%" PRId64, v);
}

void
json_uint(json *j, uint64_t v)
{
	before_value(j);
	fprintf(j->f, "%" PRIu64, v);
}

void
json_hex(json *j, uint64_t v)
{
	before_value(j);
	fprintf(j->f, "\"0x%" PRIx64 "\"", v);
}

void
json_bool(json *j, int v)
{
	before_value(j);
	fputs(v ? "true" : "false", j->f);
}

void
json_null(json *j)
{
	before_value(j);
	fputs("null", j->f);
}

void
json_double1(json *j, double v)
{
	before_value(j);
	fprintf(j->f, "%.1f", v);
}

void
json_end_document(json *j)
{
	putc('\n', j->f);
	j->depth = 0;
	j->count[0] = 0;
	j->after_key = 0;
}
