/* dump_a2l.c -- addr2line mode: answers as GNU addr2line (binutils 2.40)
 * prints them, from a pcln blob instead of DWARF, so the two can be
 * diffed line by line.
 *
 * What binutils does, and so what this does (measured on addr2line 2.40):
 * - an address is parsed like bfd_scan_vma (hex, optional 0x, optional
 *   leading '+', saturating at all ones); a string that is not wholly a
 *   number, or that a letter-led number stops at '+', is read as SYMBOL
 *   or SYMBOL+OFFSET (here: a function name); an unknown symbol is 0;
 * - on an ELF32 file the address is cut to 32 bits and -a prints 8 hex
 *   digits, else 16;
 * - stdin is read like fgets with a 100-byte buffer: a line longer than
 *   99 bytes is answered as several addresses;
 * - a pc in no function prints "??" (with -f) and "??:0"; a pc in a
 *   function whose file or line is unknown prints "??" for the file and
 *   "?" for the line (a file named "", which is what a Go table's "no
 *   file" becomes, is unknown too).
 * - a line row's DWARF discriminator (pcdata PCLN_PCDATA_DISCRIM) is
 *   printed as " (discriminator N)" after the line, on every frame;
 * - a pc in inlined code (the blob's INLPACK or INLTREE section) is
 *   named as the innermost inlined function; -i then also prints each
 *   inlining caller with the position of the call, innermost first
 *   (with -p as " (inlined by) NAME at FILE:LINE"), from the runtime's
 *   pclnrt_inline.
 * - -C / --demangle[=STYLE] demangles every name printed, inlined ones
 *   included, as binutils does (dump_demangle.c: libiberty, flags
 *   DMGL_PARAMS | DMGL_ANSI, -r lifting the recursion limit); "??" is
 *   never demangled.
 * Not done: -j (section-relative addresses).
 *
 * --pid PID (instead of -e): the addresses are a live process's.  Each
 * is answered from the object mapped there (lib/proc: /proc/PID/maps,
 * PIE and shared objects at their load biases, deleted or replaced files
 * through /proc/PID/map_files, the vDSO from the process's memory, each
 * object's .pcln section or a table made from its symbols, DWARF and
 * CFI).  The answer is addr2line's, after a line naming the object and
 * the address in it ("OBJECT+0xADDR", the address addr2line -e OBJECT
 * takes, and the build-id); an address in no file mapping answers "??"
 * after a line naming its mapping ("[stack]", "[anon]" and the range).
 * With --json: one JSON object a line (doc/JSON.md).
 *
 * Opening: a pcln blob is opened without the verifier (the file is
 * mmap'ed, so the first answer costs O(1) plus the lookup, not a decode
 * of every table: 298 ms before on a blob of 1M functions).  The first
 * pc in each function checks that function as pcln_verify would
 * (func_check; once per function, so at most one pass over its tables).
 * A damaged function is answered as an unknown pc, with one warning, and
 * the exit status is then 1.  --verify verifies the whole blob first, as
 * every other command does.
 */
#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dump.h"
#include "pcln_proc.h"
#include "pclnrt.h"

#define A2L_LINE_MAX	99	/* binutils: char addr_hex[100] + fgets */
#define OPT_VERIFY	256	/* --verify: no short form */
#define OPT_PID		257	/* --pid */
#define OPT_JSON	258	/* --json */

struct a2l {
	dump_input in;
	int functions, addresses, pretty, basenames, inlines, verify, json;
	int demangle;
	pclnrt_table rt;	/* the same blob, for pclnrt_inline */
	int rt_ok;
	unsigned width;		/* hex digits of -a */
	uint64_t mask;
};

static int
isspace_c(int c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' ||
	    c == '\r';
}

/* strtoull(S, END, 16) (leading space, a sign, an optional 0x,
 * saturation; *END = S when there are no digits), but a '-' only if
 * ALLOW_MINUS.  pclndump keeps the C locale, so the digits are ASCII. */
static uint64_t
scan16(const char *s, const char **end, int allow_minus)
{
	const char *p = s;
	char *e;
	uint64_t v;

	while (isspace_c((unsigned char)*p))
		p++;
	if (*p == '-' && !allow_minus) {
		*end = s;
		return 0;
	}
	v = strtoull(s, &e, 16);
	*end = e;
	return v;
}

static int
find_symbol(const struct a2l *a, const char *name, size_t len,
    uint64_t *entry)
{
	size_t i, n = pcln_nfunc(a->in.t);

	for (i = 0; i < n; i++) {
		pcln_func f;
		if (pcln_get_func(a->in.t, i, &f) == 0 && f.name != NULL &&
		    strlen(f.name) == len && memcmp(f.name, name, len) == 0) {
			*entry = f.entry;
			return 1;
		}
	}
	return 0;
}

/* The address S stands for, as binutils addr2line reads it. */
static uint64_t
parse_addr(const struct a2l *a, const char *s)
{
	const char *p = s, *end, *name;
	size_t namelen;
	uint64_t v, base = 0, off = 0;

	while (isspace_c((unsigned char)*p))
		p++;
	/* bfd_scan_vma: no '-' sign. */
	v = scan16(p, &end, 0);
	/* A number, unless it starts with a letter and stops at '+' (then
	 * "f+1" is the symbol f plus 1). */
	if (end != p && ((*p >= '0' && *p <= '9') || *end != '+'))
		return v;
	/* SYMBOL[+OFFSET]. */
	name = p;
	while (*p != 0 && *p != '+' && !isspace_c((unsigned char)*p))
		p++;
	namelen = (size_t)(p - name);
	while (isspace_c((unsigned char)*p))
		p++;
	if (*p == '+')
		off = scan16(p + 1, &end, 1);
	if (namelen > 0 && !find_symbol(a, name, namelen, &base))
		return 0;
	return base + off;
}

static const char *
basename_of(const char *path)
{
	const char *h = strrchr(path, '/');
	return h != NULL ? h + 1 : path;
}

/* FILE:LINE, with " (discriminator N)" if DISCR is not 0, as binutils
 * 2.40 prints it: after every frame's line of the address, inlined or
 * not (its variable is not reset between frames), never after "?"; and
 * a newline if NL. */
static void
print_loc_nl(const struct a2l *a, const char *file, int32_t line,
    uint32_t discr, int nl)
{
	if (file == NULL || *file == 0)	/* "": Go's "no file" */
		fputs("??:", stdout);
	else
		printf("%s:", a->basenames ? basename_of(file) : file);
	if (line > 0 && discr != 0)
		printf("%" PRId32 " (discriminator %" PRIu32 ")", line, discr);
	else if (line > 0)
		printf("%" PRId32, line);
	else
		fputs("?", stdout);
	if (nl)
		putchar('\n');
}

static void
print_loc(const struct a2l *a, const char *file, int32_t line,
    uint32_t discr)
{
	print_loc_nl(a, file, line, discr, 1);
}

static void
print_name(const struct a2l *a, const char *name)
{
	char *dm = NULL;

	if (!a->functions)
		return;
	if (name == NULL || *name == 0)
		name = "??";
	else if (a->demangle && (dm = dump_demangle(name)) != NULL)
		name = dm;
	printf(a->pretty ? "%s at " : "%s\n", name);
	free(dm);
}

static void
answer(struct a2l *a, const char *s)
{
	uint64_t pc = parse_addr(a, s) & a->mask;
	pcln_loc loc;
	int found;
	pclnrt_inlcall calls[64];
	pclnrt_func rf;
	size_t n = 0, k;
	int32_t discr = 0;

	found = pcln_lookup(a->in.t, pc, &loc) == 0 && loc.func >= 0 &&
	    dump_func_usable(&a->in, (size_t)loc.func,
	    "its pcs are answered as unknown, \"??\"");
	if (a->addresses) {
		printf("0x%0*" PRIx64, (int)a->width, pc);
		fputs(a->pretty ? ": " : "\n", stdout);
	}
	if (!found) {
		if (a->functions)
			fputs(a->pretty ? "?? " : "??\n", stdout);
		fputs("??:0\n", stdout);
		return;
	}
	/* (On a sound blob the runtime finds the same function; on an
	 * unverified one, only that function was checked.) */
	if (a->rt_ok && pclnrt_findfunc(&a->rt, pc, &rf) == PCLNRT_OK &&
	    rf.index == (uint64_t)loc.func)
		(void)pclnrt_inline(&rf, pc, calls, 64, &n);
	/* The line row's discriminator (pclnld --elf's pcdata 5; absent:
	 * none). */
	if (pcln_pcvalue(a->in.t, (size_t)loc.func,
	    PCLN_TAB_PCDATA(PCLN_PCDATA_DISCRIM), pc, &discr, NULL) < 0)
		discr = 0;
	print_name(a, n > 0 ? calls[0].name : loc.name);
	print_loc(a, loc.file, loc.line, (uint32_t)discr);
	if (!a->inlines)
		return;
	for (k = 0; k < n; k++) {
		if (a->pretty)
			fputs(" (inlined by) ", stdout);
		print_name(a, k + 1 < n ? calls[k + 1].name : loc.name);
		print_loc(a, calls[k].file, calls[k].line, (uint32_t)discr);
	}
}

/* --- a live process (--pid) --------------------------------------------- */

struct a2lpid {
	struct a2l *a;
	pcln_aspace *as;
	int pid;
	json j;
	/* Objects already warned about (their notes). */
	const pcln_object **warned;
	size_t nwarned, capwarned;
	int incomplete;		/* some address's object had no table */
};

static void
perms(const pcln_mapping *m, char buf[5])
{
	buf[0] = (m->prot & PCLN_MAP_READ) ? 'r' : '-';
	buf[1] = (m->prot & PCLN_MAP_WRITE) ? 'w' : '-';
	buf[2] = (m->prot & PCLN_MAP_EXEC) ? 'x' : '-';
	buf[3] = (m->prot & PCLN_MAP_SHARED) ? 's' : 'p';
	buf[4] = 0;
}

static void
hexid(const uint8_t *id, size_t n, char *buf)
{
	size_t k;

	for (k = 0; k < n; k++)
		snprintf(buf + 2 * k, 3, "%02x", id[k]);
	buf[2 * n] = 0;
}

/* Warn once per object that has no table. */
static void
warn_object(struct a2lpid *q, const pcln_object *o)
{
	size_t k;

	for (k = 0; k < q->nwarned; k++)
		if (q->warned[k] == o)
			return;
	if (q->nwarned == q->capwarned) {
		size_t cap = q->capwarned ? 2 * q->capwarned : 8;
		const pcln_object **v = realloc(q->warned, cap * sizeof *v);

		if (v != NULL) {
			q->warned = v;
			q->capwarned = cap;
		}
	}
	if (q->nwarned < q->capwarned)
		q->warned[q->nwarned++] = o;
	dump_error("process %d: %s: no table: %s; its addresses answer "
	    "\"??\"", q->pid, o->path, o->note);
}

/* The line naming where ADDR is (text mode). */
static void
print_where(const pcln_symbol *s)
{
	char pm[5], id[2 * PCLN_BUILDID_MAX + 1];

	if (s->map == NULL) {
		fputs("(no mapping)\n", stdout);
		return;
	}
	if (s->obj == NULL) {
		perms(s->map, pm);
		printf("%s 0x%" PRIx64 "-0x%" PRIx64 " %s\n",
		    s->map->path[0] != 0 ? s->map->path : "[anon]",
		    s->map->start, s->map->end, pm);
		return;
	}
	printf("%s%s+0x%" PRIx64, s->obj->path, s->obj->deleted ?
	    " (deleted)" : "", s->objaddr);
	if (s->obj->build_id_len > 0) {
		hexid(s->obj->build_id, s->obj->build_id_len, id);
		printf(" (build-id %s)", id);
	}
	putchar('\n');
}

static void
json_symbol(json *j, const struct a2l *a, const pcln_symbol *s)
{
	dump_opts o;

	char pm[5], id[2 * PCLN_BUILDID_MAX + 1];
	size_t k;

	memset(&o, 0, sizeof o);
	o.demangle = a->demangle;
	json_begin_object(j);
	json_key(j, "address");
	json_hex(j, s->addr);
	json_key(j, "mapping");
	if (s->map == NULL)
		json_null(j);
	else {
		perms(s->map, pm);
		json_begin_object(j);
		json_key(j, "start");
		json_hex(j, s->map->start);
		json_key(j, "end");
		json_hex(j, s->map->end);
		json_key(j, "offset");
		json_hex(j, s->map->offset);
		json_key(j, "perms");
		json_string(j, pm);
		json_key(j, "path");
		json_string(j, s->map->path);
		json_key(j, "deleted");
		json_bool(j, s->map->deleted);
		json_end_object(j);
	}
	json_key(j, "object");
	if (s->obj == NULL)
		json_null(j);
	else {
		json_begin_object(j);
		json_key(j, "path");
		json_string(j, s->obj->path);
		json_key(j, "file");
		json_string(j, s->obj->file);
		json_key(j, "build_id");
		if (s->obj->build_id_len > 0) {
			hexid(s->obj->build_id, s->obj->build_id_len, id);
			json_string(j, id);
		} else
			json_null(j);
		json_key(j, "bias");
		json_hex(j, s->bias);
		json_key(j, "table");
		json_string(j, pcln_objsrc_name(s->obj->source));
		json_key(j, "deleted");
		json_bool(j, s->obj->deleted);
		json_key(j, "replaced");
		json_bool(j, s->obj->replaced);
		json_key(j, "note");
		json_string(j, s->obj->note[0] != 0 ? s->obj->note : NULL);
		json_end_object(j);
	}
	json_key(j, "object_address");
	if (s->obj != NULL)
		json_hex(j, s->objaddr);
	else
		json_null(j);
	json_key(j, "file_offset");
	if (s->map != NULL && s->obj != NULL)
		json_hex(j, s->file_offset);
	else
		json_null(j);
	dump_json_name(j, &o, "function", s->function);
	json_key(j, "entry");
	if (s->function != NULL)
		json_hex(j, s->entry);
	else
		json_null(j);
	/* Innermost first, as addr2line -i prints them. */
	json_key(j, "frames");
	json_begin_array(j);
	if (s->function != NULL) {
		const char *file = s->file;
		int32_t line = s->line;

		for (k = 0; k <= s->ninline; k++) {
			json_begin_object(j);
			dump_json_frame_loc(j, &o, k < s->ninline ?
			    s->inl[k].name : s->function, k < s->ninline,
			    file, line);
			json_end_object(j);
			if (k < s->ninline) {
				file = s->inl[k].file;
				line = s->inl[k].line;
			}
		}
	}
	json_end_array(j);
	json_end_object(j);
	json_end_document(j);
}

static void
answer_pid(struct a2lpid *q, const char *str)
{
	struct a2l *a = q->a;
	const char *end;
	uint64_t addr = scan16(str, &end, 0);
	pcln_symbol s;
	size_t k;

	while (isspace_c((unsigned char)*end))
		end++;
	if (end == str || *end != 0) {
		dump_error("'%s': expected an address in hex", str);
		q->incomplete = 1;
		return;
	}
	(void)pcln_aspace_symbolize(q->as, addr, 0, &s);
	if (s.obj != NULL && s.obj->table == NULL) {
		warn_object(q, s.obj);
		q->incomplete = 1;
	}
	if (a->json) {
		json_symbol(&q->j, a, &s);
		return;
	}
	if (a->addresses) {
		printf("0x%016" PRIx64, addr);
		fputs(a->pretty ? ": " : "\n", stdout);
	}
	if (a->pretty) {
		/* One line: the object after the answer. */
		if (s.function == NULL) {
			fputs(a->functions ? "?? ??:0" : "??:0", stdout);
		} else {
			print_name(a, s.ninline > 0 ? s.inl[0].name :
			    s.function);
			print_loc_nl(a, s.file, s.line, 0, 0);
		}
		fputs(" in ", stdout);
		print_where(&s);
	} else {
		print_where(&s);
		if (s.function == NULL) {
			if (a->functions)
				fputs("??\n", stdout);
			fputs("??:0\n", stdout);
			return;
		}
		print_name(a, s.ninline > 0 ? s.inl[0].name : s.function);
		print_loc(a, s.file, s.line, 0);
	}
	if (!a->inlines || s.function == NULL)
		return;
	for (k = 0; k < s.ninline; k++) {
		if (a->pretty)
			fputs(" (inlined by) ", stdout);
		print_name(a, k + 1 < s.ninline ? s.inl[k + 1].name :
		    s.function);
		print_loc(a, s.inl[k].file, s.inl[k].line, 0);
	}
}

static int
a2l_pid(struct a2l *a, const char *pidstr, int argc, char **argv)
{
	struct a2lpid q;
	pcln_err err;
	char *e;
	long pid = strtol(pidstr, &e, 10);
	int rc = 0;

	if (*pidstr == 0 || *e != 0 || pid <= 0 || pid > INT32_MAX) {
		dump_error("--pid '%s': expected a process id", pidstr);
		return DUMP_EXIT_USAGE;
	}
	memset(&q, 0, sizeof q);
	q.a = a;
	q.pid = (int)pid;
	json_init(&q.j, stdout, 0);
	if ((q.as = pcln_aspace_new(q.pid, NULL, a->verify ? PCLN_AS_VERIFY :
	    0, &err)) != NULL)
		dump_find_aspace(q.as);
	if (q.as == NULL || pcln_aspace_read_maps(q.as, &err) < 0) {
		dump_error("%s", err.msg);
		pcln_aspace_free(q.as);
		return DUMP_EXIT_IO;
	}
	if (argc > 0) {
		int i;

		for (i = 0; i < argc; i++)
			answer_pid(&q, argv[i]);
	} else {
		dump_lines lr;
		char *line;
		int nl, en;

		dump_lines_init(&lr, STDIN_FILENO);
		while ((line = dump_lines_next(&lr, 0, &nl, &en)) != NULL) {
			if (line[0] != 0)
				answer_pid(&q, line);
			free(line);
		}
		if (en != 0) {
			dump_error("standard input: %s", strerror(en));
			rc = DUMP_EXIT_IO;
		}
	}
	free(q.warned);
	pcln_aspace_free(q.as);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		dump_error("write error: %s", strerror(errno));
		return DUMP_EXIT_IO;
	}
	if (rc == 0 && q.incomplete)
		rc = DUMP_EXIT_CORRUPT;
	return rc;
}

static void
usage(FILE *f)
{
	fprintf(f, "Usage: %s addr2line [option(s)] [addresses(s)]\n"
	    "  Convert addresses into line number/file name pairs, from the "
	    "pcln blob\n"
	    "  of FILE (a raw blob, or an ELF file with a .pcln or "
	    ".gopclntab section).\n"
	    "  If no addresses are specified on the command line, they will "
	    "be read from stdin\n"
	    "  The options are:\n"
	    "  -a --addresses         Show addresses\n"
	    "  -e --exe=<executable>  Set the input file name (default is "
	    "a.out)\n"
	    "     --pid=PID           Addresses of the live process PID "
	    "(every object\n"
	    "                         it maps; each answer after a line "
	    "OBJECT+0xADDR)\n"
	    "     --json              With --pid: one JSON object a line\n"
	    "  -i --inlines           Unwind inlined functions\n"
	    "  -p --pretty-print      Make the output easier to read for "
	    "humans\n"
	    "  -s --basenames         Strip directory names\n"
	    "  -f --functions         Show function names\n"
	    "     --verify            Verify the whole blob before the first "
	    "answer\n"
	    "  -C --demangle[=style]  Demangle function names\n"
	    "  -R --recurse-limit     Enable a limit on recursion whilst "
	    "demangling.  [Default]\n"
	    "  -r --no-recurse-limit  Disable a limit on recursion whilst "
	    "demangling\n"
	    "  -h --help              Display this information\n"
	    "  -v --version           Display the program's version\n",
	    dump_prog);
}

int
dump_addr2line(int argc, char **argv, int verify, int demangle,
    int as_json)
{
	static const struct option longopts[] = {
		{ "addresses", no_argument, NULL, 'a' },
		{ "target", required_argument, NULL, 'b' },
		{ "demangle", optional_argument, NULL, 'C' },
		{ "exe", required_argument, NULL, 'e' },
		{ "functions", no_argument, NULL, 'f' },
		{ "inlines", no_argument, NULL, 'i' },
		{ "section", required_argument, NULL, 'j' },
		{ "pretty-print", no_argument, NULL, 'p' },
		{ "recurse-limit", no_argument, NULL, 'R' },
		{ "recursion-limit", no_argument, NULL, 'R' },
		{ "no-recurse-limit", no_argument, NULL, 'r' },
		{ "no-recursion-limit", no_argument, NULL, 'r' },
		{ "basenames", no_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'v' },
		{ "verify", no_argument, NULL, OPT_VERIFY },
		DUMP_FIND_LONGOPTS,
		{ "pid", required_argument, NULL, OPT_PID },
		{ "json", no_argument, NULL, OPT_JSON },
		{ NULL, 0, NULL, 0 }
	};
	struct a2l a;
	const char *exe = "a.out", *pid = NULL;
	int c, rc, damaged, have_exe = 0;

	memset(&a, 0, sizeof a);
	a.verify = verify;
	a.demangle = demangle;
	a.json = as_json;
	optind = 1;
	while ((c = getopt_long(argc, argv, "ab:Ce:fHhij:pRrsVv", longopts,
	    NULL)) != -1) {
		switch (c) {
		case 'a': a.addresses = 1; break;
		case 'b': break;	/* the blob says what it is */
		case 'C':
			a.demangle = 1;
			if (dump_demangle_style(optarg) < 0)
				return DUMP_EXIT_USAGE;
			break;
		case 'e': exe = optarg; have_exe = 1; break;
		case 'f': a.functions = 1; break;
		case 'i': a.inlines = 1; break;
		case 'p': a.pretty = 1; break;
		case 'R': dump_demangle_recurse_limit(1); break;
		case 'r': dump_demangle_recurse_limit(0); break;
		case 's': a.basenames = 1; break;
		case OPT_VERIFY: a.verify = 1; break;
		case OPT_PID: pid = optarg; break;
		case OPT_JSON: a.json = 1; break;
		DUMP_FIND_CASES:
			if ((rc = dump_find_option(c, optarg)) != 0)
				return rc;
			break;
		case 'H': case 'h':
			usage(stdout);
			return 0;
		case 'V': case 'v':
			printf("%s (pcln) %s\n", dump_prog,
			    PCLN_VERSION_STRING);
			return 0;
		case 'j':
			dump_error("-j (section-relative addresses) is not "
			    "supported");
			return DUMP_EXIT_USAGE;
		default:
			usage(stderr);
			return DUMP_EXIT_USAGE;
		}
	}
	if (pid != NULL && have_exe) {
		dump_error("addr2line: -e and --pid exclude each other");
		return DUMP_EXIT_USAGE;
	}
	if (pid != NULL)
		return a2l_pid(&a, pid, argc - optind, argv + optind);
	if (a.json) {
		dump_error("addr2line: --json needs --pid (with -e the output "
		    "is binutils addr2line's)");
		return DUMP_EXIT_USAGE;
	}
	if ((rc = dump_open_flags(&a.in, exe, a.verify ? 0 :
	    DUMP_OPEN_LAZY)) != 0) {
		dump_close(&a.in);
		return rc;
	}
	if (a.in.is_elf)
		a.width = a.in.elf.elfclass == 32 ? 8 : 16;
	else
		a.width = dump_addr_width(&a.in);
	a.mask = a.width == 8 ? 0xffffffffu : UINT64_MAX;
	/* The runtime reads the inline tree.  A verified blob passes its
	 * O(1) checks; an unverified one that fails them is refused. */
	rc = pclnrt_init(&a.rt, a.in.blob, a.in.len);
	a.rt_ok = rc == PCLNRT_EINIT_OK;
	if (a.in.trusted && !a.rt_ok) {
		dump_error("%s: %s (run 'pclndump verify %s' for details)",
		    a.in.path, pclnrt_init_strerror(rc), a.in.path);
		dump_close(&a.in);
		return DUMP_EXIT_CORRUPT;
	}
	if (optind < argc) {
		for (; optind < argc; optind++)
			answer(&a, argv[optind]);
	} else {
		dump_lines lr;
		char *line;
		int nl, e;

		dump_lines_init(&lr, STDIN_FILENO);
		while ((line = dump_lines_next(&lr, A2L_LINE_MAX, &nl,
		    &e)) != NULL) {
			answer(&a, line);
			free(line);
		}
		if (e != 0) {
			dump_error("standard input: %s", strerror(e));
			dump_close(&a.in);
			return DUMP_EXIT_IO;
		}
	}
	damaged = a.in.damaged;
	dump_close(&a.in);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		dump_error("write error: %s", strerror(errno));
		return DUMP_EXIT_IO;
	}
	return damaged ? DUMP_EXIT_CORRUPT : 0;
}
