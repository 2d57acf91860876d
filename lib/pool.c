/* pool.c -- the interning pool: deduplicated byte strings keyed by XXH64.
 * Used by the builder for names, file paths and pc-value tables. */
#include <stdlib.h>
#include <string.h>
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

void
pclni_pool_free(struct pclni_pool *p)
{
	if (!p->ext)
		free(p->data);
	free(p->off);
	free(p->size);
	free(p->hash);
	free(p->slot);
	pclni_pool_init(p);
}

/* Double the slot array (or make the first one) and re-insert every item. */
static int
rehash(struct pclni_pool *p)
{
	size_t nslot = p->nslot ? p->nslot * 2 : 64, i;
	uint32_t *slot = calloc(nslot, sizeof *slot);

	if (slot == NULL)
		return -1;
	for (i = 0; i < p->n; i++) {
		size_t h = (size_t)p->hash[i] & (nslot - 1);
		while (slot[h] != 0)
			h = (h + 1) & (nslot - 1);
		slot[h] = (uint32_t)(i + 1);
	}
	free(p->slot);
	p->slot = slot;
	p->nslot = nslot;
	return 0;
}

static int
grow_items(struct pclni_pool *p)
{
	size_t ncap = p->ncap ? p->ncap * 2 : 64;
	uint32_t *off, *size;
	uint64_t *hash;

	if ((off = realloc(p->off, ncap * sizeof *off)) == NULL)
		return -1;
	p->off = off;
	if ((size = realloc(p->size, ncap * sizeof *size)) == NULL)
		return -1;
	p->size = size;
	if ((hash = realloc(p->hash, ncap * sizeof *hash)) == NULL)
		return -1;
	p->hash = hash;
	p->ncap = ncap;
	return 0;
}

long
pclni_pool_find(const struct pclni_pool *p, const void *data, size_t len)
{
	uint64_t h;
	size_t s;

	if (p->nslot == 0)
		return -1;
	h = XXH64(data, len, 0);
	for (s = (size_t)h & (p->nslot - 1); p->slot[s] != 0;
	    s = (s + 1) & (p->nslot - 1)) {
		size_t i = p->slot[s] - 1;
		if (p->hash[i] == h && p->size[i] == len &&
		    memcmp(p->data + p->off[i], data, len) == 0)
			return (long)i;
	}
	return -1;
}

long
pclni_pool_add(struct pclni_pool *p, const void *data, size_t len,
    int *isnew)
{
	uint64_t h = XXH64(data, len, 0);
	size_t s;

	if (isnew != NULL)
		*isnew = 0;
	if ((p->n + 1) * 2 > p->nslot && rehash(p) != 0)
		return -1;
	for (s = (size_t)h & (p->nslot - 1); p->slot[s] != 0;
	    s = (s + 1) & (p->nslot - 1)) {
		size_t i = p->slot[s] - 1;
		if (p->hash[i] == h && p->size[i] == len &&
		    memcmp(p->data + p->off[i], data, len) == 0)
			return (long)i;
	}
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
	p->hash[p->n] = h;
	p->len += len;
	p->slot[s] = (uint32_t)(p->n + 1);
	p->n++;
	if (isnew != NULL)
		*isnew = 1;
	return (long)(p->n - 1);
}
