/* dwp.c -- split DWARF in a .dwp package, for libdw versions that read
 * .dwo files but not packages (elfutils 0.188 in Debian 12; 0.191 reads
 * both, and then this file does nothing).
 *
 * A package holds the split units of many compile units, their sections
 * concatenated, with an index (.debug_cu_index: DWARF 5 section 7.3.5,
 * or its GNU version 2 for DWARF 4) from each unit's 64-bit id to its
 * contribution (offset, size) in each section.  libdw 0.188 finds a
 * skeleton's split unit only as a file, DW_AT_dwo_name in the directory
 * of the file it read the skeleton from (then in DW_AT_comp_dir).  So:
 * for every skeleton whose .dwo is missing, the unit's contributions are
 * written as a one-unit .dwo file under DW_AT_dwo_name in a private
 * temporary directory; the skeleton's own .debug_* sections are copied
 * into that directory too, and libdw reads the DWARF from that copy,
 * where it finds the unpacked units.  The directory is removed by
 * pcln_debuginfo_close.  Only the index is parsed here (bounds-checked:
 * pclni_dwp_index_*, fuzzed by fuzz/fuzz_dwp); libdw reads the units.
 *
 * A skeleton with an absolute DW_AT_dwo_name cannot be pointed at the
 * copy; its unit stays unread (the importer counts and reports it).
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "find_internal.h"
#include "dwp_index.h"

/* --- the index ----------------------------------------------------------- */

static uint16_t
load16(const uint8_t *p, int big)
{
	return big ? (uint16_t)(p[0] << 8 | p[1]) :
	    (uint16_t)(p[1] << 8 | p[0]);
}

int
pclni_dwp_index_open(struct pclni_dwp_index *ix, const uint8_t *buf,
    size_t len, int big, pcln_err *err)
{
	uint64_t n, u, s, end;

	memset(ix, 0, sizeof *ix);
	if (buf == NULL || len < 16)
		return pclni_seterr(err, PCLN_ETRUNC, 0, ".debug_cu_index: "
		    "%zu bytes, shorter than its 16-byte header", len);
	if (pclnrt_load32(buf, big) == 2)
		ix->version = 2;
	else if (load16(buf, big) == 5 && load16(buf + 2, big) == 0)
		ix->version = 5;
	else
		return pclni_seterr(err, PCLN_EHEADER, 0, ".debug_cu_index: "
		    "version word 0x%08x at offset 0x0 (expected 2, the GNU "
		    "DWARF 4 extension, or 5)", pclnrt_load32(buf, big));
	n = pclnrt_load32(buf + 4, big);
	u = pclnrt_load32(buf + 8, big);
	s = pclnrt_load32(buf + 12, big);
	if (n > PCLNI_DWP_MAX_COLUMNS)
		return pclni_seterr(err, PCLN_ERANGE, 4, ".debug_cu_index: %llu "
		    "sections per unit at offset 0x4 (expected at most %d)",
		    (unsigned long long)n, PCLNI_DWP_MAX_COLUMNS);
	if ((s & (s - 1)) != 0 || (u > 0 && s == 0))
		return pclni_seterr(err, PCLN_EHEADER, 12, ".debug_cu_index: "
		    "%llu hash slots at offset 0xc (expected a power of 2, "
		    "nonzero with %llu units)", (unsigned long long)s,
		    (unsigned long long)u);
	ix->ncols = (uint32_t)n;
	ix->nunits = (uint32_t)u;
	ix->nslots = (uint32_t)s;
	ix->hashoff = 16;
	ix->idxoff = 16 + 8 * s;
	ix->coloff = ix->idxoff + 4 * s;
	ix->offoff = ix->coloff + 4 * n;
	ix->sizeoff = ix->offoff + 4 * n * u;
	end = ix->sizeoff + 4 * n * u;
	if (end > len)
		return pclni_seterr(err, PCLN_ETRUNC, (int64_t)len,
		    ".debug_cu_index: %llu units of %llu sections in %llu slots "
		    "need 0x%llx bytes, the section has 0x%zx",
		    (unsigned long long)u, (unsigned long long)n,
		    (unsigned long long)s, (unsigned long long)end, len);
	ix->buf = buf;
	ix->len = len;
	ix->big = big;
	return 0;
}

uint32_t
pclni_dwp_index_find(const struct pclni_dwp_index *ix, uint64_t id)
{
	uint64_t mask, h, h2;
	uint32_t k;

	if (ix->nslots == 0)
		return 0;
	mask = ix->nslots - 1;
	h = id & mask;
	h2 = ((id >> 32) & mask) | 1;
	/* Every slot at most once. */
	for (k = 0; k < ix->nslots; k++) {
		uint64_t sig = pclnrt_load64(ix->buf + ix->hashoff + 8 * h,
		    ix->big);
		uint32_t row = pclnrt_load32(ix->buf + ix->idxoff + 4 * h,
		    ix->big);

		if (row == 0 && sig == 0)
			return 0;	/* an empty slot: not there */
		if (sig == id)
			return row <= ix->nunits ? row : 0;
		h = (h + h2) & mask;
	}
	return 0;
}

int
pclni_dwp_index_contrib(const struct pclni_dwp_index *ix, uint32_t row,
    uint32_t sect, uint32_t *off, uint32_t *size)
{
	uint32_t c;

	if (row == 0 || row > ix->nunits)
		return 0;
	for (c = 0; c < ix->ncols; c++) {
		uint64_t at = 4 * ((uint64_t)(row - 1) * ix->ncols + c);

		if (pclnrt_load32(ix->buf + ix->coloff + 4 * c, ix->big) !=
		    sect)
			continue;
		*off = pclnrt_load32(ix->buf + ix->offoff + at, ix->big);
		*size = pclnrt_load32(ix->buf + ix->sizeoff + at, ix->big);
		return 1;
	}
	return 0;
}

#ifndef HAVE_DWARF_CU_DWP_SECTION_INFO

/* --- unpacking ---------------------------------------------------------- */

/* The package's sections a unit may have a contribution in, by the
 * index's section ids (version 2 | version 5); STR is not indexed (all
 * units share it). */
static const struct {
	const char *name;
	uint32_t v2, v5;
} sects[] = {
	{ ".debug_info.dwo", 1, 1 },
	{ ".debug_abbrev.dwo", 3, 3 },
	{ ".debug_line.dwo", 4, 4 },
	{ ".debug_loc.dwo", 5, 0 },
	{ ".debug_loclists.dwo", 0, 5 },
	{ ".debug_str_offsets.dwo", 6, 6 },
	{ ".debug_macinfo.dwo", 7, 0 },
	{ ".debug_macro.dwo", 8, 7 },
	{ ".debug_rnglists.dwo", 0, 8 },
};
#define NSECTS	(sizeof sects / sizeof sects[0])

struct outsec {
	const char *name;
	const void *data;
	size_t size;
};

/* Remember a file or directory made in the private directory. */
static int
made(struct pcln_debuginfo *d, const char *path, pcln_err *err)
{
	char *p = strdup(path);

	if (p == NULL || pclni_grow(&d->tmpfiles, &d->captmp, d->ntmp + 1,
	    sizeof *d->tmpfiles) < 0) {
		free(p);
		return pclni_find_nomem(err);
	}
	d->tmpfiles[d->ntmp++] = p;
	return 0;
}

/* Write an ELF file PATH (class, byte order, machine and type of REF)
 * holding SECS[0..N) as PROGBITS sections.  0, or -1 with ERR. */
static int
write_elf(struct pcln_debuginfo *d, const char *path, Elf *ref,
    const struct outsec *secs, size_t n, pcln_err *err)
{
	GElf_Ehdr rh, eh;
	Elf *e = NULL;
	Elf_Scn *scn;
	Elf_Data *data;
	GElf_Shdr sh;
	char *strtab = NULL;
	size_t strlen_ = 1, i, off;
	int fd, rc = -1;

	if (gelf_getehdr(ref, &rh) == NULL)
		return pclni_seterr(err, PCLN_EHEADER, -1, "%s: %s", d->path,
		    elf_errmsg(-1));
	for (i = 0; i < n; i++)
		strlen_ += strlen(secs[i].name) + 1;
	strlen_ += sizeof ".shstrtab";
	if ((strtab = calloc(1, strlen_)) == NULL)
		return pclni_find_nomem(err);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
	    0600)) < 0) {
		free(strtab);
		return pclni_seterr(err, PCLN_EIO, -1, "%s: cannot create: %s",
		    path, strerror(errno));
	}
	if (made(d, path, err) < 0)
		goto out;
	if ((e = elf_begin(fd, ELF_C_WRITE, NULL)) == NULL ||
	    gelf_newehdr(e, gelf_getclass(ref)) == 0 ||
	    gelf_getehdr(e, &eh) == NULL)
		goto elferr;
	eh.e_ident[EI_DATA] = rh.e_ident[EI_DATA];
	eh.e_machine = rh.e_machine;
	eh.e_type = rh.e_type;
	eh.e_version = EV_CURRENT;
	off = 1;
	for (i = 0; i <= n; i++) {
		const char *name = i < n ? secs[i].name : ".shstrtab";
		size_t k = strlen(name) + 1;

		if ((scn = elf_newscn(e)) == NULL ||
		    (data = elf_newdata(scn)) == NULL)
			goto elferr;
		memcpy(strtab + off, name, k);
		data->d_buf = i < n ? (void *)(uintptr_t)secs[i].data : strtab;
		data->d_size = i < n ? secs[i].size : strlen_;
		data->d_type = ELF_T_BYTE;
		data->d_align = 1;
		if (gelf_getshdr(scn, &sh) == NULL)
			goto elferr;
		sh.sh_name = off;
		sh.sh_type = i < n ? SHT_PROGBITS : SHT_STRTAB;
		sh.sh_flags = 0;
		sh.sh_addralign = 1;
		if (gelf_update_shdr(scn, &sh) == 0)
			goto elferr;
		off += k;
		if (i == n)
			eh.e_shstrndx = (GElf_Half)elf_ndxscn(scn);
	}
	if (gelf_update_ehdr(e, &eh) == 0 || elf_update(e, ELF_C_WRITE) < 0)
		goto elferr;
	rc = 0;
	goto out;
elferr:
	pclni_seterr(err, PCLN_EIO, -1, "%s: cannot write: %s", path,
	    elf_errmsg(-1));
out:
	if (e != NULL)
		elf_end(e);
	close(fd);
	free(strtab);
	return rc;
}

/* The data of E's section NAME, decompressed (zlib through libelf;
 * zstd was done by pclni_find_decompress), or NULL. */
static Elf_Data *
sect_data(Elf *e, const char *want)
{
	Elf_Scn *scn = pclni_find_scn(e, want);
	GElf_Shdr sh;

	if (scn == NULL || gelf_getshdr(scn, &sh) == NULL)
		return NULL;
	if ((sh.sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0)
		return NULL;
	return elf_getdata(scn, NULL);
}

/* Make the directories of REL (a relative path) under DIR; 0, or -1
 * (noted) if REL is not a plain relative name. */
static int
make_dirs(struct pcln_debuginfo *d, const char *dir, const char *rel,
    char *out, size_t outsz, pcln_err *err)
{
	const char *p = rel;
	size_t n;

	if (rel[0] == '/' || rel[0] == 0)
		return 1;
	/* No "." or ".." components, no empty ones. */
	for (p = rel; *p != 0;) {
		const char *q = strchr(p, '/');
		size_t k = q != NULL ? (size_t)(q - p) : strlen(p);
		if (k == 0 || (k == 1 && p[0] == '.') ||
		    (k == 2 && p[0] == '.' && p[1] == '.'))
			return 1;
		p += k + (q != NULL);
	}
	n = (size_t)snprintf(out, outsz, "%s/%s", dir, rel);
	if (n >= outsz)
		return 1;
	for (p = out + strlen(dir) + 1; (p = strchr(p, '/')) != NULL; p++) {
		struct stat st;
		out[p - out] = 0;
		if (stat(out, &st) != 0) {
			if (mkdir(out, 0700) < 0) {
				out[p - out] = '/';
				return pclni_seterr(err, PCLN_EIO, -1, "%s: "
				    "cannot create: %s", out, strerror(errno));
			}
			if (made(d, out, err) < 0)
				return -1;
		}
		out[p - out] = '/';
	}
	return 0;
}

/* Unpack skeleton CU's unit from the package.  1 unpacked, 0 not (noted
 * if it should have been), -1 on error. */
static int
unpack_unit(struct pcln_debuginfo *d, Dwarf_CU *cu,
    const struct pclni_dwp_index *ix, Elf_Data *const *data, Elf_Data *str,
    Elf *dwp, pcln_err *err)
{
	Dwarf_Die cudie;
	Dwarf_Attribute at;
	uint64_t id;
	uint32_t row;
	const char *name;
	char path[PATH_MAX];
	struct outsec out[NSECTS + 1];
	size_t n = 0, k;
	int rc;

	if (dwarf_cu_info(cu, NULL, NULL, &cudie, NULL, &id, NULL, NULL) != 0)
		return 0;
	if ((dwarf_attr(&cudie, DW_AT_dwo_name, &at) == NULL &&
	    dwarf_attr(&cudie, DW_AT_GNU_dwo_name, &at) == NULL) ||
	    (name = dwarf_formstring(&at)) == NULL)
		return 0;
	if ((row = pclni_dwp_index_find(ix, id)) == 0)
		return 0;
	if ((rc = make_dirs(d, d->tmpdir, name, path, sizeof path, err)) != 0) {
		if (rc > 0)
			pclni_find_note(d, "split unit %s (id 0x%016llx) is in "
			    "the package but its name is absolute (or not a "
			    "plain relative name), so libdw cannot be pointed "
			    "at it", name, (unsigned long long)id);
		return rc < 0 ? -1 : 0;
	}
	for (k = 0; k < NSECTS; k++) {
		uint32_t sect = ix->version == 5 ? sects[k].v5 : sects[k].v2;
		uint32_t off, size;

		if (sect == 0 || data[k] == NULL ||
		    !pclni_dwp_index_contrib(ix, row, sect, &off, &size))
			continue;
		if (off > data[k]->d_size || size > data[k]->d_size - off) {
			pclni_find_note(d, "%s: unit 0x%016llx: contribution "
			    "[0x%x, +0x%x) beyond %s (0x%zx bytes)",
			    d->res.dwp_file, (unsigned long long)id, off, size,
			    sects[k].name, data[k]->d_size);
			return 0;
		}
		out[n].name = sects[k].name;
		out[n].data = (const char *)data[k]->d_buf + off;
		out[n++].size = size;
	}
	if (str != NULL) {
		out[n].name = ".debug_str.dwo";
		out[n].data = str->d_buf;
		out[n++].size = str->d_size;
	}
	if (write_elf(d, path, dwp, out, n, err) < 0)
		return -1;
	return 1;
}

/* Copy the skeleton file's .debug_* sections into the private directory
 * and read the DWARF from there. */
static int
reopen_skeleton(struct pcln_debuginfo *d, pcln_err *err)
{
	Elf *e = d->dwelf;
	Elf_Scn *scn = NULL;
	struct outsec *out = NULL;
	char *names = NULL;
	size_t n = 0, cap = 0, shstrndx, nsec;
	char path[PATH_MAX];
	Dwarf *dw;
	int rc = -1;

	if (elf_getshdrstrndx(e, &shstrndx) != 0 ||
	    elf_getshdrnum(e, &nsec) != 0)
		return 0;
	/* Names rewritten from .zdebug_x to .debug_x: one slot each. */
	if ((names = calloc(nsec, 64)) == NULL)
		return pclni_find_nomem(err);
	while ((scn = elf_nextscn(e, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *data;
		const char *name;
		char *nm;

		if (gelf_getshdr(scn, &sh) == NULL || sh.sh_type == SHT_NOBITS)
			continue;
		name = elf_strptr(e, shstrndx, sh.sh_name);
		if (name == NULL || (strncmp(name, ".debug_", 7) != 0 &&
		    strncmp(name, ".zdebug_", 8) != 0) ||
		    strlen(name) >= 63)
			continue;
		if ((sh.sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0)
			continue;
		if ((data = elf_getdata(scn, NULL)) == NULL)
			continue;
		if (pclni_grow(&out, &cap, n + 1, sizeof *out) < 0) {
			pclni_find_nomem(err);
			goto out;
		}
		nm = names + 64 * elf_ndxscn(scn);
		snprintf(nm, 64, ".%s", name[1] == 'z' ? name + 2 : name + 1);
		out[n].name = nm;
		out[n].data = data->d_buf;
		out[n++].size = data->d_size;
	}
	snprintf(path, sizeof path, "%s/skeleton.debug", d->tmpdir);
	if (write_elf(d, path, e, out, n, err) < 0)
		goto out;
	if ((d->tmpfd = open(path, O_RDONLY | O_CLOEXEC)) < 0 ||
	    (d->tmpelf = elf_begin(d->tmpfd, ELF_C_READ_MMAP, NULL)) == NULL ||
	    (dw = dwarf_begin_elf(d->tmpelf, DWARF_C_READ, NULL)) == NULL) {
		pclni_find_note(d, "%s: the copy of the skeleton units is "
		    "not readable: %s", path, dwarf_errmsg(-1));
		rc = 0;
		goto out;
	}
	dwarf_end(d->dw);
	d->dw = dw;
	d->dwelf = d->tmpelf;
	rc = 0;
out:
	free(out);
	free(names);
	return rc;
}

/* Is there a readable file PATH? */
static int
exists(const char *path)
{
	return access(path, R_OK) == 0;
}

int
pclni_find_dwp(struct pcln_debuginfo *d, pcln_err *err)
{
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie, subdie;
	Dwarf_Half version;
	uint8_t utype;
	size_t missing = 0, shstrndx, k;
	char dwp[PATH_MAX];
	Elf_Data *data[NSECTS], *idx, *str;
	struct pclni_dwp_index ix;
	const char *tmp;
	char tmpl[PATH_MAX];
	int fd = -1, rc = -1, big;
	Elf *e = NULL;
	pcln_err ierr;

	while (dwarf_get_units(d->dw, cu, &cu, &version, &utype, &cudie,
	    &subdie) == 0)
		if (utype == DW_UT_skeleton &&
		    dwarf_tag(&subdie) != DW_TAG_compile_unit)
			missing++;
	if (missing == 0)
		return 0;
	if (snprintf(dwp, sizeof dwp, "%s.dwp", d->path) >= (int)sizeof dwp)
		return 0;
	if (!exists(dwp) && d->res.debug_file[0] != 0 &&
	    snprintf(dwp, sizeof dwp, "%.*s.dwp", PATH_MAX - 8,
	    d->res.debug_file) >= (int)sizeof dwp)
		return 0;
	if (!exists(dwp))
		return 0;
	snprintf(d->res.dwp_file, sizeof d->res.dwp_file, "%s", dwp);
	if ((fd = open(dwp, O_RDONLY | O_CLOEXEC)) < 0 ||
	    (e = elf_begin(fd, ELF_C_READ_MMAP_PRIVATE, NULL)) == NULL ||
	    elf_kind(e) != ELF_K_ELF || elf_getshdrstrndx(e, &shstrndx) != 0) {
		pclni_find_note(d, "%s: not an ELF file", dwp);
		rc = 0;
		goto out;
	}
	if (pclni_find_decompress(d, e, dwp, err) < 0)
		goto out;
	big = elf_getident(e, NULL)[EI_DATA] == ELFDATA2MSB;
	idx = sect_data(e, ".debug_cu_index");
	memset(&ierr, 0, sizeof ierr);
	if (idx == NULL || pclni_dwp_index_open(&ix, idx->d_buf, idx->d_size,
	    big, &ierr) < 0) {
		pclni_find_note(d, "%s: %s", dwp, idx == NULL ?
		    "no .debug_cu_index section" : ierr.msg);
		rc = 0;
		goto out;
	}
	for (k = 0; k < NSECTS; k++)
		data[k] = sect_data(e, sects[k].name);
	str = sect_data(e, ".debug_str.dwo");
	tmp = getenv("TMPDIR");
	snprintf(tmpl, sizeof tmpl, "%s/pcln-dwp.XXXXXX", tmp != NULL &&
	    tmp[0] == '/' ? tmp : "/tmp");
	if (mkdtemp(tmpl) == NULL) {
		pclni_seterr(err, PCLN_EIO, -1, "%s: cannot create a "
		    "temporary directory: %s", tmpl, strerror(errno));
		goto out;
	}
	if ((d->tmpdir = strdup(tmpl)) == NULL) {
		rmdir(tmpl);
		pclni_find_nomem(err);
		goto out;
	}
	cu = NULL;
	while (dwarf_get_units(d->dw, cu, &cu, &version, &utype, &cudie,
	    &subdie) == 0) {
		int r;
		if (utype != DW_UT_skeleton ||
		    dwarf_tag(&subdie) == DW_TAG_compile_unit)
			continue;
		if ((r = unpack_unit(d, cu, &ix, data, str, e, err)) < 0)
			goto out;
		d->res.dwp_units += (size_t)r;
	}
	rc = d->res.dwp_units > 0 ? reopen_skeleton(d, err) : 0;
out:
	if (e != NULL)
		elf_end(e);
	if (fd >= 0)
		close(fd);
	return rc;
}

#else /* libdw reads packages itself */

int
pclni_find_dwp(struct pcln_debuginfo *d, pcln_err *err)
{
	(void)d;
	(void)err;
	return 0;
}

#endif

void
pclni_find_dwp_cleanup(struct pcln_debuginfo *d)
{
	size_t i;

	if (d->tmpelf != NULL)
		elf_end(d->tmpelf);
	if (d->tmpfd >= 0)
		close(d->tmpfd);
	/* Files and directories, last made first. */
	for (i = d->ntmp; i-- > 0;) {
		if (unlink(d->tmpfiles[i]) < 0)
			rmdir(d->tmpfiles[i]);
		free(d->tmpfiles[i]);
	}
	free(d->tmpfiles);
	if (d->tmpdir != NULL)
		rmdir(d->tmpdir);
	free(d->tmpdir);
}
