/* test_rt.h -- shared pieces of the runtime test suite (check_runtime):
 * a model of random functions, blobs built from it with the libpcln
 * builder, the model's expected answers, and guarded memory. */
#ifndef TEST_RT_H
#define TEST_RT_H

#include <check.h>
#include <stddef.h>
#include <stdint.h>

#include <string.h>

#include "pcln.h"
#include "pclnrt.h"
#include "pclnrt_format.h"

#define RT_MAXTAB	6		/* pcsp, pcfile, pcln, 3 pcdata */
#define RT_MAXPT	12
#define RT_MAXFUNCDATA	3

/* One table of the model: points (offset, value) in increasing order;
 * no points = absent. */
struct rt_mtab {
	int n;
	uint64_t off[RT_MAXPT];
	int32_t val[RT_MAXPT];
};

struct rt_mfunc {
	char name[64];
	uint64_t entry, size;
	int32_t args, frame;
	uint32_t npcdata, nfuncdata;
	struct rt_mtab tab[RT_MAXTAB];
	uint64_t funcdata[RT_MAXFUNCDATA];
};

struct rt_model {
	pcln_target t;
	int trailer;
	size_t nfunc, nfile;
	struct rt_mfunc f[24];
	char files[4][64];
};

/* Fill M with random functions from SEED for target T. */
void rt_model_random(struct rt_model *m, unsigned seed, const pcln_target *t,
    int trailer);
/* Build M's blob with the libpcln builder; malloc'ed, abort on error. */
uint8_t *rt_model_build(const struct rt_model *m, size_t *len);
/* Code end of function I as the runtime must see it (the gap rule). */
uint64_t rt_model_end(const struct rt_model *m, size_t i);
/* Index of the function holding PC, or -1. */
long rt_model_find(const struct rt_model *m, uint64_t pc);
/* Value of table TAB of function I at PC and its row [*START, *END);
 * returns 0, or -1 if the table is absent. */
int rt_model_value(const struct rt_model *m, size_t i, int tab, uint64_t pc,
    int32_t *val, uint64_t *start, uint64_t *end);

/* A read-only copy of BUF[0..LEN) that ends exactly at a PROT_NONE
 * guard page, so any read past it faults.  Free with rt_guard_free. */
struct rt_guard {
	uint8_t *map;
	size_t maplen;
	uint8_t *p;
};
void rt_guard_put(struct rt_guard *g, const uint8_t *buf, size_t len);
void rt_guard_free(struct rt_guard *g);

/* Assertions for hot loops.  Check's ck_assert_* record every passing
 * assertion (a write to its pipe), which costs seconds over the millions
 * of checks here; these only call Check on failure. */
#define RT_TRUE(c, ...) do { if (!(c)) ck_abort_msg(__VA_ARGS__); } while (0)
#define RT_EQ(a, b) do { long long a_ = (long long)(a), b_ = (long long)(b); \
	if (a_ != b_) ck_abort_msg("%s:%d: %s == %s: %lld != %lld", \
	    __FILE__, __LINE__, #a, #b, a_, b_); } while (0)
#define RT_STREQ(a, b) do { const char *a_ = (a), *b_ = (b); \
	if (a_ == NULL || b_ == NULL || strcmp(a_, b_) != 0) \
		ck_abort_msg("%s:%d: %s == %s: \"%s\" != \"%s\"", \
		    __FILE__, __LINE__, #a, #b, a_ ? a_ : "(null)", \
		    b_ ? b_ : "(null)"); } while (0)

/* A tiny deterministic generator. */
uint32_t rt_rand(uint32_t *state);

Suite *rt_lookup_suite(void);
Suite *rt_traceback_suite(void);
Suite *rt_corrupt_suite(void);
Suite *rt_module_suite(void);
Suite *rt_jit_suite(void);

#endif /* TEST_RT_H */
