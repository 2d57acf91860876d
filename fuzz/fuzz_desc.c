/* fuzz_desc.c -- the description parser and the link on arbitrary text.
 *
 * The input is split at its first NUL byte into two descriptions (two
 * "object files") and linked.  A link either fails with a message naming
 * a place, or gives a blob that must pass pcln_verify.
 */
#include <config.h>

#include "fuzz.h"
#include "pcln_link.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *text = fuzz_copy(data, size);
	const uint8_t *nul = memchr(text, 0, size);
	size_t n1 = nul != NULL ? (size_t)(nul - text) : size;
	pcln_link *l;
	pcln_err err;
	uint8_t *blob = NULL;
	size_t len;

	if ((l = pcln_link_new(NULL, &err)) == NULL)
		abort();
	if (pcln_link_add_text(l, "a.pcln", (const char *)text, n1,
	    &err) != 0)
		abort();
	if (nul != NULL && pcln_link_add_text(l, "b.pcln",
	    (const char *)nul + 1, size - n1 - 1, &err) != 0)
		abort();
	if (pcln_link_run(l, &blob, &len, &err) == 0) {
		if (pcln_verify(blob, len, &err) != 0)
			abort();
		free(blob);
	} else if (err.msg[0] == '\0' || err.code == PCLN_EMATH) {
		abort();	/* no message, or the writer's own error */
	}
	pcln_link_free(l);
	free(text);
	return 0;
}
