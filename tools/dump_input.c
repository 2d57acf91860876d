/* dump_input.c -- load a file, find the blob in it, report errors. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pclnrt_format.h"
#include "dump.h"
#include "readfile.h"

const char *dump_prog = "pclndump";

/* Go's later pclntab magics (pcln_go.h; doc/FORMAT.md section 10). */
static const uint32_t go_magics[] = {
	PCLN_GO_MAGIC_116, PCLN_GO_MAGIC_118, PCLN_GO_MAGIC_120
};

void
dump_error(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "%s: ", dump_prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	putc('\n', stderr);
}

#define ERRNAME_(code, msg) #code,
static const char *const errnames[] = { PCLN_ERROR_LIST(ERRNAME_) };
#undef ERRNAME_

const char *
dump_errname(int code)
{
	if (code < 0 || code >= PCLN_NERRORS)
		return "PCLN_EUNKNOWN";
	return errnames[code];
}

void
dump_report(const dump_input *in, const pcln_err *err)
{
	char where[256];

	if (in->is_elf && in->sec.name != NULL)
		snprintf(where, sizeof where, "%s: section %s", in->path,
		    in->sec.name);
	else
		snprintf(where, sizeof where, "%s", in->path);
	if (err->offset >= 0 && strstr(err->msg, "offset") == NULL)
		dump_error("%s: %s: %s at offset 0x%" PRIx64, where,
		    pcln_strerror(err->code), err->msg,
		    (uint64_t)err->offset);
	else
		dump_error("%s: %s: %s", where, pcln_strerror(err->code),
		    err->msg);
}

/* Read all of FD into a malloc'ed buffer. */
static int
read_all(int fd, dump_input *in)
{
	uint8_t *buf;
	size_t len;

	if (tool_read_fd(fd, &buf, &len) < 0)
		return -1;
	in->file = buf;
	in->filelen = len;
	in->mapped = 0;
	return 0;
}

static int
load_file(dump_input *in, const char *path)
{
	struct stat st;
	int fd, rc;

	if (strcmp(path, "-") == 0)
		fd = STDIN_FILENO;
	else if ((fd = open(path, O_RDONLY)) < 0) {
		dump_error("%s: cannot open: %s", path, strerror(errno));
		return DUMP_EXIT_IO;
	}
	if (fstat(fd, &st) < 0) {
		dump_error("%s: cannot stat: %s", path, strerror(errno));
		rc = DUMP_EXIT_IO;
		goto out;
	}
	if (S_ISDIR(st.st_mode)) {
		dump_error("%s: is a directory", path);
		rc = DUMP_EXIT_IO;
		goto out;
	}
	if (S_ISREG(st.st_mode) && st.st_size > 0) {
		void *p;

		/* Offsets in the blob are 32-bit and the ELF reader works in
		 * size_t: refuse what this process cannot address whole. */
		if ((uintmax_t)st.st_size > (uintmax_t)PTRDIFF_MAX) {
			dump_error("%s: file too large (%jd bytes)", path,
			    (intmax_t)st.st_size);
			rc = DUMP_EXIT_IO;
			goto out;
		}
		p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd,
		    0);
		if (p != MAP_FAILED) {
			in->file = p;
			in->filelen = (size_t)st.st_size;
			in->mapped = 1;
			rc = 0;
			goto out;
		}
		/* Fall back to reading. */
	}
	if (read_all(fd, in) < 0) {
		dump_error("%s: cannot read: %s", path, strerror(errno));
		rc = DUMP_EXIT_IO;
		goto out;
	}
	rc = 0;
out:
	if (fd != STDIN_FILENO)
		close(fd);
	return rc;
}

/* Convert the Go pclntab of IN (the whole ELF image, so that the
 * importer finds .text too, or the raw table) into a pcln blob and point
 * IN->blob at it.  Returns 0, or -1 with ERR filled and IN unchanged. */
static int
go_convert(dump_input *in, pcln_err *err)
{
	const uint8_t *src = in->is_elf ? in->file : in->blob;
	size_t srclen = in->is_elf ? in->filelen : in->len;
	uint8_t *blob;
	size_t len;

	if (pcln_go_convert(src, srclen, 0, 0, &blob, &len, &in->go, err) < 0)
		return -1;
	in->conv = blob;
	in->blob = blob;
	in->len = len;
	in->is_go = 1;
	return 0;
}

/* Does IN's blob end with a pcln trailer's footer?  (Go's linkers never
 * write one.) */
static int
has_trailer_magic(const dump_input *in)
{
	return in->len >= PCLN_FOOTER_SIZE &&
	    memcmp(in->blob + in->len - PCLN_FOOTER_SIZE + PCLN_FOOTER_MAGIC,
	    PCLN_TRAILER_MAGIC, 8) == 0;
}

/* May IN's blob, which has the Go 1.2 magic, be a table Go's linker
 * wrote rather than a pcln blob: a .gopclntab section, or a raw blob
 * without a pcln trailer (a .gopclntab dumped with objcopy -O binary)? */
static int
maybe_go12(const dump_input *in)
{
	if (in->is_go || pcln_go_layout_of(in->blob, in->len) != PCLN_GO_12)
		return 0;
	if (in->is_elf)
		return strstr(in->sec.name, PCLN_ELF_GO_SECTION) != NULL;
	return !has_trailer_magic(in);
}

/* pcln's verifier refused IN's blob with VERR: if maybe_go12, read it as
 * Go's own table (pcln_go_convert, which tells the Go 1.2-1.11 Func from
 * the Go 1.12-1.15 one, whose packed funcID and nfuncdata the verifier
 * refuses).  Not when the verifier's complaint is bytes after the Go 1.2
 * part (PCLN_ETRAILER, as in a pcln blob whose trailer was cut): Go writes
 * none.  Returns 0 if that worked (IN->blob is the converted blob); else
 * -1, with VERR saying what both readers found if both were tried. */
static int
go12_retry(dump_input *in, pcln_err *verr)
{
	pcln_err gerr;
	char msg[sizeof verr->msg];

	if (verr->code == PCLN_ENOMEM || verr->code == PCLN_ETRAILER ||
	    verr->code == PCLN_ECHECKSUM || !maybe_go12(in))
		return -1;
	memset(&gerr, 0, sizeof gerr);
	if (go_convert(in, &gerr) == 0)
		return 0;
	if (gerr.code == PCLN_ENOMEM) {
		*verr = gerr;
		return -1;
	}
	/* The reader of the variant found speaks first: Go's for a packed
	 * Func (the verifier then only says that nfuncdata is absurd), pcln's
	 * verifier (the stricter) for the Go 1.2-1.11 Func. */
	if (pcln_go_packed(in->blob, in->len) == 1) {
		snprintf(msg, sizeof msg, "%.220s; also read as a pcln blob "
		    "(the Go 1.2-1.11 layout): %.200s", gerr.msg, verr->msg);
		memcpy(gerr.msg, msg, sizeof msg);
		*verr = gerr;
	} else {
		snprintf(msg, sizeof msg, "%.220s; also read as Go's own "
		    "pclntab: %.200s", verr->msg, gerr.msg);
		memcpy(verr->msg, msg, sizeof msg);
	}
	return -1;
}

int
dump_verify_blob(dump_input *in, pcln_err *err)
{
	if (pcln_verify(in->blob, in->len, err) == 0)
		return 0;
	if (go12_retry(in, err) < 0)
		return -1;
	return pcln_verify(in->blob, in->len, err);
}

/* Check the first word of BLOB: 0 if it is the Go 1.2 magic, else print
 * why not and return an exit status. */
static int
check_magic(dump_input *in, const char *what)
{
	uint32_t le, be;
	size_t k;

	if (in->len < 4) {
		dump_error("%s: %s too short to be a pcln blob (%zu bytes; "
		    "the header alone has at least 12)", in->path, what,
		    in->len);
		return DUMP_EXIT_CORRUPT;
	}
	le = pclnrt_load32(in->blob, 0);
	be = pclnrt_load32(in->blob, 1);
	if (le == PCLN_GO12_MAGIC || be == PCLN_GO12_MAGIC)
		return 0;
	for (k = 0; k < sizeof go_magics / sizeof go_magics[0]; k++)
		if (le == go_magics[k] || be == go_magics[k]) {
			pcln_err err;

			memset(&err, 0, sizeof err);
			if (go_convert(in, &err) == 0)
				return 0;
			dump_error("%s: %s: Go pclntab (magic 0x%08" PRIx32
			    "): %s", in->path, what,
			    le == go_magics[k] ? le : be, err.msg);
			return err.code == PCLN_ENOMEM ? DUMP_EXIT_IO :
			    DUMP_EXIT_CORRUPT;
		}
	if (in->is_elf && strstr(in->sec.name, PCLN_ELF_GO_SECTION) != NULL) {
		dump_error("%s: %s: unsupported pclntab magic 0x%08" PRIx32
		    " (expected 0xfffffffb, the Go 1.2 layout)", in->path,
		    what, le);
		return DUMP_EXIT_CORRUPT;
	}
	dump_error("%s: %s: bad magic 0x%08" PRIx32 " at offset 0x0: "
	    "expected 0xfffffffb (a Go 1.2 pclntab)%s", in->path, what, le,
	    in->is_elf ? "" : " or an ELF file");
	return DUMP_EXIT_CORRUPT;
}

int
dump_load(dump_input *in, const char *path)
{
	pcln_err err;
	int rc;

	memset(in, 0, sizeof *in);
	if (dump_find_opts.table != NULL) {
		/* --table FILE: FILE is PATH's table. */
		in->program = path;
		path = dump_find_opts.table;
	}
	in->path = path;
	if ((rc = load_file(in, path)) != 0)
		return rc;
	if (in->filelen == 0) {
		dump_error("%s: empty file", path);
		return DUMP_EXIT_CORRUPT;
	}
	if (pcln_elf_is_elf(in->file, in->filelen)) {
		char what[64];

		in->is_elf = 1;
		memset(&err, 0, sizeof err);
		if (pcln_elf_get_info(in->file, in->filelen, &in->elf,
		    &err) < 0) {
			dump_error("%s: bad ELF file: %s", path, err.msg);
			return DUMP_EXIT_CORRUPT;
		}
		rc = pcln_elf_find_pcln(in->file, in->filelen, &in->sec, &err);
		if (rc < 0) {
			dump_error("%s: bad ELF file: %s", path, err.msg);
			return DUMP_EXIT_CORRUPT;
		}
		if (rc == 0) {
			/* A Go PIE keeps its table in .data.rel.ro.gopclntab. */
			rc = pcln_elf_find_section(in->file, in->filelen,
			    ".data.rel.ro" PCLN_ELF_GO_SECTION, &in->sec, &err);
			if (rc < 0) {
				dump_error("%s: bad ELF file: %s", path,
				    err.msg);
				return DUMP_EXIT_CORRUPT;
			}
		}
		/* None: a table made from its symbols and debug
		 * information (through the cache). */
		if (rc == 0)
			return in->program != NULL ?
			    (dump_error("%s: ELF file has no %s or %s section",
			    path, PCLN_ELF_SECTION, PCLN_ELF_GO_SECTION),
			    DUMP_EXIT_CORRUPT) : dump_find_table(in, path);
		in->blob = in->sec.data;
		in->len = (size_t)in->sec.size;
		snprintf(what, sizeof what, "section %s", in->sec.name);
		return check_magic(in, what);
	}
	in->blob = in->file;
	in->len = in->filelen;
	return check_magic(in, "blob");
}

int
dump_open(dump_input *in, const char *path)
{
	return dump_open_flags(in, path, 0);
}

int
dump_open_flags(dump_input *in, const char *path, unsigned flags)
{
	pcln_err err;
	int rc;

	if ((rc = dump_load(in, path)) != 0)
		return rc;
	memset(&err, 0, sizeof err);
	/* Lazy, unless the blob may be Go's (a .gopclntab, or a blob without
	 * a pcln trailer): the whole check is what tells Go's Func layouts
	 * and conventions (file 0: no file) from a damaged pcln blob. */
	if ((flags & DUMP_OPEN_LAZY) && !in->is_go && !maybe_go12(in)) {
		/* The file is mmap'ed: opening costs O(1), not a decode of
		 * every table (298 ms for 1M functions). */
		in->t = pcln_open(in->blob, in->len, PCLN_OPEN_TRUSTED, &err);
		if (in->t == NULL) {
			dump_report(in, &err);
			return err.code == PCLN_ENOMEM ? DUMP_EXIT_IO :
			    DUMP_EXIT_CORRUPT;
		}
		in->trusted = 1;
		pcln_get_info(in->t, &in->info);
		return in->program != NULL ? dump_find_check(in) : 0;
	}
	in->t = pcln_open(in->blob, in->len, 0, &err);
	/* A table Go wrote (Go 1.12-1.15 pack funcID and an 8-bit nfuncdata
	 * into the Func, which our verifier refuses; Go's own tables may
	 * also have rows with file 0): read it through the Go importer.  A
	 * blob with a pcln trailer is ours, and its damage is reported. */
	if (in->t == NULL && go12_retry(in, &err) == 0)
		in->t = pcln_open(in->blob, in->len, 0, &err);
	if (in->t == NULL) {
		dump_report(in, &err);
		return err.code == PCLN_ENOMEM ? DUMP_EXIT_IO :
		    DUMP_EXIT_CORRUPT;
	}
	pcln_get_info(in->t, &in->info);
	return in->program != NULL ? dump_find_check(in) : 0;
}

enum { FUNC_UNCHECKED, FUNC_OK, FUNC_DAMAGED };

int
dump_func_usable(dump_input *in, size_t i, const char *then)
{
	pcln_err err;
	pcln_func f;

	if (!in->trusted)
		return 1;
	if (i >= in->info.nfunc)
		return 0;
	if (in->fstate == NULL &&
	    (in->fstate = calloc(in->info.nfunc, 1)) == NULL) {
		dump_error("out of memory");
		exit(DUMP_EXIT_IO);
	}
	if (in->fstate[i] == FUNC_UNCHECKED) {
		/* What pcln_verify checks for this function alone. */
		if (pcln_verify_func(in->blob, in->len, i, &err) == 0) {
			in->fstate[i] = FUNC_OK;
		} else {
			in->fstate[i] = FUNC_DAMAGED;
			if (pcln_get_func(in->t, i, &f) < 0)
				f.entry = 0, f.name = NULL;
			dump_error("%s: function %zu (%.200s) at 0x%" PRIx64
			    ": damaged tables: %s; %s; run 'pclndump verify "
			    "%s' for a full check", in->path, i,
			    f.name != NULL ? f.name : "?", f.entry, err.msg,
			    then, in->path);
		}
	}
	if (in->fstate[i] == FUNC_DAMAGED) {
		in->damaged = 1;
		return 0;
	}
	return 1;
}

void
dump_close(dump_input *in)
{
	if (in->t != NULL)
		pcln_close(in->t);
	free(in->fstate);
	free(in->conv);
	if (in->cached != NULL)
		dump_find_release(in);
	if (in->file != NULL) {
		if (in->mapped)
			munmap(in->file, in->filelen);
		else
			free(in->file);
	}
	memset(in, 0, sizeof *in);
}

unsigned
dump_addr_width(const dump_input *in)
{
	return in->info.target.ptrsize == 4 ? 8 : 16;
}

int
dump_parse_hex(const char *s, uint64_t *v)
{
	uint64_t x = 0;
	int any = 0;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	for (; *s != 0; s++) {
		int d;

		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (*s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else if (*s >= 'A' && *s <= 'F')
			d = *s - 'A' + 10;
		else
			return -1;
		if (x > UINT64_MAX >> 4)
			return -1;
		x = x << 4 | (uint64_t)d;
		any = 1;
	}
	if (!any)
		return -1;
	*v = x;
	return 0;
}

/* --- line reader ------------------------------------------------------ */

void
dump_lines_init(dump_lines *r, int fd)
{
	memset(r, 0, sizeof *r);
	r->fd = fd;
}

/* Refill the buffer; flush stdout first, since read may block.  Returns
 * 1 with data, 0 at EOF, -1 on error. */
static int
refill(dump_lines *r, int *errnop)
{
	ssize_t n;

	if (r->eof)
		return 0;
	fflush(stdout);
	do
		n = read(r->fd, r->buf, sizeof r->buf);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		*errnop = errno;
		return -1;
	}
	if (n == 0) {
		r->eof = 1;
		return 0;
	}
	r->start = 0;
	r->end = (size_t)n;
	return 1;
}

char *
dump_lines_next(dump_lines *r, size_t maxchunk, int *had_nl, int *errnop)
{
	char *line = NULL;
	size_t len = 0, cap = 0;

	*errnop = 0;
	*had_nl = 0;
	for (;;) {
		size_t i, take;
		char *nl;
		int rc;

		if (r->start == r->end) {
			rc = refill(r, errnop);
			if (rc < 0) {
				free(line);
				return NULL;
			}
			if (rc == 0) {
				if (line == NULL)
					return NULL;
				return line;	/* last line, no newline */
			}
		}
		nl = memchr(r->buf + r->start, '\n', r->end - r->start);
		i = nl != NULL ? (size_t)(nl - (r->buf + r->start)) :
		    r->end - r->start;
		take = i;
		/* fgets counts the newline against its buffer too. */
		if (maxchunk > 0 && len + take + (nl != NULL) > maxchunk) {
			take = maxchunk - len;
			nl = NULL;
		}
		if (len + take + 1 > cap) {
			char *nb;
			cap = (len + take + 1) * 2;
			if ((nb = realloc(line, cap)) == NULL) {
				free(line);
				*errnop = ENOMEM;
				return NULL;
			}
			line = nb;
		}
		memcpy(line + len, r->buf + r->start, take);
		len += take;
		line[len] = 0;
		r->start += take;
		if (nl != NULL) {
			r->start++;	/* the newline */
			*had_nl = 1;
			return line;
		}
		if (maxchunk > 0 && len == maxchunk)
			return line;
	}
}
