/* elf.c -- find a section by name in an ELF image (see pcln_elf.h).
 *
 * Every read goes through in_image(), which checks OFF + N <= LEN without
 * overflow; so does every derived range (section header table, the
 * section-name string table, each section's data).
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "pcln_elf.h"
#include "pclnrt.h"

/* ELF constants used here (from the System V ABI). */
#define EI_CLASS	4
#define EI_DATA		5
#define EI_VERSION	6
#define ELFCLASS32	1
#define ELFCLASS64	2
#define ELFDATA2LSB	1
#define ELFDATA2MSB	2
#define EV_CURRENT	1
#define SHT_NOTE	7
#define SHT_NOBITS	8
#define SHN_UNDEF	0
#define SHN_LORESERVE	0xff00u
#define SHN_XINDEX	0xffffu

/* Header field offsets: [0] for ELF32, [1] for ELF64. */
static const unsigned ehdr_size[2] = { 52, 64 };
static const unsigned e_shoff[2] = { 32, 40 };
static const unsigned e_shentsize[2] = { 46, 58 };
static const unsigned e_shnum[2] = { 48, 60 };
static const unsigned e_shstrndx[2] = { 50, 62 };
static const unsigned shdr_size[2] = { 40, 64 };
static const unsigned sh_flags[2] = { 8, 8 };
static const unsigned sh_addr[2] = { 12, 16 };
static const unsigned sh_offset[2] = { 16, 24 };
static const unsigned sh_size[2] = { 20, 32 };
static const unsigned sh_link[2] = { 24, 40 };
static const unsigned sh_addralign[2] = { 32, 48 };

/* A checked view of the image. */
struct elf {
	const uint8_t *buf;
	size_t len;
	int c64;		/* 0 ELF32, 1 ELF64 */
	int big;
	uint64_t shoff;
	size_t shnum;
	size_t shstrndx;
	uint64_t stroff, strsize;	/* section-name string table */
};

/* 1 if [OFF, OFF + N) lies inside the image. */
static int
in_image(const struct elf *e, uint64_t off, uint64_t n)
{
	return off <= e->len && n <= e->len - off;
}

static uint16_t
load16(const uint8_t *p, int big)
{
	return big ? (uint16_t)(p[0] << 8 | p[1]) :
	    (uint16_t)(p[1] << 8 | p[0]);
}

/* A field that is 4 bytes in ELF32 and 8 in ELF64. */
static uint64_t
loadword(const struct elf *e, const uint8_t *p)
{
	return e->c64 ? pclnrt_load64(p, e->big) : pclnrt_load32(p, e->big);
}

static const uint8_t *
shdr(const struct elf *e, size_t i)
{
	return e->buf + e->shoff + (uint64_t)i * shdr_size[e->c64];
}

int
pcln_elf_is_elf(const uint8_t *buf, size_t len)
{
	return buf != NULL && len >= 4 && memcmp(buf, "\177ELF", 4) == 0;
}

static int
elf_open(struct elf *e, const uint8_t *buf, size_t len, pcln_err *err)
{
	unsigned shentsize;
	uint64_t shnum, strndx, tabsize;
	const uint8_t *s;

	memset(e, 0, sizeof *e);
	e->buf = buf;
	e->len = len;
	if (!pcln_elf_is_elf(buf, len)) {
		pclni_seterr(err, PCLN_EMAGIC, 0, "not an ELF file: "
		    "expected \\177ELF at offset 0x0");
		return -1;
	}
	if (len < 16) {
		pclni_seterr(err, PCLN_ETRUNC, (int64_t)len,
		    "ELF identification "
		    "truncated at offset 0x%zx: expected 16 bytes", len);
		return -1;
	}
	if (buf[EI_CLASS] != ELFCLASS32 && buf[EI_CLASS] != ELFCLASS64) {
		pclni_seterr(err, PCLN_EHEADER, EI_CLASS,
		    "ELF class %u at offset "
		    "0x%x: expected 1 (ELF32) or 2 (ELF64)", buf[EI_CLASS],
		    EI_CLASS);
		return -1;
	}
	if (buf[EI_DATA] != ELFDATA2LSB && buf[EI_DATA] != ELFDATA2MSB) {
		pclni_seterr(err, PCLN_EHEADER, EI_DATA,
		    "ELF data encoding %u at "
		    "offset 0x%x: expected 1 (little-endian) or 2 (big-endian)",
		    buf[EI_DATA], EI_DATA);
		return -1;
	}
	if (buf[EI_VERSION] != EV_CURRENT) {
		pclni_seterr(err, PCLN_EHEADER, EI_VERSION, "ELF version %u at "
		    "offset 0x%x: expected 1", buf[EI_VERSION], EI_VERSION);
		return -1;
	}
	e->c64 = buf[EI_CLASS] == ELFCLASS64;
	e->big = buf[EI_DATA] == ELFDATA2MSB;
	if (len < ehdr_size[e->c64]) {
		pclni_seterr(err, PCLN_ETRUNC, (int64_t)len,
		    "ELF header truncated: "
		    "file has 0x%zx bytes, the ELF%d header needs 0x%x", len,
		    e->c64 ? 64 : 32, ehdr_size[e->c64]);
		return -1;
	}
	e->shoff = loadword(e, buf + e_shoff[e->c64]);
	shentsize = load16(buf + e_shentsize[e->c64], e->big);
	shnum = load16(buf + e_shnum[e->c64], e->big);
	strndx = load16(buf + e_shstrndx[e->c64], e->big);
	if (e->shoff == 0) {
		pclni_seterr(err, PCLN_EHEADER, e_shoff[e->c64],
		    "ELF header: no "
		    "section header table (e_shoff 0 at offset 0x%x)",
		    e_shoff[e->c64]);
		return -1;
	}
	if (shentsize != shdr_size[e->c64]) {
		pclni_seterr(err, PCLN_EHEADER, e_shentsize[e->c64],
		    "ELF header: "
		    "e_shentsize %u at offset 0x%x: expected %u", shentsize,
		    e_shentsize[e->c64], shdr_size[e->c64]);
		return -1;
	}
	/* Section 0 must be readable: it holds the extended counts. */
	if (!in_image(e, e->shoff, shdr_size[e->c64])) {
		pclni_seterr(err, PCLN_ETRUNC, (int64_t)e->shoff,
		    "section header "
		    "table at offset 0x%llx runs past the file end 0x%zx",
		    (unsigned long long)e->shoff, len);
		return -1;
	}
	s = shdr(e, 0);
	if (shnum == 0)
		shnum = loadword(e, s + sh_size[e->c64]);
	if (strndx == SHN_XINDEX)
		strndx = pclnrt_load32(s + sh_link[e->c64], e->big);
	tabsize = shnum * shdr_size[e->c64];
	if (shnum == 0 || shnum > len / shdr_size[e->c64] ||
	    !in_image(e, e->shoff, tabsize)) {
		pclni_seterr(err, PCLN_ETRUNC, (int64_t)e->shoff,
		    "section header "
		    "table at offset 0x%llx with %llu entries of %u bytes runs "
		    "past the file end 0x%zx", (unsigned long long)e->shoff,
		    (unsigned long long)shnum, shdr_size[e->c64], len);
		return -1;
	}
	e->shnum = (size_t)shnum;
	if (strndx == SHN_UNDEF || strndx >= shnum) {
		pclni_seterr(err, PCLN_EHEADER, e_shstrndx[e->c64],
		    "ELF header: "
		    "section-name table index %llu: expected 1..%llu",
		    (unsigned long long)strndx,
		    (unsigned long long)(shnum - 1));
		return -1;
	}
	e->shstrndx = (size_t)strndx;
	s = shdr(e, e->shstrndx);
	e->stroff = loadword(e, s + sh_offset[e->c64]);
	e->strsize = loadword(e, s + sh_size[e->c64]);
	if (pclnrt_load32(s + 4, e->big) == SHT_NOBITS ||
	    !in_image(e, e->stroff, e->strsize)) {
		pclni_seterr(err, PCLN_ETRUNC, (int64_t)e->stroff,
		    "section-name "
		    "table (section %zu) at offset 0x%llx, size 0x%llx, lies "
		    "outside the file (0x%zx bytes)", e->shstrndx,
		    (unsigned long long)e->stroff,
		    (unsigned long long)e->strsize, len);
		return -1;
	}
	return 0;
}

int
pcln_elf_get_info(const uint8_t *buf, size_t len, pcln_elf_info *info,
    pcln_err *err)
{
	struct elf e;

	if (elf_open(&e, buf, len, err) < 0)
		return -1;
	info->elfclass = e.c64 ? 64 : 32;
	info->bigendian = e.big;
	info->type = load16(buf + 16, e.big);
	info->machine = load16(buf + 18, e.big);
	info->nsections = e.shnum;
	return 0;
}

static int
get_section(const struct elf *e, size_t i, pcln_elf_section *sec,
    pcln_err *err)
{
	const uint8_t *s = shdr(e, i);
	uint32_t nameoff = pclnrt_load32(s, e->big);
	const uint8_t *name, *nul;

	memset(sec, 0, sizeof *sec);
	if (nameoff >= e->strsize) {
		pclni_seterr(err, PCLN_ESTRING, (int64_t)(s - e->buf),
		    "section %zu "
		    "header at offset 0x%llx: name offset 0x%x beyond the "
		    "section-name table size 0x%llx", i,
		    (unsigned long long)(s - e->buf), nameoff,
		    (unsigned long long)e->strsize);
		return -1;
	}
	name = e->buf + e->stroff + nameoff;
	nul = memchr(name, 0, (size_t)(e->strsize - nameoff));
	if (nul == NULL) {
		pclni_seterr(err, PCLN_ESTRING, (int64_t)(e->stroff + nameoff),
		    "section %zu name at offset 0x%llx: no NUL before the end "
		    "of the section-name table", i,
		    (unsigned long long)(e->stroff + nameoff));
		return -1;
	}
	sec->name = (const char *)name;
	sec->index = i;
	sec->type = pclnrt_load32(s + 4, e->big);
	sec->flags = loadword(e, s + sh_flags[e->c64]);
	sec->addr = loadword(e, s + sh_addr[e->c64]);
	sec->offset = loadword(e, s + sh_offset[e->c64]);
	sec->size = loadword(e, s + sh_size[e->c64]);
	sec->addralign = loadword(e, s + sh_addralign[e->c64]);
	if (sec->type == SHT_NOBITS)
		return 0;
	if (!in_image(e, sec->offset, sec->size)) {
		pclni_seterr(err, PCLN_ETRUNC, (int64_t)sec->offset,
		    "section %zu "
		    "(%s) at offset 0x%llx, size 0x%llx, runs past the file "
		    "end 0x%zx", i, sec->name,
		    (unsigned long long)sec->offset,
		    (unsigned long long)sec->size, e->len);
		return -1;
	}
	sec->data = e->buf + sec->offset;
	return 0;
}

int
pcln_elf_get_section(const uint8_t *buf, size_t len, size_t i,
    pcln_elf_section *sec, pcln_err *err)
{
	struct elf e;

	if (elf_open(&e, buf, len, err) < 0)
		return -1;
	if (i >= e.shnum) {
		pclni_seterr(err, PCLN_EINVAL, -1,
		    "section index %zu: the file has "
		    "%zu sections", i, e.shnum);
		return -1;
	}
	return get_section(&e, i, sec, err);
}

int
pcln_elf_find_section(const uint8_t *buf, size_t len, const char *name,
    pcln_elf_section *sec, pcln_err *err)
{
	struct elf e;
	size_t i;

	if (elf_open(&e, buf, len, err) < 0)
		return -1;
	/* Section 0 is the null section; it has no name to match. */
	for (i = 1; i < e.shnum; i++) {
		const uint8_t *s = shdr(&e, i);
		uint32_t nameoff = pclnrt_load32(s, e.big);
		size_t n = strlen(name);

		/* Compare without reading past the table, then check it all. */
		if (nameoff >= e.strsize || e.strsize - nameoff < n + 1 ||
		    memcmp(e.buf + e.stroff + nameoff, name, n + 1) != 0)
			continue;
		if (get_section(&e, i, sec, err) < 0)
			return -1;
		return 1;
	}
	return 0;
}

int
pcln_elf_find_pcln(const uint8_t *buf, size_t len, pcln_elf_section *sec,
    pcln_err *err)
{
	static const char *const names[] = {
		PCLN_ELF_SECTION, PCLN_ELF_GO_SECTION
	};
	size_t k;

	for (k = 0; k < sizeof names / sizeof names[0]; k++) {
		int rc = pcln_elf_find_section(buf, len, names[k], sec, err);
		if (rc < 0)
			return -1;
		if (rc == 0)
			continue;
		if (sec->type == SHT_NOBITS) {
			pclni_seterr(err, PCLN_EUNSUPPORTED, -1,
			    "section %s (index "
			    "%zu) has no data in the file (SHT_NOBITS)",
			    sec->name, sec->index);
			return -1;
		}
		return 1;
	}
	return 0;
}

int
pcln_elf_build_id(const uint8_t *buf, size_t len, const uint8_t **id,
    size_t *idlen, pcln_err *err)
{
	pcln_elf_segment segs[64];
	struct elf e;
	size_t i, nseg;

	if (elf_open(&e, buf, len, err) == 0) {
		for (i = 1; i < e.shnum; i++) {
			pcln_elf_section sec;

			if (pclnrt_load32(shdr(&e, i) + 4, e.big) != SHT_NOTE)
				continue;
			if (get_section(&e, i, &sec, err) < 0)
				return -1;
			if (pclnrt_note_build_id(sec.data, (size_t)sec.size,
			    (size_t)sec.addralign, e.big, id, idlen) ==
			    PCLNRT_OK)
				return 1;
		}
	}
	/* No note section, or no usable section headers (an image read
	 * from memory): the PT_NOTE segments, at their file offsets. */
	if (pcln_elf_get_segments(buf, len, segs, 64, &nseg, NULL) < 0)
		return -1;	/* ERR: elf_open's */
	pclni_clearerr(err);
	for (i = 0; i < nseg && i < 64; i++) {
		uint64_t off = segs[i].offset, n = segs[i].filesz;

		if (segs[i].type != PCLN_PT_NOTE || off > len || n > len - off)
			continue;
		if (pclnrt_note_build_id(buf + off, (size_t)n,
		    (size_t)segs[i].align, buf[EI_DATA] == ELFDATA2MSB, id,
		    idlen) == PCLNRT_OK)
			return 1;
	}
	return 0;
}

/* The build-id of the ELF file FD (SIZE bytes) from its PT_NOTE
 * segments, read with pread: 1 and *ID, *LEN; 0 if not found so (no
 * program headers in the first 4 KiB, notes larger than 4 KiB, not ELF:
 * the caller maps the file).  A mapping costs a page fault at the first
 * touch of each 64 KiB it reads, the section headers at the file's end
 * and the notes at its start: 15 to 90 us each on a guest measured here
 * (doc/PERFORMANCE.md, 2026-12-05), where a pread of 4 KiB costs 1.5
 * us; a profile's start asks for the build-id of every object. */
static int
fd_build_id(int fd, uint64_t size, uint8_t *id, size_t *len)
{
	uint8_t head[4096], note[4096];
	pcln_elf_segment segs[64];
	const uint8_t *p;
	size_t nseg, i, n, pn;
	ssize_t r;

	if ((r = pread(fd, head, sizeof head, 0)) < 64 ||
	    pcln_elf_get_segments(head, (size_t)r, segs, 64, &nseg,
	    NULL) < 0)
		return 0;
	for (i = 0; i < nseg && i < 64; i++) {
		n = (size_t)segs[i].filesz;
		if (segs[i].type != PCLN_PT_NOTE || segs[i].filesz >
		    sizeof note || segs[i].offset > size || n > size -
		    segs[i].offset || pread(fd, note, n,
		    (off_t)segs[i].offset) != (ssize_t)n)
			continue;
		if (pclnrt_note_build_id(note, n, (size_t)segs[i].align,
		    head[EI_DATA] == ELFDATA2MSB, &p, &pn) == PCLNRT_OK &&
		    pn <= PCLN_BUILDID_MAX) {
			memcpy(id, p, pn);
			*len = pn;
			return 1;
		}
	}
	return 0;
}

int
pcln_file_build_id(const char *path, uint8_t *id, size_t *len,
    pcln_err *err)
{
	struct stat st;
	const uint8_t *p;
	size_t n;
	void *map;
	int fd, rc;

	pclni_clearerr(err);
	*len = 0;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return pclni_seterr(err, PCLN_EIO, -1, "%s: %s", path,
		    strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size < 16 ||
	    (uintmax_t)st.st_size > SIZE_MAX) {
		close(fd);
		return pclni_seterr(err, PCLN_EHEADER, -1,
		    "%s: not an ELF file (expected a regular file starting "
		    "with \\177ELF)", path);
	}
	if (fd_build_id(fd, (uint64_t)st.st_size, id, len) == 1) {
		close(fd);
		return 1;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return pclni_seterr(err, PCLN_EIO, -1, "%s: cannot map: %s",
		    path, strerror(errno));
	rc = pcln_elf_build_id(map, (size_t)st.st_size, &p, &n, err);
	if (rc < 0) {
		char msg[sizeof err->msg];

		if (err != NULL) {
			snprintf(msg, sizeof msg, "%s", err->msg);
			pclni_seterr(err, err->code, err->offset, "%s: %s",
			    path, msg);
		}
	} else if (rc == 1 && n <= PCLN_BUILDID_MAX) {
		memcpy(id, p, n);
		*len = n;
	} else
		rc = 0;
	munmap(map, (size_t)st.st_size);
	return rc;
}

/* Program header fields: [0] ELF32, [1] ELF64. */
static const unsigned e_phoff[2] = { 28, 32 };
static const unsigned e_phentsize[2] = { 42, 54 };
static const unsigned e_phnum[2] = { 44, 56 };
static const unsigned phdr_size[2] = { 32, 56 };

int
pcln_elf_get_segments(const uint8_t *buf, size_t len, pcln_elf_segment *segs,
    size_t max, size_t *n, pcln_err *err)
{
	struct elf e;
	uint64_t phoff;
	unsigned entsize, num, i;

	*n = 0;
	memset(&e, 0, sizeof e);
	e.buf = buf;
	e.len = len;
	if (!pcln_elf_is_elf(buf, len) || len < 16)
		return pclni_seterr(err, PCLN_EMAGIC, 0, "not an ELF image: "
		    "expected \\177ELF and 16 identification bytes at 0x0");
	if ((buf[EI_CLASS] != ELFCLASS32 && buf[EI_CLASS] != ELFCLASS64) ||
	    (buf[EI_DATA] != ELFDATA2LSB && buf[EI_DATA] != ELFDATA2MSB))
		return pclni_seterr(err, PCLN_EHEADER, EI_CLASS, "ELF class "
		    "%u, data encoding %u at offset 0x4: expected 1 or 2 each",
		    buf[EI_CLASS], buf[EI_DATA]);
	e.c64 = buf[EI_CLASS] == ELFCLASS64;
	e.big = buf[EI_DATA] == ELFDATA2MSB;
	if (len < ehdr_size[e.c64])
		return pclni_seterr(err, PCLN_ETRUNC, (int64_t)len, "ELF "
		    "header truncated: 0x%zx bytes, the ELF%d header needs "
		    "0x%x", len, e.c64 ? 64 : 32, ehdr_size[e.c64]);
	phoff = loadword(&e, buf + e_phoff[e.c64]);
	entsize = load16(buf + e_phentsize[e.c64], e.big);
	num = load16(buf + e_phnum[e.c64], e.big);
	if (num == 0)
		return 0;
	if (entsize < phdr_size[e.c64])
		return pclni_seterr(err, PCLN_EHEADER, e_phentsize[e.c64],
		    "program header size %u at offset 0x%x: expected at "
		    "least %u", entsize, e_phentsize[e.c64],
		    phdr_size[e.c64]);
	if (!in_image(&e, phoff, (uint64_t)num * entsize))
		return pclni_seterr(err, PCLN_ETRUNC, (int64_t)phoff,
		    "program header table at offset 0x%" PRIx64 " (%u "
		    "entries of %u bytes) beyond the image's 0x%zx bytes",
		    phoff, num, entsize, len);
	for (i = 0; i < num && i < max; i++) {
		const uint8_t *p = buf + phoff + (uint64_t)i * entsize;
		pcln_elf_segment *s = &segs[i];

		s->type = pclnrt_load32(p, e.big);
		if (e.c64) {
			s->flags = pclnrt_load32(p + 4, e.big);
			s->offset = pclnrt_load64(p + 8, e.big);
			s->vaddr = pclnrt_load64(p + 16, e.big);
			s->filesz = pclnrt_load64(p + 32, e.big);
			s->memsz = pclnrt_load64(p + 40, e.big);
			s->align = pclnrt_load64(p + 48, e.big);
		} else {
			s->offset = pclnrt_load32(p + 4, e.big);
			s->vaddr = pclnrt_load32(p + 8, e.big);
			s->filesz = pclnrt_load32(p + 16, e.big);
			s->memsz = pclnrt_load32(p + 20, e.big);
			s->flags = pclnrt_load32(p + 24, e.big);
			s->align = pclnrt_load32(p + 28, e.big);
		}
	}
	*n = num;
	return 0;
}
