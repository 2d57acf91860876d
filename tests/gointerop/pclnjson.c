/* pclnjson.c -- what libpcln's reader says about a table, as JSON, for
 * the Go interop tests (tests/gointerop/gosymcheck.go compares it with
 * Go's debug/gosym).
 *
 * Usage: pclnjson [--text ADDR] [--out BLOB] FILE
 *        pclnjson --a2l [--text ADDR] FILE  < hex pcs
 *
 * FILE is a pcln blob, or a Go pclntab in any layout, or an ELF Go binary;
 * the last two are imported with pcln_go_convert (ADDR: the text start of
 * a raw 1.18+ table) and, with --out, the converted blob is written to
 * BLOB.  The JSON holds the target, the files, and for every function its
 * name, entry, end, next entry, args, frame and its pcfile and pcln rows.
 * --a2l answers like `go tool addr2line`: for each pc read, a line with the
 * function name and one with file:line ("?" and "?:0" when unknown).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcln.h"
#include "pcln_go.h"

static void
jstr(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

static int
rows(const pcln_table *t, size_t i, int table)
{
	pcln_rowiter it;
	pcln_row r;
	int rc, n = 0;

	if (pcln_rows_begin(&it, t, i, table) < 0)
		return -1;
	while ((rc = pcln_rows_next(&it, &r)) == 1) {
		printf("%s[%" PRIu64 ",%" PRIu64 ",", n++ ? "," : "", r.start,
		    r.end);
		if (table == PCLN_TAB_PCFILE) {
			const char *name = pcln_file_name(t, (uint32_t)r.value);
			if (name == NULL)
				return -1;
			jstr(name);
		} else {
			printf("%" PRId32, r.value);
		}
		putchar(']');
	}
	return rc;
}

static int
dump(const pcln_table *t)
{
	pcln_info info;
	size_t i, n;

	pcln_get_info(t, &info);
	printf("{\"ptrsize\":%u,\"quantum\":%u,\"bigendian\":%s,"
	    "\"text_start\":%" PRIu64 ",\"text_end\":%" PRIu64
	    ",\"trailer\":%s,\n\"files\":[", info.target.ptrsize,
	    info.target.quantum, info.target.bigendian ? "true" : "false",
	    info.text_start, info.text_end, info.has_trailer ? "true" :
	    "false");
	n = pcln_nfile(t);
	for (i = 1; i <= n; i++) {
		if (i > 1)
			putchar(',');
		jstr(pcln_file_name(t, (uint32_t)i));
	}
	printf("],\n\"funcs\":[\n");
	n = pcln_nfunc(t);
	for (i = 0; i < n; i++) {
		pcln_func f;
		if (pcln_get_func(t, i, &f) < 0)
			return -1;
		printf("%s{\"name\":", i ? ",\n" : "");
		jstr(f.name);
		printf(",\"entry\":%" PRIu64 ",\"end\":%" PRIu64 ",\"next\":%"
		    PRIu64 ",\"args\":%" PRId32 ",\"frame\":%" PRId32
		    ",\"has_pcfile\":%s,\"has_pcln\":%s,\"pcfile\":[", f.entry,
		    f.end, f.next, f.args, f.frame,
		    f.tab_off[PCLN_TAB_PCFILE] ? "true" : "false",
		    f.tab_off[PCLN_TAB_PCLN] ? "true" : "false");
		if (rows(t, i, PCLN_TAB_PCFILE) < 0)
			return -1;
		printf("],\"pcln\":[");
		if (rows(t, i, PCLN_TAB_PCLN) < 0)
			return -1;
		printf("]}");
	}
	printf("\n]}\n");
	return 0;
}

static int
a2l(const pcln_table *t)
{
	char line[128];

	while (fgets(line, sizeof line, stdin) != NULL) {
		uint64_t pc = strtoull(line, NULL, 16);
		pcln_loc loc;

		if (pcln_lookup(t, pc, &loc) < 0 || loc.func < 0) {
			printf("?\n?:0\n");
			continue;
		}
		printf("%s\n%s:%" PRId32 "\n", loc.name,
		    loc.file ? loc.file : "?", loc.file ? loc.line : 0);
	}
	return 0;
}

static uint8_t *
slurp(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t cap = 0, n;

	*len = 0;
	if (fp == NULL)
		return NULL;
	for (;;) {
		if (*len == cap) {
			uint8_t *nb;
			cap = cap ? cap * 2 : 1 << 16;
			if ((nb = realloc(buf, cap)) == NULL)
				break;
			buf = nb;
		}
		n = fread(buf + *len, 1, cap - *len, fp);
		*len += n;
		if (n == 0)
			break;
	}
	fclose(fp);
	return buf;
}

int
main(int argc, char **argv)
{
	const char *out = NULL, *path = NULL;
	uint64_t text = 0;
	int ai, mode_a2l = 0, rc;
	uint8_t *data, *blob = NULL;
	size_t len, bloblen;
	pcln_table *t;
	pcln_err err;

	for (ai = 1; ai < argc; ai++) {
		if (strcmp(argv[ai], "--a2l") == 0)
			mode_a2l = 1;
		else if (strcmp(argv[ai], "--text") == 0 && ai + 1 < argc)
			text = strtoull(argv[++ai], NULL, 0);
		else if (strcmp(argv[ai], "--out") == 0 && ai + 1 < argc)
			out = argv[++ai];
		else
			path = argv[ai];
	}
	if (path == NULL) {
		fprintf(stderr, "usage: pclnjson [--a2l] [--text ADDR] "
		    "[--out BLOB] FILE\n");
		return 2;
	}
	if ((data = slurp(path, &len)) == NULL) {
		perror(path);
		return 1;
	}
	t = pcln_open(data, len, 0, &err);
	if (t == NULL) {
		pcln_go_info gi;
		if (pcln_go_convert(data, len, text, 0, &blob, &bloblen, &gi,
		    &err) < 0) {
			fprintf(stderr, "pclnjson: %s: %s\n", path, err.msg);
			free(data);
			return 1;
		}
		fprintf(stderr, "pclnjson: %s: Go %d layout%s, %zu functions, "
		    "%zu files\n", path, gi.layout, gi.packed_nfuncdata ?
		    " (packed nfuncdata)" : "", gi.nfunc, gi.nfile);
		if ((t = pcln_open(blob, bloblen, 0, &err)) == NULL) {
			fprintf(stderr, "pclnjson: %s: converted blob: %s\n",
			    path, err.msg);
			free(blob);
			free(data);
			return 1;
		}
		if (out != NULL) {
			FILE *fp = fopen(out, "wb");
			if (fp == NULL || fwrite(blob, 1, bloblen, fp) !=
			    bloblen || fclose(fp) != 0) {
				perror(out);
				pcln_close(t);
				free(blob);
				free(data);
				return 1;
			}
		}
	}
	rc = mode_a2l ? a2l(t) : dump(t);
	pcln_close(t);
	free(blob);
	free(data);
	if (rc < 0 || fflush(stdout) != 0) {
		fprintf(stderr, "pclnjson: %s: failed\n", path);
		return 1;
	}
	return 0;
}
