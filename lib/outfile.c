/* outfile.c -- output files: replaced atomically, written in place, or
 * refused; temporaries removed on failure, on signals and by later runs.
 * The rules are in pcln_out.h.
 */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "pcln_out.h"

#define MAX_LINKS	40	/* symbolic links followed, as the kernel */
#define TMP_BASE_MAX	200	/* bytes of NAME kept in a temporary's name */

enum kind { K_REPLACE, K_INPLACE, K_STDOUT };

/* What an output path names, before anything is written. */
struct target {
	const char *path;	/* as given */
	char *final;		/* PATH with its links followed */
	enum kind kind;
	int exists;		/* FINAL exists (for K_STDOUT: fstat(1) worked) */
	struct stat st;		/* of FINAL (of descriptor 1) if it exists */
	int dir_ok;		/* DDEV, DINO are FINAL's directory's */
	dev_t ddev;
	ino_t dino;
};

struct pcln_outfile {
	char *path;		/* for messages */
	char *final;
	char *tmp;		/* the temporary, or NULL when in place */
	char *dir;		/* its directory ("DIR/."), with TMP */
	int fd;
	enum kind kind;
	int exists;
	struct stat st;		/* of the file replaced */
	int slot;		/* in live[], or -1 */
};

/* The temporaries alive, for pcln_out_cleanup in a signal handler.  A
 * slot holds a pointer to the temporary's name from just after it is
 * created to just after it is renamed or removed; the name is freed only
 * after its slot is cleared.  An output beyond NLIVE at once still works,
 * without this cover. */
#define NLIVE	64
static _Atomic(char *) live[NLIVE];

static const int catch_sigs[] = {
	SIGHUP, SIGINT, SIGQUIT, SIGPIPE, SIGTERM, SIGXFSZ
};
#define NCATCH	(sizeof catch_sigs / sizeof catch_sigs[0])

static int
ioerr(pcln_err *err, const char *path, const char *what, int e)
{
	return pclni_seterr(err, PCLN_EIO, -1, "%s: %s: %s",
	    strcmp(path, "-") == 0 ? "standard output" : path, what,
	    strerror(e));
}

static int
nomem(pcln_err *err)
{
	return pclni_seterr(err, PCLN_ENOMEM, -1, "out of memory");
}

/* A new string: the directory part of PATH (through the last '/'),
 * then TAIL. */
static char *
join_dir(const char *path, const char *tail)
{
	const char *slash = strrchr(path, '/');
	size_t d = slash != NULL ? (size_t)(slash - path) + 1 : 0;
	size_t t = strlen(tail);
	char *s = malloc(d + t + 1);

	if (s == NULL)
		return NULL;
	memcpy(s, path, d);
	memcpy(s + d, tail, t + 1);
	return s;
}

/* The last part of PATH. */
static const char *
base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash != NULL ? slash + 1 : path;
}

/* Fill T for PATH: follow its links, and say how it is to be written.
 * Nothing is created or changed. */
static int
resolve(const char *path, struct target *t, pcln_err *err)
{
	struct stat ds;
	char *cur, *dir;
	int hops;

	memset(t, 0, sizeof *t);
	t->path = path;
	if (strcmp(path, "-") == 0) {
		t->kind = K_STDOUT;
		t->exists = fstat(1, &t->st) == 0;
		return 0;
	}
	if (*path == 0 || path[strlen(path) - 1] == '/')
		return pclni_seterr(err, PCLN_EINVAL, -1, "'%s': not a file "
		    "name", path);
	if ((cur = strdup(path)) == NULL)
		return nomem(err);
	for (hops = 0;; hops++) {
		char *link, *next;
		ssize_t n;

		if (lstat(cur, &t->st) != 0) {
			if (errno != ENOENT && errno != ENOTDIR) {
				ioerr(err, path, "cannot write", errno);
				free(cur);
				return -1;
			}
			break;	/* a new file (or creating it will fail) */
		}
		if (!S_ISLNK(t->st.st_mode)) {
			t->exists = 1;
			break;
		}
		if (hops == MAX_LINKS) {
			ioerr(err, path, "cannot write", ELOOP);
			free(cur);
			return -1;
		}
		if ((link = malloc(4096)) == NULL) {
			free(cur);
			return nomem(err);
		}
		if ((n = readlink(cur, link, 4095)) < 0) {
			ioerr(err, path, "cannot read the symbolic link",
			    errno);
			free(link);
			free(cur);
			return -1;
		}
		link[n] = 0;
		next = link[0] == '/' ? strdup(link) : join_dir(cur, link);
		free(link);
		free(cur);
		if ((cur = next) == NULL)
			return nomem(err);
	}
	t->final = cur;
	if (t->exists && S_ISDIR(t->st.st_mode)) {
		ioerr(err, path, "cannot write", EISDIR);
		free(cur);
		t->final = NULL;
		return -1;
	}
	t->kind = t->exists && !S_ISREG(t->st.st_mode) ? K_INPLACE :
	    K_REPLACE;
	if ((dir = join_dir(cur, ".")) == NULL) {
		free(cur);
		t->final = NULL;
		return nomem(err);
	}
	if (stat(dir, &ds) == 0) {
		t->dir_ok = 1;
		t->ddev = ds.st_dev;
		t->dino = ds.st_ino;
	}
	free(dir);
	return 0;
}

/* Do A and B name the same file (pcln_write_files)? */
static int
same_target(const struct target *a, const struct target *b)
{
	if (strcmp(a->path, b->path) == 0)
		return 1;
	if (a->exists && b->exists)
		return a->st.st_dev == b->st.st_dev &&
		    a->st.st_ino == b->st.st_ino && !S_ISCHR(a->st.st_mode);
	if (a->exists || b->exists || a->kind == K_STDOUT ||
	    b->kind == K_STDOUT)
		return 0;
	return a->dir_ok && b->dir_ok && a->ddev == b->ddev &&
	    a->dino == b->dino &&
	    strcmp(base_name(a->final), base_name(b->final)) == 0;
}

/* pcln_out.h's temporaries, shared with lib/find's cache (internal.h). */
int
pclni_out_temp_name(const char *name, size_t *baselen, long *pid)
{
	size_t n = strlen(name), i, d;
	long v = 0;

	/* "." BASE ".pcln-" PID "-" XXXXXX: from the end, where each part
	 * has a fixed shape.  BASE is at least one byte. */
	if (n < 1 + 1 + 6 + 1 + 1 + 6 || name[0] != '.' || name[n - 7] != '-')
		return 0;
	for (i = n - 6; i < n; i++)
		if (name[i] == '/')
			return 0;
	for (d = n - 7; d > 0 && name[d - 1] >= '0' && name[d - 1] <= '9'; d--)
		;
	if (d == n - 7 || name[d] == '0' || d < 1 + 1 + 6 ||
	    memcmp(name + d - 6, ".pcln-", 6) != 0)
		return 0;
	for (i = d; i < n - 7; i++) {
		if (v > 0x7fffffffL / 10)
			return 0;
		v = v * 10 + (name[i] - '0');
	}
	*baselen = d - 6 - 1;
	*pid = v;
	return 1;
}

int
pclni_out_remove_stale(int dfd, const char *name, long pid)
{
	struct stat st, again;
	int fd, gone = 0;

	if (pid == (long)getpid())
		return 0;
	/* A running pid may be the writer: keep its file. */
	if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
		return 0;
	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return 0;
	/* Ours and unlocked: no writer has it open.  The same inode still
	 * under that name when it goes. */
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    st.st_uid == geteuid() && flock(fd, LOCK_EX | LOCK_NB) == 0 &&
	    fstatat(dfd, name, &again, AT_SYMLINK_NOFOLLOW) == 0 &&
	    again.st_ino == st.st_ino && again.st_dev == st.st_dev &&
	    unlinkat(dfd, name, 0) == 0)
		gone = 1;
	close(fd);
	return gone;
}

/* Is NAME a temporary of BASE (".BASE.pcln-PID-XXXXXX", BASE cut to
 * TMP_BASE_MAX)?  Then store PID. */
static int
temp_name(const char *name, const char *base, long *pid)
{
	size_t bl = strlen(base), nl;

	if (bl > TMP_BASE_MAX)
		bl = TMP_BASE_MAX;
	return pclni_out_temp_name(name, &nl, pid) && nl == bl &&
	    memcmp(name + 1, base, bl) == 0;
}

/* Remove the stale temporaries of FINAL's name in its directory
 * (pcln_out.h says which are stale).  Failures are ignored: a stale
 * temporary left is untidy, not wrong. */
static void
sweep_stale(const char *dir, const char *final)
{
	const char *base = base_name(final);
	struct dirent *e;
	DIR *d;

	if ((d = opendir(dir)) == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		long pid;

		if (temp_name(e->d_name, base, &pid))
			(void)pclni_out_remove_stale(dirfd(d), e->d_name, pid);
	}
	closedir(d);
}

static int
live_add(char *tmp)
{
	int k;

	for (k = 0; k < NLIVE; k++) {
		char *none = NULL;
		if (atomic_compare_exchange_strong(&live[k], &none, tmp))
			return k;
	}
	return -1;
}

static void
live_del(int k)
{
	if (k >= 0)
		atomic_store(&live[k], NULL);
}

void
pcln_out_cleanup(void)
{
	int k, e = errno;

	for (k = 0; k < NLIVE; k++) {
		char *p = atomic_load(&live[k]);
		if (p != NULL)
			(void)unlink(p);
	}
	errno = e;
}

static void
free_out(pcln_outfile *o)
{
	free(o->tmp);
	free(o->dir);
	free(o->final);
	free(o->path);
	free(o);
}

/* Open the output T resolved: a temporary next to it, or it in place.
 * Takes T->final. */
static pcln_outfile *
open_target(struct target *t, pcln_err *err)
{
	pcln_outfile *o;
	sigset_t block, old;
	size_t k;
	int e;

	if ((o = calloc(1, sizeof *o)) == NULL ||
	    (o->path = strdup(t->path)) == NULL) {
		free(o);
		free(t->final);
		t->final = NULL;
		nomem(err);
		return NULL;
	}
	o->final = t->final;
	t->final = NULL;
	o->kind = t->kind;
	o->exists = t->exists;
	o->st = t->st;
	o->slot = -1;
	o->fd = -1;
	if (o->kind == K_STDOUT) {
		o->fd = 1;
		return o;
	}
	if (o->kind == K_INPLACE) {
		do
			o->fd = open(o->final, O_WRONLY | O_NOCTTY |
			    O_CLOEXEC);
		while (o->fd < 0 && errno == EINTR);
		if (o->fd < 0) {
			ioerr(err, o->path, "cannot open", errno);
			free_out(o);
			return NULL;
		}
		return o;
	}
	{
		char tail[TMP_BASE_MAX + 48];
		const char *base = base_name(o->final);
		snprintf(tail, sizeof tail, ".%.*s.pcln-%ld-XXXXXX",
		    TMP_BASE_MAX, base, (long)getpid());
		if ((o->tmp = join_dir(o->final, tail)) == NULL ||
		    (o->dir = join_dir(o->final, ".")) == NULL) {
			free_out(o);
			nomem(err);
			return NULL;
		}
	}
	sweep_stale(o->dir, o->final);
	/* No catchable signal between creating the temporary and making
	 * it known to pcln_out_cleanup. */
	sigemptyset(&block);
	for (k = 0; k < NCATCH; k++)
		sigaddset(&block, catch_sigs[k]);
	sigprocmask(SIG_BLOCK, &block, &old);
	o->fd = mkstemp(o->tmp);
	e = errno;
	if (o->fd >= 0)
		o->slot = live_add(o->tmp);
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (o->fd < 0) {
		ioerr(err, o->path, "cannot create a temporary file in its "
		    "directory", e);
		free_out(o);
		return NULL;
	}
	(void)fcntl(o->fd, F_SETFD, FD_CLOEXEC);
	/* Held while we live: a later run sees the file is not stale. */
	(void)flock(o->fd, LOCK_EX | LOCK_NB);
	return o;
}

pcln_outfile *
pcln_outfile_create(const char *path, pcln_err *err)
{
	struct target t;

	if (resolve(path, &t, err) < 0)
		return NULL;
	return open_target(&t, err);
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
	if (o->tmp != NULL) {
		if (o->fd >= 0)
			close(o->fd);
		unlink(o->tmp);
		live_del(o->slot);
	} else if (o->kind == K_INPLACE && o->fd >= 0)
		close(o->fd);
	free_out(o);
}

/* fsync, where the file is one that can be synced: a pipe, a terminal or
 * /dev/null cannot, and that is no failure. */
static int
sync_fd(int fd)
{
	if (fsync(fd) == 0 || errno == EINVAL || errno == EROFS ||
	    errno == ENOTSUP || errno == EOPNOTSUPP || errno == ENOTTY)
		return 0;
	return -1;
}

int
pcln_outfile_commit(pcln_outfile *o, pcln_err *err)
{
	int rc = -1, fd;
	mode_t mode;

	if (o->tmp == NULL) {
		/* In place: everything is written already. */
		if (sync_fd(o->fd) < 0)
			ioerr(err, o->path, "cannot write", errno);
		else if (o->kind == K_INPLACE && (fd = o->fd, o->fd = -1,
		    close(fd) < 0))
			ioerr(err, o->path, "cannot write", errno);
		else
			rc = 0;
		pcln_outfile_abort(o);
		return rc;
	}
	if (o->exists) {
		/* Keep the file's owner (where we may) and mode.  Ownership
		 * first: a chown clears the set-id bits. */
		if ((o->st.st_uid != geteuid() || o->st.st_gid != getegid()) &&
		    fchown(o->fd, o->st.st_uid, o->st.st_gid) != 0) {
			/* not permitted: the file becomes ours */
		}
		mode = o->st.st_mode & 07777;
	} else {
		mode_t mask = umask(0);
		umask(mask);
		mode = 0666 & ~mask;
	}
	if (fchmod(o->fd, mode) < 0 || fsync(o->fd) < 0)
		ioerr(err, o->path, "cannot write", errno);
	else if ((fd = o->fd, o->fd = -1, close(fd) < 0))
		ioerr(err, o->path, "cannot write", errno);
	else if (rename(o->tmp, o->final) < 0)
		ioerr(err, o->path, "cannot rename the temporary file over "
		    "it", errno);
	else {
		/* The rename itself on disk (best effort). */
		if ((fd = open(o->dir, O_RDONLY | O_DIRECTORY |
		    O_CLOEXEC)) >= 0) {
			(void)sync_fd(fd);
			close(fd);
		}
		live_del(o->slot);
		free_out(o);
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

int
pcln_write_files(const pcln_outbuf *outs, size_t n, pcln_err *err)
{
	struct target *t = calloc(n ? n : 1, sizeof *t);
	pcln_outfile **o = calloc(n ? n : 1, sizeof *o);
	size_t i, j;
	int rc = -1, pass;

	if (t == NULL || o == NULL) {
		free(t);
		free(o);
		return nomem(err);
	}
	for (i = 0; i < n; i++)
		if (resolve(outs[i].path, &t[i], err) < 0)
			goto out;
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (t[i].exists && t[j].exists &&
			    S_ISCHR(t[i].st.st_mode) &&
			    t[i].st.st_dev == t[j].st.st_dev &&
			    t[i].st.st_ino == t[j].st.st_ino)
				continue;	/* /dev/null takes both */
			else if (strcmp(outs[i].path, outs[j].path) == 0) {
				pclni_seterr(err, PCLN_EINVAL, -1, "'%s': one "
				    "output named twice", outs[i].path);
				goto out;
			} else if (same_target(&t[i], &t[j])) {
				pclni_seterr(err, PCLN_EINVAL, -1, "'%s' and "
				    "'%s' name the same file", outs[i].path,
				    outs[j].path);
				goto out;
			}
	/* The temporaries of the replaced files, then what is written in
	 * place: a failure up to here changes no existing file. */
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < n; i++) {
			if ((t[i].kind == K_REPLACE) != (pass == 0))
				continue;
			if ((o[i] = open_target(&t[i], err)) == NULL ||
			    pcln_outfile_write(o[i], outs[i].buf, outs[i].len,
			    err) < 0)
				goto out;
			if (pass == 1) {
				pcln_outfile *p = o[i];
				o[i] = NULL;
				if (pcln_outfile_commit(p, err) < 0)
					goto out;
			}
		}
	for (i = 0; i < n; i++) {
		pcln_outfile *p = o[i];
		if (p == NULL)
			continue;
		o[i] = NULL;
		if (pcln_outfile_commit(p, err) < 0)
			goto out;
	}
	rc = 0;
out:
	for (i = 0; i < n; i++) {
		pcln_outfile_abort(o[i]);
		free(t[i].final);
	}
	free(o);
	free(t);
	return rc;
}

static void
on_signal(int sig)
{
	sigset_t s;

	pcln_out_cleanup();
	signal(sig, SIG_DFL);
	raise(sig);
	sigemptyset(&s);
	sigaddset(&s, sig);
	sigprocmask(SIG_UNBLOCK, &s, NULL);	/* dies here */
}

int
pcln_out_catch_signals(void)
{
	struct sigaction sa, old;
	size_t k;
	int rc = 0;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (k = 0; k < NCATCH; k++)
		sigaddset(&sa.sa_mask, catch_sigs[k]);
	for (k = 0; k < NCATCH; k++) {
		if (sigaction(catch_sigs[k], NULL, &old) != 0) {
			rc = -1;
			continue;
		}
		if (old.sa_handler == SIG_IGN)
			continue;
		if (sigaction(catch_sigs[k], &sa, NULL) != 0)
			rc = -1;
	}
	return rc;
}

int
pcln_close_stdout(pcln_err *err)
{
	int pending = __fpending(stdout) != 0;
	int failed = ferror(stdout) != 0;

	if (pending && fflush(stdout) != 0) {
		int e = errno;
		(void)fclose(stdout);
		return ioerr(err, "-", "cannot write", e);
	}
	if (fclose(stdout) != 0 && (pending || errno != EBADF))
		return ioerr(err, "-", "cannot write", errno);
	if (failed)
		return pclni_seterr(err, PCLN_EIO, -1, "standard output: "
		    "cannot write: an earlier write failed");
	return 0;
}
