/* dump.h -- pclndump's internal interfaces (not installed).
 *
 * pclndump.c parses the command line and dispatches; dump_input.c loads a
 * file and finds the blob in it; dump_json.c writes JSON; dump_size.c
 * computes the size breakdown; dump_cmds.c prints the listings;
 * dump_a2l.c is the addr2line-compatible mode; dump_demangle.c
 * demangles names (libiberty).
 */
#ifndef PCLN_DUMP_H
#define PCLN_DUMP_H

#include <stdint.h>
#include <stdio.h>

#include "pcln.h"
#include "pcln_elf.h"
#include "pcln_go.h"

/* Exit statuses (documented in pclndump(1) and doc/JSON.md). */
#define DUMP_EXIT_OK		0	/* success */
#define DUMP_EXIT_CORRUPT	1	/* bad, corrupt or unsupported input */
#define DUMP_EXIT_USAGE		2	/* bad command line or query syntax */
#define DUMP_EXIT_IO		3	/* cannot open, read or write */
#define DUMP_EXIT_NOTFOUND	4	/* a query matched nothing */

extern const char *dump_prog;	/* program name for messages */

/* Print "PROG: FMT\n" to stderr. */
void dump_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

/* --- input ----------------------------------------------------------- */

/* Where an ELF file with no table section gets one (dump_input.c): a
 * table converted from its symbols and debug information through the
 * cache (lib/find; --cache DIR, --no-cache, --debug-dir DIR), or the
 * table file given with --table FILE, refused unless it records the
 * file's build-id.  Set by the options before dump_open. */
typedef struct dump_find {
	const char *cache;		/* NULL: the default directory */
	int no_cache;
	const char *dirs[65];		/* --debug-dir, NULL-terminated */
	int ndirs;
	const char *table;		/* --table FILE */
	uint64_t limit;			/* --cache-limit, 0: the default */
} dump_find;
extern dump_find dump_find_opts;

/* getopt_long entries and codes for those options. */
#define DUMP_OPT_CACHE		0x300
#define DUMP_OPT_NO_CACHE	0x301
#define DUMP_OPT_DEBUG_DIR	0x302
#define DUMP_OPT_TABLE		0x303
#define DUMP_OPT_CACHE_LIMIT	0x304
#define DUMP_FIND_LONGOPTS \
	{ "cache", required_argument, NULL, DUMP_OPT_CACHE }, \
	{ "no-cache", no_argument, NULL, DUMP_OPT_NO_CACHE }, \
	{ "debug-dir", required_argument, NULL, DUMP_OPT_DEBUG_DIR }, \
	{ "table", required_argument, NULL, DUMP_OPT_TABLE }, \
	{ "cache-limit", required_argument, NULL, DUMP_OPT_CACHE_LIMIT }
#define DUMP_FIND_CASES \
	case DUMP_OPT_CACHE: case DUMP_OPT_NO_CACHE: \
	case DUMP_OPT_DEBUG_DIR: case DUMP_OPT_TABLE: \
	case DUMP_OPT_CACHE_LIMIT
/* Take option C (a DUMP_OPT_* code) with ARG: 0, or an exit status after
 * the message. */
int dump_find_option(int c, const char *arg);
struct dump_input;
/* IN's table for the ELF file PATH, which has no table section: 0 (IN's
 * BLOB set), or an exit status after the message. */
int dump_find_table(struct dump_input *in, const char *path);
/* With --table: 0 if IN's table records IN->program's build-id, else an
 * exit status after a message naming both. */
int dump_find_check(struct dump_input *in);
void dump_find_release(struct dump_input *in);
struct pcln_aspace;
/* Give AS's object store the table cache and debug directories of
 * pclndump's options (--cache, --no-cache, --cache-limit, --debug-dir),
 * as the commands on files use them. */
void dump_find_aspace(struct pcln_aspace *as);

typedef struct dump_input {
	const char *path;
	uint8_t *file;		/* the whole file */
	size_t filelen;
	int mapped;		/* FILE is mmap'ed (else malloc'ed) */
	int is_elf;
	pcln_elf_info elf;
	pcln_elf_section sec;	/* if IS_ELF: the section holding the blob */
	const uint8_t *blob;	/* the blob inside FILE */
	size_t len;
	pcln_table *t;		/* after dump_open_table */
	pcln_info info;
	/* A Go pclntab in a layout other than ours (Go 1.16+, or a table
	 * with the Go 1.2 magic that our verifier refuses and that is a
	 * .gopclntab section or has no pcln trailer: Go 1.12-1.15's packed
	 * Func) is converted with pcln_go_convert: BLOB then points at CONV,
	 * and GO describes the original. */
	uint8_t *conv;
	int is_go;
	pcln_go_info go;
	int trusted;		/* opened without the verifier (DUMP_OPEN_LAZY) */
	void *cached;		/* the pcln_cached holding BLOB, or NULL */
	const char *program;	/* with --table: the ELF file it is for */
	/* IN.trusted: per function FUNC_UNCHECKED, FUNC_OK or FUNC_DAMAGED
	 * (dump_func_usable; calloc'ed at the first check), and whether a
	 * damaged function was met. */
	unsigned char *fstate;
	int damaged;
} dump_input;

/* Read PATH ("-" is stdin) and find the blob: the whole file, or the
 * .pcln / .gopclntab section of an ELF file.  Returns 0, or prints the
 * error and returns an exit status. */
int dump_load(dump_input *in, const char *path);
/* dump_load, then open the blob through the verifier. */
int dump_open(dump_input *in, const char *path);
/* dump_open, but with DUMP_OPEN_LAZY a pcln blob (a raw file or an ELF
 * .pcln section) is opened trusted: pcln_open's O(1) header and trailer
 * checks only, IN->trusted set; a damaged table then gives wrong or
 * missing answers, never a fault (the caller checks what it uses, see
 * dump_a2l.c).  A table that may be Go's (.gopclntab, a converted one, or
 * a raw blob with the Go 1.2 magic and no pcln trailer) is still
 * verified: the verifier is what tells a Go 1.12-1.15 table from ours. */
#define DUMP_OPEN_LAZY	0x1
int dump_open_flags(dump_input *in, const char *path, unsigned flags);
void dump_close(dump_input *in);
/* pcln_verify on IN's blob (after dump_load), with the same second chance
 * for a table that may be Go's as dump_open.  0, or -1 with ERR. */
int dump_verify_blob(dump_input *in, pcln_err *err);
/* May function I of IN be read?  On a blob opened lazily, checks it the
 * first time as pcln_verify would (pcln_verify_func: that function's
 * data only) and, if it is damaged, says so once (THEN: what becomes of
 * it, e.g. "its pcs are answered as unknown") and sets IN->damaged.
 * Always 1 on a verified blob. */
int dump_func_usable(dump_input *in, size_t i, const char *then);
/* Print a library error about IN: "PROG: PATH[ section S]: WHAT: MSG". */
void dump_report(const dump_input *in, const pcln_err *err);
/* The symbolic name of error code CODE ("PCLN_EPCTAB"). */
const char *dump_errname(int code);

/* --- JSON ------------------------------------------------------------ */

#define JSON_MAXDEPTH 32

typedef struct json {
	FILE *f;
	int pretty;		/* indent by 2 spaces, else one line */
	int depth;
	int count[JSON_MAXDEPTH];	/* values written at each depth */
	int after_key;
} json;

void json_init(json *j, FILE *f, int pretty);
void json_begin_object(json *j);
void json_end_object(json *j);
void json_begin_array(json *j);
void json_end_array(json *j);
void json_key(json *j, const char *key);
void json_string(json *j, const char *s);	/* NULL writes null */
void json_int(json *j, int64_t v);
void json_uint(json *j, uint64_t v);
void json_hex(json *j, uint64_t v);	/* "0x..." string */
void json_bool(json *j, int v);
void json_null(json *j);
void json_double1(json *j, double v);	/* one decimal */
/* Finish a top-level document: newline. */
void json_end_document(json *j);
/* Write S as a JSON string literal (quotes included) to F. */
void json_write_string(FILE *f, const char *s);

/* --- size breakdown -------------------------------------------------- */

enum dump_part {
	PART_HEADER, PART_FUNCTAB, PART_FUNCS, PART_FUNCNAMES, PART_FILETAB,
	PART_FILENAMES, PART_PCSP, PART_PCFILE, PART_PCLN, PART_PCDATA,
	PART_PADDING, PART_TRAILER, PART_N
};

typedef struct dump_sizes {
	uint64_t bytes[PART_N];
	uint64_t total;
	/* pc-value tables: references from Funcs and distinct tables, per
	 * kind (pcsp, pcfile, pcln, pcdata) */
	uint64_t refs[4], distinct[4];
	uint64_t nfuncnames, nfilenames;	/* distinct strings */
	uint64_t ninlnames;	/* of nfuncnames, those only inlined
				 * functions have (INLPACK or INLTREE records) */
} dump_sizes;

extern const char *const dump_part_names[PART_N];

/* The number of trailer sections (0 without a trailer), and directory
 * entry I's tag, offset and size (IN's blob is verified). */
uint32_t dump_trailer_nsect(const dump_input *in);
void dump_trailer_entry(const dump_input *in, uint32_t i, uint32_t *tag,
    uint32_t *off, uint32_t *size);

/* Walk the (verified) blob of IN.  Returns 0, or -1 with ERR filled. */
int dump_compute_sizes(const dump_input *in, dump_sizes *sz, pcln_err *err);

/* --- commands (each returns an exit status) ------------------------- */

typedef struct dump_opts {
	int json;
	const char *name_glob;		/* functions --name */
	int has_range;
	uint64_t lo, hi;		/* functions --range [lo, hi) */
	int demangle;			/* -C, --demangle[=STYLE] */
} dump_opts;

/* --- demangling (dump_demangle.c) ------------------------------------ */

/* Select libiberty's demangling style by its name (as binutils'
 * --demangle=STYLE: "auto", "gnu-v3", "rust", "dlang", ...); NULL keeps
 * the default (auto).  Returns 0, or prints the error and returns -1. */
int dump_demangle_style(const char *style);
/* -R / -r of binutils addr2line: keep (default) or lift libiberty's
 * recursion limit. */
void dump_demangle_recurse_limit(int on);
/* NAME demangled as binutils addr2line -C prints it (bfd_demangle with
 * DMGL_PARAMS | DMGL_ANSI): a malloc'ed string the caller frees, or NULL
 * when NAME is not a name the style demangles (or memory ran out). */
char *dump_demangle(const char *name);
/* The name to print: NAME, or with O->demangle its demangled form in
 * *FREEP (which the caller frees; NULL when NAME is printed as is). */
const char *dump_name(const dump_opts *o, const char *name, char **freep);
/* "KEY": NAME, and with O->demangle "demangled": the demangled name or
 * null (doc/JSON.md). */
void dump_json_name(json *j, const dump_opts *o, const char *key,
    const char *name);
/* Does NAME match PATTERN (fnmatch if GLOB, else equal)?  With
 * O->demangle its demangled form may match instead. */
int dump_name_match(const dump_opts *o, const char *pattern,
    const char *name, int glob);

int dump_summary(dump_input *in, const dump_opts *o);
int dump_functions(dump_input *in, const dump_opts *o);
int dump_func_detail(dump_input *in, const dump_opts *o, char **what,
    int n);
int dump_lookup(dump_input *in, const dump_opts *o, char **pcs, int n);
int dump_line(dump_input *in, const dump_opts *o, char **specs, int n);
int dump_verify(const char *path, const dump_opts *o);

/* addr2line mode: ARGV after the command name; PROG for messages.
 * VERIFY: verify the whole blob first (as --verify); DEMANGLE: as -C
 * (a --demangle given before the command); AS_JSON: --json (with --pid
 * only). */
int dump_addr2line(int argc, char **argv, int verify, int demangle,
    int as_json);

/* stack mode (dump_stack.c): ARGV after the command name; DEMANGLE and
 * AS_JSON: --demangle and --json given before it. */
int dump_stack(int argc, char **argv, int demangle, int as_json);
/* A frame's "function" (as dump_json_name writes it), "inlined", "file"
 * and "line" (null if unknown), for addr2line --pid and stack. */
void dump_json_frame_loc(json *j, const dump_opts *o, const char *function,
    int inlined, const char *file, int32_t line);

/* pclndump perf: ARGV after the command name (dump_perf.c). */
int dump_perf(int argc, char **argv);

/* Parse a hexadecimal number (optional 0x), the whole string. 0 or -1. */
int dump_parse_hex(const char *s, uint64_t *v);

/* Helpers shared by the listings. */
unsigned dump_addr_width(const dump_input *in);	/* hex digits */

/* A line reader that flushes stdout before it would block: returns a
 * malloc'ed line without its newline (caller frees), or NULL at EOF or
 * on error (*ERRNOP set, 0 at EOF).  MAXCHUNK > 0 splits lines like
 * fgets with a buffer of MAXCHUNK + 1 bytes (the newline kept out). */
typedef struct dump_lines {
	int fd;
	char buf[4096];
	size_t start, end;
	int eof;
} dump_lines;

void dump_lines_init(dump_lines *r, int fd);
char *dump_lines_next(dump_lines *r, size_t maxchunk, int *had_nl,
    int *errnop);

#endif /* PCLN_DUMP_H */
