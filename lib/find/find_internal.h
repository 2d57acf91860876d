/* find_internal.h -- shared state of lib/find/ files (the public side is
 * pcln_find.h).
 *
 *   debuginfo.c   the search: the file's own DWARF, libdwfl's build-id
 *                 and debuglink search, debuginfod; the symbol sources
 *   decompress.c  zstd-compressed sections (libzstd), MiniDebugInfo's
 *                 xz (liblzma)
 *   dwp.c         .dwp packages for libdw versions that cannot read them
 *   cache.c       the table cache and pcln_table_for_*
 */
#ifndef PCLN_FIND_INTERNAL_H
#define PCLN_FIND_INTERNAL_H

#include <stdint.h>

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>

#include "internal.h"
#include "pcln_find.h"

struct pcln_debuginfo {
	pcln_find_result res;
	char *path;			/* absolute */
	char *given;			/* as given */
	int fd;				/* the file */
	Elf *elf;
	int dfd;			/* the debug file, or -1 */
	Elf *delf;
	Dwarf *dw;			/* on elf, delf or the dwp copy */
	Elf *dwelf;			/* the Elf under dw */
	void *mini;			/* MiniDebugInfo, decompressed */
	size_t minilen;
	Elf *melf;
	struct { Elf *e; unsigned type; } syms[3];
	size_t nsyms;
	void **bufs;			/* decompressed sections */
	size_t nbufs, capbufs;
	Dwfl *dwfl;
	Dwfl_Callbacks cb;
	char *dipath;			/* libdwfl's debuginfo_path */
	int asked;			/* debuginfod went to a server */
	int searched;			/* find_cb ran */
	int search_rc;			/* its descriptor, or -errno */
	char *dname;			/* the name it found, or NULL */
	pcln_route route;		/* and by which route */
	int no_debuginfod;
	/* dwp.c: a private directory of unpacked units */
	char *tmpdir;
	char **tmpfiles;		/* in creation order */
	size_t ntmp, captmp;
	int tmpfd;
	Elf *tmpelf;
};

#ifdef HAVE_LIBDEBUGINFOD
#include <elfutils/debuginfod.h>

/* debuginfod.c: libdebuginfod's calls we make, from the library loaded
 * when first needed; NULL if it is not installed. */
struct pclni_debuginfod {
	debuginfod_client *(*begin)(void);
	void (*end)(debuginfod_client *);
	int (*find_executable)(debuginfod_client *, const unsigned char *,
	    int, char **);
	void (*set_progressfn)(debuginfod_client *, debuginfod_progressfn_t);
	void (*set_user_data)(debuginfod_client *, void *);
	void *(*get_user_data)(debuginfod_client *);
};
#else
struct pclni_debuginfod;
#endif
const struct pclni_debuginfod *pclni_find_debuginfod(void);

/* debuginfo.c */
void pclni_find_note(struct pcln_debuginfo *d, const char *fmt, ...)
    PCLNI_PRINTF(2, 3);
int pclni_find_nomem(pcln_err *err);
/* A hash of all the search for PATH's debug information under O reads
 * (the file, each place a debug file would be and the directories that
 * would hold one), so that a search that found nothing need not run
 * again while the hash is the same.  0 and *STAMP, or -1 where no hash
 * can stand for the search (a debuginfod server may be asked). */
int pclni_find_stamp(const char *path, const pcln_find_opts *o,
    const uint8_t *id, size_t idlen, uint64_t *stamp);
/* The first section of E named NAME with bytes in the file, or NULL. */
Elf_Scn *pclni_find_scn(Elf *e, const char *name);

/* decompress.c: decompress E's zstd-compressed .debug_* sections in
 * place (E opened ELF_C_READ_MMAP_PRIVATE or ELF_C_READ); note the
 * compressions seen in D->res.  0, or -1 on a damaged section or no
 * memory (ERR). */
int pclni_find_decompress(struct pcln_debuginfo *d, Elf *e,
    const char *what, pcln_err *err);
/* MiniDebugInfo: the xz stream IN[0..LEN) decompressed into a malloc'ed
 * *OUT, *OUTLEN.  0, or -1 with ERR (WHAT names the input). */
int pclni_find_unxz(const uint8_t *in, size_t len, void **out,
    size_t *outlen, const char *what, pcln_err *err);

/* dwp.c: if D's DWARF has skeleton units and a .dwp package is found
 * beside the file or its debug file, make its units readable by libdw
 * (this libdw cannot read packages itself).  0, or -1 with ERR. */
int pclni_find_dwp(struct pcln_debuginfo *d, pcln_err *err);
void pclni_find_dwp_cleanup(struct pcln_debuginfo *d);

#endif /* PCLN_FIND_INTERNAL_H */
