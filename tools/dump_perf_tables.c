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
#define _GNU_SOURCE 1	/* sched_getaffinity, CPU_COUNT */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
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
#define PCLN_AHEAD_FLAGS	PCLN_TABLE_CACHED
#else
#define PCLN_AHEAD_FLAGS	0u
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
		    (pt->cache = pcln_cache_open(&co, &err)) == NULL &&
		    !pt->quiet)
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
	rc = path != NULL ? pcln_table_for_file(pt->cache, path, &fo,
	    pt->find_flags, ce, &err) : pcln_table_for_build_id(pt->cache,
	    e->build_id, e->build_id_len, &fo, pt->find_flags, ce, &err);
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

/* The table of OBJ into the new entry E (PT's counters counted). */
static int
make_table(struct perf_tables *pt, struct perf_table_ent *e,
    const pcln_perf_object *obj, pcln_perf_table *t)
{
	struct mfile m;
	char path[4096], idhex[2 * PCLN_PERF_BUILDID_MAX + 1];
	const char *home = getenv("HOME");
	size_t i;
	int found = 0;

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

static void
free_ent(struct perf_table_ent *e)
{
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

/* --- tables taken ahead ----------------------------------------------
 *
 * A walk asks for an object's table where its first frame in the object
 * is: on the short bench profile, six times in its first hundred
 * samples, 1.7 to 3.3 ms of its 15 to 20 (each file opened, mapped, its
 * build-id and PLT read, the cache's entry found, opened, mapped, and
 * for one without DWARF its search's stamp taken again), while the
 * reader thread, its queue full, waits.  The objects are known before
 * the walk starts: the BUILD_ID feature names those of the samples.  A
 * second thread takes their tables, in that order, as dump_perf_table
 * would, but only where no import is needed (PCLN_TABLE_CACHED: a
 * table to make is the walk's to make, as before, so that nothing runs
 * beside it but reads of files); each is handed to the walk when it asks
 * for it (counted then, as if made then: --stats is the same), or
 * freed at the end.  The thread's cache handle is its own (lib/find: a
 * handle is one thread's at a time).  Where the walk asks for one the
 * thread is taking, it waits for it; for one the thread has not come
 * to, it takes it itself (the thread then passes it by). */

enum { AHEAD_TODO, AHEAD_BUSY, AHEAD_DONE, AHEAD_WALK };

struct ahead_slot {
	char *path;			/* the profile's, copied */
	uint8_t id[PCLN_PERF_BUILDID_MAX];
	size_t idlen;
	int state;			/* AHEAD_*, under MU */
	int rc;
	pcln_perf_table t;
	struct perf_table_ent *e;	/* AHEAD_DONE: its entry */
	size_t counts[6];		/* what it added to the counters */
};

struct perf_ahead {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int stop;
	int wait;			/* PCLN_PERF_AHEAD=wait: the walk
					 * waits for all (the tests) */
	struct perf_tables pt;		/* the thread's: its cache handle */
	struct ahead_slot *slot;
	size_t nslot, done, taken;
};

static void
get_counts(const struct perf_tables *pt, size_t c[6])
{
	c[0] = pt->nsection;
	c[1] = pt->ngo;
	c[2] = pt->nimported;
	c[3] = pt->ncached;
	c[4] = pt->nbyid;
	c[5] = pt->nmismatch;
}

static void
add_counts(struct perf_tables *pt, const size_t c[6])
{
	pt->nsection += c[0];
	pt->ngo += c[1];
	pt->nimported += c[2];
	pt->ncached += c[3];
	pt->nbyid += c[4];
	pt->nmismatch += c[5];
}

static void *
ahead_main(void *arg)
{
	struct perf_ahead *a = arg;
	size_t i, k, before[6], after[6];

	for (i = 0; i < a->nslot; i++) {
		struct ahead_slot *s = &a->slot[i];
		pcln_perf_object obj;
		pcln_perf_table t;
		struct perf_table_ent *e;
		int rc = -1;

		pthread_mutex_lock(&a->mu);
		if (a->stop || s->state != AHEAD_TODO) {
			int stop = a->stop;

			pthread_mutex_unlock(&a->mu);
			if (stop)
				break;
			continue;
		}
		s->state = AHEAD_BUSY;
		pthread_mutex_unlock(&a->mu);
		memset(&t, 0, sizeof t);
		obj.path = s->path;
		obj.build_id = s->id;
		obj.build_id_len = s->idlen;
		get_counts(&a->pt, before);
		if ((e = calloc(1, sizeof *e)) != NULL)
			rc = make_table(&a->pt, e, &obj, &t);
		get_counts(&a->pt, after);
		pthread_mutex_lock(&a->mu);
		/* (no table, or none without an import: the walk's) */
		if (e != NULL && rc == 0 && e->has_table) {
			s->e = e;
			s->rc = rc;
			s->t = t;
			for (k = 0; k < 6; k++)
				s->counts[k] = after[k] - before[k];
			s->state = AHEAD_DONE;
			e = NULL;
		} else
			s->state = AHEAD_TODO;
		a->done = i + 1;
		pthread_cond_broadcast(&a->cv);
		pthread_mutex_unlock(&a->mu);
		if (e != NULL)
			free_ent(e);
	}
	pthread_mutex_lock(&a->mu);
	a->done = a->nslot;
	pthread_cond_broadcast(&a->cv);
	pthread_mutex_unlock(&a->mu);
	return NULL;
}

/* OBJ's table taken ahead: 1, *EP its entry and *RC, *T what to give;
 * 0: the walk makes it. */
static int
take_ahead(struct perf_tables *pt, const pcln_perf_object *obj,
    pcln_perf_table *t, struct perf_table_ent **ep, int *rc)
{
	struct perf_ahead *a = pt->ahead;
	struct ahead_slot *s = NULL;
	size_t i;

	pthread_mutex_lock(&a->mu);
	if (a->wait)
		while (a->done < a->nslot)
			pthread_cond_wait(&a->cv, &a->mu);
	for (i = 0; i < a->nslot && s == NULL; i++)
		if (strcmp(a->slot[i].path, obj->path) == 0 &&
		    a->slot[i].idlen == obj->build_id_len &&
		    (obj->build_id_len == 0 || memcmp(a->slot[i].id,
		    obj->build_id, obj->build_id_len) == 0) &&
		    a->slot[i].state != AHEAD_WALK)
			s = &a->slot[i];
	if (s == NULL) {
		pthread_mutex_unlock(&a->mu);
		return 0;
	}
	while (s->state == AHEAD_BUSY)
		pthread_cond_wait(&a->cv, &a->mu);
	if (s->state != AHEAD_DONE) {
		s->state = AHEAD_WALK;
		pthread_mutex_unlock(&a->mu);
		return 0;
	}
	s->state = AHEAD_WALK;
	a->taken++;
	*ep = s->e;
	s->e = NULL;
	*t = s->t;
	*rc = s->rc;
	add_counts(pt, s->counts);
	pthread_mutex_unlock(&a->mu);
	return 1;
}

int
dump_perf_tables_ahead(struct perf_tables *pt, const pcln_perf *p)
{
	const pcln_perf_info *info = pcln_perf_get_info(p);
	const char *v = getenv("PCLN_PERF_AHEAD");
	struct perf_ahead *a;
	cpu_set_t cpus;
	size_t i;

	if (pt->ahead != NULL || (v != NULL && strcmp(v, "0") == 0) ||
	    info->nbuildid == 0 || (!(v != NULL && strcmp(v, "wait") == 0) &&
	    (sched_getaffinity(0, sizeof cpus, &cpus) != 0 ||
	    CPU_COUNT(&cpus) < 2)))
		return 0;
	if ((a = calloc(1, sizeof *a)) == NULL ||
	    (a->slot = calloc(info->nbuildid, sizeof *a->slot)) == NULL) {
		free(a);
		return -1;
	}
	/* (the kernel's, the vDSO's and such are not files) */
	for (i = 0; i < info->nbuildid; i++) {
		const pcln_perf_buildid *b = pcln_perf_get_buildid(p, i);

		if (b->filename[0] != '/' || strncmp(b->filename, "//anon",
		    6) == 0 || strncmp(b->filename, "/memfd:", 7) == 0 ||
		    b->len > PCLN_PERF_BUILDID_MAX)
			continue;
		if ((a->slot[a->nslot].path = strdup(b->filename)) == NULL)
			break;	/* (those before are taken ahead) */
		memcpy(a->slot[a->nslot].id, b->id, b->len);
		a->slot[a->nslot].idlen = b->len;
		a->nslot++;
	}
	a->wait = v != NULL && strcmp(v, "wait") == 0;
	a->pt.dirs = pt->dirs;
	a->pt.ndirs = pt->ndirs;
	a->pt.no_inline = pt->no_inline;
	a->pt.find_flags = pt->find_flags | PCLN_AHEAD_FLAGS;
	a->pt.quiet = 1;
	/* (the walk's cache is opened now, warning where it cannot be,
	 * not beside the thread's) */
	(void)dump_perf_cache_dir(pt);
	pthread_mutex_init(&a->mu, NULL);
	pthread_cond_init(&a->cv, NULL);
	if (a->nslot == 0 || pthread_create(&a->thread, NULL, ahead_main,
	    a) != 0) {
		pthread_mutex_destroy(&a->mu);
		pthread_cond_destroy(&a->cv);
		for (i = 0; i < a->nslot; i++)
			free(a->slot[i].path);
		free(a->slot);
		free(a);
		return 0;
	}
	pt->ahead = a;
	return 1;
}

void
dump_perf_tables_ahead_count(const struct perf_tables *pt, size_t *taken,
    size_t *ahead)
{
	struct perf_ahead *a = pt->ahead;
	size_t i;

	*taken = *ahead = 0;
	if (a == NULL)
		return;
	pthread_mutex_lock(&a->mu);
	*taken = a->taken;
	for (i = 0; i < a->nslot; i++)
		*ahead += a->slot[i].state == AHEAD_DONE;
	*ahead += a->taken;
	pthread_mutex_unlock(&a->mu);
}

static void
ahead_free(struct perf_tables *pt)
{
	struct perf_ahead *a = pt->ahead;
	size_t i;

	if (a == NULL)
		return;
	pthread_mutex_lock(&a->mu);
	a->stop = 1;
	pthread_mutex_unlock(&a->mu);
	pthread_join(a->thread, NULL);
	for (i = 0; i < a->nslot; i++) {
		if (a->slot[i].e != NULL)
			free_ent(a->slot[i].e);
		free(a->slot[i].path);
	}
	dump_perf_tables_free(&a->pt);
	pthread_mutex_destroy(&a->mu);
	pthread_cond_destroy(&a->cv);
	free(a->slot);
	free(a);
	pt->ahead = NULL;
}

int
dump_perf_table(void *arg, const pcln_perf_object *obj, pcln_perf_table *t)
{
	struct perf_tables *pt = arg;
	struct perf_table_ent *e = NULL;
	int rc;

	if (pt->nents == pt->cap) {
		size_t cap = pt->cap ? 2 * pt->cap : 16;
		struct perf_table_ent **v = realloc(pt->ents,
		    cap * sizeof *v);

		if (v == NULL)
			return -1;
		pt->ents = v;
		pt->cap = cap;
	}
	if (pt->ahead != NULL && take_ahead(pt, obj, t, &e, &rc)) {
		pt->ents[pt->nents++] = e;
		return rc;
	}
	/* Entries are handed out by pointer (the blob): one allocation
	 * each, never moved. */
	if ((e = calloc(1, sizeof *e)) == NULL)
		return -1;
	pt->ents[pt->nents++] = e;
	return make_table(pt, e, obj, t);
}

void
dump_perf_tables_free(struct perf_tables *pt)
{
	size_t i;

	ahead_free(pt);
	for (i = 0; i < pt->nents; i++)
		free_ent(pt->ents[i]);
	free(pt->ents);
#ifdef PERF_USE_FIND
	pcln_cache_close(pt->cache);
	pt->cache = NULL;
#endif
	pt->ents = NULL;
	pt->nents = pt->cap = 0;
}
