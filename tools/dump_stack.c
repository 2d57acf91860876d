/* dump_stack.c -- pclndump stack --pid PID: every thread's stack of a
 * live process, as eu-stack -p and gdb's "thread apply all bt" print
 * them (lib/proc does the work).
 *
 * The order keeps the process stopped for as little time as it can:
 * read /proc/PID/maps and make every executable object's table first,
 * with the process running; then stop every thread (ptrace), read the
 * maps again (a library loaded meanwhile gets its table now), read each
 * thread's registers and walk its stack through every object; resume
 * the threads; only then symbolize and print.
 *
 * Exit status: 0 if every thread's walk reached its outermost frame (or
 * a return address of 0); 1 if one stopped before (the reason is
 * printed); 3 if the process cannot be read or stopped, or exited
 * during the walk.
 *
 * For tests: PCLNDUMP_TEST_STOPPED_MS=N holds the threads stopped N
 * milliseconds (at most 10 s) before the walk, after saying so on
 * standard error, so that a test can look at them or kill the process.
 */
#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dump.h"
#include "pcln_proc.h"

#define STACK_MAX_DEFAULT	256
#define OPT_PID			256
#define OPT_NO_INLINE		257
#define OPT_STATS		258
#define OPT_JSON		259

struct tstack {
	int tid;
	char comm[32];
	pclnrt_frame *frames;
	size_t n;
	pclnrt_stopinfo stop;
	char error[160];	/* registers not read: why ("" if read) */
};

static void
usage(FILE *f)
{
	fprintf(f, "Usage: %s stack --pid PID [-C] [--no-inline] [-n MAX] "
	    "[--stats] [--json]\n"
	    "  Print every thread's stack of the live process PID: stop its "
	    "threads\n"
	    "  (ptrace), walk each stack with the pcsp tables and CFA rules "
	    "of every\n"
	    "  object it maps, resume them, print the frames.\n"
	    "  --pid PID     the process\n"
	    "  -C, --demangle[=STYLE]  demangle names (as addr2line -C)\n"
	    "  --no-inline   no frames for inlined calls\n"
	    "  -n MAX        at most MAX frames a thread (default %d)\n"
	    "  --stats       how long the process was stopped, to stderr\n"
	    "  --json        JSON (doc/JSON.md)\n", dump_prog,
	    STACK_MAX_DEFAULT);
}

static double
now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static void
read_comm(int pid, int tid, char *buf, size_t len)
{
	char path[64];
	FILE *f;

	buf[0] = 0;
	snprintf(path, sizeof path, "/proc/%d/task/%d/comm", pid, tid);
	if ((f = fopen(path, "r")) == NULL)
		return;
	if (fgets(buf, (int)len, f) == NULL)
		buf[0] = 0;
	buf[strcspn(buf, "\n")] = 0;
	fclose(f);
}

/* Has PID exited (gone, or a zombie nobody reaped yet)? */
static int
process_gone(long pid)
{
	char path[64], buf[512], *rp;
	FILE *f;
	size_t n;

	if (kill((pid_t)pid, 0) < 0 && errno == ESRCH)
		return 1;
	snprintf(path, sizeof path, "/proc/%ld/stat", pid);
	if ((f = fopen(path, "r")) == NULL)
		return 1;
	n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = 0;
	/* "PID (COMM) STATE ...": COMM may hold ')' and blanks. */
	if ((rp = strrchr(buf, ')')) == NULL || rp[1] != ' ')
		return 0;
	return rp[2] == 'Z' || rp[2] == 'X';
}

static void
test_pause(void)
{
	const char *e = getenv("PCLNDUMP_TEST_STOPPED_MS");
	long ms = e != NULL ? strtol(e, NULL, 10) : 0;
	struct timespec ts;

	if (ms <= 0)
		return;
	if (ms > 10000)
		ms = 10000;
	fprintf(stderr, "%s: stack: threads stopped, holding them %ld ms "
	    "(PCLNDUMP_TEST_STOPPED_MS)\n", dump_prog, ms);
	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (ms % 1000) * 1000000;
	nanosleep(&ts, NULL);
}

static int
clean_stop(int reason)
{
	return reason == PCLNRT_STOP_END || reason == PCLNRT_STOP_OUTERMOST;
}

static const char *
stop_name(int reason)
{
	static const char *const names[] = {
		"end", "limit", "unknown_pc", "no_sp", "noframe", "read",
		"wrong_way", "badarg", "outermost"
	};

	return reason >= 0 && (size_t)reason < sizeof names / sizeof names[0] ?
	    names[reason] : "unknown";
}

/* The name to print: "??" if unknown or unnamed, else as -C says. */
static const char *
nm(const dump_opts *o, const char *s, char **freep)
{
	*freep = NULL;
	return s == NULL || s[0] == 0 ? "??" : dump_name(o, s, freep);
}

/* One frame's lines in text: the inlined calls, innermost first, at
 * their own positions, then the function; "#N  0xPC NAME at FILE:LINE
 * (OBJECT+0xADDR)". */
static size_t
print_frame(const dump_opts *o, size_t num, const pclnrt_frame *fr,
    const pcln_symbol *s, int inlines)
{
	const char *file = s->file;
	int32_t line = s->line;
	size_t k, n = inlines ? s->ninline : 0;

	for (k = 0; k <= n; k++) {
		const char *name = k < n ? s->inl[k].name : s->function;
		char *dm;

		printf("#%-2zu 0x%016" PRIx64 " %s", num++, fr->pc,
		    nm(o, name, &dm));
		free(dm);
		if (k < n)
			fputs(" [inlined]", stdout);
		if (file != NULL && line > 0)
			printf(" at %s:%" PRId32, file, line);
		if (k == n && s->obj != NULL)
			printf(" (%s+0x%" PRIx64 ")", s->obj->path,
			    s->objaddr);
		else if (k == n && s->map != NULL)
			printf(" (%s)", s->map->path[0] != 0 ? s->map->path :
			    "[anon]");
		putchar('\n');
		if (k < n) {
			file = s->inl[k].file;
			line = s->inl[k].line;
		}
	}
	return num;
}

void
dump_json_frame_loc(json *j, const dump_opts *o, const char *function,
    int inlined, const char *file, int32_t line)
{
	dump_json_name(j, o, "function", function);
	json_key(j, "inlined");
	json_bool(j, inlined);
	json_key(j, "file");
	json_string(j, file);
	json_key(j, "line");
	if (line > 0)
		json_int(j, line);
	else
		json_null(j);
}

static void
json_frame(json *j, const dump_opts *o, const pclnrt_frame *fr,
    const pcln_symbol *s, int inlines)
{
	const char *file = s->file;
	int32_t line = s->line;
	size_t k, n = inlines ? s->ninline : 0;

	for (k = 0; k <= n; k++) {
		json_begin_object(j);
		json_key(j, "pc");
		json_hex(j, fr->pc);
		json_key(j, "sp");
		json_hex(j, fr->sp);
		dump_json_frame_loc(j, o, k < n ? s->inl[k].name :
		    s->function, k < n, file, line);
		json_key(j, "object");
		json_string(j, s->obj != NULL ? s->obj->path : NULL);
		json_key(j, "object_address");
		if (s->obj != NULL)
			json_hex(j, s->objaddr);
		else
			json_null(j);
		json_end_object(j);
		if (k < n) {
			file = s->inl[k].file;
			line = s->inl[k].line;
		}
	}
}

/* The object a walk stopped in, and why it has no table, if that is
 * why. */
static const char *
stop_note(pcln_aspace *as, const struct tstack *t, int first)
{
	const pcln_object *o;
	uint64_t look = t->stop.pc - (first ? 0 : 1);

	if (t->stop.reason != PCLNRT_STOP_UNKNOWN_PC)
		return NULL;
	o = pcln_aspace_object(as, look, NULL);
	if (o == NULL)
		return pcln_aspace_find(as, look) != NULL ?
		    "not in a file mapping (anonymous: JIT code, or a bad "
		    "return address)" : "in no mapping (a bad return address)";
	return o->table == NULL ? o->note : "not in a function of its table";
}

static void
print_text(const dump_opts *o, int pid, pcln_aspace *as, struct tstack *ts,
    size_t nt, int inlines)
{
	size_t i, f, num;

	printf("PID %d - process\n", pid);
	for (i = 0; i < nt; i++) {
		struct tstack *t = &ts[i];
		const char *why;

		printf("TID %d:\n", t->tid);
		if (t->error[0] != 0) {
			printf("    [no stack: %s]\n", t->error);
			continue;
		}
		for (f = 0, num = 0; f < t->n; f++) {
			pcln_symbol s;

			(void)pcln_aspace_symbolize(as, t->frames[f].pc,
			    f > 0 ? PCLN_SYM_RETADDR : 0, &s);
			num = print_frame(o, num, &t->frames[f], &s, inlines);
		}
		if (clean_stop(t->stop.reason))
			continue;
		printf("    [walk stopped: %s at pc 0x%" PRIx64 ", sp 0x%"
		    PRIx64, pclnrt_stop_string(t->stop.reason), t->stop.pc,
		    t->stop.sp);
		if ((why = stop_note(as, t, t->n == 0)) != NULL)
			printf(": %s", why);
		fputs("]\n", stdout);
	}
}

static void
print_json(const dump_opts *o, int pid, pcln_aspace *as, struct tstack *ts,
    size_t nt, int inlines, double stopped_us)
{
	json j;
	size_t i, f;

	json_init(&j, stdout, 1);
	json_begin_object(&j);
	json_key(&j, "pid");
	json_int(&j, pid);
	json_key(&j, "stopped_us");
	json_double1(&j, stopped_us);
	json_key(&j, "threads");
	json_begin_array(&j);
	for (i = 0; i < nt; i++) {
		struct tstack *t = &ts[i];

		json_begin_object(&j);
		json_key(&j, "tid");
		json_int(&j, t->tid);
		json_key(&j, "name");
		json_string(&j, t->comm);
		json_key(&j, "error");
		json_string(&j, t->error[0] != 0 ? t->error : NULL);
		json_key(&j, "frames");
		json_begin_array(&j);
		for (f = 0; f < t->n; f++) {
			pcln_symbol s;

			(void)pcln_aspace_symbolize(as, t->frames[f].pc,
			    f > 0 ? PCLN_SYM_RETADDR : 0, &s);
			json_frame(&j, o, &t->frames[f], &s, inlines);
		}
		json_end_array(&j);
		json_key(&j, "stop");
		if (t->error[0] != 0)
			json_null(&j);
		else {
			json_begin_object(&j);
			json_key(&j, "reason");
			json_string(&j, stop_name(t->stop.reason));
			json_key(&j, "message");
			json_string(&j, pclnrt_stop_string(t->stop.reason));
			json_key(&j, "pc");
			json_hex(&j, t->stop.pc);
			json_key(&j, "sp");
			json_hex(&j, t->stop.sp);
			json_key(&j, "complete");
			json_bool(&j, clean_stop(t->stop.reason));
			json_key(&j, "note");
			json_string(&j, stop_note(as, t, t->n == 0));
			json_end_object(&j);
		}
		json_end_object(&j);
	}
	json_end_array(&j);
	json_end_object(&j);
	json_end_document(&j);
}

int
dump_stack(int argc, char **argv, int demangle, int as_json)
{
	static const struct option longopts[] = {
		{ "pid", required_argument, NULL, OPT_PID },
		{ "no-inline", no_argument, NULL, OPT_NO_INLINE },
		{ "stats", no_argument, NULL, OPT_STATS },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "demangle", optional_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *pidstr = NULL;
	long pid = 0, max = STACK_MAX_DEFAULT;
	int c, inlines = 1, stats = 0, rc = 0, exited;
	pcln_aspace *as = NULL;
	pcln_ptrace *p = NULL;
	struct tstack *ts = NULL;
	size_t nt = 0, i;
	pcln_err err;
	double t0, t1, stopped_us = 0;
	dump_opts o;
	char *e;

	memset(&o, 0, sizeof o);
	o.demangle = demangle;
	optind = 1;
	while ((c = getopt_long(argc, argv, "Chn:", longopts, NULL)) != -1) {
		switch (c) {
		case 'C':
			o.demangle = 1;
			if (dump_demangle_style(optarg) < 0)
				return DUMP_EXIT_USAGE;
			break;
		case OPT_PID: pidstr = optarg; break;
		case OPT_NO_INLINE: inlines = 0; break;
		case OPT_STATS: stats = 1; break;
		case OPT_JSON: as_json = 1; break;
		case 'n':
			max = strtol(optarg, &e, 10);
			if (*optarg == 0 || *e != 0 || max < 1 || max > 65536) {
				dump_error("stack: -n '%s': expected a number "
				    "of frames, 1 to 65536", optarg);
				return DUMP_EXIT_USAGE;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return DUMP_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		dump_error("stack: unexpected argument '%s'", argv[optind]);
		return DUMP_EXIT_USAGE;
	}
	if (pidstr == NULL) {
		dump_error("stack: --pid PID is required");
		return DUMP_EXIT_USAGE;
	}
	pid = strtol(pidstr, &e, 10);
	if (*pidstr == 0 || *e != 0 || pid <= 0 || pid > INT32_MAX) {
		dump_error("stack: --pid '%s': expected a process id", pidstr);
		return DUMP_EXIT_USAGE;
	}
	t0 = now_us();
	/* Tables first, with the process running. */
	if ((as = pcln_aspace_new((int)pid, NULL, 0, &err)) != NULL)
		dump_find_aspace(as);
	if (as == NULL || pcln_aspace_read_maps(as, &err) < 0) {
		dump_error("%s", err.msg);
		pcln_aspace_free(as);
		return DUMP_EXIT_IO;
	}
	(void)pcln_aspace_load(as);
	t1 = now_us();
	if ((p = pcln_ptrace_stop((int)pid, &err)) == NULL) {
		dump_error("%s", err.msg);
		pcln_aspace_free(as);
		return DUMP_EXIT_IO;
	}
	/* A library loaded since: its table now.  (If the maps cannot be
	 * read now, the process is exiting: walk with the old ones.) */
	test_pause();
	if (pcln_aspace_read_maps(as, &err) == 0)
		(void)pcln_aspace_load(as);
	nt = pcln_ptrace_nthreads(p);
	if ((ts = calloc(nt ? nt : 1, sizeof *ts)) == NULL) {
		(void)pcln_ptrace_resume(p, NULL, NULL);
		pcln_aspace_free(as);
		dump_error("out of memory");
		return DUMP_EXIT_IO;
	}
	for (i = 0; i < nt; i++) {
		const pcln_thread *th = pcln_ptrace_thread(p, i);
		struct tstack *t = &ts[i];

		t->tid = th->tid;
		if (!th->ok) {
			snprintf(t->error, sizeof t->error, "%s",
			    th->note[0] != 0 ? th->note : "registers not read");
			continue;
		}
		if ((t->frames = malloc((size_t)max * sizeof *t->frames)) ==
		    NULL) {
			snprintf(t->error, sizeof t->error, "out of memory");
			continue;
		}
		t->n = pcln_aspace_unwind(as, &th->regs, 0, pcln_ptrace_read,
		    p, t->frames, (size_t)max, &t->stop);
	}
	if (pcln_ptrace_resume(p, &stopped_us, &err) < 0) {
		dump_error("%s", err.msg);
		rc = DUMP_EXIT_IO;
	}
	for (i = 0; i < nt; i++)
		read_comm((int)pid, ts[i].tid, ts[i].comm, sizeof ts[i].comm);
	exited = process_gone(pid);
	if (as_json)
		print_json(&o, (int)pid, as, ts, nt, inlines, stopped_us);
	else
		print_text(&o, (int)pid, as, ts, nt, inlines);
	for (i = 0; i < nt && rc == 0; i++)
		if (ts[i].error[0] != 0 || !clean_stop(ts[i].stop.reason))
			rc = DUMP_EXIT_CORRUPT;
	if (exited) {
		dump_error("stack: process %ld exited during the walk: the "
		    "stacks above may be incomplete", pid);
		rc = DUMP_EXIT_IO;
	}
	if (stats)
		fprintf(stderr, "%s: stack: %zu threads; tables %.0f us; "
		    "stopped %.0f us (stop, walk, resume); total %.0f us\n",
		    dump_prog, nt, t1 - t0, stopped_us, now_us() - t0);
	for (i = 0; i < nt; i++)
		free(ts[i].frames);
	free(ts);
	pcln_aspace_free(as);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		dump_error("write error: %s", strerror(errno));
		return DUMP_EXIT_IO;
	}
	return rc;
}
