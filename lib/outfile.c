/* outfile.c -- write output files atomically.
 *
 * The bytes go to a temporary file in the target's directory, which is
 * fsync'ed and renamed over the target on commit: a reader (or a crash)
 * sees the old file or the whole new one, and a failed or aborted write
 * leaves the old one alone and no temporary behind.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "pcln_link.h"

struct pcln_outfile {
	char *path, *tmp;
	int fd;
};

static int
ioerr(pcln_err *err, const char *path, const char *what, int e)
{
	return pclni_seterr(err, PCLN_EIO, -1, "%s: %s: %s", path, what,
	    strerror(e));
}

pcln_outfile *
pcln_outfile_create(const char *path, pcln_err *err)
{
	const char *slash = strrchr(path, '/');
	size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
	size_t n = strlen(path) + 16;
	pcln_outfile *o;

	if (*path == 0 || (slash != NULL && slash[1] == 0)) {
		pclni_seterr(err, PCLN_EINVAL, -1, "'%s': not a file name",
		    path);
		return NULL;
	}
	if ((o = calloc(1, sizeof *o)) == NULL ||
	    (o->path = strdup(path)) == NULL ||
	    (o->tmp = malloc(n)) == NULL) {
		if (o != NULL)
			free(o->path);
		free(o);
		pclni_seterr(err, PCLN_ENOMEM, -1, "out of memory");
		return NULL;
	}
	memcpy(o->tmp, path, dirlen);
	snprintf(o->tmp + dirlen, n - dirlen, ".%s.XXXXXX", path + dirlen);
	if ((o->fd = mkstemp(o->tmp)) < 0) {
		ioerr(err, path, "cannot create a temporary file in its "
		    "directory", errno);
		free(o->tmp);
		free(o->path);
		free(o);
		return NULL;
	}
	return o;
}

int
pcln_outfile_write(pcln_outfile *o, const void *buf, size_t len,
    pcln_err *err)
{
	const uint8_t *p = buf;

	while (len > 0) {
		ssize_t n = write(o->fd, p, len > 0x40000000 ? 0x40000000 :
		    len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return ioerr(err, o->path, "cannot write",
			    n < 0 ? errno : EIO);
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

void
pcln_outfile_abort(pcln_outfile *o)
{
	if (o == NULL)
		return;
	if (o->fd >= 0)
		close(o->fd);
	unlink(o->tmp);
	free(o->tmp);
	free(o->path);
	free(o);
}

int
pcln_outfile_commit(pcln_outfile *o, pcln_err *err)
{
	mode_t mask = umask(0);
	int rc = -1;

	umask(mask);
	if (fchmod(o->fd, 0666 & ~mask) < 0 || fsync(o->fd) < 0)
		ioerr(err, o->path, "cannot write", errno);
	else if (close(o->fd) < 0) {
		o->fd = -1;
		ioerr(err, o->path, "cannot write", errno);
	} else if ((o->fd = -1, rename(o->tmp, o->path) < 0))
		ioerr(err, o->path, "cannot rename the temporary file over "
		    "it", errno);
	else {
		free(o->tmp);
		free(o->path);
		free(o);
		return 0;
	}
	pcln_outfile_abort(o);
	return rc;
}

int
pcln_write_file_atomic(const char *path, const void *buf, size_t len,
    pcln_err *err)
{
	pcln_outfile *o = pcln_outfile_create(path, err);

	if (o == NULL)
		return -1;
	if (pcln_outfile_write(o, buf, len, err) < 0) {
		pcln_outfile_abort(o);
		return -1;
	}
	return pcln_outfile_commit(o, err);
}
