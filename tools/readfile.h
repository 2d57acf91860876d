/* readfile.h -- read a whole file into memory, for pclnld and pclndump
 * (their inputs may be pipes, so no mmap here; pclndump maps regular
 * files itself). */
#ifndef PCLN_TOOLS_READFILE_H
#define PCLN_TOOLS_READFILE_H

#include <stddef.h>
#include <stdint.h>

/* Read FD to its end into a malloc'ed buffer: *BUF (the caller frees
 * it) and *LEN.  Retries on EINTR.  Returns 0,
 * or -1 with errno set (ENOMEM, EFBIG, or read's) and nothing
 * allocated. */
int tool_read_fd(int fd, uint8_t **buf, size_t *len);

#endif /* PCLN_TOOLS_READFILE_H */
