/* debuginfo.c -- find an ELF file's debug information (pcln_find.h says
 * in which order): its own sections, then libdwfl's search by build-id
 * and .gnu_debuglink, then debuginfod; and its symbol tables.
 *
 * libdwfl does the looking.  dwfl_build_id_find_debuginfo searches the
 * build-id directories only; dwfl_standard_find_debuginfo searches them
 * again (a few stat calls), then the debuglink places, then asks
 * debuginfod through libdwfl's own libdebuginfod client, and returns
 * libdebuginfod's negative errno when that fails -- which is how the
 * note can say why.  A progress function on that client records that a
 * server was asked, and cancels the transfer under
 * PCLN_FIND_NO_DEBUGINFOD.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "find_internal.h"
#include "pclnrt.h"		/* pclnrt_xxh64 */
#include "pcln_elf.h"

#define DEFAULT_DEBUG_DIR	"/usr/lib/debug"

int
pclni_find_nomem(pcln_err *err)
{
	return pclni_seterr(err, PCLN_ENOMEM, -1, "out of memory");
}

/* Append to the result's note, "; " between parts. */
void
pclni_find_note(struct pcln_debuginfo *d, const char *fmt, ...)
{
	char *n = d->res.note;
	size_t len = strlen(n), cap = sizeof d->res.note;
	va_list ap;

	if (len > 0 && len + 2 < cap) {
		memcpy(n + len, "; ", 3);
		len += 2;
	}
	va_start(ap, fmt);
	if (len + 1 < cap)
		vsnprintf(n + len, cap - len, fmt, ap);
	va_end(ap);
}

const char *
pcln_route_name(pcln_route r)
{
	switch (r) {
	case PCLN_ROUTE_SELF: return "self";
	case PCLN_ROUTE_BUILDID: return "build-id";
	case PCLN_ROUTE_DEBUGLINK: return "debuglink";
	case PCLN_ROUTE_DEBUGINFOD: return "debuginfod";
	default: return "none";
	}
}

const char *
pcln_symsrc_name(pcln_symsrc s)
{
	switch (s) {
	case PCLN_SYMS_SYMTAB: return ".symtab";
	case PCLN_SYMS_DEBUG_SYMTAB: return "debug file's .symtab";
	case PCLN_SYMS_DYNSYM: return ".dynsym";
	case PCLN_SYMS_MINIDEBUG: return ".dynsym + MiniDebugInfo";
	default: return "none";
	}
}

/* The first section of E named NAME with bytes in the file, or NULL. */
Elf_Scn *
pclni_find_scn(Elf *e, const char *want)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(e, &shstrndx) != 0)
		return NULL;
	while ((scn = elf_nextscn(e, scn)) != NULL) {
		GElf_Shdr sh;
		const char *name;

		if (gelf_getshdr(scn, &sh) == NULL || sh.sh_type == SHT_NOBITS ||
		    sh.sh_size == 0)
			continue;
		name = elf_strptr(e, shstrndx, sh.sh_name);
		if (name != NULL && strcmp(name, want) == 0)
			return scn;
	}
	return NULL;
}

/* Does E have DWARF of its own: a .debug_info (or .zdebug_info) with
 * bytes in the file? */
static int
has_debug_info(Elf *e)
{
	return pclni_find_scn(e, ".debug_info") != NULL ||
	    pclni_find_scn(e, ".zdebug_info") != NULL;
}

static int
has_section_type(Elf *e, unsigned type)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(e, scn)) != NULL) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) != NULL && sh.sh_type == type &&
		    sh.sh_entsize != 0)
			return 1;
	}
	return 0;
}

/* Open the DWARF of E (already decompressed).  NULL: none usable. */
static Dwarf *
open_dwarf(struct pcln_debuginfo *d, Elf *e, const char *what)
{
	Dwarf *dw = dwarf_begin_elf(e, DWARF_C_READ, NULL);

	if (dw == NULL)
		pclni_find_note(d, "%s: DWARF not readable: %s", what,
		    dwarf_errmsg(-1));
	return dw;
}

#ifdef HAVE_LIBDEBUGINFOD
/* libdebuginfod calls this while a transfer runs. */
static int
progress(debuginfod_client *c, long a, long b)
{
	const struct pclni_debuginfod *f = pclni_find_debuginfod();
	struct pcln_debuginfo *d = f != NULL ? f->get_user_data(c) : NULL;

	(void)a;
	(void)b;
	if (d == NULL)
		return 0;
	d->asked = 1;
	return d->no_debuginfod;	/* nonzero cancels */
}
#endif

/* Why debuginfod gave nothing, from libdebuginfod's -errno RC. */
static void
debuginfod_note(struct pcln_debuginfo *d, int rc, const char *hex)
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	const char *why;

	if (urls == NULL || urls[0] == 0)
		return;
	if (d->no_debuginfod) {
		pclni_find_note(d, "debuginfod not asked (disabled)");
		return;
	}
	switch (-rc) {
	case ENOENT:
		why = d->asked ? "no such file there (404)" : "not found (an "
		    "earlier miss, remembered in libdebuginfod's cache: "
		    "DEBUGINFOD_CACHE_PATH, cache_miss_s)";
		break;
	case ETIME:
	case ETIMEDOUT:
		why = "timed out (DEBUGINFOD_TIMEOUT, DEBUGINFOD_MAXTIME)";
		break;
	case ECONNREFUSED:
		why = "connection refused (is the server down?)";
		break;
	case ENOSYS:
		why = "no usable server URL";
		break;
	case EPERM:	/* -1: libdwfl had no client to ask with */
		why = "not asked (is libdebuginfod installed?)";
		break;
	default:
		why = strerror(-rc);
		break;
	}
	pclni_find_note(d, "debuginfod (DEBUGINFOD_URLS=%s) for build-id %s: "
	    "%s", urls, hex, why);
}

/* libdwfl's debuginfo_path: the file's directory, its .debug/, the given
 * directories, then the default one (build-id lookups use the absolute
 * entries only, in that order). */
static int
make_dipath(struct pcln_debuginfo *d, const pcln_find_opts *o,
    pcln_err *err)
{
	size_t cap = 64, len, i;
	char *p;

	for (i = 0; o->debug_dirs != NULL && o->debug_dirs[i] != NULL; i++)
		cap += strlen(o->debug_dirs[i]) + PATH_MAX + 2;
	if ((p = malloc(cap)) == NULL)
		return pclni_find_nomem(err);
	/* The leading '+': check debuglink CRCs (when there is no
	 * build-id to check instead). */
	len = (size_t)snprintf(p, cap, "+:.debug");
	for (i = 0; o->debug_dirs != NULL && o->debug_dirs[i] != NULL; i++) {
		char abs[PATH_MAX];
		const char *dir = o->debug_dirs[i];

		if (realpath(dir, abs) == NULL) {
			pclni_find_note(d, "debug directory %s: %s", dir,
			    strerror(errno));
			continue;
		}
		if (strchr(abs, ':') != NULL) {
			pclni_find_note(d, "debug directory %s: a ':' in the "
			    "name is not supported", abs);
			continue;
		}
		len += (size_t)snprintf(p + len, cap - len, ":%s", abs);
	}
	if (!(o->flags & PCLN_FIND_NO_DEFAULT))
		snprintf(p + len, cap - len, ":%s", DEFAULT_DEBUG_DIR);
	d->dipath = p;
	return 0;
}

/* Open the debug file FD (named NAME) found by ROUTE; check its
 * build-id. 0 (found, or not usable: noted), -1 on no memory. */
static int
take_debug_file(struct pcln_debuginfo *d, int fd, const char *name,
    pcln_route route, pcln_err *err)
{
	char buf[PATH_MAX];
	const void *bid;
	ssize_t n;

	if (name == NULL) {
		char proc[64];
		snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
		n = readlink(proc, buf, sizeof buf - 1);
		buf[n > 0 ? n : 0] = 0;
		name = buf;
	}
	d->dfd = fd;
	d->delf = elf_begin(fd, ELF_C_READ_MMAP_PRIVATE, NULL);
	if (d->delf == NULL || elf_kind(d->delf) != ELF_K_ELF) {
		pclni_find_note(d, "%s (by %s): not an ELF file", name,
		    pcln_route_name(route));
		return 0;
	}
	if (d->res.build_id_len > 0) {
		n = dwelf_elf_gnu_build_id(d->delf, &bid);
		if (n != (ssize_t)d->res.build_id_len ||
		    memcmp(bid, d->res.build_id, (size_t)n) != 0) {
			pclni_find_note(d, "%s (by %s): not the file's debug "
			    "file (another build-id)", name,
			    pcln_route_name(route));
			return 0;
		}
	}
	if (pclni_find_decompress(d, d->delf, name, err) < 0)
		return -1;
	snprintf(d->res.debug_file, sizeof d->res.debug_file, "%s", name);
	if ((d->dw = open_dwarf(d, d->delf, name)) == NULL)
		return 0;
	d->dwelf = d->delf;
	d->res.route = route;
	return 0;
}

/* --- the search's stamp ------------------------------------------------ */

/* Into H: PATH, and whether it exists and its identity and times. */
static uint64_t
stamp_path(uint64_t h, const char *path)
{
	struct stat st;
	uint64_t v[7];

	memset(v, 0, sizeof v);
	if (stat(path, &st) == 0) {
		v[0] = (uint64_t)st.st_dev;
		v[1] = (uint64_t)st.st_ino;
		v[2] = (uint64_t)st.st_size;
		v[3] = (uint64_t)st.st_mtim.tv_sec;
		v[4] = (uint64_t)st.st_mtim.tv_nsec;
		v[5] = (uint64_t)st.st_ctim.tv_sec;
		v[6] = (uint64_t)st.st_ctim.tv_nsec;
	} else
		v[0] = (uint64_t)errno | UINT64_C(1) << 63;
	h = pclnrt_xxh64(path, strlen(path) + 1, h);
	return pclnrt_xxh64(v, sizeof v, h);
}

int
pclni_find_stamp(const char *path, const pcln_find_opts *o,
    const uint8_t *id, size_t idlen, uint64_t *stamp)
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	char abs[PATH_MAX], dir[PATH_MAX], p[3 * PATH_MAX];
	char hex[2 * PCLN_BUILDID_MAX + 1], own[NAME_MAX + 8];
	const char *dirs[64], *link = NULL, *slash;
	size_t nd = 0, i;
	uint64_t h;
	GElf_Word crc = 0;
	Elf *e = NULL;
	int fd;
	static const pcln_find_opts none;

	if (o == NULL)
		o = &none;	/* as pcln_debuginfo_open takes NULL */
	if (!(o->flags & PCLN_FIND_NO_DEBUGINFOD) && urls != NULL &&
	    urls[0] != 0)
		return -1;	/* a server may have it by now */
	if (realpath(path, abs) == NULL)
		return -1;
	h = pclnrt_xxh64("pcln search 2", 13, o->flags);
	h = stamp_path(h, abs);
	if (o->flags & PCLN_FIND_NO_SEARCH) {
		*stamp = h;
		return 0;
	}
	slash = strrchr(abs, '/');
	snprintf(dir, sizeof dir, "%.*s", (int)(slash - abs), abs);
	/* (read, not mapped: the section headers and the debuglink, at the
	 * file's end, with a few preads, where a mapping's first touches
	 * each cost a page fault, 15 to 90 us on a guest measured here) */
	if ((fd = open(abs, O_RDONLY | O_CLOEXEC)) >= 0) {
		elf_version(EV_CURRENT);
		if ((e = elf_begin(fd, ELF_C_READ, NULL)) != NULL)
			link = dwelf_elf_gnu_debuglink(e, &crc);
	}
	/* Without a debuglink, libdwfl looks for NAME.debug instead. */
	if (link == NULL) {
		snprintf(own, sizeof own, "%s.debug", slash + 1);
		link = own;
	}
	h = pclnrt_xxh64(link, strlen(link) + 1, h);
	pcln_build_id_hex(id, idlen, hex);
	/* The places make_dipath's path names, as libdwfl looks in them:
	 * each candidate file (its appearing or changing changes the
	 * stamp), and which directories are there to look in. */
	for (i = 0; o->debug_dirs != NULL && o->debug_dirs[i] != NULL &&
	    nd < sizeof dirs / sizeof dirs[0] - 1; i++)
		dirs[nd++] = o->debug_dirs[i];
	if (!(o->flags & PCLN_FIND_NO_DEFAULT))
		dirs[nd++] = DEFAULT_DEBUG_DIR;
	for (i = 0; i < nd; i++) {
		char d[PATH_MAX];
		uint64_t there = realpath(dirs[i], d) != NULL;

		h = pclnrt_xxh64(&there, sizeof there, h);
		if (!there)
			continue;	/* not searched (make_dipath) */
		h = pclnrt_xxh64(d, strlen(d) + 1, h);
		if (idlen > 0) {
			snprintf(p, sizeof p, "%s/.build-id/%.2s/%s.debug", d,
			    hex, hex + 2);
			h = stamp_path(h, p);
		}
		snprintf(p, sizeof p, "%s%s/%s", d, dir, link);
		h = stamp_path(h, p);
	}
	snprintf(p, sizeof p, "%s/%s", dir, link);
	h = stamp_path(h, p);
	snprintf(p, sizeof p, "%s/.debug/%s", dir, link);
	h = stamp_path(h, p);
	if (e != NULL)
		elf_end(e);
	if (fd >= 0)
		close(fd);
	*stamp = h;
	return 0;
}

/* libdwfl's find_debuginfo callback: the build-id directories, then
 * the debuglink places and debuginfod (dwfl_standard_find_debuginfo).
 * What it found (a descriptor of our own, its name and the route) or
 * why not (libdebuginfod's -errno) is kept in D; libdwfl keeps the
 * descriptor it is given.  Later calls (for a dwz alt file) go to
 * libdwfl's own search. */
static int
find_cb(Dwfl_Module *mod, void **userdata, const char *modname,
    Dwarf_Addr base, const char *file, const char *link, GElf_Word crc,
    char **name)
{
	struct pcln_debuginfo *d = *userdata;
	const unsigned char *bits;
	GElf_Addr vaddr;
	int fd = -1;

	if (d == NULL || d->searched)
		return dwfl_standard_find_debuginfo(mod, userdata, modname,
		    base, file, link, crc, name);
	d->searched = 1;
	d->route = PCLN_ROUTE_BUILDID;
	if (dwfl_module_build_id(mod, &bits, &vaddr) > 0)
		fd = dwfl_build_id_find_debuginfo(mod, userdata, modname, base,
		    file, link, crc, name);
	if (fd < 0) {
#ifdef HAVE_LIBDEBUGINFOD
		const char *urls = getenv("DEBUGINFOD_URLS");
		const struct pclni_debuginfod *f;
		debuginfod_client *c;

		/* Only then is there a server to ask. */
		if (urls != NULL && urls[0] != 0 &&
		    (c = dwfl_get_debuginfod_client(d->dwfl)) != NULL &&
		    (f = pclni_find_debuginfod()) != NULL) {
			f->set_user_data(c, d);
			f->set_progressfn(c, progress);
		}
#endif
		free(*name);
		*name = NULL;
		errno = 0;
		fd = dwfl_standard_find_debuginfo(mod, userdata, modname, base,
		    file, link, crc, name);
		d->route = *name != NULL ? PCLN_ROUTE_DEBUGLINK :
		    PCLN_ROUTE_DEBUGINFOD;
		if (fd >= 0 && d->route == PCLN_ROUTE_DEBUGINFOD &&
		    d->no_debuginfod) {
			close(fd);
			fd = -EINTR;
		}
	}
	d->search_rc = fd;
	if (fd >= 0) {
		d->dfd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
		if (*name != NULL)
			d->dname = strdup(*name);
	}
	return fd;
}

/* The search beyond the file itself. */
static int
search(struct pcln_debuginfo *d, const pcln_find_opts *o, pcln_err *err)
{
	const char *base = strrchr(d->path, '/') + 1;
	GElf_Word crc = 0;
	const char *link;
	char hex[2 * PCLN_BUILDID_MAX + 1];
	Dwfl_Module *mod;
	Dwarf_Addr bias;
	void **slot;
	int fd, dupfd;
	const char *dirs;

	if (make_dipath(d, o, err) < 0)
		return -1;
	d->cb.find_elf = dwfl_build_id_find_elf;
	d->cb.find_debuginfo = find_cb;
	d->cb.section_address = dwfl_offline_section_address;
	d->cb.debuginfo_path = &d->dipath;
	if ((d->dwfl = dwfl_begin(&d->cb)) == NULL)
		return pclni_find_nomem(err);
	/* libdwfl takes this descriptor over. */
	if ((dupfd = fcntl(d->fd, F_DUPFD_CLOEXEC, 0)) < 0)
		return pclni_seterr(err, PCLN_EIO, -1, "%s: %s", d->path,
		    strerror(errno));
	mod = dwfl_report_offline(d->dwfl, base, d->path, dupfd);
	dwfl_report_end(d->dwfl, NULL, NULL);
	if (mod == NULL) {
		pclni_find_note(d, "%s: libdwfl cannot read it: %s", d->path,
		    dwfl_errmsg(-1));
		return 0;
	}
	dwfl_module_info(mod, &slot, NULL, NULL, NULL, NULL, NULL, NULL);
	*slot = d;
	d->search_rc = -1;
	(void)dwfl_module_getdwarf(mod, &bias);
	/* Our descriptor and name are taken; libdwfl's copies go. */
	*slot = NULL;
	dwfl_end(d->dwfl);
	d->dwfl = NULL;
	fd = d->dfd;
	d->dfd = -1;
	if (fd >= 0)
		return take_debug_file(d, fd, d->dname, d->route, err);
	pcln_build_id_hex(d->res.build_id, d->res.build_id_len, hex);
	/* The directories, for the note: dipath past "+:.debug:". */
	dirs = strlen(d->dipath) > 9 ? d->dipath + 9 : "no debug directory";
	link = dwelf_elf_gnu_debuglink(d->elf, &crc);
	if (d->res.build_id_len > 0)
		pclni_find_note(d, "no debug file for build-id %s in %s (as "
		    ".build-id/%.2s/%s.debug)", hex, dirs, hex, hex + 2);
	else
		pclni_find_note(d, "no build-id note, so no build-id lookup");
	if (link != NULL)
		pclni_find_note(d, "no file '%s' with CRC 0x%08x "
		    "(.gnu_debuglink) beside the file, in its .debug/ or under "
		    "%s", link, (unsigned)crc, dirs);
	else
		pclni_find_note(d, "no .gnu_debuglink");
	if (d->res.build_id_len > 0 && d->searched)
		debuginfod_note(d, d->search_rc, hex);
	return 0;
}

/* The symbol tables, best first (pcln_find.h). */
static int
choose_symbols(struct pcln_debuginfo *d, pcln_err *err)
{
	Elf_Scn *scn;
	Elf_Data *mini;

	if (has_section_type(d->elf, SHT_SYMTAB)) {
		d->syms[d->nsyms].e = d->elf;
		d->syms[d->nsyms++].type = SHT_SYMTAB;
		d->res.symbols = PCLN_SYMS_SYMTAB;
		return 0;
	}
	if (d->delf != NULL && has_section_type(d->delf, SHT_SYMTAB)) {
		d->syms[d->nsyms].e = d->delf;
		d->syms[d->nsyms++].type = SHT_SYMTAB;
		d->res.symbols = PCLN_SYMS_DEBUG_SYMTAB;
		return 0;
	}
	if (has_section_type(d->elf, SHT_DYNSYM)) {
		d->syms[d->nsyms].e = d->elf;
		d->syms[d->nsyms++].type = SHT_DYNSYM;
		d->res.symbols = PCLN_SYMS_DYNSYM;
	}
	if ((scn = pclni_find_scn(d->elf, ".gnu_debugdata")) != NULL &&
	    (mini = elf_rawdata(scn, NULL)) != NULL && mini->d_size > 0) {
		char what[PATH_MAX + 32];

		snprintf(what, sizeof what, "%s: .gnu_debugdata", d->path);
		if (pclni_find_unxz(mini->d_buf, mini->d_size, &d->mini,
		    &d->minilen, what, err) < 0) {
			if (err != NULL && err->code == PCLN_ENOMEM)
				return -1;
			pclni_find_note(d, "MiniDebugInfo not used: %s",
			    err != NULL ? err->msg : "bad xz data");
			pclni_clearerr(err);
			return 0;
		}
		d->melf = elf_memory(d->mini, d->minilen);
		if (d->melf == NULL || elf_kind(d->melf) != ELF_K_ELF ||
		    !has_section_type(d->melf, SHT_SYMTAB)) {
			pclni_find_note(d, "MiniDebugInfo not used: %s: the "
			    "decompressed data is not an ELF file with a "
			    ".symtab", what);
			return 0;
		}
		d->syms[d->nsyms].e = d->melf;
		d->syms[d->nsyms++].type = SHT_SYMTAB;
		d->res.symbols = PCLN_SYMS_MINIDEBUG;
	}
	return 0;
}

static int
open_main(struct pcln_debuginfo *d, const char *path, pcln_err *err)
{
	char abs[PATH_MAX];
	const void *bid;
	ssize_t n;

	if ((d->fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return pclni_seterr(err, PCLN_EIO, -1, "%s: %s", path,
		    strerror(errno));
	/* libdwfl looks under the debug directories by the file's
	 * absolute directory. */
	if (realpath(path, abs) == NULL)
		snprintf(abs, sizeof abs, "%s", path);
	if (strchr(abs, '/') == NULL)
		snprintf(abs, sizeof abs, "./%s", path);
	if ((d->path = strdup(abs)) == NULL ||
	    (d->given = strdup(path)) == NULL)
		return pclni_find_nomem(err);
	elf_version(EV_CURRENT);
	d->elf = elf_begin(d->fd, ELF_C_READ_MMAP_PRIVATE, NULL);
	if (d->elf == NULL || elf_kind(d->elf) != ELF_K_ELF)
		return pclni_seterr(err, PCLN_EHEADER, 0,
		    "%s: not an ELF file (expected the ELF magic \\177ELF)",
		    path);
	n = dwelf_elf_gnu_build_id(d->elf, &bid);
	if (n > 0 && n <= PCLN_BUILDID_MAX) {
		memcpy(d->res.build_id, bid, (size_t)n);
		d->res.build_id_len = (size_t)n;
	} else if (n > PCLN_BUILDID_MAX)
		pclni_find_note(d, "build-id of %zd bytes not used (at most "
		    "%d)", n, PCLN_BUILDID_MAX);
	return 0;
}

pcln_debuginfo *
pcln_debuginfo_open(const char *path, const pcln_find_opts *opts,
    pcln_err *err)
{
	static const pcln_find_opts defaults;
	const pcln_find_opts *o = opts != NULL ? opts : &defaults;
	struct pcln_debuginfo *d;

	pclni_clearerr(err);
	if ((d = calloc(1, sizeof *d)) == NULL) {
		pclni_find_nomem(err);
		return NULL;
	}
	d->fd = d->dfd = d->tmpfd = -1;
	d->no_debuginfod = (o->flags & PCLN_FIND_NO_DEBUGINFOD) != 0;
	if (open_main(d, path, err) < 0)
		goto fail;
	if (has_debug_info(d->elf)) {
		if (pclni_find_decompress(d, d->elf, path, err) < 0)
			goto fail;
		if ((d->dw = open_dwarf(d, d->elf, path)) != NULL) {
			d->dwelf = d->elf;
			d->res.route = PCLN_ROUTE_SELF;
			snprintf(d->res.debug_file, sizeof d->res.debug_file,
			    "%s", d->path);
		}
	}
	if (d->dw == NULL && !(o->flags & PCLN_FIND_NO_SEARCH) &&
	    search(d, o, err) < 0)
		goto fail;
	if (choose_symbols(d, err) < 0)
		goto fail;
	if (d->dw != NULL && pclni_find_dwp(d, err) < 0)
		goto fail;
	return d;
fail:
	pcln_debuginfo_close(d);
	return NULL;
}

void
pcln_debuginfo_close(pcln_debuginfo *d)
{
	size_t i;

	if (d == NULL)
		return;
	if (d->dw != NULL)
		dwarf_end(d->dw);
	pclni_find_dwp_cleanup(d);
	if (d->melf != NULL)
		elf_end(d->melf);
	if (d->delf != NULL)
		elf_end(d->delf);
	if (d->elf != NULL)
		elf_end(d->elf);
	if (d->dwfl != NULL)
		dwfl_end(d->dwfl);
	if (d->dfd >= 0)
		close(d->dfd);
	if (d->fd >= 0)
		close(d->fd);
	for (i = 0; i < d->nbufs; i++)
		free(d->bufs[i]);
	free(d->bufs);
	free(d->mini);
	free(d->dipath);
	free(d->dname);
	free(d->path);
	free(d->given);
	free(d);
}

const char *
pcln_debuginfo_path(const pcln_debuginfo *d)
{
	return d->given;
}

const pcln_find_result *
pcln_debuginfo_result(const pcln_debuginfo *d)
{
	return &d->res;
}

struct Elf *
pcln_debuginfo_elf(const pcln_debuginfo *d)
{
	return d->elf;
}

struct Dwarf *
pcln_debuginfo_dwarf(const pcln_debuginfo *d)
{
	return d->dw;
}

struct Elf *
pcln_debuginfo_symtab(const pcln_debuginfo *d, size_t i, unsigned *shtype)
{
	if (i >= d->nsyms)
		return NULL;
	if (shtype != NULL)
		*shtype = d->syms[i].type;
	return d->syms[i].e;
}
