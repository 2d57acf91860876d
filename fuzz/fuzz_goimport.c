/* fuzz_goimport.c -- the Go pclntab importer (lib/go/goimport.c) on
 * arbitrary bytes, as a bare table of each layout and as an ELF image.
 *
 * A successful import must write a blob that verifies (the builder runs
 * pcln_verify on what it writes; a PCLN_EMATH error is a bug).
 */
#include <config.h>

#include "fuzz.h"
#include "pcln_go.h"

static void
check(int rc, pcln_builder *b, const pcln_err *err)
{
	uint8_t *blob;
	size_t len;
	pcln_err werr;

	if (rc != 0) {
		if (b != NULL || err->msg[0] == '\0')
			abort();
		return;
	}
	if (pcln_builder_write(b, 0, &blob, &len, &werr) == 0)
		free(blob);
	else if (werr.code == PCLN_EMATH)
		abort();
	pcln_builder_free(b);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *buf = fuzz_copy(data, size);
	pcln_builder *b = NULL;
	pcln_go_info info;
	pcln_err err;
	int rc;

	(void)pcln_go_layout_of(buf, size);
	(void)pcln_go_packed(buf, size);
	/* (The call first: the order in which a call's arguments are
	 * evaluated is unspecified, and gcc read B before the import set
	 * it, which leaked the builder in fuzz/replay_fuzz_goimport.) */
	rc = pcln_go_import(buf, size, 0x401000, &b, &info, &err);
	check(rc, b, &err);
	b = NULL;
	rc = pcln_go_import_elf(buf, size, &b, &info, &err);
	check(rc, b, &err);
	free(buf);
	return 0;
}
