/* pool.c -- the interning pool: deduplicated byte strings keyed by XXH3.
 * Used by the builder for names, file paths and pc-value tables. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <xxhash.h>

#include "internal.h"

void
pclni_pool_init(struct pclni_pool *p)
{
	memset(p, 0, sizeof *p);
}

void
pclni_pool_init_in(struct pclni_pool *p, uint8_t *buf, size_t cap)
{
	memset(p, 0, sizeof *p);
	p->data = buf;
	p->cap = cap;
	p->ext = 1;
}

static void slots_free(uint64_t *slot, size_t nslot);

void
pclni_pool_free(struct pclni_pool *p)
{
	if (!p->ext)
		free(p->data);
	free(p->off);
	free(p->size);
	if (p->slot != NULL)
		slots_free(p->slot, p->nslot);
	pclni_pool_init(p);
}

/* Slot arrays of this many bytes or more are mapped on their own, in
 * huge pages where the kernel gives them (MADV_HUGEPAGE): every probe
 * of a large pool is a miss at a random place, and with 4 KiB pages
 * also a TLB miss. */
#define BIGSLOTS	((size_t)4 << 20)

static uint64_t *
slots_new(size_t nslot)
{
	size_t bytes = nslot * sizeof(uint64_t);
	void *m;

	if (bytes < BIGSLOTS)
		return calloc(nslot, sizeof(uint64_t));
	m = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return NULL;
#ifdef MADV_HUGEPAGE
	(void)madvise(m, bytes, MADV_HUGEPAGE);
#endif
	return m;
}

static void
slots_free(uint64_t *slot, size_t nslot)
{
	if (nslot * sizeof(uint64_t) < BIGSLOTS)
		free(slot);
	else
		munmap(slot, nslot * sizeof(uint64_t));
}

/* Double the slot array (or make the first one) and re-insert every item. */
static int
rehash(struct pclni_pool *p)
{
	size_t nslot = p->nslot ? p->nslot * 2 : 64, i;
	uint64_t *slot = slots_new(nslot);

	if (slot == NULL)
		return -1;
	for (i = 0; i < p->nslot; i++) {
		uint64_t e = p->slot[i];
		size_t h;
		if (e == 0)
			continue;
		h = (size_t)(e >> 32) & (nslot - 1);
		while (slot[h] != 0)
			h = (h + 1) & (nslot - 1);
		slot[h] = e;
	}
	if (p->slot != NULL)
		slots_free(p->slot, p->nslot);
	p->slot = slot;
	p->nslot = nslot;
	return 0;
}

static int
grow_items(struct pclni_pool *p)
{
	size_t ncap = p->ncap ? p->ncap * 2 : 64;
	uint32_t *off, *size;

	if ((off = realloc(p->off, ncap * sizeof *off)) == NULL)
		return -1;
	p->off = off;
	if ((size = realloc(p->size, ncap * sizeof *size)) == NULL)
		return -1;
	p->size = size;
	p->ncap = ncap;
	return 0;
}

static uint32_t
hash32(const void *data, size_t len)
{
	return (uint32_t)XXH3_64bits(data, len);
}

uint32_t
pclni_pool_hash(const void *data, size_t len)
{
	return hash32(data, len);
}

void
pclni_pool_prefetch(const struct pclni_pool *p, uint32_t h)
{
#if defined(__GNUC__)
	if (p->nslot > 0)
		__builtin_prefetch(&p->slot[(size_t)h & (p->nslot - 1)]);
#else
	(void)p;
	(void)h;
#endif
}

/* The slot of DATA[0..LEN), whose hash is H: the item's, else the empty
 * one where it would go. */
static size_t
probe(const struct pclni_pool *p, const void *data, size_t len, uint32_t h)
{
	size_t s;

	for (s = (size_t)h & (p->nslot - 1); p->slot[s] != 0;
	    s = (s + 1) & (p->nslot - 1)) {
		uint64_t e = p->slot[s];
		size_t i = (size_t)(uint32_t)e - 1;
		if ((uint32_t)(e >> 32) == h && p->size[i] == len &&
		    memcmp(p->data + p->off[i], data, len) == 0)
			break;
	}
	return s;
}

long
pclni_pool_find(const struct pclni_pool *p, const void *data, size_t len)
{
	size_t s;

	if (p->nslot == 0)
		return -1;
	s = probe(p, data, len, hash32(data, len));
	return p->slot[s] != 0 ? (long)(uint32_t)p->slot[s] - 1 : -1;
}

long
pclni_pool_add(struct pclni_pool *p, const void *data, size_t len,
    int *isnew)
{
	return pclni_pool_add_hashed(p, data, len, hash32(data, len), isnew);
}

long
pclni_pool_add_hashed(struct pclni_pool *p, const void *data, size_t len,
    uint32_t h, int *isnew)
{
	size_t s;

	if (isnew != NULL)
		*isnew = 0;
	if ((p->n + 1) * 2 > p->nslot && rehash(p) != 0)
		return -1;
	s = probe(p, data, len, h);
	if (p->slot[s] != 0)
		return (long)(uint32_t)p->slot[s] - 1;
	if (len > (size_t)INT32_MAX - p->len || p->n >= (size_t)INT32_MAX)
		return -2;
	if (p->ext && ((const uint8_t *)data != p->data + p->len ||
	    len > p->cap - p->len))
		return -1;
	if (p->len + len > p->cap) {
		size_t cap = p->cap ? p->cap : 256;
		uint8_t *d;
		while (cap < p->len + len)
			cap *= 2;
		if ((d = realloc(p->data, cap)) == NULL)
			return -1;
		p->data = d;
		p->cap = cap;
	}
	if (p->n == p->ncap && grow_items(p) != 0)
		return -1;
	if (len > 0 && !p->ext)
		memcpy(p->data + p->len, data, len);
	p->off[p->n] = (uint32_t)p->len;
	p->size[p->n] = (uint32_t)len;
	p->len += len;
	p->slot[s] = (uint64_t)h << 32 | (uint64_t)(p->n + 1);
	p->n++;
	if (isnew != NULL)
		*isnew = 1;
	return (long)(p->n - 1);
}
