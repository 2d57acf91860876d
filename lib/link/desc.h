/* desc.h -- internal: the description reader (lib/link/desc.c).
 *
 * Reads a description one statement (line) at a time and checks what a
 * single line and its function can tell: syntax, number ranges, table
 * points increasing and inside the function, block structure.  Checks
 * that need every input (overlaps, symbols, target agreement) are the
 * link's (lib/link/link.c).  Not installed; symbols have the desc_ prefix and
 * are not exported from libpcln.
 */
#ifndef PCLN_DESC_H
#define PCLN_DESC_H

/* Largest input-local file number of a 'file' line. */
#define DESC_MAX_FILE	1000000

#include <stdio.h>
#include <stddef.h>
#include <stdint.h>

#include "pcln.h"
#include "internal.h"

enum desc_kind {
	DESC_TARGET,	/* key/value in target */
	DESC_DATA,	/* data NAME ADDR */
	DESC_FUNC,	/* func NAME ... */
	DESC_POINTS,	/* TABLE OFF:VAL ... (pcfile: OFF:PATH) */
	DESC_HEX,	/* TABLE hex BYTES */
	DESC_FUNCDATA,	/* funcdata IDX VALUE|SYM[+OFF] */
	DESC_FILE,	/* file N PATH: idx = N, name = PATH */
	DESC_END	/* end */
};

/* Target keys set by one target line (0 = not on this line). */
struct desc_target {
	unsigned ptrsize, quantum;
	int endian;		/* 1 little, 2 big */
};

/* A point: pclni_point (internal.h); for pcfile the value is an index
 * into the statement's paths. */
#define desc_point pclni_point

struct desc_stmt {
	enum desc_kind kind;
	long line;
	struct desc_target target;
	/* DATA: name/addr.  FUNC: name, size, args, frame, entry, align,
	 * dupok.  FUNCDATA: idx and either value or (name = symbol, addr
	 * = offset as int64). */
	const char *name;
	uint64_t addr;
	uint64_t size, align;
	int32_t args, frame;
	int has_entry, dupok;
	int isref;
	int64_t refoff;
	unsigned idx;
	/* POINTS/HEX: table number (PCLN_TAB_*). */
	int table;
	struct desc_point *pts;
	size_t npts;
	const char **paths;	/* pcfile: paths[pts[i].value] */
	uint8_t *bytes;
	size_t nbytes;
};

typedef struct desc_reader desc_reader;

/* A reader of file PATH (NULL and PCLN_EIO if unreadable) or of memory
 * TEXT[0..LEN) (not copied; must outlive the reader) named NAME.
 * QUANTUM (1, 2, 4, or 0 if not yet known) is checked against pc offsets,
 * sizes and entries. */
desc_reader *desc_open_file(const char *path, unsigned quantum,
    pcln_err *err);
desc_reader *desc_open_mem(const char *name, const char *text, size_t len,
    unsigned quantum, pcln_err *err);
void desc_close(desc_reader *r);

/* Read the next statement into *ST (valid until the next call).  Return 1,
 * 0 at the end of the input, or -1 with ERR "NAME:LINE: message". */
int desc_next(desc_reader *r, struct desc_stmt *st, pcln_err *err);

/* Lines read so far. */
long desc_lines(const desc_reader *r);

/* Fill ERR with CODE and "FILE:LINE: " + the formatted message (LINE 0:
 * "FILE: ").  ERR may be NULL.  Returns -1. */
int desc_error(pcln_err *err, int code, const char *file, long line,
    const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

#endif /* PCLN_DESC_H */
