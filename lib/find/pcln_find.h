/* pcln_find.h -- a program's table as it ships: find its debug
 * information (build-id directories, .gnu_debuglink, MiniDebugInfo,
 * compressed sections, split DWARF, debuginfod) and keep the tables made
 * from it in a cache keyed by build-id.
 *
 * Two questions, two calls:
 *
 *   pcln_table_for_file(cache, "/usr/bin/prog", ...)
 *	the table for this ELF file: from the cache when it holds a sound
 *	entry for the file's build-id, else imported (pcln_dwarf.h) from
 *	the file and whatever debug information the search finds, and
 *	stored;
 *   pcln_table_for_build_id(cache, id, len, ...)
 *	the table for this build-id: from the cache, else from the object
 *	found by build-id (DIR/.build-id/xx/yyyy under each debug
 *	directory, then debuginfod's executable), imported and stored.
 *
 * Below them: pcln_debuginfo_open (the search alone; libelf and libdw
 * handles for an importer) and the cache's own calls.
 *
 * The search, the way gdb and elfutils do it (libdwfl does the looking):
 *  1. the file's own DWARF (.debug_* sections, compressed with zlib or
 *     zstd (SHF_COMPRESSED), or the old .zdebug_* form);
 *  2. DIR/.build-id/xx/yyyy.debug for each debug directory DIR: the ones
 *     given (PCLN_FIND_OPTS.debug_dirs, in order), then /usr/lib/debug;
 *  3. the .gnu_debuglink name beside the file, in its .debug/ directory,
 *     and under each DIR followed by the file's directory; a candidate
 *     must carry the file's build-id, or (without a build-id) match the
 *     link's CRC-32;
 *  4. debuginfod (libdebuginfod, through libdwfl), when DEBUGINFOD_URLS
 *     is set: its cache (DEBUGINFOD_CACHE_PATH), its time-outs
 *     (DEBUGINFOD_TIMEOUT, DEBUGINFOD_MAXTIME) and its other settings
 *     apply.  A server that is down, slow or has no such file gives a
 *     note saying so (PCLN_FIND_RESULT.note) and a table without lines.
 * Symbols: the file's .symtab, else the debug file's, else the file's
 * .dynsym together with MiniDebugInfo's .symtab (.gnu_debugdata, an
 * xz-compressed ELF; liblzma).  Split DWARF: libdw reads each skeleton
 * unit's .dwo file (DW_AT_dwo_name, beside the debug file or in
 * DW_AT_comp_dir); a .dwp package (FILE.dwp beside the file or its debug
 * file) is read too, though elfutils 0.188 cannot (doc/DESIGN.md says
 * how).
 *
 * Built with libdw only (configure found it: HAVE_LIBDW), as is the
 * importer.
 *
 * Memory: handles allocate with malloc and are freed by their _close or
 * _release call.  Nothing here is async-signal-safe.  A handle is used
 * by one thread at a time; distinct handles are independent, and any
 * number of processes may share one cache directory.
 *
 * Errors: -1 (or NULL) with an optional pcln_err filled.  That the debug
 * information was not found is not an error: the result's route is
 * PCLN_ROUTE_NONE and its note says where the search looked.
 */
#ifndef PCLN_FIND_H
#define PCLN_FIND_H

#include <stddef.h>
#include <stdint.h>

#include "pcln.h"
#include "pcln_elf.h"
#include "pclnrt_format.h"	/* PCLN_BUILDID_MAX: longer ones are not used */

#ifdef __cplusplus
extern "C" {
#endif

/* --- the search ------------------------------------------------------- */

#define PCLN_FIND_PATH_MAX	4096

/* Search flags. */
#define PCLN_FIND_NO_SEARCH	0x1	/* the file's own sections only */
#define PCLN_FIND_NO_DEFAULT	0x2	/* not /usr/lib/debug */
#define PCLN_FIND_NO_DEBUGINFOD	0x4	/* never debuginfod */

typedef struct pcln_find_opts {
	/* More debug directories, searched in order before the default
	 * one; NULL-terminated, or NULL.  Relative names are taken from
	 * the current directory. */
	const char *const *debug_dirs;
	unsigned flags;			/* PCLN_FIND_* */
} pcln_find_opts;

/* Where the DWARF came from. */
typedef enum pcln_route {
	PCLN_ROUTE_NONE,		/* nowhere: symbols and CFI only */
	PCLN_ROUTE_SELF,		/* the file's own sections */
	PCLN_ROUTE_BUILDID,		/* DIR/.build-id/xx/yyyy.debug */
	PCLN_ROUTE_DEBUGLINK,		/* .gnu_debuglink */
	PCLN_ROUTE_DEBUGINFOD		/* fetched by debuginfod */
} pcln_route;

/* Where the function symbols came from. */
typedef enum pcln_symsrc {
	PCLN_SYMS_NONE,
	PCLN_SYMS_SYMTAB,		/* the file's .symtab */
	PCLN_SYMS_DEBUG_SYMTAB,		/* the debug file's .symtab */
	PCLN_SYMS_DYNSYM,		/* the file's .dynsym alone */
	PCLN_SYMS_MINIDEBUG		/* .dynsym + MiniDebugInfo's .symtab */
} pcln_symsrc;

/* Compression seen in the sections read (bits). */
#define PCLN_FOUND_ZLIB		0x1	/* SHF_COMPRESSED, zlib */
#define PCLN_FOUND_ZSTD		0x2	/* SHF_COMPRESSED, zstd */
#define PCLN_FOUND_ZDEBUG	0x4	/* .zdebug_* (GNU, zlib) */

typedef struct pcln_find_result {
	uint8_t build_id[PCLN_BUILDID_MAX];
	size_t build_id_len;		/* 0: no NT_GNU_BUILD_ID note */
	pcln_route route;
	pcln_symsrc symbols;
	unsigned compressed;		/* PCLN_FOUND_* */
	char debug_file[PCLN_FIND_PATH_MAX];	/* the DWARF's file, or "" */
	char dwp_file[PCLN_FIND_PATH_MAX];	/* a .dwp package read, or "" */
	size_t dwp_units;		/* units taken from it */
	/* Route NONE: where the search looked and what debuginfod said;
	 * otherwise a warning, or "". */
	char note[1024];
} pcln_find_result;

/* "self", "build-id", "debuglink", "debuginfod" or "none". */
const char *pcln_route_name(pcln_route r);
/* ".symtab", "debug file's .symtab", ".dynsym", ".dynsym + MiniDebugInfo"
 * or "none". */
const char *pcln_symsrc_name(pcln_symsrc s);


/* The libelf and libdw types, as libelf.h and libdw.h declare them. */
struct Elf;
struct Dwarf;

/* An ELF file and the debug information found for it. */
typedef struct pcln_debuginfo pcln_debuginfo;

/* Open the ELF file PATH and search for its debug information with OPTS
 * (NULL: the defaults).  NULL and ERR on failure (PCLN_EIO: cannot open
 * or read; PCLN_EHEADER: not ELF; PCLN_ENOMEM). */
pcln_debuginfo *pcln_debuginfo_open(const char *path,
    const pcln_find_opts *opts, pcln_err *err);
void pcln_debuginfo_close(pcln_debuginfo *d);
/* PATH as given to pcln_debuginfo_open. */
const char *pcln_debuginfo_path(const pcln_debuginfo *d);
/* What the search found; valid until pcln_debuginfo_close. */
const pcln_find_result *pcln_debuginfo_result(const pcln_debuginfo *d);
/* The file itself (its code, .eh_frame, .dynsym), owned by D. */
struct Elf *pcln_debuginfo_elf(const pcln_debuginfo *d);
/* Its DWARF (lines, names, inlined calls, .debug_frame; split units
 * reachable through dwarf_get_units), owned by D; NULL for route NONE. */
struct Dwarf *pcln_debuginfo_dwarf(const pcln_debuginfo *d);
/* The symbol tables to read, all of them: the I-th (from 0) file and
 * its section type (SHT_SYMTAB or SHT_DYNSYM) in *SHTYPE; NULL after
 * the last.  Symbols of a debug file point into sections without data
 * (SHT_NOBITS): their code is the file's, at the same addresses. */
struct Elf *pcln_debuginfo_symtab(const pcln_debuginfo *d, size_t i,
    unsigned *shtype);

/* --- the cache -------------------------------------------------------- */

/* One table per file, DIR/<build-id in hex>.<maker>.pcln (a plain blob:
 * pclndump and the runtime read it as it is; pcln_cache_maker), or
 * DIR/<build-id>.<maker>.nodwarf.pcln for a table made without DWARF (it
 * is remade once the search finds some).  Beside the latter,
 * <build-id>.<maker>.nodwarf.stamp holds a hash of all that search read
 * (the file, each place its debug file would be, the debug directories);
 * while it is the same the search is not run again, so no debuginfod
 * client is loaded.  Not when DEBUGINFOD_URLS is set: a server may have
 * the file by now.
 * An entry is written to a temporary and renamed into place, so readers
 * and concurrent writers see a whole entry or none.  Reading an entry
 * checks its checksum and that its BUILDID section is its name: a
 * damaged or mismatched entry is removed and remade.  After a store,
 * the least recently used entries (by modification time, which a hit
 * renews) are removed until the total is within the limit. */
#define PCLN_CACHE_DEFAULT_LIMIT	((uint64_t)1 << 30)	/* 1 GiB */

typedef struct pcln_cache_opts {
	const char *dir;	/* NULL: $XDG_CACHE_HOME/pcln, else
				 * $HOME/.cache/pcln */
	uint64_t limit;		/* bytes; 0: PCLN_CACHE_DEFAULT_LIMIT */
} pcln_cache_opts;

typedef struct pcln_cache pcln_cache;

/* Open (creating, mode 0700) the cache directory.  NULL and ERR on
 * failure (PCLN_EIO: the directory cannot be made or used). */
pcln_cache *pcln_cache_open(const pcln_cache_opts *opts, pcln_err *err);
void pcln_cache_close(pcln_cache *c);
const char *pcln_cache_dir(const pcln_cache *c);
/* Which build of libpcln this cache's entries are of: entries are named
 * BUILDID.MAKER.pcln (BUILDID.MAKER.nodwarf.pcln for a table without
 * DWARF), MAKER "L" and 16 hex digits of libpcln's own build-id (else
 * "v" and the version).  A table depends on the importer that made it:
 * entries of another build are never read, and age out by eviction. */
const char *pcln_cache_maker(const pcln_cache *c);

/* A table handed out: BLOB[0..LEN), read-only, valid until
 * pcln_cached_release.  Its checksum and build-id were checked, not the
 * rest: open it with pcln_open(blob, len, 0, ...) to verify it whole, or
 * PCLN_OPEN_TRUSTED and pcln_verify_func per function. */
typedef struct pcln_cached {
	const uint8_t *blob;
	size_t len;
	int hit;			/* 1: read from the cache */
	int nodwarf;			/* made without DWARF */
	char path[PCLN_FIND_PATH_MAX];	/* the entry, or "" (not stored) */
	pcln_find_result found;		/* the search's result (hit == 0) */
	void *map_;			/* private */
	size_t maplen_;
	uint8_t *heap_;
} pcln_cached;

void pcln_cached_release(pcln_cached *e);

/* Look up build-id ID[0..LEN): 1 and *OUT filled, 0 if there is no sound
 * entry (a damaged one is removed), -1 on error.  NODWARF: also accept
 * an entry made without DWARF (OUT->nodwarf says which was found). */
int pcln_cache_lookup(pcln_cache *c, const uint8_t *id, size_t len,
    int nodwarf, pcln_cached *out, pcln_err *err);
/* Store BLOB[0..BLOBLEN) (which must carry build-id ID in its BUILDID
 * section) for ID; NODWARF: it was made without DWARF.  Then evicts to
 * the limit.  PATH, if not NULL, gets the entry's name (PCLN_FIND_PATH_MAX
 * bytes).  Returns 0 or -1. */
int pcln_cache_store(pcln_cache *c, const uint8_t *id, size_t len,
    int nodwarf, const uint8_t *blob, size_t bloblen, char *path,
    pcln_err *err);
/* Remove the temporaries writers left when they died (pcln_out.h's
 * rule: the writer's pid runs no more and nobody holds its lock), and
 * least recently used entries until the total is within LIMIT
 * (0: the cache's limit); never the entry named KEEP (may be NULL).
 * Returns the number of entries removed, or -1. */
long pcln_cache_evict(pcln_cache *c, uint64_t limit, const char *keep,
    pcln_err *err);

/* Import flags for the two calls below (pcln_dwarf.h's PCLN_DWARF_*
 * apply too; only tables with the inline tree are cached). */
#define PCLN_TABLE_VERIFY	0x100	/* pcln_verify the table whole */
/* Only a table the cache holds (with DWARF; or without, its search's
 * stamp still the same): nothing searched, imported or stored, and
 * PCLN_ENOTFOUND where there is none (without a cache, or for a file
 * without a build-id, always).  For a second thread that takes the
 * tables a walk will want while it starts (pclndump perf): the cache's
 * reads are the only thing it shares. */
#define PCLN_TABLE_CACHED	0x200

/* The table for the ELF file PATH, as the file comment says.  CACHE may
 * be NULL (no cache: import every time, store nothing).  OPTS: the
 * search (NULL: defaults).  A file without a build-id is imported every
 * time (nothing identifies its entry).  Returns 0 and *OUT, or -1. */
int pcln_table_for_file(pcln_cache *cache, const char *path,
    const pcln_find_opts *opts, unsigned flags, pcln_cached *out,
    pcln_err *err);
/* The table for build-id ID[0..LEN).  PCLN_ENOTFOUND when neither the
 * cache nor the search has it. */
int pcln_table_for_build_id(pcln_cache *cache, const uint8_t *id,
    size_t len, const pcln_find_opts *opts, unsigned flags,
    pcln_cached *out, pcln_err *err);

#ifdef __cplusplus
}
#endif

#endif /* PCLN_FIND_H */
