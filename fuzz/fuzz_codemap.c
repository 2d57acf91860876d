/* fuzz_codemap.c -- the code map (pclnrt_register, _unregister,
 * _registry_find, reader brackets, pclnrt_module_reusable) driven by the
 * input as a program of operations, against a linear model: every
 * status and every lookup must be the model's (but PCLNRT_FULL while a
 * reader bracket holds removed modules' room), and the nodes within the
 * bound of 14 per module.  abort() on any difference.
 *
 * The input is read as 12-byte operations:
 *   byte 0 % 4: 0 add, 1 remove, 2 look up, 3 reader enter/exit;
 *   byte 1: the module slot (of NMOD);
 *   bytes 2..9: a little-endian address, bytes 10..11 a size in granules
 *   (both mixed so that modules crowd into a few pages as often as not).
 */
#include "fuzz.h"
#include "pclnrt.h"

#define NMOD	32

struct ref {
	pclnrt_module m;
	int live;
};

static uint64_t
get64(const uint8_t *p)
{
	uint64_t v = 0;
	int k;

	for (k = 7; k >= 0; k--)
		v = v << 8 | p[k];
	return v;
}

static const pclnrt_module *
model_find(const struct ref *rf, uint64_t pc)
{
	int i;

	for (i = 0; i < NMOD; i++)
		if (rf[i].live && pc >= rf[i].m.lo && pc < rf[i].m.hi)
			return &rf[i].m;
	return NULL;
}

/* Does [LO, HI) (nonempty) share a granule with a live module? */
static int
model_conflict(const struct ref *rf, uint64_t lo, uint64_t hi)
{
	int i;

	for (i = 0; i < NMOD; i++)
		if (rf[i].live && rf[i].m.hi > rf[i].m.lo &&
		    rf[i].m.lo >> 4 <= (hi - 1) >> 4 &&
		    (rf[i].m.hi - 1) >> 4 >= lo >> 4)
			return 1;
	return 0;
}

static void
probe(const pclnrt_registry *r, const struct ref *rf, uint64_t pc)
{
	const pclnrt_module *got, *want = model_find(rf, pc);
	int rc = pclnrt_registry_find(r, pc, &got);

	if (rc != (want != NULL ? PCLNRT_OK : PCLNRT_NOTFOUND) ||
	    (want != NULL && got != want))
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static unsigned char mem[PCLNRT_REGISTRY_SIZE(NMOD, 14 * NMOD, 2)];
	static struct ref rf[NMOD];
	uint8_t *in = fuzz_copy(data, size);
	pclnrt_registry r;
	pclnrt_registry_stats st;
	pclnrt_reader *rd;
	size_t at, nlive = 0, removed_inside = 0;
	int i, inside = 0;

	memset(rf, 0, sizeof rf);
	if (pclnrt_registry_init(&r, mem, sizeof mem, NMOD, 2) != PCLNRT_OK)
		abort();
	if ((rd = pclnrt_reader_claim(&r)) == NULL)
		abort();
	for (at = 0; at + 12 <= size; at += 12) {
		const uint8_t *op = in + at;
		struct ref *e = &rf[op[1] % NMOD];
		uint64_t a = get64(op + 2), n = (uint64_t)op[10] | op[11] << 8;
		uint64_t lo, hi;
		int rc, want;

		/* Half the time near a shared base, so modules meet. */
		if (op[0] & 0x80)
			a = 0x7f0000000000ull + (a & 0xfffff);
		lo = a & ~(uint64_t)(op[0] & 0x40 ? 0 : 15);
		hi = lo + (n & 0x8000 ? (n & 0x7fff) : (n & 0x7fff) * 16);
		if (hi < lo)
			hi = UINT64_MAX;
		switch (op[0] % 4) {
		case 0:
			want = e->live ? PCLNRT_EXISTS : hi > lo &&
			    model_conflict(rf, lo, hi) ? PCLNRT_OVERLAP :
			    PCLNRT_OK;
			if (!e->live) {
				memset(&e->m, 0, sizeof e->m);
				e->m.lo = lo;
				e->m.hi = hi;
			}
			rc = pclnrt_register(&r, &e->m);
			if (rc == PCLNRT_FULL && want == PCLNRT_OK) {
				/* The storage holds NMOD modules and their
				 * nodes; the room of modules removed inside
				 * the open bracket is reused only after it.
				 * So FULL is right only then; the map is
				 * left unchanged. */
				if (!inside || removed_inside == 0)
					abort();
				break;
			}
			if (rc != want)
				abort();
			if (rc == PCLNRT_OK) {
				e->live = 1;
				nlive++;
			}
			break;
		case 1:
			rc = pclnrt_unregister(&r, &e->m);
			if (rc != (e->live ? PCLNRT_OK : PCLNRT_NOTFOUND))
				abort();
			if (e->live) {
				e->live = 0;
				nlive--;
				removed_inside += inside;
				/* Reusable iff no bracket is open. */
				if (pclnrt_module_reusable(&r, &e->m) != !inside)
					abort();
			}
			break;
		case 2:
			probe(&r, rf, a);
			break;
		default:
			if (inside)
				pclnrt_read_exit(&r, rd);
			else
				pclnrt_read_enter(&r, rd);
			inside = !inside;
			removed_inside = 0;
			break;
		}
		probe(&r, rf, lo);
		probe(&r, rf, lo - 1);
		probe(&r, rf, hi);
		probe(&r, rf, hi - 1);
		pclnrt_registry_stats_get(&r, &st);
		if (st.modules != nlive || st.nodes > 14 * nlive)
			abort();
	}
	for (i = 0; i < NMOD; i++)
		if (rf[i].live && pclnrt_unregister(&r, &rf[i].m) != PCLNRT_OK)
			abort();
	pclnrt_registry_stats_get(&r, &st);
	if (st.modules != 0 || st.nodes != 0)
		abort();
	if (inside)
		pclnrt_read_exit(&r, rd);
	pclnrt_reader_release(&r, rd);
	free(in);
	return 0;
}
