/* proc_internal.h -- what lib/proc's files share (not installed).
 *
 * objects.c: the object store (tables by identity) and the loader;
 * aspace.c: address spaces, symbolization and the unwinder; ptrace.c:
 * stopping a live process; self.c: this process's objects; registry.c:
 * the runtime registry those use.
 */
#ifndef PCLN_PROC_INTERNAL_H
#define PCLN_PROC_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "internal.h"
#include "pcln_elf.h"
#include "pcln_proc.h"

#define PCLNP_MAX_LOADS	32	/* PT_LOAD segments kept per object */

/* An object's private part. */
struct pcln_objpriv {
	struct pcln_objpriv *next;	/* in the store's list */
	pcln_object *obj;		/* its public part */
	/* Identity: a file by device, inode and path; the vDSO (and any
	 * memory image) by build-id or content hash. */
	uint32_t major, minor;
	uint64_t inode;
	uint64_t memhash;		/* memory images: XXH64 of the image */
	int memory;
	char *path, *file, *note;
	uint8_t *heap;			/* a blob made here (malloc) */
	void *cached;			/* a pcln_cached (lib/find) holding
					 * the blob, or NULL */
	void *map;			/* the file, mmap'ed, if BLOB is in it */
	size_t maplen;
	size_t nload;
	pcln_elf_segment load[PCLNP_MAX_LOADS];
	unsigned char *fstate;		/* per function: unchecked, ok,
					 * damaged (trusted tables only) */
	int trusted;
	unsigned refs;			/* users (pcln_self) */
	int has_vmo;			/* a provider's: bias from VMO */
	uint64_t vmo;			/* p_vaddr - p_offset */
	uint8_t want_id[PCLN_BUILDID_MAX];	/* the id it was asked for */
	size_t want_idlen;
};

/* The object store: every object loaded, shared by the address spaces
 * made from it. */
struct pcln_objstore {
	struct pcln_objpriv *objs;
	unsigned flags;			/* PCLN_AS_* */
	pcln_objtable_fn provider;	/* NULL: the loader of objects.c */
	void *provider_arg;
	pcln_objstore_search search;	/* lib/find's cache and search */
	void *cache;			/* a pcln_cache, opened at the first
					 * table made, or NULL */
	int cache_tried;
	/* The walks' step cache, for every address space on this store
	 * (its keys hold each one's registry and generation), made at the
	 * first walk and grown (aspace.c, steps_size); STEPV NULL: none.
	 * NSTEPS entries; STEPS_MARK: the misses when it was made. */
	pclnrt_stepcache steps;
	pclnrt_stepcache_ent *stepv;	/* pcln_huge_alloc's, STEPLEN bytes */
	size_t steplen;
	size_t nsteps;
	uint64_t steps_mark;
};
/* The step cache's entries (136 bytes each), first and at most: 560 KB
 * to 2.2 MB, one cache for all the processes of a profile. */
#define ASPACE_STEPS_MIN	1024
#define ASPACE_STEPS		16384
typedef struct pcln_objstore pclnp_store;

void pclnp_store_init(pclnp_store *s, unsigned flags);
void pclnp_store_free(pclnp_store *s);

/* The object of the ELF file FILE (opened for reading: a path or
 * /proc/PID/map_files/...), named PATH, mapped from the file with
 * device MAJOR:MINOR and INODE (0 0 0: unknown): found in the store by
 * identity, else loaded.  WANT_ID (WANT_IDLEN > 0): the build-id the
 * mapped image has; a file with another one is not it.  Returns the
 * object, with a note if it has no table; NULL only without memory. */
pcln_object *pclnp_object_file(pclnp_store *s, const char *path,
    const char *file, uint32_t major, uint32_t minor, uint64_t inode,
    int deleted, int replaced, const uint8_t *want_id, size_t want_idlen);

/* The object of the ELF image IMG[0..LEN) read from memory (the vDSO),
 * named PATH.  IMG is copied.  NULL only without memory. */
pcln_object *pclnp_object_memory(pclnp_store *s, const char *path,
    const uint8_t *img, size_t len);

/* The object a store's provider gives for the file mapping PATH with
 * build-id ID[0..IDLEN) (found by path and id, else asked for).  NULL
 * only without memory. */
pcln_object *pclnp_object_provided(pclnp_store *s, const char *path,
    const uint8_t *id, size_t idlen);

/* An object with no table and NOTE (for a mapping whose file cannot be
 * opened); not shared. */
pcln_object *pclnp_object_none(pclnp_store *s, const char *path,
    const char *note);

/* OBJ's load bias for a mapping of file offset OFFSET at run-time START
 * (the PT_LOAD segment holding OFFSET).  Returns 0 and *BIAS, or -1 if
 * no segment holds it. */
int pclnp_object_bias(const pcln_object *obj, uint64_t start,
    uint64_t offset, uint64_t *bias);

/* May function I of OBJ's table be answered from?  Checks it the first
 * time if the table is trusted; 0 if it is damaged. */
int pclnp_object_func_ok(pcln_object *obj, size_t i);

/* --- the runtime registry, in storage of our own ---------------------- */

typedef struct pclnp_registry {
	pclnrt_registry r;
	void *mem;
	size_t cap;			/* modules it can hold */
} pclnp_registry;

/* A code-map registry for up to NMOD modules, NNODE nodes (the bound is
 * 14 a module; a few do for a process's objects, which are pages apart)
 * and NREADER reader records.  Returns 0 or -1 (no memory). */
int pclnp_registry_init(pclnp_registry *g, size_t nmod, size_t nnode,
    size_t nreader);
/* Free the storage: no module may be registered, no reader left. */
void pclnp_registry_free(pclnp_registry *g);
/* pclnrt_register / pclnrt_unregister: their status (PCLNRT_OK,
 * PCLNRT_EXISTS, PCLNRT_OVERLAP, PCLNRT_FULL; PCLNRT_NOTFOUND). */
int pclnp_registry_add(pclnp_registry *g, pclnrt_module *m);
int pclnp_registry_remove(pclnp_registry *g, pclnrt_module *m);
/* pclnrt_module_reusable: may removed module M be freed now? */
int pclnp_registry_reusable(pclnp_registry *g, const pclnrt_module *m);

#endif /* PCLN_PROC_INTERNAL_H */
