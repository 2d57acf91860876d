/* buildid.c -- build-ids: the NT_GNU_BUILD_ID note of an ELF image or of
 * a running object (its program headers, as dl_iterate_phdr gives them),
 * and the comparison with a table's BUILDID section (pclnrt.h; the
 * section is found by pclnrt_init).
 *
 * A note is namesz, descsz, type (three 4-byte words in the object's
 * byte order), the name, padding to the note area's alignment (4, or 8
 * for an 8-aligned PT_NOTE/SHT_NOTE, as .note.gnu.property is), then the
 * descriptor, padded the same way.  The build-id is the descriptor of the note named "GNU"
 * with type 3.
 */
#include "rt_private.h"

#define NT_GNU_BUILD_ID	3u
#define PT_NOTE		4u

int
pclnrt_note_build_id(const void *notes, size_t len, size_t align, int big,
    const uint8_t **id, size_t *idlen)
{
	const uint8_t *p = notes;
	uint64_t off = 0, a = align == 8 ? 8 : 4;

	if (p == NULL)
		return PCLNRT_NOTFOUND;
	/* Each note takes at least 12 bytes: at most LEN / 12 rounds. */
	while (len >= 12 && off <= len - 12) {
		uint64_t namesz = pclnrt_load32(p + off, big);
		uint64_t descsz = pclnrt_load32(p + off + 4, big);
		uint32_t type = pclnrt_load32(p + off + 8, big);
		uint64_t name = off + 12;
		/* Offsets from the area's start, which is aligned: the
		 * descriptor and the next note start at a multiple of A
		 * (for A = 8 the padding after the name is not namesz's). */
		uint64_t desc = (name + namesz + a - 1) & ~(a - 1);

		if (desc > len || descsz > len - desc)
			return PCLNRT_CORRUPT;
		if (type == NT_GNU_BUILD_ID && namesz == 4 && descsz > 0 &&
		    p[name] == 'G' && p[name + 1] == 'N' && p[name + 2] == 'U' &&
		    p[name + 3] == 0) {
			*id = p + desc;
			*idlen = (size_t)descsz;
			return PCLNRT_OK;
		}
		off = desc + ((descsz + a - 1) & ~(a - 1));
	}
	return PCLNRT_NOTFOUND;
}

/* The host's program header, read field by field (no <elf.h>). */
#if UINTPTR_MAX > 0xffffffffu
#define PHDR_SIZE	56u
#define PHDR_TYPE	0u
#define PHDR_VADDR	16u
#define PHDR_FILESZ	32u
#define PHDR_ALIGN	48u
#define loadword(p)	pclnrt_load64((p), HOST_BIG)
#else
#define PHDR_SIZE	32u
#define PHDR_TYPE	0u
#define PHDR_VADDR	8u
#define PHDR_FILESZ	16u
#define PHDR_ALIGN	28u
#define loadword(p)	pclnrt_load32((p), HOST_BIG)
#endif
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define HOST_BIG	1
#else
#define HOST_BIG	0
#endif

int
pclnrt_phdr_build_id(const void *phdr, size_t phnum, uintptr_t bias,
    const uint8_t **id, size_t *idlen)
{
	const uint8_t *ph = phdr;
	size_t i;

	if (ph == NULL || phnum > PCLNRT_MAX_PHNUM)
		return PCLNRT_NOTFOUND;
	for (i = 0; i < phnum; i++) {
		const uint8_t *h = ph + i * PHDR_SIZE;
		uintptr_t vaddr, size;

		if (pclnrt_load32(h + PHDR_TYPE, HOST_BIG) != PT_NOTE)
			continue;
		vaddr = (uintptr_t)loadword(h + PHDR_VADDR);
		size = (uintptr_t)loadword(h + PHDR_FILESZ);
		if (pclnrt_note_build_id((const void *)(bias + vaddr),
		    size, (size_t)loadword(h + PHDR_ALIGN), HOST_BIG, id,
		    idlen) == PCLNRT_OK)
			return PCLNRT_OK;
	}
	return PCLNRT_NOTFOUND;
}

int
pclnrt_table_build_id(const pclnrt_table *t, const uint8_t **id,
    size_t *idlen)
{
	if (t->buildid == NULL)
		return PCLNRT_NOTFOUND;
	*id = t->buildid;
	*idlen = t->buildidlen;
	return PCLNRT_OK;
}

int
pclnrt_check_build_id(const pclnrt_table *t, const uint8_t *id, size_t len)
{
	size_t i;

	if (t->buildid == NULL || id == NULL || len == 0)
		return PCLNRT_NOTFOUND;
	if (len != t->buildidlen)
		return PCLNRT_BUILDID_MISMATCH;
	/* The blob is read through the portability layer (pclnrt_format.h),
	 * as every runtime read of a blob is. */
	for (i = 0; PCLNRT_BOUND(i, PCLN_BUILDID_MAX) && i < len; i++)
		if (pclnrt_load8(t->buildid + i) != id[i])
			return PCLNRT_BUILDID_MISMATCH;
	return PCLNRT_OK;
}
