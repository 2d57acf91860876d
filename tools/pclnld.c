/* pclnld.c -- link object-file descriptions into a pcln blob.
 *
 * Argument parsing and printing only; the work is pcln_link (lib/link/link.c).
 * Exit status: 0 linked, 1 link error (nothing written), 2 usage.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pcln.h"
#include "pclnrt_format.h"
#include "pcln_link.h"
#include "pcln_out.h"
#include "pcln_go.h"
#include "pcln_elf.h"
#include "readfile.h"
#ifdef HAVE_LIBDW
#include "pcln_dwarf.h"
#else
#define PCLN_DWARF_NO_INLINE	0x1	/* parsed, then refused */
#define PCLN_DWARF_STRICT	0x2
#endif

static const char *prog = "pclnld";

#define PCLND_MAX_DEBUG_DIRS	64

static void
usage(FILE *fp)
{
	fprintf(fp,
"Usage: %s [OPTION]... -o OUTPUT INPUT...\n"
"  or:  %s [OPTION]... -o OUTPUT --elf PROGRAM\n"
"  or:  %s [OPTION]... -o OUTPUT --go FILE\n"
"Link object-file descriptions (doc/DESCRIPTION.md) into a pcln blob,\n"
"or import one from an ELF program's symbols, DWARF and CFI (--elf), or\n"
"from a Go binary or raw Go pclntab (--go).\n"
"\n"
"      --elf PROGRAM     import PROGRAM (built with -g) instead of INPUTs\n"
"      --go FILE         import a Go ELF binary or raw .gopclntab\n"
"  -o, --output FILE     write the blob to FILE (atomically; '-' = stdout)\n"
"      --ptrsize N       pointer size, 4 or 8 (default %u)\n"
"      --quantum N       pc quantum, 1, 2 or 4 (default %u)\n"
"      --endian E        byte order, little or big (default little)\n"
"      --text-base ADDR  where placed functions start (default 0x%x)\n"
"      --go12            write a plain Go 1.2 blob, without the trailer\n"
"      --index           always write the FUNCINDEX function index\n"
"      --no-index        never write it (default: from %u functions on)\n"
"      --checkpoints K   a pc-value checkpoint every K rows (default %u;\n"
"                        0: none)\n"
"      --no-inline       with --elf: leave out inlined calls (the inline tree)\n"
"      --strict          with --elf: damaged debug or frame sections are an\n"
"                        error, not a warning\n"
"      --debug-dir DIR   with --elf: look for separate debug files under\n"
"                        DIR too (DIR/.build-id/xx/yyyy.debug, DIR/PATH/\n"
"                        LINK), before /usr/lib/debug; repeatable\n"
"      --map FILE        write a link map to FILE ('-' = stdout)\n"
"  -v, --verbose         print statistics to standard error\n"
"      --help            show this help and exit\n"
"      --version         show the version and exit\n"
"\n"
"Target options must agree with the inputs' 'target' lines (with --elf\n"
"and --go: with the program's or table's target).\n"
"With --elf, debug information not in PROGRAM is looked for by build-id\n"
"and .gnu_debuglink, and through debuginfod when DEBUGINFOD_URLS is set.\n"
"Exit status: 0 linked, 1 link error (no output written), 2 usage error.\n",
	    prog, prog, prog, PCLN_LINK_DEFAULT_PTRSIZE, PCLN_LINK_DEFAULT_QUANTUM,
	    PCLN_LINK_DEFAULT_TEXT_BASE, PCLN_INDEX_MIN_FUNCS,
	    PCLN_CKPT_DEFAULT);
}

static int
bad_usage(const char *msg)
{
	fprintf(stderr, "%s: %s\nTry '%s --help'.\n", prog, msg, prog);
	return 2;
}

static int
bad_opt(const char *opt, const char *arg, const char *expected)
{
	fprintf(stderr, "%s: bad --%s '%s' (expected %s)\nTry '%s --help'.\n",
	    prog, opt, arg, expected, prog);
	return 2;
}

static int
parse_num(const char *s, uint64_t *v)
{
	char *end;

	if (*s == 0 || *s == '-' || *s == '+' || *s == ' ')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno != 0 || *end != 0 ? -1 : 0;
}

static void
tabcol(char *buf, size_t n, uint32_t off, uint32_t len)
{
	if (off == 0)
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "0x%" PRIx32 "+%" PRIu32, off, len);
}

static int
write_map(FILE *fp, const pcln_link *l, const uint8_t *blob, size_t bloblen)
{
	const pcln_link_stats *s = pcln_link_get_stats(l);
	pcln_link_func f;
	pcln_table *t;
	uint64_t prevend = 0;
	size_t i;

	/* Verified by the caller; the reader gives the pcdata offsets. */
	if ((t = pcln_open(blob, bloblen, PCLN_OPEN_TRUSTED, NULL)) == NULL)
		return -1;

	fprintf(fp, "# pclnld link map\n"
	    "# target: ptrsize %u, quantum %u, %s endian\n"
	    "# text: [0x%" PRIx64 ", 0x%" PRIx64 "), %zu functions, "
	    "blob %zu bytes\n"
	    "# entry end size funcoff pcsp pcfile pcln name input:line "
	    "[fixed] [pcdata N=table...]\n"
	    "# (tables as offset+length in the blob, - if absent)\n",
	    s->target.ptrsize, s->target.quantum,
	    s->target.bigendian ? "big" : "little", s->text_start,
	    s->text_end, s->nfunc, bloblen);
	for (i = 0; pcln_link_get_func(l, i, &f) == 0; i++) {
		char col[3][32];
		pcln_func bf;
		int k;
		if (i > 0 && f.entry > prevend)
			fprintf(fp, "# gap 0x%" PRIx64 " 0x%" PRIx64
			    " 0x%" PRIx64 "\n", prevend, f.entry,
			    f.entry - prevend);
		for (k = 0; k < 3; k++)
			tabcol(col[k], sizeof col[k], f.layout->tab_off[k],
			    f.layout->tab_len[k]);
		fprintf(fp, "0x%" PRIx64 " 0x%" PRIx64 " 0x%" PRIx64
		    " 0x%" PRIx32 " %s %s %s %s %s:%ld%s", f.entry,
		    f.entry + f.size, f.size, f.layout->funcoff, col[0], col[1],
		    col[2], f.name, f.file, f.line, f.fixed ? " fixed" : "");
		if (pcln_get_func(t, i, &bf) == 0)
			for (k = 0; k < (int)bf.npcdata; k++) {
				uint32_t off = pcln_table_offset(t, i,
				    PCLN_TAB_PCDATA(k));
				if (off == 0)
					continue;
				tabcol(col[0], sizeof col[0], off, (uint32_t)
				    pclnrt_table_size(blob + off, blob + bloblen,
				    s->target.quantum));
				fprintf(fp, " pcdata %d=%s", k, col[0]);
			}
		fputc('\n', fp);
		prevend = f.entry + f.size;
	}
	pcln_close(t);
	return ferror(fp) ? -1 : 0;
}

/* The builder's statistics, after a write: dedupe, parts, trailer. */
static void
print_build_stats(const pcln_build_stats *b)
{
	const struct { const char *name; size_t n; } parts[] = {
		{ "header", b->header }, { "functab", b->functab },
		{ "funcs", b->funcs }, { "names", b->names },
		{ "filetab", b->filetab }, { PCLN_TAB_NAME_PCSP, b->pcsp },
		{ PCLN_TAB_NAME_PCFILE, b->pcfile },
		{ PCLN_TAB_NAME_PCLN, b->pcln },
		{ "pcdata", b->pcdata }, { "padding", b->padding },
		{ "trailer", b->trailer }, { "total", b->total },
	};
	size_t i;

	fprintf(stderr, "%s: dedupe: %zu tables -> %zu, %zu names -> %zu, "
	    "%zu bytes saved; %zu rows encoded\n", prog, b->ntables,
	    b->ntables_unique, b->nnames, b->nnames_unique, b->dedupe_saved,
	    b->rows);
	for (i = 0; i < sizeof parts / sizeof parts[0]; i++)
		fprintf(stderr, "%s: %-8s %10zu bytes\n", prog, parts[i].name,
		    parts[i].n);
	fprintf(stderr, "%s: in the trailer: FUNCINDEX %zu bytes, PCCKPT %zu "
	    "bytes (%zu checkpoints for %zu tables)\n", prog, b->findex,
	    b->ckpt, b->nckpt, b->nckdesc);
}

static void
print_stats(const pcln_link *l)
{
	const pcln_link_stats *s = pcln_link_get_stats(l);

	fprintf(stderr, "%s: %zu inputs, %zu lines\n", prog, s->ninputs,
	    s->nlines);
	fprintf(stderr, "%s: %zu functions (%zu fixed, %zu placed, %zu dupok "
	    "duplicates dropped), %zu files, %zu data symbols, %zu "
	    "references\n", prog, s->nfunc, s->nfixed, s->nplaced,
	    s->ndropped, s->build->nfile, s->ndata, s->nrefs);
	fprintf(stderr, "%s: text [0x%" PRIx64 ", 0x%" PRIx64 "), ptrsize %u, "
	    "quantum %u, %s endian\n", prog, s->text_start, s->text_end,
	    s->target.ptrsize, s->target.quantum,
	    s->target.bigendian ? "big" : "little");
	print_build_stats(s->build);
}

/* Read PATH whole into a malloc'ed buffer. */
static int
read_whole(const char *path, uint8_t **buf, size_t *len, pcln_err *err)
{
	int fd = open(path, O_RDONLY), rc;

	if (fd < 0) {
		snprintf(err->msg, sizeof err->msg, "%s: %s", path,
		    strerror(errno));
		return -1;
	}
	if ((rc = tool_read_fd(fd, buf, len)) < 0)
		snprintf(err->msg, sizeof err->msg, "%s: %s", path,
		    errno == ENOMEM ? "out of memory" : "read error");
	close(fd);
	return rc;
}

/* 0 if the target options agree with T, else print why and return 2. */
static int
check_target(const pcln_link_opts *o, const pcln_target *t, const char *what)
{
	const char *bad = NULL;
	char have[64];

	if (o->ptrsize != 0 && o->ptrsize != t->ptrsize)
		bad = "ptrsize";
	else if (o->quantum != 0 && o->quantum != t->quantum)
		bad = "quantum";
	else if (o->endian != 0 && (o->endian == 2) != (t->bigendian != 0))
		bad = "endian";
	if (bad == NULL)
		return 0;
	snprintf(have, sizeof have, "ptrsize %u, quantum %u, %s endian",
	    t->ptrsize, t->quantum, t->bigendian ? "big" : "little");
	fprintf(stderr, "%s: --%s differs from the target of %s (%s)\n"
	    "Try '%s --help'.\n", prog, bad, what, have, prog);
	return 2;
}

#ifdef HAVE_LIBDW
static void
print_dwarf_stats(const pcln_dwarf_stats *d)
{
	fprintf(stderr, "%s: %zu function symbols, %zu aliases folded, %zu "
	    "zero-sized, %zu cut, %zu labels; %zu functions (%zu named by "
	    "DWARF, %zu unnamed from FDEs; %zu named otherwise by perf)\n",
	    prog, d->nsyms, d->naliases, d->nzero, d->ncut, d->nlabels,
	    d->nfunc, d->ndwarfnames, d->nfde_funcs, d->nsymnames);
	fprintf(stderr, "%s: %zu compile units, %zu line rows, %zu functions "
	    "with lines\n", prog, d->ncu, d->nlinerows, d->nlinefuncs);
	fprintf(stderr, "%s: %zu CFI rows, %zu sp-based, %zu frame-pointer-"
	    "based, %zu outermost, %zu not representable (%" PRIu64 " of %"
	    PRIu64 " code bytes), %zu functions without CFI\n", prog,
	    d->ncfirows, d->ncfi_sp, d->ncfi_fp, d->ncfi_outermost,
	    d->ncfi_other, d->bytes_other, d->text_bytes, d->nnocfi);
	fprintf(stderr, "%s: %zu inlined calls\n", prog, d->ninline);
	fprintf(stderr, "%s: input .debug_line %" PRIu64 ", .debug_info %"
	    PRIu64 ", .eh_frame %" PRIu64 ", .debug_frame %" PRIu64
	    " bytes\n", prog, d->debug_line, d->debug_info, d->eh_frame,
	    d->debug_frame);
	fprintf(stderr, "%s: %zu functions with discriminators, %zu also "
	    "described by a unit whose copy was not kept\n", prog, d->ndiscr,
	    d->nfolded);
	if (d->nskeleton > 0)
		fprintf(stderr, "%s: %zu split-DWARF units, %zu of them "
		    "read\n", prog, d->nskeleton, d->nsplit);
}

/* Where the search found the DWARF and the symbols (-v), and warnings
 * when it found less than everything. */
static void
print_found(const char *path, const pcln_find_result *f,
    const pcln_dwarf_stats *st, int verbose)
{
	char hex[2 * PCLN_BUILDID_MAX + 1];

	if (verbose) {
		fprintf(stderr, "%s: %s: build-id %s; DWARF: %s%s%s; symbols: "
		    "%s%s%s%s\n", prog, path, f->build_id_len ?
		    pcln_build_id_hex(f->build_id, f->build_id_len, hex) :
		    "none", pcln_route_name(f->route),
		    f->debug_file[0] ? " " : "", f->debug_file,
		    pcln_symsrc_name(f->symbols),
		    f->compressed & PCLN_FOUND_ZLIB ? "; zlib sections" : "",
		    f->compressed & PCLN_FOUND_ZSTD ? "; zstd sections" : "",
		    f->compressed & PCLN_FOUND_ZDEBUG ? "; .zdebug sections" :
		    "");
		if (f->dwp_file[0])
			fprintf(stderr, "%s: %s: %zu units from %s\n", prog,
			    path, f->dwp_units, f->dwp_file);
	}
	if (f->route == PCLN_ROUTE_NONE)
		fprintf(stderr, "%s: warning: %s: no DWARF found, so the "
		    "table has no file:line and no inlined calls%s%s\n", prog,
		    path, f->note[0] ? ": " : "", f->note);
	else if (f->note[0])
		fprintf(stderr, "%s: warning: %s: %s\n", prog, path, f->note);
	if (st->nsplit < st->nskeleton)
		fprintf(stderr, "%s: warning: %s: %zu of %zu split-DWARF units "
		    "not found (no .dwo file or .dwp package), so their "
		    "functions have no DWARF names or inlined calls\n", prog,
		    path, st->nskeleton - st->nsplit, st->nskeleton);
}

static void
print_warning(void *arg, const char *msg)
{
	(void)arg;
	fprintf(stderr, "%s: warning: %s\n", prog, msg);
}

/* What every --elf import prints, -v or not: what was imported, so a
 * table that lost its lines or inlined calls never looks whole. */
static void
print_dwarf_summary(const char *path, const pcln_dwarf_stats *d)
{
	fprintf(stderr, "%s: %s: %zu functions (%zu with lines), %zu line "
	    "rows, %zu CFI rows, %zu inlined calls", prog, path, d->nfunc,
	    d->nlinefuncs, d->nlinerows, d->ncfirows, d->ninline);
	if (d->nwarnings > PCLN_DWARF_MAX_WARN)
		fprintf(stderr, "; %zu warnings (%zu not shown)", d->nwarnings,
		    d->nwarnings - PCLN_DWARF_MAX_WARN);
	else if (d->nwarnings > 0)
		fprintf(stderr, "; %zu warning%s", d->nwarnings,
		    d->nwarnings > 1 ? "s" : "");
	fputc('\n', stderr);
}
#endif

/* pclnld --elf PATH / --go PATH: import, write.  Returns the exit
 * status. */
static int
import_main(int go, const char *path, const char *output,
    const pcln_link_opts *opts, unsigned dwflags, int verbose,
    const char *const *debug_dirs)
{
	uint8_t *blob = NULL, *data = NULL;
	size_t len = 0, dlen = 0;
	pcln_builder *b = NULL;
	pcln_outbuf out;
	pcln_err err;
	int rc = 1;

	memset(&err, 0, sizeof err);
	if (go) {
		pcln_go_info info;
		int irc;
		if (read_whole(path, &data, &dlen, &err) < 0)
			goto fail;
		if (pcln_elf_is_elf(data, dlen))
			irc = pcln_go_import_elf(data, dlen, &b, &info, &err);
		else
			irc = pcln_go_import(data, dlen, opts->has_text_base ?
			    opts->text_base : 0, &b, &info, &err);
		if (irc < 0) {
			/* The importer's messages name the structure and
			 * offset; say which input. */
			fprintf(stderr, "%s: %s: %s\n", prog, path, err.msg);
			goto out;
		}
		if ((rc = check_target(opts, &info.target, path)) != 0)
			goto out;
		rc = 1;
		if (verbose)
			fprintf(stderr, "%s: Go %s table (magic 0x%08" PRIx32
			    "): %zu functions, %zu files\n", prog,
			    info.layout == PCLN_GO_12 ? "1.2" :
			    info.layout == PCLN_GO_116 ? "1.16" :
			    info.layout == PCLN_GO_118 ? "1.18" : "1.20",
			    info.magic, info.nfunc, info.nfile);
	} else {
#ifdef HAVE_LIBDW
		pcln_dwarf_stats st;
		pcln_find_result found;
		pcln_find_opts fo;

		memset(&fo, 0, sizeof fo);
		memset(&found, 0, sizeof found);
		fo.debug_dirs = debug_dirs;
		if (opts->write_flags & PCLN_WRITE_GO12)
			dwflags |= PCLN_DWARF_NO_INLINE;
		if (pcln_dwarf_import_opts(path, dwflags, &fo, print_warning,
		    NULL, &b, &st, &found, &err) < 0) {
			/* No symbols: say where the debug file was looked
			 * for, too. */
			if (err.code == PCLN_ENOTFOUND)
				print_found(path, &found, &st, verbose);
			goto fail;
		}
		print_found(path, &found, &st, verbose);
		if ((rc = check_target(opts, &st.target, path)) != 0)
			goto out;
		rc = 1;
		if (verbose)
			print_dwarf_stats(&st);
		print_dwarf_summary(path, &st);
#else
		(void)dwflags;
		(void)debug_dirs;
		fprintf(stderr, "%s: --elf: this pclnld was built without "
		    "libdw (configure --without-libdw)\n", prog);
		goto out;
#endif
	}
	if (opts->has_checkpoints && pcln_builder_set_checkpoints(b,
	    opts->checkpoints, &err) < 0)
		goto fail;
	if (pcln_builder_write(b, opts->write_flags, &blob, &len, &err) < 0)
		goto fail;
	if (verbose)
		print_build_stats(pcln_builder_stats(b));
	/* pcln_builder_write ran pcln_verify on the blob: never a blob the
	 * verifier rejects. */
	out.path = output;
	out.buf = blob;
	out.len = len;
	if (pcln_write_files(&out, 1, &err) < 0)
		goto fail;
	rc = 0;
	goto out;
fail:
	fprintf(stderr, "%s: %s\n", prog, err.msg);
out:
	pcln_builder_free(b);
	free(data);
	free(blob);
	return rc;
}

/* The command line. */
struct args {
	pcln_link_opts opts;
	const char *output, *mapfile, *import;
	int import_go, no_inline, strict, verbose;
	const char *dirs[PCLND_MAX_DEBUG_DIRS + 1];	/* --debug-dir */
	int ndirs;
};

/* Parse the options into *A: -1 to go on, else the exit status (after
 * --help, --version or a usage error). */
static int
parse_args(int argc, char **argv, struct args *a)
{
	enum { O_PTRSIZE = 256, O_QUANTUM, O_ENDIAN, O_TEXTBASE, O_GO12,
	    O_MAP, O_HELP, O_VERSION, O_ELF, O_GO, O_INDEX, O_NOINDEX,
	    O_CKPT, O_NOINLINE, O_STRICT, O_DEBUGDIR };
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "ptrsize", required_argument, NULL, O_PTRSIZE },
		{ "quantum", required_argument, NULL, O_QUANTUM },
		{ "endian", required_argument, NULL, O_ENDIAN },
		{ "text-base", required_argument, NULL, O_TEXTBASE },
		{ "go12", no_argument, NULL, O_GO12 },
		{ "index", no_argument, NULL, O_INDEX },
		{ "no-index", no_argument, NULL, O_NOINDEX },
		{ "checkpoints", required_argument, NULL, O_CKPT },
		{ "no-inline", no_argument, NULL, O_NOINLINE },
		{ "debug-dir", required_argument, NULL, O_DEBUGDIR },
		{ "strict", no_argument, NULL, O_STRICT },
		{ "map", required_argument, NULL, O_MAP },
		{ "elf", required_argument, NULL, O_ELF },
		{ "go", required_argument, NULL, O_GO },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, O_HELP },
		{ "version", no_argument, NULL, O_VERSION },
		{ NULL, 0, NULL, 0 }
	};
	uint64_t v;
	int c;

	memset(a, 0, sizeof *a);
	while ((c = getopt_long(argc, argv, "o:v", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			a->output = optarg;
			break;
		case O_PTRSIZE:
			if (parse_num(optarg, &v) < 0 || (v != 4 && v != 8))
				return bad_opt("ptrsize", optarg,
				    "4 or 8");
			a->opts.ptrsize = (unsigned)v;
			break;
		case O_QUANTUM:
			if (parse_num(optarg, &v) < 0 ||
			    (v != 1 && v != 2 && v != 4))
				return bad_opt("quantum", optarg,
				    "1, 2 or 4");
			a->opts.quantum = (unsigned)v;
			break;
		case O_ENDIAN:
			if (strcmp(optarg, "little") == 0)
				a->opts.endian = 1;
			else if (strcmp(optarg, "big") == 0)
				a->opts.endian = 2;
			else
				return bad_opt("endian", optarg,
				    "little or big");
			break;
		case O_TEXTBASE:
			if (parse_num(optarg, &v) < 0)
				return bad_opt("text-base", optarg,
				    "an address");
			a->opts.has_text_base = 1;
			a->opts.text_base = v;
			break;
		case O_GO12:
			a->opts.write_flags |= PCLN_WRITE_GO12;
			break;
		case O_INDEX:
		case O_NOINDEX:
			a->opts.write_flags &= ~(unsigned)(PCLN_WRITE_INDEX |
			    PCLN_WRITE_NOINDEX);
			a->opts.write_flags |= c == O_INDEX ? PCLN_WRITE_INDEX :
			    PCLN_WRITE_NOINDEX;
			break;
		case O_CKPT:
			if (parse_num(optarg, &v) < 0 ||
			    v > PCLN_CKPT_STRIDE_MAX)
				return bad_opt("checkpoints", optarg,
				    "a stride of 0 (none) to 65536 rows");
			a->opts.has_checkpoints = 1;
			a->opts.checkpoints = (unsigned)v;
			break;
		case O_NOINLINE:
			a->no_inline = 1;
			break;
		case O_STRICT:
			a->strict = 1;
			break;
		case O_DEBUGDIR:
			if (a->ndirs == PCLND_MAX_DEBUG_DIRS)
				return bad_usage("more than 64 --debug-dir");
			a->dirs[a->ndirs++] = optarg;
			break;
		case O_MAP:
			a->mapfile = optarg;
			break;
		case O_ELF:
		case O_GO:
			if (a->import != NULL)
				return bad_usage("--elf and --go are given "
				    "more than once");
			a->import = optarg;
			a->import_go = c == O_GO;
			break;
		case 'v':
			a->verbose = 1;
			break;
		case O_HELP:
			usage(stdout);
			return 0;
		case O_VERSION:
			printf("pclnld (pcln) %s\n", PACKAGE_VERSION);
			return 0;
		default:
			fprintf(stderr, "Try '%s --help'.\n", prog);
			return 2;
		}
	}
	return -1;
}

static int
run(int argc, char **argv)
{
	struct args a;
	const char *output, *mapfile;
	int verbose, i, rc;
	pcln_link_opts opts;
	pcln_link *l = NULL;
	uint8_t *blob = NULL;
	size_t len = 0;
	char *map = NULL;
	size_t maplen = 0;
	pcln_outbuf outs[2];
	pcln_err err;

	if ((rc = parse_args(argc, argv, &a)) >= 0)
		return rc;
	rc = 1;
	output = a.output;
	mapfile = a.mapfile;
	verbose = a.verbose;
	opts = a.opts;
	memset(&err, 0, sizeof err);
	if (output == NULL)
		return bad_usage("no output file (expected -o FILE)");
	if (a.import != NULL) {
		if (optind < argc)
			return bad_usage("INPUT files cannot be combined "
			    "with --elf or --go");
		if (mapfile != NULL)
			return bad_usage("--map is for description links, "
			    "not --elf or --go");
		if ((a.no_inline || a.strict) && a.import_go)
			return bad_usage(a.no_inline ? "--no-inline is for "
			    "--elf" : "--strict is for --elf");
		if (a.ndirs > 0 && a.import_go)
			return bad_usage("--debug-dir is for --elf");
		return import_main(a.import_go, a.import, output, &opts,
		    (a.no_inline ? PCLN_DWARF_NO_INLINE : 0) |
		    (a.strict ? PCLN_DWARF_STRICT : 0), verbose, a.dirs);
	}
	if (optind >= argc)
		return bad_usage("no input files");
	if (a.no_inline || a.strict)
		return bad_usage(a.no_inline ? "--no-inline is for --elf" :
		    "--strict is for --elf");
	if (a.ndirs > 0)
		return bad_usage("--debug-dir is for --elf");
	if ((l = pcln_link_new(&opts, &err)) == NULL)
		goto fail;
	for (i = optind; i < argc; i++)
		if (pcln_link_add_file(l, argv[i], &err) < 0)
			goto fail;
	if (pcln_link_run(l, &blob, &len, &err) < 0)
		goto fail;
	/* pcln_builder_write (in pcln_link_run) ran pcln_verify on the
	 * blob: never a blob the verifier rejects. */
	if (mapfile != NULL) {
		FILE *fp = open_memstream(&map, &maplen);
		if (fp == NULL || write_map(fp, l, blob, len) < 0 ||
		    fclose(fp) != 0) {
			fprintf(stderr, "%s: cannot make the map: %s\n", prog,
			    strerror(errno));
			goto out;
		}
	}
	outs[0].path = output;
	outs[0].buf = blob;
	outs[0].len = len;
	if (mapfile != NULL) {
		outs[1].path = mapfile;
		outs[1].buf = map;
		outs[1].len = maplen;
	}
	if (pcln_write_files(outs, mapfile != NULL ? 2 : 1, &err) < 0)
		goto fail;
	if (verbose)
		print_stats(l);
	rc = 0;
	goto out;
fail:
	fprintf(stderr, "%s: %s\n", prog, err.msg);
out:
	free(map);
	free(blob);
	pcln_link_free(l);
	return rc;
}

/* Standard output is also written by --help and --version: its errors
 * count (a blob or map written to "-" checks its own, pcln_out.h). */
int
main(int argc, char **argv)
{
	pcln_err err;
	int rc;

	/* A signal during a write removes the temporaries, then kills us
	 * with its own status. */
	(void)pcln_out_catch_signals();
	rc = run(argc, argv);
	if (pcln_close_stdout(&err) < 0) {
		fprintf(stderr, "%s: %s\n", prog, err.msg);
		if (rc == 0)
			rc = 1;
	}
	return rc;
}
