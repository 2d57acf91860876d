/* dump_perf_tables.c -- the table of each object a profile names, for
 * pclndump perf (lib/perf's pcln_perf_table_fn).
 *
 * An object is a path and, when the profile recorded one, a build-id.
 * The file used is, in order:
 *   1. the path itself, if its build-id is the recorded one (or none was
 *      recorded);
 *   2. perf's build-id cache, ~/.debug/.build-id/xx/yyyy/elf (what
 *      `perf archive` packs, so a profile from another machine finds
 *      its objects by build-id), and each --buildid-dir DIR given;
 * and its table is its .pcln section, else a Go program's .gopclntab
 * converted, else (with libdw) lib/find's: the
 * table cache keyed by build-id, filled by importing the file with its
 * debug information found as gdb finds it (pcln_find.h), as pclndump's
 * other commands do.  Without a file, the cache or a debug directory may
 * still know the build-id.  Objects whose file is not found, or whose
 * build-id differs, get no table; pclndump perf counts their frames.
 */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dump.h"
#include "dump_perf.h"
#include "pcln_go.h"
/* The debug-information search and table cache (lib/find), with libdw
 * (its options are dump.h's DUMP_FIND_*). */
#ifdef HAVE_LIBDW
#define PERF_USE_FIND 1
#include "pcln_find.h"
#endif

/* An ELF file read whole (mmap'ed). */
struct mfile {
	uint8_t *buf;
	size_t len;
};

static int
map_file(const char *path, struct mfile *m)
{
	struct stat st;
	void *p;
	int fd;

	m->buf = NULL;
	m->len = 0;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size == 0) {
		close(fd);
		return -1;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return -1;
	m->buf = p;
	m->len = (size_t)st.st_size;
	return 0;
}

static void
unmap_file(struct mfile *m)
{
	if (m->buf != NULL)
		munmap(m->buf, m->len);
	m->buf = NULL;
}

/* Does M carry build-id ID[0..LEN)?  LEN 0: anything does. */
static int
id_matches(const struct mfile *m, const uint8_t *id, size_t len)
{
	const uint8_t *got;
	size_t n;

	if (len == 0)
		return 1;
	return pcln_elf_build_id(m->buf, m->len, &got, &n, NULL) == 1 &&
	    n == len && memcmp(got, id, len) == 0;
}

/* p_vaddr - p_offset of the code: .text's sh_addr - sh_offset (a
 * section's address and offset differ by its segment's). */
static uint64_t
text_vmo(const struct mfile *m)
{
	pcln_elf_section sec;
	pcln_err err;

	if (pcln_elf_find_section(m->buf, m->len, ".text", &sec, &err) <= 0)
		return 0;
	return sec.addr - sec.offset;
}

const char *
dump_perf_cache_dir(struct perf_tables *pt)
{
#ifdef PERF_USE_FIND
	pcln_cache_opts co;
	pcln_err err;

	if (!pt->cache_tried) {
		pt->cache_tried = 1;
		memset(&co, 0, sizeof co);
		memset(&err, 0, sizeof err);
		co.dir = dump_find_opts.cache;
		co.limit = dump_find_opts.limit;
		if (!dump_find_opts.no_cache &&
		    (pt->cache = pcln_cache_open(&co, &err)) == NULL)
			fprintf(stderr, "%s: perf: warning: %s (tables are "
			    "made, not cached)\n", dump_prog, err.msg);
	}
	return pt->cache != NULL ? pcln_cache_dir(pt->cache) : NULL;
#else
	(void)pt;
	return NULL;
#endif
}

#ifdef PERF_USE_FIND
/* The table from lib/find: for the file PATH (its debug information
 * found as gdb finds it, the table cached by build-id), or, PATH NULL,
 * for the build-id alone.  0 or -1 (E->why set). */
static int
find_table(struct perf_tables *pt, struct perf_table_ent *e,
    const char *path)
{
	pcln_find_opts fo;
	pcln_cached *ce;
	pcln_err err;
	int rc;

	memset(&fo, 0, sizeof fo);
	memset(&err, 0, sizeof err);
	fo.debug_dirs = dump_find_opts.ndirs > 0 ? dump_find_opts.dirs : NULL;
	(void)dump_perf_cache_dir(pt);
	if ((ce = calloc(1, sizeof *ce)) == NULL)
		return -1;
	rc = path != NULL ? pcln_table_for_file(pt->cache, path, &fo, 0, ce,
	    &err) : pcln_table_for_build_id(pt->cache, e->build_id,
	    e->build_id_len, &fo, 0, ce, &err);
	if (rc < 0) {
		free(ce);
		snprintf(e->why, sizeof e->why, "no table: %s", err.msg);
		return -1;
	}
	e->cached = ce;
	e->blob = ce->blob;
	e->len = ce->len;
	e->source = ce->hit ? (ce->nodwarf ? "cached, without DWARF" :
	    "cached") : (ce->nodwarf ? "made, without DWARF" : "made");
	if (ce->hit)
		pt->ncached++;
	else
		pt->nimported++;
	return 0;
}
#endif

/* The file stays mapped while E's PLT stubs, read when first asked for
 * (pcln_perf_syms_plt_lazy), may need it. */
static void
keep_or_unmap(struct perf_table_ent *e, struct mfile *m)
{
	if (e->stubs != NULL) {
		e->map = m->buf;
		e->maplen = m->len;
		m->buf = NULL;
	} else
		unmap_file(m);
}

/* The table for the ELF file PATH (mapped in M): its .pcln section or an
 * import.  Fills the object entry E.  0 or -1. */
static int
table_of(struct perf_tables *pt, struct perf_table_ent *e, const char *path,
    struct mfile *m)
{
	pcln_elf_section sec;
	pcln_err err;

	e->vmo = text_vmo(m);
	memset(&err, 0, sizeof err);
	memset(&sec, 0, sizeof sec);
	if (pcln_elf_find_pcln(m->buf, m->len, &sec, &err) != 1)
		sec.data = NULL;
	if (sec.data != NULL && strcmp(sec.name, PCLN_ELF_SECTION) == 0) {
		e->map = m->buf;
		e->maplen = m->len;
		e->blob = sec.data;
		e->len = (size_t)sec.size;
		e->source = "pcln";
		pt->nsection++;
		return 0;
	}
	/* A Go program: its own table (.gopclntab, any version Go wrote
	 * since 1.2), converted, as pclndump's other commands read it. */
	if (sec.data != NULL && strcmp(sec.name, PCLN_ELF_SECTION) != 0) {
		if (pcln_go_convert(m->buf, m->len, 0, 0, &e->heap, &e->len,
		    NULL, &err) == 0) {
			e->blob = e->heap;
			e->source = "Go's .gopclntab, converted";
			pt->ngo++;
			keep_or_unmap(e, m);
			return 0;
		}
		snprintf(e->why, sizeof e->why, "its Go table: %s", err.msg);
		keep_or_unmap(e, m);
		return -1;
	}
#if defined(PERF_USE_FIND)
	keep_or_unmap(e, m);
	return find_table(pt, e, path);
#else
	(void)path;
	snprintf(e->why, sizeof e->why, "no .pcln section (and pclndump was "
	    "built without libdw: no import)");
#endif
	keep_or_unmap(e, m);
	return -1;
}

int
dump_perf_table(void *arg, const pcln_perf_object *obj, pcln_perf_table *t)
{
	struct perf_tables *pt = arg;
	struct perf_table_ent *e;
	struct mfile m;
	char path[4096], idhex[2 * PCLN_PERF_BUILDID_MAX + 1];
	const char *home = getenv("HOME");
	size_t i;
	int found = 0;

	if (pt->nents == pt->cap) {
		size_t cap = pt->cap ? 2 * pt->cap : 16;
		struct perf_table_ent **v = realloc(pt->ents,
		    cap * sizeof *v);

		if (v == NULL)
			return -1;
		pt->ents = v;
		pt->cap = cap;
	}
	/* Entries are handed out by pointer (the blob): one allocation
	 * each, never moved. */
	if ((e = calloc(1, sizeof *e)) == NULL)
		return -1;
	pt->ents[pt->nents++] = e;
	snprintf(e->path, sizeof e->path, "%s", obj->path);
	e->build_id_len = obj->build_id_len;
	if (obj->build_id_len > 0)
		memcpy(e->build_id, obj->build_id, obj->build_id_len);
	if (map_file(obj->path, &m) == 0) {
		if (!pcln_elf_is_elf(m.buf, m.len)) {
			snprintf(e->why, sizeof e->why, "not an ELF file");
			unmap_file(&m);
		} else if (!id_matches(&m, obj->build_id, obj->build_id_len)) {
			snprintf(e->why, sizeof e->why, "the file's build-id "
			    "is not the profile's");
			unmap_file(&m);
			pt->nmismatch++;
		} else {
			found = 1;
			snprintf(e->file, sizeof e->file, "%s", obj->path);
		}
	} else
		snprintf(e->why, sizeof e->why, "cannot open the file: %s",
		    strerror(errno));
	if (!found && obj->build_id_len > 0) {
		pcln_build_id_hex(obj->build_id, obj->build_id_len, idhex);
		for (i = 0; !found && i <= pt->ndirs; i++) {
			if (i < pt->ndirs)
				snprintf(path, sizeof path, "%s/.build-id/%.2s/"
				    "%s/elf", pt->dirs[i], idhex, idhex + 2);
			else if (home != NULL)
				snprintf(path, sizeof path, "%s/.debug/"
				    ".build-id/%.2s/%s/elf", home, idhex,
				    idhex + 2);
			else
				break;
			if (map_file(path, &m) < 0)
				continue;
			if (pcln_elf_is_elf(m.buf, m.len) &&
			    id_matches(&m, obj->build_id, obj->build_id_len)) {
				found = 1;
				snprintf(e->file, sizeof e->file, "%s", path);
				pt->nbyid++;
			} else
				unmap_file(&m);
		}
	}
#ifdef PERF_USE_FIND
	/* Not found as a file: the cache or the debug directories by
	 * build-id. */
	if (!found && obj->build_id_len > 0 && find_table(pt, e, NULL) == 0) {
		e->has_table = 1;
		pt->nbyid++;
		t->blob = e->blob;
		t->len = e->len;
		return 0;
	}
#endif
	if (!found)
		return -1;
	e->stubs = pcln_perf_syms_plt_lazy(m.buf, m.len, NULL);
	t->stubs = e->stubs;
	if (table_of(pt, e, e->file, &m) < 0) {
		t->vaddr_minus_offset = e->vmo;
		return e->stubs != NULL ? 0 : -1;
	}
	e->has_table = 1;
	t->blob = e->blob;
	t->len = e->len;
	t->vaddr_minus_offset = e->vmo;
	return 0;
}

void
dump_perf_tables_free(struct perf_tables *pt)
{
	size_t i;

	for (i = 0; i < pt->nents; i++) {
		struct perf_table_ent *e = pt->ents[i];

		if (e->map != NULL)
			munmap(e->map, e->maplen);
		free(e->heap);
		pcln_perf_syms_free(e->stubs);
#ifdef PERF_USE_FIND
		if (e->cached != NULL) {
			pcln_cached_release(e->cached);
			free(e->cached);
		}
#endif
		free(e);
	}
	free(pt->ents);
#ifdef PERF_USE_FIND
	pcln_cache_close(pt->cache);
	pt->cache = NULL;
#endif
	pt->ents = NULL;
	pt->nents = pt->cap = 0;
}
