/* fuzz_perf.c -- the perf.data reader (lib/perf) on arbitrary bytes: the
 * open in both orders, every record, the address space fed with them and
 * every sample unwound (over its own stack copy) and resolved through its
 * call chain; the same bytes as a file read from its descriptor
 * (pcln_perf_open_fd, alone and with its reader thread), which must read
 * the same records and end with the same error; the same bytes as kallsyms and perf map text.
 *
 * The table callback hands out one fixed table (examples/hello's, built
 * at the first call from a description) for every object, so walks also
 * step through real functions at whatever addresses the input maps.
 */
#define _GNU_SOURCE	/* memfd_create */
#include <config.h>

#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"
#include "pcln_link.h"
#include "pcln_perf.h"
#include "pclnrt.h"

static const char hello[] =
	"target ptrsize 8 quantum 1 endian little\n"
	"func main.main size 0x60 args 0 frame 0x28 align 16\n"
	"\tpcsp 0:0 4:0x28 0x5c:0\n"
	"\tpcfile 0:hello.go\n"
	"\tpcln 0:5 0x9:6 0x1e:7 0x40:8\n"
	"end\n"
	"func main.greet size 0x40 args 8 frame 0x10\n"
	"\tpcsp 0:0 2:0x10 0x3e:0\n"
	"\tpcfile 0:fmt/print.go\n"
	"\tpcln 0:90 0x20:93\n"
	"end\n";

static uint8_t *table;
static size_t tablelen;

static int
give_table(void *arg, const pcln_perf_object *obj, pcln_perf_table *t)
{
	(void)arg;
	if (table == NULL) {
		pcln_link *l = pcln_link_new(NULL, NULL);
		pcln_err err;

		if (l == NULL || pcln_link_add_text(l, "hello.pcln", hello,
		    sizeof hello - 1, &err) < 0 ||
		    pcln_link_run(l, &table, &tablelen, &err) < 0)
			abort();
		pcln_link_free(l);
	}
	if (obj->path[0] == '/' && obj->path[1] == 'n')
		return -1;	/* "/n...": an object without a table */
	t->blob = table;
	t->len = tablelen;
	return 0;
}

/* What a walk read: its records (their offsets summed) and how it
 * ended. */
struct seen {
	size_t n;
	uint64_t offsets;
	int rc;
	pcln_err err;
};

/* BUF[0..SIZE), or the file FD (>= 0) that holds it. */
static void
walk(const uint8_t *buf, size_t size, unsigned flags, int fd,
    struct seen *w)
{
	pcln_perf_frame frames[64];
	pcln_perf_event ev;
	pcln_perf_space *s;
	pcln_perf *p;
	pcln_err err;
	size_t i, n;
	uint64_t v;
	int stop, rc;

	memset(w, 0, sizeof *w);
	memset(&err, 0, sizeof err);
	p = fd >= 0 ? pcln_perf_open_fd(fd, flags, &err) :
	    pcln_perf_open(buf, size, flags, &err);
	if (p == NULL) {
		if (err.msg[0] == '\0')
			abort();
		w->rc = -2;
		w->err = err;
		return;
	}
	for (i = 0; i < pcln_perf_get_info(p)->nbuildid; i++)
		(void)pcln_perf_get_buildid(p, i)->filename[0];
	if ((s = pcln_perf_space_new(give_table, NULL, &err)) == NULL)
		abort();
	while ((rc = pcln_perf_next(p, &ev, &err)) == 1) {
		w->n++;
		w->offsets += ev.offset;
		if (ev.bad) {
			if (ev.badmsg == NULL || ev.badmsg[0] == '\0')
				abort();
			continue;
		}
		if (ev.type != PCLN_PERF_RECORD_SAMPLE) {
			(void)pcln_perf_space_event(s, p, &ev, &err);
			continue;
		}
		n = pcln_perf_unwind(s, p, &ev, frames, 64, &stop);
		if (n > 64)
			abort();
		for (i = 0; i < ev.u.sample.nr && i < 256; i++) {
			v = pcln_perf_callchain(p, &ev, i);
			(void)pcln_perf_resolve(s, ev.pid, v, i > 0, frames);
		}
		(void)pcln_perf_reg(p, &ev, PCLN_PERF_REG_X86_SP, &v);
		(void)pcln_perf_comm(s, ev.pid, ev.tid);
	}
	if (rc < 0 && err.msg[0] == '\0')
		abort();
	w->rc = rc;
	if (rc < 0)
		w->err = err;
	pcln_perf_space_free(s);
	pcln_perf_close(p);
}

/* The sorted view of KS answers as KS; and a view whose body is the raw
 * input (under a header that vouches for it) stays bounded. */
static void
sorted_view(const pcln_perf_syms *ks, const uint8_t *buf, size_t size)
{
	static const uint64_t probe[] = { 0, 1, 0xffffffff81000000ull,
	    0xffffffffc0000000ull, UINT64_MAX };
	pcln_perf_syms *v;
	pcln_err err;
	size_t n, k, i;
	char *text, *raw;
	int pass;

	if ((text = pcln_perf_syms_sorted_text(ks, &n, &err)) == NULL)
		return;
	if ((v = pcln_perf_syms_sorted(text, n, &err)) == NULL)
		abort();	/* what it wrote, it reads */
	for (i = 0; i < sizeof probe / sizeof probe[0] + 8; i++) {
		uint64_t a = i < sizeof probe / sizeof probe[0] ? probe[i] :
		    size >= 8 ? (uint64_t)buf[i % size] << 56 ^
		    (uint64_t)i * 0x9e3779b97f4a7c15ull : i;
		uint64_t s1 = 0, s2 = 0;
		const char *m1 = NULL, *m2 = NULL;
		const char *n1 = pcln_perf_syms_find(ks, a, &s1, &m1);
		const char *n2 = pcln_perf_syms_find(v, a, &s2, &m2);

		if ((n1 == NULL) != (n2 == NULL) || (n1 != NULL &&
		    (strcmp(n1, n2) != 0 || s1 != s2 || (m1 == NULL) !=
		    (m2 == NULL) || (m1 != NULL && strcmp(m1, m2) != 0))))
			abort();
	}
	pcln_perf_syms_free(v);
	/* The header is text[0..k): keep it, with the input as body. */
	k = (size_t)((const char *)memchr(text, '\n', n) - text) + 1;
	if ((raw = malloc(k + size + 1)) != NULL) {
		memcpy(raw + k, buf, size);
		snprintf(raw, k, "# pcln sorted kallsyms 2 %016zx %016zx "
		    "%016llx", (size_t)0, size,
		    (unsigned long long)pclnrt_xxh64(buf, size, 0));
		raw[k - 1] = '\n';
		/* Checked; then unchecked, with its hash made wrong. */
		for (pass = 0; pass < 2; pass++) {
			if (pass == 1)
				raw[k - 2] = raw[k - 2] == '0' ? '1' : '0';
			v = pass == 0 ? pcln_perf_syms_sorted(raw, k + size,
			    &err) : pcln_perf_syms_sorted_unchecked(raw,
			    k + size, &err);
			if (v == NULL) {
				if (k == 76)
					abort();	/* the header is as
							 * it writes it */
				continue;
			}
			for (i = 0; i < sizeof probe / sizeof probe[0]; i++)
				(void)pcln_perf_syms_find(v, probe[i], NULL,
				    NULL);
			(void)pcln_perf_syms_find(v, size, NULL, NULL);
			pcln_perf_syms_free(v);
		}
		free(raw);
	}
	free(text);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *buf = fuzz_copy(data, size);
	pcln_perf_syms *ks;
	pcln_err err;
	uint64_t start;
	const char *mod;

	static int fd = -2;
	struct seen a, b;
	unsigned flags;
	int ra;

	if (fd == -2)
		fd = memfd_create("perf.data", 0);
	for (flags = 0; flags <= PCLN_PERF_ORDERED; flags++) {
		walk(buf, size, flags, -1, &a);
		if (fd < 0 || ftruncate(fd, 0) < 0 ||
		    pwrite(fd, buf, size, 0) != (ssize_t)size)
			continue;
		/* The file read by the walk alone, and (ordered, as
		 * pclndump reads it) with the reader thread, which also
		 * decompresses perf record -z's records. */
		for (ra = 0; ra <= (flags == PCLN_PERF_ORDERED); ra++) {
			walk(buf, size, flags | (ra ? PCLN_PERF_READAHEAD :
			    0), fd, &b);
			/* An empty file is not mapped, and so no
			 * perf.data. */
			if (size > 0 && (a.n != b.n || a.offsets !=
			    b.offsets || a.rc != b.rc || a.err.code !=
			    b.err.code || a.err.offset != b.err.offset ||
			    strcmp(a.err.msg, b.err.msg) != 0))
				abort();
		}
	}
	if ((ks = pcln_perf_syms_kallsyms((const char *)buf, size, &err))) {
		(void)pcln_perf_syms_find(ks, size, &start, &mod);
		sorted_view(ks, buf, size);
		pcln_perf_syms_free(ks);
	}
	if ((ks = pcln_perf_syms_map((const char *)buf, size, &err))) {
		(void)pcln_perf_syms_find(ks, size, &start, &mod);
		pcln_perf_syms_free(ks);
	}
	free(buf);
	return 0;
}
