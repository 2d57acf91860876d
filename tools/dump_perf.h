/* dump_perf.h -- pclndump perf's internal interfaces (not installed).
 *
 * dump_perf.c reads the profile and prints samples (lib/perf does the
 * reading and unwinding); dump_perf_tables.c finds each object's table;
 * dump_flame.c aggregates stacks and writes folded stacks and the SVG
 * flame graph.
 */
#ifndef PCLN_DUMP_PERF_H
#define PCLN_DUMP_PERF_H

#include <stdint.h>
#include <stdio.h>

#include "pcln_perf.h"

/* --- tables (dump_perf_tables.c) ------------------------------------- */

struct perf_table_ent {
	char path[4096];		/* as the profile names it */
	char file[4096];		/* the file read, or "" */
	uint8_t build_id[PCLN_PERF_BUILDID_MAX];
	size_t build_id_len;
	int has_table;
	const char *source;		/* "pcln" or "imported" */
	char why[600];			/* no table: why */
	const uint8_t *blob;
	size_t len;
	uint64_t vmo;
	void *map;			/* to unmap */
	size_t maplen;
	uint8_t *heap;			/* to free */
	void *cached;			/* a pcln_cached, to release */
	pcln_perf_syms *stubs;		/* its PLT entries, or NULL */
	uint64_t frames;		/* user frames seen in the object */
};

struct perf_ahead;

struct perf_tables {
	struct perf_table_ent **ents;
	size_t nents, cap;
	const char *const *dirs;	/* --buildid-dir, searched first */
	size_t ndirs;
	int no_inline;
	size_t nsection, ngo, nimported, ncached, nbyid, nmismatch;
	void *cache;			/* a pcln_cache (lib/find) */
	int cache_tried;
	unsigned find_flags;		/* lib/find's (PCLN_TABLE_CACHED) */
	int quiet;			/* no warning (the cache) */
	struct perf_ahead *ahead;	/* tables taken ahead, or NULL */
};

/* pcln_perf_table_fn; ARG is a struct perf_tables.  An object's table
 * taken ahead (dump_perf_tables_ahead) is handed out from there, as it
 * would have been made here. */
int dump_perf_table(void *arg, const pcln_perf_object *obj,
    pcln_perf_table *t);
/* Take ahead, in a second thread, the tables of the objects P's
 * BUILD_ID feature names (those of its samples) that are at hand
 * without an import (a .pcln section, a Go table, the cache's), while
 * the walk starts: 1 if it started, 0 if not (one CPU, nothing to
 * take, PCLN_PERF_AHEAD=0), -1: out of memory.  Before the walk, after
 * PT's options are set; the cache's directory is opened here first
 * (dump_perf_cache_dir). */
int dump_perf_tables_ahead(struct perf_tables *pt, const pcln_perf *p);
/* Tables taken ahead that the walk took, of those taken ahead (for
 * --stats). */
void dump_perf_tables_ahead_count(const struct perf_tables *pt,
    size_t *taken, size_t *ahead);
/* Stops the thread taking tables ahead, if any, and frees it all. */
void dump_perf_tables_free(struct perf_tables *pt);
/* The table cache's directory (lib/find, opened once with pclndump's
 * --cache and --cache-limit), where other things pclndump perf keeps
 * may go too; NULL with --no-cache, without libdw, or if it cannot be
 * used (warned once). */
const char *dump_perf_cache_dir(struct perf_tables *pt);

/* --- malloc's heap in huge pages (dump_heap.c) ----------------------- */

struct dump_heap {
	void *fill;		/* the block that moved the heap's top */
	uintptr_t start;	/* the advice's first byte */
	size_t len;		/* bytes advised MADV_HUGEPAGE, or 0 */
	const char *why;	/* LEN 0: why not */
};

/* Before pclndump perf allocates: glibc's heap grows to past a huge
 * page boundary, its top chunk moved to the boundary, and what lies
 * past it advised MADV_HUGEPAGE (the first touch of its pages then
 * costs one fault for 2 MiB, not 512).  Fills *H; nothing is changed
 * where that cannot be done (another malloc: H->why says why). */
void dump_heap_huge(struct dump_heap *h);
void dump_heap_free(struct dump_heap *h);
/* Now: the arenas malloc made in *NARENA (-1: not known) and the bytes
 * by which the heap grew past the advice in *PAST (0: none). */
void dump_heap_now(const struct dump_heap *h, int *narena, size_t *past);

/* --- tracepoints' fields (dump_trace.c) ------------------------------ */

struct dump_trace;
/* The kernel function at ADDR (its start in *START, its module or NULL in
 * *MOD), or NULL: for the fields that print one (%ps, %pS). */
typedef const char *dump_ksym_fn(void *arg, uint64_t addr, uint64_t *start,
    const char **mod);
/* The profile's tracing data DATA[0..LEN) parsed (libtraceevent), kernel
 * functions named by KSYM (ARG), or NULL and WHY. */
struct dump_trace *dump_trace_open(const uint8_t *data, size_t len,
    dump_ksym_fn *ksym, void *arg, char *why, size_t whylen);
/* Tracepoint ID's fields in RAW[0..N) (a sample on CPU) as perf script
 * prints them, valid until the next call; NULL if they cannot be. */
const char *dump_trace_info(struct dump_trace *t, uint64_t id, uint32_t cpu,
    const uint8_t *raw, size_t n);
/* Tracepoint ID's name, "SYSTEM:NAME", into BUF: 1, or 0 if unknown. */
int dump_trace_name(struct dump_trace *t, uint64_t id, char *buf, size_t n);
void dump_trace_close(struct dump_trace *t);

/* --- stacks (dump_flame.c) ------------------------------------------- */

enum frame_kind {
	FK_USER,		/* a function of a table */
	FK_INLINE,		/* an inlined call */
	FK_KERNEL,		/* from kallsyms */
	FK_JIT,			/* from a perf map file */
	FK_UNKNOWN,		/* no name */
	FK_ROOT			/* the process (first frame of a stack) */
};

struct oframe {
	const char *name;	/* never NULL */
	const char *file;	/* NULL if unknown */
	int32_t line;
	int kind;		/* enum frame_kind */
};

typedef struct flame flame;

flame *flame_new(void);
void flame_free(flame *f);
/* Add a stack of N frames, outermost (the process) first, COUNT times.
 * Names and files must live as long as F.  0 or -1 (no memory). */
int flame_add(flame *f, const struct oframe *frames, size_t n,
    uint64_t count);
/* "root;f;g;h COUNT" lines, sorted.  0 or -1 (write error). */
int flame_write_folded(const flame *f, FILE *out);
/* An interactive SVG flame graph: click a frame to zoom, "Search" to
 * highlight by regular expression, a tooltip and the bottom line give
 * the frame, its samples and share, and its file:line.  0 or -1. */
int flame_write_svg(const flame *f, FILE *out, const char *title,
    const char *subtitle);
uint64_t flame_total(const flame *f);
/* The stacks added from now on are the SEQ-th (a sample's place in the
 * profile): a frame's file is the first stack's that had one. */
void flame_seq(flame *f, uint64_t seq);
/* SRC's stacks added to DST (SRC's names and files must live as long
 * as DST): as if DST had been given them, with their SEQs.  0 or -1 (no
 * memory). */
int flame_merge(flame *dst, const flame *src);

#endif /* PCLN_DUMP_PERF_H */
