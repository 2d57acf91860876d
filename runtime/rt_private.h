/* rt_private.h -- helpers shared by the runtime's .c files; not
 * installed.  static inline: no symbol of its own.  Allocates nothing,
 * safe in a signal handler. */
#ifndef PCLNRT_PRIVATE_H
#define PCLNRT_PRIVATE_H

#include "pclnrt.h"

/* A hint to fetch the cache line at P (no fault if P is bad). */
#if defined(__GNUC__) && !defined(PCLNRT_BPF)
#define PCLNRT_PREFETCH(p)	__builtin_prefetch(p)
#else
#define PCLNRT_PREFETCH(p)	((void)(p))
#endif

/* True if [OFF, OFF + N) lies inside a blob of LEN bytes. */
static inline int
pclnrt_fits_(size_t len, uint64_t off, uint64_t n)
{
	return off <= len && n <= len - off;
}

/* The NUL-terminated string at blob offset OFF of T, or NULL if it does
 * not end in the blob.  O(1): it ends in the blob iff the blob's last 0
 * byte (found by pclnrt_init) lies at or after OFF. */
static inline pclnrt_str
pclnrt_cstring_(const pclnrt_table *t, uint64_t off)
{
	if (off == 0 || off >= t->lastnul)
		return PCLNRT_NOSTR;
	return PCLNRT_STR(t->blob + off);
}

#endif /* PCLNRT_PRIVATE_H */
