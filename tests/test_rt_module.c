/* test_rt_module.c -- module registration: slots, biases, generation and
 * reader counts; concurrent registration and removal (with module
 * storage reused under the removal rule) while other threads look up. */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_rt.h"

static struct rt_model model;
static uint8_t *blob;
static size_t bloblen;

static void
setup(void)
{
	pcln_target tg = { 8, 1, 0 };

	rt_model_random(&model, 42, &tg, 1);
	blob = rt_model_build(&model, &bloblen);
}

static void
teardown(void)
{
	free(blob);
	blob = NULL;
}

START_TEST(test_slots)
{
	_Atomic(pclnrt_module *) slots[2];
	pclnrt_registry r;
	pclnrt_module a, b, c;
	const pclnrt_module *got;
	pclnrt_func f;
	uint64_t e0 = model.f[0].entry;

	ck_assert_int_eq(pclnrt_module_init(&a, blob, bloblen, 0, "a"), 0);
	ck_assert_int_eq(pclnrt_module_init(&b, blob, bloblen, 0x100000,
	    "b"), 0);
	ck_assert_int_eq(pclnrt_module_init(&c, blob, bloblen, 0x200000,
	    "c"), 0);
	ck_assert_uint_eq(b.lo, e0 + 0x100000);
	ck_assert_uint_eq(b.hi, model.f[model.nfunc - 1].entry +
	    model.f[model.nfunc - 1].size + 0x100000);
	pclnrt_registry_init(&r, slots, 2);
	ck_assert_uint_eq(pclnrt_generation(&r), 0);
	ck_assert_int_eq(pclnrt_registry_findfunc(&r, e0, &got, &f),
	    PCLNRT_NOTFOUND);
	ck_assert_int_eq(pclnrt_register(&r, &a), PCLNRT_OK);
	ck_assert_int_eq(pclnrt_register(&r, &b), PCLNRT_OK);
	ck_assert_int_eq(pclnrt_register(&r, &c), PCLNRT_NOTFOUND);
	ck_assert_uint_eq(pclnrt_generation(&r), 2);
	/* Each module answers for its own run-time range. */
	ck_assert_int_eq(pclnrt_registry_findfunc(&r, e0, &got, &f), 0);
	ck_assert_ptr_eq(got, &a);
	ck_assert_uint_eq(f.entry, e0);
	ck_assert_int_eq(pclnrt_registry_findfunc(&r, e0 + 0x100000, &got,
	    &f), 0);
	ck_assert_ptr_eq(got, &b);
	ck_assert_uint_eq(f.entry, e0);
	ck_assert_str_eq(f.name, model.f[0].name);
	ck_assert_int_eq(pclnrt_registry_findfunc(&r, e0 + 0x200000, NULL,
	    &f), PCLNRT_NOTFOUND);
	ck_assert_int_eq(pclnrt_unregister(&r, &c), PCLNRT_NOTFOUND);
	ck_assert_int_eq(pclnrt_unregister(&r, &a), PCLNRT_OK);
	ck_assert_int_eq(pclnrt_unregister(&r, &a), PCLNRT_NOTFOUND);
	ck_assert_int_eq(pclnrt_registry_findfunc(&r, e0, &got, &f),
	    PCLNRT_NOTFOUND);
	ck_assert_int_eq(pclnrt_register(&r, &c), PCLNRT_OK);
	ck_assert_int_eq(pclnrt_registry_findfunc(&r, e0 + 0x200000, &got,
	    &f), 0);
	ck_assert_ptr_eq(got, &c);
	ck_assert_uint_eq(pclnrt_generation(&r), 4);
	/* Reader bracket. */
	ck_assert_uint_eq(pclnrt_readers(&r), 0);
	pclnrt_read_begin(&r);
	pclnrt_read_begin(&r);
	ck_assert_uint_eq(pclnrt_readers(&r), 2);
	pclnrt_read_end(&r);
	pclnrt_read_end(&r);
	ck_assert_uint_eq(pclnrt_readers(&r), 0);
	/* A bias that wraps the range around is refused. */
	ck_assert_int_eq(pclnrt_module_init(&c, blob, bloblen,
	    UINT64_MAX - e0, "w"), PCLNRT_EINIT_FUNCTAB);
	ck_assert_int_eq(pclnrt_module_init(&c, blob, 3, 0, "s"),
	    PCLNRT_EINIT_SHORT);
	/* No slots at all. */
	pclnrt_registry_init(&r, NULL, 5);
	ck_assert_int_eq(pclnrt_register(&r, &a), PCLNRT_NOTFOUND);
	ck_assert_int_eq(pclnrt_registry_findfunc(&r, e0, &got, &f),
	    PCLNRT_NOTFOUND);
}
END_TEST

/* The concurrent test.  Module "fixed" stays registered.  Module storage
 * "mod" is reused: removed, waited for (pclnrt_readers() == 0), then
 * re-initialised with the other bias and name and registered again.  A
 * reader that ever saw a name with the wrong bias, or a function that
 * does not hold its pc, saw a torn module. */
#define ITER 100000
#define NREADER 1
#define BIAS1 0x10000000ull
#define BIAS2 0x20000000ull

static pclnrt_registry creg;
static _Atomic(pclnrt_module *) cslots[4];
static pclnrt_module fixed, mod;
static atomic_int done;

struct rstats {
	long found, missed;
	int bad;
	char why[160];
};

static void *
reader(void *arg)
{
	struct rstats *st = arg;
	uint32_t rs = 1234;
	size_t i;
	long rounds;

	/* At least 1000 rounds, even if the writer is done first. */
	for (rounds = 0; (rounds < 1000 || !atomic_load(&done)) &&
	    st->bad == 0; rounds++) {
		for (i = 0; i < model.nfunc && st->bad == 0; i++) {
			const struct rt_mfunc *mf = &model.f[i];
			uint64_t bias = (rt_rand(&rs) % 3) * BIAS1;
			uint64_t pc = mf->entry + rt_rand(&rs) % mf->size + bias;
			const pclnrt_module *m;
			pclnrt_func f;

			pclnrt_read_begin(&creg);
			if (pclnrt_registry_findfunc(&creg, pc, &m, &f) != 0) {
				st->missed++;
				pclnrt_read_end(&creg);
				continue;
			}
			st->found++;
			if (m != &fixed && !((m->bias == BIAS1 &&
			    strcmp(m->name, "one") == 0) ||
			    (m->bias == BIAS2 && strcmp(m->name, "two") == 0)))
				st->bad = 1;
			else if (m->bias != bias || f.index != i ||
			    strcmp(f.name, mf->name) != 0 ||
			    pc - m->bias < f.entry || pc - m->bias >= f.end)
				st->bad = 2;
			if (st->bad)
				snprintf(st->why, sizeof st->why,
				    "torn: module %s bias %llx, pc %llx, func %u",
				    m->name, (unsigned long long)m->bias,
				    (unsigned long long)pc, f.index);
			pclnrt_read_end(&creg);
		}
	}
	return NULL;
}

/* The same lookups from a signal handler (SIGALRM every 100 us, landing
 * in whichever thread: the writer, a reader inside its bracket, ...). */
static volatile sig_atomic_t sig_found, sig_bad;
static volatile uint32_t sig_count;

static void
on_alarm(int sig)
{
	uint32_t c = sig_count++;
	const struct rt_mfunc *mf = &model.f[c % model.nfunc];
	uint64_t bias = (c / model.nfunc % 3) * BIAS1;
	uint64_t pc = mf->entry + c % mf->size + bias;
	const pclnrt_module *m;
	pclnrt_func f;

	(void)sig;
	/* Bias and name agree: "one" with BIAS1, "two" with BIAS2 (the
	 * second letter tells them apart; no strcmp in a handler). */
	pclnrt_read_begin(&creg);
	if (pclnrt_registry_findfunc(&creg, pc, &m, &f) == 0) {
		sig_found++;
		if (m->bias != bias || f.entry != mf->entry ||
		    (m != &fixed && m->bias != (m->name[1] == 'n' ? BIAS1 :
		    BIAS2)))
			sig_bad = 1;
	}
	pclnrt_read_end(&creg);
}

START_TEST(test_concurrent)
{
	pthread_t th[NREADER];
	struct rstats st[NREADER];
	struct sigaction sa, oldsa;
	struct itimerval it;
	size_t gen0;
	long i, waits = 0;
	int k;

	pclnrt_registry_init(&creg, cslots, 4);
	ck_assert_int_eq(pclnrt_module_init(&fixed, blob, bloblen, 0,
	    "fixed"), 0);
	ck_assert_int_eq(pclnrt_register(&creg, &fixed), 0);
	ck_assert_int_eq(pclnrt_module_init(&mod, blob, bloblen, BIAS1,
	    "one"), 0);
	ck_assert_int_eq(pclnrt_register(&creg, &mod), 0);
	gen0 = pclnrt_generation(&creg);
	atomic_store(&done, 0);
	memset(st, 0, sizeof st);
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	ck_assert_int_eq(sigaction(SIGALRM, &sa, &oldsa), 0);
	it.it_interval.tv_sec = it.it_value.tv_sec = 0;
	it.it_interval.tv_usec = it.it_value.tv_usec = 100;
	ck_assert_int_eq(setitimer(ITIMER_REAL, &it, NULL), 0);
	for (k = 0; k < NREADER; k++)
		ck_assert_int_eq(pthread_create(&th[k], NULL, reader, &st[k]),
		    0);
	for (i = 0; i < ITER; i++) {
		ck_assert_int_eq(pclnrt_unregister(&creg, &mod), 0);
		/* The removal rule: wait for the readers that may hold it. */
		while (pclnrt_readers(&creg) != 0) {
			waits++;
			sched_yield();
		}
		ck_assert_int_eq(pclnrt_module_init(&mod, blob, bloblen,
		    i % 2 ? BIAS1 : BIAS2, i % 2 ? "one" : "two"), 0);
		ck_assert_int_eq(pclnrt_register(&creg, &mod), 0);
	}
	atomic_store(&done, 1);
	memset(&it, 0, sizeof it);
	ck_assert_int_eq(setitimer(ITIMER_REAL, &it, NULL), 0);
	for (k = 0; k < NREADER; k++) {
		ck_assert_int_eq(pthread_join(th[k], NULL), 0);
		ck_assert_msg(st[k].bad == 0, "reader %d: %s", k, st[k].why);
		ck_assert_int_gt(st[k].found, 0);
		ck_assert_int_gt(st[k].missed, 0);	/* bias 2*BIAS1 half */
	}
	ck_assert_int_eq(sigaction(SIGALRM, &oldsa, NULL), 0);
	ck_assert_msg(sig_bad == 0, "torn module seen in a signal handler");
	ck_assert_int_gt(sig_found, 0);
	ck_assert_uint_eq(pclnrt_generation(&creg), gen0 + 2 * ITER);
	ck_assert_uint_eq(pclnrt_readers(&creg), 0);
	(void)waits;
}
END_TEST

Suite *
rt_module_suite(void)
{
	Suite *s = suite_create("runtime module");
	TCase *tc = tcase_create("core");

	tcase_add_unchecked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_slots);
	suite_add_tcase(s, tc);
	tc = tcase_create("concurrency");
	tcase_set_timeout(tc, 60);	/* about 1 s; more on a loaded machine */
	tcase_add_unchecked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_concurrent);
	suite_add_tcase(s, tc);
	return s;
}
