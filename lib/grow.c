/* grow.c -- the one growable-array helper of libpcln. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

int
pclni_grow(void *pp, size_t *cap, size_t n, size_t size)
{
	size_t ncap = *cap ? *cap : 16;
	void *p, *q;

	if (n <= *cap)
		return 0;
	while (ncap < n) {
		if (ncap > SIZE_MAX / 2)
			return -1;
		ncap *= 2;
	}
	if (ncap > SIZE_MAX / size)
		return -1;
	memcpy(&p, pp, sizeof p);
	if ((q = realloc(p, ncap * size)) == NULL)
		return -1;
	memcpy(pp, &q, sizeof q);
	*cap = ncap;
	return 0;
}
