/* fuzz_elf.c -- the ELF section reader (lib/elf/elf.c) on arbitrary bytes.
 *
 * Info, every section header, a name search and the pcln search; every
 * section with data must lie inside the input, every name end inside it.
 * The program headers too: their count must be what the header says.
 * And the PLT stubs (lib/perf): every one is 16 bytes inside .plt or
 * .plt.sec, named "...@plt", found at its own address.
 */
#include <config.h>

#include "fuzz.h"
#include "pcln_elf.h"
#include "pcln_perf.h"

static void
inside(const uint8_t *buf, size_t len, const pcln_elf_section *s)
{
	const uint8_t *end = buf + len;

	if (s->name == NULL || (const uint8_t *)s->name < buf ||
	    (const uint8_t *)s->name + strlen(s->name) >= end)
		abort();
	if (s->data != NULL && (s->data < buf || s->size > len ||
	    (size_t)(s->data - buf) > len - s->size))
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *buf = fuzz_copy(data, size);
	pcln_elf_info info;
	pcln_elf_section sec;
	pcln_err err;
	size_t i;

	(void)pcln_elf_is_elf(buf, size);
	if (pcln_elf_get_info(buf, size, &info, &err) == 0) {
		for (i = 0; i < info.nsections && i < 4096; i++)
			if (pcln_elf_get_section(buf, size, i, &sec,
			    &err) == 0)
				inside(buf, size, &sec);
		(void)pcln_elf_get_section(buf, size, info.nsections, &sec,
		    &err);
		if (pcln_elf_find_section(buf, size, ".text", &sec, &err) == 1)
			inside(buf, size, &sec);
		if (pcln_elf_find_pcln(buf, size, &sec, &err) == 1)
			inside(buf, size, &sec);
	} else if (err.msg[0] == '\0') {
		abort();
	}
	{
		pcln_perf_syms *plt = pcln_perf_syms_plt(buf, size, &err),
		    *lazy = pcln_perf_syms_plt_lazy(buf, size, NULL);
		pcln_elf_section a, b;
		int ha = pcln_elf_find_section(buf, size, ".plt", &a, NULL) ==
		    1, hb = pcln_elf_find_section(buf, size, ".plt.sec", &b,
		    NULL) == 1;

		if (plt == NULL && err.code != PCLN_ENOTFOUND &&
		    err.code != PCLN_ENOMEM)
			abort();
		for (i = 0; plt != NULL && i < 64; i++) {
			uint64_t at = (hb ? b.addr : ha ? a.addr : 0) + 16 * i,
			    start = 0;
			const char *name = pcln_perf_syms_find(plt, at, &start,
			    NULL), *late;
			size_t n;

			/* Read when first asked, the same names. */
			late = lazy != NULL ? pcln_perf_syms_find(lazy, at,
			    NULL, NULL) : NULL;
			if ((name == NULL) != (late == NULL) || (name != NULL &&
			    strcmp(name, late) != 0))
				abort();

			if (!ha && !hb)
				abort();
			if (name == NULL)
				continue;
			n = strlen(name);
			if (n < 4 || strcmp(name + n - 4, "@plt") != 0 ||
			    start != at)
				abort();
		}
		pcln_perf_syms_free(plt);
		pcln_perf_syms_free(lazy);
	}
	{
		pcln_elf_segment segs[8];
		size_t n;

		if (pcln_elf_get_segments(buf, size, segs, 8, &n, &err) < 0 &&
		    n != 0)
			abort();
	}
	free(buf);
	return 0;
}
