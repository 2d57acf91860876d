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
 * - a pc in inlined code (the blob's INLTREE section) is named as the
 *   innermost inlined function; -i then also prints each inlining
 *   caller with the position of the call, innermost first (with -p as
 *   " (inlined by) NAME at FILE:LINE"), from the runtime's
 *   pclnrt_inline.
 * - -C / --demangle[=STYLE] demangles every name printed, inlined ones
 *   included, as binutils does (dump_demangle.c: libiberty, flags
 *   DMGL_PARAMS | DMGL_ANSI, -r lifting the recursion limit); "??" is
 *   never demangled.
 * Not done: -j (section-relative addresses).
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
#include "pclnrt.h"

#define A2L_LINE_MAX	99	/* binutils: char addr_hex[100] + fgets */
#define OPT_VERIFY	256	/* --verify: no short form */

struct a2l {
	dump_input in;
	int functions, addresses, pretty, basenames, inlines, verify;
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
 * not (its variable is not reset between frames), never after "?". */
static void
print_loc(const struct a2l *a, const char *file, int32_t line,
    uint32_t discr)
{
	if (file == NULL || *file == 0)	/* "": Go's "no file" */
		fputs("??:", stdout);
	else
		printf("%s:", a->basenames ? basename_of(file) : file);
	if (line > 0 && discr != 0)
		printf("%" PRId32 " (discriminator %" PRIu32 ")\n", line, discr);
	else if (line > 0)
		printf("%" PRId32 "\n", line);
	else
		fputs("?\n", stdout);
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
	    PCLN_TABLE_PCDATA(PCLN_PCDATA_DISCRIM), pc, &discr, NULL) < 0)
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
dump_addr2line(int argc, char **argv, int verify, int demangle)
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
		{ NULL, 0, NULL, 0 }
	};
	struct a2l a;
	const char *exe = "a.out";
	int c, rc, damaged;

	memset(&a, 0, sizeof a);
	a.verify = verify;
	a.demangle = demangle;
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
		case 'e': exe = optarg; break;
		case 'f': a.functions = 1; break;
		case 'i': a.inlines = 1; break;
		case 'p': a.pretty = 1; break;
		case 'R': dump_demangle_recurse_limit(1); break;
		case 'r': dump_demangle_recurse_limit(0); break;
		case 's': a.basenames = 1; break;
		case OPT_VERIFY: a.verify = 1; break;
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
