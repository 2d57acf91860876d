/* decompress.c -- what libelf 0.188 cannot decompress itself:
 * zstd-compressed sections (SHF_COMPRESSED with ELFCOMPRESS_ZSTD, which
 * libelf reads from 0.189 on), through libzstd; and MiniDebugInfo's xz
 * stream, through liblzma.  zlib (SHF_COMPRESSED and the old .zdebug_*)
 * is left to libelf and libdw, which read it.
 *
 * A zstd section is decompressed into a buffer of ours, which replaces
 * the section's data descriptor (the one elf_getdata returns to libdw
 * afterwards) and whose size and flags replace the header's: what
 * elf_compress does for zlib.  The Elf must be opened
 * ELF_C_READ_MMAP_PRIVATE (or ELF_C_READ), so that the header may be
 * written.
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#ifdef HAVE_LIBZSTD
#include <zstd.h>
#endif
#ifdef HAVE_LIBLZMA
#include <lzma.h>
#endif

#include "find_internal.h"

#ifndef ELFCOMPRESS_ZSTD
#define ELFCOMPRESS_ZSTD	2
#endif

/* The largest section or MiniDebugInfo we decompress (a bound on what a
 * hostile header can make us allocate). */
#define MAX_DECOMPRESSED	((uint64_t)1 << 32)

static int
keep_buffer(struct pcln_debuginfo *d, void *buf, pcln_err *err)
{
	if (pclni_grow(&d->bufs, &d->capbufs, d->nbufs + 1,
	    sizeof *d->bufs) < 0) {
		free(buf);
		return pclni_find_nomem(err);
	}
	d->bufs[d->nbufs++] = buf;
	return 0;
}

#ifdef HAVE_LIBZSTD
/* IN[0..LEN), one or more zstd frames, decompressed to exactly WANT
 * bytes: a malloc'd buffer and its length in *N, or NULL with *WHY (NULL
 * too: no memory).  The buffer grows with what comes out, not with what
 * the section header claims: a header that claims gigabytes over a few
 * bytes of data costs a few bytes. */
static void *
unzstd_stream(const char *in, size_t len, size_t want, size_t *n,
    const char **why)
{
	ZSTD_DStream *z = ZSTD_createDStream();
	ZSTD_inBuffer ib = { in, len, 0 };
	ZSTD_outBuffer ob;
	size_t cap = len < want / 8 ? 8 * len : want, rc;
	char *buf = NULL, *nb;

	*why = NULL;
	if (cap < 65536)
		cap = want < 65536 ? want : 65536;
	if (z == NULL || ZSTD_isError(ZSTD_initDStream(z)) ||
	    (buf = malloc(cap)) == NULL)
		goto fail;
	ob.dst = buf;
	ob.size = cap;
	ob.pos = 0;
	for (;;) {
		rc = ZSTD_decompressStream(z, &ob, &ib);
		if (ZSTD_isError(rc)) {
			*why = ZSTD_getErrorName(rc);
			goto fail;
		}
		if (rc == 0 && ib.pos == ib.size)
			break;		/* every frame whole, all read */
		if (ob.pos < ob.size) {
			if (ib.pos == ib.size) {
				*why = "a frame cut short";
				goto fail;
			}
			continue;
		}
		if (cap == want) {
			/* Full: one more byte out is too much. */
			char one;
			ZSTD_outBuffer xb = { &one, 1, 0 };

			rc = ZSTD_decompressStream(z, &xb, &ib);
			if (!ZSTD_isError(rc) && xb.pos == 0 && rc == 0 &&
			    ib.pos == ib.size)
				break;
			*why = ZSTD_isError(rc) ? ZSTD_getErrorName(rc) :
			    xb.pos == 0 && ib.pos == ib.size ?
			    "a frame cut short" : "longer than its header says";
			goto fail;
		}
		cap = cap > want / 2 ? want : 2 * cap;
		if ((nb = realloc(buf, cap)) == NULL)
			goto fail;
		buf = nb;
		ob.dst = buf;
		ob.size = cap;
	}
	if (ob.pos != want) {
		*why = "shorter than its header says";
		goto fail;
	}
	ZSTD_freeDStream(z);
	*n = ob.pos;
	return buf;
fail:
	ZSTD_freeDStream(z);
	free(buf);
	return NULL;
}

static int
unzstd(struct pcln_debuginfo *d, Elf *e, Elf_Scn *scn, const GElf_Chdr *ch,
    const char *what, const char *name, pcln_err *err)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t hdr = gelf_getclass(e) == ELFCLASS32 ? sizeof(Elf32_Chdr) :
	    sizeof(Elf64_Chdr);
	void *buf;
	size_t n;
	const char *why;

	if (data == NULL || data->d_size < hdr)
		return pclni_seterr(err, PCLN_ETRUNC, -1, "%s: section %s: "
		    "compressed data shorter than its header", what, name);
	if (ch->ch_size == 0 || ch->ch_size > MAX_DECOMPRESSED)
		return pclni_seterr(err, PCLN_ERANGE, -1, "%s: section %s: "
		    "decompressed size %llu (expected 1 to 2^32 bytes)", what,
		    name, (unsigned long long)ch->ch_size);
	if ((buf = unzstd_stream((const char *)data->d_buf + hdr,
	    data->d_size - hdr, (size_t)ch->ch_size, &n, &why)) == NULL) {
		if (why == NULL)
			return pclni_find_nomem(err);
		return pclni_seterr(err, PCLN_EIO, -1, "%s: section %s: bad "
		    "zstd data: %s", what, name, why);
	}
	if (keep_buffer(d, buf, err) < 0)
		return -1;
	data->d_buf = buf;
	data->d_size = n;
	data->d_type = ELF_T_BYTE;
	data->d_align = ch->ch_addralign ? ch->ch_addralign : 1;
	if (gelf_getclass(e) == ELFCLASS32) {
		Elf32_Shdr *sh = elf32_getshdr(scn);
		sh->sh_flags &= ~(Elf32_Word)SHF_COMPRESSED;
		sh->sh_size = (Elf32_Word)n;
		sh->sh_addralign = (Elf32_Word)data->d_align;
	} else {
		Elf64_Shdr *sh = elf64_getshdr(scn);
		sh->sh_flags &= ~(Elf64_Xword)SHF_COMPRESSED;
		sh->sh_size = n;
		sh->sh_addralign = data->d_align;
	}
	return 0;
}
#endif

int
pclni_find_decompress(struct pcln_debuginfo *d, Elf *e, const char *what,
    pcln_err *err)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(e, &shstrndx) != 0)
		return 0;
	while ((scn = elf_nextscn(e, scn)) != NULL) {
		GElf_Shdr sh;
		GElf_Chdr ch;
		const char *name;

		if (gelf_getshdr(scn, &sh) == NULL || sh.sh_type == SHT_NOBITS)
			continue;
		name = elf_strptr(e, shstrndx, sh.sh_name);
		if (name == NULL)
			continue;
		if (strncmp(name, ".zdebug_", 8) == 0) {
			d->res.compressed |= PCLN_FOUND_ZDEBUG;
			continue;
		}
		if (!(sh.sh_flags & SHF_COMPRESSED) ||
		    strncmp(name, ".debug_", 7) != 0)
			continue;
		if (gelf_getchdr(scn, &ch) == NULL) {
			pclni_find_note(d, "%s: section %s: bad compression "
			    "header: %s", what, name, elf_errmsg(-1));
			continue;
		}
		if (ch.ch_type == ELFCOMPRESS_ZLIB) {
			d->res.compressed |= PCLN_FOUND_ZLIB;
			continue;
		}
		if (ch.ch_type != ELFCOMPRESS_ZSTD) {
			pclni_find_note(d, "%s: section %s: unknown compression "
			    "%u (expected 1, zlib, or 2, zstd)", what, name,
			    (unsigned)ch.ch_type);
			continue;
		}
		d->res.compressed |= PCLN_FOUND_ZSTD;
#ifdef HAVE_LIBZSTD
		if (unzstd(d, e, scn, &ch, what, name, err) < 0) {
			if (err != NULL && err->code == PCLN_ENOMEM)
				return -1;
			pclni_find_note(d, "%s", err != NULL ? err->msg :
			    "bad zstd data");
			pclni_clearerr(err);
		}
#else
		pclni_find_note(d, "%s: section %s is zstd-compressed and "
		    "pcln was built without libzstd", what, name);
#endif
	}
	return 0;
}

int
pclni_find_unxz(const uint8_t *in, size_t len, void **out, size_t *outlen,
    const char *what, pcln_err *err)
{
#ifdef HAVE_LIBLZMA
	lzma_stream s = LZMA_STREAM_INIT;
	uint8_t *buf = NULL;
	size_t cap = 0;
	lzma_ret r;

	*out = NULL;
	*outlen = 0;
	if (lzma_stream_decoder(&s, UINT64_MAX, 0) != LZMA_OK)
		return pclni_find_nomem(err);
	s.next_in = in;
	s.avail_in = len;
	do {
		if (s.avail_out == 0) {
			size_t ncap = cap ? 2 * cap : 4 * len + 4096;
			uint8_t *nb;
			if (ncap > MAX_DECOMPRESSED) {
				lzma_end(&s);
				free(buf);
				return pclni_seterr(err, PCLN_ERANGE, -1,
				    "%s: decompresses to more than 2^32 bytes",
				    what);
			}
			if ((nb = realloc(buf, ncap)) == NULL) {
				lzma_end(&s);
				free(buf);
				return pclni_find_nomem(err);
			}
			buf = nb;
			s.next_out = buf + cap;
			s.avail_out = ncap - cap;
			cap = ncap;
		}
		r = lzma_code(&s, LZMA_FINISH);
	} while (r == LZMA_OK);
	*outlen = cap - s.avail_out;
	lzma_end(&s);
	if (r != LZMA_STREAM_END) {
		free(buf);
		if (r == LZMA_MEM_ERROR)
			return pclni_find_nomem(err);
		return pclni_seterr(err, PCLN_EIO, -1, "%s: bad xz data "
		    "(liblzma error %d at input byte %zu of %zu)", what,
		    (int)r, len - s.avail_in, len);
	}
	*out = buf;
	return 0;
#else
	(void)in;
	(void)len;
	*out = NULL;
	*outlen = 0;
	return pclni_seterr(err, PCLN_EUNSUPPORTED, -1, "%s: MiniDebugInfo "
	    "needs liblzma, and pcln was built without it", what);
#endif
}
