/* pcln_elf.h -- find a section by name in an ELF image, without libelf.
 *
 * A small, bounds-checked reader of ELF section headers: ELF32 and ELF64,
 * little- and big-endian.  It reads only the ELF header, the section
 * header table and the section-name string table, and checks every offset
 * and size against the image length before it reads, so a truncated or
 * hostile file gives an error, never a read outside the buffer.
 *
 * Where a pcln blob lives in an ELF file: pcln's own section is named
 * ".pcln" (PCLN_ELF_SECTION); Go's linkers name theirs ".gopclntab"
 * (PCLN_ELF_GO_SECTION).  pcln_elf_find_pcln looks for ".pcln" first,
 * then ".gopclntab".
 *
 * Memory: nothing is allocated; results point into the caller's buffer
 * (pcln_file_build_id reads the file, or maps it for the time of the
 * call).
 * Not async-signal-safe by promise (it is in practice: no libc beyond
 * memcmp/strlen/snprintf on error).
 *
 * Errors: functions return -1 and fill an optional pcln_err (PCLN_ETRUNC,
 * PCLN_EHEADER, PCLN_EUNSUPPORTED) whose message names the ELF structure,
 * its byte offset and what was expected.
 */
#ifndef PCLN_ELF_H
#define PCLN_ELF_H

#include <stddef.h>
#include <stdint.h>

#include "pcln.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PCLN_ELF_SECTION	".pcln"
#define PCLN_ELF_GO_SECTION	".gopclntab"

/* The ELF file's identity. */
typedef struct pcln_elf_info {
	unsigned elfclass;	/* 32 or 64 */
	int bigendian;		/* 0 or 1 */
	uint16_t machine;	/* e_machine */
	uint16_t type;		/* e_type */
	size_t nsections;	/* section headers, including index 0 */
} pcln_elf_info;

/* One section header. */
typedef struct pcln_elf_section {
	const char *name;	/* NUL-terminated, inside the image */
	size_t index;
	uint32_t type;		/* sh_type; SHT_NOBITS (8) has no data */
	uint64_t flags;
	uint64_t addr;		/* sh_addr */
	uint64_t offset;	/* sh_offset: file offset of the data */
	uint64_t size;		/* sh_size */
	const uint8_t *data;	/* BUF + offset, or NULL for SHT_NOBITS */
	uint64_t addralign;	/* sh_addralign */
} pcln_elf_section;

/* 1 if BUF[0..LEN) starts with the ELF magic "\177ELF", else 0. */
int pcln_elf_is_elf(const uint8_t *buf, size_t len);

/* Check the ELF header and section header table of BUF[0..LEN) and fill
 * *INFO.  Returns 0 or -1. */
int pcln_elf_get_info(const uint8_t *buf, size_t len, pcln_elf_info *info,
    pcln_err *err);

/* Section header I (0 <= I < nsections) of BUF[0..LEN), with its name and
 * (unless SHT_NOBITS) its data checked to lie inside the image.  Returns
 * 0 or -1. */
int pcln_elf_get_section(const uint8_t *buf, size_t len, size_t i,
    pcln_elf_section *sec, pcln_err *err);

/* Find the first section named NAME.  Returns 1 and fills *SEC if found,
 * 0 if there is none, -1 on a malformed image. */
int pcln_elf_find_section(const uint8_t *buf, size_t len, const char *name,
    pcln_elf_section *sec, pcln_err *err);

/* Find the section holding a pcln blob: PCLN_ELF_SECTION, else
 * PCLN_ELF_GO_SECTION.  Returns 1 and fills *SEC, 0 if neither exists,
 * -1 on a malformed image or if the section found has no data in the
 * file (SHT_NOBITS). */
int pcln_elf_find_pcln(const uint8_t *buf, size_t len, pcln_elf_section *sec,
    pcln_err *err);

/* The build-id of BUF[0..LEN): the first NT_GNU_BUILD_ID note in an
 * SHT_NOTE section, else (no such section, or no usable section
 * headers: an image read from memory) in a PT_NOTE segment; the notes
 * are read by pclnrt_note_build_id, the one reader of them.  Returns 1
 * with *ID (into BUF) and *IDLEN, 0 if there is none, -1 if neither the
 * section headers nor the program headers can be read. */
int pcln_elf_build_id(const uint8_t *buf, size_t len, const uint8_t **id,
    size_t *idlen, pcln_err *err);

/* The build-id of the ELF file PATH: 1 and ID[0..*LEN) filled (at most
 * PCLN_BUILDID_MAX, 64, bytes: a longer one counts as none), 0 if it has
 * none, -1 if it cannot be read or is not ELF.  Reads its PT_NOTE
 * segments with pread (a linked program or library: no mapping, no page
 * fault), else maps the file and reads its notes only. */
int pcln_file_build_id(const char *path, uint8_t *id, size_t *len,
    pcln_err *err);

/* One program header (segment). */
#define PCLN_PT_LOAD	1
#define PCLN_PT_NOTE	4
#define PCLN_PF_X	0x1

typedef struct pcln_elf_segment {
	uint32_t type;		/* p_type: PCLN_PT_LOAD, PCLN_PT_NOTE, ... */
	uint32_t flags;		/* p_flags: PCLN_PF_X, ... */
	uint64_t offset;	/* p_offset */
	uint64_t vaddr;		/* p_vaddr */
	uint64_t filesz, memsz, align;
} pcln_elf_segment;

/* The program headers of BUF[0..LEN) (ELF32 or ELF64, either byte
 * order; only the ELF header and the program header table are read, so
 * BUF may be an image taken from memory, without section headers).
 * Stores the first MAX in SEGS[0..MAX) and their total number in *N.
 * Returns 0, or -1 (*N 0) if the header or the table does not fit. */
int pcln_elf_get_segments(const uint8_t *buf, size_t len,
    pcln_elf_segment *segs, size_t max, size_t *n, pcln_err *err);

#ifdef __cplusplus
}
#endif

#endif /* PCLN_ELF_H */
