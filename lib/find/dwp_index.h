/* dwp_index.h -- the index of a .dwp package (.debug_cu_index), read
 * with every offset checked against the section (lib/find/dwp.c; fuzzed
 * by fuzz/fuzz_dwp).  Not installed.
 *
 * Layout (DWARF 5 section 7.3.5.3; version 2 is the GNU extension for
 * DWARF 4, with a 4-byte version word and other section ids):
 *   version (2: uword; 5: uhalf + uhalf 0), ncols, nunits, nslots
 *   uint64 hash[nslots]      unit ids; an empty slot holds 0
 *   uint32 row[nslots]       1-based rows; 0 in an empty slot
 *   uint32 colid[ncols]      the section id of each column
 *   uint32 off[nunits][ncols], size[nunits][ncols]
 * A unit is found by open addressing: slot id & (nslots - 1), then steps
 * of ((id >> 32) & (nslots - 1)) | 1.
 */
#ifndef PCLN_DWP_INDEX_H
#define PCLN_DWP_INDEX_H

#include <stddef.h>
#include <stdint.h>

#include "pcln.h"

#define PCLNI_DWP_MAX_COLUMNS	64

struct pclni_dwp_index {
	const uint8_t *buf;
	size_t len;
	int big;
	uint32_t version;		/* 2 or 5 */
	uint32_t ncols, nunits, nslots;
	uint64_t hashoff, idxoff, coloff, offoff, sizeoff;
};

/* Check the header and that all tables fit in BUF[0..LEN) (words in the
 * package's byte order, big-endian if BIG).  0, or -1 with ERR. */
int pclni_dwp_index_open(struct pclni_dwp_index *ix, const uint8_t *buf,
    size_t len, int big, pcln_err *err);
/* The row (1 ... nunits) of unit ID, or 0.  At most nslots probes. */
uint32_t pclni_dwp_index_find(const struct pclni_dwp_index *ix,
    uint64_t id);
/* Row ROW's contribution to the section with id SECT: 1 and *OFF,
 * *SIZE (not checked against the section: the caller does), or 0. */
int pclni_dwp_index_contrib(const struct pclni_dwp_index *ix, uint32_t row,
    uint32_t sect, uint32_t *off, uint32_t *size);

#endif /* PCLN_DWP_INDEX_H */
