/* dump_find.c -- the table of an ELF file that has none in it: made
 * through the table cache (lib/find), or given with --table and checked
 * against the file's build-id (dump.h, dump_find). */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dump.h"
#include "pcln_proc.h"
#include "pclnrt_format.h"
#ifdef HAVE_LIBDW
#include "pcln_find.h"
#endif

dump_find dump_find_opts;

void
dump_find_aspace(pcln_aspace *as)
{
	const dump_find *o = &dump_find_opts;
	pcln_objstore_search q;

	memset(&q, 0, sizeof q);
	q.cache_dir = o->cache;
	q.cache_limit = o->limit;
	q.no_cache = o->no_cache;
	q.debug_dirs = o->ndirs > 0 ? o->dirs : NULL;
	pcln_objstore_set_search(pcln_aspace_store(as), &q);
}

int
dump_find_option(int c, const char *arg)
{
	switch (c) {
	case DUMP_OPT_CACHE:
		dump_find_opts.cache = arg;
		dump_find_opts.no_cache = 0;
		return 0;
	case DUMP_OPT_NO_CACHE:
		dump_find_opts.no_cache = 1;
		return 0;
	case DUMP_OPT_DEBUG_DIR:
		if (dump_find_opts.ndirs == 64) {
			dump_error("more than 64 --debug-dir");
			return DUMP_EXIT_USAGE;
		}
		dump_find_opts.dirs[dump_find_opts.ndirs++] = arg;
		return 0;
	case DUMP_OPT_TABLE:
		dump_find_opts.table = arg;
		return 0;
	case DUMP_OPT_CACHE_LIMIT: {
		char *end;
		unsigned long long v;
		int shift = 0;

		errno = 0;
		v = strtoull(arg, &end, 10);
		if (*end == 'K' || *end == 'k')
			shift = 10;
		else if (*end == 'M')
			shift = 20;
		else if (*end == 'G')
			shift = 30;
		if (shift > 0)
			end++;
		if (errno != 0 || end == arg || *end != 0 || v == 0 ||
		    v > (UINT64_MAX >> shift)) {
			dump_error("bad --cache-limit '%s': expected a size in "
			    "bytes above 0, with K, M or G", arg);
			return DUMP_EXIT_USAGE;
		}
		dump_find_opts.limit = (uint64_t)v << shift;
		return 0;
	}
	default:
		return DUMP_EXIT_USAGE;
	}
}

#ifdef HAVE_LIBDW
int
dump_find_table(dump_input *in, const char *path)
{
	const dump_find *o = &dump_find_opts;
	pcln_cache_opts co;
	pcln_find_opts fo;
	pcln_cache *c = NULL;
	pcln_cached *e;
	pcln_err err;

	memset(&err, 0, sizeof err);
	memset(&co, 0, sizeof co);
	memset(&fo, 0, sizeof fo);
	if ((e = calloc(1, sizeof *e)) == NULL) {
		dump_error("%s: out of memory", path);
		return DUMP_EXIT_IO;
	}
	if (!o->no_cache) {
		co.dir = o->cache;
		co.limit = o->limit;
		if ((c = pcln_cache_open(&co, &err)) == NULL)
			dump_error("warning: %s (the table is made, not "
			    "cached)", err.msg);
	}
	fo.debug_dirs = o->ndirs > 0 ? o->dirs : NULL;
	if (pcln_table_for_file(c, path, &fo, 0, e, &err) < 0) {
		pcln_cache_close(c);
		free(e);
		dump_error("%s: no %s or %s section, and no table can be made "
		    "from its symbols: %s", path, PCLN_ELF_SECTION,
		    PCLN_ELF_GO_SECTION, err.msg);
		return err.code == PCLN_ENOMEM || err.code == PCLN_EIO ?
		    DUMP_EXIT_IO : DUMP_EXIT_CORRUPT;
	}
	pcln_cache_close(c);
	if (e->nodwarf)
		dump_error("warning: %s: no DWARF found, so the table has no "
		    "file:line and no inlined calls%s%s", path,
		    e->found.note[0] ? ": " : "", e->found.note);
	else if (e->found.note[0])
		dump_error("warning: %s: %s", path, e->found.note);
	in->cached = e;
	in->blob = e->blob;
	in->len = e->len;
	in->sec.name = e->path[0] != 0 ? e->path : "made now, not cached";
	return 0;
}

void
dump_find_release(dump_input *in)
{
	pcln_cached_release(in->cached);
	free(in->cached);
	in->cached = NULL;
}

#else
int
dump_find_table(dump_input *in, const char *path)
{
	(void)in;
	dump_error("%s: ELF file has no %s or %s section (and this pclndump "
	    "was built without libdw, so it cannot make one)", path,
	    PCLN_ELF_SECTION, PCLN_ELF_GO_SECTION);
	return DUMP_EXIT_CORRUPT;
}

void
dump_find_release(dump_input *in)
{
	(void)in;
}

#endif

int
dump_find_check(dump_input *in)
{
	uint8_t id[PCLN_BUILDID_MAX];
	size_t len = 0;
	pcln_err err;

	memset(&err, 0, sizeof err);
	if (pcln_file_build_id(in->program, id, &len, &err) < 0) {
		dump_error("%s", err.msg);
		return DUMP_EXIT_IO;
	}
	if (pcln_check_build_id(in->t, id, len, &err) < 0) {
		dump_error("%s: not the table of %s: %s", in->path,
		    in->program, err.msg);
		return DUMP_EXIT_CORRUPT;
	}
	return 0;
}
