/* pclndump.c -- inspect a pcln blob: command line and dispatch.
 *
 * Usage: pclndump [--json] COMMAND [OPTIONS] FILE [ARGS...]
 * FILE is a raw blob or an ELF file with a .pcln or .gopclntab section.
 * summary, functions and verify read through the verified reader
 * (pcln_open); func, lookup, line and addr2line open lazily and check
 * each function they read (dump_func_usable), unless --verify; see
 * pclndump(1) for the commands and exit statuses, doc/JSON.md for --json.
 * Invoked as "pcln-addr2line", it is "pclndump addr2line".
 */
#include <config.h>

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dump.h"
#include "pcln_out.h"

static void
usage(FILE *f)
{
	fprintf(f,
	    "Usage: %s [--json] COMMAND [OPTIONS] FILE [ARGS...]\n"
	    "Inspect a pcln blob (Go 1.2 pclntab): a raw blob file, or an "
	    "ELF file\n"
	    "with a .pcln or .gopclntab section.  For an ELF file with "
	    "neither, the\n"
	    "table is made from its symbols and debug information (found "
	    "by build-id,\n"
	    ".gnu_debuglink or debuginfod) and kept in a cache keyed by "
	    "build-id.\n"
	    "\n"
	    "Commands:\n"
	    "  summary FILE             header, counts, trailer and size "
	    "breakdown\n"
	    "  functions FILE           one line per function\n"
	    "      --name=GLOB          only functions whose name matches "
	    "GLOB\n"
	    "      --range=LO:HI        only functions overlapping [LO, HI) "
	    "(hex)\n"
	    "  func FILE WHAT...        every table of a function; WHAT is a "
	    "name,\n"
	    "                           a glob, or 0xADDR inside the "
	    "function\n"
	    "  lookup FILE [PC...]      function+offset, file:line, spdelta, "
	    "pcdata\n"
	    "                           (pcs in hex; read from stdin if none)\n"
	    "  line FILE SRC:LINE...    every pc range of a source line\n"
	    "  verify FILE...           full verification; exit 0 only if "
	    "sound\n"
	    "  addr2line [-e FILE] [-afpsiC] [--verify] [ADDR...]\n"
	    "                           answer like binutils addr2line\n"
	    "                           (without verifying the whole blob "
	    "first,\n"
	    "                           unless --verify)\n"
	    "  perf [-i perf.data] [--folded | --svg FILE]\n"
	    "                           a profile's samples unwound and "
	    "symbolized\n"
	    "                           (pclndump perf --help)\n"
	    "  addr2line --pid PID [-afpsi] [ADDR...]\n"
	    "                           the same for the addresses of a live "
	    "process,\n"
	    "                           from every object it maps\n"
	    "  stack --pid PID          every thread's stack of a live "
	    "process\n"
	    "\n"
	    "Options:\n"
	    "  --json                   JSON output (doc/JSON.md): one "
	    "document, or\n"
	    "                           one line per answer for lookup\n"
	    "  --verify                 verify the whole blob before "
	    "answering\n"
	    "                           (func, lookup, line, addr2line check "
	    "only\n"
	    "                           the functions they read; the others "
	    "always\n"
	    "                           verify)\n"
	    "  -C, --demangle[=STYLE]   demangle names as binutils addr2line "
	    "-C does\n"
	    "                           (libiberty; STYLE: auto, gnu-v3, "
	    "rust, dlang, ...);\n"
	    "                           JSON gets a \"demangled\" field "
	    "beside each name\n"
	    "  --cache DIR              the table cache (default "
	    "$XDG_CACHE_HOME/pcln)\n"
	    "  --no-cache               make the table, do not cache it\n"
	    "  --cache-limit SIZE       keep the cache within SIZE bytes "
	    "(K, M, G;\n"
	    "                           default 1G), the least recently "
	    "used out\n"
	    "  --debug-dir DIR          look for debug files under DIR too\n"
	    "                           (repeatable)\n"
	    "  --table TABLE            FILE's table is TABLE, refused if "
	    "made for\n"
	    "                           another build of FILE\n"
	    "  -h, --help               this help\n"
	    "  -V, --version            version\n"
	    "\n"
	    "Exit status: 0 ok, 1 corrupt or unsupported input (or verify "
	    "failed),\n"
	    "2 usage, 3 I/O error, 4 query matched nothing.\n", dump_prog);
}

static int
try_help(void)
{
	fprintf(stderr, "Try '%s --help' for more information.\n", dump_prog);
	return DUMP_EXIT_USAGE;
}

static int
version(void)
{
	printf("pclndump (pcln) %s\n", PCLN_VERSION_STRING);
	return 0;
}

static int
parse_range(const char *s, uint64_t *lo, uint64_t *hi)
{
	char buf[64], *sep;
	size_t n = strlen(s);

	if (n >= sizeof buf)
		return -1;
	memcpy(buf, s, n + 1);
	sep = strchr(buf, ':');
	if (sep == NULL)
		sep = strchr(buf, '-');
	if (sep == NULL)
		return -1;
	*sep = 0;
	if (dump_parse_hex(buf, lo) < 0 || dump_parse_hex(sep + 1, hi) < 0 ||
	    *lo >= *hi)
		return -1;
	return 0;
}

/* --cache DIR (or --cache=DIR), --no-cache, --debug-dir DIR, --table
 * FILE before the command: -1 if ARGV[*A] is none of them, else 0 (*A
 * past its argument) or an exit status. */
static int
global_find_option(int argc, char **argv, int *a)
{
	static const struct { const char *name; int code, arg; } opts[] = {
		{ "--cache", DUMP_OPT_CACHE, 1 },
		{ "--no-cache", DUMP_OPT_NO_CACHE, 0 },
		{ "--debug-dir", DUMP_OPT_DEBUG_DIR, 1 },
		{ "--table", DUMP_OPT_TABLE, 1 },
		{ "--cache-limit", DUMP_OPT_CACHE_LIMIT, 1 },
	};
	size_t k, n;
	const char *s = argv[*a];

	for (k = 0; k < sizeof opts / sizeof opts[0]; k++) {
		n = strlen(opts[k].name);
		if (strncmp(s, opts[k].name, n) != 0 ||
		    (s[n] != 0 && (s[n] != '=' || !opts[k].arg)))
			continue;
		if (!opts[k].arg)
			return dump_find_option(opts[k].code, NULL);
		if (s[n] == '=')
			return dump_find_option(opts[k].code, s + n + 1);
		if (*a + 1 >= argc) {
			dump_error("option '%s' needs an argument", s);
			return DUMP_EXIT_USAGE;
		}
		++*a;
		return dump_find_option(opts[k].code, argv[*a]);
	}
	return -1;
}

enum cmd { C_SUMMARY, C_FUNCTIONS, C_FUNC, C_LOOKUP, C_LINE, C_VERIFY };

static const struct {
	const char *name;
	enum cmd cmd;
	int minargs;	/* after FILE */
} commands[] = {
	{ "summary", C_SUMMARY, 0 },
	{ "functions", C_FUNCTIONS, 0 },
	{ "func", C_FUNC, 1 },
	{ "lookup", C_LOOKUP, 0 },
	{ "line", C_LINE, 1 },
	{ "verify", C_VERIFY, 0 },
};

static int
run(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "name", required_argument, NULL, 'n' },
		{ "range", required_argument, NULL, 'r' },
		{ "verify", no_argument, NULL, 'y' },
		{ "demangle", optional_argument, NULL, 'C' },
		DUMP_FIND_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	const char *base = argc > 0 ? strrchr(argv[0], '/') : NULL;
	dump_opts o;
	dump_input in;
	const char *cmdname;
	size_t k;
	int c, a, rc, nrest, verify = 0;
	enum cmd cmd;

	base = base != NULL ? base + 1 : argc > 0 ? argv[0] : "pclndump";
	if (strcmp(base, "pcln-addr2line") == 0) {
		dump_prog = "pcln-addr2line";
		return dump_addr2line(argc, argv, 0, 0, 0);
	}
	memset(&o, 0, sizeof o);

	/* Global options before the command. */
	for (a = 1; a < argc && argv[a][0] == '-'; a++) {
		if (strcmp(argv[a], "--json") == 0)
			o.json = 1;
		else if (strcmp(argv[a], "--verify") == 0)
			verify = 1;
		else if (strcmp(argv[a], "-C") == 0 ||
		    strcmp(argv[a], "--demangle") == 0 ||
		    strncmp(argv[a], "--demangle=", 11) == 0) {
			o.demangle = 1;
			if (dump_demangle_style(strncmp(argv[a],
			    "--demangle=", 11) == 0 ? argv[a] + 11 : NULL) < 0)
				return DUMP_EXIT_USAGE;
		} else if ((rc = global_find_option(argc, argv, &a)) >= 0) {
			if (rc > 0)
				return rc;
		} else if (strcmp(argv[a], "--help") == 0 ||
		    strcmp(argv[a], "-h") == 0) {
			usage(stdout);
			return 0;
		} else if (strcmp(argv[a], "--version") == 0 ||
		    strcmp(argv[a], "-V") == 0)
			return version();
		else {
			dump_error("unknown option '%s'", argv[a]);
			return try_help();
		}
	}
	if (a >= argc) {
		dump_error("no command given");
		return try_help();
	}
	cmdname = argv[a];
	if (strcmp(cmdname, "addr2line") == 0)
		return dump_addr2line(argc - a, argv + a, verify, o.demangle,
		    o.json);
	if (strcmp(cmdname, "perf") == 0)
		return dump_perf(argc - a, argv + a);
	if (strcmp(cmdname, "stack") == 0)
		return dump_stack(argc - a, argv + a, o.demangle, o.json);
	for (k = 0; k < sizeof commands / sizeof commands[0]; k++)
		if (strcmp(cmdname, commands[k].name) == 0)
			break;
	if (k == sizeof commands / sizeof commands[0]) {
		dump_error("unknown command '%s'", cmdname);
		return try_help();
	}
	cmd = commands[k].cmd;

	argc -= a;
	argv += a;
	optind = 1;
	while ((c = getopt_long(argc, argv, "ChV", longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			o.json = 1;
			break;
		case 'C':
			o.demangle = 1;
			if (dump_demangle_style(optarg) < 0)
				return DUMP_EXIT_USAGE;
			break;
		case 'y':
			verify = 1;
			break;
		case 'n':
		case 'r':
			if (cmd != C_FUNCTIONS) {
				dump_error("%s: --%s is an option of "
				    "'functions'", cmdname,
				    c == 'n' ? "name" : "range");
				return DUMP_EXIT_USAGE;
			}
			if (c == 'n')
				o.name_glob = optarg;
			else if (parse_range(optarg, &o.lo, &o.hi) < 0) {
				dump_error("bad range '%s': expected LO:HI in "
				    "hex with LO < HI", optarg);
				return DUMP_EXIT_USAGE;
			} else
				o.has_range = 1;
			break;
		DUMP_FIND_CASES:
			if ((rc = dump_find_option(c, optarg)) != 0)
				return rc;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			return version();
		default:
			return try_help();
		}
	}
	if (optind >= argc) {
		dump_error("%s: no input file given", cmdname);
		return DUMP_EXIT_USAGE;
	}
	nrest = argc - optind - 1;
	if (nrest < commands[k].minargs) {
		dump_error("%s: expected %s after the file", cmdname,
		    cmd == C_FUNC ? "a function name or address" :
		    "SRC:LINE");
		return DUMP_EXIT_USAGE;
	}
	if (cmd == C_VERIFY) {
		int worst = 0;
		for (a = optind; a < argc; a++) {
			rc = dump_verify(argv[a], &o);
			if (rc > worst)
				worst = rc;
		}
		return worst;
	}
	if ((cmd == C_SUMMARY || cmd == C_FUNCTIONS) && nrest > 0) {
		dump_error("%s: unexpected argument '%s'", cmdname,
		    argv[optind + 1]);
		return DUMP_EXIT_USAGE;
	}
	/* Commands that read few functions check each one as they read it
	 * (dump_func_usable): one pc of a 1M-function blob in ~1 ms, not
	 * ~1 s of verifying all of it first; --verify verifies first. */
	if ((rc = dump_open_flags(&in, argv[optind], !verify &&
	    (cmd == C_FUNC || cmd == C_LOOKUP || cmd == C_LINE) ?
	    DUMP_OPEN_LAZY : 0)) != 0) {
		dump_close(&in);
		return rc;
	}
	switch (cmd) {
	case C_SUMMARY:
		rc = dump_summary(&in, &o);
		break;
	case C_FUNCTIONS:
		rc = dump_functions(&in, &o);
		break;
	case C_FUNC:
		rc = dump_func_detail(&in, &o, argv + optind + 1, nrest);
		break;
	case C_LOOKUP:
		rc = dump_lookup(&in, &o, argv + optind + 1, nrest);
		break;
	case C_LINE:
		rc = dump_line(&in, &o, argv + optind + 1, nrest);
		break;
	case C_VERIFY:
	default:
		rc = DUMP_EXIT_USAGE;
		break;
	}
	dump_close(&in);
	return rc;
}

/* Whatever the command, a failed write to standard output (checked at
 * each command's end, and here at its close) is an I/O failure. */
int
main(int argc, char **argv)
{
	pcln_err err;
	int rc;

	/* perf --svg writes a file through a temporary: a signal removes
	 * it, then kills us with its own status. */
	(void)pcln_out_catch_signals();
	rc = run(argc, argv);

	/* DUMP_EXIT_IO: the command has said why already. */
	if (pcln_close_stdout(&err) < 0 && rc != DUMP_EXIT_IO) {
		dump_error("%s", err.msg);
		rc = DUMP_EXIT_IO;
	}
	return rc;
}
