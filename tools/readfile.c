/* readfile.c -- read a whole file into memory (readfile.h). */
#include <config.h>

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "readfile.h"

int
tool_read_fd(int fd, uint8_t **bufp, size_t *lenp)
{
	size_t cap = 0, len = 0;
	uint8_t *buf = NULL;

	for (;;) {
		ssize_t n;

		if (len == cap) {
			uint8_t *nb;
			if (cap > (size_t)PTRDIFF_MAX / 2) {
				free(buf);
				errno = EFBIG;
				return -1;
			}
			cap = cap ? cap * 2 : 65536;
			if ((nb = realloc(buf, cap)) == NULL) {
				free(buf);
				errno = ENOMEM;
				return -1;
			}
			buf = nb;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			free(buf);
			return -1;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	*bufp = buf;
	*lenp = len;
	return 0;
}
