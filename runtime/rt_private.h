/* rt_private.h -- helpers shared by the runtime's .c files; not
 * installed.  static inline: no symbol of its own.  Allocates nothing,
 * safe in a signal handler. */
#ifndef PCLNRT_PRIVATE_H
#define PCLNRT_PRIVATE_H

#include "pclnrt.h"

/* True if [OFF, OFF + N) lies inside a blob of LEN bytes. */
static inline int
pclnrt_fits_(size_t len, uint64_t off, uint64_t n)
{
	return off <= len && n <= len - off;
}

/* The NUL-terminated string at blob offset OFF of T, or NULL if it does
 * not end in the blob.  Costs one pass over the string. */
static inline const char *
pclnrt_cstring_(const pclnrt_table *t, uint64_t off)
{
	uint64_t i;

	if (off == 0 || off >= t->len)
		return NULL;
	for (i = off; i < t->len; i++)
		if (t->blob[i] == 0)
			return (const char *)(t->blob + off);
	return NULL;
}

#endif /* PCLNRT_PRIVATE_H */
