/* fuzz_perf.c -- the perf.data reader (lib/perf) on arbitrary bytes: the
 * open in both orders, every record, the address space fed with them and
 * every sample unwound (over its own stack copy) and resolved through its
 * call chain; the same bytes as kallsyms and perf map text.
 *
 * The table callback hands out one fixed table (examples/hello's, built
 * at the first call from a description) for every object, so walks also
 * step through real functions at whatever addresses the input maps.
 */
#include <config.h>

#include "fuzz.h"
#include "pcln_link.h"
#include "pcln_perf.h"

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

static void
walk(const uint8_t *buf, size_t size, unsigned flags)
{
	pcln_perf_frame frames[64];
	pcln_perf_event ev;
	pcln_perf_space *s;
	pcln_perf *p;
	pcln_err err;
	size_t i, n;
	uint64_t v;
	int stop, rc;

	if ((p = pcln_perf_open(buf, size, flags, &err)) == NULL) {
		if (err.msg[0] == '\0')
			abort();
		return;
	}
	for (i = 0; i < pcln_perf_get_info(p)->nbuildid; i++)
		(void)pcln_perf_get_buildid(p, i)->filename[0];
	if ((s = pcln_perf_space_new(give_table, NULL, &err)) == NULL)
		abort();
	while ((rc = pcln_perf_next(p, &ev, &err)) == 1) {
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
	pcln_perf_space_free(s);
	pcln_perf_close(p);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *buf = fuzz_copy(data, size);
	pcln_perf_syms *ks;
	pcln_err err;
	uint64_t start;
	const char *mod;

	walk(buf, size, 0);
	walk(buf, size, PCLN_PERF_ORDERED);
	if ((ks = pcln_perf_syms_kallsyms((const char *)buf, size, &err))) {
		(void)pcln_perf_syms_find(ks, size, &start, &mod);
		pcln_perf_syms_free(ks);
	}
	if ((ks = pcln_perf_syms_map((const char *)buf, size, &err))) {
		(void)pcln_perf_syms_find(ks, size, &start, &mod);
		pcln_perf_syms_free(ks);
	}
	free(buf);
	return 0;
}
