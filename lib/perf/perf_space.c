/* perf_space.c -- processes as a perf.data file describes them, and the
 * walk of a sample's user stack copy.
 *
 * Each process is an address space of lib/proc (pcln_proc.h): its
 * mappings (MMAP/MMAP2 records; a later mapping replaces what it
 * overlaps, as mmap does), inherited at FORK and dropped at an exec (COMM
 * with the exec flag).  Every file mapping names an object of one store
 * shared by all processes, whose tables come from the caller's
 * pcln_perf_table_fn (once per path and build-id).  The walk is
 * pcln_aspace_unwind -- the runtime's pclnrt_traceback over the
 * process's objects at their load biases -- reading the sample's stack
 * copy; this file adds what perf needs around it: the build-ids of the
 * file's BUILD_ID feature, PLT stubs, the kinds of frames it could not
 * walk.
 */
#include <stdlib.h>
#include <string.h>

#include "pcln_proc.h"
#include "perf_internal.h"

/* What the caller's table function gave for an object: kept for the
 * store's life (the provider's USER points here). */
struct object {
	pcln_perf_table t;
	struct object *next;
};

struct proc {
	uint32_t pid;
	pcln_aspace *as;
	struct proc *hnext;
};

struct comm {
	uint32_t tid;
	char *name;
	struct comm *hnext;
};

#define NBUCKET	1024
/* The walks remembered (below, "walks remembered"): the step rules kept
 * by pc; the places walked from once (a walk is remembered the second
 * time); a trial of WMEMO_TRIAL walks remembered, after which they are
 * only while taken again WMEMO_GAIN times as often, else for
 * WMEMO_QUIET walks none is. */
#define NCFAM		1024
#define WMEMO_SEEN	16384
#define WMEMO_TRIAL	128
#define WMEMO_GAIN	2
#define WMEMO_QUIET	8192

struct pcln_perf_space {
	pcln_perf_table_fn table;
	void *arg;
	pcln_objstore *store;		/* every process's objects */
	struct object *objs;
	struct proc *procs[NBUCKET];
	struct comm *comms[NBUCKET];
	struct comm *retired;		/* replaced names, kept */
	uint64_t reach;			/* how far walks read, on average
					 * (a moving one, in bytes x 8) */
	/* Where a sample's user registers hold ip, sp and bp (at 8 x
	 * REGAT[i], -1 for none) under the register mask REGMASK, the
	 * mask of the samples before, as a rule (three pcln_perf_reg
	 * were 110 instructions a sample). */
	uint64_t regmask;
	int regat[3];
	/* Walks remembered (struct wmemo, below): WMEMO_SETS sets of
	 * WMEMO_WAYS, made at the first walk; NULL: none (or off).  Each
	 * place in a set is NULL or an entry of WPOOL (NWPOOL of them
	 * taken). */
	struct wmemo **wm;
	struct wmemo *wpool;
	size_t nwpool;
	int wmoff;			/* pcln_perf_space_memo(S, 0) */
	int wmall;			/* pcln_perf_space_memo(S, 2) */
	/* The frames of the walks remembered: FTAB[0..NFTAB) (CAPFTAB),
	 * each made under the space version FMETA[i].version (CAPFMETA),
	 * found by FHASH (FMASK + 1 places, 1 + the frame's place; 0:
	 * none); a first frame's step (first_step) in FMETA[i].step. */
	pcln_perf_frame *ftab;
	struct fmeta {
		uint64_t version;
		struct fstep {		/* OK 0: none; its delta, CFA rule
					 * and saved frame pointer's place */
			int ok;
			int32_t d, cfa, fpsave;
		} step;
	} *fmeta;
	size_t capfmeta;
	uint64_t seen[WMEMO_SEEN / 64];	/* the places walked from, by their
					 * hash (wmemo_put) */
	size_t nftab, capftab;
	uint32_t *fhash;
	size_t fmask;
	uint64_t fullver;		/* the state FTAB was full in */
	struct cfam {			/* step_rules' answers */
		const pclnrt_table *t;
		uint64_t look;
		int32_t cfa, fpsave;
	} cfam[NCFAM];
	pclnrt_pccache cfacache;
	unsigned wmnext;		/* the way a full set gives up next */
	uint64_t walked, remembered;	/* pcln_perf_space_walks */
	/* A trial of the walks remembered: NPUT remembered, WHITS taken
	 * again, since it began; WQUIET: none are, since the walk of that
	 * number (1 + the count before it), or 0. */
	uint64_t nput, whits, wquiet;
};

static void wmemo_free(pcln_perf_space *s);

/* The store's provider: the caller's table function for one object. */
static int
provide(void *arg, const char *path, const uint8_t *id, size_t idlen,
    pcln_objtable *out)
{
	pcln_perf_space *s = arg;
	pcln_perf_object q;
	struct object *o;

	if (s->table == NULL || (o = calloc(1, sizeof *o)) == NULL)
		return -1;
	o->next = s->objs;
	s->objs = o;
	q.path = path;
	q.build_id = idlen > 0 ? id : NULL;
	q.build_id_len = idlen;
	if (s->table(s->arg, &q, &o->t) < 0)
		return -1;
	out->blob = o->t.blob;
	out->len = o->t.len;
	out->vaddr_minus_offset = o->t.vaddr_minus_offset;
	out->user = o;
	return 0;
}

pcln_perf_space *
pcln_perf_space_new(pcln_perf_table_fn table, void *arg, pcln_err *err)
{
	pcln_perf_space *s = calloc(1, sizeof *s);

	if (s == NULL) {
		pclni_seterr(err, PCLN_ENOMEM, -1, "out of memory");
		return NULL;
	}
	s->table = table;
	s->arg = arg;
	/* (a mask of none: no register) */
	s->regat[0] = s->regat[1] = s->regat[2] = -1;
	pclnrt_pccache_init(&s->cfacache);
	if ((s->store = pcln_objstore_new_provider(provide, s, err)) ==
	    NULL) {
		free(s);
		return NULL;
	}
	return s;
}

static void
free_proc(struct proc *pr)
{
	pcln_aspace_free(pr->as);
	free(pr);
}

void
pcln_perf_space_free(pcln_perf_space *s)
{
	size_t i;

	if (s == NULL)
		return;
	for (i = 0; i < NBUCKET; i++) {
		struct proc *pr, *pn;
		struct comm *c, *cn;

		for (pr = s->procs[i]; pr != NULL; pr = pn) {
			pn = pr->hnext;
			free_proc(pr);
		}
		for (c = s->comms[i]; c != NULL; c = cn) {
			cn = c->hnext;
			free(c->name);
			free(c);
		}
	}
	wmemo_free(s);
	while (s->retired != NULL) {
		struct comm *c = s->retired;

		s->retired = c->hnext;
		free(c->name);
		free(c);
	}
	pcln_objstore_free(s->store);
	while (s->objs != NULL) {
		struct object *o = s->objs;

		s->objs = o->next;
		free(o);
	}
	free(s);
}

static struct proc *
find_proc(const pcln_perf_space *s, uint32_t pid)
{
	struct proc *pr;

	for (pr = s->procs[pid % NBUCKET]; pr != NULL; pr = pr->hnext)
		if (pr->pid == pid)
			return pr;
	return NULL;
}

static struct proc *
get_proc(pcln_perf_space *s, uint32_t pid)
{
	struct proc *pr = find_proc(s, pid);

	if (pr != NULL)
		return pr;
	if ((pr = calloc(1, sizeof *pr)) == NULL)
		return NULL;
	if ((pr->as = pcln_aspace_new(0, s->store, 0, NULL)) == NULL) {
		free(pr);
		return NULL;
	}
	pr->pid = pid;
	pr->hnext = s->procs[pid % NBUCKET];
	s->procs[pid % NBUCKET] = pr;
	return pr;
}

static int
set_comm(pcln_perf_space *s, uint32_t tid, const char *name)
{
	struct comm *c;
	char *dup;

	for (c = s->comms[tid % NBUCKET]; c != NULL; c = c->hnext)
		if (c->tid == tid)
			break;
	if (c != NULL && strcmp(c->name, name) == 0)
		return 0;
	if ((dup = strdup(name)) == NULL)
		return -1;
	if (c == NULL) {
		if ((c = calloc(1, sizeof *c)) == NULL) {
			free(dup);
			return -1;
		}
		c->tid = tid;
		c->hnext = s->comms[tid % NBUCKET];
		s->comms[tid % NBUCKET] = c;
	} else {
		/* Names handed out stay valid until pcln_perf_space_free:
		 * the old one is retired, not freed. */
		struct comm *r = calloc(1, sizeof *r);

		if (r == NULL) {
			free(dup);
			return -1;
		}
		r->name = c->name;
		r->hnext = s->retired;
		s->retired = r;
	}
	c->name = dup;
	return 0;
}

const char *
pcln_perf_comm(const pcln_perf_space *s, uint32_t pid, uint32_t tid)
{
	struct comm *c;

	for (c = s->comms[tid % NBUCKET]; c != NULL; c = c->hnext)
		if (c->tid == tid)
			return c->name;
	for (c = s->comms[pid % NBUCKET]; c != NULL; c = c->hnext)
		if (c->tid == pid)
			return c->name;
	return NULL;
}

/* A mapping's object is not a file: perf's names for anonymous memory,
 * the kernel's mappings, memfd's. */
static int
special(const char *name)
{
	return name[0] != '/' || strncmp(name, "//anon", 6) == 0 ||
	    strncmp(name, "/memfd:", 7) == 0;
}

static int
add_mapping(const pcln_perf *p, struct proc *pr, const pcln_perf_event *ev)
{
	const char *name = ev->u.mmap.filename;
	const uint8_t *id = ev->u.mmap.build_id;
	size_t idlen = ev->u.mmap.build_id_len, i;
	pcln_mapping m;

	if (ev->u.mmap.len == 0 || ev->u.mmap.addr + ev->u.mmap.len <
	    ev->u.mmap.addr)
		return 0;
	/* No build-id in the record: the file's BUILD_ID feature's. */
	if (idlen == 0 && p != NULL && !special(name))
		for (i = 0; i < p->info.nbuildid; i++)
			if (strcmp(p->buildids[i].filename, name) == 0) {
				id = p->buildids[i].id;
				idlen = p->buildids[i].len;
				break;
			}
	memset(&m, 0, sizeof m);
	m.start = ev->u.mmap.addr;
	m.end = ev->u.mmap.addr + ev->u.mmap.len;
	m.offset = ev->u.mmap.pgoff;
	m.prot = ev->u.mmap.prot & (PCLN_MAP_READ | PCLN_MAP_WRITE |
	    PCLN_MAP_EXEC);	/* (perf's PROT_* bits are mmap's) */
	m.path = name;
	if (idlen > 0 && idlen <= PCLN_BUILDID_MAX) {
		memcpy(m.build_id, id, idlen);
		m.build_id_len = idlen;
	}
	return pcln_aspace_add(pr->as, &m, NULL);
}

static int
fork_proc(pcln_perf_space *s, uint32_t pid, uint32_t ppid)
{
	struct proc *child, *parent;
	size_t i, n;

	if (pid == ppid)
		return 0;		/* a new thread */
	if ((child = get_proc(s, pid)) == NULL ||
	    pcln_aspace_set_maps(child->as, "", 0, NULL) < 0)
		return -1;
	if ((parent = find_proc(s, ppid)) == NULL)
		return 0;
	n = pcln_aspace_nmaps(parent->as);
	for (i = 0; i < n; i++)
		if (pcln_aspace_add(child->as, pcln_aspace_map(parent->as, i),
		    NULL) < 0)
			return -1;
	return 0;
}

int
pcln_perf_space_event(pcln_perf_space *s, const pcln_perf *p,
    const pcln_perf_event *ev, pcln_err *err)
{
	struct proc *pr;
	int rc = 0;

	if (ev->bad)
		return 0;
	switch (ev->type) {
	case PCLN_PERF_RECORD_MMAP:
	case PCLN_PERF_RECORD_MMAP2:
		if (ev->pid == UINT32_MAX)
			return 0;	/* the kernel's: kallsyms names it */
		if ((pr = get_proc(s, ev->pid)) == NULL ||
		    add_mapping(p, pr, ev) < 0)
			rc = -1;
		break;
	case PCLN_PERF_RECORD_COMM:
		if (set_comm(s, ev->tid, ev->u.comm.comm) < 0)
			rc = -1;
		else if (ev->u.comm.exec && ev->pid == ev->tid &&
		    (pr = find_proc(s, ev->pid)) != NULL &&
		    pcln_aspace_set_maps(pr->as, "", 0, NULL) < 0)
			rc = -1;
		break;
	case PCLN_PERF_RECORD_FORK: {
		const char *pc = pcln_perf_comm(s, ev->u.fork.ppid,
		    ev->u.fork.ptid);

		if (fork_proc(s, ev->pid, ev->u.fork.ppid) < 0 ||
		    (pc != NULL && set_comm(s, ev->tid, pc) < 0))
			rc = -1;
		break;
	}
	default:
		break;
	}
	if (rc < 0)
		return pclni_seterr(err, PCLN_ENOMEM, (int64_t)ev->offset,
		    "out of memory");
	return 0;
}

/* Fill FR for PC (LOOK is the pc looked up) from PR's mappings. */
static void
classify(struct proc *pr, uint64_t pc, uint64_t look, pcln_perf_frame *fr)
{
	const pcln_mapping *m = pcln_aspace_find(pr->as, look);
	const pcln_object *o;
	const struct object *po;
	uint64_t bias;

	memset(fr, 0, sizeof *fr);
	fr->pc = pc;
	fr->lookup = look;
	if (m == NULL) {
		fr->where = PCLN_PERF_IN_UNMAPPED;
		return;
	}
	fr->object = m->path;
	fr->objoff = look - m->start + m->offset;
	if (special(m->path) ||
	    (o = pcln_aspace_object(pr->as, look, &bias)) == NULL) {
		fr->where = PCLN_PERF_IN_ANON;
		return;
	}
	fr->object = o->path;	/* (lives as long as the store) */
	po = o->user;
	if (po != NULL && po->t.stubs != NULL && (fr->name =
	    pcln_perf_syms_find(po->t.stubs, look - bias, NULL, NULL)) !=
	    NULL) {
		fr->where = PCLN_PERF_IN_STUB;
		return;
	}
	if (o->table == NULL) {
		fr->where = PCLN_PERF_IN_NOTABLE;
		return;
	}
	if (pclnrt_findfunc(&o->rt, look - bias, &fr->func) == PCLNRT_OK) {
		fr->where = PCLN_PERF_IN_TABLE;
		fr->bias = bias;
	} else
		fr->where = PCLN_PERF_IN_NOFUNC;
}

/* Is PC in a PLT entry of its object (named by the stubs its caller
 * gave)? */
static int
in_stub(struct proc *pr, uint64_t pc)
{
	const pcln_object *o;
	const struct object *po;
	uint64_t bias;

	return (o = pcln_aspace_object(pr->as, pc, &bias)) != NULL &&
	    (po = o->user) != NULL && po->t.stubs != NULL &&
	    pcln_perf_syms_find(po->t.stubs, pc - bias, NULL, NULL) != NULL;
}

int
pcln_perf_resolve(pcln_perf_space *s, uint32_t pid, uint64_t pc,
    int retaddr, pcln_perf_frame *frame)
{
	struct proc *pr = find_proc(s, pid);

	if (pr == NULL) {
		memset(frame, 0, sizeof *frame);
		frame->pc = pc;
		frame->lookup = pc;
		frame->where = PCLN_PERF_IN_UNMAPPED;
		return -1;
	}
	classify(pr, pc, retaddr ? pc - 1 : pc, frame);
	return 0;
}

/* The stack copy of a sample: [SP, SP + LEN), read in place by the
 * walk (pcln_aspace_unwind_copy), by read_stack for a PLT entry. */
struct stackmem {
	uint64_t sp;
	const uint8_t *data;
	uint64_t len;
	uint64_t hi;		/* how far the walk read, from sp */
	uint64_t ahead;		/* how much to ask the caches for first */
};

static int
read_stack(const struct stackmem *m, uint64_t addr, uint8_t *buf,
    size_t len)
{
	if (addr < m->sp || addr - m->sp > m->len ||
	    m->len - (addr - m->sp) < len)
		return -1;
	memcpy(buf, m->data + (addr - m->sp), len);
	return 0;
}

#define WALK_MAX	256

/* --- walks remembered ----------------------------------------------------
 *
 * A profile's samples are mostly stacks walked before: the 48,848 of
 * bench/perf.sh's long profile have some 70 chains of callers under
 * their first frames, and the walk of each sample (the runtime's steps, its
 * frames made into pcln_perf_frame, their mappings) was 1,900 of its
 * 4,200 instructions.  So the walk from a sample's first frame on is
 * remembered: keyed by that frame's caller -- the return address and
 * the sp the first frame's step gives -- and by the state of the
 * process's address space (pcln_aspace_version), holding its frames and
 * every word of the stack copy that the runtime's walk read and that
 * decided a step:
 *   - each return address, at an offset from the key's sp: from the
 *     frame's sp and delta, or from the frame pointer and the frame's
 *     CFA rule (PCLN_PCDATA_CFA);
 *   - each saved frame pointer (PCLN_PCDATA_FPSAVE) that a CFA rule
 *     used later, its value too;
 *   - and the frame pointer the walk came in with, relative to the
 *     key's sp, where a CFA rule used it before any was restored;
 * where the walk ended at an outermost frame, a return address of 0, a
 * frame with no delta, or a return address past the copy's end (a frame
 * stepped by its delta).  A sample whose first frame's step gives the
 * same key, whose copy holds the same words there (and ends before the
 * word the walk could not read) and whose frame pointer is the same
 * there, is walked as that walk was: the runtime's walk would read the
 * same words from the same places and make the same frames.  A function
 * sampled under callers at different depths (a recursion) is keyed by
 * different sps.
 *
 * The first frame itself is kept by its pc, with what its step needs
 * (its delta, or CFA rule, and its saved frame pointer's place): the
 * step is then a read or two.  Frames are kept once each (FTAB), a walk
 * remembered holds their places: what it takes is memory never touched
 * before, each page a fault (2 us on the guest measured: 440 faults,
 * 0.9 ms, on a profile of 5,000 samples with the frames in each walk's
 * own block). */
#define WMEMO_SETS	256
#define WMEMO_WAYS	4
#define WMEMO_MAXF	32		/* frames of a walk remembered */
#define WMEMO_MAXFP	8		/* saved frame pointers it checks */
/* Frames kept, at most: 240 KiB of them, which a core's cache can hold;
 * a walk that would need more is not remembered. */
#define FTAB_MAX	((size_t)2048)

struct wmemo {
	uint64_t ip, sp, version;	/* the key (VERSION 0: empty) */
	uint64_t hi;			/* how far it read, from sp */
	int64_t fprel;			/* FPIN: the frame pointer it came in
					 * with, minus sp */
	uint32_t n, nslot, nfp;		/* N frames; NSLOT return addresses
					 * and NFP saved frame pointers read */
	int stop;			/* the walk's stop reason */
	int fpin;			/* it used the frame pointer it came
					 * in with */
	uint32_t fail;			/* STOP_READ: the offset from sp of
					 * the word it could not read */
	/* Its frames, in S->ftab; where it read (from sp: a sample is at
	 * most 64 KiB) each caller's pc (the next frame's), or 0 (the last
	 * of an END); the saved frame pointers' places and values. */
	uint16_t fi[WMEMO_MAXF];
	uint16_t off[WMEMO_MAXF];
	uint16_t fpoff[WMEMO_MAXFP];
	uint64_t fpval[WMEMO_MAXFP];
};

static void
wmemo_free(pcln_perf_space *s)
{
	free(s->wm);
	free(s->wpool);
	free(s->ftab);
	free(s->fmeta);
	free(s->fhash);
	s->wm = NULL;
	s->wpool = NULL;
	s->nwpool = 0;
	s->ftab = NULL;
	s->fmeta = NULL;
	s->fhash = NULL;
	s->nftab = s->capftab = s->capfmeta = 0;
	s->fmask = 0;
}

static uint64_t
fhash(uint64_t version, uint64_t pc)
{
	return ((pc ^ version * UINT64_C(0xff51afd7ed558ccd)) *
	    UINT64_C(0x9e3779b97f4a7c15)) >> 32;
}

/* The set of the walks keyed by PC at SP. */
static struct wmemo **
wmemo_set(const pcln_perf_space *s, uint64_t pc, uint64_t sp)
{
	uint64_t h = (pc ^ sp * UINT64_C(0xff51afd7ed558ccd)) *
	    UINT64_C(0x9e3779b97f4a7c15);

	return &s->wm[(h >> 32 & (WMEMO_SETS - 1)) * WMEMO_WAYS];
}

/* The word at OFF of the stack copy MEM into *V: 0, or -1 where the
 * runtime's walk could not read it (the copy's bounds, as readword's). */
static int
mem_word(const struct stackmem *mem, uint64_t off, uint64_t *v)
{
	if (mem->data == NULL || mem->len < 8 || off > mem->len - 8)
		return -1;
	*v = pclnrt_load64(mem->data + off, 0);
	return 0;
}

/* The walk remembered for the caller at PC and SP (with the frame
 * pointer FP, FPOK 0 where it is not known), under VERSION, whose words
 * are those of the stack copy MEM, of at most MAX frames, or NULL. */
static const struct wmemo *
wmemo_find(const pcln_perf_space *s, uint64_t pc, uint64_t sp, uint64_t fp,
    int fpok, uint64_t version, const struct stackmem *mem, size_t max)
{
	struct wmemo *const *set = wmemo_set(s, pc, sp);
	const struct wmemo *e;
	uint64_t base = sp - mem->sp, v;
	size_t w, j;

	/* (SP is in the copy: the first frame stepped there by reading the
	 * word just below it) */
	if (mem->data == NULL || sp < mem->sp || base > mem->len)
		return NULL;
	for (w = 0; w < WMEMO_WAYS; w++) {
		if ((e = set[w]) == NULL || e->ip != pc || e->sp != sp ||
		    e->version != version || e->n > max)
			continue;
		if (e->fpin && (!fpok || fp - sp != (uint64_t)e->fprel))
			continue;
		/* (the offsets rise: the last one is the furthest; a walk
		 * that ran off the copy did so at FAIL) */
		if (e->nslot > 0 && base + e->off[e->nslot - 1] + 8 > mem->len)
			continue;
		if (e->stop == PCLNRT_STOP_READ && base + e->fail + 8 <=
		    mem->len)
			continue;
		for (j = 0; j < e->nslot; j++)
			if (pclnrt_load64(mem->data + base + e->off[j], 0) !=
			    (j + 1 < e->n ? s->ftab[e->fi[j + 1]].pc : 0))
				break;
		if (j < e->nslot)
			continue;
		for (j = 0; j < e->nfp; j++)
			if (mem_word(mem, base + e->fpoff[j], &v) < 0 ||
			    v != e->fpval[j])
				break;
		if (j == e->nfp)
			return e;
	}
	return NULL;
}

/* The rules of the step from the frame TB (looked up at LOOK) that the
 * runtime's walk takes besides its delta: its CFA rule (*CFA, 0: none)
 * and where it saved its caller's frame pointer (*FPSAVE, 0: nowhere),
 * as pclnrt_traceback looks them up.  Asked of each frame of each walk
 * remembered (a pc-value table decoded up to the pc each time was a
 * fifth of the instructions of a profile of 5,000 samples): kept by pc,
 * in S->cfam. */
static void
step_rules(pcln_perf_space *s, const pclnrt_frame *tb, uint64_t look,
    int32_t *cfa, int32_t *fpsave)
{
	struct cfam *m = &s->cfam[(look * UINT64_C(0x9e3779b97f4a7c15)) >>
	    32 & (NCFAM - 1)];
	uint64_t link = look - tb->module->bias;

	if (m->t != tb->func.t || m->look != look || m->t == NULL) {
		m->t = tb->func.t;
		m->look = look;
		if (pclnrt_pcvalue_cached(&tb->func,
		    PCLN_TAB_PCDATA(PCLN_PCDATA_CFA), link, &m->cfa,
		    &s->cfacache) != PCLNRT_OK)
			m->cfa = 0;
		if (pclnrt_pcvalue_cached(&tb->func,
		    PCLN_TAB_PCDATA(PCLN_PCDATA_FPSAVE), link, &m->fpsave,
		    &s->cfacache) != PCLNRT_OK)
			m->fpsave = 0;
	}
	*cfa = m->cfa;
	*fpsave = m->fpsave;
}

/* The place of the frame at PC, looked up at LOOK, of a walk under
 * VERSION in S->ftab, or -1. */
static long
ftab_find(const pcln_perf_space *s, uint64_t version, uint64_t pc,
    uint64_t look)
{
	size_t i, k;

	if (s->fhash == NULL)
		return -1;
	for (k = fhash(version, pc) & s->fmask; s->fhash[k] != 0;
	    k = (k + 1) & s->fmask) {
		i = s->fhash[k] - 1;
		if (s->fmeta[i].version == version && s->ftab[i].pc == pc &&
		    s->ftab[i].lookup == look)
			return (long)i;
	}
	return -1;
}

/* The place of frame F (of a walk under VERSION) in S->ftab, kept there
 * now if it was not; 0 and *AT, or -1 (no memory, or FTAB_MAX kept). */
static int
ftab_put(pcln_perf_space *s, uint64_t version, const pcln_perf_frame *f,
    uint16_t *at)
{
	size_t i, k;

	if (s->fhash == NULL) {
		if ((s->fhash = calloc(2 * FTAB_MAX, sizeof *s->fhash)) ==
		    NULL)
			return -1;
		s->fmask = 2 * FTAB_MAX - 1;
	}
	for (k = fhash(version, f->pc) & s->fmask; s->fhash[k] != 0;
	    k = (k + 1) & s->fmask) {
		i = s->fhash[k] - 1;
		/* (a frame is its pc's in a state of the space: the same pc
		 * looked up the same way makes the same frame) */
		if (s->fmeta[i].version == version &&
		    s->ftab[i].pc == f->pc &&
		    s->ftab[i].lookup == f->lookup) {
			*at = (uint16_t)i;
			return 0;
		}
	}
	if (s->nftab >= FTAB_MAX)
		return -1;
	if (pclni_grow(&s->ftab, &s->capftab, s->nftab + 1,
	    sizeof *s->ftab) < 0 || pclni_grow(&s->fmeta, &s->capfmeta,
	    s->nftab + 1, sizeof *s->fmeta) < 0)
		return -1;
	s->ftab[s->nftab] = *f;
	s->fmeta[s->nftab].version = version;
	s->fmeta[s->nftab].step.ok = 0;
	s->fhash[k] = (uint32_t)++s->nftab;
	*at = (uint16_t)(s->nftab - 1);
	return 0;
}

/* Every walk remembered forgotten, every frame kept too. */
static void
wmemo_clear(pcln_perf_space *s)
{
	size_t i;

	for (i = 0; i < s->nwpool; i++)
		s->wpool[i].version = 0;
	if (s->fhash != NULL)
		memset(s->fhash, 0, (s->fmask + 1) * sizeof *s->fhash);
	s->nftab = 0;
}

/* Keep the first frame of the walk that made TB[0..N) and FRAMES (the
 * same, made pcln_perf_frame; SI its stop) under VERSION, with what its
 * step to its caller took, where it took one: the frame is a matter of
 * its pc and the tables, the step of those, the word it read and the
 * frame pointer, which is all the next sample at the same pc needs to
 * find its caller (pcln_perf_unwind). */
static void
first_step(pcln_perf_space *s, uint64_t version, const pclnrt_frame *tb,
    size_t n, const pclnrt_stopinfo *si, const pcln_perf_frame *frames)
{
	int32_t d = tb[0].spdelta, cfa, fpsave;
	uint64_t next;
	uint16_t k;

	if (s->wmoff || n == 0 || (n == 1 && si->reason != PCLNRT_STOP_LIMIT))
		return;
	next = n > 1 ? tb[1].sp : si->sp;
	step_rules(s, &tb[0], tb[0].pc, &cfa, &fpsave);
	if (next <= tb[0].sp || next - tb[0].sp > UINT16_MAX ||
	    (cfa == 0 && (d < 0 || d == PCLN_PCSP_UNKNOWN ||
	    d == PCLN_PCSP_OUTERMOST || next != tb[0].sp + (uint64_t)d + 8)) ||
	    ftab_put(s, version, &frames[0], &k) < 0)
		return;
	s->fmeta[k].step.ok = 1;
	s->fmeta[k].step.d = d;
	s->fmeta[k].step.cfa = cfa;
	s->fmeta[k].step.fpsave = fpsave;
}

/* Remember what the walk that made TB[0..N) and FRAMES (the same, made
 * pcln_perf_frame), stopping as SI says, under VERSION, made from its
 * second frame on (its first one's caller, at the return address
 * TB[1].pc with sp TB[1].sp: the key) over the stack copy MEM, where
 * that part is one to remember.  FP: the frame pointer the second frame
 * came in with (FPOK 0: not known). */
static void
wmemo_put(pcln_perf_space *s, uint64_t version, const pclnrt_frame *tb,
    size_t n, const pclnrt_stopinfo *si, const pcln_perf_frame *frames,
    const struct stackmem *mem, uint64_t fp, int fpok)
{
	struct wmemo **set, *e;
	uint16_t off[WMEMO_MAXF], fi[WMEMO_MAXF], fpoff[WMEMO_MAXFP];
	uint64_t fpval[WMEMO_MAXFP];
	size_t i, nslot = 0, nfp = 0, w;
	int end = si->reason == PCLNRT_STOP_END;
	int fail = si->reason == PCLNRT_STOP_READ;
	uint64_t failoff = 0, ip, sp, hi = mem->hi, base;
	/* The frame pointer as the walk goes: the one it came in with
	 * (FPIN), a word it read at FPWORD (from sp) holding FPW, or one it
	 * could not read. */
	enum { FPIN, FPWORD, FPBAD } fpk = fpok ? FPIN : FPBAD;
	uint64_t fpword = 0, fpw = 0;
	int usedin = 0;
	int64_t fprel = 0;

	/* (after a trial, only while walks are taken again twice as
	 * often as they are remembered: each remembered costs as much as
	 * a walk again saves, in memory the caches then hold; else none
	 * for a while, the walks made at once) */
	if (!s->wmall && s->nput >= WMEMO_TRIAL &&
	    s->whits < WMEMO_GAIN * s->nput) {
		s->wquiet = s->walked;
		return;
	}
	if (s->wmoff || n < 2 || n - 1 > WMEMO_MAXF ||
	    (si->reason != PCLNRT_STOP_OUTERMOST && !end && !fail &&
	    si->reason != PCLNRT_STOP_NO_SP))
		return;
	/* (the part from the second frame: each frame a return address,
	 * looked up at pc - 1) */
	base = tb[1].sp - tb[0].sp;
	hi = hi > base ? hi - base : 0;
	tb++;
	frames++;
	n--;
	ip = tb[0].pc;
	sp = tb[0].sp;
	for (i = 0; i < n; i++) {
		int32_t d = tb[i].spdelta, cfa, fpsave;
		int last = i + 1 == n;
		uint64_t slot, csp, v;

		step_rules(s, &tb[i], tb[i].pc - 1, &cfa, &fpsave);
		/* (the last frame of a walk that stopped there: no step, or
		 * one that ran off the copy) */
		if (last && !end) {
			if (!fail)
				break;
			if (cfa != 0 || d < 0 || d == PCLN_PCSP_UNKNOWN ||
			    d == PCLN_PCSP_OUTERMOST)
				return;
			failoff = tb[i].sp + (uint64_t)d - sp;
			if (failoff > UINT16_MAX)
				return;
			break;
		}
		csp = last ? si->sp : tb[i + 1].sp;
		if (cfa != 0) {
			/* CFA = fp + rule: the frame pointer as it was
			 * here is the caller's sp less the rule */
			uint64_t fpi = csp - (uint64_t)(int64_t)cfa;

			if (fpk == FPBAD)
				return;
			if (fpk == FPIN) {
				if (usedin && (uint64_t)fprel != fpi - sp)
					return;
				usedin = 1;
				fprel = (int64_t)(fpi - sp);
			} else {
				if (fpw != fpi || fpword > UINT16_MAX)
					return;
				if (nfp == 0 || fpoff[nfp - 1] != fpword) {
					if (nfp == WMEMO_MAXFP)
						return;
					fpoff[nfp] = (uint16_t)fpword;
					fpval[nfp++] = fpw;
				}
			}
			slot = csp - 8;
		} else {
			if (d < 0 || d == PCLN_PCSP_UNKNOWN ||
			    d == PCLN_PCSP_OUTERMOST)
				return;
			slot = tb[i].sp + (uint64_t)d;
			if (csp != slot + 8)
				return;
		}
		if (csp <= tb[i].sp || slot < sp || slot - sp > UINT16_MAX - 8 ||
		    (nslot > 0 && slot - sp <= off[nslot - 1]))
			return;
		off[nslot++] = (uint16_t)(slot - sp);
		/* The caller's frame pointer, where this frame saved it: the
		 * word the walk read, if it could (its place in the copy,
		 * from the sample's sp). */
		if (fpsave != 0) {
			uint64_t at = csp - (uint64_t)(int64_t)fpsave;

			if (at >= mem->sp && mem_word(mem, at - mem->sp,
			    &v) == 0 && at >= sp) {
				fpk = FPWORD;
				fpword = at - sp;
				fpw = v;
			} else
				fpk = FPBAD;
		}
	}
	/* (remembered the second time its place is walked from: a walk
	 * seen once takes no memory) */
	{
		uint64_t h = (ip ^ sp * UINT64_C(0xff51afd7ed558ccd)) *
		    UINT64_C(0x9e3779b97f4a7c15) >> 40 & (WMEMO_SEEN - 1);

		if (!(s->seen[h / 64] >> h % 64 & 1)) {
			s->seen[h / 64] |= UINT64_C(1) << h % 64;
			return;
		}
	}
	if (s->wm == NULL && ((s->wm = calloc((size_t)WMEMO_SETS *
	    WMEMO_WAYS, sizeof *s->wm)) == NULL || (s->wpool =
	    malloc((size_t)WMEMO_SETS * WMEMO_WAYS * sizeof *s->wpool)) ==
	    NULL)) {
		free(s->wm);
		s->wm = NULL;
		return;
	}
	for (i = 0; i < n; i++)
		if (ftab_put(s, version, &frames[i], &fi[i]) < 0) {
			/* Full: the frames of states gone (mappings made and
			 * unmade) given up once for each state, or those
			 * of this one are all it keeps. */
			if (s->nftab >= FTAB_MAX && s->fullver != version) {
				wmemo_clear(s);
				s->fullver = version;
			}
			return;
		}
	set = wmemo_set(s, ip, sp);
	for (w = 0; w < WMEMO_WAYS && set[w] != NULL &&
	    set[w]->version == version; w++)
		;
	if (w == WMEMO_WAYS)
		w = s->wmnext++ % WMEMO_WAYS;
	/* (the pool's entries in turn, each page of it touched when its
	 * first is: a short profile's walks remembered are few) */
	if (set[w] == NULL)
		set[w] = &s->wpool[s->nwpool++];
	e = set[w];
	s->nput++;
	memcpy(e->fi, fi, n * sizeof *fi);
	memcpy(e->off, off, nslot * sizeof *off);
	memcpy(e->fpoff, fpoff, nfp * sizeof *fpoff);
	memcpy(e->fpval, fpval, nfp * sizeof *fpval);
	e->ip = ip;
	e->sp = sp;
	e->fail = (uint32_t)failoff;
	e->version = version;
	e->n = (uint32_t)n;
	e->nslot = (uint32_t)nslot;
	e->nfp = (uint32_t)nfp;
	e->fpin = usedin;
	e->fprel = fprel;
	e->stop = si->reason;
	e->hi = hi;
}

void
pcln_perf_space_memo(pcln_perf_space *s, int on)
{
	s->wmoff = !on;
	s->wmall = on == 2;
	if (!on)
		wmemo_free(s);
}

void
pcln_perf_space_walks(const pcln_perf_space *s, uint64_t *walked,
    uint64_t *remembered)
{
	*walked = s->walked;
	*remembered = s->remembered;
}

/* The frame pointer the runtime's walk gives the caller of a frame that
 * came in with FP, stepped to the caller's sp CSP and saved its caller's
 * frame pointer at CSP - FPSAVE (0: nowhere), in *FP1: 1, or 0 where it
 * is not known (the word saved could not be read: the walk's fpok). */
static int
caller_fp(const struct stackmem *mem, uint64_t csp, uint64_t fp,
    int32_t fpsave, uint64_t *fp1)
{
	uint64_t at = csp - (uint64_t)(int64_t)fpsave;

	*fp1 = fp;
	if (fpsave == 0)
		return 1;
	return at >= mem->sp && mem_word(mem, at - mem->sp, fp1) == 0;
}

/* The walk from PC, SP, FP (FLAGS: PCLNRT_TB_*) through PR's objects,
 * appended to FRAMES[*OUT..MAX); the stop in *SI.  VERSION (PR's address
 * space's, 0: none) where it is one to remember (first_step,
 * wmemo_put). */
static void
walk(pcln_perf_space *s, struct proc *pr, struct stackmem *mem, uint64_t pc,
    uint64_t sp, uint64_t fp, unsigned flags, pcln_perf_frame *frames,
    size_t *out, size_t max, pclnrt_stopinfo *si, uint64_t version)
{
	pclnrt_frame tb[WALK_MAX];
	pcln_regs r;
	size_t n, i, room = max - *out;
	const pcln_mapping *m = NULL, *m2 = NULL;

	memset(&r, 0, sizeof r);
	r.pc = pc;
	r.sp = sp;
	r.fp = fp;
	/* The stack copy is in memory the reader's copy left out of this
	 * core's caches, and each frame's read depends on the last: its
	 * lines asked for at once, as far as walks have gone lately and
	 * twice that (most stop well before the copy's end: a C++ test
	 * program's at 640 bytes of 4,600 on average, the SQLite shell's
	 * at 5,300 of 8,200), the rest read as the walk gets there.  (A
	 * walk remembered asks for none: its reads are of words it knows,
	 * each apart from the others, and the record's first KiBs were
	 * asked for two records before: prefetch_records.) */
	{
		uint64_t o, end = mem->ahead < mem->len ? mem->ahead : mem->len;

		for (o = 0; o < end; o += 64)
			__builtin_prefetch(mem->data + o);
	}
	n = pcln_aspace_unwind_copy(pr->as, &r, flags, mem->data, mem->sp,
	    mem->len, tb, room < WALK_MAX ? room : WALK_MAX, si);
	/* What the walk read reaches to where it stopped (the caller's sp
	 * after the last return address read) and a little past. */
	if (n > 0) {
		uint64_t top = si->sp > tb[n - 1].sp ? si->sp : tb[n - 1].sp;

		if (top >= mem->sp && top - mem->sp + 64 > mem->hi)
			mem->hi = top - mem->sp + 64;
	}
	frames += *out;
	*out += n;
	for (i = 0; i < n; i++) {
		pcln_perf_frame *fr = &frames[i];
		uint64_t back = i > 0 || (flags & PCLNRT_TB_FIRST_RETADDR);

		/* Every field, no memset: a sample's frames are many. */
		fr->pc = tb[i].pc;
		fr->lookup = tb[i].pc - back;
		fr->where = PCLN_PERF_IN_TABLE;
		fr->func = tb[i].func;
		fr->name = NULL;
		fr->bias = tb[i].module->bias;
		fr->object = tb[i].module->name;
		fr->objoff = 0;
		/* Callers are mostly in the callee's mapping or the one
		 * before (a program and its libraries in turn). */
		if (m != NULL && fr->lookup - m->start >= m->end - m->start) {
			const pcln_mapping *t = m;

			m = m2;
			m2 = t;
		}
		if ((m != NULL && fr->lookup - m->start < m->end - m->start) ||
		    (m = pcln_aspace_find(pr->as, fr->lookup)) != NULL)
			fr->objoff = fr->lookup - m->start + m->offset;
	}
	/* (a walk from the sample's ip, in the state it began in) */
	if (version != 0 && flags == 0 && version ==
	    pcln_aspace_version(pr->as)) {
		int32_t cfa, fpsave;
		uint64_t fp1 = 0;
		int fpok1 = 0;

		first_step(s, version, tb, n, si, frames);
		if (n > 1) {
			step_rules(s, &tb[0], tb[0].pc, &cfa, &fpsave);
			fpok1 = caller_fp(mem, tb[1].sp, fp, fpsave, &fp1);
		}
		wmemo_put(s, version, tb, n, si, frames, mem, fp1, fpok1);
	}
}

size_t
pcln_perf_unwind(pcln_perf_space *s, const pcln_perf *p,
    const pcln_perf_event *ev, pcln_perf_frame *frames, size_t max,
    int *stop)
{
	pclnrt_stopinfo si;
	struct stackmem mem;
	struct proc *pr;
	const struct wmemo *e;
	uint64_t ip, sp, bp, ret, version;
	size_t out = 0;
	uint8_t word[8];

	*stop = PCLN_PERF_STOP_NOTHREAD;
	if (max == 0 || (pr = find_proc(s, ev->pid)) == NULL)
		return 0;
	if (ev->u.sample.regs != NULL &&
	    ev->u.sample.regs_mask != s->regmask) {
		static const unsigned want[3] = { PCLN_PERF_REG_X86_IP,
		    PCLN_PERF_REG_X86_SP, PCLN_PERF_REG_X86_BP };
		uint64_t m = ev->u.sample.regs_mask;
		size_t i;

		for (i = 0; i < 3; i++)
			s->regat[i] = m >> want[i] & 1 ?
			    __builtin_popcountll(m & ((UINT64_C(1) <<
			    want[i]) - 1)) : -1;
		s->regmask = m;
	}
	if (ev->u.sample.regs == NULL || s->regat[0] < 0 || s->regat[1] < 0) {
		*stop = PCLN_PERF_STOP_NOREGS;
		return 0;
	}
	ip = perf_u64(p, ev->u.sample.regs + 8 * s->regat[0]);
	sp = perf_u64(p, ev->u.sample.regs + 8 * s->regat[1]);
	bp = s->regat[2] >= 0 ? perf_u64(p, ev->u.sample.regs +
	    8 * s->regat[2]) : 0;
	mem.sp = sp;
	mem.data = ev->u.sample.stack;
	mem.len = ev->u.sample.stack != NULL ? ev->u.sample.stack_dyn : 0;
	mem.hi = 0;
	mem.ahead = s->reach / 8 + 256;
	/* A pc in a PLT entry is the entry's, even where a table covers the
	 * PLT too (a table made from .eh_frame has its FDE, nameless, whose
	 * CFA rule is an expression): named and stepped over below. */
	s->walked++;
	if (in_stub(pr, ip))
		si.reason = PCLNRT_STOP_UNKNOWN_PC;
	else {
		long k;

		/* (a trial again, a while after one that failed) */
		if (s->wquiet != 0 && s->walked - s->wquiet >= WMEMO_QUIET)
			s->wquiet = s->nput = s->whits = 0;
		/* (the state after in_stub's lookups) */
		version = s->wmoff || s->wquiet != 0 ? 0 :
		    pcln_aspace_version(pr->as);
		/* The first frame, then what is remembered from its
		 * caller on, or the walk again from the start. */
		if (version != 0 && s->wm != NULL && max > 1) {
			const struct fstep *st;
			uint64_t csp = 0, fp1 = 0;
			int fpok1 = 0;

			/* The first frame as before, and its step to the
			 * caller's pc, sp and frame pointer, as the walk
			 * takes it; else the whole walk. */
			if ((k = ftab_find(s, version, ip, ip)) >= 0 &&
			    (st = &s->fmeta[k].step)->ok &&
			    ((csp = st->cfa != 0 ? bp + (uint64_t)(int64_t)
			    st->cfa : sp + (uint64_t)st->d + 8) > sp) &&
			    mem_word(&mem, csp - 8 - sp, &si.pc) == 0) {
				frames[0] = s->ftab[k];
				out = 1;
				si.sp = csp;
				si.reason = si.pc == 0 ? PCLNRT_STOP_END :
				    PCLNRT_STOP_LIMIT;
				if (csp - sp + 64 > mem.hi)
					mem.hi = csp - sp + 64;
				fpok1 = caller_fp(&mem, csp, bp, st->fpsave,
				    &fp1);
			} else	/* (the whole walk, below) */
				si.reason = PCLNRT_STOP_LIMIT;
			if (si.reason == PCLNRT_STOP_LIMIT && out == 1 &&
			    pcln_aspace_version(pr->as) == version &&
			    (e = wmemo_find(s, si.pc, si.sp, fp1, fpok1,
			    version, &mem, (max < WALK_MAX ? max : WALK_MAX) -
			    1)) != NULL) {
				size_t i, j;

				/* (runs of frames kept one after the other, as
				 * the walk that made them put them: a copy
				 * each, 24 instructions a frame one by one) */
				for (i = 0; i < e->n; i = j) {
					for (j = i + 1; j < e->n &&
					    e->fi[j] == e->fi[j - 1] + 1; j++)
						;
					memcpy(&frames[1 + i],
					    &s->ftab[e->fi[i]],
					    (j - i) * sizeof *frames);
				}
				out += e->n;
				if (si.sp - sp + e->hi > mem.hi)
					mem.hi = si.sp - sp + e->hi;
				si.reason = e->stop;
				s->remembered++;
				s->whits++;
			} else if (si.reason == PCLNRT_STOP_LIMIT) {
				out = 0;
				walk(s, pr, &mem, ip, sp, bp, 0, frames, &out,
				    max, &si, version);
			}
		} else
			walk(s, pr, &mem, ip, sp, bp, 0, frames, &out, max,
			    &si, version);
	}
	if (mem.data != NULL && ev->raw != NULL && mem.data > ev->raw)
		pclni_perf_used(p, (size_t)(mem.data - ev->raw) +
		    (size_t)mem.hi);
	/* (a moving average over some 8 walks) */
	s->reach += mem.hi - s->reach / 8;
	if (out == 0 && si.reason == PCLNRT_STOP_UNKNOWN_PC) {
		classify(pr, ip, ip, &frames[0]);
		out = 1;
		/* A PLT entry jumps, pushing nothing: its caller's return
		 * address is on the top of the stack. */
		if (frames[0].where == PCLN_PERF_IN_STUB && out < max &&
		    read_stack(&mem, sp, word, 8) == 0) {
			ret = pclnrt_load64(word, 0);
			walk(s, pr, &mem, ret, sp + 8, bp,
			    PCLNRT_TB_FIRST_RETADDR, frames, &out, max, &si, 0);
		} else {
			*stop = si.reason;
			return out;
		}
	}
	*stop = si.reason;
	if (si.reason == PCLNRT_STOP_UNKNOWN_PC && out < max) {
		/* Name the frame the walk could not enter (a return
		 * address: looked up at pc - 1). */
		classify(pr, si.pc, si.pc - 1, &frames[out]);
		out++;
	}
	if (mem.len == 0 && si.reason == PCLNRT_STOP_READ)
		*stop = PCLN_PERF_STOP_NOSTACK;
	return out;
}

void
pcln_perf_space_counts(const pcln_perf_space *s, size_t *nobjects,
    size_t *nwithtable)
{
	pcln_objstore_counts(s->store, nobjects, nwithtable);
}
