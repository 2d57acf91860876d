/* traceback.c -- walk a stack with the pcsp tables.
 *
 * Each frame: find the function of its pc (pc - 1 for a return
 * address), its file:line and stack-pointer delta D, then the caller's
 * return address and sp by the convention of pclnrt.h (PCLNRT_CONV_*).
 * The loop writes one frame per iteration and stops at MAX frames, so it
 * ends on any stack; stack words come only through the reader callback.
 */
#include "pclnrt.h"
#include "pclnrt_format.h"

#define STOP_MSG_(code, msg) case code: return msg;

const char *
pclnrt_stop_string(int stop)
{
	switch (stop) {
	PCLNRT_STOP_LIST(STOP_MSG_)
	default:
		return "unknown stop reason";
	}
}

int
pclnrt_read_direct(void *arg, uint64_t addr, uint8_t *buf, size_t len)
{
	const volatile uint8_t *p;
	size_t i;

	(void)arg;
	if ((uint64_t)(uintptr_t)addr != addr)
		return -1;	/* beyond this process's address width */
	/* Byte by byte through a volatile pointer, so the compiler cannot
	 * turn the loop into a call to memcpy. */
	p = (const volatile uint8_t *)(uintptr_t)addr;
	for (i = 0; i < len; i++)
		buf[i] = p[i];
	return 0;
}

/* Where a walk reads its stack words from without a call: the copy of
 * the stack (W->copy), whose words are at offsets 0..LIM from BASE, and
 * whether they are 8-byte little-endian (a profiler's copy on x86-64 or
 * arm64: each one load, not eight). */
struct wordsrc {
	const uint8_t *copy;	/* NULL: every word through the reader */
	uint64_t base, lim;
	int le8;
};

static void
wordsrc_init(const pclnrt_walk *w, struct wordsrc *s)
{
	s->copy = w->copy_len >= w->ptrsize ? w->copy : NULL;
	s->base = w->copy_base;
	s->lim = s->copy != NULL ? w->copy_len - w->ptrsize : 0;
	s->le8 = w->ptrsize == 8 && !w->bigendian;
}

/* Read the stack word at ADDR into *V.  Returns 0 or -1. */
PCLNRT_INLINE int
readword(const pclnrt_walk *w, const struct wordsrc *s, uint64_t addr,
    uint64_t *v)
{
	pclnrt_readfn rd;
	uint64_t at = addr - s->base;
	uint8_t buf[8];

	/* (an ADDR below BASE makes AT wrap, past LIM) */
	if (s->copy != NULL && at <= s->lim) {
		*v = s->le8 ? pclnrt_load64(s->copy + at, 0) :
		    pclnrt_loadptr(s->copy + at, w->ptrsize, w->bigendian);
		return 0;
	}
	rd = w->read != NULL ? w->read : pclnrt_read_direct;
	if (rd(w->read_arg, addr, buf, w->ptrsize) != 0)
		return -1;
	*v = pclnrt_loadptr(buf, w->ptrsize, w->bigendian);
	return 0;
}

int
pclnrt_stepcache_init(pclnrt_stepcache *c, pclnrt_stepcache_ent *ent,
    size_t nent)
{
	size_t k;

	if (c == NULL || ent == NULL || nent == 0 || (nent & (nent - 1)) != 0)
		return PCLNRT_BADARG;
	for (k = 0; k < nent; k++) {
		ent[k].reg = NULL;
		ent[k].look = 0;
	}
	c->ent = ent;
	c->mask = (uint64_t)nent - 1;
	c->hits = c->misses = 0;
	return PCLNRT_OK;
}

/* *D = *S field by field: a struct assignment may become a call to
 * memcpy, which the runtime does not have. */
static void
funccopy(pclnrt_func *d, const pclnrt_func *s)
{
	d->name = s->name;
	d->entry = s->entry;
	d->end = s->end;
	d->args = s->args;
	d->frame = s->frame;
	d->index = s->index;
	d->t = s->t;
	d->funcoff = s->funcoff;
	d->npcdata = s->npcdata;
	d->nfuncdata = s->nfuncdata;
}

/* The step cache's slot of run-time PC (Fibonacci hashing). */
static uint64_t
stephash(uint64_t pc)
{
	return (pc * UINT64_C(0x9e3779b97f4a7c15)) >> 32;
}

size_t
pclnrt_traceback(const pclnrt_walk *w, pclnrt_frame *frames, size_t max,
    pclnrt_stopinfo *stopp)
{
	uint64_t pc = 0, sp = 0, fp = 0, look, link, d, ret, csp, mask;
	pclnrt_frame *fr;
	size_t n = 0;
	int stop, retaddr, leaf, usefp, fpok = 1;
	int32_t cfarule, fpsave, sprc;
	pclnrt_stepcache *steps = NULL;
	pclnrt_stepcache_ent *se;
	struct wordsrc src;
	size_t gen;
	uint64_t hits = 0;

	if (w == NULL || w->modules == NULL || (frames == NULL && max > 0) ||
	    (w->ptrsize != 4 && w->ptrsize != 8) ||
	    (w->conv != PCLNRT_CONV_STACK && w->conv != PCLNRT_CONV_LR)) {
		stop = PCLNRT_STOP_BADARG;
		goto out;
	}
	mask = w->ptrsize == 8 ? UINT64_MAX : UINT32_MAX;
	pc = w->pc & mask;
	sp = w->sp & mask;
	retaddr = (w->flags & PCLNRT_TB_FIRST_RETADDR) != 0;
	usefp = (w->flags & PCLNRT_TB_FP) != 0 &&
	    w->conv == PCLNRT_CONV_STACK;
	fp = w->fp & mask;
	steps = (w->flags & PCLNRT_TB_STEPS) && w->steps != NULL &&
	    w->steps->ent != NULL ? w->steps : NULL;
	/* The registry as this walk finds it: an entry made under another
	 * generation (a module registered or removed since) never hits. */
	wordsrc_init(w, &src);
	gen = steps != NULL ? atomic_load(&((pclnrt_registry *)(uintptr_t)
	    w->modules)->generation) : 0;
	for (;;) {
		if (retaddr && pc == 0) {
			stop = PCLNRT_STOP_END;
			break;
		}
		if (n == max) {
			stop = PCLNRT_STOP_LIMIT;
			break;
		}
		fr = &frames[n];
		look = retaddr ? pc - 1 : pc;
		se = steps != NULL ? &steps->ent[stephash(look) &
		    steps->mask] : NULL;
		if (se != NULL && se->look == look && se->gen == gen &&
		    se->reg == w->modules && se->usefp == (uint32_t)usefp) {
			hits++;
			fr->module = se->module;
			funccopy(&fr->func, &se->func);
			fr->file = se->file;
			fr->line = se->line;
			fr->spdelta = se->spdelta;
			cfarule = se->cfarule;
			fpsave = se->fpsave;
			sprc = se->sprc;
		} else {
			if (pclnrt_registry_findfunc(w->modules, look,
			    &fr->module, &fr->func) != PCLNRT_OK) {
				stop = PCLNRT_STOP_UNKNOWN_PC;
				break;
			}
			link = look - fr->module->bias;
			(void)pclnrt_funcline_cached(&fr->func, link,
			    &fr->file, &fr->line, w->cache);
			cfarule = fpsave = 0;
			if (usefp && pclnrt_pcvalue_cached(&fr->func,
			    PCLN_TAB_PCDATA(PCLN_PCDATA_CFA), link, &cfarule,
			    w->cache) != PCLNRT_OK)
				cfarule = 0;
			if (usefp && pclnrt_pcvalue_cached(&fr->func,
			    PCLN_TAB_PCDATA(PCLN_PCDATA_FPSAVE), link, &fpsave,
			    w->cache) != PCLNRT_OK)
				fpsave = 0;
			sprc = pclnrt_pcvalue_cached(&fr->func, PCLN_TAB_PCSP,
			    link, &fr->spdelta, w->cache);
			if (se != NULL) {
				steps->misses++;
				se->reg = w->modules;
				se->gen = gen;
				se->look = look;
				se->usefp = (uint32_t)usefp;
				se->module = fr->module;
				funccopy(&se->func, &fr->func);
				se->file = fr->file;
				se->line = fr->line;
				se->spdelta = fr->spdelta;
				se->cfarule = cfarule;
				se->fpsave = fpsave;
				se->sprc = sprc;
			}
		}
		fr->pc = pc;
		fr->sp = sp;
		fr->entry = fr->func.entry + fr->module->bias;
		fr->off = pc - fr->entry;
		n++;
		if (sprc != PCLNRT_OK) {
			fr->spdelta = cfarule != 0 ? PCLN_PCSP_UNKNOWN : 0;
			if (cfarule == 0) {
				stop = PCLNRT_STOP_NO_SP;
				break;
			}
		}
		/* The CFI says this frame has no caller. */
		if (fr->spdelta == PCLN_PCSP_OUTERMOST) {
			stop = PCLNRT_STOP_OUTERMOST;
			break;
		}
		/* "Unknown here" (pclnld --elf writes it where the CFA is
		 * not sp-based): stop rather than guess, unless the CFA
		 * rule gives the frame. */
		if (fr->spdelta == PCLN_PCSP_UNKNOWN && cfarule == 0) {
			stop = PCLNRT_STOP_NO_SP;
			break;
		}
		d = (uint64_t)(int64_t)fr->spdelta;
		leaf = 0;
		if (w->conv == PCLNRT_CONV_STACK && cfarule != 0) {
			/* CFA = fp + rule; the return address just below. */
			uint64_t cfa = (fp + (uint64_t)(int64_t)cfarule) & mask;
			if (!fpok || readword(w, &src, (cfa - w->ptrsize) & mask,
			    &ret) != 0) {
				stop = PCLNRT_STOP_READ;
				break;
			}
			csp = cfa;
		} else if (w->conv == PCLNRT_CONV_STACK) {
			/* The return address was pushed just above the
			 * frame: at sp + D; the caller's sp is above it. */
			if (readword(w, &src, (sp + d) & mask, &ret) != 0) {
				stop = PCLNRT_STOP_READ;
				break;
			}
			csp = (sp + d + w->ptrsize) & mask;
		} else {
			/* LR saved at sp + 0 of a function's own frame; the
			 * first frame may not have saved it yet. */
			if (fr->spdelta == 0 && n == 1) {
				ret = w->lr;
				leaf = 1;
			} else if (fr->spdelta == 0) {
				stop = PCLNRT_STOP_NOFRAME;
				break;
			} else if (readword(w, &src, sp, &ret) != 0) {
				stop = PCLNRT_STOP_READ;
				break;
			}
			csp = (sp + d) & mask;
		}
		if (csp < sp || (csp == sp && !leaf)) {
			pc = ret & mask;
			sp = csp;
			stop = PCLNRT_STOP_WRONG_WAY;
			goto out;
		}
		/* The caller's frame pointer: restored from where this
		 * frame saved it, else unchanged.  A save slot that cannot
		 * be read (below the sp in an epilogue, where the CFI still
		 * names the slot just popped; outside a profiler's stack
		 * copy) leaves the frame pointer unknown: only a frame
		 * whose CFA needs it stops the walk. */
		if (fpsave != 0 && readword(w, &src, (csp -
		    (uint64_t)(int64_t)fpsave) & mask, &fp) != 0)
			fpok = 0;
		else if (fpsave != 0)
			fpok = 1;
		pc = ret & mask;
		sp = csp;
		retaddr = 1;
	}
	/* For stops at a written frame, report that frame's pc and sp. */
	if (stop == PCLNRT_STOP_NO_SP || stop == PCLNRT_STOP_NOFRAME ||
	    stop == PCLNRT_STOP_READ || stop == PCLNRT_STOP_OUTERMOST) {
		pc = frames[n - 1].pc;
		sp = frames[n - 1].sp;
	}
out:
	if (steps != NULL)
		steps->hits += hits;
	if (stopp != NULL) {
		stopp->reason = stop;
		stopp->pc = pc;
		stopp->sp = sp;
	}
	return n;
}
