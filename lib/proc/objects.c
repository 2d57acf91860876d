/* objects.c -- objects and their tables (pcln_proc.h): the object store
 * and the loader.
 *
 * An object is loaded once per identity (a file's device, inode and
 * path; a memory image's content) and shared by every address space of
 * the store.  Its table, in order: its .pcln section (in the mapped
 * file, not copied); its .gopclntab, converted; lib/find's table
 * (libdw): from the table cache by build-id, or made by the importer
 * from its symbols, DWARF and CFI with its debug information found as
 * gdb finds it, and cached.  Loading never fails: an object without a
 * table says why in its note.
 */
#define _GNU_SOURCE 1
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pcln_go.h"
#include "proc_internal.h"
#ifdef HAVE_LIBDW
#include "pcln_find.h"
#endif

enum { FUNC_UNCHECKED, FUNC_OK, FUNC_DAMAGED };

const char *
pcln_objsrc_name(pcln_objsrc s)
{
	switch (s) {
	case PCLN_OBJ_SECTION: return ".pcln section";
	case PCLN_OBJ_GO: return ".gopclntab";
	case PCLN_OBJ_IMPORTED: return "imported";
	case PCLN_OBJ_CACHED: return "cached";
	case PCLN_OBJ_PROVIDED: return "provided";
	case PCLN_OBJ_NONE:
	default: return "none";
	}
}

void
pclnp_store_init(pclnp_store *s, unsigned flags)
{
	s->objs = NULL;
	s->flags = flags;
	s->provider = NULL;
	s->provider_arg = NULL;
	memset(&s->search, 0, sizeof s->search);
	s->cache = NULL;
	s->cache_tried = 0;
	s->stepv = NULL;
	s->steplen = 0;
	memset(&s->steps, 0, sizeof s->steps);
	s->nsteps = 0;
	s->steps_mark = 0;
}

void
pcln_objstore_set_search(pcln_objstore *s,
    const pcln_objstore_search *search)
{
	if (search != NULL)
		s->search = *search;
	else
		memset(&s->search, 0, sizeof s->search);
}

static void
object_free(struct pcln_objpriv *p)
{
	pcln_object *o = p->obj;

	pcln_close(o->table);
	if (p->map != NULL)
		munmap(p->map, p->maplen);
	free(p->heap);
#ifdef HAVE_LIBDW
	if (p->cached != NULL) {
		pcln_cached_release(p->cached);
		free(p->cached);
	}
#endif
	free(p->fstate);
	free(p->path);
	free(p->file);
	free(p->note);
	free(o);
	free(p);
}

void
pclnp_store_free(pclnp_store *s)
{
	struct pcln_objpriv *p, *next;

	for (p = s->objs; p != NULL; p = next) {
		next = p->next;
		object_free(p);
	}
	s->objs = NULL;
#ifdef HAVE_LIBDW
	pcln_cache_close(s->cache);
#endif
	s->cache = NULL;
	s->cache_tried = 0;
	pcln_huge_free(s->stepv, s->steplen);
	s->stepv = NULL;
}

static char *
dupstr(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = malloc(n);

	if (d != NULL)
		memcpy(d, s, n);
	return d;
}

/* A new object named PATH, read from FILE, in the store. */
static pcln_object *
object_new(pclnp_store *s, const char *path, const char *file)
{
	struct pcln_objpriv *p = calloc(1, sizeof *p);
	pcln_object *o = calloc(1, sizeof *o);

	if (p == NULL || o == NULL || (p->path = dupstr(path)) == NULL ||
	    (p->file = dupstr(file)) == NULL || (p->note = dupstr("")) == NULL) {
		if (p != NULL) {
			free(p->path);
			free(p->file);
		}
		free(p);
		free(o);
		return NULL;
	}
	p->obj = o;
	o->priv_ = p;
	o->path = p->path;
	o->file = p->file;
	o->note = p->note;
	o->source = PCLN_OBJ_NONE;
	p->next = s->objs;
	s->objs = p;
	return o;
}

/* Set OBJ's note (replacing any). */
static void PCLNI_PRINTF(2, 3)
set_note(pcln_object *o, const char *fmt, ...)
{
	struct pcln_objpriv *p = o->priv_;
	char buf[1024], *n;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if ((n = dupstr(buf)) == NULL)
		return;
	free(p->note);
	p->note = n;
	o->note = n;
}

/* Give O the table BLOB[0..LEN) from SRC.  MADE: made here (sound, the
 * builder verified it); else read from a file: verified whole with
 * PCLN_AS_VERIFY, else trusted and each function checked at its first
 * use (pclnp_object_func_ok). */
static void
set_table(pclnp_store *s, pcln_object *o, const uint8_t *blob, size_t len,
    int made, pcln_objsrc src)
{
	struct pcln_objpriv *p = o->priv_;
	int verify = !made && (s->flags & PCLN_AS_VERIFY);
	pcln_err err;
	int rc;

	if ((rc = pclnrt_init(&o->rt, blob, len)) != PCLNRT_EINIT_OK) {
		set_note(o, "%s: the table (%s) is unusable: %s", o->file,
		    pcln_objsrc_name(src), pclnrt_init_strerror(rc));
		return;
	}
	o->table = pcln_open(blob, len, verify ? 0 : PCLN_OPEN_TRUSTED, &err);
	if (o->table == NULL) {
		set_note(o, "%s: the table (%s) is unusable: %s", o->file,
		    pcln_objsrc_name(src), err.msg);
		return;
	}
	p->trusted = !made && !verify;
	o->blob = blob;
	o->len = len;
	o->source = src;
}

/* Find OBJ's table in the ELF image IMG[0..LEN), which is the file
 * IMPORT_PATH. */
static void
load_image(pclnp_store *s, pcln_object *o, const uint8_t *img, size_t len,
    const char *import_path)
{
	struct pcln_objpriv *p = o->priv_;
	pcln_elf_segment segs[64];
	pcln_elf_section sec;
	pcln_err err;
	size_t nseg, i;
	uint8_t *blob = NULL;
	size_t bloblen;
	int rc;

	if (pcln_elf_get_segments(img, len, segs, 64, &nseg, &err) < 0) {
		set_note(o, "%s: %s", o->file, err.msg);
		return;
	}
	if (nseg > 64)
		nseg = 64;
	for (i = 0; i < nseg && p->nload < PCLNP_MAX_LOADS; i++)
		if (segs[i].type == PCLN_PT_LOAD)
			p->load[p->nload++] = segs[i];
	if (p->nload == 0) {
		set_note(o, "%s: no PT_LOAD segment", o->file);
		return;
	}
	{
		const uint8_t *id;
		size_t idlen;

		if (pcln_elf_build_id(img, len, &id, &idlen, NULL) == 1 &&
		    idlen <= PCLN_BUILDID_MAX) {
			memcpy(o->build_id, id, idlen);
			o->build_id_len = idlen;
		}
	}
	rc = pcln_elf_find_pcln(img, len, &sec, &err);
	if (rc == 1 && strcmp(sec.name, PCLN_ELF_SECTION) == 0) {
		set_table(s, o, sec.data, (size_t)sec.size, 0,
		    PCLN_OBJ_SECTION);
		return;
	}
	if (rc == 1) {
		if (pcln_go_convert(img, len, 0, 0, &blob, &bloblen, NULL,
		    &err) < 0) {
			set_note(o, "%s: its Go table: %s", o->file, err.msg);
			return;
		}
		p->heap = blob;
		set_table(s, o, blob, bloblen, 1, PCLN_OBJ_GO);
		return;
	}
	if (s->flags & PCLN_AS_NO_IMPORT) {
		set_note(o, "%s: no .pcln section (and importing is off)",
		    o->file);
		return;
	}
#ifdef HAVE_LIBDW
	{
		const pcln_objstore_search *q = &s->search;
		pcln_find_opts fo = { q->debug_dirs, 0 };
		pcln_cached *ce;

		if (!s->cache_tried && !q->no_cache) {
			pcln_cache_opts co = { q->cache_dir, q->cache_limit };

			s->cache_tried = 1;
			/* No usable cache: tables are made, not kept. */
			s->cache = pcln_cache_open(&co, NULL);
		}
		if ((ce = calloc(1, sizeof *ce)) == NULL) {
			set_note(o, "%s: no table could be made: out of memory",
			    o->file);
			return;
		}
		if (pcln_table_for_file(s->cache, import_path, &fo, 0, ce,
		    &err) < 0) {
			free(ce);
			set_note(o, "%s: no table could be made: %s", o->file,
			    err.msg);
			return;
		}
		p->cached = ce;
		/* Made here: sound (the builder checked it); from the
		 * cache: its checksum and build-id only, so read as a file's
		 * table is. */
		set_table(s, o, ce->blob, ce->len, !ce->hit,
		    ce->hit ? PCLN_OBJ_CACHED : PCLN_OBJ_IMPORTED);
		if (o->table != NULL && !ce->hit && ce->found.note[0] != 0)
			set_note(o, "%s: %s", o->file, ce->found.note);
	}
#else
	(void)import_path;
	set_note(o, "%s: no .pcln section (built without libdw: no import)",
	    o->file);
#endif
}

/* Map FILE whole, read-only.  Returns the map, or NULL with *WHY. */
static void *
map_file(const char *file, size_t *len, struct stat *st, const char **why)
{
	/* (Non-blocking: a FIFO at the path must not hang us.) */
	int fd = open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	void *m;

	if (fd < 0 || fstat(fd, st) < 0) {
		*why = strerror(errno);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	if (!S_ISREG(st->st_mode) || st->st_size == 0 ||
	    (uint64_t)st->st_size > SIZE_MAX) {
		*why = !S_ISREG(st->st_mode) ? "not a regular file" :
		    "an empty file";
		close(fd);
		return NULL;
	}
	*len = (size_t)st->st_size;
	m = mmap(NULL, *len, PROT_READ, MAP_PRIVATE, fd, 0);
	if (m == MAP_FAILED)
		*why = strerror(errno);
	close(fd);
	return m == MAP_FAILED ? NULL : m;
}

/* Keep O's mapped file only if its table is in it. */
static void
drop_map(pcln_object *o)
{
	struct pcln_objpriv *p = o->priv_;

	if (o->source != PCLN_OBJ_SECTION && p->map != NULL) {
		munmap(p->map, p->maplen);
		p->map = NULL;
		p->maplen = 0;
	}
}

pcln_object *
pclnp_object_file(pclnp_store *s, const char *path, const char *file,
    uint32_t major, uint32_t minor, uint64_t inode, int deleted,
    int replaced, const uint8_t *want_id, size_t want_idlen)
{
	struct pcln_objpriv *p;
	pcln_object *o;
	struct stat st;
	const char *why = "";
	void *m;
	size_t len;

	for (p = s->objs; p != NULL; p = p->next)
		if (!p->memory && p->inode == inode && p->inode != 0 &&
		    p->major == major && p->minor == minor &&
		    strcmp(p->path, path) == 0 && (want_idlen == 0 ||
		    (p->obj->build_id_len == want_idlen &&
		    memcmp(p->obj->build_id, want_id, want_idlen) == 0)))
			return p->obj;
	if ((o = object_new(s, path, file)) == NULL)
		return NULL;
	p = o->priv_;
	p->major = major;
	p->minor = minor;
	p->inode = inode;
	o->deleted = deleted;
	o->replaced = replaced;
	if ((m = map_file(file, &len, &st, &why)) == NULL) {
		set_note(o, "%s: cannot read it: %s", file, why);
		return o;
	}
	p->map = m;
	p->maplen = len;
	load_image(s, o, m, len, file);
	if (want_idlen > 0 && o->build_id_len > 0 &&
	    (want_idlen != o->build_id_len ||
	    memcmp(want_id, o->build_id, want_idlen) != 0)) {
		char h1[2 * PCLN_BUILDID_MAX + 1], h2[sizeof h1];
		size_t k;

		for (k = 0; k < want_idlen; k++)
			snprintf(h1 + 2 * k, 3, "%02x", want_id[k]);
		for (k = 0; k < o->build_id_len; k++)
			snprintf(h2 + 2 * k, 3, "%02x", o->build_id[k]);
		pcln_close(o->table);
		o->table = NULL;
		o->blob = NULL;
		o->source = PCLN_OBJ_NONE;
		set_note(o, "%s: its build-id is %s, the mapped object's %s: "
		    "the file was replaced since it was mapped", file, h2, h1);
		o->replaced = 1;
		memcpy(o->build_id, want_id, want_idlen);
		o->build_id_len = want_idlen;
	}
	drop_map(o);
	return o;
}

pcln_object *
pclnp_object_memory(pclnp_store *s, const char *path, const uint8_t *img,
    size_t len)
{
	struct pcln_objpriv *p;
	pcln_object *o;
	uint64_t h = pclnrt_xxh64(img, len, 0);
	char file[64];
	int fd;

	for (p = s->objs; p != NULL; p = p->next)
		if (p->memory && p->memhash == h && strcmp(p->path, path) == 0)
			return p->obj;
	snprintf(file, sizeof file, "%s (memory)", path);
	if ((o = object_new(s, path, file)) == NULL)
		return NULL;
	p = o->priv_;
	p->memory = 1;
	p->memhash = h;
	/* The importer reads files: give it the image as one, in memory. */
	fd = memfd_create("pcln-image", MFD_CLOEXEC);
	if (fd < 0) {
		set_note(o, "%s: memfd_create: %s", file, strerror(errno));
		return o;
	}
	if (write(fd, img, len) != (ssize_t)len) {
		set_note(o, "%s: cannot copy the image: %s", file,
		    strerror(errno));
		close(fd);
		return o;
	}
	p->map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p->map == MAP_FAILED) {
		p->map = NULL;
		set_note(o, "%s: mmap: %s", file, strerror(errno));
		close(fd);
		return o;
	}
	p->maplen = len;
	{
		char fdpath[64];

		snprintf(fdpath, sizeof fdpath, "/proc/self/fd/%d", fd);
		load_image(s, o, p->map, len, fdpath);
	}
	close(fd);
	drop_map(o);
	return o;
}

pcln_object *
pclnp_object_provided(pclnp_store *s, const char *path, const uint8_t *id,
    size_t idlen)
{
	struct pcln_objpriv *p;
	pcln_objtable t;
	pcln_object *o;

	if (idlen > PCLN_BUILDID_MAX)
		idlen = 0;
	for (p = s->objs; p != NULL; p = p->next)
		if (p->want_idlen == idlen && strcmp(p->path, path) == 0 &&
		    (idlen == 0 || memcmp(p->want_id, id, idlen) == 0))
			return p->obj;
	if ((o = object_new(s, path, path)) == NULL)
		return NULL;
	p = o->priv_;
	if (idlen > 0) {
		memcpy(p->want_id, id, idlen);
		memcpy(o->build_id, id, idlen);
	}
	p->want_idlen = o->build_id_len = idlen;
	memset(&t, 0, sizeof t);
	if (s->provider(s->provider_arg, path, idlen > 0 ? id : NULL, idlen,
	    &t) < 0 || t.blob == NULL) {
		set_note(o, "%s: no table%s%s", path, t.note != NULL ? ": " :
		    "", t.note != NULL ? t.note : "");
		o->user = t.user;
		return o;
	}
	o->user = t.user;
	p->has_vmo = 1;
	p->vmo = t.vaddr_minus_offset;
	set_table(s, o, t.blob, t.len, 0, PCLN_OBJ_PROVIDED);
	return o;
}

void
pcln_objstore_counts(const pcln_objstore *s, size_t *nobjects,
    size_t *nwithtable)
{
	const struct pcln_objpriv *p;
	size_t n = 0, w = 0;

	for (p = s->objs; p != NULL; p = p->next) {
		n++;
		if (p->obj->table != NULL)
			w++;
	}
	*nobjects = n;
	*nwithtable = w;
}

void
pcln_objstore_steps(const pcln_objstore *s, uint64_t *hits,
    uint64_t *misses, size_t *entries)
{
	if (hits != NULL)
		*hits = s->steps.hits;
	if (misses != NULL)
		*misses = s->steps.misses;
	if (entries != NULL)
		*entries = s->stepv != NULL ? s->nsteps : 0;
}

pcln_object *
pclnp_object_none(pclnp_store *s, const char *path, const char *note)
{
	pcln_object *o = object_new(s, path, "");

	if (o != NULL)
		set_note(o, "%s", note);
	return o;
}

int
pclnp_object_bias(const pcln_object *o, uint64_t start, uint64_t offset,
    uint64_t *bias)
{
	const struct pcln_objpriv *p = o->priv_;
	size_t i;

	if (p->has_vmo) {	/* a provider's object */
		*bias = start - offset - p->vmo;
		return 0;
	}
	/* The segment whose file bytes begin in the mapping's first page
	 * (a segment is mapped from its offset rounded down to a page: at
	 * most its alignment below it), else the one holding OFFSET (a
	 * mapping split by mprotect). */
	for (i = 0; i < p->nload; i++) {
		const pcln_elf_segment *g = &p->load[i];
		uint64_t page = g->align < 4096 ? 4096 :
		    g->align > 65536 ? 65536 : g->align;

		if (g->offset >= offset && g->offset - offset < page) {
			*bias = start + (g->offset - offset) - g->vaddr;
			return 0;
		}
	}
	for (i = 0; i < p->nload; i++) {
		const pcln_elf_segment *g = &p->load[i];
		if (offset >= g->offset && offset - g->offset < g->filesz) {
			*bias = start - (g->vaddr + (offset - g->offset));
			return 0;
		}
	}
	return -1;
}

int
pclnp_object_func_ok(pcln_object *o, size_t i)
{
	struct pcln_objpriv *p = o->priv_;
	pcln_err err;

	if (!p->trusted || o->table == NULL)
		return o->table != NULL;
	if (p->fstate == NULL &&
	    (p->fstate = calloc(pcln_nfunc(o->table) + 1, 1)) == NULL)
		return 0;
	if (i >= pcln_nfunc(o->table))
		return 0;
	if (p->fstate[i] == FUNC_UNCHECKED)
		p->fstate[i] = pcln_verify_func(o->blob, o->len, i, &err) == 0 ?
		    FUNC_OK : FUNC_DAMAGED;
	return p->fstate[i] == FUNC_OK;
}
