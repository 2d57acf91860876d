/* dump_perf.c -- pclndump perf: the samples of a perf.data file, unwound
 * and symbolized with pcln tables.
 *
 *   pclndump perf [-i perf.data] [--folded | --svg FILE] [options]
 *
 * Samples recorded with `perf record --call-graph dwarf` carry the user
 * registers and a copy of the user stack: the user stack is walked with
 * each object's pcsp and CFA rules (lib/perf's pcln_perf_unwind over the
 * runtime's traceback).  Samples recorded with `perf record -g` carry a
 * frame-pointer call chain: its pcs are symbolized.  Kernel frames (the
 * call chain's kernel part) are named from /proc/kallsyms, JIT code from
 * /tmp/perf-PID.map, inlined calls from each table's inline tree.
 *
 * Output: perf script's text (the default), folded stacks (--folded) or
 * an SVG flame graph (--svg FILE).  What could not be read or named is
 * counted and reported on stderr (always when something was lost, in
 * full with --stats); a damaged file is read up to the damage, which is
 * reported with its byte offset, and the exit status is then 1.
 */
#define _GNU_SOURCE 1	/* sched_getaffinity, CPU_COUNT */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "dump.h"
#include "dump_perf.h"
#include "pcln_out.h"	/* pcln_write_file_atomic */
#include "readfile.h"

#define MAX_USER	256	/* user frames unwound per sample */
#define MAX_INLINE	32	/* inlined calls per frame */
#define MAX_OUT		1024	/* printed frames per sample */
#define NKMEMO		2048	/* kernel pcs remembered */
#define NSTACKS		2048	/* user stacks remembered, as text */

/* Why user stacks ended, and what frames were: the report. */
struct stats {
	uint64_t records, samples, kernel_only, user_unwound, user_fp;
	uint64_t user_ip_only, noregs, nostack, nothread, idle;
	uint64_t stops[PCLNRT_NSTOP + 3];
	uint64_t frames_where[6];	/* enum pcln_perf_where */
	uint64_t frames_kernel, frames_kernel_unknown, frames_jit;
	uint64_t frames_inline, frames_total;
	uint64_t lost, lost_samples, lost_records, bad, unknown_type;
	uint64_t compressed, mmaps, comms, forks, exits;
	uint64_t truncated_stack;	/* walks that ran off the copy */
	uint64_t walks, remembered;	/* pcln_perf_space_walks: the
					 * second thread's (the first's are
					 * its space's) */
	uint64_t sample_recs, bad_samples;	/* of RECORDS, BAD */
	char firstbad[256];
};

struct obuf {
	char *b;
	size_t len, cap;
	size_t huge;			/* B is pcln_huge_alloc's region of
					 * HUGE bytes, OB_SLICE (a slice of
					 * a region someone else frees), or 0
					 * (malloc's) */
	int bad;			/* text was cut: no memory */
};

#define OB_SLICE	SIZE_MAX

struct pmap {
	uint32_t pid;
	pcln_perf_syms *syms;		/* NULL: no map file */
};

#define NSYMS		4096	/* user frames remembered (struct symo) */
#define SYMO_REGION	((size_t)2 << 20)	/* the memo and room for
						 * their texts */

struct perf_cmd {
	const char *input, *svg, *title, *kallsyms_path, *mapdir;
	int folded, stats, header, no_inline, no_kernel, no_demangle;
	/* The frames named now are named as perf names a frame it adds no
	 * inlined calls to (a frame-pointer chain's, a sample's pc without
	 * a chain, every frame with --no-inline): by the object's symbol
	 * table (pclnrt_symname), not by DWARF's name. */
	int symnames;
	int defer;			/* push makes no text */
	int werr;			/* errno of a failed write, or 0 */
	/* demangled names by the name's address (they live as long as the
	 * tables they come from): SLOTS entries, power of two */
	struct dem { const char *name, *out; char *own; } *dem;
	size_t ndem, capdem;
	pcln_perf *p;
	pcln_perf_space *space;
	struct perf_tables tables;
	pcln_perf_syms *kallsyms;
	uint8_t *kallsyms_map;		/* the cached view's file, or NULL */
	size_t kallsyms_maplen;
	int kallsyms_tried, kernel_mismatch;
	struct pmap *pmaps;
	size_t npmaps, cappmaps;
	flame *fl;
	struct stats st;
	FILE *out;
	char evname[64];		/* attribute 0's event */
	char (*evnames)[64];		/* each attribute's, NEVNAMES */
	struct dump_trace *trace;	/* tracepoints' formats, or NULL */
	int oneline;			/* this sample on one line */
	size_t evwidth;			/* the longest event name */
	size_t nevnames;
	/* per sample */
	struct oframe of[MAX_OUT];
	uint64_t ofpc[MAX_OUT], ofoff[MAX_OUT];
	const char *ofdso[MAX_OUT];
	size_t nof;
	pcln_perf_frame uf[MAX_USER];
	pclnrt_pccache cache;
	/* The symbolized frames by table and pc: NSYMS slots (a power of
	 * two), each 0 or 1 + the index of its entry in SYMS (NSYMO of
	 * CAPSYMO, made as slots are first filled: a profile fills a few
	 * hundred, and a table of entries by slot would be written all
	 * over, a page fault for each of its 256 pages); the samples' text
	 * (FB), made as their frames are named, written in chunks
	 * (flush_text). */
	uint32_t symidx[NSYMS];
	struct symo *syms;
	size_t nsymo, capsymo;
	size_t symhuge;			/* SYMS is pcln_huge_alloc's (its
					 * length), or 0: malloc's */
	char *tslice, *tslice_end;	/* the rest of that region: the
					 * entries' texts (OB_SLICE), while
					 * it lasts */
	struct obuf fb;
	/* The text to write is FB's and the memos' (ob_ref): PIECES, in
	 * order (NPIECES of CAPPIECES), the last of FB's from FBMARK; REFS
	 * bytes of it the memos'.  A memo's text written in this round
	 * (its USED is EPOCH) is not changed until it is written: its
	 * place is let go (DEAD, freed then) and another taken. */
	struct opiece { const char *p; size_t off, len; } *pieces;
	size_t npieces, cappieces, fbmark, refs;
	uint64_t epoch;
	void **dead;
	size_t ndead, capdead;
	int norefs;			/* text made to be kept: copied */
	/* The last sample header's parts (sample_header) */
	struct obuf hd_pre, hd_post;
	uint32_t hd_tid;
	const char *hd_comm;
	uint64_t hd_period;
	const char *hd_event;
	int hd_oneline;
	uint64_t hd_secs;		/* "SECS." of the time: HD_SECSTXT */
	char hd_secstxt[24];		/* (HD_SECSLEN bytes; 0: none yet) */
	size_t hd_secslen;
	struct kmemo {
		uint64_t pc, start;
		const char *name, *mod;
		int ok;
		char *text;		/* its line (text output), or NULL */
		size_t tlen;
	} kmemo[NKMEMO];
	uint64_t kused[NKMEMO / 64];	/* the slots with a text to free */
	struct stackmemo *stacks;	/* STACKMASK + 1, or NULL
					 * (user_frames) */
	/* The memos' slots less one: NSYMS - 1 and NSTACKS - 1, or with
	 * PCLN_PERF_SMALL_MEMO (tests) a few, which then change texts
	 * that go out in the round they are changed in (ob_ref) */
	size_t symmask, stackmask;
	/* Two threads (struct par), each with a command of its own: PAR,
	 * its share PART; the block of samples it makes now (BLOCKNO) and
	 * its samples made in it (INBLOCK). */
	struct par *par;
	unsigned part;
	uint64_t blockno;
	size_t inblock;

	size_t selflen;			/* this, pcln_huge_alloc's */
};

/* A user frame symbolized: its file and line, and its inlined calls
 * (names demangled), for the pc it was made for. */
#define SYMO_CALLS	6	/* inlined calls in the slot; more (C++
				 * frames have 8 and more) in EXT */
struct symcall {
	const char *name, *file;
	int32_t line;
};
struct symo {
	const pclnrt_table *t;		/* NULL: empty */
	uint64_t pc;
	const char *fname;		/* the function's name, demangled */
	const char *file;
	int32_t line;
	uint32_t n;
	struct symcall call[SYMO_CALLS];
	struct symcall *ext;		/* EXTCAP of them, for N > SYMO_CALLS */
	uint32_t extcap;
	/* the text of its lines, for run-time pc RPC in OBJECT (text
	 * output only) */
	uint64_t rpc;
	const char *object;
	struct obuf text;
	int textok;
	uint64_t used;			/* the round it was written in */
};

/* (the entries and at least 768 KiB of text in one huge page) */
_Static_assert(NSYMS * sizeof(struct symo) + ((size_t)768 << 10) <=
    SYMO_REGION, "SYMO_REGION holds the memo and its texts");

static void
usage(FILE *f)
{
	fprintf(f,
"usage: pclndump perf [-i FILE] [--folded | --svg FILE] [OPTION...]\n"
"Print the samples of a perf.data file (perf record --call-graph dwarf,\n"
"or -g) as perf script does, unwound and symbolized with pcln tables.\n"
"\n"
"  -i, --input FILE     the profile (default: perf.data; -: standard\n"
"                       input, as perf record -o - writes it)\n"
"      --folded         folded stacks (\"proc;f;g;h COUNT\") instead\n"
"      --svg FILE       write an interactive SVG flame graph to FILE\n"
"      --title TEXT     the flame graph's title\n"
"      --stats          report samples, frames and stops on stderr\n"
"      --header         print the file's header, attributes, build-ids\n"
"                       and record counts, and nothing else\n"
"      --no-inline      no inlined frames\n"
"      --no-kernel      no kernel frames\n"
"      --no-demangle    C++ and Rust names as stored (mangled)\n"
"      --kallsyms FILE  kernel symbols (default: /proc/kallsyms)\n"
"      --perf-map-dir D where perf-PID.map files are (default: /tmp)\n"
"      --buildid-dir D  look for objects by build-id in D/.build-id/\n"
"                       before ~/.debug/.build-id/ (repeatable)\n"
"      --cache DIR, --no-cache, --cache-limit SIZE, --debug-dir DIR\n"
"                       the table cache and the debug-information\n"
"                       search, as for the other commands\n");
}

static char outbuf[1 << 18];	/* stdout's buffer */

#define PERF_TYPE_TRACEPOINT	2	/* perf_event_attr.type */

/* --- the input ------------------------------------------------------- */

/* PATH ("-": standard input): a regular file open in *FD, for
 * pcln_perf_open_fd (which reads its records in chunks: the kernel's
 * copy costs a quarter of a mapping's page faults and TLB misses); a pipe
 * (perf record -o - | pclndump perf -i -) read whole into *BUF[0..*LEN),
 * malloc'ed, *FD -1. */
static int
open_input(const char *path, uint8_t **buf, size_t *len, int *fdp)
{
	struct stat st;
	int fd, stdin_ = strcmp(path, "-") == 0;

	*fdp = -1;
	if ((fd = stdin_ ? dup(0) : open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		dump_error("%s: cannot open: %s", path, strerror(errno));
		return DUMP_EXIT_IO;
	}
	if (fstat(fd, &st) < 0) {
		dump_error("%s: cannot stat: %s", path, strerror(errno));
		close(fd);
		return DUMP_EXIT_IO;
	}
	if (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode) ||
	    (stdin_ && !S_ISREG(st.st_mode))) {
		if (tool_read_fd(fd, buf, len) < 0) {
			dump_error("%s: cannot read: %s", path,
			    strerror(errno));
			close(fd);
			return DUMP_EXIT_IO;
		}
		close(fd);
		if (*len == 0) {
			dump_error("%s: empty input: expected a perf.data "
			    "file or stream", path);
			return DUMP_EXIT_CORRUPT;
		}
		return 0;
	}
	if (!S_ISREG(st.st_mode)) {
		dump_error("%s: not a regular file or a pipe", path);
		close(fd);
		return DUMP_EXIT_IO;
	}
	if (st.st_size == 0) {
		dump_error("%s: empty file: expected a perf.data file", path);
		close(fd);
		return DUMP_EXIT_CORRUPT;
	}
	*fdp = fd;
	return 0;
}

/* A whole small file (kallsyms, a perf map) into a malloc'ed buffer. */
static char *
slurp(const char *path, size_t *len)
{
	size_t cap = 65536, n = 0;
	char *buf = malloc(cap), *nb;
	ssize_t r;
	int fd;

	if (buf == NULL)
		return NULL;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		free(buf);
		return NULL;
	}
	for (;;) {
		if (n == cap) {
			if ((nb = realloc(buf, cap * 2)) == NULL)
				break;
			buf = nb;
			cap *= 2;
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	*len = n;
	return buf;
}

/* --- kernel and JIT symbols ------------------------------------------ */

/* The running kernel's build-id from /sys/kernel/notes (a sequence of ELF
 * notes, 4-aligned, in the host's byte order) into ID (at most
 * PCLN_PERF_BUILDID_MAX bytes); its length or 0. */
static size_t
running_kernel_id(uint8_t *id)
{
	size_t len = 0, got = 0, n;
	char *b = slurp("/sys/kernel/notes", &len);
	const uint8_t *p;

	if (b != NULL && pclnrt_note_build_id(b, len, 4,
	    __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__, &p, &n) == PCLNRT_OK) {
		got = n < PCLN_PERF_BUILDID_MAX ? n : PCLN_PERF_BUILDID_MAX;
		memcpy(id, p, got);
	}
	free(b);
	return got;
}

/* Reading /proc/kallsyms costs the kernel 50-100 ms (it formats some
 * 120,000 lines), more than pclndump perf spends on thousands of
 * samples; perf record keeps a copy for the same reason.  The text
 * symbols are kept in the table cache's directory (lib/find's, as
 * --cache says; none with --no-cache) under a name made of the
 * running kernel's build-id and a hash of the loaded modules' names and
 * addresses (/proc/modules), so a new kernel or a module loaded,
 * unloaded or moved makes a new entry. */
static int
kallsyms_name(struct perf_cmd *c, char *buf, size_t size)
{
	uint8_t id[PCLN_PERF_BUILDID_MAX];
	size_t idlen = running_kernel_id(id), len = 0;
	const char *dir;
	char *mods, *q, *e;
	char hex[2 * PCLN_PERF_BUILDID_MAX + 1];
	uint64_t h = 0;

	if (idlen == 0 || (dir = dump_perf_cache_dir(&c->tables)) == NULL)
		return -1;
	mods = slurp("/proc/modules", &len);
	/* NAME SIZE REFS DEPS STATE ADDR: the first and last fields (no
	 * /proc/modules: a kernel without modules). */
	for (q = mods; mods != NULL && q < mods + len; q = e + 1) {
		char *sp, *last;

		if ((e = memchr(q, '\n', (size_t)(mods + len - q))) == NULL)
			e = mods + len;
		sp = memchr(q, ' ', (size_t)(e - q));
		for (last = e; last > q && last[-1] != ' '; last--)
			;
		if (sp != NULL) {
			h = pclnrt_xxh64(q, (size_t)(sp - q), h);
			h = pclnrt_xxh64(last, (size_t)(e - last), h);
		}
	}
	free(mods);
	pcln_build_id_hex(id, idlen, hex);
	snprintf(buf, size, "%s/kallsyms-%s-%016" PRIx64, dir, hex, h);
	return 0;
}

/* What the stamp of a checked view holds: the file's device, inode,
 * size and modification time (a rewrite is a new inode: the view is
 * written whole and renamed into place). */
static void
kallsyms_stamp(const struct stat *st, char *buf, size_t size)
{
	snprintf(buf, size, "# pcln checked view 1\n%ju %ju %jd %lld.%09ld\n",
	    (uintmax_t)st->st_dev, (uintmax_t)st->st_ino,
	    (intmax_t)st->st_size, (long long)st->st_mtim.tv_sec,
	    (long)st->st_mtim.tv_nsec);
}

/* The sorted symbols of the cache (a view over the file, mapped into
 * C->kallsyms_map), or NULL (none yet, an older form, or damage: then
 * they are made again).  The view's hash reads all of its 5 MB; once it
 * has held, PATH.ok keeps the file's stamp, and while the file has that
 * stamp it is read unchecked: only the pages its searches touch. */
static pcln_perf_syms *
kallsyms_cached(struct perf_cmd *c)
{
	char path[4096], okpath[4200], want[160], *have;
	uint8_t *buf;
	size_t len, hl = 0;
	pcln_perf_syms *s;
	pcln_err err;
	struct stat st;
	int fd, checked = 0;

	if (kallsyms_name(c, path, sizeof path) < 0 ||
	    (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return NULL;
	buf = MAP_FAILED;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		snprintf(okpath, sizeof okpath, "%s.ok", path);
		kallsyms_stamp(&st, want, sizeof want);
		if ((have = slurp(okpath, &hl)) != NULL) {
			checked = hl == strlen(want) &&
			    memcmp(have, want, hl) == 0;
			free(have);
		}
		buf = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE |
		    (checked ? 0 : MAP_POPULATE), fd, 0);
	}
	close(fd);
	if (buf == MAP_FAILED)
		return NULL;
	len = (size_t)st.st_size;
	s = checked ? pcln_perf_syms_sorted_unchecked((const char *)buf, len,
	    &err) : pcln_perf_syms_sorted((const char *)buf, len, &err);
	if (s == NULL) {
		munmap(buf, len);
		return NULL;
	}
	if (!checked)
		(void)pcln_write_file_atomic(okpath, want, strlen(want), &err);
	c->kallsyms_map = buf;
	c->kallsyms_maplen = len;
	return s;
}

/* Keep the text symbols of S sorted, for the next run (not when every
 * address reads as 0, kernel.kptr_restrict: the caller checks). */
static void
kallsyms_store(struct perf_cmd *c, const pcln_perf_syms *s)
{
	char path[4096], *out;
	size_t n = 0;
	pcln_err err;

	if (kallsyms_name(c, path, sizeof path) < 0 ||
	    (out = pcln_perf_syms_sorted_text(s, &n, &err)) == NULL)
		return;
	(void)pcln_write_file_atomic(path, out, n, &err);
	free(out);
}

static void
load_kallsyms(struct perf_cmd *c)
{
	const char *path = c->kallsyms_path != NULL ? c->kallsyms_path :
	    "/proc/kallsyms";
	size_t len = 0, i;
	char *text;
	pcln_err err;

	if (c->kallsyms_path == NULL) {
		/* A profile from another kernel: its addresses are not this
		 * kernel's, so this kallsyms would name them wrongly. */
		const pcln_perf_info *info = pcln_perf_get_info(c->p);
		uint8_t run[PCLN_PERF_BUILDID_MAX];
		size_t rl = running_kernel_id(run);

		for (i = 0; i < info->nbuildid; i++) {
			const pcln_perf_buildid *b =
			    pcln_perf_get_buildid(c->p, i);

			if (strcmp(b->filename, "[kernel.kallsyms]") != 0)
				continue;
			if (rl > 0 && (b->len != rl ||
			    memcmp(b->id, run, rl) != 0)) {
				c->kernel_mismatch = 1;
				fprintf(stderr, "%s: perf: the profile's kernel "
				    "(build-id in the file) is not the running "
				    "one: kernel frames are not named (give "
				    "that kernel's symbols with --kallsyms)\n",
				    dump_prog);
				return;
			}
		}
		if ((c->kallsyms = kallsyms_cached(c)) != NULL)
			return;
	}
	if ((text = slurp(path, &len)) == NULL) {
		fprintf(stderr, "%s: perf: %s: cannot read: %s: kernel frames "
		    "are not named\n", dump_prog, path, strerror(errno));
		return;
	}
	c->kallsyms = pcln_perf_syms_kallsyms(text, len, &err);
	free(text);
	if (c->kallsyms != NULL && pcln_perf_syms_count(c->kallsyms) > 0 &&
	    pcln_perf_syms_find(c->kallsyms, UINT64_MAX - 1, NULL, NULL) ==
	    NULL && pcln_perf_syms_find(c->kallsyms, 0, NULL, NULL) != NULL) {
		/* kptr_restrict: every address reads as 0. */
		fprintf(stderr, "%s: perf: %s shows no addresses "
		    "(kernel.kptr_restrict): kernel frames are not named\n",
		    dump_prog, path);
		pcln_perf_syms_free(c->kallsyms);
		c->kallsyms = NULL;
	} else if (c->kallsyms != NULL && c->kallsyms_path == NULL)
		kallsyms_store(c, c->kallsyms);
}

/* pclndump perf's text in two threads (dump_perf_two): what they share,
 * under MU.  The samples go in blocks of BLOCK, block N (from 0) the
 * thread N % 2's, written out in turn: TURN is the block whose text goes
 * out next.  The tables (PT, LEAD's) are found once for both: GIVEN
 * keeps what the table function answered for each object.  The kernel's
 * symbols are LEAD's, read once (KS_TRIED) by the first thread that
 * needs them. */
struct given {
	char *path;
	uint8_t id[PCLN_PERF_BUILDID_MAX];
	size_t idlen;
	int rc;
	pcln_perf_table t;
};

struct par {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	unsigned block;
	uint64_t turn;
	int failed;
	struct perf_cmd *lead, *other;	/* the threads' commands */
	int ks_tried;
	struct given *given;
	size_t ngiven, capgiven;
};

/* The kernel's symbols for C: read now (LEAD's, once for both threads),
 * or taken from where the other thread read them. */
static void
need_kallsyms(struct perf_cmd *c)
{
	struct par *pa = c->par;

	if (pa == NULL) {
		load_kallsyms(c);
		c->kallsyms_tried = 1;
		return;
	}
	pthread_mutex_lock(&pa->mu);
	if (!pa->ks_tried) {
		load_kallsyms(pa->lead);
		pa->ks_tried = 1;
	}
	c->kallsyms = pa->lead->kallsyms;
	c->kernel_mismatch = pa->lead->kernel_mismatch;
	c->kallsyms_tried = 1;
	pthread_mutex_unlock(&pa->mu);
}

static const pcln_perf_syms *
perf_map(struct perf_cmd *c, uint32_t pid)
{
	char path[4096];
	size_t i, len = 0;
	char *text;
	struct pmap *m;
	pcln_err err;

	for (i = 0; i < c->npmaps; i++)
		if (c->pmaps[i].pid == pid)
			return c->pmaps[i].syms;
	if (c->npmaps == c->cappmaps) {
		size_t cap = c->cappmaps ? 2 * c->cappmaps : 8;
		struct pmap *v = realloc(c->pmaps, cap * sizeof *v);

		if (v == NULL)
			return NULL;
		c->pmaps = v;
		c->cappmaps = cap;
	}
	m = &c->pmaps[c->npmaps++];
	m->pid = pid;
	m->syms = NULL;
	snprintf(path, sizeof path, "%s/perf-%u.map",
	    c->mapdir != NULL ? c->mapdir : "/tmp", pid);
	if ((text = slurp(path, &len)) != NULL) {
		m->syms = pcln_perf_syms_map(text, len, &err);
		free(text);
	}
	return m->syms;
}

/* --- text ------------------------------------------------------------ */

/* Text is made in growable buffers, written with two fwrites a sample:
 * the printf family costs more than the unwinding.  On no memory the
 * text is cut (BAD; the output is short). */
static int
ob_grow(struct obuf *o, size_t n)
{
	size_t cap = o->cap ? o->cap : 256;
	char *b;

	while (cap - o->len < n)
		cap *= 2;
	if (o->huge != 0) {	/* (not realloc's: moved to malloc's) */
		if ((b = malloc(cap)) == NULL) {
			o->bad = 1;
			return -1;
		}
		memcpy(b, o->b, o->len);
		if (o->huge != OB_SLICE)
			pcln_huge_free(o->b, o->huge);
		o->huge = 0;
	} else if ((b = realloc(o->b, cap)) == NULL) {
		o->bad = 1;
		return -1;
	}
	o->b = b;
	o->cap = cap;
	return 0;
}

static void
ob_free(struct obuf *o)
{
	if (o->huge == OB_SLICE)
		;
	else if (o->huge != 0)
		pcln_huge_free(o->b, o->huge);
	else
		free(o->b);
	o->b = NULL;
	o->huge = 0;
}

static inline int
ob_room(struct obuf *o, size_t n)
{
	return o->cap - o->len >= n ? 0 : ob_grow(o, n);
}

static inline void
ob_mem(struct obuf *o, const char *str, size_t n)
{
	if (ob_room(o, n) == 0) {
		memcpy(o->b + o->len, str, n);
		o->len += n;
	}
}

#define ob_str(o, s)	ob_mem((o), (s), strlen(s))

static const char dec2[] =
    "0001020304050607080910111213141516171819"
    "2021222324252627282930313233343536373839"
    "4041424344454647484950515253545556575859"
    "6061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

/* V in decimal (HEX 0) or hex, right-aligned in WIDTH (at most 20) with
 * PAD: two digits a step, constant divisors (a division by a variable
 * base costs more than a frame's unwinding). */
static void
ob_num(struct obuf *o, uint64_t v, int hex, int width, char pad)
{
	static const char hex2[] =
	    "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
	    "202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
	    "404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f"
	    "606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f"
	    "808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"
	    "a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf"
	    "c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf"
	    "e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";
	/* (the digits end at E, 24 bytes in; 24 bytes from Q are copied,
	 * in one move rather than a call with N) */
	char d[48], *e = d + 24, *q = e;
	size_t n;

	if (hex) {
		for (; v >= 0x100; v >>= 8)
			memcpy(q -= 2, hex2 + 2 * (v & 0xff), 2);
		memcpy(q -= 2, hex2 + 2 * v, 2);
		if (v < 0x10)
			q++;
	} else {
		for (; v >= 100; v /= 100)
			memcpy(q -= 2, dec2 + 2 * (v % 100), 2);
		memcpy(q -= 2, dec2 + 2 * v, 2);
		if (v < 10)
			q++;
	}
	n = (size_t)(e - q);
	if (ob_room(o, ((size_t)width > n ? (size_t)width : n) + 24) < 0)
		return;
	for (; (size_t)width > n; width--)
		o->b[o->len++] = pad;
	memcpy(o->b + o->len, q, 24);
	o->len += n;
}

/* Frame I of the sample as perf script prints it:
 * "\t%16x NAME+0xOFF (DSO)\n", "\t%16x NAME (inlined)\n". */
static void
format_frame(struct perf_cmd *c, struct obuf *o, size_t i)
{
	const struct oframe *f = &c->of[i];

	ob_mem(o, "\t", 1);
	ob_num(o, c->ofpc[i], 1, 16, ' ');
	ob_mem(o, " ", 1);
	if (f->kind == FK_INLINE) {
		ob_str(o, f->name);
		ob_str(o, " (inlined)\n");
		return;
	}
	if (f->kind == FK_UNKNOWN)
		ob_str(o, "[unknown]");
	else {
		ob_str(o, f->name);
		ob_str(o, "+0x");
		ob_num(o, c->ofoff[i], 1, 0, ' ');
	}
	ob_str(o, " (");
	ob_str(o, c->ofdso[i] != NULL ? c->ofdso[i] : "[unknown]");
	ob_str(o, ")\n");
}

/* --- pieces of text ------------------------------------------------- */

/* A memo's text as long as this is written from where the memo keeps it
 * (writev), not copied into C->fb: a sample's callers as text are some
 * 4 KB in bench/perf.sh's profiles, and the copies were an eighth of
 * pclndump's time.  Shorter ones are copied (a piece costs a write's
 * iovec). */
#define REF_MIN		256

/* The round the text made now goes out in: a memo's text written in it
 * has its USED set to this. */
#define ROUND(c)	((c)->epoch + 1)

/* A memo lets go of BUF, a text of this round: freed once the round is
 * out.  (For want of memory it is not freed at all.) */
static void
let_go(struct perf_cmd *c, void *buf)
{
	if (c->ndead == c->capdead) {
		size_t cap = c->capdead ? 2 * c->capdead : 64;
		void **v = realloc(c->dead, cap * sizeof *v);

		if (v == NULL)
			return;
		c->dead = v;
		c->capdead = cap;
	}
	c->dead[c->ndead++] = buf;
}

/* N bytes of a memo's text at P go out next: as a piece of their own
 * (1: the memo keeps them as they are until the round is out), or
 * copied into C->fb (0). */
static int
ob_ref(struct perf_cmd *c, const char *p, size_t n)
{
	if (n < REF_MIN || c->norefs || c->oneline || c->fb.bad) {
		ob_mem(&c->fb, p, n);
		return 0;
	}
	if (c->npieces + 2 > c->cappieces) {
		size_t cap = c->cappieces ? 2 * c->cappieces : 1024;
		struct opiece *v = realloc(c->pieces, cap * sizeof *v);

		if (v == NULL) {
			ob_mem(&c->fb, p, n);
			return 0;
		}
		c->pieces = v;
		c->cappieces = cap;
	}
	if (c->fb.len > c->fbmark) {
		c->pieces[c->npieces].p = NULL;
		c->pieces[c->npieces].off = c->fbmark;
		c->pieces[c->npieces++].len = c->fb.len - c->fbmark;
	}
	c->pieces[c->npieces].p = p;
	c->pieces[c->npieces].off = 0;
	c->pieces[c->npieces++].len = n;
	c->fbmark = c->fb.len;
	c->refs += n;
	return 1;
}

/* Room for N bytes of text in the memo's entry S (its text emptied):
 * what it has if that is enough, else a piece of the rest of the
 * memo's huge region, else malloc's.  0, or -1 for want of memory.  A
 * few thousand small texts from malloc would fault its heap in page by
 * page (11-17 us a page on the guests measured), and grown by realloc
 * twice more. */
static int
symo_text_room(struct perf_cmd *c, struct symo *s, size_t n)
{
	size_t r = (n + 63) & ~(size_t)63;
	char *b;

	/* (a text that goes out in this round is let go: a slice of the
	 * region lives as long as the region) */
	if (s->used == ROUND(c) && s->text.b != NULL) {
		if (s->text.huge != OB_SLICE)
			let_go(c, s->text.b);
		s->text.b = NULL;
		s->text.cap = 0;
		s->text.huge = 0;
	}
	s->used = 0;
	s->text.len = 0;
	if (n <= s->text.cap)
		return 0;
	if ((size_t)(c->tslice_end - c->tslice) >= r) {
		b = c->tslice;
		c->tslice += r;
		ob_free(&s->text);
		s->text.huge = OB_SLICE;
	} else {
		if ((b = malloc(r)) == NULL)
			return -1;
		ob_free(&s->text);
	}
	s->text.b = b;
	s->text.cap = r;
	return 0;
}

/* The text of frames C->of[FIRST..] (one user frame FR and its inlined
 * calls) into C->fb: from S, which keeps it for FR's pc and object (made
 * now if it has none, from the text written: made once for each pc,
 * copied for each sample), or made here if S is NULL. */
static void
frame_text(struct perf_cmd *c, struct symo *s, const pcln_perf_frame *fr,
    size_t first)
{
	size_t k, at = c->fb.len;
	int bad = c->fb.bad;

	if (s != NULL && s->textok && s->rpc == fr->lookup &&
	    s->object == fr->object) {
		if (ob_ref(c, s->text.b, s->text.len))
			s->used = ROUND(c);
		return;
	}
	for (k = first; k < c->nof; k++)
		format_frame(c, &c->fb, k);
	if (s == NULL)
		return;
	s->textok = 0;
	if (!bad && !c->fb.bad &&
	    symo_text_room(c, s, c->fb.len - at) == 0) {
		memcpy(s->text.b, c->fb.b + at, c->fb.len - at);
		s->text.len = c->fb.len - at;
		s->rpc = fr->lookup;
		s->object = fr->object;
		s->textok = 1;
	}
}

/* --- frames ---------------------------------------------------------- */

/* NAME demangled as perf script (and addr2line -C) print it, once per
 * distinct name: NAME itself if it does not demangle, or on no memory. */
static const char *
demangled(struct perf_cmd *c, const char *name)
{
	size_t mask, i;
	char *d;

	if (c->no_demangle || name[0] != '_')
		return name;
	if (2 * (c->ndem + 1) > c->capdem) {
		size_t ncap = c->capdem ? 2 * c->capdem : 1024, j;
		struct dem *nv = calloc(ncap, sizeof *nv);

		if (nv == NULL)
			return name;
		for (j = 0; j < c->capdem; j++) {
			if (c->dem[j].name == NULL)
				continue;
			i = ((uintptr_t)c->dem[j].name >> 3) & (ncap - 1);
			while (nv[i].name != NULL)
				i = (i + 1) & (ncap - 1);
			nv[i] = c->dem[j];
		}
		free(c->dem);
		c->dem = nv;
		c->capdem = ncap;
	}
	mask = c->capdem - 1;
	for (i = ((uintptr_t)name >> 3) & mask; c->dem[i].name != NULL;
	    i = (i + 1) & mask)
		if (c->dem[i].name == name)
			return c->dem[i].out;
	d = dump_demangle(name);
	c->dem[i].name = name;
	c->dem[i].out = d != NULL ? d : name;
	c->dem[i].own = d;
	c->ndem++;
	return c->dem[i].out;
}

static void
push(struct perf_cmd *c, const char *name, int kind, const char *file,
    int32_t line, uint64_t pc, uint64_t off, const char *dso)
{
	struct oframe *o;

	if (c->nof >= MAX_OUT)
		return;
	o = &c->of[c->nof];
	o->name = name;
	o->kind = kind;
	o->file = file;
	o->line = line;
	c->ofpc[c->nof] = pc;
	c->ofoff[c->nof] = off;
	c->ofdso[c->nof] = dso;
	c->nof++;
	if (c->fl == NULL && !c->defer)
		format_frame(c, &c->fb, c->nof - 1);
}

/* Symbolize F at link-time pc LINK into *S: file, line and inlined
 * calls (at most MAX, innermost first, names demangled). */
static void
symbolize(struct perf_cmd *c, const pclnrt_func *f, uint64_t link,
    struct symo *s, pclnrt_inlcall *calls, size_t max)
{
	size_t n = 0, i;

	/* A function without a name (a table made from .eh_frame has
	 * one for each FDE no symbol names) is perf's "[unknown]". */
	const char *name = c->symnames ? pclnrt_symname(f) : f->name;

	s->fname = name != NULL && name[0] != '\0' ?
	    demangled(c, name) : NULL;
	s->file = NULL;
	s->line = 0;
	(void)pclnrt_funcline_cached(f, link, &s->file, &s->line, &c->cache);
	if (!c->no_inline)
		(void)pclnrt_inline(f, link, calls, max, &n);
	for (i = 0; i < n; i++)
		if (calls[i].name != NULL)
			calls[i].name = demangled(c, calls[i].name);
	s->n = (uint32_t)n;
}

static void
kernel_frame(struct perf_cmd *c, uint64_t pc)
{
	const char *name = NULL, *mod = NULL;
	uint64_t start = 0;
	struct kmemo *k = NULL;
	size_t at;

	if (c->no_kernel)
		return;
	if (!c->kallsyms_tried)
		need_kallsyms(c);
	c->st.frames_kernel++;
	if (c->kallsyms != NULL) {
		/* The same kernel pcs come back (interrupt returns, the
		 * system calls of a loop): found, and as text formatted,
		 * once while in their slot. */
		k = &c->kmemo[(pc * UINT64_C(0x9e3779b97f4a7c15)) >> 32 &
		    (NKMEMO - 1)];
		if (k->ok && k->pc == pc) {
			name = k->name;
			start = k->start;
			mod = k->mod;
			if (k->text != NULL && c->fl == NULL &&
			    c->nof < MAX_OUT) {
				ob_mem(&c->fb, k->text, k->tlen);
				c->nof++;
				c->st.frames_kernel_unknown += name == NULL;
				return;
			}
		} else {
			name = pcln_perf_syms_find(c->kallsyms, pc, &start,
			    &mod);
			k->ok = 1;
			k->pc = pc;
			k->name = name;
			k->start = start;
			k->mod = mod;
			free(k->text);
			k->text = NULL;
		}
	}
	at = c->fb.len;
	if (name == NULL) {
		c->st.frames_kernel_unknown++;
		push(c, "[unknown]", FK_UNKNOWN, NULL, 0, pc, 0,
		    "[kernel.kallsyms]");
	} else
		push(c, name, FK_KERNEL, NULL, 0, pc, pc - start,
		    mod != NULL ? mod : "[kernel.kallsyms]");
	/* The line push just made (text output; none past MAX_OUT). */
	if (k != NULL && c->fl == NULL && !c->fb.bad && c->fb.len > at &&
	    (k->text = malloc(c->fb.len - at)) != NULL) {
		size_t i = (size_t)(k - c->kmemo);

		memcpy(k->text, c->fb.b + at, c->fb.len - at);
		k->tlen = c->fb.len - at;
		c->kused[i / 64] |= (uint64_t)1 << i % 64;
	}
}

/* A user frame (from the unwinder or a call chain), with its inlined
 * calls before it. */
/* Where S keeps its N inlined calls: in the slot, or (more) in EXT,
 * grown to N; NULL for want of memory (S is then not remembered). */
static struct symcall *
symo_calls(struct symo *s)
{
	struct symcall *e;

	if (s->n <= SYMO_CALLS)
		return s->call;
	if (s->n > s->extcap) {
		if ((e = realloc(s->ext, s->n * sizeof *e)) == NULL)
			return NULL;
		s->ext = e;
		s->extcap = s->n;
	}
	return s->ext;
}

/* The memo's entry of the slot of (T, LINK), made empty if the slot had
 * none; NULL for want of memory. */
static struct symo *
symo_slot(struct perf_cmd *c, uint64_t link, const pclnrt_table *t)
{
	size_t k = ((link ^ (uintptr_t)t >> 4) *
	    UINT64_C(0x9e3779b97f4a7c15)) >> 32 & c->symmask;

	if (c->symidx[k] == 0) {
		if (c->nsymo == c->capsymo) {
			size_t cap = c->capsymo ? 2 * c->capsymo : 1024;
			struct symo *v;

			/* All NSYMS at once (1.1 MB) and the rest of
			 * SYMO_REGION for their texts, in one huge page
			 * where the kernel has one (pcln_huge_alloc), or
			 * grown.  (In 1.9 MB, less than a huge page, in
			 * small pages of their own: 140 faults on the
			 * short bench profile, 1.4 ms on the guest of
			 * 2026-12-07 afternoon, where a huge page's first
			 * touch took 0.12 to 0.23 ms.) */
			if (c->capsymo == 0 && (v = pcln_huge_alloc(SYMO_REGION,
			    &c->symhuge)) != NULL) {
				cap = NSYMS;
				c->tslice = (char *)(v + NSYMS);
				c->tslice_end = (char *)v + c->symhuge;
			}
			else if (c->symhuge != 0)	/* (never: NSYMS) */
				return NULL;
			else if ((v = realloc(c->syms, cap * sizeof *v)) ==
			    NULL)
				return NULL;
			c->syms = v;
			c->capsymo = cap;
		}
		memset(&c->syms[c->nsymo], 0, sizeof *c->syms);
		c->symidx[k] = (uint32_t)++c->nsymo;
	}
	return &c->syms[c->symidx[k] - 1];
}

static void
user_frame(struct perf_cmd *c, uint32_t pid, const pcln_perf_frame *fr)
{
	c->st.frames_where[fr->where]++;
	if (fr->where == PCLN_PERF_IN_TABLE) {
		pclnrt_inlcall calls[MAX_INLINE];
		uint64_t link = fr->lookup - fr->bias;
		/* (the memo's key: a pc named by its symbol table is
		 * another entry) */
		uint64_t key = link ^ (uint64_t)(c->symnames != 0) << 63;
		/* As perf script prints a return address: the call's
		 * address (pc - 1), its offset from there. */
		uint64_t off = fr->lookup - (fr->func.entry + fr->bias);
		struct symo one, *s = &one;
		struct symcall *sc;
		const char *file;
		int32_t line;
		size_t i, first = c->nof;

		/* A profile names the same pcs sample after sample: each
		 * (table, pc) is symbolized once while it stays in its
		 * slot. */
		if ((s = symo_slot(c, key, fr->func.t)) == NULL) {
			s = &one;	/* (no memory: not remembered) */
			symbolize(c, &fr->func, link, s, calls, MAX_INLINE);
		} else {
			/* As text, the lines are all there is to add (the
			 * frames themselves are read by flame graphs only). */
			if (c->fl == NULL && s->t == fr->func.t &&
			    s->pc == key && s->textok &&
			    s->rpc == fr->lookup && s->object == fr->object &&
			    c->nof + s->n + 1 <= MAX_OUT) {
				if (ob_ref(c, s->text.b, s->text.len))
					s->used = ROUND(c);
				c->nof += s->n + 1;
				c->st.frames_inline += s->n;
				return;
			}
			if (s->t != fr->func.t || s->pc != key) {
				s->t = NULL;
				s->textok = 0;
				symbolize(c, &fr->func, link, s, calls,
				    MAX_INLINE);
				if ((sc = symo_calls(s)) != NULL) {
					for (i = 0; i < s->n; i++) {
						sc[i].name = calls[i].name;
						sc[i].file = calls[i].file;
						sc[i].line = calls[i].line;
					}
					s->t = fr->func.t;
					s->pc = key;
				}
			} else {
				sc = s->n <= SYMO_CALLS ? s->call : s->ext;
				for (i = 0; i < s->n; i++) {
					calls[i].name = sc[i].name;
					calls[i].file = sc[i].file;
					calls[i].line = sc[i].line;
				}
			}
		}
		file = s->file;
		line = s->line;
		c->defer = 1;	/* the lines are made below, at once */
		for (i = 0; i < s->n; i++) {
			push(c, calls[i].name != NULL ? calls[i].name :
			    "[unknown]", FK_INLINE, file, line, fr->lookup, off,
			    NULL);
			file = calls[i].file;
			line = calls[i].line;
			c->st.frames_inline++;
		}
		push(c, s->fname != NULL ? s->fname : "[unknown]",
		    s->fname != NULL ? FK_USER : FK_UNKNOWN, file, line,
		    fr->lookup, off, fr->object);
		c->defer = 0;
		if (c->fl == NULL)
			frame_text(c, s != &one && s->t != NULL &&
			    c->nof - first == s->n + 1 ? s : NULL, fr, first);
		return;
	}
	if (fr->where == PCLN_PERF_IN_STUB) {
		push(c, demangled(c, fr->name), FK_USER, NULL, 0, fr->lookup,
		    0, fr->object);
		return;
	}
	if (fr->where != PCLN_PERF_IN_TABLE) {
		const pcln_perf_syms *m = perf_map(c, pid);
		uint64_t start;
		const char *name;

		if (m != NULL && (name = pcln_perf_syms_find(m, fr->lookup,
		    &start, NULL)) != NULL) {
			c->st.frames_jit++;
			push(c, name, FK_JIT, NULL, 0, fr->lookup,
			    fr->lookup - start, "JIT");
			return;
		}
	}
	push(c, "[unknown]", FK_UNKNOWN, NULL, 0, fr->lookup, 0,
	    fr->object != NULL ? fr->object : "[unknown]");
}

/* The user frames of a sample, as text: a profile's samples are
 * mostly stacks of callers seen before (the 48,765 samples of
 * bench/perf.sh's long profile have 69), and the text of those frames,
 * made once, is one copy, where each frame is a lookup in the memo and
 * a copy (some 110 instructions a frame, 800 a sample).  Kept by the
 * frames' (pc, object, bias, kind) and the process (a JIT frame's name
 * is its own), in NSTACKS slots; with the counts its frames added. */
struct stackkey {
	uint64_t look, bias;
	const char *object;
	uint64_t where;
};

struct stackmemo {
	uint64_t h;
	uint32_t pid, n;		/* N frames; 0: empty */
	size_t nof;			/* the frames printed */
	uint64_t where[6], inl, jit;	/* what they add to C->st */
	struct stackkey *key;		/* N, then the text */
	size_t textlen, cap;		/* bytes at KEY */
	uint64_t used;			/* the round it was written in */
};

static uint64_t
stack_hash(uint32_t pid, const pcln_perf_frame *fr, size_t n)
{
	uint64_t h = pid * UINT64_C(0x9e3779b97f4a7c15) + n;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ fr[i].lookup ^ (uint64_t)(uintptr_t)fr[i].object) *
		    UINT64_C(0xff51afd7ed558ccd);
	return h ^ h >> 29;
}

static int
stack_same(const struct stackmemo *m, uint32_t pid,
    const pcln_perf_frame *fr, size_t n, uint64_t h)
{
	size_t i;

	if (m->h != h || m->n != n || m->pid != pid)
		return 0;
	for (i = 0; i < n; i++)
		if (m->key[i].look != fr[i].lookup ||
		    m->key[i].object != fr[i].object ||
		    m->key[i].bias != fr[i].bias ||
		    m->key[i].where != (uint64_t)fr[i].where)
			return 0;
	return 1;
}

static void
user_frames(struct perf_cmd *c, uint32_t pid, const pcln_perf_frame *fr,
    size_t n)
{
	struct stackmemo *m = NULL;
	uint64_t h = 0, where[6], inl, jit;
	size_t i, at, nof, len;

	/* The frame sampled first: its pcs are many, and a memo of whole
	 * stacks would be too (1,359 in that profile, 2.7 MB of text that
	 * no cache holds); its callers' stacks are few (69). */
	if (n > 0) {
		user_frame(c, pid, fr);
		fr++;
		n--;
	}
	if (c->fl == NULL && n > 0 && c->stacks == NULL)
		c->stacks = calloc(c->stackmask + 1, sizeof *c->stacks);
	if (c->fl == NULL && n > 0 && c->stacks != NULL) {
		h = stack_hash(pid, fr, n);
		m = &c->stacks[h & c->stackmask];
		if (stack_same(m, pid, fr, n, h) &&
		    c->nof + m->nof < MAX_OUT) {
			if (ob_ref(c, (const char *)(m->key + n),
			    m->textlen))
				m->used = ROUND(c);
			c->nof += m->nof;
			for (i = 0; i < 6; i++)
				c->st.frames_where[i] += m->where[i];
			c->st.frames_inline += m->inl;
			c->st.frames_jit += m->jit;
			return;
		}
	}
	at = c->fb.len;
	nof = c->nof;
	memcpy(where, c->st.frames_where, sizeof where);
	inl = c->st.frames_inline;
	jit = c->st.frames_jit;
	/* (the text to keep made in C->fb, whole) */
	c->norefs += m != NULL;
	for (i = 0; i < n; i++)
		user_frame(c, pid, &fr[i]);
	c->norefs -= m != NULL;
	/* Kept, where the text is whole (not cut at MAX_OUT, or for want
	 * of memory). */
	if (m == NULL || c->nof >= MAX_OUT || c->fb.bad)
		return;
	if (m->used == ROUND(c) && m->key != NULL) {
		let_go(c, m->key);
		m->key = NULL;
		m->cap = 0;
	}
	m->used = 0;
	len = n * sizeof *m->key + (c->fb.len - at);
	if (len > m->cap) {
		struct stackkey *k = realloc(m->key, len);

		if (k == NULL) {
			m->n = 0;
			return;
		}
		m->key = k;
		m->cap = len;
	}
	for (i = 0; i < n; i++) {
		m->key[i].look = fr[i].lookup;
		m->key[i].bias = fr[i].bias;
		m->key[i].object = fr[i].object;
		m->key[i].where = (uint64_t)fr[i].where;
	}
	m->textlen = c->fb.len - at;
	memcpy(m->key + n, c->fb.b + at, m->textlen);
	m->h = h;
	m->pid = pid;
	m->n = (uint32_t)n;
	m->nof = c->nof - nof;
	for (i = 0; i < 6; i++)
		m->where[i] = c->st.frames_where[i] - where[i];
	m->inl = c->st.frames_inline - inl;
	m->jit = c->st.frames_jit - jit;
}

/* --- one sample ------------------------------------------------------ */

/* A sample's time as perf script prints it, "SECS.USECS" (SECS
 * right-aligned in 5), into C->fb: the seconds are those of the sample
 * before, as a rule, made once; the microseconds three pairs of digits
 * (two calls of ob_num took 190 instructions a sample). */
static void
ob_time(struct perf_cmd *c, uint64_t t)
{
	uint64_t secs = t / 1000000000u, v;
	uint32_t us = (uint32_t)(t % 1000000000u / 1000u);
	char *b;

	if (c->hd_secslen == 0 || secs != c->hd_secs) {
		char d[20];
		size_t n = 0, len = 0;

		v = secs;
		do
			d[n++] = (char)('0' + v % 10);
		while ((v /= 10) != 0);
		while (n + len < 5)
			c->hd_secstxt[len++] = ' ';
		while (n > 0)
			c->hd_secstxt[len++] = d[--n];
		c->hd_secstxt[len++] = '.';
		c->hd_secslen = len;
		c->hd_secs = secs;
	}
	/* (room for the whole of HD_SECSTXT, copied in one move) */
	if (ob_room(&c->fb, sizeof c->hd_secstxt + 6) < 0)
		return;
	b = c->fb.b + c->fb.len;
	memcpy(b, c->hd_secstxt, sizeof c->hd_secstxt);
	b += c->hd_secslen;
	memcpy(b, dec2 + 2 * (us / 10000), 2);
	memcpy(b + 2, dec2 + 2 * (us / 100 % 100), 2);
	memcpy(b + 4, dec2 + 2 * (us % 100), 2);
	c->fb.len += c->hd_secslen + 6;
}

/* As perf script prints it: "COMM TID [CPU] SECS.USECS: PERIOD EVENT: "
 * ("[CPU] " where the samples record it) into
 * C->fb, before the sample's frames add their lines. */
static void
sample_header(struct perf_cmd *c, const pcln_perf_event *ev,
    const char *comm)
{
	uint64_t period = ev->u.sample.period;
	const char *event = c->evname;
	size_t i;

	/* Without PERIOD in the samples the period is the attribute's
	 * (perf record -c N). */
	if (ev->attr != NULL && !(ev->attr->sample_type &
	    PCLN_PERF_SAMPLE_PERIOD) && !ev->attr->freq)
		period = ev->attr->sample_period;
	/* "COMM   TID " and ": PERIOD EVENT: \n" are those of the sample
	 * before, as a rule: made again only when they change. */
	if (c->hd_tid != ev->tid || c->hd_comm != comm ||
	    c->hd_oneline != c->oneline || c->hd_pre.len == 0) {
		c->hd_pre.len = 0;
		for (i = c->oneline ? strlen(comm) : 16; i < 16; i++)
			ob_mem(&c->hd_pre, " ", 1);
		ob_str(&c->hd_pre, comm);
		ob_mem(&c->hd_pre, " ", 1);
		ob_num(&c->hd_pre, ev->tid, 0, 5, ' ');
		ob_mem(&c->hd_pre, " ", 1);
		c->hd_tid = ev->tid;
		c->hd_comm = comm;
		c->hd_oneline = c->oneline;
		c->fb.bad |= c->hd_pre.bad;
	}
	/* The sample's own event: its attribute's (one of the file's
	 * attributes, pcln_perf_get_attr's array). */
	if (c->nevnames > 0 && ev->attr != NULL) {
		const pcln_perf_attr *a0 = pcln_perf_get_attr(c->p, 0);

		if (ev->attr >= a0 && (size_t)(ev->attr - a0) < c->nevnames)
			event = c->evnames[ev->attr - a0];
	}
	if (c->hd_period != period || c->hd_event != event ||
	    c->hd_post.len == 0) {
		const pcln_perf_attr *a = ev->attr != NULL ? ev->attr :
		    pcln_perf_get_attr(c->p, 0);

		c->hd_post.len = 0;
		ob_mem(&c->hd_post, ": ", 2);
		/* A tracepoint's line has no period (perf script's fields
		 * for them): its fields instead, below. */
		if (a == NULL || a->type != PERF_TYPE_TRACEPOINT) {
			ob_num(&c->hd_post, period, 0, 10, ' ');
			ob_mem(&c->hd_post, " ", 1);
		}
		/* Right-aligned to the longest event name, as perf
		 * script's "%*s: ". */
		for (i = strlen(event); i < c->evwidth; i++)
			ob_mem(&c->hd_post, " ", 1);
		ob_str(&c->hd_post, event);
		ob_mem(&c->hd_post, ": \n", 3);
		c->hd_period = period;
		c->hd_event = event;
		c->fb.bad |= c->hd_post.bad;
	}
	ob_mem(&c->fb, c->hd_pre.b, c->hd_pre.len);
	/* A profile that records the cpu (perf record -a) shows it,
	 * "[001] ". */
	if (ev->has_cpu) {
		ob_mem(&c->fb, "[", 1);
		ob_num(&c->fb, ev->cpu, 0, 3, '0');
		ob_mem(&c->fb, "] ", 2);
	}
	ob_time(c, ev->time);
	if (c->trace != NULL && ev->u.sample.raw != NULL) {
		const pcln_perf_attr *a = ev->attr != NULL ? ev->attr :
		    pcln_perf_get_attr(c->p, 0);
		const char *info = a != NULL && a->type ==
		    PERF_TYPE_TRACEPOINT ? dump_trace_info(c->trace,
		    a->config, ev->cpu, ev->u.sample.raw,
		    ev->u.sample.raw_size) : NULL;

		/* "EVENT: " and its fields, as perf script prints them. */
		if (info != NULL) {
			ob_mem(&c->fb, c->hd_post.b, c->hd_post.len - 1);
			ob_str(&c->fb, info);
			ob_mem(&c->fb, "\n", 1);
			return;
		}
	}
	ob_mem(&c->fb, c->hd_post.b, c->hd_post.len);
}

/* IOV of N pieces to the output (what a write error leaves: C->werr). */
static void
write_pieces(struct perf_cmd *c, struct iovec *iov, int n)
{
	ssize_t w;

	while (c->werr == 0 && n > 0) {
		if ((w = writev(fileno(c->out), iov, n)) < 0) {
			if (errno != EINTR)
				c->werr = errno;
			continue;
		}
		for (; n > 0 && (size_t)w >= iov->iov_len; iov++, n--)
			w -= (ssize_t)iov->iov_len;
		if (n > 0) {
			iov->iov_base = (char *)iov->iov_base + w;
			iov->iov_len -= (size_t)w;
		}
	}
}

/* The text made so far to the output (C->fb's and the memos' pieces,
 * ob_ref), in rounds of OUT_CHUNK bytes or more (written straight, not
 * copied into stdio's buffer), or all of it (ALL).  The memos' texts
 * let go in the round are freed.  -1 if some of it was cut for want of
 * memory. */
#define OUT_CHUNK	((size_t)1 << 18)
#define OUT_IOV		256
static int
flush_text(struct perf_cmd *c, int all)
{
	struct iovec iov[OUT_IOV];
	size_t i;
	int n = 0;

	if (c->fb.len + c->refs < OUT_CHUNK && !(all && c->fb.len +
	    c->refs > 0))
		return c->fb.bad ? -1 : 0;
	if (c->werr == 0 && fflush(c->out) != 0)
		c->werr = errno != 0 ? errno : EIO;
	/* The pieces, then the rest of C->fb. */
	for (i = 0; i <= c->npieces; i++) {
		const struct opiece *pc = &c->pieces[i];

		if (i == c->npieces && c->fb.len == c->fbmark)
			break;
		if (n == OUT_IOV) {
			write_pieces(c, iov, n);
			n = 0;
		}
		if (i == c->npieces) {
			iov[n].iov_base = c->fb.b + c->fbmark;
			iov[n++].iov_len = c->fb.len - c->fbmark;
		} else {
			iov[n].iov_base = pc->p != NULL ? (char *)(uintptr_t)
			    pc->p : c->fb.b + pc->off;
			iov[n++].iov_len = pc->len;
		}
	}
	write_pieces(c, iov, n);
	c->fb.len = c->fbmark = 0;
	c->npieces = 0;
	c->refs = 0;
	c->epoch++;
	for (i = 0; i < c->ndead; i++)
		free(c->dead[i]);
	c->ndead = 0;
	return c->fb.bad ? -1 : 0;
}

/* The sample's text from C->fb.b + START (its header line, its frames'
 * lines) made one line, as perf script prints a sample without a call
 * chain: the header, " ", and its last frame line (the pc's function,
 * not its inlined calls) without its tab; a tracepoint's header alone.
 * No blank line follows it. */
static void
one_line(struct perf_cmd *c, size_t start, int tracepoint)
{
	char *b = (char *)c->fb.b;
	char *h = memchr(b + start, '\n', c->fb.len - start);
	size_t hl, last, n;

	if (h == NULL)
		return;
	hl = (size_t)(h - (b + start));
	if (tracepoint || start + hl + 1 == c->fb.len) {
		c->fb.len = start + hl + 1;
		return;
	}
	/* The last frame line: [LAST, len), a tab first, a newline last. */
	for (last = c->fb.len - 1; last > start + hl + 1 &&
	    b[last - 1] != '\n'; last--)
		;
	n = c->fb.len - (last + 1);	/* after the tab, with the newline */
	b[start + hl] = ' ';
	memmove(b + start + hl + 1, b + last + 1, n);
	c->fb.len = start + hl + 1 + n;
}

static int
do_sample(struct perf_cmd *c, const pcln_perf_event *ev)
{
	const pcln_perf_attr *a = ev->attr;
	unsigned mode = ev->misc & PCLN_PERF_MISC_CPUMODE_MASK;
	int has_regs = ev->u.sample.regs_abi != 0 &&
	    ev->u.sample.regs != NULL;
	int dwarf = a != NULL && (a->sample_type &
	    PCLN_PERF_SAMPLE_STACK_USER) && (a->sample_type &
	    PCLN_PERF_SAMPLE_REGS_USER);
	uint64_t ctx = 0, e;
	size_t i, nuser_chain = 0, start;
	int first_user = 1, have_chain = ev->u.sample.callchain != NULL;
	const char *comm;

	c->st.samples++;
	c->nof = 0;
	comm = pcln_perf_comm(c->space, ev->pid, ev->tid);
	if (comm == NULL)
		comm = ev->pid == 0 ? "swapper" : ":unknown";
	/* Without call chains (perf record without -g or --call-graph),
	 * perf script prints a sample on one line: its pc's function
	 * after the header (no inlined calls), the command right-aligned
	 * in 16 columns; a tracepoint's no pc at all. */
	c->oneline = a != NULL && !(a->sample_type &
	    PCLN_PERF_SAMPLE_CALLCHAIN);
	start = c->fb.len;
	/* The text is made in place: the header, then each frame's lines
	 * as it is named. */
	if (c->fl == NULL)
		sample_header(c, ev, comm);
	/* The call chain: kernel entries, and in -g mode the user ones. */
	if (have_chain) {
		for (i = 0; i < ev->u.sample.nr; i++) {
			e = pcln_perf_callchain(c->p, ev, i);
			if (e >= PCLN_PERF_CONTEXT_MAX) {
				ctx = e;
				continue;
			}
			if (ctx == PCLN_PERF_CONTEXT_KERNEL)
				kernel_frame(c, e);
			else if (ctx == PCLN_PERF_CONTEXT_USER && !dwarf) {
				pcln_perf_frame fr;

				(void)pcln_perf_resolve(c->space, ev->pid, e,
				    !first_user, &fr);
				first_user = 0;
				nuser_chain++;
				c->symnames = 1;
				user_frame(c, ev->pid, &fr);
			}
		}
	} else if (mode == PCLN_PERF_MISC_KERNEL)
		kernel_frame(c, ev->u.sample.ip);
	if (dwarf && has_regs) {
		int stop;
		size_t n = pcln_perf_unwind(c->space, c->p, ev, c->uf,
		    MAX_USER, &stop);

		c->st.stops[stop]++;
		if (stop == PCLNRT_STOP_READ)
			c->st.truncated_stack++;
		if (n > 0)
			c->st.user_unwound++;
		c->symnames = c->no_inline;
		user_frames(c, ev->pid, c->uf, n);
	} else if (dwarf) {
		/* A kernel thread or a sample taken where the kernel kept
		 * no user registers. */
		c->st.noregs++;
		if (c->nof == 0)
			c->st.kernel_only++;
	} else if (nuser_chain > 0)
		c->st.user_fp++;
	else if (!have_chain && mode == PCLN_PERF_MISC_USER) {
		pcln_perf_frame fr;

		(void)pcln_perf_resolve(c->space, ev->pid, ev->u.sample.ip, 0,
		    &fr);
		c->symnames = 1;
		user_frame(c, ev->pid, &fr);
		c->st.user_ip_only++;
	} else if (c->nof > 0)
		c->st.kernel_only++;
	c->st.frames_total += c->nof;
	if (c->fl != NULL) {
		/* Outermost first, the process at the root. */
		struct oframe rev[MAX_OUT + 1];
		size_t n = 0;

		size_t top = c->nof;

		/* The garbage a walk ends in (perf script prints it as
		 * [unknown] frames too) is no frame of a flame graph. */
		while (top > 0 && c->of[top - 1].kind == FK_UNKNOWN)
			top--;
		rev[n].name = comm;
		rev[n].kind = FK_ROOT;
		rev[n].file = NULL;
		rev[n++].line = 0;
		for (i = top; i > 0; i--)
			rev[n++] = c->of[i - 1];
		/* (the sample's place in the profile: two threads' graphs
		 * merge as one thread's) */
		flame_seq(c->fl, pcln_perf_samples_met(c->p));
		if (flame_add(c->fl, rev, n, 1) < 0) {
			dump_error("perf: out of memory");
			return DUMP_EXIT_IO;
		}
	} else {
		if (c->oneline && !c->fb.bad)
			one_line(c, start, a != NULL && a->type ==
			    PERF_TYPE_TRACEPOINT);
		else
			ob_mem(&c->fb, "\n", 1);
		/* (two threads: written out by blocks, in turn) */
		if (c->par == NULL)
			(void)flush_text(c, 0);
	}
	return 0;
}

/* --- the header ------------------------------------------------------ */

static void
attr_event(struct perf_cmd *c, const pcln_perf_attr *a, char *buf,
    size_t n)
{
	static const char *const sw[] = { "cpu-clock", "task-clock",
		"page-faults", "context-switches", "cpu-migrations" };
	static const char *const hw[] = { "cycles", "instructions",
		"cache-references", "cache-misses", "branches",
		"branch-misses" };

	if (a->name != NULL)
		snprintf(buf, n, "%s", a->name);
	else if (a->type == PERF_TYPE_TRACEPOINT &&
	    dump_trace_name(c->trace, a->config, buf, n))
		;	/* its format's "SYSTEM:NAME", as perf names it */
	else if (a->type == 1 && a->config < 5)
		snprintf(buf, n, "%s", sw[a->config]);
	else if (a->type == 0 && a->config < 6)
		snprintf(buf, n, "%s", hw[a->config]);
	else
		snprintf(buf, n, "event-%u:%" PRIu64, a->type, a->config);
}

/* dump_ksym_fn for tracepoints' fields: the kernel symbols kernel frames
 * are named by (loaded in the child that formats the fields, as it first
 * needs one). */
static const char *
trace_ksym(void *arg, uint64_t addr, uint64_t *start, const char **mod)
{
	struct perf_cmd *c = arg;

	if (!c->kallsyms_tried)
		need_kallsyms(c);
	if (c->kallsyms == NULL)
		return NULL;
	return pcln_perf_syms_find(c->kallsyms, addr, start, mod);
}

/* The tracepoints' formats, if a tracepoint is among the events and the
 * profile has its tracing data: their samples' fields are printed as
 * perf script prints them.  If they cannot be read, that is said once,
 * and the samples are printed without. */
static void
open_trace(struct perf_cmd *c)
{
	size_t i, n = pcln_perf_get_info(c->p)->nattr;
	const uint8_t *data;
	size_t len;
	char why[200];

	for (i = 0; i < n; i++)
		if (pcln_perf_get_attr(c->p, i)->type == PERF_TYPE_TRACEPOINT)
			break;
	if (i == n || c->folded || c->svg != NULL)
		return;
	if (!pcln_perf_tracing_data(c->p, &data, &len)) {
		dump_error("%s: no tracing data: tracepoints' fields "
		    "are not printed", c->input);
		return;
	}
	if ((c->trace = dump_trace_open(data, len, trace_ksym, c, why,
	    sizeof why)) == NULL)
		dump_error("%s: the tracing data: %s: tracepoints' "
		    "fields are not printed", c->input, why);
}

/* Each attribute's event name, as perf script prints it in a sample's
 * line (a profile of several events: -e cycles,instructions).  -1: no
 * memory. */
static int
event_names(struct perf_cmd *c)
{
	size_t i, n = pcln_perf_get_info(c->p)->nattr;

	attr_event(c, pcln_perf_get_attr(c->p, 0), c->evname,
	    sizeof c->evname);
	c->evwidth = strlen(c->evname);
	if (n < 2)
		return 0;
	if ((c->evnames = calloc(n, sizeof *c->evnames)) == NULL)
		return -1;
	c->nevnames = n;
	for (i = 0; i < n; i++) {
		attr_event(c, pcln_perf_get_attr(c->p, i), c->evnames[i],
		    sizeof c->evnames[i]);
		if (strlen(c->evnames[i]) > c->evwidth)
			c->evwidth = strlen(c->evnames[i]);
	}
	return 0;
}

static void
print_header(struct perf_cmd *c)
{
	const pcln_perf_info *info = pcln_perf_get_info(c->p);
	FILE *o = c->out;
	size_t i, j;
	char hex[2 * PCLN_PERF_BUILDID_MAX + 1];

	fprintf(o, "byte order: %s\n", info->big ? "big" : "little");
	fprintf(o, "data: offset 0x%" PRIx64 ", %" PRIu64 " bytes%s\n",
	    info->data_offset, info->data_size,
	    info->truncated ? " (truncated)" : "");
	if (info->hostname != NULL)
		fprintf(o, "hostname: %s\n", info->hostname);
	if (info->osrelease != NULL)
		fprintf(o, "os release: %s\n", info->osrelease);
	if (info->version != NULL)
		fprintf(o, "perf version: %s\n", info->version);
	if (info->arch != NULL)
		fprintf(o, "arch: %s\n", info->arch);
	if (info->cmdline != NULL)
		fprintf(o, "cmdline: %s\n", info->cmdline);
	for (i = 0; i < info->nattr; i++) {
		const pcln_perf_attr *a = pcln_perf_get_attr(c->p, i);

		fprintf(o, "attr %zu: name %s, type %u, config %" PRIu64
		    ", sample_type 0x%" PRIx64 ", %s %" PRIu64 ", "
		    "sample_regs_user 0x%" PRIx64 ", sample_stack_user %u, "
		    "ids %zu\n", i, a->name != NULL ? a->name : "?", a->type,
		    a->config, a->sample_type, a->freq ? "freq" : "period",
		    a->sample_period, a->sample_regs_user,
		    a->sample_stack_user, a->nids);
	}
	for (i = 0; i < info->nbuildid; i++) {
		const pcln_perf_buildid *b = pcln_perf_get_buildid(c->p, i);

		for (j = 0; j < b->len; j++)
			sprintf(hex + 2 * j, "%02x", b->id[j]);
		hex[2 * b->len] = '\0';
		fprintf(o, "build-id %s %s\n", hex, b->filename);
	}
	if (pcln_perf_warnings(c->p)[0] != '\0')
		fprintf(o, "warnings: %s\n", pcln_perf_warnings(c->p));
}

/* --- the report ------------------------------------------------------ */

static void
report_obj(void *arg, const struct perf_table_ent *e)
{
	FILE *o = arg;

	if (e->has_table)
		fprintf(o, "  %s: table %s (%s)\n", e->path, e->source,
		    strcmp(e->file, e->path) == 0 ? "the file" : e->file);
	else
		fprintf(o, "  %s: no table: %s\n", e->path, e->why);
}

static int
cmp_ent(const void *a, const void *b)
{
	const struct perf_table_ent *x = *(const struct perf_table_ent *
	    const *)a, *y = *(const struct perf_table_ent *const *)b;
	int d = strcmp(x->path, y->path);

	if (d != 0)
		return d;
	if (x->build_id_len != y->build_id_len)
		return x->build_id_len < y->build_id_len ? -1 : 1;
	return memcmp(x->build_id, y->build_id, x->build_id_len);
}

/* malloc's heap (dump_heap.c): how it was placed, for --stats. */
static struct dump_heap heap;

static void
report(struct perf_cmd *c, int full)
{
	struct stats *s = &c->st;
	FILE *o = stderr;
	size_t nobj, ntab, i;
	uint64_t notable = s->frames_where[PCLN_PERF_IN_NOTABLE];

	pcln_perf_space_counts(c->space, &nobj, &ntab);
	/* Two threads: each resolved the objects its samples met; the
	 * objects of both, each asked for once (a perf space's objects are
	 * those its table function was asked for). */
	if (c->par != NULL) {
		nobj = c->par->ngiven;
		for (i = 0, ntab = 0; i < c->par->ngiven; i++)
			ntab += c->par->given[i].rc >= 0 &&
			    c->par->given[i].t.blob != NULL;
	}
	uint64_t ndecomp = pcln_perf_decompressed(c->p);

	if (!full && s->lost == 0 && s->lost_samples == 0 && s->bad == 0 &&
	    (s->compressed == 0 || pcln_perf_zstd()))
		return;
	if (s->lost > 0 || s->lost_samples > 0)
		fprintf(o, "%s: perf: %" PRIu64 " events lost (%" PRIu64
		    " LOST records), %" PRIu64 " samples lost\n", dump_prog,
		    s->lost, s->lost_records, s->lost_samples);
	if (s->bad > 0)
		fprintf(o, "%s: perf: %" PRIu64 " damaged records skipped; "
		    "the first: %s\n", dump_prog, s->bad, s->firstbad);
	if (s->compressed > 0 && !pcln_perf_zstd())
		fprintf(o, "%s: perf: %" PRIu64 " compressed records (perf "
		    "record -z) not read: pclndump was built without "
		    "libzstd\n", dump_prog, s->compressed);
	if (!full)
		return;
	if (s->compressed > 0 && pcln_perf_zstd())
		fprintf(o, "%s: perf: %" PRIu64 " compressed records (perf "
		    "record -z), %" PRIu64 " records in them\n", dump_prog,
		    s->compressed, ndecomp);
	fprintf(o, "%s: perf: %" PRIu64 " records, %" PRIu64 " samples: %"
	    PRIu64 " user stacks unwound, %" PRIu64 " from frame-pointer "
	    "call chains, %" PRIu64 " user pc only, %" PRIu64
	    " kernel only, %" PRIu64 " without user registers\n", dump_prog,
	    s->records, s->samples, s->user_unwound, s->user_fp,
	    s->user_ip_only, s->kernel_only, s->noregs);
	fprintf(o, "  frames: %" PRIu64 " (%" PRIu64 " in tables, %" PRIu64
	    " inlined, %" PRIu64 " kernel (%" PRIu64 " unnamed), %" PRIu64
	    " JIT, %" PRIu64 " in objects without a table, %" PRIu64
	    " outside functions, %" PRIu64 " anonymous, %" PRIu64
	    " unmapped, %" PRIu64 " PLT entries)\n", s->frames_total,
	    s->frames_where[PCLN_PERF_IN_TABLE], s->frames_inline,
	    s->frames_kernel, s->frames_kernel_unknown, s->frames_jit,
	    notable, s->frames_where[PCLN_PERF_IN_NOFUNC],
	    s->frames_where[PCLN_PERF_IN_ANON],
	    s->frames_where[PCLN_PERF_IN_UNMAPPED],
	    s->frames_where[PCLN_PERF_IN_STUB]);
	fprintf(o, "  user walks ended:");
	for (i = 0; i < PCLNRT_NSTOP + 3; i++) {
		static const char *const extra[] = { "no user registers",
			"no stack copy", "unknown process" };

		if (s->stops[i] == 0)
			continue;
		fprintf(o, " %s %" PRIu64 ";", i < PCLNRT_NSTOP ?
		    pclnrt_stop_string((int)i) : extra[i - PCLNRT_NSTOP],
		    s->stops[i]);
	}
	fprintf(o, "\n  (\"memory read failed\": the walk reached the end of "
	    "the stack copy, %" PRIu64 " samples)\n", s->truncated_stack);
	{
		uint64_t walks, remembered;

		pcln_perf_space_walks(c->space, &walks, &remembered);
		fprintf(o, "  walks from a sample's ip: %" PRIu64 ", %" PRIu64
		    " of them remembered from one before\n", walks + s->walks,
		    remembered + s->remembered);
	}
	fprintf(o, "  objects: %zu, %zu with a table (%zu .pcln sections, "
	    "%zu Go tables, %zu made, %zu from the cache, %zu found by "
	    "build-id, %zu build-id mismatches)\n", nobj, ntab,
	    c->tables.nsection, c->tables.ngo, c->tables.nimported,
	    c->tables.ncached, c->tables.nbyid, c->tables.nmismatch);
	if (c->tables.ahead != NULL) {
		size_t taken, ahead;

		/* (how many the thread took before the walk asked for them
		 * is the two threads' race: the tests leave it out) */
		dump_perf_tables_ahead_count(&c->tables, &taken, &ahead);
		fprintf(o, "  tables taken ahead (a second thread): %zu, %zu "
		    "of them asked for\n", ahead, taken);
	}
	/* The reader thread, where it ran (how the copying fell between
	 * the two threads, and on which CPU, is the scheduler's: the tests
	 * leave the line out). */
	{
		pcln_perf_reader rs;

		if (pcln_perf_reader_stats(c->p, &rs)) {
			fprintf(o, "  reader thread: ");
			if (rs.units > 0)
				fprintf(o, "%" PRIu64 " perf record -z records "
				    "decompressed", rs.units);
			else if (rs.pieces > 0)
				fprintf(o, "%" PRIu64 " pieces of the data "
				    "section, %" PRIu64 " of them copied by the "
				    "walk", rs.pieces, rs.pieces_by_walk);
			else
				fprintf(o, "chunks brought in ahead");
			if (rs.pinned_cpu >= 0)
				fprintf(o, "; the walk kept on CPU %d, the "
				    "reader on the others", rs.pinned_cpu);
			fprintf(o, "\n");
		}
	}
	/* By path: the order the objects were first asked for is the
	 * threads' (two of them) as much as the profile's. */
	{
		const struct perf_table_ent **v = malloc((c->tables.nents +
		    1) * sizeof *v);

		for (i = 0; v != NULL && i < c->tables.nents; i++)
			v[i] = c->tables.ents[i];
		if (v != NULL)
			qsort(v, c->tables.nents, sizeof *v, cmp_ent);
		for (i = 0; i < c->tables.nents; i++)
			report_obj(o, v != NULL ? v[i] : c->tables.ents[i]);
		free(v);
	}
	fprintf(o, "  records: %" PRIu64 " MMAP/MMAP2, %" PRIu64 " COMM, %"
	    PRIu64 " FORK, %" PRIu64 " EXIT, %" PRIu64 " of other types\n",
	    s->mmaps, s->comms, s->forks, s->exits, s->unknown_type);
	/* (not how much: that is where the break fell, from run to run;
	 * how many arenas, where malloc_info says: one, the reader
	 * thread's blocks in the advised heap too, dump_heap.c; and how
	 * far the heap grew past the advice, where it did) */
	if (heap.len > 0) {
		int narena;
		size_t past;

		dump_heap_now(&heap, &narena, &past);
		fprintf(o, "  heap: advised for huge pages");
		if (narena >= 0)
			fprintf(o, ", %d arena%s", narena, narena == 1 ? "" :
			    "s");
		if (past > 0)
			fprintf(o, ", grew %zu KiB past the advice",
			    (past + 1023) >> 10);
		fprintf(o, "\n");
	} else
		fprintf(o, "  heap: not in huge pages: %s\n", heap.why);
}

/* Write the flame graph to PATH atomically (an earlier file is replaced
 * only by a whole new one). */
static int
write_svg(const char *path, const flame *fl, const char *title,
    const char *sub)
{
	char *mem = NULL;
	size_t memlen = 0;
	FILE *f = open_memstream(&mem, &memlen);
	pcln_err err;
	int rc = 0;

	if (f == NULL) {
		dump_error("perf: out of memory");
		return DUMP_EXIT_IO;
	}
	if (flame_write_svg(fl, f, title, sub) < 0 || fclose(f) != 0) {
		dump_error("perf: out of memory");
		free(mem);
		return DUMP_EXIT_IO;
	}
	if (pcln_write_file_atomic(path, mem, memlen, &err) < 0) {
		dump_error("perf: %s", err.msg);
		rc = DUMP_EXIT_IO;
	}
	free(mem);
	return rc;
}

/* --- the command ----------------------------------------------------- */

enum {
	OPT_FOLDED = 256, OPT_SVG, OPT_TITLE, OPT_STATS, OPT_HEADER,
	OPT_NOINLINE, OPT_NOKERNEL, OPT_KALLSYMS, OPT_MAPDIR, OPT_BIDDIR,
	OPT_NODEMANGLE
};

/* The command's state, zeroed (pcln_huge_alloc: 213 KB, calloc's: in
 * malloc's heap in huge pages, dump_heap.c, or in small pages of its
 * own, each made where it is first written). */
static struct perf_cmd *
cmd_new(void)
{
	size_t len;
	struct perf_cmd *c = pcln_huge_alloc(sizeof *c, &len);

	if (c == NULL)
		return NULL;
	c->selflen = len;
	c->symmask = NSYMS - 1;
	c->stackmask = NSTACKS - 1;
	if (getenv("PCLN_PERF_SMALL_MEMO") != NULL) {
		c->symmask = 7;
		c->stackmask = 3;
	}
	return c;
}

/* The profile read in its mapping (PCLN_PERF_MAPREAD): a file that
 * shrinks under the walk (another process truncates it) takes the
 * pages past its new end away, and reading one raises SIGBUS.  Said,
 * with the exit status of a profile that changed while read; the
 * --svg file is written at the end, so an earlier one stays. */
static char sigbus_msg[512];
static size_t sigbus_len;

static void
on_sigbus(int sig)
{
	ssize_t r;

	(void)sig;
	r = write(STDERR_FILENO, sigbus_msg, sigbus_len);
	(void)r;
	_exit(DUMP_EXIT_CORRUPT);
}

static void
catch_sigbus(const char *input)
{
	struct sigaction sa;
	int n;

	n = snprintf(sigbus_msg, sizeof sigbus_msg, "%s: %s: a file read in "
	    "its mapping (this profile, or a table) shrank while it was "
	    "read (SIGBUS): it changed while read\n", dump_prog, input);
	sigbus_len = n < 0 ? 0 : (size_t)n < sizeof sigbus_msg ? (size_t)n :
	    sizeof sigbus_msg - 1;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_sigbus;
	sigemptyset(&sa.sa_mask);
	(void)sigaction(SIGBUS, &sa, NULL);
}

/* Does the process free what it allocated before exiting? */
static int
free_at_exit(void)
{
#if defined(__SANITIZE_ADDRESS__)
	return 1;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(leak_sanitizer)
	return 1;
#endif
#endif
	return getenv("PCLN_FREE_AT_EXIT") != NULL;
}

static void
cmd_free(struct perf_cmd *c)
{
	if (c != NULL)
		pcln_huge_free(c, c->selflen);
}

/* --- two threads --------------------------------------------------------
 *
 * A sample costs the walk some 0.45 us on the guests measured, half of
 * it waiting for the record's lines to come in from memory (the stack
 * copies of a profile are hundreds of megabytes, read once), and a
 * second CPU cannot take a part of one sample's work without the
 * sample's frames going over to it, which costs as much (a ring of
 * samples between a walk and a text thread was slower than one
 * thread).  So where the process may run on two CPUs, two threads walk
 * the whole profile, each with its own handle (pcln_perf_share), its
 * own processes and memos: both read every record that is not a sample
 * (a few hundred), and each the samples of its blocks, PAR_BLOCK
 * samples a block, block N the thread N % 2's.  Each makes a block's
 * text in its own buffer and writes it out when the other wrote the
 * block before (struct par's TURN), so the text is the one thread's,
 * byte for byte.  The tables are found once for both (shared_table),
 * the kernel's symbols read once.  With --folded or --svg each thread
 * makes a flame graph of its own, merged into the first's at the end
 * (flame_merge: a frame's file is the earliest sample's, as one
 * thread's graph has it).  A pipe's stream: one thread. */
#define PAR_BLOCK	128

struct two {
	struct par pa;
	struct perf_cmd *c2;
	pthread_t thread;
	int started;
	struct stats w;			/* the other thread's counts */
	pcln_err err;
	int r, rc;
};

/* The table function both threads' processes share: each object's
 * table found once (for LEAD's report), under the lock. */
static int
shared_table(void *arg, const pcln_perf_object *obj, pcln_perf_table *t)
{
	struct par *pa = arg;
	size_t i, idlen = obj->build_id_len < PCLN_PERF_BUILDID_MAX ?
	    obj->build_id_len : PCLN_PERF_BUILDID_MAX;
	struct given *g;
	int rc;

	pthread_mutex_lock(&pa->mu);
	for (i = 0; i < pa->ngiven; i++) {
		g = &pa->given[i];
		if (strcmp(g->path, obj->path) == 0 && g->idlen == idlen &&
		    (idlen == 0 || memcmp(g->id, obj->build_id, idlen) ==
		    0)) {
			*t = g->t;
			rc = g->rc;
			pthread_mutex_unlock(&pa->mu);
			return rc;
		}
	}
	rc = dump_perf_table(&pa->lead->tables, obj, t);
	if (pa->ngiven == pa->capgiven) {
		size_t cap = pa->capgiven ? 2 * pa->capgiven : 16;
		struct given *v = realloc(pa->given, cap * sizeof *v);

		if (v != NULL) {
			pa->given = v;
			pa->capgiven = cap;
		}
	}
	if (pa->ngiven < pa->capgiven &&
	    (pa->given[pa->ngiven].path = strdup(obj->path)) != NULL) {
		g = &pa->given[pa->ngiven++];
		g->idlen = idlen;
		if (idlen > 0)
			memcpy(g->id, obj->build_id, idlen);
		g->rc = rc;
		g->t = *t;
	}
	pthread_mutex_unlock(&pa->mu);
	return rc;
}

/* C's block of samples made: written out when its turn comes.  0, or
 * DUMP_EXIT_IO if the other thread failed. */
static int
block_out(struct perf_cmd *c)
{
	struct par *pa = c->par;
	int failed;

	pthread_mutex_lock(&pa->mu);
	while (pa->turn != c->blockno && !pa->failed)
		pthread_cond_wait(&pa->cv, &pa->mu);
	failed = pa->failed;
	pthread_mutex_unlock(&pa->mu);
	if (failed)
		return DUMP_EXIT_IO;
	(void)flush_text(c, 1);	/* (cut text: said at the end) */
	pthread_mutex_lock(&pa->mu);
	pa->turn = c->blockno + 1;
	pthread_cond_broadcast(&pa->cv);
	pthread_mutex_unlock(&pa->mu);
	c->blockno += 2;
	c->inblock = 0;
	return 0;
}

/* The records of C->p: each sample into text (or the flame graph), the
 * others to the processes; the records' counts in W.  0, or the exit
 * status; how the walk ended in *RP (0, or -1 and ERR).  With two
 * threads, its last block written out too, and a failure told to the
 * other. */
static int
walk_records(struct perf_cmd *c, struct stats *w, pcln_err *err, int *rp)
{
	pcln_perf_event ev;
	int r, rc = 0;

	while ((r = pcln_perf_next(c->p, &ev, err)) == 1) {
		w->records++;
		if (ev.type == PCLN_PERF_RECORD_SAMPLE)
			w->sample_recs++;
		if (ev.bad) {
			if (w->bad++ == 0)
				snprintf(w->firstbad, sizeof w->firstbad,
				    "%s", ev.badmsg);
			w->bad_samples += ev.type == PCLN_PERF_RECORD_SAMPLE;
		}
		switch (ev.bad ? UINT32_MAX : ev.type) {
		case UINT32_MAX:
			break;
		case PCLN_PERF_RECORD_SAMPLE:
			rc = do_sample(c, &ev);
			break;
		case PCLN_PERF_RECORD_MMAP:
		case PCLN_PERF_RECORD_MMAP2:
		case PCLN_PERF_RECORD_COMM:
		case PCLN_PERF_RECORD_FORK:
		case PCLN_PERF_RECORD_EXIT:
			if (ev.type == PCLN_PERF_RECORD_COMM)
				w->comms++;
			else if (ev.type == PCLN_PERF_RECORD_FORK)
				w->forks++;
			else if (ev.type == PCLN_PERF_RECORD_EXIT)
				w->exits++;
			else
				w->mmaps++;
			if (pcln_perf_space_event(c->space, c->p, &ev,
			    err) < 0) {
				dump_error("perf: out of memory");
				rc = DUMP_EXIT_IO;
			}
			break;
		case PCLN_PERF_RECORD_LOST:
			w->lost += ev.u.lost.lost;
			w->lost_records++;
			break;
		case PCLN_PERF_RECORD_LOST_SAMPLES:
			w->lost_samples += ev.u.lost.lost;
			break;
		case PCLN_PERF_RECORD_COMPRESSED:
			w->compressed++;
			break;
		default:
			w->unknown_type++;
			break;
		}
		/* (a damaged sample is one of the share's too) */
		if (rc == 0 && c->par != NULL && ev.type ==
		    PCLN_PERF_RECORD_SAMPLE && ++c->inblock ==
		    c->par->block)
			rc = block_out(c);
		if (rc != 0)
			break;
	}
	*rp = rc != 0 ? 0 : r;
	if (c->par != NULL) {
		if (rc == 0 && c->inblock > 0)
			rc = block_out(c);
		if (rc != 0) {
			pthread_mutex_lock(&c->par->mu);
			c->par->failed = 1;
			pthread_cond_broadcast(&c->par->cv);
			pthread_mutex_unlock(&c->par->mu);
		}
	}
	return rc;
}

/* RECS records (SAMPLES of them samples) and BAD damaged ones (BADS of
 * them samples; the first said in FIRSTBAD) added to ST: the first
 * damaged record's message is kept. */
static void
add_recs(struct stats *st, uint64_t recs, uint64_t samples, uint64_t bad,
    uint64_t bads, const char *firstbad)
{
	st->records += recs;
	st->sample_recs += samples;
	if (st->bad == 0 && bad != 0)
		memcpy(st->firstbad, firstbad, sizeof st->firstbad);
	st->bad += bad;
	st->bad_samples += bads;
}

/* W's counts of records added to ST's. */
static void
stats_add(struct stats *st, const struct stats *w)
{
	add_recs(st, w->records, w->sample_recs, w->bad, w->bad_samples,
	    w->firstbad);
	st->comms += w->comms;
	st->forks += w->forks;
	st->exits += w->exits;
	st->mmaps += w->mmaps;
	st->lost += w->lost;
	st->lost_records += w->lost_records;
	st->lost_samples += w->lost_samples;
	st->compressed += w->compressed;
	st->unknown_type += w->unknown_type;
}

/* The other thread's counts of samples (S) and of its samples' records
 * (W: the other records are the first thread's too) added to ST. */
static void
stats_add_other(struct stats *st, const struct stats *s,
    const struct stats *w)
{
	size_t i;

	st->samples += s->samples;
	st->kernel_only += s->kernel_only;
	st->user_unwound += s->user_unwound;
	st->user_fp += s->user_fp;
	st->user_ip_only += s->user_ip_only;
	st->noregs += s->noregs;
	st->nostack += s->nostack;
	st->nothread += s->nothread;
	st->idle += s->idle;
	for (i = 0; i < PCLNRT_NSTOP + 3; i++)
		st->stops[i] += s->stops[i];
	for (i = 0; i < 6; i++)
		st->frames_where[i] += s->frames_where[i];
	st->frames_kernel += s->frames_kernel;
	st->frames_kernel_unknown += s->frames_kernel_unknown;
	st->frames_jit += s->frames_jit;
	st->frames_inline += s->frames_inline;
	st->frames_total += s->frames_total;
	st->truncated_stack += s->truncated_stack;
	st->walks += s->walks;
	st->remembered += s->remembered;
	/* (its records that are not samples are the first thread's too) */
	add_recs(st, w->sample_recs, w->sample_recs, w->bad_samples,
	    w->bad_samples, w->firstbad);
}

/* Two threads: where the process may run on two CPUs, for text from a
 * file whose data section is PAR_MIN_DATA or more and whose records are
 * not perf record -z's (each thread would decompress them all: the
 * reader thread does it beside the one walk).  The second thread's
 * handle, processes and memos cost some 0.5 ms, which a profile of
 * 11 MB (some 1,300 samples with their stack copies) just makes up for
 * (2.26-2.39 ms either way); on one of 22 MB two threads took 2.69 ms
 * against 2.84, on bench/perf.sh's of 41 MB 3.53 against 3.90 and on
 * its SQLite one of 36 MB 4.17 against 4.92 (medians of 10, in turn),
 * at 33 MB at the peak against 21.  And only where the records are
 * read in the file's mapping (pcln_perf_probe_read, asked before any is
 * read): the two handles would each copy every chunk, where the one
 * walk's reader thread copies each once beside it.  (On a guest where
 * mapping cost 260 us a MiB and copying 76 to 150, the twins, which
 * had taken the probe's chunks that the other had populated for fast
 * ones, took 275 ms on bench/perf.sh's long profile against 70 ms for
 * one walk.)  PCLN_PERF_THREADS=1 keeps one,
 * PCLN_PERF_THREADS=2 makes two whatever the file (the tests). */
#define PAR_MIN_DATA	((uint64_t)16 << 20)

static int
two_threads(struct perf_cmd *c, int infd)
{
	const char *t = getenv("PCLN_PERF_THREADS");
	const pcln_perf_info *info = pcln_perf_get_info(c->p);
	cpu_set_t cpus;

	/* (a pipe's stream saved in a file is read from its mapping
	 * whole, with no chunks a twin could share) */
	if ((t != NULL && strcmp(t, "1") == 0) || infd < 0 || info->pipe)
		return 0;
	if (!(t != NULL && strcmp(t, "2") == 0) &&
	    (info->data_end - info->data_offset < PAR_MIN_DATA ||
	    (info->features[PCLN_PERF_FEAT_COMPRESSED / 64] >>
	    PCLN_PERF_FEAT_COMPRESSED % 64 & 1) ||
	    !pcln_perf_probe_read(c->p)))
		return 0;
	return sched_getaffinity(0, sizeof cpus, &cpus) == 0 &&
	    CPU_COUNT(&cpus) > 1;
}

/* The reader thread and the walk kept on CPUs of their own
 * (PCLN_PERF_PIN), but where PCLN_PERF_PIN=0 says not to. */
static unsigned
pin_flag(void)
{
	const char *v = getenv("PCLN_PERF_PIN");

	return v != NULL && strcmp(v, "0") == 0 ? 0 : PCLN_PERF_PIN;
}

/* PCLN_PERF_REMEMBER=0: every walk made again, none taken from the walks
 * remembered; =all: every walk that can be remembered is, however few
 * come again (pcln_perf_space_memo; the tests compare the two). */
static void
space_options(pcln_perf_space *s)
{
	const char *v = getenv("PCLN_PERF_REMEMBER");

	if (s != NULL && v != NULL && strcmp(v, "0") == 0)
		pcln_perf_space_memo(s, 0);
	else if (s != NULL && v != NULL && strcmp(v, "all") == 0)
		pcln_perf_space_memo(s, 2);
}

/* What a thread's command holds of its own (C2: not LEAD's tables, nor
 * the kernel's symbols). */
static void
free_walk(struct perf_cmd *c)
{
	size_t i;

	if (c->space != NULL)
		pcln_perf_space_free(c->space);
	for (i = 0; i < c->npmaps; i++)
		pcln_perf_syms_free(c->pmaps[i].syms);
	free(c->pmaps);
	for (i = 0; i < NKMEMO; i++)
		if (c->kused[i / 64] >> i % 64 & 1)
			free(c->kmemo[i].text);
	if (c->stacks != NULL)
		for (i = 0; i <= c->stackmask; i++)
			free(c->stacks[i].key);
	free(c->stacks);
	for (i = 0; i < c->capdem; i++)
		free(c->dem[i].own);
	free(c->dem);
	for (i = 0; i < c->nsymo; i++) {
		ob_free(&c->syms[i].text);
		free(c->syms[i].ext);
	}
	if (c->symhuge != 0)
		pcln_huge_free(c->syms, c->symhuge);
	else
		free(c->syms);
	free(c->evnames);
	dump_trace_close(c->trace);
	for (i = 0; i < c->ndead; i++)
		free(c->dead[i]);
	free(c->dead);
	free(c->pieces);
	ob_free(&c->fb);
	free(c->hd_pre.b);
	free(c->hd_post.b);
	pcln_perf_close(c->p);
}

static void *
two_main(void *arg)
{
	struct two *tw = arg;

	tw->rc = walk_records(tw->c2, &tw->w, &tw->err, &tw->r);
	return NULL;
}

/* Make C the first of two threads on INFD (its handle open, nothing
 * read), and start the second.  0 (one thread where the second cannot
 * start: TW->c2 NULL), or an exit status. */
static int
start_two(struct perf_cmd *c, int infd, struct two *tw)
{
	struct par *pa = &tw->pa;
	struct perf_cmd *c2;
	pcln_err err;

	memset(tw, 0, sizeof *tw);
	pthread_mutex_init(&pa->mu, NULL);
	pthread_cond_init(&pa->cv, NULL);
	pa->block = PAR_BLOCK;
	pa->lead = c;
	/* The processes again, with the shared tables. */
	pcln_perf_space_free(c->space);
	if ((c->space = pcln_perf_space_new(shared_table, pa, &err)) ==
	    NULL || (c2 = cmd_new()) == NULL) {
		dump_error("perf: out of memory");
		return DUMP_EXIT_IO;
	}
	space_options(c->space);
	tw->c2 = c2;
	pa->other = c2;
	c2->input = c->input;
	c2->title = c->title;
	c2->kallsyms_path = c->kallsyms_path;
	c2->mapdir = c->mapdir;
	c2->stats = c->stats;
	c2->no_inline = c->no_inline;
	c2->no_kernel = c->no_kernel;
	c2->no_demangle = c->no_demangle;
	c2->out = c->out;
	c2->folded = c->folded;
	c2->svg = c->svg;
	/* (a flame graph of its own, merged into the first's at the end) */
	if (c->fl != NULL && (c2->fl = flame_new()) == NULL) {
		dump_error("perf: out of memory");
		return DUMP_EXIT_IO;
	}
	c2->par = pa;
	c2->part = 1;
	c2->blockno = 1;
	/* (the twin gives up the first handle's reader thread, not
	 * started: with a twin, three threads on two CPUs took longer
	 * than the two walks populating their chunks themselves, the
	 * pages one populated there for the other) */
	if ((c2->p = pcln_perf_open_twin(c->p, PCLN_PERF_ORDERED |
	    PCLN_PERF_MAPREAD, &err)) == NULL) {
		dump_error("%s: %s", c->input, err.msg);
		return err.code == PCLN_ENOMEM ? DUMP_EXIT_IO :
		    DUMP_EXIT_CORRUPT;
	}
	if ((c2->space = pcln_perf_space_new(shared_table, pa, &err)) ==
	    NULL) {
		dump_error("perf: out of memory");
		return DUMP_EXIT_IO;
	}
	space_options(c2->space);
	pclnrt_pccache_init(&c2->cache);
	if ((c2->fb.b = pcln_huge_alloc(2 * OUT_CHUNK, &c2->fb.huge)) !=
	    NULL)
		c2->fb.cap = c2->fb.huge;
	else
		(void)ob_grow(&c2->fb, 2 * OUT_CHUNK);
	if (event_names(c2) < 0) {
		dump_error("perf: out of memory");
		return DUMP_EXIT_IO;
	}
	(void)pcln_perf_share(c->p, 0, 2, pa->block);
	(void)pcln_perf_share(c2->p, 1, 2, pa->block);
	c->par = pa;
	c->part = 0;
	c->blockno = 0;
	/* (the first thread's tracepoint formats are read already, and
	 * what could not be said; the second's now, where the first's
	 * could be: a parsed event's fields are made in its own buffers) */
	if (c->trace != NULL)
		open_trace(c2);
	if (pthread_create(&tw->thread, NULL, two_main, tw) != 0) {
		/* One thread after all: every sample its. */
		(void)pcln_perf_share(c->p, 0, 1, 1);
		c->par = NULL;
		if (c2->fl != NULL)
			flame_free(c2->fl);
		free_walk(c2);
		cmd_free(c2);
		tw->c2 = NULL;
		return 0;
	}
	tw->started = 1;
	return 0;
}

/* The second thread joined (after the first's RC: a failure ends its
 * wait), its counts added to C's.  0, or its exit status. */
static int
end_two(struct perf_cmd *c, struct two *tw, int rc)
{
	struct perf_cmd *c2 = tw->c2;

	if (rc != 0) {
		pthread_mutex_lock(&tw->pa.mu);
		tw->pa.failed = 1;
		pthread_cond_broadcast(&tw->pa.cv);
		pthread_mutex_unlock(&tw->pa.mu);
	}
	if (tw->started)
		pthread_join(tw->thread, NULL);
	tw->started = 0;
	pcln_perf_space_walks(c2->space, &c2->st.walks, &c2->st.remembered);
	stats_add_other(&c->st, &c2->st, &tw->w);
	if (c->fl != NULL && c2->fl != NULL && tw->rc == 0 && rc == 0 &&
	    flame_merge(c->fl, c2->fl) < 0) {
		dump_error("perf: out of memory");
		return DUMP_EXIT_IO;
	}
	c->fb.bad |= c2->fb.bad;
	if (c->werr == 0)
		c->werr = c2->werr;
	return tw->rc;
}

/* The second thread's command freed, and what the two shared. */
static void
free_two(struct two *tw)
{
	size_t i;

	if (tw->started)
		pthread_join(tw->thread, NULL);
	tw->started = 0;
	if (tw->c2 != NULL) {
		if (tw->c2->fl != NULL)
			flame_free(tw->c2->fl);
		free_walk(tw->c2);
		cmd_free(tw->c2);
		tw->c2 = NULL;
	}
	for (i = 0; i < tw->pa.ngiven; i++)
		free(tw->pa.given[i].path);
	free(tw->pa.given);
	tw->pa.given = NULL;
	tw->pa.ngiven = 0;
}

int
dump_perf(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "folded", no_argument, NULL, OPT_FOLDED },
		{ "svg", required_argument, NULL, OPT_SVG },
		{ "title", required_argument, NULL, OPT_TITLE },
		{ "stats", no_argument, NULL, OPT_STATS },
		{ "header", no_argument, NULL, OPT_HEADER },
		{ "no-inline", no_argument, NULL, OPT_NOINLINE },
		{ "no-kernel", no_argument, NULL, OPT_NOKERNEL },
		{ "no-demangle", no_argument, NULL, OPT_NODEMANGLE },
		{ "kallsyms", required_argument, NULL, OPT_KALLSYMS },
		{ "perf-map-dir", required_argument, NULL, OPT_MAPDIR },
		{ "buildid-dir", required_argument, NULL, OPT_BIDDIR },
		{ "help", no_argument, NULL, 'h' },
		DUMP_FIND_LONGOPTS,
		{ NULL, 0, NULL, 0 }
	};
	struct perf_cmd *c;
	const char **dirs = NULL;
	size_t ndirs = 0;
	uint8_t *buf = NULL;
	int infd = -1;		/* the input file; else BUF, a pipe's */
	size_t len = 0;
	pcln_err err;
	int opt, rc = 0, r, rc2, damaged = 0, two_ok;
	static struct two two;	/* (zero: one thread) */
	struct stats w;

	/* (before anything is allocated: dump_heap.c) */
	dump_heap_huge(&heap);
	c = cmd_new();
	if (c == NULL || (dirs = calloc((size_t)argc + 1, sizeof *dirs)) ==
	    NULL) {
		dump_error("perf: out of memory");
		cmd_free(c);
		return DUMP_EXIT_IO;
	}
	c->input = "perf.data";
	c->out = stdout;
	/* A write(2) per 4 KiB cost a microsecond a sample (perf script's
	 * text is some 1 KiB a sample): 256 KiB at a time (glibc takes no
	 * size without a buffer); a terminal keeps its lines.  Before any
	 * output, as setvbuf must be; static, as stdout outlives this
	 * function. */
	if (!isatty(STDOUT_FILENO))
		(void)setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
	optind = 1;
	while ((opt = getopt_long(argc, argv, "i:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'i':
			c->input = optarg;
			break;
		case OPT_FOLDED:
			c->folded = 1;
			break;
		case OPT_SVG:
			c->svg = optarg;
			break;
		case OPT_TITLE:
			c->title = optarg;
			break;
		case OPT_STATS:
			c->stats = 1;
			break;
		case OPT_HEADER:
			c->header = 1;
			break;
		case OPT_NOINLINE:
			c->no_inline = 1;
			break;
		case OPT_NOKERNEL:
			c->no_kernel = 1;
			break;
		case OPT_NODEMANGLE:
			c->no_demangle = 1;
			break;
		case OPT_KALLSYMS:
			c->kallsyms_path = optarg;
			break;
		case OPT_MAPDIR:
			c->mapdir = optarg;
			break;
		case OPT_BIDDIR:
			dirs[ndirs++] = optarg;
			break;
		case 'h':
			usage(stdout);
			goto out;
		DUMP_FIND_CASES:
			if ((rc = dump_find_option(opt, optarg)) != 0)
				goto out;
			break;
		default:
			fprintf(stderr, "Try 'pclndump perf --help'.\n");
			rc = DUMP_EXIT_USAGE;
			goto out;
		}
	}
	if (optind < argc) {
		dump_error("perf: unexpected argument '%s' (the profile is "
		    "given with -i)", argv[optind]);
		rc = DUMP_EXIT_USAGE;
		goto out;
	}
	if (c->folded && c->svg != NULL) {
		dump_error("perf: --folded and --svg: choose one");
		rc = DUMP_EXIT_USAGE;
		goto out;
	}
	if ((rc = open_input(c->input, &buf, &len, &infd)) != 0)
		goto out;
	memset(&err, 0, sizeof err);
	if (infd >= 0)
		catch_sigbus(c->input);
	if ((c->p = infd >= 0 ? pcln_perf_open_fd(infd, PCLN_PERF_ORDERED |
	    PCLN_PERF_READAHEAD | PCLN_PERF_MAPREAD | pin_flag(), &err) :
	    pcln_perf_open(buf, len, PCLN_PERF_ORDERED, &err)) == NULL) {
		dump_error("%s: %s", c->input, err.msg);
		rc = err.code == PCLN_ENOMEM ? DUMP_EXIT_IO :
		    DUMP_EXIT_CORRUPT;
		goto out;
	}
	if (c->header) {
		print_header(c);
		goto out;
	}
	if (pcln_perf_warnings(c->p)[0] != '\0')
		fprintf(stderr, "%s: %s: %s\n", dump_prog, c->input,
		    pcln_perf_warnings(c->p));
	c->tables.dirs = dirs;
	c->tables.ndirs = ndirs;
	c->tables.no_inline = c->no_inline;
	if ((c->space = pcln_perf_space_new(dump_perf_table, &c->tables,
	    &err)) == NULL) {
		dump_error("perf: out of memory");
		rc = DUMP_EXIT_IO;
		goto out;
	}
	space_options(c->space);
	pclnrt_pccache_init(&c->cache);
	/* The text's buffer at its full size at once: grown by doubling,
	 * each step copied it and faulted in new pages (pcln_huge_alloc:
	 * its pages made as they are first written; the memos' texts go
	 * out from the memos, and a round of text uses a few dozen). */
	if ((c->fb.b = pcln_huge_alloc(2 * OUT_CHUNK, &c->fb.huge)) != NULL)
		c->fb.cap = c->fb.huge;
	else
		(void)ob_grow(&c->fb, 2 * OUT_CHUNK);
	open_trace(c);
	if (event_names(c) < 0) {
		dump_error("perf: out of memory");
		rc = DUMP_EXIT_IO;
		goto out;
	}
	if ((c->folded || c->svg != NULL) && (c->fl = flame_new()) == NULL) {
		dump_error("perf: out of memory");
		rc = DUMP_EXIT_IO;
		goto out;
	}
	memset(&w, 0, sizeof w);
	two_ok = two_threads(c, infd);
	/* The objects' tables, taken by another thread while the walk
	 * starts (dump_perf_tables.c): after the read probe (two_threads),
	 * which it would disturb, before the second walk, which may ask
	 * for them. */
	if (dump_perf_tables_ahead(&c->tables, c->p) < 0) {
		dump_error("perf: out of memory");
		rc = DUMP_EXIT_IO;
		goto out;
	}
	if (two_ok && (rc = start_two(c, infd, &two)) != 0)
		goto out;
	rc = walk_records(c, &w, &err, &r);
	if (two.c2 != NULL) {
		/* The other thread's blocks, its counts. */
		if ((rc2 = end_two(c, &two, rc)) != 0 && rc == 0)
			rc = rc2;
		if (two.r < 0 && r >= 0) {
			r = two.r;
			err = two.err;
		}
	}
	stats_add(&c->st, &w);
	if (rc != 0)
		goto out;
	if (r < 0 && err.code == PCLN_ENOMEM) {
		dump_error("perf: out of memory");
		rc = DUMP_EXIT_IO;
	} else if (r < 0) {
		damaged = 1;
		rc = DUMP_EXIT_CORRUPT;
	}
	if (c->folded && flame_write_folded(c->fl, c->out) < 0) {
		dump_error("perf: cannot write the output: %s",
		    strerror(errno));
		rc = DUMP_EXIT_IO;
	}
	if (c->svg != NULL) {
		char sub[512];
		const pcln_perf_info *info = pcln_perf_get_info(c->p);
		int wr;

		snprintf(sub, sizeof sub, "%s: %" PRIu64 " samples of %s%s%s",
		    c->input, c->st.samples, c->evname,
		    info->cmdline != NULL ? ", " : "",
		    info->cmdline != NULL ? info->cmdline : "");
		wr = write_svg(c->svg, c->fl, c->title != NULL ? c->title :
		    "Flame Graph", sub);
		if (wr != 0)
			rc = wr;
	}
	if (flush_text(c, 1) < 0) {
		dump_error("perf: out of memory: the text is cut");
		rc = DUMP_EXIT_IO;
	}
	if (c->werr != 0 || fflush(c->out) != 0 || ferror(c->out)) {
		dump_error("perf: cannot write the output: %s",
		    strerror(c->werr != 0 ? c->werr : errno));
		rc = DUMP_EXIT_IO;
	}
	report(c, c->stats);
	if (damaged)
		dump_error("%s: %s (%" PRIu64 " records before it were read)",
		    c->input, err.msg, c->st.records);
out:
	/* Done, and said so: what is left is freeing, which the process's
	 * exit does at once, in one teardown of its address space.  Done
	 * here, it is some twenty munmaps of tables, files and huge pages,
	 * each a TLB flush: 1.3 ms of a 20 ms profile on this guest.  Under
	 * a leak checker (ASan's LSan, or PCLN_FREE_AT_EXIT set for
	 * valgrind's), everything is freed. */
	if (two.started) {
		pthread_join(two.thread, NULL);
		two.started = 0;
	}
	if (rc == 0 && !free_at_exit())
		return rc;
	free_two(&two);
	if (c->fl != NULL)
		flame_free(c->fl);
	free_walk(c);
	dump_perf_tables_free(&c->tables);
	pcln_perf_syms_free(c->kallsyms);
	if (c->kallsyms_map != NULL)
		munmap(c->kallsyms_map, c->kallsyms_maplen);
	free(buf);
	if (infd >= 0)
		close(infd);
	free(dirs);
	cmd_free(c);
	dump_heap_free(&heap);
	return rc;
}
