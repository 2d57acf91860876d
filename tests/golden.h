/* golden.h -- the fixed sample blobs shared by tests/gen_golden.c (which
 * writes them to tests/golden/) and the golden and verifier tests. */
#ifndef PCLN_TESTS_GOLDEN_H
#define PCLN_TESTS_GOLDEN_H

#include <stddef.h>
#include <stdint.h>

#include "pcln.h"

#define GOLDEN_N 3

/* The golden blobs: file name under tests/golden/, target and flags. */
struct golden {
	const char *file;
	pcln_target target;
	unsigned flags;
};
extern const struct golden golden_blobs[GOLDEN_N];

/* The sample program every golden blob describes (see golden.c): */
#define SAMPLE_NFUNC	5
#define SAMPLE_NFILE	3
#define SAMPLE_BASE	0x401000u
/* Handle of the function named "\xff\xff\xff\xff\x7f" whose name bytes
 * are an overflowing varint (the verifier tests aim a table at it). */
#define SAMPLE_VARINT_FUNC 4

/* Populate B with the sample program.  Returns 0 or -1. */
int sample_populate(pcln_builder *b, pcln_err *err);

/* Build the sample program for target T with write FLAGS; on success
 * *OUT is malloc'ed and *B (if not NULL) keeps the builder for its
 * layout (the caller frees both).  Returns 0 or -1. */
int sample_build(const pcln_target *t, unsigned flags, uint8_t **out,
    size_t *len, pcln_builder **b, pcln_err *err);

#endif
