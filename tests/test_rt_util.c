/* test_rt_util.c -- the runtime tests' model, blob builder and guarded
 * memory (see test_rt.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "test_rt.h"

uint32_t
rt_rand(uint32_t *s)
{
	/* xorshift32; a zero state would stick, so avoid it. */
	uint32_t x = *s ? *s : 0x9e3779b9u;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return *s = x;
}

static void
random_tab(struct rt_mtab *tb, uint32_t *rs, uint64_t size, unsigned q,
    int kind, size_t nfile)
{
	uint64_t off = 0;
	int n = 0;

	/* pcfile starts at 0 (no file is -1 there); others may not. */
	if (kind != PCLN_TAB_PCFILE && rt_rand(rs) % 3 == 0)
		off = (rt_rand(rs) % (size / q)) * q;
	while (off < size && n < RT_MAXPT) {
		int32_t v;

		switch (kind) {
		case PCLN_TAB_PCSP:
			v = (int32_t)(rt_rand(rs) % 5) * 8;
			break;
		case PCLN_TAB_PCFILE:
			v = 1 + (int32_t)(rt_rand(rs) % nfile);
			break;
		case PCLN_TAB_PCLN:
			v = 1 + (int32_t)(rt_rand(rs) % 300);
			break;
		default:	/* pcdata: any value, -1 and negatives too */
			v = (int32_t)(rt_rand(rs) % 7) - 3;
			if (rt_rand(rs) % 8 == 0)
				v = (int32_t)rt_rand(rs);
			break;
		}
		tb->off[n] = off;
		tb->val[n] = v;
		n++;
		off += q * (1 + rt_rand(rs) % (rt_rand(rs) % 4 == 0 ? 200 : 6));
	}
	tb->n = n;
}

void
rt_model_random(struct rt_model *m, unsigned seed, const pcln_target *t,
    int trailer)
{
	uint32_t rs = seed * 2654435761u + 1;
	uint64_t pc;
	unsigned q = t->quantum;
	size_t i, j;

	memset(m, 0, sizeof *m);
	m->t = *t;
	m->trailer = trailer;
	m->nfile = 1 + rt_rand(&rs) % 4;
	for (i = 0; i < m->nfile; i++)
		snprintf(m->files[i], sizeof m->files[i], "/src/s%u/f%zu.go",
		    seed, i);
	m->nfunc = 1 + rt_rand(&rs) % 24;
	if (t->ptrsize == 8 && rt_rand(&rs) % 2)
		pc = 0x7f0000000000ull + (uint64_t)(rt_rand(&rs) % 64) * q;
	else
		pc = 0x1000 + (uint64_t)(rt_rand(&rs) % 64) * q;
	for (i = 0; i < m->nfunc; i++) {
		struct rt_mfunc *f = &m->f[i];

		snprintf(f->name, sizeof f->name, "pkg.f%zu_%u", i, seed);
		f->entry = pc;
		f->size = q * (1 + rt_rand(&rs) % 60);
		f->args = (int32_t)(rt_rand(&rs) % 64);
		f->frame = (int32_t)(rt_rand(&rs) % 256);
		for (j = 0; j < 3; j++)
			if (rt_rand(&rs) % 4 != 0)
				random_tab(&f->tab[j], &rs, f->size, q, (int)j,
				    m->nfile);
		f->npcdata = rt_rand(&rs) % 4;
		for (j = 0; j < f->npcdata; j++)
			if (rt_rand(&rs) % 2 || j + 1 == f->npcdata)
				random_tab(&f->tab[3 + j], &rs, f->size, q, 3,
				    m->nfile);
		f->nfuncdata = rt_rand(&rs) % (RT_MAXFUNCDATA + 1);
		for (j = 0; j < f->nfuncdata; j++)
			f->funcdata[j] = j == 0 ? 0 : rt_rand(&rs) &
			    (t->ptrsize == 4 ? 0xffffffffu : 0xffffffffffu);
		/* A gap after most functions; none after some. */
		pc += f->size + q * (rt_rand(&rs) % 3 == 0 ? 0 :
		    rt_rand(&rs) % 40);
	}
}

uint8_t *
rt_model_build(const struct rt_model *m, size_t *len)
{
	pcln_builder *b;
	pcln_err err;
	uint8_t *out = NULL;
	size_t i, j;
	int k;

	b = pcln_builder_new(&m->t, &err);
	RT_TRUE(b != NULL, "builder_new: %s", err.msg);
	for (i = 0; i < m->nfile; i++)
		RT_EQ(pcln_builder_add_file(b, m->files[i], &err),
		    (long)i + 1);
	for (i = 0; i < m->nfunc; i++) {
		const struct rt_mfunc *f = &m->f[i];
		long h = pcln_builder_add_func(b, f->name, f->entry, f->size,
		    f->args, f->frame, &err);

		RT_TRUE(h == (long)i, "add_func: %s", err.msg);
		for (j = 0; j < 3 + f->npcdata; j++)
			for (k = 0; k < f->tab[j].n; k++)
				RT_TRUE(pcln_builder_add_point(b, h,
				    (int)j, f->tab[j].off[k], f->tab[j].val[k],
				    &err) == 0, "add_point: %s", err.msg);
		for (j = 0; j < f->nfuncdata; j++)
			RT_TRUE(pcln_builder_set_funcdata(b, h,
			    (unsigned)j, f->funcdata[j], &err) == 0,
			    "set_funcdata: %s", err.msg);
	}
	RT_TRUE(pcln_builder_write(b, m->trailer ? 0 : PCLN_WRITE_GO12,
	    &out, len, &err) == 0, "write: %s", err.msg);
	pcln_builder_free(b);
	return out;
}

uint64_t
rt_model_end(const struct rt_model *m, size_t i)
{
	const struct rt_mfunc *f = &m->f[i];
	uint32_t j;

	/* With a trailer FUNCSIZE says; without, any present table ends at
	 * the size; with none the function runs to the next entry. */
	if (m->trailer)
		return f->entry + f->size;
	for (j = 0; j < 3 + f->npcdata; j++)
		if (f->tab[j].n > 0)
			return f->entry + f->size;
	return i + 1 < m->nfunc ? m->f[i + 1].entry : f->entry + f->size;
}

long
rt_model_find(const struct rt_model *m, uint64_t pc)
{
	size_t i;

	for (i = 0; i < m->nfunc; i++)
		if (pc >= m->f[i].entry && pc < rt_model_end(m, i))
			return (long)i;
	return -1;
}

int
rt_model_value(const struct rt_model *m, size_t i, int tab, uint64_t pc,
    int32_t *val, uint64_t *start, uint64_t *end)
{
	const struct rt_mfunc *f = &m->f[i];
	const struct rt_mtab *tb = &f->tab[tab];
	uint64_t off = pc - f->entry, roff[RT_MAXPT + 1];
	int32_t rval[RT_MAXPT + 1];
	int k, n = 0, r;

	if (tb->n == 0)
		return -1;
	/* The rows as the builder encodes them: -1 before a first point
	 * that is not at 0, equal neighbours merged. */
	if (tb->off[0] > 0) {
		roff[n] = 0;
		rval[n++] = -1;
	}
	for (k = 0; k < tb->n; k++) {
		if (n > 0 && rval[n - 1] == tb->val[k])
			continue;
		roff[n] = tb->off[k];
		rval[n++] = tb->val[k];
	}
	for (r = 0; r + 1 < n && roff[r + 1] <= off; r++)
		;
	*val = rval[r];
	*start = f->entry + roff[r];
	*end = f->entry + (r + 1 < n ? roff[r + 1] : f->size);
	return 0;
}

void
rt_guard_put(struct rt_guard *g, const uint8_t *buf, size_t len)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t data = (len + page - 1) / page * page;

	if (data == 0)
		data = page;
	g->maplen = data + page;
	g->map = mmap(NULL, g->maplen, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(g->map, MAP_FAILED);
	RT_EQ(mprotect(g->map + data, page, PROT_NONE), 0);
	g->p = g->map + data - len;
	if (len > 0)
		memcpy(g->p, buf, len);
	RT_EQ(mprotect(g->map, data, PROT_READ), 0);
}

void
rt_guard_free(struct rt_guard *g)
{
	munmap(g->map, g->maplen);
	g->map = NULL;
}
