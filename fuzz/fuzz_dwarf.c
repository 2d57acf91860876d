/* fuzz_dwarf.c -- the ELF/DWARF importer (lib/dwarf/dwarf*.c) on mutated
 * programs.
 *
 * pcln_dwarf_import takes a path (libdw opens the file itself), so the
 * input goes into a memfd and is imported through /proc/self/fd/N: no
 * disk I/O per run.  Whatever imports must write a blob that verifies.
 * libdw and libelf are the system's, not instrumented: a crash inside
 * them is still a crash of this target, and is reported as such.
 */
#define _GNU_SOURCE
#include <config.h>

#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"
#include "pcln_dwarf.h"

static void
import_one(const char *path, unsigned flags)
{
	pcln_builder *b = NULL;
	pcln_dwarf_stats st;
	pcln_err err;
	uint8_t *blob;
	size_t len;

	if (pcln_dwarf_import(path, flags, &b, &st, &err) < 0) {
		if (err.msg[0] == '\0')
			abort();	/* an error must say what */
		return;
	}
	if (pcln_builder_write(b, 0, &blob, &len, &err) == 0) {
		if (pcln_verify(blob, len, &err) < 0)
			abort();	/* the builder wrote a bad blob */
		free(blob);
	}
	pcln_builder_free(b);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	int fd;

	if ((fd = memfd_create("fuzz_dwarf", 0)) < 0)
		abort();
	if (size > 0 && write(fd, data, size) != (ssize_t)size)
		abort();
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	import_one(path, 0);
	import_one(path, PCLN_DWARF_NO_INLINE);
	close(fd);
	return 0;
}
