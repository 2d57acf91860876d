/* fuzz_blob.c -- libpcln's verifier and reader on arbitrary bytes.
 *
 * pcln_verify on the input; if it verifies, every reader call over every
 * function, table, row and file (pcln_open verified), which must then
 * agree with itself.  Whatever it says, the input is also opened
 * PCLN_OPEN_TRUSTED (no verification) and walked the same way: answers
 * may be wrong but every read must stay inside the input and every call
 * must end.
 */
#include <config.h>

#include "fuzz.h"
#include "pcln.h"

static int
count_cb(void *arg, size_t func, uint64_t start, uint64_t end)
{
	if (start >= end)
		abort();
	return ++*(long *)arg > 64;
}

static void
walk(const pcln_table *t, int verified)
{
	pcln_info info;
	size_t i, nfunc = pcln_nfunc(t), nrows = 0;
	uint32_t k;

	pcln_get_info(t, &info);
	if (info.nfunc != nfunc)
		abort();
	for (k = 0; k <= pcln_nfile(t) && k < 1000; k++) {
		const char *s = pcln_file_name(t, k);
		if (verified && k > 0 && s == NULL)
			abort();
		if (s != NULL && k == 1)
			pcln_line_to_pcs(t, s, 1 + (int32_t)(nfunc & 7),
			    count_cb, &(long){ 0 });
	}
	for (i = 0; i < nfunc && i < 4096; i++) {
		pcln_func f;
		pcln_loc loc;
		int table, rc;

		if (pcln_get_func(t, i, &f) != 0) {
			if (verified)
				abort();
			continue;
		}
		if (verified && (f.end <= f.entry || f.end > f.next))
			abort();
		for (table = 0; table < 8 &&
		    (uint64_t)table < 3 + (uint64_t)f.npcdata; table++) {
			pcln_rowiter it;
			pcln_row row;
			int32_t v;

			(void)pcln_table_offset(t, i, table);
			if (pcln_rows_begin(&it, t, i, table) != 0)
				continue;
			while (nrows < 100000 &&
			    (rc = pcln_rows_next(&it, &row)) == 1) {
				nrows++;
				/* A row of zero length is legal (FORMAT.md
				 * section 4: writers drop them, readers
				 * accept them). */
				if (verified && (row.start > row.end ||
				    row.start < f.entry || row.end > f.end))
					abort();
				if (row.start < row.end && pcln_pcvalue(t, i,
				    table, row.start, &v, NULL) == 0 &&
				    verified && v != row.value)
					abort();
			}
			if (verified && rc < 0)
				abort();
		}
		(void)pcln_funcdata(t, i, 0);
		(void)pcln_funcdata(t, i, f.nfuncdata);
		if (pcln_lookup(t, f.entry, &loc) == 0 && verified &&
		    loc.func != (long)i)
			abort();
		if (pcln_find_func(t, f.end) == (long)i && verified)
			abort();
		(void)pcln_lookup(t, f.end - 1, &loc);
	}
	(void)pcln_find_func(t, info.text_start - 1);
	(void)pcln_find_func(t, info.text_end);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *blob = fuzz_copy(data, size);
	pcln_table *t;
	pcln_err err;
	int ok = pcln_verify(blob, size, &err) == 0;

	if (ok) {
		if ((t = pcln_open(blob, size, 0, &err)) == NULL)
			abort();	/* verified, so it must open */
		walk(t, 1);
		pcln_close(t);
	} else if (err.msg[0] == '\0') {
		abort();		/* every error has a message */
	}
	if ((t = pcln_open(blob, size, PCLN_OPEN_TRUSTED, &err)) != NULL) {
		walk(t, 0);
		pcln_close(t);
	}
	free(blob);
	return 0;
}
