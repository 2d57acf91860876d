/* self.c -- this process's objects in a runtime registry (pcln_proc.h).
 *
 * dl_iterate_phdr reports each loaded object with its load bias
 * (dlpi_addr) and program headers.  Its table is found as for any object
 * (objects.c) -- from its file, mapped or copied into memory of our own,
 * never pointing into the object's own mapping, which dlclose unmaps --
 * and registered as a module at that bias.  The main program (an empty
 * name) is /proc/self/exe; the vDSO is read from memory.  The iteration
 * only collects: tables are found after it, outside the loader's lock.
 */
#define _GNU_SOURCE 1
#include <config.h>

#include <errno.h>
#include <link.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <unistd.h>

#include "proc_internal.h"

#define SELF_MAX_OBJECTS	1024
/* The code map's nodes: a few per object where objects meet (they are
 * pages apart), so 4 an object; an object that finds the map full is
 * left out and tried again at the next refresh. */
#define SELF_NODES		(4 * SELF_MAX_OBJECTS)
/* Reader records: one for each signal handler or thread walking at
 * the same time (examples/crash_handler.c takes one a crash). */
#define SELF_READERS		64

struct sobj {
	pcln_object *obj;
	uint64_t bias;
	char *name;		/* dlpi_name as reported */
	pclnrt_module mod;
	int registered;
	int seen;
};

struct pcln_self {
	pclnp_store store;
	pclnp_registry reg;
	struct sobj **o;
	size_t n, cap;
	struct sobj **gone;	/* removed, waiting for readers */
	size_t ngone, capgone;
};

/* One object as dl_iterate_phdr reported it. */
struct seen {
	char *name;
	uint64_t addr;
	const ElfW(Phdr) *phdr;
	size_t phnum;
};

struct seenlist {
	struct seen *v;
	size_t n, cap;
	int nomem;
};

static int
collect(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct seenlist *l = arg;
	const char *nm = info->dlpi_name != NULL ? info->dlpi_name : "";
	size_t len = strlen(nm) + 1;
	struct seen *s;

	(void)size;
	if (pclni_grow(&l->v, &l->cap, l->n + 1, sizeof *l->v) < 0) {
		l->nomem = 1;
		return 1;
	}
	s = &l->v[l->n];
	if ((s->name = malloc(len)) == NULL) {
		l->nomem = 1;
		return 1;
	}
	memcpy(s->name, nm, len);
	s->addr = info->dlpi_addr;
	s->phdr = info->dlpi_phdr;
	s->phnum = info->dlpi_phnum;
	l->n++;
	return 0;
}

/* The ELF image of the vDSO at EHDR: to the end of its segments, or of
 * its section headers, which the kernel puts after them in the same
 * mapping (a mapping is whole pages: nothing past the last segment's
 * page is read). */
static size_t
vdso_size(const ElfW(Ehdr) *eh)
{
	const ElfW(Phdr) *ph = (const ElfW(Phdr) *)(const void *)
	    ((const char *)eh + eh->e_phoff);
	size_t i, lim = 0, page = (size_t)sysconf(_SC_PAGESIZE), sh;

	for (i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD &&
		    ph[i].p_offset + ph[i].p_memsz > lim)
			lim = ph[i].p_offset + ph[i].p_memsz;
	sh = (size_t)eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	if (sh > lim && page > 0 && sh <= (lim + page - 1) / page * page)
		lim = sh;
	return lim;
}

static pcln_object *
find_object(pcln_self *s, const struct seen *e)
{
	uintptr_t vdso = (uintptr_t)getauxval(AT_SYSINFO_EHDR);
	char exe[PATH_MAX];
	const char *path = e->name;
	struct stat st;
	size_t i;

	for (i = 0; vdso != 0 && i < e->phnum; i++)
		if (e->phdr[i].p_type == PT_LOAD && e->phdr[i].p_offset == 0 &&
		    e->addr + e->phdr[i].p_vaddr == vdso)
			return pclnp_object_memory(&s->store, "[vdso]",
			    (const uint8_t *)vdso,
			    vdso_size((const ElfW(Ehdr) *)vdso));
	if (path[0] == 0) {
		ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
		if (n <= 0)
			return pclnp_object_none(&s->store, "(main program)",
			    "/proc/self/exe: cannot read the link");
		exe[n] = 0;
		path = exe;
	}
	if (stat(path, &st) < 0) {
		char note[PATH_MAX + 64];
		snprintf(note, sizeof note, "%s: %s", path, strerror(errno));
		return pclnp_object_none(&s->store, path, note);
	}
	return pclnp_object_file(&s->store, path, path, major(st.st_dev),
	    minor(st.st_dev), st.st_ino, 0, 0, NULL, 0);
}

static void
free_sobj(struct sobj *x)
{
	free(x->name);
	free(x);
}

/* Register X's module if it has one and is not registered: a module
 * overlapping a registered one (PCLNRT_OVERLAP) or finding the code map
 * full (PCLNRT_FULL) stays out, to be tried again at the next refresh. */
static void
try_register(pcln_self *s, struct sobj *x)
{
	if (x->registered || x->obj->blob == NULL)
		return;
	if (pclnrt_module_init(&x->mod, x->obj->blob, x->obj->len, x->bias,
	    x->obj->path) != PCLNRT_EINIT_OK)
		return;
	if (pclnp_registry_add(&s->reg, &x->mod) == PCLNRT_OK)
		x->registered = 1;
}

/* Free the removed objects no reader can still hold (their modules are
 * in them; pclnrt_module_reusable). */
static void
reap(pcln_self *s)
{
	size_t j, k;

	for (j = 0, k = 0; j < s->ngone; j++)
		if (pclnp_registry_reusable(&s->reg, &s->gone[j]->mod))
			free_sobj(s->gone[j]);
		else
			s->gone[k++] = s->gone[j];
	s->ngone = k;
}

long
pcln_self_refresh(pcln_self *s, pcln_err *err)
{
	struct seenlist l;
	size_t i, j, k;
	long changes = 0;

	pclni_clearerr(err);
	memset(&l, 0, sizeof l);
	(void)dl_iterate_phdr(collect, &l);
	if (l.nomem) {
		for (i = 0; i < l.n; i++)
			free(l.v[i].name);
		free(l.v);
		return pclni_seterr(err, PCLN_ENOMEM, -1, "out of memory");
	}
	reap(s);
	for (j = 0; j < s->n; j++) {
		s->o[j]->seen = 0;
		for (i = 0; i < l.n && !s->o[j]->seen; i++)
			if (l.v[i].name != NULL &&
			    s->o[j]->bias == l.v[i].addr &&
			    strcmp(s->o[j]->name, l.v[i].name) == 0) {
				s->o[j]->seen = 1;
				free(l.v[i].name);
				l.v[i].name = NULL;	/* known */
			}
	}
	/* Objects gone first (a new object may be loaded where one was):
	 * out of the registry, then freed once no reader holds them.
	 * Their tables stay in the store. */
	for (j = 0, k = 0; j < s->n; j++) {
		struct sobj *x = s->o[j];

		if (x->seen) {
			s->o[k++] = x;
			continue;
		}
		x->obj->priv_->refs--;
		changes++;
		if (x->registered &&
		    pclnp_registry_remove(&s->reg, &x->mod) == PCLNRT_OK &&
		    pclni_grow(&s->gone, &s->capgone, s->ngone + 1,
		    sizeof *s->gone) == 0) {
			x->registered = 0;
			s->gone[s->ngone++] = x;
			continue;
		}
		if (x->registered)
			continue;	/* no memory to wait: leaked */
		free_sobj(x);
	}
	s->n = k;
	reap(s);
	/* Objects left out earlier (the map was full) are tried again. */
	for (j = 0; j < s->n; j++)
		try_register(s, s->o[j]);
	for (i = 0; i < l.n; i++) {
		struct sobj *x = NULL;

		if (l.v[i].name == NULL)
			continue;
		if (s->n >= SELF_MAX_OBJECTS ||
		    pclni_grow(&s->o, &s->cap, s->n + 1, sizeof *s->o) < 0 ||
		    (x = calloc(1, sizeof *x)) == NULL)
			continue;
		if ((x->obj = find_object(s, &l.v[i])) == NULL) {
			free(x);
			continue;
		}
		x->name = l.v[i].name;
		l.v[i].name = NULL;
		x->bias = l.v[i].addr;
		x->seen = 1;
		x->obj->priv_->refs++;
		try_register(s, x);
		s->o[s->n++] = x;
		changes++;
	}
	for (i = 0; i < l.n; i++)
		free(l.v[i].name);
	free(l.v);
	return changes;
}

pcln_self *
pcln_self_open(unsigned flags, pcln_err *err)
{
	pcln_self *s = calloc(1, sizeof *s);

	if (s == NULL) {
		pclni_seterr(err, PCLN_ENOMEM, -1, "out of memory");
		return NULL;
	}
	pclnp_store_init(&s->store, flags);
	if (pclnp_registry_init(&s->reg, SELF_MAX_OBJECTS, SELF_NODES,
	    SELF_READERS) < 0) {
		free(s);
		pclni_seterr(err, PCLN_ENOMEM, -1, "out of memory");
		return NULL;
	}
	if (pcln_self_refresh(s, err) < 0) {
		pcln_self_close(s);
		return NULL;
	}
	return s;
}

pclnrt_registry *
pcln_self_registry(pcln_self *s)
{
	return &s->reg.r;
}

size_t
pcln_self_nobjects(const pcln_self *s)
{
	return s->n;
}

const pcln_object *
pcln_self_object(const pcln_self *s, size_t i, uint64_t *bias)
{
	if (i >= s->n)
		return NULL;
	if (bias != NULL)
		*bias = s->o[i]->bias;
	return s->o[i]->obj;
}

void
pcln_self_close(pcln_self *s)
{
	size_t j;

	if (s == NULL)
		return;
	for (j = 0; j < s->n; j++)
		if (s->o[j]->registered)
			(void)pclnp_registry_remove(&s->reg, &s->o[j]->mod);
	/* No reader may be left (pcln_proc.h): a bracket still open
	 * would be waited for here. */
	for (j = 0; j < s->n; j++)
		while (!pclnp_registry_reusable(&s->reg, &s->o[j]->mod))
			sched_yield();
	for (j = 0; j < s->n; j++)
		free_sobj(s->o[j]);
	while (s->ngone > 0) {
		reap(s);
		if (s->ngone > 0)
			sched_yield();
	}
	free(s->gone);
	free(s->o);
	pclnp_registry_free(&s->reg);
	pclnp_store_free(&s->store);
	free(s);
}

int
pcln_self_read(void *arg, uint64_t addr, uint8_t *buf, size_t len)
{
	struct iovec local = { buf, len };
	struct iovec remote = { (void *)(uintptr_t)addr, len };
	ssize_t r;
	int saved = errno, rc = -1;	/* a handler must not change errno */

	(void)arg;
	if ((uint64_t)(uintptr_t)addr != addr)
		return -1;
	r = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
	if (r == (ssize_t)len)
		rc = 0;
	else if (r < 0 && (errno == ENOSYS || errno == EPERM))
		rc = pclnrt_read_direct(NULL, addr, buf, len);
	errno = saved;
	return rc;
}
