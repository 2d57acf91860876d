/* pcln_link.h -- link object-file descriptions into a pcln blob.
 *
 * A description is line-oriented text (doc/DESCRIPTION.md is its
 * reference): target properties, data symbols and functions with their
 * pc-value tables and funcdata.  A link takes several descriptions, like
 * several object files, places the functions that have no fixed address,
 * resolves funcdata references to data symbols and builds the blob with
 * the libpcln builder (pcln.h).
 *
 * Memory: the link handle allocates with malloc and is freed by
 * pcln_link_free.  Inputs given as files are read once (collecting
 * function headers and symbols while feeding the builder), or twice when
 * the target is settled only after the first file or function statement,
 * and never held whole in memory, so a link needs memory proportional to
 * its output.
 * Nothing here is async-signal-safe or prints.
 *
 * Errors: functions return -1 (or NULL) and fill an optional pcln_err
 * whose MSG reads "FILE:LINE: message" for errors in an input.
 */
#ifndef PCLN_LINK_H
#define PCLN_LINK_H

#include <stddef.h>
#include <stdint.h>

#include "pcln.h"
#include "pcln_out.h"	/* output files, declared here before */

#ifdef __cplusplus
extern "C" {
#endif

/* Defaults when neither the command line nor an input says otherwise. */
#define PCLN_LINK_DEFAULT_PTRSIZE	8
#define PCLN_LINK_DEFAULT_QUANTUM	1
#define PCLN_LINK_DEFAULT_TEXT_BASE	0x1000u

typedef struct pcln_link pcln_link;

/* Link options.  A zero field means "not set": the inputs' target lines
 * decide, else the default.  A set field must agree with every input's
 * target line (PCLN_ECONFLICT otherwise). */
typedef struct pcln_link_opts {
	unsigned ptrsize;	/* 0, 4 or 8 */
	unsigned quantum;	/* 0, 1, 2 or 4 */
	int endian;		/* 0 unset, 1 little, 2 big */
	int has_text_base;
	uint64_t text_base;	/* if HAS_TEXT_BASE */
	unsigned write_flags;	/* PCLN_WRITE_GO12, _INDEX, _NOINDEX */
	int has_checkpoints;
	unsigned checkpoints;	/* if HAS_CHECKPOINTS: the stride, 0 none
				 * (pcln_builder_set_checkpoints) */
} pcln_link_opts;

/* A new link with OPTS (NULL: all unset).  NULL and ERR filled on no
 * memory or an invalid option. */
pcln_link *pcln_link_new(const pcln_link_opts *opts, pcln_err *err);
void pcln_link_free(pcln_link *l);

/* Add the description in file PATH (read at pcln_link_run; the path is
 * copied).  "-" is not special.  Returns 0 or -1. */
int pcln_link_add_file(pcln_link *l, const char *path, pcln_err *err);

/* Add the description TEXT[0..LEN) (copied), called NAME in messages. */
int pcln_link_add_text(pcln_link *l, const char *name, const char *text,
    size_t len, pcln_err *err);

/* Parse every input, place, resolve and build.  On success store a
 * malloc'ed blob in *OUT (the caller frees it), its length in *LEN and
 * return 0.  On failure return -1 with the first error in ERR ("FILE:LINE:
 * message").  Run once per handle. */
int pcln_link_run(pcln_link *l, uint8_t **out, size_t *len, pcln_err *err);

/* After a successful run: statistics. */
typedef struct pcln_link_stats {
	size_t ninputs;
	size_t nlines;			/* input lines read (one pass) */
	size_t nfunc;			/* functions in the blob */
	size_t nfixed, nplaced;		/* with/without a fixed entry */
	size_t ndropped;		/* dupok duplicates dropped */
	size_t ndata;			/* data symbols declared */
	size_t nrefs;			/* funcdata references resolved */
	uint64_t text_start, text_end;	/* lowest entry, highest end */
	pcln_target target;
	const pcln_build_stats *build;	/* the builder's byte counts */
} pcln_link_stats;

const pcln_link_stats *pcln_link_get_stats(const pcln_link *l);

/* After a successful run: function I (0 <= I < nfunc) in address order,
 * for link maps.  Strings live as long as the handle. */
typedef struct pcln_link_func {
	const char *name;
	const char *file;		/* input it came from */
	long line;			/* its func line */
	int fixed;			/* entry given in the input */
	uint64_t entry, size;
	const pcln_func_layout *layout;	/* offsets in the blob */
} pcln_link_func;

int pcln_link_get_func(const pcln_link *l, size_t i, pcln_link_func *f);

/* Output files (pcln_write_file_atomic, pcln_outfile_*): pcln_out.h,
 * included above for the code that found them here. */

#ifdef __cplusplus
}
#endif

#endif /* PCLN_LINK_H */
