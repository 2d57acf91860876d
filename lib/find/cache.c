/* cache.c -- the table cache, and the table for a file or a build-id
 * (pcln_find.h).
 *
 * An entry is a plain blob named by the build-id it describes and the
 * build of libpcln that made it (BUILDID.MAKER.pcln, struct pcln_cache).  Reading
 * one costs an open, an mmap, the checksum (XXH64 over the blob) and an
 * O(1) pcln_open: no verification of every table, which a reader may do
 * per function (pclndump addr2line does).  The checksum reads every
 * byte, more than the rest of a profile's start: once it has held, the
 * entry's extended attribute user.pcln.checked keeps its size and
 * modification time, and while they are the same the checksum is not
 * read again (a rewrite is a new file, an edit a new time: try_entry
 * sets the time to the nanosecond, which no write in the same tick
 * keeps; where the file system keeps no such attributes or times,
 * every read checks).  Writers write a temporary in
 * the cache directory and rename it into place (pcln_write_file_atomic):
 * concurrent writers of one entry each rename a whole, equal blob, and a
 * reader maps whichever it opened, which stays valid even if evicted.
 * A damaged entry is removed only if it is still the file the reader
 * opened (same inode), so a good entry renamed there meanwhile stays.
 */
#define _GNU_SOURCE 1	/* dl_iterate_phdr */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <link.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "find_internal.h"
#include "pcln_dwarf.h"
#include "pcln_link.h"
#include "pclnrt.h"

#define ENTRY_SUFFIX	".pcln"
#define NODWARF_SUFFIX	".nodwarf.pcln"

/* The maker of the entries a library writes and reads: "L" and the
 * first 8 bytes of libpcln's own build-id in hex (the executable's if
 * libpcln is linked into it), else "v" and the package version.  A table
 * depends on the importer that made it, so entries of another build of
 * libpcln are never read: they age out by eviction. */
#define MAKER_MAX	24

struct pcln_cache {
	char *dir;
	uint64_t limit;
	char maker[MAKER_MAX];
};

struct self_query {
	uintptr_t addr;
	char *out;
};

static int
find_self(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct self_query *q = arg;
	const ElfW(Phdr) *ph = info->dlpi_phdr;
	const uint8_t *id;
	size_t idlen, i, k;

	(void)size;
	for (i = 0; i < info->dlpi_phnum; i++) {
		uintptr_t lo = info->dlpi_addr + ph[i].p_vaddr;
		if (ph[i].p_type != PT_LOAD || q->addr < lo ||
		    q->addr - lo >= ph[i].p_memsz)
			continue;
		if (pclnrt_phdr_build_id(ph, info->dlpi_phnum, info->dlpi_addr,
		    &id, &idlen) != PCLNRT_OK || idlen == 0)
			return 0;
		q->out[0] = 'L';
		for (k = 0; k < idlen && k < 8; k++)
			snprintf(q->out + 1 + 2 * k, 3, "%02x", id[k]);
		return 1;
	}
	return 0;
}

static void
maker_id(char out[MAKER_MAX])
{
	struct self_query q;

	q.addr = (uintptr_t)(void *)&find_self;
	q.out = out;
	out[0] = 0;
	if (dl_iterate_phdr(find_self, &q) == 0 || out[0] == 0)
		snprintf(out, MAKER_MAX, "v%s", PACKAGE_VERSION);
}

static int
ioerr(pcln_err *err, const char *path, const char *what)
{
	return pclni_seterr(err, PCLN_EIO, -1, "%s: %s: %s", path, what,
	    strerror(errno));
}

/* mkdir -p DIR (the last component with MODE). */
static int
make_dir(char *dir, mode_t mode)
{
	char *p;
	struct stat st;

	if (stat(dir, &st) == 0)
		return S_ISDIR(st.st_mode) ? 0 : (errno = ENOTDIR, -1);
	for (p = dir + 1; (p = strchr(p, '/')) != NULL; p++) {
		*p = 0;
		if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
			*p = '/';
			return -1;
		}
		*p = '/';
	}
	if (mkdir(dir, mode) < 0 && errno != EEXIST)
		return -1;
	return 0;
}

pcln_cache *
pcln_cache_open(const pcln_cache_opts *opts, pcln_err *err)
{
	const char *dir = opts != NULL ? opts->dir : NULL;
	const char *base;
	char buf[PATH_MAX];
	pcln_cache *c;

	pclni_clearerr(err);
	if (dir == NULL || dir[0] == 0) {
		if ((base = getenv("XDG_CACHE_HOME")) != NULL &&
		    base[0] == '/')
			snprintf(buf, sizeof buf, "%s/pcln", base);
		else if ((base = getenv("HOME")) != NULL && base[0] == '/')
			snprintf(buf, sizeof buf, "%s/.cache/pcln", base);
		else {
			pclni_seterr(err, PCLN_EINVAL, -1, "no cache directory: "
			    "neither XDG_CACHE_HOME nor HOME is an absolute "
			    "path");
			return NULL;
		}
	} else if (snprintf(buf, sizeof buf, "%s", dir) >= (int)sizeof buf) {
		pclni_seterr(err, PCLN_EINVAL, -1, "%s: name too long", dir);
		return NULL;
	}
	if (make_dir(buf, 0700) < 0 || access(buf, W_OK | X_OK) < 0) {
		ioerr(err, buf, "cannot use as the cache directory");
		return NULL;
	}
	if ((c = calloc(1, sizeof *c)) == NULL ||
	    (c->dir = strdup(buf)) == NULL) {
		free(c);
		pclni_find_nomem(err);
		return NULL;
	}
	c->limit = opts != NULL && opts->limit != 0 ? opts->limit :
	    PCLN_CACHE_DEFAULT_LIMIT;
	maker_id(c->maker);
	return c;
}

void
pcln_cache_close(pcln_cache *c)
{
	if (c == NULL)
		return;
	free(c->dir);
	free(c);
}

const char *
pcln_cache_dir(const pcln_cache *c)
{
	return c->dir;
}

const char *
pcln_cache_maker(const pcln_cache *c)
{
	return c->maker;
}

void
pcln_cached_release(pcln_cached *e)
{
	if (e == NULL)
		return;
	if (e->map_ != NULL)
		munmap(e->map_, e->maplen_);
	free(e->heap_);
	memset(e, 0, sizeof *e);
}

static void
entry_path(const pcln_cache *c, const uint8_t *id, size_t len, int nodwarf,
    char *path)
{
	char hex[2 * PCLN_BUILDID_MAX + 1];

	snprintf(path, PCLN_FIND_PATH_MAX, "%s/%s.%s%s", c->dir,
	    pcln_build_id_hex(id, len, hex), c->maker,
	    nodwarf ? NODWARF_SUFFIX : ENTRY_SUFFIX);
}

/* A table made without DWARF is kept with the stamp of the search that
 * found none (pclni_find_stamp), BUILDID.MAKER.nodwarf.stamp: while the
 * stamp is the same, nothing that search reads has changed, and the
 * table stands without searching again (which would cost libdw's
 * loading of libdebuginfod and its 28 libraries on every run). */
#define STAMP_SUFFIX	".nodwarf.stamp"

static void
stamp_path(const pcln_cache *c, const uint8_t *id, size_t len, char *path)
{
	char hex[2 * PCLN_BUILDID_MAX + 1];

	snprintf(path, PCLN_FIND_PATH_MAX, "%s/%s.%s%s", c->dir,
	    pcln_build_id_hex(id, len, hex), c->maker, STAMP_SUFFIX);
}

/* Is STAMP the one stored for ID? */
static int
stamp_matches(const pcln_cache *c, const uint8_t *id, size_t len,
    uint64_t stamp)
{
	char p[PCLN_FIND_PATH_MAX], buf[64], want[64];
	ssize_t n;
	int fd;

	stamp_path(c, id, len, p);
	if ((fd = open(p, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	snprintf(want, sizeof want, "pcln search %016llx\n",
	    (unsigned long long)stamp);
	return n == (ssize_t)strlen(want) && memcmp(buf, want, (size_t)n) == 0;
}

/* Keep STAMP for ID's table without DWARF (STAMPED 0: no stamp can
 * stand for the search; any old one goes). */
static void
stamp_store(const pcln_cache *c, const uint8_t *id, size_t len, int stamped,
    uint64_t stamp)
{
	char p[PCLN_FIND_PATH_MAX], text[64];
	pcln_err err;

	stamp_path(c, id, len, p);
	if (!stamped) {
		(void)unlink(p);
		return;
	}
	snprintf(text, sizeof text, "pcln search %016llx\n",
	    (unsigned long long)stamp);
	(void)pcln_write_file_atomic(p, text, strlen(text), &err);
}

/* Is BLOB[0..LEN) a table for build-id ID whose checksum holds (not
 * read if CHECKED)?  NULL if so, else why not. */
static const char *
entry_fault(const uint8_t *blob, size_t len, const uint8_t *id,
    size_t idlen, int checked)
{
	pcln_table *t;
	const uint8_t *tid;
	size_t tlen;
	int rc;

	if (!checked && pclnrt_verify_checksum(blob, len) != PCLNRT_OK)
		return "no trailer, or its checksum does not match";
	if ((t = pcln_open(blob, len, PCLN_OPEN_TRUSTED, NULL)) == NULL)
		return "not a pcln blob";
	rc = pcln_get_build_id(t, &tid, &tlen);
	pcln_close(t);
	if (rc != 1 || tlen != idlen || memcmp(tid, id, idlen) != 0)
		return "its BUILDID section is not its name";
	return NULL;
}

/* The entry's checked stamp: "SIZE MTIME_NS", its size and
 * modification time when its checksum held. */
#define CHECKED_XATTR	"user.pcln.checked"

static void
checked_stamp(const struct stat *st, char *buf, size_t size)
{
	snprintf(buf, size, "%jd %lld.%09ld", (intmax_t)st->st_size,
	    (long long)st->st_mtim.tv_sec, (long)st->st_mtim.tv_nsec);
}

static int
is_checked(int fd, const struct stat *st)
{
	char want[64], have[64];
	ssize_t n;

	checked_stamp(st, want, sizeof want);
	n = fgetxattr(fd, CHECKED_XATTR, have, sizeof have);
	return n > 0 && (size_t)n == strlen(want) &&
	    memcmp(have, want, (size_t)n) == 0;
}

/* Try the entry PATH.  1 and *OUT filled, 0 if absent or unsound (then
 * removed). */
#define TOUCH_EVERY_NS	1000000000LL	/* a second */

/* Is NOW at or less than NS nanoseconds after THEN? */
static int
used_within(const struct timespec *then, const struct timespec *now,
    long long ns)
{
	long long d = ((long long)now->tv_sec - (long long)then->tv_sec) *
	    1000000000LL + (now->tv_nsec - then->tv_nsec);

	return d >= 0 && d < ns;
}

static int
try_entry(const char *path, const uint8_t *id, size_t idlen,
    pcln_cached *out, pcln_err *err)
{
	struct stat st, now;
	const char *why;
	void *map;
	int fd, checked;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		if (errno == ENOENT)
			return 0;
		return ioerr(err, path, "cannot open");
	}
	if (fstat(fd, &st) < 0) {
		close(fd);
		return ioerr(err, path, "cannot stat");
	}
	map = MAP_FAILED;
	if (S_ISREG(st.st_mode) && st.st_size >= 32 &&
	    (uintmax_t)st.st_size <= SIZE_MAX)
		map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE,
		    fd, 0);
	checked = map != MAP_FAILED && is_checked(fd, &st);
	why = map == MAP_FAILED ? "not a blob (too short, or unreadable)" :
	    entry_fault(map, (size_t)st.st_size, id, idlen, checked);
	if (why != NULL) {
		/* Remove it only if it is still the file we read. */
		if (stat(path, &now) == 0 && now.st_ino == st.st_ino &&
		    now.st_dev == st.st_dev)
			unlink(path);
		if (map != MAP_FAILED)
			munmap(map, (size_t)st.st_size);
		close(fd);
		snprintf(out->found.note, sizeof out->found.note,
		    "cache entry %.900s removed: %s", path, why);
		return 0;
	}
	/* Used now: eviction goes by modification time, and the stamp
	 * follows it.  The time is set from the fine clock: a later write
	 * gets the kernel's coarse one (its last tick), which would keep
	 * an unchanged second and tick within the same few milliseconds
	 * but not these nanoseconds.  A file system that does not keep
	 * them gets no stamp.  A checked entry used less than a second
	 * ago (TOUCH_EVERY_NS) keeps its time and stamp: eviction's order
	 * is then right to within that, and runs one after another (a
	 * profiler's, a benchmark's), each reading a table for each of a
	 * profile's objects, do not each write the cache's metadata three
	 * times for each (a time, a stat, an attribute: 0.3 ms of a 20 ms
	 * pclndump perf run on this guest). */
	{
		struct timespec t[2];
		char stamp[64];

		if (checked && clock_gettime(CLOCK_REALTIME, &t[1]) == 0 &&
		    used_within(&st.st_mtim, &t[1], TOUCH_EVERY_NS))
			;	/* used just now: as it is */
		else if (clock_gettime(CLOCK_REALTIME, &t[1]) == 0 &&
		    t[1].tv_nsec != 0) {
			t[0] = t[1];
			if (futimens(fd, t) == 0 && fstat(fd, &now) == 0 &&
			    now.st_mtim.tv_sec == t[1].tv_sec &&
			    now.st_mtim.tv_nsec == t[1].tv_nsec) {
				checked_stamp(&now, stamp, sizeof stamp);
				(void)fsetxattr(fd, CHECKED_XATTR, stamp,
				    strlen(stamp), 0);
			}
		} else
			(void)futimens(fd, NULL);
	}
	close(fd);
	out->blob = map;
	out->len = (size_t)st.st_size;
	out->map_ = map;
	out->maplen_ = (size_t)st.st_size;
	out->hit = 1;
	snprintf(out->path, sizeof out->path, "%s", path);
	return 1;
}

int
pcln_cache_lookup(pcln_cache *c, const uint8_t *id, size_t len,
    int nodwarf, pcln_cached *out, pcln_err *err)
{
	char path[PCLN_FIND_PATH_MAX];
	int k, rc;

	pclni_clearerr(err);
	memset(out, 0, sizeof *out);
	if (len == 0 || len > PCLN_BUILDID_MAX)
		return pclni_seterr(err, PCLN_EINVAL, -1, "build-id of %zu "
		    "bytes (expected 1 to %d)", len, PCLN_BUILDID_MAX);
	for (k = 0; k <= (nodwarf != 0); k++) {
		char note[sizeof out->found.note];

		entry_path(c, id, len, k, path);
		memcpy(note, out->found.note, sizeof note);
		if ((rc = try_entry(path, id, len, out, err)) != 0) {
			out->nodwarf = k;
			return rc;
		}
		if (out->found.note[0] == 0)
			memcpy(out->found.note, note, sizeof note);
	}
	return 0;
}

/* --- eviction ----------------------------------------------------------- */

struct ent {
	char *name;
	struct timespec mtime;
	uint64_t size;
};

static int
cmpent(const void *a, const void *b)
{
	const struct ent *x = a, *y = b;

	if (x->mtime.tv_sec != y->mtime.tv_sec)
		return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
	if (x->mtime.tv_nsec != y->mtime.tv_nsec)
		return x->mtime.tv_nsec < y->mtime.tv_nsec ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int
ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* A writer's temporary of an entry: pcln_out.h's ".NAME.pcln-PID-XXXXXX"
 * for an entry name NAME (internal.h has the one definition).  Then
 * store PID. */
static int
is_temporary(const char *name, long *pid)
{
	size_t bl;

	return pclni_out_temp_name(name, &bl, pid) &&
	    bl >= sizeof ENTRY_SUFFIX - 1 &&
	    memcmp(name + 1 + bl - (sizeof ENTRY_SUFFIX - 1), ENTRY_SUFFIX,
	    sizeof ENTRY_SUFFIX - 1) == 0;
}

long
pcln_cache_evict(pcln_cache *c, uint64_t limit, const char *keep,
    pcln_err *err)
{
	DIR *dir;
	struct dirent *de;
	struct ent *ents = NULL;
	size_t n = 0, cap = 0, i;
	uint64_t total = 0;
	long removed = 0;
	const char *keepname = NULL;
	char path[PCLN_FIND_PATH_MAX];

	pclni_clearerr(err);
	if (limit == 0)
		limit = c->limit;
	if (keep != NULL)
		keepname = strrchr(keep, '/') != NULL ? strrchr(keep, '/') + 1 :
		    keep;
	if ((dir = opendir(c->dir)) == NULL)
		return ioerr(err, c->dir, "cannot read the cache directory");
	while ((de = readdir(dir)) != NULL) {
		struct stat st;
		long pid;

		if (is_temporary(de->d_name, &pid)) {
			/* Left by a writer that died (pcln_out.h's rule). */
			removed += pclni_out_remove_stale(dirfd(dir),
			    de->d_name, pid);
			continue;
		}
		if (ends_with(de->d_name, STAMP_SUFFIX)) {
			/* A stamp whose table went goes too. */
			size_t k = strlen(de->d_name) - (sizeof STAMP_SUFFIX -
			    1);

			snprintf(path, sizeof path, "%s/%.*s%s", c->dir,
			    (int)k, de->d_name, NODWARF_SUFFIX);
			if (access(path, F_OK) < 0 && errno == ENOENT) {
				snprintf(path, sizeof path, "%s/%s", c->dir,
				    de->d_name);
				if (unlink(path) == 0)
					removed++;
			}
			continue;
		}
		if (!ends_with(de->d_name, ENTRY_SUFFIX))
			continue;
		snprintf(path, sizeof path, "%s/%s", c->dir, de->d_name);
		if (lstat(path, &st) < 0 || !S_ISREG(st.st_mode))
			continue;
		if (pclni_grow(&ents, &cap, n + 1, sizeof *ents) < 0 ||
		    (ents[n].name = strdup(de->d_name)) == NULL) {
			closedir(dir);
			for (i = 0; i < n; i++)
				free(ents[i].name);
			free(ents);
			return pclni_find_nomem(err);
		}
		ents[n].mtime = st.st_mtim;
		ents[n].size = (uint64_t)st.st_size;
		total += ents[n++].size;
	}
	closedir(dir);
	if (total > limit && n > 0)
		qsort(ents, n, sizeof *ents, cmpent);
	for (i = 0; i < n && total > limit; i++) {
		if (keepname != NULL && strcmp(ents[i].name, keepname) == 0)
			continue;
		snprintf(path, sizeof path, "%s/%s", c->dir, ents[i].name);
		/* ENOENT: another process evicted it first. */
		if (unlink(path) == 0 || errno == ENOENT) {
			total -= ents[i].size;
			removed++;
		}
	}
	for (i = 0; i < n; i++)
		free(ents[i].name);
	free(ents);
	return removed;
}

int
pcln_cache_store(pcln_cache *c, const uint8_t *id, size_t len, int nodwarf,
    const uint8_t *blob, size_t bloblen, char *path, pcln_err *err)
{
	char p[PCLN_FIND_PATH_MAX];
	const char *why;

	pclni_clearerr(err);
	if (len == 0 || len > PCLN_BUILDID_MAX)
		return pclni_seterr(err, PCLN_EINVAL, -1, "build-id of %zu "
		    "bytes (expected 1 to %d)", len, PCLN_BUILDID_MAX);
	if ((why = entry_fault(blob, bloblen, id, len, 0)) != NULL)
		return pclni_seterr(err, PCLN_EINVAL, -1, "not stored in the "
		    "cache: %s", why);
	entry_path(c, id, len, nodwarf, p);
	if (pcln_write_file_atomic(p, blob, bloblen, err) < 0)
		return -1;
	if (!nodwarf) {
		char old[PCLN_FIND_PATH_MAX];
		entry_path(c, id, len, 1, old);
		(void)unlink(old);	/* superseded */
		stamp_path(c, id, len, old);
		(void)unlink(old);
	}
	if (path != NULL)
		snprintf(path, PCLN_FIND_PATH_MAX, "%s", p);
	if (pcln_cache_evict(c, 0, p, err) < 0)
		return -1;
	return 0;
}

/* --- the table for a file or a build-id ------------------------------- */

/* Import D into a blob in *OUT (heap).  0 or -1. */
static int
convert(pcln_debuginfo *d, unsigned flags, pcln_cached *out, pcln_err *err)
{
	pcln_builder *b = NULL;
	uint8_t *blob;
	size_t len;

	if (pcln_dwarf_import_debuginfo(d, flags & ~(unsigned)PCLN_TABLE_VERIFY,
	    NULL, NULL, &b, NULL, err) < 0)
		return -1;
	if (pcln_builder_write(b, 0, &blob, &len, err) < 0) {
		pcln_builder_free(b);
		return -1;
	}
	pcln_builder_free(b);
	out->blob = blob;
	out->len = len;
	out->heap_ = blob;
	out->hit = 0;
	return 0;
}

int
pcln_table_for_file(pcln_cache *cache, const char *path,
    const pcln_find_opts *opts, unsigned flags, pcln_cached *out,
    pcln_err *err)
{
	uint8_t id[PCLN_BUILDID_MAX];
	size_t idlen = 0;
	pcln_debuginfo *d = NULL;
	pcln_cached old;
	char note[sizeof out->found.note] = "";
	uint64_t stamp = 0;
	int rc, stamped = 0;

	pclni_clearerr(err);
	memset(out, 0, sizeof *out);
	memset(&old, 0, sizeof old);
	if (pcln_file_build_id(path, id, &idlen, err) < 0)
		return -1;
	/* Only the default table (with inlined calls) is cached, and only
	 * a file with a build-id can be. */
	if (cache != NULL && idlen == 0)
		snprintf(note, sizeof note, "%s has no build-id, so its table "
		    "is not cached", path);
	if ((flags & PCLN_DWARF_NO_INLINE) || idlen == 0)
		cache = NULL;
	if (cache != NULL) {
		if ((rc = pcln_cache_lookup(cache, id, idlen, 1, &old,
		    err)) < 0)
			return -1;
		memcpy(note, old.found.note, sizeof note);
		if (rc == 1 && !old.nodwarf) {
			*out = old;
			goto verify;
		}
		/* Taken before the search: a debug file that turns up
		 * while it runs makes the next run search again. */
		stamped = pclni_find_stamp(path, opts, id, idlen, &stamp) ==
		    0;
		if (rc == 1 && stamped && stamp_matches(cache, id, idlen,
		    stamp)) {
			old.found.route = PCLN_ROUTE_NONE;
			snprintf(old.found.note, sizeof old.found.note, "no "
			    "DWARF found before, and nothing the search reads "
			    "(the file, the debug directories, the places of "
			    "its debug file) has changed since: not searched "
			    "again");
			*out = old;
			goto verify;
		}
	}
	if (flags & PCLN_TABLE_CACHED) {
		pcln_cached_release(&old);
		return pclni_seterr(err, PCLN_ENOTFOUND, -1, "%s: %s", path,
		    cache == NULL ? "no cache (or no build-id) to take its "
		    "table from" : "its table is not in the cache");
	}
	if ((d = pcln_debuginfo_open(path, opts, err)) == NULL) {
		pcln_cached_release(&old);
		return -1;
	}
	/* A table made without DWARF stands until the search finds some. */
	if (old.blob != NULL && d->res.route == PCLN_ROUTE_NONE) {
		old.found = d->res;	/* where the search looked */
		pcln_debuginfo_close(d);
		stamp_store(cache, id, idlen, stamped, stamp);
		*out = old;
		goto verify;
	}
	pcln_cached_release(&old);
	if (convert(d, flags, out, err) < 0) {
		pcln_debuginfo_close(d);
		return -1;
	}
	out->found = d->res;
	out->nodwarf = d->res.route == PCLN_ROUTE_NONE;
	pcln_debuginfo_close(d);
	if (cache == NULL && note[0] != 0) {
		size_t k = strlen(out->found.note);
		snprintf(out->found.note + k, sizeof out->found.note - k,
		    "%s%.900s", k ? "; " : "", note);
	}
	if (cache != NULL) {
		pcln_err serr;
		memset(&serr, 0, sizeof serr);
		/* Not stored is not fatal: the table is good. */
		if (pcln_cache_store(cache, id, idlen, out->nodwarf, out->blob,
		    out->len, out->path, &serr) < 0) {
			out->path[0] = 0;
			snprintf(note, sizeof note, "%s", serr.msg);
		} else if (out->nodwarf)
			stamp_store(cache, id, idlen, stamped, stamp);
		if (note[0] != 0) {
			size_t k = strlen(out->found.note);
			snprintf(out->found.note + k, sizeof out->found.note - k,
			    "%s%s", k ? "; " : "", note);
		}
	}
	return 0;
verify:
	if ((flags & PCLN_TABLE_VERIFY) && pcln_verify(out->blob, out->len,
	    err) < 0) {
		pcln_cached_release(out);
		return -1;
	}
	return 0;
}

/* An object with build-id ID: DIR/.build-id/xx/yyyy under the debug
 * directories, then debuginfod's executable.  1 and PATH, or 0. */
static int
find_object(const uint8_t *id, size_t len, const pcln_find_opts *o,
    char *path, char *why, size_t whysz)
{
	char hex[2 * PCLN_BUILDID_MAX + 1];
	size_t i;

	pcln_build_id_hex(id, len, hex);
	for (i = 0;; i++) {
		const char *dir = o->debug_dirs != NULL ? o->debug_dirs[i] : NULL;
		if (dir == NULL) {
			if (o->flags & PCLN_FIND_NO_DEFAULT)
				break;
			dir = "/usr/lib/debug";
		}
		snprintf(path, PCLN_FIND_PATH_MAX, "%s/.build-id/%.2s/%s", dir,
		    hex, hex + 2);
		if (access(path, R_OK) == 0)
			return 1;
		if (o->debug_dirs == NULL || o->debug_dirs[i] == NULL)
			break;
	}
	snprintf(why, whysz, "no object with build-id %s under the debug "
	    "directories (.build-id/%.2s/%s)", hex, hex, hex + 2);
#ifdef HAVE_LIBDEBUGINFOD
	if (!(o->flags & PCLN_FIND_NO_DEBUGINFOD)) {
		const char *urls = getenv("DEBUGINFOD_URLS");
		const struct pclni_debuginfod *f;
		debuginfod_client *c;
		char *p = NULL;
		int fd;

		if (urls == NULL || urls[0] == 0 ||
		    (f = pclni_find_debuginfod()) == NULL ||
		    (c = f->begin()) == NULL)
			return 0;
		fd = f->find_executable(c, id, (int)len, &p);
		f->end(c);
		if (fd >= 0) {
			close(fd);
			snprintf(path, PCLN_FIND_PATH_MAX, "%s", p);
			free(p);
			return 1;
		}
		snprintf(why + strlen(why), whysz - strlen(why), "; debuginfod "
		    "(DEBUGINFOD_URLS=%s): %s", urls, strerror(-fd));
	}
#endif
	return 0;
}

int
pcln_table_for_build_id(pcln_cache *cache, const uint8_t *id, size_t len,
    const pcln_find_opts *opts, unsigned flags, pcln_cached *out,
    pcln_err *err)
{
	static const pcln_find_opts defaults;
	const pcln_find_opts *o = opts != NULL ? opts : &defaults;
	char path[PCLN_FIND_PATH_MAX], why[1024];
	uint8_t fid[PCLN_BUILDID_MAX];
	size_t flen;
	int rc;

	pclni_clearerr(err);
	memset(out, 0, sizeof *out);
	if (len == 0 || len > PCLN_BUILDID_MAX)
		return pclni_seterr(err, PCLN_EINVAL, -1, "build-id of %zu "
		    "bytes (expected 1 to %d)", len, PCLN_BUILDID_MAX);
	if (cache != NULL && !(flags & PCLN_DWARF_NO_INLINE)) {
		if ((rc = pcln_cache_lookup(cache, id, len, 0, out, err)) != 0)
			return rc < 0 ? -1 : 0;
	}
	if (flags & PCLN_TABLE_CACHED) {
		char hex[2 * PCLN_BUILDID_MAX + 1];

		return pclni_seterr(err, PCLN_ENOTFOUND, -1, "build-id %s: "
		    "no table in the cache", pcln_build_id_hex(id, len, hex));
	}
	if (!find_object(id, len, o, path, why, sizeof why))
		return pclni_seterr(err, PCLN_ENOTFOUND, -1, "%s", why);
	if (pcln_file_build_id(path, fid, &flen, err) < 0)
		return -1;
	if (flen != len || memcmp(fid, id, len) != 0)
		return pclni_seterr(err, PCLN_EBUILDID, -1, "%s: not the "
		    "object with that build-id", path);
	return pcln_table_for_file(cache, path, opts, flags, out, err);
}
