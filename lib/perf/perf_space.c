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
};

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

/* The walk from PC, SP, FP (FLAGS: PCLNRT_TB_*) through PR's objects,
 * appended to FRAMES[*OUT..MAX); the stop in *SI. */
static void
walk(struct proc *pr, struct stackmem *mem, uint64_t pc, uint64_t sp,
    uint64_t fp, unsigned flags, pcln_perf_frame *frames, size_t *out,
    size_t max, pclnrt_stopinfo *si)
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
	 * at 5,300 of 8,200), the rest read as the walk gets there. */
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
}

size_t
pcln_perf_unwind(pcln_perf_space *s, const pcln_perf *p,
    const pcln_perf_event *ev, pcln_perf_frame *frames, size_t max,
    int *stop)
{
	pclnrt_stopinfo si;
	struct stackmem mem;
	struct proc *pr;
	uint64_t ip, sp, bp, ret;
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
	if (in_stub(pr, ip))
		si.reason = PCLNRT_STOP_UNKNOWN_PC;
	else
		walk(pr, &mem, ip, sp, bp, 0, frames, &out, max, &si);
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
			walk(pr, &mem, ret, sp + 8, bp,
			    PCLNRT_TB_FIRST_RETADDR, frames, &out, max, &si);
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
