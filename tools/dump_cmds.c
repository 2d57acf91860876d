/* dump_cmds.c -- pclndump's listings: summary, functions, function
 * detail, lookup, reverse line lookup and verify, in text and JSON
 * (doc/JSON.md is the JSON schema). */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pclnrt_format.h"
#include "dump.h"

static const char *
byteorder(int big)
{
	return big ? "big-endian" : "little-endian";
}

static const char *
sect_name(uint32_t tag)
{
	switch (tag) {
	case PCLN_SECT_FUNCSIZE:	return "FUNCSIZE";
	case PCLN_SECT_INLTREE:		return "INLTREE";
	case PCLN_SECT_FUNCINDEX:	return "FUNCINDEX";
	case PCLN_SECT_PCCKPT:		return "PCCKPT";
	case PCLN_SECT_BUILDID:		return "BUILDID";
	case PCLN_SECT_INLPACK:		return "INLPACK";
	case PCLN_SECT_SYMNAME:		return "SYMNAME";
	default:			return "unknown";
	}
}

static double
percent(uint64_t part, uint64_t total)
{
	return total ? 100.0 * (double)part / (double)total : 0.0;
}

/* Flush stdout; a write error is an I/O failure. */
static int
finish(int rc)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		dump_error("write error: %s", strerror(errno));
		return DUMP_EXIT_IO;
	}
	return rc;
}

/* RC, or DUMP_EXIT_CORRUPT if a damaged function was met (lazy checks)
 * and nothing worse happened. */
static int
damaged_rc(const dump_input *in, int rc)
{
	return in->damaged && (rc == 0 || rc == DUMP_EXIT_NOTFOUND) ?
	    DUMP_EXIT_CORRUPT : rc;
}

/* --- summary ----------------------------------------------------------- */

/* The first Go release that wrote the layout of GO. */
static const char *
go_release(const pcln_go_info *go)
{
	switch (go->layout) {
	case PCLN_GO_12:	return go->packed_nfuncdata ? "1.12" : "1.2";
	case PCLN_GO_116:	return "1.16";
	case PCLN_GO_118:	return "1.18";
	case PCLN_GO_120:	return "1.20";
	default:		return "unknown";
	}
}

/* One value of the summary, described once for both outputs: its JSON
 * key (NULL: text only), its kind and value, and the text around it
 * (BEFORE NULL: JSON only), a number or string padded to WIDTH (< 0:
 * on the right).  A text line is its fields' BEFORE, value and AFTER in
 * order. */
enum { F_UINT, F_HEX, F_HEX8, F_HEX16, F_STR, F_PCT };

struct field {
	const char *key;
	int kind;
	uint64_t u;		/* F_UINT, F_HEX*; F_PCT: the part */
	const char *s;		/* F_STR; F_PCT: unused */
	const char *before, *after;
	int width;
	uint64_t total;		/* F_PCT: the whole */
};

#define UINT_F(k, v, b, a)	{ k, F_UINT, (uint64_t)(v), NULL, b, a, 0, 0 }
#define HEX_F(k, v, b, a)	{ k, F_HEX, (uint64_t)(v), NULL, b, a, 0, 0 }
#define STR_F(k, v, b, a)	{ k, F_STR, 0, v, b, a, 0, 0 }
#define NFIELDS(a)		(sizeof (a) / sizeof (a)[0])

static void
text_fields(const struct field *f, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++, f++) {
		if (f->before == NULL)
			continue;
		fputs(f->before, stdout);
		switch (f->kind) {
		case F_UINT:	printf("%*" PRIu64, f->width, f->u); break;
		case F_HEX:	printf("0x%" PRIx64, f->u); break;
		case F_HEX8:	printf("0x%08" PRIx64, f->u); break;
		case F_HEX16:	printf("0x%016" PRIx64, f->u); break;
		case F_STR:	printf("%*s", f->width, f->s); break;
		default:	printf("%7.1f%%", percent(f->u, f->total));
		}
		fputs(f->after, stdout);
	}
}

static void
json_fields(json *j, const struct field *f, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++, f++) {
		if (f->key == NULL || f->kind == F_PCT)
			continue;
		json_key(j, f->key);
		if (f->kind == F_UINT)
			json_uint(j, f->u);
		else if (f->kind == F_STR)
			json_string(j, f->s);
		else
			json_hex(j, f->u);
	}
}

/* The summary's parts, each a list of fields. */
struct summary {
	struct field cont[8];	/* the container */
	size_t ncont;
	struct field go[2];	/* a Go table's source, if converted */
	struct field hdr[10];	/* the header */
	struct field trl[4];	/* the trailer's footer */
	uint32_t nsect;
	const char *plural;
};

static void
summary_fields(const dump_input *in, struct summary *m)
{
	const pcln_info *fi = &in->info;
	const struct field elf[] = {
		STR_F("kind", "elf", NULL, NULL),
		UINT_F("elfclass", in->elf.elfclass, "container:     ELF", " "),
		STR_F("byteorder", byteorder(in->elf.bigendian), "",
		    ", section "),
		STR_F("section", in->sec.name, "", " (index "),
		UINT_F("index", in->sec.index, "", ", address "),
		HEX_F("address", in->sec.addr, "", ", file offset "),
		HEX_F("offset", in->sec.offset, "", ", "),
		UINT_F("size", in->sec.size, "", " bytes)\n"),
	};
	/* An ELF file without a table section, its table made from its
	 * debug information (dump_find.c): where the table is. */
	const struct field made[] = {
		STR_F("kind", "elf", NULL, NULL),
		UINT_F("elfclass", in->elf.elfclass, "container:     ELF", " "),
		STR_F("byteorder", byteorder(in->elf.bigendian), "",
		    ", no table section; its table: "),
		STR_F("table", in->sec.name, "", " ("),
		UINT_F("size", in->len, "", " bytes)\n"),
	};
	const struct field raw[] = {
		STR_F("kind", "raw", NULL, NULL),
		UINT_F("size", in->filelen, "container:     raw blob (",
		    " bytes)\n"),
	};
	const struct field go[] = {
		STR_F("release", go_release(&in->go),
		    "source:        Go ", " pclntab (magic "),
		{ "magic", F_HEX8, in->go.magic, NULL, "",
		    in->go.packed_nfuncdata ? ", funcID and nfuncdata packed "
		    "in the Func as Go 1.12-1.15 write it), converted to pcln\n" :
		    "), converted to pcln\n", 0, 0 },
	};
	const struct field hdr[] = {
		{ "magic", F_HEX8, PCLN_GO12_MAGIC, NULL,
		    "format:        Go 1.2 pclntab (magic ", "), ", 0, 0 },
		STR_F("byteorder", byteorder(fi->target.bigendian), "", "\n"),
		UINT_F("ptrsize", fi->target.ptrsize, "pointer size:  ", "\n"),
		UINT_F("quantum", fi->target.quantum, "pc quantum:    ", "\n"),
		UINT_F("nfunc", fi->nfunc, "functions:     ", "\n"),
		UINT_F("nfile", fi->nfile, "files:         ", "\n"),
		HEX_F("text_start", fi->text_start, "text:          [", ", "),
		HEX_F("text_end", fi->text_end, "", ")\n"),
		UINT_F("go12size", fi->go12size, "Go 1.2 part:   ", " bytes\n"),
		HEX_F("filetab_offset", fi->filetab_off,
		    "file table:    at offset ", "\n"),
	};

	m->nsect = dump_trailer_nsect(in);
	m->plural = m->nsect == 1 ? "" : "s";
	{
		const struct field trl[] = {
			UINT_F("version", fi->trailer_version,
			    "trailer:       version ", ", "),
			UINT_F(NULL, m->nsect, "", " section"),
			STR_F(NULL, m->plural, "", ", checksum "),
			{ "checksum", F_HEX16, fi->checksum, NULL, "", "\n",
			    0, 0 },
		};
		memcpy(m->trl, trl, sizeof trl);
	}
	if (in->is_elf && in->cached != NULL) {
		memcpy(m->cont, made, sizeof made);
		m->ncont = NFIELDS(made);
	} else if (in->is_elf) {
		memcpy(m->cont, elf, sizeof elf);
		m->ncont = NFIELDS(elf);
	} else {
		memcpy(m->cont, raw, sizeof raw);
		m->ncont = NFIELDS(raw);
	}
	memcpy(m->go, go, sizeof go);
	memcpy(m->hdr, hdr, sizeof hdr);
}

/* The build-id the table records, in hex in BUF, or NULL. */
static const char *
build_id_hex(const dump_input *in, char buf[2 * PCLN_BUILDID_MAX + 1])
{
	const uint8_t *id;
	size_t len;

	if (pcln_get_build_id(in->t, &id, &len) != 1)
		return NULL;
	return pcln_build_id_hex(id, len, buf);
}

/* Trailer directory entry I: tag, name, offset, size. */
static void
section_fields(const dump_input *in, uint32_t i, struct field f[4])
{
	uint32_t tag, off, size;

	dump_trailer_entry(in, i, &tag, &off, &size);
	{
		const struct field e[] = {
			UINT_F("tag", tag, "  section ", " ("),
			STR_F("name", sect_name(tag), "", "): offset "),
			HEX_F("offset", off, "", ", "),
			UINT_F("size", size, "", " bytes\n"),
		};
		memcpy(f, e, sizeof e);
	}
}

/* pc-value table kind K (pcsp, pcfile, pcln, pcdata): its name (the
 * JSON object's key), references and distinct tables. */
static const char *
tables_row(const dump_sizes *sz, int k, struct field f[3])
{
	const char *name = k < 3 ? pclnrt_table_name(k) : "pcdata";
	const struct field r[] = {
		{ NULL, F_STR, 0, name, "  ", " ", -10, 0 },
		{ "refs", F_UINT, sz->refs[k], NULL, "", " ", 8, 0 },
		{ "distinct", F_UINT, sz->distinct[k], NULL, "", "\n", 8, 0 },
	};

	memcpy(f, r, sizeof r);
	return name;
}

/* Distinct names: functions (those inlined-only, in text only, if any),
 * files. */
static void
names_fields(const dump_sizes *sz, struct field f[3])
{
	const struct field r[] = {
		UINT_F("functions", sz->nfuncnames, "distinct names: ",
		    " function"),
		UINT_F(NULL, sz->ninlnames, sz->ninlnames > 0 ? " (" : NULL,
		    " of them inlined-only)"),
		UINT_F("files", sz->nfilenames, ", ", " file\n"),
	};

	memcpy(f, r, sizeof r);
}

/* Part K of the size breakdown (PART_N: the total): name, bytes (JSON
 * key: the name), percent. */
static void
sizes_row(const dump_sizes *sz, int k, struct field f[3])
{
	const char *name = k < PART_N ? dump_part_names[k] : "total";
	uint64_t n = k < PART_N ? sz->bytes[k] : sz->total;
	const struct field r[] = {
		{ NULL, F_STR, 0, name, "  ", " ", -10, 0 },
		{ name, F_UINT, n, NULL, "", " ", 10, 0 },
		{ NULL, F_PCT, n, NULL, "", "\n", 0, sz->total },
	};

	memcpy(f, r, sizeof r);
}

static void
json_container(json *j, const dump_input *in, const struct summary *m)
{
	json_key(j, "container");
	json_begin_object(j);
	json_fields(j, m->cont, m->ncont);
	if (in->is_go) {
		json_key(j, "go_source");
		json_begin_object(j);
		json_fields(j, m->go, NFIELDS(m->go));
		json_end_object(j);
	}
	json_end_object(j);
}

static void
summary_json(const dump_input *in, const struct summary *m,
    const dump_sizes *sz)
{
	struct field sf[4], row[3];
	char hex[2 * PCLN_BUILDID_MAX + 1];
	json j;
	uint32_t i;
	int k;

	json_init(&j, stdout, 1);
	json_begin_object(&j);
	json_key(&j, "file");
	json_string(&j, in->path);
	json_container(&j, in, m);
	json_fields(&j, m->hdr, NFIELDS(m->hdr));
	json_key(&j, "trailer");
	if (!in->info.has_trailer) {
		json_null(&j);
	} else {
		json_begin_object(&j);
		json_fields(&j, m->trl, NFIELDS(m->trl));
		if (build_id_hex(in, hex) != NULL) {
			json_key(&j, "build_id");
			json_string(&j, hex);
		}
		json_key(&j, "sections");
		json_begin_array(&j);
		for (i = 0; i < m->nsect; i++) {
			section_fields(in, i, sf);
			json_begin_object(&j);
			json_fields(&j, sf, NFIELDS(sf));
			json_end_object(&j);
		}
		json_end_array(&j);
		json_end_object(&j);
	}
	json_key(&j, "tables");
	json_begin_object(&j);
	for (k = 0; k < 4; k++) {
		json_key(&j, tables_row(sz, k, row));
		json_begin_object(&j);
		json_fields(&j, row, NFIELDS(row));
		json_end_object(&j);
	}
	json_end_object(&j);
	json_key(&j, "names");
	json_begin_object(&j);
	names_fields(sz, row);
	json_fields(&j, row, NFIELDS(row));
	json_end_object(&j);
	json_key(&j, "sizes");
	json_begin_object(&j);
	for (k = 0; k <= PART_N; k++) {
		sizes_row(sz, k, row);
		json_fields(&j, row, NFIELDS(row));
	}
	json_end_object(&j);
	json_end_object(&j);
	json_end_document(&j);
}

static void
summary_text(const dump_input *in, const struct summary *m,
    const dump_sizes *sz)
{
	struct field sf[4], row[3];
	char hex[2 * PCLN_BUILDID_MAX + 1];
	uint32_t i;
	int k;

	printf("file:          %s\n", in->path);
	text_fields(m->cont, m->ncont);
	if (in->is_go)
		text_fields(m->go, NFIELDS(m->go));
	text_fields(m->hdr, NFIELDS(m->hdr));
	if (!in->info.has_trailer) {
		printf("trailer:       none\n");
	} else {
		text_fields(m->trl, NFIELDS(m->trl));
		for (i = 0; i < m->nsect; i++) {
			section_fields(in, i, sf);
			text_fields(sf, NFIELDS(sf));
		}
		if (build_id_hex(in, hex) != NULL)
			printf("build-id:      %s\n", hex);
	}
	printf("pc-value tables (references, distinct):\n");
	for (k = 0; k < 4; k++) {
		tables_row(sz, k, row);
		text_fields(row, NFIELDS(row));
	}
	names_fields(sz, row);
	text_fields(row, NFIELDS(row));
	printf("size breakdown:\n");
	printf("  %-10s %10s %8s\n", "part", "bytes", "percent");
	for (k = 0; k <= PART_N; k++) {
		sizes_row(sz, k, row);
		text_fields(row, NFIELDS(row));
	}
}

int
dump_summary(dump_input *in, const dump_opts *o)
{
	struct summary m;
	dump_sizes sz;
	pcln_err err;

	memset(&err, 0, sizeof err);
	if (dump_compute_sizes(in, &sz, &err) < 0) {
		dump_report(in, &err);
		return DUMP_EXIT_IO;
	}
	summary_fields(in, &m);
	if (o->json)
		summary_json(in, &m, &sz);
	else
		summary_text(in, &m, &sz);
	return finish(0);
}

/* --- functions ----------------------------------------------------------- */

static void
first_line(const dump_input *in, const pcln_func *f, const char **file,
    int32_t *line)
{
	pcln_loc loc;

	*file = NULL;
	*line = 0;
	if (pcln_lookup(in->t, f->entry, &loc) == 0 && loc.func >= 0) {
		*file = loc.file;
		*line = loc.line;
	}
}

int
dump_functions(dump_input *in, const dump_opts *o)
{
	unsigned w = dump_addr_width(in);
	size_t i, n = pcln_nfunc(in->t), shown = 0;
	json j;

	json_init(&j, stdout, 1);
	if (o->json)
		json_begin_array(&j);
	else
		printf("%6s  %-*s  %-*s  %8s  %6s  %6s  %s  %s\n", "INDEX",
		    (int)w + 2, "ENTRY", (int)w + 2, "END", "SIZE", "ARGS",
		    "FRAME", "NAME", "FILE:LINE");
	for (i = 0; i < n; i++) {
		pcln_func f;
		const char *file, *name;
		char *dm;
		int32_t line;

		if (pcln_get_func(in->t, i, &f) < 0)
			continue;
		if (o->name_glob != NULL &&
		    !dump_name_match(o, o->name_glob, f.name, 1))
			continue;
		if (o->has_range && (f.end <= o->lo || f.entry >= o->hi))
			continue;
		first_line(in, &f, &file, &line);
		shown++;
		if (o->json) {
			json_begin_object(&j);
			json_key(&j, "index");
			json_uint(&j, i);
			dump_json_name(&j, o, "name", f.name);
			json_key(&j, "entry");
			json_hex(&j, f.entry);
			json_key(&j, "end");
			json_hex(&j, f.end);
			json_key(&j, "size");
			json_uint(&j, f.end - f.entry);
			json_key(&j, "args");
			json_int(&j, f.args);
			json_key(&j, "frame");
			json_int(&j, f.frame);
			json_key(&j, "file");
			json_string(&j, file);
			json_key(&j, "line");
			if (line > 0)
				json_int(&j, line);
			else
				json_null(&j);
			json_end_object(&j);
			continue;
		}
		name = dump_name(o, f.name, &dm);
		printf("%6zu  0x%0*" PRIx64 "  0x%0*" PRIx64 "  %8" PRIu64
		    "  %6" PRId32 "  %6" PRId32 "  %s  %s:", i, (int)w, f.entry,
		    (int)w, f.end, f.end - f.entry, f.args, f.frame, name,
		    file != NULL ? file : "??");
		free(dm);
		if (line > 0)
			printf("%" PRId32 "\n", line);
		else
			printf("?\n");
	}
	if (o->json) {
		json_end_array(&j);
		json_end_document(&j);
	}
	return finish(shown == 0 && (o->name_glob != NULL || o->has_range) ?
	    DUMP_EXIT_NOTFOUND : 0);
}

/* --- function detail ------------------------------------------------------ */

/* Print (or write as JSON) the rows of table TAB of function I. */
static int
rows(dump_input *in, json *j, int js, size_t i, int tab, uint32_t off)
{
	pcln_rowiter it;
	pcln_row row;
	unsigned w = dump_addr_width(in);
	int rc;

	if (js) {
		json_key(j, "offset");
		if (off)
			json_hex(j, off);
		else
			json_null(j);
		json_key(j, "rows");
		json_begin_array(j);
	}
	if (off == 0 || pcln_rows_begin(&it, in->t, i, tab) < 0) {
		if (js)
			json_end_array(j);
		return 0;
	}
	while ((rc = pcln_rows_next(&it, &row)) > 0) {
		const char *fname = NULL;

		if (tab == PCLN_TAB_PCFILE && row.value > 0)
			fname = pcln_file_name(in->t, (uint32_t)row.value);
		if (js) {
			json_begin_object(j);
			json_key(j, "start");
			json_hex(j, row.start);
			json_key(j, "end");
			json_hex(j, row.end);
			json_key(j, "value");
			json_int(j, row.value);
			if (tab == PCLN_TAB_PCFILE) {
				json_key(j, "file");
				json_string(j, fname);
			}
			json_end_object(j);
			continue;
		}
		printf("    [0x%0*" PRIx64 ", 0x%0*" PRIx64 ")  %" PRId32,
		    (int)w, row.start, (int)w, row.end, row.value);
		if (fname != NULL)
			printf("  %s", fname);
		putchar('\n');
	}
	if (js)
		json_end_array(j);
	if (rc < 0) {
		dump_error("%s: function %zu: table %d at offset 0x%" PRIx32
		    ": bad pc-value table", in->path, i, tab, off);
		return DUMP_EXIT_CORRUPT;
	}
	return 0;
}

static int
detail(dump_input *in, json *j, const dump_opts *o, size_t i)
{
	pcln_func f;
	unsigned w = dump_addr_width(in);
	uint32_t k;
	int rc = 0, r, js = o->json;
	char *dm;

	if (pcln_get_func(in->t, i, &f) < 0)
		return DUMP_EXIT_NOTFOUND;
	if (js) {
		json_begin_object(j);
		json_key(j, "index");
		json_uint(j, i);
		dump_json_name(j, o, "name", f.name);
		json_key(j, "entry");
		json_hex(j, f.entry);
		json_key(j, "end");
		json_hex(j, f.end);
		json_key(j, "next");
		json_hex(j, f.next);
		json_key(j, "size");
		json_uint(j, f.end - f.entry);
		json_key(j, "args");
		json_int(j, f.args);
		json_key(j, "frame");
		json_int(j, f.frame);
		json_key(j, "funcoff");
		json_hex(j, f.funcoff);
		for (k = 0; k < 3; k++) {
			json_key(j, pclnrt_table_name((int)k));
			json_begin_object(j);
			if ((r = rows(in, j, 1, i, (int)k, f.tab_off[k])) != 0)
				rc = r;
			json_end_object(j);
		}
		json_key(j, "pcdata");
		json_begin_array(j);
		for (k = 0; k < f.npcdata; k++) {
			int tab = PCLN_TAB_PCDATA((int)k);
			json_begin_object(j);
			json_key(j, "index");
			json_uint(j, k);
			if ((r = rows(in, j, 1, i, tab,
			    pcln_table_offset(in->t, i, tab))) != 0)
				rc = r;
			json_end_object(j);
		}
		json_end_array(j);
		json_key(j, "funcdata");
		json_begin_array(j);
		for (k = 0; k < f.nfuncdata; k++) {
			uint64_t v = pcln_funcdata(in->t, i, k);
			if (v)
				json_hex(j, v);
			else
				json_null(j);
		}
		json_end_array(j);
		json_end_object(j);
		return rc;
	}
	printf("function %zu: %s\n", i, dump_name(o, f.name, &dm));
	if (dm != NULL)
		printf("  mangled: %s\n", f.name);
	free(dm);
	printf("  entry:   0x%0*" PRIx64 "\n", (int)w, f.entry);
	printf("  end:     0x%0*" PRIx64 " (size %" PRIu64 ")\n", (int)w, f.end,
	    f.end - f.entry);
	printf("  next:    0x%0*" PRIx64 " (gap %" PRIu64 ")\n", (int)w, f.next,
	    f.next - f.end);
	printf("  args:    %" PRId32 "\n", f.args);
	printf("  frame:   %" PRId32 "\n", f.frame);
	printf("  Func at: 0x%" PRIx32 "\n", f.funcoff);
	for (k = 0; k < 3; k++) {
		if (f.tab_off[k] == 0) {
			printf("  %s: none\n", pclnrt_table_name((int)k));
			continue;
		}
		printf("  %s (table at 0x%" PRIx32 "):\n",
		    pclnrt_table_name((int)k), f.tab_off[k]);
		if ((r = rows(in, j, 0, i, (int)k, f.tab_off[k])) != 0)
			rc = r;
	}
	for (k = 0; k < f.npcdata; k++) {
		int tab = PCLN_TAB_PCDATA((int)k);
		uint32_t off = pcln_table_offset(in->t, i, tab);
		if (off == 0) {
			printf("  pcdata[%" PRIu32 "]: none\n", k);
			continue;
		}
		printf("  pcdata[%" PRIu32 "] (table at 0x%" PRIx32 "):\n", k,
		    off);
		if ((r = rows(in, j, 0, i, tab, off)) != 0)
			rc = r;
	}
	for (k = 0; k < f.nfuncdata; k++) {
		uint64_t v = pcln_funcdata(in->t, i, k);
		if (v)
			printf("  funcdata[%" PRIu32 "]: 0x%" PRIx64 "\n", k,
			    v);
		else
			printf("  funcdata[%" PRIu32 "]: nil\n", k);
	}
	return rc;
}

int
dump_func_detail(dump_input *in, const dump_opts *o, char **what, int n)
{
	size_t nf = pcln_nfunc(in->t), i;
	int a, rc = 0, printed = 0;
	json j;

	json_init(&j, stdout, 1);
	if (o->json)
		json_begin_array(&j);
	for (a = 0; a < n; a++) {
		const char *w = what[a];
		uint64_t pc;
		int found = 0, r;

		if (w[0] == '0' && (w[1] == 'x' || w[1] == 'X')) {
			long fi;
			if (dump_parse_hex(w, &pc) < 0) {
				dump_error("bad address '%s': expected a "
				    "hexadecimal number", w);
				rc = DUMP_EXIT_USAGE;
				continue;
			}
			fi = pcln_find_func(in->t, pc);
			if (fi >= 0 && dump_func_usable(in, (size_t)fi,
			    "it is not shown")) {
				if (!o->json && printed++)
					putchar('\n');
				if ((r = detail(in, &j, o,
				    (size_t)fi)) != 0)
					rc = r;
				found = 1;
			} else if (fi >= 0)
				found = 1;	/* said so already */
		} else {
			int pass;
			/* Exact names first; a glob only if none matched. */
			for (pass = 0; pass < 2 && !found; pass++)
				for (i = 0; i < nf; i++) {
					pcln_func f;
					/* (a name of an unchecked blob may
					 * be NULL: damaged) */
					if (pcln_get_func(in->t, i, &f) < 0 ||
					    f.name == NULL)
						continue;
					if (!dump_name_match(o, w, f.name,
					    pass))
						continue;
					found = 1;
					if (!dump_func_usable(in, i,
					    "it is not shown"))
						continue;
					if (!o->json && printed++)
						putchar('\n');
					if ((r = detail(in, &j, o, i)) != 0)
						rc = r;
					found = 1;
				}
		}
		if (!found) {
			dump_error("%s: no function %s '%s'", in->path,
			    w[0] == '0' && (w[1] == 'x' || w[1] == 'X') ?
			    "contains" : "matches", w);
			if (rc == 0)
				rc = DUMP_EXIT_NOTFOUND;
		}
	}
	if (o->json) {
		json_end_array(&j);
		json_end_document(&j);
	}
	return finish(damaged_rc(in, rc));
}

/* --- lookup ------------------------------------------------------------- */

static void
lookup_one(dump_input *in, json *j, const dump_opts *o, uint64_t pc)
{
	unsigned w = dump_addr_width(in);
	pcln_loc loc;
	pcln_func f;
	uint32_t k;
	int js = o->json;
	char *dm;

	if (pcln_lookup(in->t, pc, &loc) < 0 || loc.func < 0 ||
	    !dump_func_usable(in, (size_t)loc.func,
	    "its pcs are answered as unknown") ||
	    pcln_get_func(in->t, (size_t)loc.func, &f) < 0) {
		if (js) {
			json_begin_object(j);
			json_key(j, "pc");
			json_hex(j, pc);
			json_key(j, "func");
			json_null(j);
			json_end_object(j);
			json_end_document(j);
		} else
			printf("0x%0*" PRIx64 "  ??\n", (int)w, pc);
		return;
	}
	if (js) {
		json_begin_object(j);
		json_key(j, "pc");
		json_hex(j, pc);
		dump_json_name(j, o, "func", loc.name);
		json_key(j, "index");
		json_uint(j, (uint64_t)loc.func);
		json_key(j, "entry");
		json_hex(j, loc.entry);
		json_key(j, "offset");
		json_uint(j, pc - loc.entry);
		json_key(j, "file");
		json_string(j, loc.file);
		json_key(j, "line");
		if (loc.line > 0)
			json_int(j, loc.line);
		else
			json_null(j);
		json_key(j, "spdelta");
		if (loc.has_sp)
			json_int(j, loc.spdelta);
		else
			json_null(j);
		json_key(j, "pcdata");
		json_begin_array(j);
	} else {
		dm = NULL;	/* (an unnamed function: nothing to free) */
		printf("0x%0*" PRIx64 "  %s+0x%" PRIx64 "  %s:", (int)w, pc,
		    loc.name[0] != 0 ? dump_name(o, loc.name, &dm) : "??",
		    pc - loc.entry,
		    loc.file != NULL ? loc.file : "??");
		free(dm);
		if (loc.line > 0)
			printf("%" PRId32, loc.line);
		else
			putchar('?');
		if (loc.has_sp)
			printf("  sp=%" PRId32, loc.spdelta);
		else
			printf("  sp=?");
	}
	for (k = 0; k < f.npcdata; k++) {
		int32_t v;
		int ok = pcln_pcvalue(in->t, (size_t)loc.func,
		    PCLN_TAB_PCDATA((int)k), pc, &v, NULL) == 0;
		if (js) {
			if (ok)
				json_int(j, v);
			else
				json_null(j);
		} else if (ok)
			printf("  pcdata[%" PRIu32 "]=%" PRId32, k, v);
		else
			printf("  pcdata[%" PRIu32 "]=?", k);
	}
	if (js) {
		json_end_array(j);
		json_end_object(j);
		json_end_document(j);
	} else
		putchar('\n');
}

static int
lookup_str(dump_input *in, json *j, const dump_opts *o, const char *s)
{
	uint64_t pc;

	if (dump_parse_hex(s, &pc) < 0) {
		dump_error("bad address '%s': expected a hexadecimal number",
		    s);
		return DUMP_EXIT_USAGE;
	}
	lookup_one(in, j, o, pc);
	return 0;
}

int
dump_lookup(dump_input *in, const dump_opts *o, char **pcs, int n)
{
	json j;
	int a, rc = 0, r;

	json_init(&j, stdout, 0);
	if (n > 0) {
		for (a = 0; a < n; a++)
			if ((r = lookup_str(in, &j, o, pcs[a])) != 0)
				rc = r;
	} else {
		dump_lines lr;
		char *line;
		int nl, e;

		dump_lines_init(&lr, STDIN_FILENO);
		while ((line = dump_lines_next(&lr, 0, &nl, &e)) != NULL) {
			char *s = line, *t;
			while (*s == ' ' || *s == '\t')
				s++;
			t = s + strlen(s);
			while (t > s && (t[-1] == ' ' || t[-1] == '\t' ||
			    t[-1] == '\r'))
				*--t = 0;
			if (*s != 0 &&
			    (r = lookup_str(in, &j, o, s)) != 0)
				rc = r;
			free(line);
		}
		if (e != 0) {
			dump_error("standard input: %s", strerror(e));
			rc = DUMP_EXIT_IO;
		}
	}
	return finish(damaged_rc(in, rc));
}

/* --- reverse line lookup ------------------------------------------------- */

struct range_ctx {
	dump_input *in;
	json *j;
	const dump_opts *o;
	const char *spec;
};

static int
range_cb(void *arg, size_t fi, uint64_t start, uint64_t end)
{
	struct range_ctx *c = arg;
	unsigned w = dump_addr_width(c->in);
	pcln_func f;
	char *dm;

	if (pcln_get_func(c->in->t, fi, &f) < 0)
		return 0;
	if (c->o->json) {
		json_begin_object(c->j);
		json_key(c->j, "start");
		json_hex(c->j, start);
		json_key(c->j, "end");
		json_hex(c->j, end);
		dump_json_name(c->j, c->o, "func", f.name);
		json_key(c->j, "index");
		json_uint(c->j, fi);
		json_key(c->j, "offset");
		json_uint(c->j, start - f.entry);
		json_end_object(c->j);
	} else {
		printf("%s  [0x%0*" PRIx64 ", 0x%0*" PRIx64 ")  %s+0x%" PRIx64
		    "\n", c->spec, (int)w, start, (int)w, end,
		    dump_name(c->o, f.name, &dm), start - f.entry);
		free(dm);
	}
	return 0;
}

/* Each function checked as it is read (a lazily opened blob). */
static int
line_check(void *arg, size_t fi)
{
	struct range_ctx *c = arg;

	return !dump_func_usable(c->in, fi, "it is left out of the answer");
}

int
dump_line(dump_input *in, const dump_opts *o, char **specs, int n)
{
	int a, rc = 0;
	json j;

	json_init(&j, stdout, 1);
	if (o->json)
		json_begin_array(&j);
	for (a = 0; a < n; a++) {
		char *spec = specs[a], *colon = strrchr(spec, ':'), *end;
		struct range_ctx c;
		char *file;
		long line, got;

		errno = 0;
		line = colon != NULL ? strtol(colon + 1, &end, 10) : 0;
		if (colon == NULL || colon == spec || end == colon + 1 ||
		    *end != 0 || errno != 0 || line <= 0 || line > INT32_MAX) {
			dump_error("bad location '%s': expected FILE:LINE",
			    spec);
			rc = DUMP_EXIT_USAGE;
			continue;
		}
		file = strndup(spec, (size_t)(colon - spec));
		if (file == NULL) {
			dump_error("out of memory");
			return DUMP_EXIT_IO;
		}
		c.in = in;
		c.j = &j;
		c.o = o;
		c.spec = spec;
		if (o->json) {
			json_begin_object(&j);
			json_key(&j, "file");
			json_string(&j, file);
			json_key(&j, "line");
			json_int(&j, line);
			json_key(&j, "ranges");
			json_begin_array(&j);
		}
		got = pcln_line_to_pcs_checked(in->t, file, (int32_t)line,
		    line_check, range_cb, &c);
		if (o->json) {
			json_end_array(&j);
			json_end_object(&j);
		}
		if (got <= 0) {
			dump_error("%s: no code for %s", in->path, spec);
			if (rc == 0)
				rc = DUMP_EXIT_NOTFOUND;
		}
		free(file);
	}
	if (o->json) {
		json_end_array(&j);
		json_end_document(&j);
	}
	return finish(damaged_rc(in, rc));
}

/* --- verify --------------------------------------------------------------- */

int
dump_verify(const char *path, const dump_opts *o)
{
	dump_input in;
	pcln_err err;
	int rc, ok;

	if ((rc = dump_load(&in, path)) != 0) {
		dump_close(&in);
		return rc;
	}
	memset(&err, 0, sizeof err);
	ok = dump_verify_blob(&in, &err) == 0;
	if (ok) {
		in.t = pcln_open(in.blob, in.len, PCLN_OPEN_TRUSTED, &err);
		if (in.t == NULL) {
			dump_report(&in, &err);
			dump_close(&in);
			return DUMP_EXIT_IO;
		}
		pcln_get_info(in.t, &in.info);
	} else
		dump_report(&in, &err);
	if (o->json) {
		json j;

		json_init(&j, stdout, 1);
		json_begin_object(&j);
		json_key(&j, "file");
		json_string(&j, path);
		if (in.is_elf) {
			json_key(&j, "section");
			json_string(&j, in.sec.name);
		}
		json_key(&j, "ok");
		json_bool(&j, ok);
		if (ok) {
			json_key(&j, "nfunc");
			json_uint(&j, in.info.nfunc);
			json_key(&j, "nfile");
			json_uint(&j, in.info.nfile);
			json_key(&j, "size");
			json_uint(&j, in.len);
			json_key(&j, "trailer");
			json_bool(&j, in.info.has_trailer);
			if (in.is_go) {
				json_key(&j, "go_release");
				json_string(&j, go_release(&in.go));
			}
		} else {
			json_key(&j, "error");
			json_begin_object(&j);
			json_key(&j, "code");
			json_string(&j, dump_errname(err.code));
			json_key(&j, "what");
			json_string(&j, pcln_strerror(err.code));
			json_key(&j, "message");
			json_string(&j, err.msg);
			json_key(&j, "offset");
			if (err.offset >= 0)
				json_int(&j, err.offset);
			else
				json_null(&j);
			json_end_object(&j);
		}
		json_end_object(&j);
		json_end_document(&j);
	} else if (ok) {
		printf("%s: ok: %zu functions, %zu files, %zu bytes", path,
		    in.info.nfunc, in.info.nfile, in.len);
		if (in.info.has_trailer)
			printf(", trailer version %" PRIu32 ", checksum "
			    "0x%016" PRIx64 " ok", in.info.trailer_version,
			    in.info.checksum);
		else
			printf(", no trailer");
		if (in.is_go)
			printf(" (a Go %s pclntab, converted)",
			    go_release(&in.go));
		putchar('\n');
	}
	dump_close(&in);
	return finish(ok ? 0 : DUMP_EXIT_CORRUPT);
}
