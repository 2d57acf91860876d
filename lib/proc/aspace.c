/* aspace.c -- address spaces: mappings, their objects and load biases,
 * symbolization and the unwinder (pcln_proc.h).
 *
 * The mappings are kept sorted by start and disjoint.  A file mapping
 * resolves, on first use, to an instance: an object (objects.c) at a
 * load bias.  Every instance with a table is a module of the aspace's
 * runtime registry, rebuilt when the set of instances changes, so the
 * unwinder is the runtime's pclnrt_traceback, crossing objects as the
 * registry's lookups do.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "proc_internal.h"

/* A mapping and, once resolved, its instance. */
struct amap {
	pcln_mapping m;		/* m.path is PATH */
	char *path;
	struct inst *inst;	/* NULL: none (yet) */
	int resolved;
};

/* An object at a load bias: one module of the registry. */
struct inst {
	pclnrt_module mod;	/* first: frames point at it */
	pcln_object *obj;
	uint64_t bias;
	struct inst *next;
};

/* How many mappings found lately find_amap tries first (a program, its C
 * and C++ libraries and the dynamic linker). */
#define ASPACE_HINTS	4

struct pcln_aspace {
	int pid;
	pclnp_store own, *store;
	struct amap *maps;
	size_t nmaps, cap;
	struct inst *insts;
	pclnp_registry reg;
	int reg_ok, reg_dirty;
	pclnrt_pccache cache;	/* the walks' rows (keyed by table: the
				 * store keeps every table) */
	size_t hint[ASPACE_HINTS]; /* 1 + the places in MAPS found lately,
				 * the last first; 0: none (find_amap) */
	uint64_t version;	/* pcln_aspace_version: bump() */
};

/* The versions of every address space of the process: no two states of
 * any two have the same (an aspace freed and another made at its
 * address starts at a version never seen). */
static uint64_t aspace_versions;

/* What a walk or a lookup in AS finds may have changed: a mapping
 * replaced or resolved, the set read again. */
static void
bump(pcln_aspace *as)
{
	as->version = __atomic_add_fetch(&aspace_versions, 1,
	    __ATOMIC_RELAXED);
}

uint64_t
pcln_aspace_version(const pcln_aspace *as)
{
	return as->version;
}

pcln_aspace *
pcln_aspace_new(int pid, pcln_objstore *store, unsigned flags, pcln_err *err)
{
	pcln_aspace *as = calloc(1, sizeof *as);

	if (as == NULL) {
		pclni_seterr(err, PCLN_ENOMEM, -1, "out of memory");
		return NULL;
	}
	as->pid = pid > 0 ? pid : 0;
	pclnp_store_init(&as->own, flags);
	as->store = store != NULL ? store : &as->own;
	as->reg_dirty = 1;
	pclnrt_pccache_init(&as->cache);
	bump(as);
	return as;
}

static void
clear_maps(struct amap *maps, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(maps[i].path);
	free(maps);
}

static void drop_registry(pcln_aspace *as);

void
pcln_aspace_free(pcln_aspace *as)
{
	struct inst *x, *next;

	if (as == NULL)
		return;
	drop_registry(as);
	clear_maps(as->maps, as->nmaps);
	for (x = as->insts; x != NULL; x = next) {
		next = x->next;
		free(x);
	}
	pclnp_store_free(&as->own);
	free(as);
}

pcln_objstore *
pcln_aspace_store(pcln_aspace *as)
{
	return as->store;
}

pcln_objstore *
pcln_objstore_new_provider(pcln_objtable_fn fn, void *arg, pcln_err *err)
{
	pclnp_store *s;

	if (fn == NULL) {
		pclni_seterr(err, PCLN_EINVAL, -1, "no table provider");
		return NULL;
	}
	if ((s = pcln_objstore_new(0, err)) != NULL) {
		s->provider = fn;
		s->provider_arg = arg;
	}
	return s;
}

pcln_objstore *
pcln_objstore_new(unsigned flags, pcln_err *err)
{
	pclnp_store *s = malloc(sizeof *s);

	if (s == NULL) {
		pclni_seterr(err, PCLN_ENOMEM, -1, "out of memory");
		return NULL;
	}
	pclnp_store_init(s, flags);
	return s;
}

void
pcln_objstore_free(pcln_objstore *s)
{
	if (s == NULL)
		return;
	pclnp_store_free(s);
	free(s);
}

/* --- the mapping set --------------------------------------------------- */

static int
copy_map(struct amap *d, const pcln_mapping *m)
{
	size_t n = strlen(m->path) + 1;

	memset(d, 0, sizeof *d);
	if ((d->path = malloc(n)) == NULL)
		return -1;
	memcpy(d->path, m->path, n);
	d->m = *m;
	d->m.path = d->path;
	if (d->m.build_id_len > PCLN_BUILDID_MAX)
		d->m.build_id_len = 0;
	return 0;
}

static int
cmp_map(const void *a, const void *b)
{
	const struct amap *x = a, *y = b;

	return x->m.start < y->m.start ? -1 : x->m.start > y->m.start;
}

static int
push_map(struct amap **v, size_t *n, size_t *cap, const struct amap *m)
{
	if (pclni_grow(v, cap, *n + 1, sizeof **v) < 0)
		return -1;
	(*v)[(*n)++] = *m;
	return 0;
}

/* A part [LO, HI) of mapping A, as a new amap (its own path copy). */
static int
part_of(const struct amap *a, uint64_t lo, uint64_t hi, struct amap *out)
{
	pcln_mapping m = a->m;

	if (m.inode != 0 || m.path[0] == '/')
		m.offset += lo - m.start;
	m.start = lo;
	m.end = hi;
	if (copy_map(out, &m) < 0)
		return -1;
	out->inst = a->inst;
	out->resolved = a->resolved;
	return 0;
}

/* The mappings are sorted and disjoint: M replaces the run of those it
 * overlaps, [LO, HI), in place, with the parts of the first and last
 * that stick out.  Only a replaced mapping with an instance can change
 * the registry (it holds the instances the mappings use, and M has none
 * yet): a profile's heap grows by hundreds of such records, and each
 * rebuild would empty the step cache. */
int
pcln_aspace_add(pcln_aspace *as, const pcln_mapping *m, pcln_err *err)
{
	struct amap nm, part[2];
	size_t lo = 0, hi, mid, np = 0, i, n;

	pclni_clearerr(err);
	if (m == NULL || m->path == NULL || m->end <= m->start)
		return pclni_seterr(err, PCLN_EINVAL, -1, "mapping [0x%" PRIx64
		    ", 0x%" PRIx64 "): expected a path and end > start",
		    m != NULL ? m->start : 0, m != NULL ? m->end : 0);
	for (hi = as->nmaps; lo < hi;) {
		mid = lo + (hi - lo) / 2;
		if (as->maps[mid].m.end <= m->start)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (hi = lo; hi < as->nmaps && as->maps[hi].m.start < m->end; hi++)
		;
	if (copy_map(&nm, m) < 0)
		goto nomem;
	if (lo < hi && as->maps[lo].m.start < m->start) {
		if (part_of(&as->maps[lo], as->maps[lo].m.start, m->start,
		    &part[np]) < 0)
			goto nomem;
		np++;
	}
	if (lo < hi && as->maps[hi - 1].m.end > m->end) {
		if (part_of(&as->maps[hi - 1], m->end, as->maps[hi - 1].m.end,
		    &part[np]) < 0)
			goto nomem;
		np++;
	}
	n = as->nmaps - (hi - lo) + 1 + np;
	if (pclni_grow(&as->maps, &as->cap, n, sizeof *as->maps) < 0)
		goto nomem;
	for (i = lo; i < hi; i++) {
		if (as->maps[i].inst != NULL)
			as->reg_dirty = 1;
		free(as->maps[i].path);
	}
	memmove(&as->maps[lo + 1 + np], &as->maps[hi],
	    (as->nmaps - hi) * sizeof *as->maps);
	i = lo;
	if (np > 0 && part[0].m.start < m->start)
		as->maps[i++] = part[0];
	as->maps[i++] = nm;
	if (np > 0 && part[np - 1].m.start >= m->end)
		as->maps[i++] = part[np - 1];
	as->nmaps = n;
	memset(as->hint, 0, sizeof as->hint);
	/* (a mapping where there was none changes no walk, nor the
	 * lookups of any other address: heaps grow by hundreds) */
	if (lo < hi)
		bump(as);
	return 0;
nomem:
	free(nm.path);
	for (i = 0; i < np; i++)
		free(part[i].path);
	return pclni_seterr(err, PCLN_ENOMEM, -1, "out of memory");
}

struct collect {
	struct amap *v;
	size_t n, cap;
	int nomem;
};

static int
collect_cb(void *arg, const pcln_mapping *m)
{
	struct collect *c = arg;
	struct amap a;

	if (copy_map(&a, m) < 0 || push_map(&c->v, &c->n, &c->cap, &a) < 0) {
		c->nomem = 1;
		return 1;
	}
	return 0;
}

int
pcln_aspace_set_maps(pcln_aspace *as, const char *text, size_t len,
    pcln_err *err)
{
	struct collect c;
	size_t i, j;
	int rc;

	memset(&c, 0, sizeof c);
	rc = pcln_maps_parse(text, len, collect_cb, &c, err);
	if (rc != 0) {
		clear_maps(c.v, c.n);
		if (c.nomem)
			return pclni_seterr(err, PCLN_ENOMEM, -1,
			    "out of memory");
		return -1;
	}
	if (c.n > 1)
		qsort(c.v, c.n, sizeof *c.v, cmp_map);
	for (i = 1; i < c.n; i++)
		if (c.v[i].m.start < c.v[i - 1].m.end) {
			uint64_t s0 = c.v[i - 1].m.start, s1 = c.v[i].m.start;
			clear_maps(c.v, c.n);
			return pclni_seterr(err, PCLN_ESYNTAX, -1, "maps: "
			    "mapping at 0x%" PRIx64 " overlaps the one at "
			    "0x%" PRIx64, s1, s0);
		}
	/* Keep what was resolved for mappings that are still there. */
	for (i = 0, j = 0; i < c.n && as->nmaps > 0; i++) {
		struct amap *a = &c.v[i];

		while (j < as->nmaps && as->maps[j].m.start < a->m.start)
			j++;
		if (j < as->nmaps && as->maps[j].m.start == a->m.start &&
		    as->maps[j].m.offset == a->m.offset &&
		    as->maps[j].m.inode == a->m.inode &&
		    as->maps[j].m.major == a->m.major &&
		    as->maps[j].m.minor == a->m.minor &&
		    strcmp(as->maps[j].path, a->path) == 0) {
			a->inst = as->maps[j].inst;
			a->resolved = as->maps[j].resolved;
		}
	}
	clear_maps(as->maps, as->nmaps);
	as->maps = c.v;
	as->nmaps = c.n;
	as->cap = c.cap;
	memset(as->hint, 0, sizeof as->hint);
	as->reg_dirty = 1;
	bump(as);
	return 0;
}

/* Read all of FILE (a /proc file: its size is not known beforehand)
 * into a malloc'ed buffer.  Returns it and *LEN, or NULL with errno. */
static char *
read_proc(const char *file, size_t *len)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	size_t n = 0, cap = 0;
	char *buf = NULL;
	ssize_t r;
	int e;

	if (fd < 0)
		return NULL;
	for (;;) {
		if (n + 65536 > cap && pclni_grow(&buf, &cap, n + 65536, 1) < 0) {
			e = ENOMEM;
			goto fail;
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			e = errno;
			goto fail;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	*len = n;
	if (buf == NULL)
		buf = malloc(1);
	return buf;
fail:
	close(fd);
	free(buf);
	errno = e;
	return NULL;
}

int
pcln_aspace_read_maps(pcln_aspace *as, pcln_err *err)
{
	char file[64], *text;
	size_t len;
	int rc;

	pclni_clearerr(err);
	if (as->pid <= 0)
		return pclni_seterr(err, PCLN_EINVAL, -1, "reading the maps: "
		    "the address space has no process");
	snprintf(file, sizeof file, "/proc/%d/maps", as->pid);
	if ((text = read_proc(file, &len)) == NULL)
		return pclni_seterr(err, errno == ENOENT ? PCLN_ENOTFOUND :
		    PCLN_EIO, -1, "%s: %s%s", file, strerror(errno),
		    errno == ENOENT ? " (no such process)" :
		    errno == EACCES || errno == EPERM ? " (another user's "
		    "process: run as its user, or as root, or with "
		    "CAP_SYS_PTRACE)" : "");
	if (len == 0) {
		free(text);
		return pclni_seterr(err, PCLN_ENOTFOUND, -1, "%s: empty "
		    "(process %d has exited, or is a zombie)", file, as->pid);
	}
	rc = pcln_aspace_set_maps(as, text, len, err);
	free(text);
	return rc;
}

size_t
pcln_aspace_nmaps(const pcln_aspace *as)
{
	return as->nmaps;
}

const pcln_mapping *
pcln_aspace_map(const pcln_aspace *as, size_t i)
{
	return i < as->nmaps ? &as->maps[i].m : NULL;
}

/* The mapping holding ADDR, or NULL.  A walk's frames are in a few
 * objects, each of them a mapping met again frame after frame and
 * sample after sample: the ASPACE_HINTS found last are tried first
 * (a binary search over a profiled process's 47 mappings took 67
 * instructions, two of them each sample of bench/perf.sh's).  (The
 * hints are no part of what AS holds: a handle is one thread's.) */
static struct amap *
find_amap(const pcln_aspace *as, uint64_t addr)
{
	size_t *hint = ((pcln_aspace *)(uintptr_t)as)->hint;
	size_t lo = 0, hi = as->nmaps, i;
	struct amap *a;

	for (i = 0; i < ASPACE_HINTS && hint[i] != 0; i++) {
		a = &as->maps[hint[i] - 1];
		if (addr - a->m.start < a->m.end - a->m.start)
			return a;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		a = &as->maps[mid];
		if (addr < a->m.start)
			hi = mid;
		else if (addr >= a->m.end)
			lo = mid + 1;
		else {
			for (i = ASPACE_HINTS - 1; i > 0; i--)
				hint[i] = hint[i - 1];
			hint[0] = mid + 1;
			return a;
		}
	}
	return NULL;
}

const pcln_mapping *
pcln_aspace_find(const pcln_aspace *as, uint64_t addr)
{
	const struct amap *a = find_amap(as, addr);

	return a != NULL ? &a->m : NULL;
}

/* --- resolving objects ------------------------------------------------- */

static struct inst *
get_inst(pcln_aspace *as, pcln_object *obj, uint64_t bias)
{
	struct inst *x;

	for (x = as->insts; x != NULL; x = x->next)
		if (x->obj == obj && x->bias == bias)
			return x;
	if ((x = calloc(1, sizeof *x)) == NULL)
		return NULL;
	x->obj = obj;
	x->bias = bias;
	if (obj->blob != NULL &&
	    pclnrt_module_init(&x->mod, obj->blob, obj->len, bias,
	    obj->path) != PCLNRT_EINIT_OK)
		x->mod.table.blob = NULL;
	x->next = as->insts;
	as->insts = x;
	as->reg_dirty = 1;
	return x;
}

/* The vDSO (or another kernel image) of mapping A, read from the
 * process's memory. */
static pcln_object *
memory_object(pcln_aspace *as, const struct amap *a)
{
	char file[64], note[160];
	uint64_t n = a->m.end - a->m.start;
	uint8_t *img;
	pcln_object *o;
	ssize_t r;
	int fd;

	if (n > (64u << 20))
		return NULL;
	snprintf(file, sizeof file, "/proc/%d/mem", as->pid);
	if ((fd = open(file, O_RDONLY | O_CLOEXEC)) < 0) {
		snprintf(note, sizeof note, "%s: %s", file, strerror(errno));
		return pclnp_object_none(as->store, a->path, note);
	}
	if ((img = malloc((size_t)n)) == NULL) {
		close(fd);
		return NULL;
	}
	r = pread(fd, img, (size_t)n, (off_t)a->m.start);
	if (r != (ssize_t)n) {
		snprintf(note, sizeof note, "%s: reading %s at 0x%" PRIx64
		    ": %s", file, a->path, a->m.start,
		    r < 0 ? strerror(errno) : "short read");
		close(fd);
		free(img);
		return pclnp_object_none(as->store, a->path, note);
	}
	close(fd);
	o = pclnp_object_memory(as->store, a->path, img, (size_t)n);
	free(img);
	return o;
}

/* The build-id of the image mapped by A, read from the process's memory:
 * the mapping of the same file at offset 0 holds the ELF header, the
 * program headers and (in every object ld makes) the PT_NOTE segment.
 * Returns 1 with ID[0..*LEN), else 0. */
static int
memory_build_id(pcln_aspace *as, const struct amap *a, uint8_t *id,
    size_t *len)
{
	const struct amap *h = NULL;
	const uint8_t *bid;
	uint8_t buf[16384];
	char file[64];
	size_t i, n;
	ssize_t r;
	int fd;

	*len = 0;
	for (i = 0; i < as->nmaps && h == NULL; i++)
		if (as->maps[i].m.offset == 0 &&
		    as->maps[i].m.inode == a->m.inode &&
		    as->maps[i].m.major == a->m.major &&
		    as->maps[i].m.minor == a->m.minor &&
		    strcmp(as->maps[i].path, a->path) == 0)
			h = &as->maps[i];
	if (h == NULL)
		return 0;
	n = h->m.end - h->m.start < sizeof buf ? (size_t)(h->m.end -
	    h->m.start) : sizeof buf;
	snprintf(file, sizeof file, "/proc/%d/mem", as->pid);
	if ((fd = open(file, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	r = pread(fd, buf, n, (off_t)h->m.start);
	close(fd);
	if (r <= 0 || pcln_elf_build_id(buf, (size_t)r, &bid, &n, NULL) != 1 ||
	    n > PCLN_BUILDID_MAX)
		return 0;
	memcpy(id, bid, n);
	*len = n;
	return 1;
}

/* The object of file mapping A. */
static pcln_object *
file_object(pcln_aspace *as, const struct amap *a)
{
	const pcln_mapping *m = &a->m;
	char mf[96], note[PATH_MAX + 256];
	struct stat st;
	int same, replaced = 0;
	uint8_t id[PCLN_BUILDID_MAX];
	size_t idlen = 0;
	const uint8_t *want = m->build_id;
	size_t wantlen = m->build_id_len;

	/* A live process: the build-id of what it mapped is in its
	 * memory (a file overwritten in place keeps its inode). */
	if (wantlen == 0 && as->pid > 0 &&
	    memory_build_id(as, a, id, &idlen) == 1) {
		want = id;
		wantlen = idlen;
	}

	same = stat(m->path, &st) == 0 &&
	    (m->inode == 0 || (st.st_ino == m->inode &&
	    major(st.st_dev) == m->major && minor(st.st_dev) == m->minor));
	if (same && !m->deleted)
		return pclnp_object_file(as->store, m->path, m->path,
		    m->major, m->minor, m->inode, 0, 0, want, wantlen);
	replaced = !m->deleted;
	if (as->pid > 0) {
		snprintf(mf, sizeof mf, "/proc/%d/map_files/%" PRIx64 "-%"
		    PRIx64, as->pid, m->start, m->end);
		if (access(mf, R_OK) == 0)
			return pclnp_object_file(as->store, m->path, mf,
			    m->major, m->minor, m->inode, m->deleted,
			    replaced, want, wantlen);
		snprintf(note, sizeof note, "%s: %s since it was mapped, "
		    "and %s cannot be read: %s", m->path, m->deleted ?
		    "deleted" : "replaced", mf, strerror(errno));
	} else
		snprintf(note, sizeof note, "%s: %s since it was mapped (its "
		    "device and inode are not the mapping's)", m->path,
		    m->deleted ? "deleted" : "replaced");
	return pclnp_object_none(as->store, m->path, note);
}

static struct inst *
resolve(pcln_aspace *as, struct amap *a)
{
	pcln_object *obj = NULL;
	uint64_t bias;

	if (a->resolved)
		return a->inst;
	a->resolved = 1;
	bump(as);
	if (strncmp(a->path, "//anon", 6) == 0 ||
	    (strncmp(a->path, "/memfd:", 7) == 0 && as->pid == 0))
		return NULL;	/* not files (a memfd: through map_files) */
	if (strcmp(a->path, "[vdso]") == 0 && as->pid > 0)
		obj = memory_object(as, a);
	else if (a->path[0] == '/' && as->store->provider != NULL)
		obj = pclnp_object_provided(as->store, a->path,
		    a->m.build_id, a->m.build_id_len);
	else if (a->path[0] == '/')
		obj = file_object(as, a);
	if (obj == NULL)
		return NULL;
	if (pclnp_object_bias(obj, a->m.start, a->m.offset, &bias) < 0)
		bias = a->m.start - a->m.offset;
	/* An instance of before (the object mapped again at the same bias:
	 * the mapping replaced, a library loaded again where it was) is
	 * not in the registry if it was made again since: make it again
	 * with it. */
	if ((a->inst = get_inst(as, obj, bias)) != NULL)
		as->reg_dirty = 1;
	return a->inst;
}

const pcln_object *
pcln_aspace_object(pcln_aspace *as, uint64_t addr, uint64_t *bias)
{
	struct amap *a = find_amap(as, addr);
	struct inst *x;

	if (a == NULL || (x = resolve(as, a)) == NULL)
		return NULL;
	if (bias != NULL)
		*bias = x->bias;
	return x->obj;
}

size_t
pcln_aspace_load(pcln_aspace *as)
{
	size_t i, n = 0;
	struct inst *x;

	for (i = 0; i < as->nmaps; i++)
		if (as->maps[i].m.prot & PCLN_MAP_EXEC)
			(void)resolve(as, &as->maps[i]);
	for (x = as->insts; x != NULL; x = x->next)
		if (x->obj->table != NULL)
			n++;
	return n;
}

/* --- symbols ----------------------------------------------------------- */

int
pcln_aspace_symbolize(pcln_aspace *as, uint64_t addr, unsigned flags,
    pcln_symbol *sym)
{
	uint64_t look = (flags & PCLN_SYM_RETADDR) ? addr - 1 : addr, link;
	struct amap *a;
	struct inst *x;
	pcln_object *o;
	pcln_loc loc;
	pclnrt_func rf;

	memset(sym, 0, sizeof *sym);
	sym->addr = addr;
	if ((a = find_amap(as, look)) == NULL)
		return 1;
	sym->map = &a->m;
	sym->file_offset = addr - a->m.start + a->m.offset;
	if ((x = resolve(as, a)) == NULL)
		return 1;
	o = x->obj;
	sym->obj = o;
	sym->bias = x->bias;
	sym->objaddr = addr - x->bias;
	if (o->table == NULL)
		return 1;
	link = look - x->bias;
	if (pcln_lookup(o->table, link, &loc) < 0 || loc.func < 0)
		return 1;
	if (!pclnp_object_func_ok(o, (size_t)loc.func)) {
		sym->damaged = 1;
		return 1;
	}
	sym->function = loc.name != NULL ? loc.name : "";
	sym->entry = loc.entry + x->bias;
	sym->file = loc.file;
	sym->line = loc.line;
	/* (A damaged inline tree gives the calls found before the damage.) */
	if (pclnrt_findfunc(&o->rt, link, &rf) == PCLNRT_OK &&
	    rf.index == (uint64_t)loc.func)
		(void)pclnrt_inline(&rf, link, sym->inl, PCLN_SYM_INLINE_MAX,
		    &sym->ninline);
	return 0;
}

/* --- unwinding --------------------------------------------------------- */

/* Take every instance's module out of the registry and free it (no
 * reader: the walks are ours, on this thread). */
static void
drop_registry(pcln_aspace *as)
{
	struct inst *x;

	if (!as->reg_ok)
		return;
	for (x = as->insts; x != NULL; x = x->next)
		(void)pclnp_registry_remove(&as->reg, &x->mod);
	pclnp_registry_free(&as->reg);
	as->reg_ok = 0;
}

/* Register the module of every instance with a table that a current
 * mapping uses (one over another's range is left out: the first wins).
 * Returns -1 if the registry was full. */
static int
fill_registry(pcln_aspace *as)
{
	struct inst *x;
	size_t i;

	for (x = as->insts; x != NULL; x = x->next) {
		int used = 0;

		if (x->mod.table.blob == NULL)
			continue;
		for (i = 0; i < as->nmaps && !used; i++)
			used = as->maps[i].inst == x;
		if (used && pclnp_registry_add(&as->reg, &x->mod) ==
		    PCLNRT_FULL)
			return -1;
	}
	return 0;
}


/* The store's step cache, made at the first walk with ASPACE_STEPS_MIN
 * entries and made larger, four times, each time it has missed for
 * half its entries since it was made (up to ASPACE_STEPS).  A profile's
 * walks step from a few hundred distinct pcs (5,800 samples of a C++
 * program: 406 misses with 8,192 entries, 410 with 4,096; the SQLite
 * shell: 1,696 and 1,818), and each page of the cache costs a fault
 * where it is first written (one 1.1 MB cache: 270 of a run's 1,290
 * faults; pcln_huge_alloc: one huge page from 2 MiB on, below that
 * calloc's, small pages of its own from glibc's 128 KiB on, as many
 * faults as pages written, which cost less than a huge page's 2 MiB on
 * the guests of 2026-12-06; or pclndump perf's heap in huge pages).  It starts at
 * 1,024 entries (136 KiB), not 4,096: the empty entries written at the
 * start were 128 faults of the short bench profile's 800, 1.3 ms on
 * the guest of 2026-12-07 afternoon (10 us a fault); a profile with
 * more pcs than that makes it grow.  The entries start empty when it
 * grows. */
static void
steps_size(pclnp_store *st)
{
	pclnrt_stepcache_ent *v;
	size_t n, len;

	if (st->stepv != NULL && (st->nsteps >= ASPACE_STEPS ||
	    st->steps.misses - st->steps_mark < st->nsteps / 2))
		return;
	n = st->stepv == NULL ? ASPACE_STEPS_MIN : 4 * st->nsteps;
	if (n > ASPACE_STEPS)
		n = ASPACE_STEPS;
	if ((v = pcln_huge_alloc(n * sizeof *v, &len)) == NULL)
		return;		/* the one it has, or none */
	pcln_huge_free(st->stepv, st->steplen);
	st->stepv = v;
	st->steplen = len;
	{
		uint64_t hits = st->nsteps > 0 ? st->steps.hits : 0,
		    misses = st->nsteps > 0 ? st->steps.misses : 0;

		(void)pclnrt_stepcache_init(&st->steps, v, n);
		/* (the counts run on: they are the profile's) */
		st->steps.hits = hits;
		st->steps.misses = misses;
		st->steps_mark = misses;
	}
	st->nsteps = n;
}

/* Make the registry hold the module of every instance with a table that
 * a current mapping uses.  The code map's nodes: a few per module where
 * modules meet, so 4 per module first, then the bound (14) if the
 * registry says it is full. */
static int
sync_registry(pcln_aspace *as)
{
	struct inst *x;
	size_t n = 0, nnode;

	if (!as->reg_dirty)
		return 0;
	for (x = as->insts; x != NULL; x = x->next)
		n++;
	for (nnode = 4 * n + 16;; nnode = 14 * n + 16) {
		drop_registry(as);
		if (pclnp_registry_init(&as->reg, n, nnode, 0) < 0)
			return -1;
		as->reg_ok = 1;
		if (fill_registry(as) == 0 || nnode == 14 * n + 16)
			break;
	}
	as->reg_dirty = 0;
	return 0;
}

static size_t
unwind(pcln_aspace *as, const pcln_regs *regs, unsigned flags,
    pclnrt_readfn read, void *arg, const uint8_t *copy, uint64_t base,
    uint64_t len, pclnrt_frame *frames, size_t max, pclnrt_stopinfo *stop)
{
	pclnrt_walk w;
	pclnrt_stopinfo st;
	size_t n = 0, tries;

	memset(&w, 0, sizeof w);
	w.copy = copy;
	w.copy_base = base;
	w.copy_len = len;
	w.ptrsize = sizeof(void *);
	w.bigendian = 0;
#if defined(__x86_64__) || defined(__i386__)
	w.conv = PCLNRT_CONV_STACK;
	if (!(flags & PCLN_UNWIND_NO_FP))
		w.flags |= PCLNRT_TB_FP;
#else
	w.conv = PCLNRT_CONV_LR;
#endif
	w.flags |= flags & PCLNRT_TB_FIRST_RETADDR;
	w.read = read;
	w.read_arg = arg;
	w.pc = regs->pc;
	w.sp = regs->sp;
	w.fp = regs->fp;
	w.lr = regs->lr;
	w.cache = &as->cache;
	steps_size(as->store);
	if (as->store->stepv != NULL) {
		w.flags |= PCLNRT_TB_STEPS;
		w.steps = &as->store->steps;
	}
	/* Each retry resolves one more mapping, so at most one walk per
	 * mapping (and one more). */
	for (tries = 0; tries <= as->nmaps; tries++) {
		struct amap *a;
		uint64_t look;

		if (sync_registry(as) < 0) {
			st.reason = PCLNRT_STOP_BADARG;
			st.pc = regs->pc;
			st.sp = regs->sp;
			n = 0;
			break;
		}
		w.modules = &as->reg.r;
		n = pclnrt_traceback(&w, frames, max, &st);
		if (st.reason != PCLNRT_STOP_UNKNOWN_PC)
			break;
		look = n > 0 || (flags & PCLNRT_TB_FIRST_RETADDR) ?
		    st.pc - 1 : st.pc;
		if ((a = find_amap(as, look)) == NULL || a->resolved)
			break;
		(void)resolve(as, a);
	}
	if (stop != NULL)
		*stop = st;
	return n;
}

size_t
pcln_aspace_unwind(pcln_aspace *as, const pcln_regs *regs, unsigned flags,
    pclnrt_readfn read, void *arg, pclnrt_frame *frames, size_t max,
    pclnrt_stopinfo *stop)
{
	return unwind(as, regs, flags, read, arg, NULL, 0, 0, frames, max,
	    stop);
}

static int
no_read(void *arg, uint64_t addr, uint8_t *buf, size_t len)
{
	(void)arg;
	(void)addr;
	(void)buf;
	(void)len;
	return -1;
}

size_t
pcln_aspace_unwind_copy(pcln_aspace *as, const pcln_regs *regs,
    unsigned flags, const uint8_t *copy, uint64_t base, uint64_t len,
    pclnrt_frame *frames, size_t max, pclnrt_stopinfo *stop)
{
	return unwind(as, regs, flags, no_read, NULL, copy, base, len, frames,
	    max, stop);
}

const pcln_object *
pcln_aspace_frame_object(const pcln_aspace *as, const pclnrt_frame *fr)
{
	const struct inst *x;

	(void)as;
	if (fr == NULL || fr->module == NULL)
		return NULL;
	x = (const struct inst *)(const void *)fr->module;
	return x->obj;
}
