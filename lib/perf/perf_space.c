/* perf_space.c -- processes as a perf.data file describes them, and the
 * walk of a sample's user stack copy.
 *
 * A process is its mappings (MMAP/MMAP2 records; a later mapping replaces
 * what it overlaps, as mmap does), inherited at FORK and dropped at an
 * exec (COMM with the exec flag).  Each file mapping names an object;
 * each object gets its table from the caller once.  The executable
 * mappings of objects with tables become the modules of the process's
 * pclnrt registry (run-time pc = link-time pc + bias, with bias = mapping
 * address - file offset - (p_vaddr - p_offset)), rebuilt when the
 * mappings change; the walk is the runtime's pclnrt_traceback over a
 * reader of the sample's stack copy, so the unwinding rules (pcsp, the
 * CFA and saved-frame-pointer pcdata) are the runtime's, not a second
 * set.
 *
 * This is the minimal address-space model the perf reader needs; the
 * whole-process model of lib/proc (issue 16) is to replace it, keeping
 * pcln_perf_table_fn and pcln_perf_unwind.
 */
#include <stdlib.h>
#include <string.h>

#include "perf_internal.h"

#define PROT_EXEC_	4u

struct object {
	char *path;
	uint8_t id[PCLN_PERF_BUILDID_MAX];
	size_t idlen;
	int has_table;
	const uint8_t *blob;
	size_t len;
	uint64_t vmo;			/* p_vaddr - p_offset */
	const pcln_perf_syms *stubs;	/* PLT entries, or NULL */
	pclnrt_table table;		/* for resolving outside a walk */
	struct object *hnext;
};

struct mapping {
	uint64_t start, end, pgoff;
	uint32_t prot;
	struct object *obj;		/* a special one (no table) for
					 * [vdso], [stack], //anon, ... */
	const char *name;		/* the object's path or name */
	int special;
};

struct proc {
	uint32_t pid;
	struct mapping *maps;
	size_t nmaps, capmaps;
	int dirty;			/* registry out of date */
	pclnrt_module *mods;
	unsigned char *regmem;		/* the registry's storage */
	size_t nmods;
	pclnrt_registry reg;
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
	struct object *objs[NBUCKET];
	struct proc *procs[NBUCKET];
	struct comm *comms[NBUCKET];
	struct comm *retired;		/* replaced names, kept */
	size_t nobjects, nwithtable;
	pclnrt_pccache cache;
};

static uint32_t
strhash(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s != '\0')
		h = (h ^ (uint8_t)*s++) * 16777619u;
	return h;
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
	pclnrt_pccache_init(&s->cache);
	return s;
}

static void
free_proc(struct proc *pr)
{
	free(pr->maps);
	free(pr->mods);
	free(pr->regmem);
	free(pr);
}

void
pcln_perf_space_free(pcln_perf_space *s)
{
	size_t i;

	if (s == NULL)
		return;
	for (i = 0; i < NBUCKET; i++) {
		struct object *o, *on;
		struct proc *pr, *pn;
		struct comm *c, *cn;

		for (o = s->objs[i]; o != NULL; o = on) {
			on = o->hnext;
			free(o->path);
			free(o);
		}
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

/* The object for PATH and build-id ID (IDLEN 0: none in the record; the
 * file's BUILD_ID feature is asked). */
static struct object *
get_object(pcln_perf_space *s, const pcln_perf *p, const char *path,
    const uint8_t *id, size_t idlen, int special)
{
	uint32_t h = strhash(path) % NBUCKET;
	struct object *o;
	pcln_perf_object q;
	size_t i;

	if (idlen == 0 && p != NULL && !special) {
		for (i = 0; i < p->info.nbuildid; i++)
			if (strcmp(p->buildids[i].filename, path) == 0) {
				id = p->buildids[i].id;
				idlen = p->buildids[i].len;
				break;
			}
	}
	for (o = s->objs[h]; o != NULL; o = o->hnext)
		if (strcmp(o->path, path) == 0 && o->idlen == idlen &&
		    (idlen == 0 || memcmp(o->id, id, idlen) == 0))
			return o;
	if ((o = calloc(1, sizeof *o)) == NULL)
		return NULL;
	if ((o->path = strdup(path)) == NULL) {
		free(o);
		return NULL;
	}
	if (idlen > 0)
		memcpy(o->id, id, idlen);
	o->idlen = idlen;
	q.path = o->path;
	q.build_id = idlen > 0 ? o->id : NULL;
	q.build_id_len = idlen;
	if (!special && s->table != NULL) {
		pcln_perf_table t;

		memset(&t, 0, sizeof t);
		if (s->table(s->arg, &q, &t) == 0) {
			o->vmo = t.vaddr_minus_offset;
			o->stubs = t.stubs;
			if (t.blob != NULL && pclnrt_init(&o->table, t.blob,
			    t.len) == PCLNRT_EINIT_OK) {
				o->blob = t.blob;
				o->len = t.len;
				o->has_table = 1;
				s->nwithtable++;
			}
		}
	}
	if (!special)
		s->nobjects++;
	o->hnext = s->objs[h];
	s->objs[h] = o;
	return o;
}

/* Remove [START, END) from PR's mappings (splitting one that holds it). */
static int
unmap(struct proc *pr, uint64_t start, uint64_t end)
{
	size_t i, j;

	for (i = 0; i < pr->nmaps; i++) {
		struct mapping *m = &pr->maps[i];

		if (m->end <= start || m->start >= end)
			continue;
		if (m->start < start && m->end > end) {
			struct mapping tail = *m;

			if (pclni_grow(&pr->maps, &pr->capmaps, pr->nmaps + 1,
			    sizeof *pr->maps) < 0)
				return -1;
			m = &pr->maps[i];
			tail.pgoff += end - tail.start;
			tail.start = end;
			m->end = start;
			memmove(&pr->maps[i + 2], &pr->maps[i + 1],
			    (pr->nmaps - i - 1) * sizeof *pr->maps);
			pr->maps[i + 1] = tail;
			pr->nmaps++;
			return 0;
		}
		if (m->start < start)
			m->end = start;
		else if (m->end > end) {
			m->pgoff += end - m->start;
			m->start = end;
		} else
			m->start = m->end;	/* removed below */
	}
	for (i = 0, j = 0; i < pr->nmaps; i++)
		if (pr->maps[i].start < pr->maps[i].end)
			pr->maps[j++] = pr->maps[i];
	pr->nmaps = j;
	return 0;
}

static int
add_mapping(pcln_perf_space *s, const pcln_perf *p, struct proc *pr,
    const pcln_perf_event *ev)
{
	const char *name = ev->u.mmap.filename;
	struct mapping m;
	size_t i;

	if (ev->u.mmap.len == 0 || ev->u.mmap.addr + ev->u.mmap.len <
	    ev->u.mmap.addr)
		return 0;
	memset(&m, 0, sizeof m);
	m.start = ev->u.mmap.addr;
	m.end = ev->u.mmap.addr + ev->u.mmap.len;
	m.pgoff = ev->u.mmap.pgoff;
	m.prot = ev->u.mmap.prot;
	m.special = name[0] != '/' || strncmp(name, "//anon", 6) == 0 ||
	    strncmp(name, "/memfd:", 7) == 0;
	m.obj = get_object(s, p, name, ev->u.mmap.build_id,
	    ev->u.mmap.build_id_len, m.special);
	if (m.obj == NULL)
		return -1;
	m.name = m.obj->path;
	if (unmap(pr, m.start, m.end) < 0 ||
	    pclni_grow(&pr->maps, &pr->capmaps, pr->nmaps + 1,
	    sizeof *pr->maps) < 0)
		return -1;
	for (i = pr->nmaps; i > 0 && pr->maps[i - 1].start > m.start; i--)
		;
	memmove(&pr->maps[i + 1], &pr->maps[i],
	    (pr->nmaps - i) * sizeof *pr->maps);
	pr->maps[i] = m;
	pr->nmaps++;
	pr->dirty = 1;
	return 0;
}

static int
fork_proc(pcln_perf_space *s, uint32_t pid, uint32_t ppid)
{
	struct proc *child, *parent;

	if (pid == ppid)
		return 0;		/* a new thread */
	if ((child = get_proc(s, pid)) == NULL)
		return -1;
	child->nmaps = 0;
	child->dirty = 1;
	if ((parent = find_proc(s, ppid)) == NULL || parent->nmaps == 0)
		return 0;
	if (pclni_grow(&child->maps, &child->capmaps, parent->nmaps,
	    sizeof *child->maps) < 0)
		return -1;
	memcpy(child->maps, parent->maps, parent->nmaps * sizeof
	    *parent->maps);
	child->nmaps = parent->nmaps;
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
		    add_mapping(s, p, pr, ev) < 0)
			rc = -1;
		break;
	case PCLN_PERF_RECORD_COMM:
		if (set_comm(s, ev->tid, ev->u.comm.comm) < 0)
			rc = -1;
		else if (ev->u.comm.exec && ev->pid == ev->tid &&
		    (pr = find_proc(s, ev->pid)) != NULL) {
			pr->nmaps = 0;
			pr->dirty = 1;
		}
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

static int register_maps(struct proc *pr);

/* Rebuild PR's registry from its executable mappings with tables.  The
 * code map's nodes: a few per module where modules meet, so 4 per module
 * first, then more (the bound is 14) if the registry says it is full. */
static int
rebuild(struct proc *pr)
{
	size_t i, n = 0, nnode, size;

	free(pr->mods);
	free(pr->regmem);
	pr->mods = NULL;
	pr->regmem = NULL;
	pr->nmods = 0;
	for (i = 0; i < pr->nmaps; i++)
		if (pr->maps[i].obj->has_table &&
		    (pr->maps[i].prot & PROT_EXEC_))
			n++;
	if (n > 0 && (pr->mods = calloc(n, sizeof *pr->mods)) == NULL)
		return -1;
	for (nnode = 4 * n + 16;; nnode *= 2) {
		if (nnode > 14 * n + 16)
			nnode = 14 * n + 16;
		size = PCLNRT_REGISTRY_SIZE(n, nnode, 0);
		free(pr->regmem);
		if ((pr->regmem = malloc(size)) == NULL)
			return -1;
		(void)pclnrt_registry_init(&pr->reg, pr->regmem, size, n, 0);
		if (register_maps(pr) == 0 || nnode == 14 * n + 16)
			break;
	}
	pr->dirty = 0;
	return 0;
}

/* Register PR's executable mappings with tables (a mapping over
 * another's range is left out, as before: the first wins).  Returns -1
 * if the registry was full. */
static int
register_maps(struct proc *pr)
{
	size_t i;

	pr->nmods = 0;
	for (i = 0; i < pr->nmaps; i++) {
		struct mapping *m = &pr->maps[i];
		uint64_t bias;

		if (!m->obj->has_table ||
		    !(m->prot & PROT_EXEC_))
			continue;
		bias = m->start - m->pgoff - m->obj->vmo;
		if (pclnrt_module_init(&pr->mods[pr->nmods], m->obj->blob,
		    m->obj->len, bias, m->obj->path) != PCLNRT_EINIT_OK)
			continue;
		switch (pclnrt_register(&pr->reg, &pr->mods[pr->nmods])) {
		case PCLNRT_OK:
			pr->nmods++;
			break;
		case PCLNRT_FULL:
			return -1;
		default:	/* PCLNRT_OVERLAP: already covered */
			break;
		}
	}
	return 0;
}

static const struct mapping *
find_mapping(const struct proc *pr, uint64_t pc)
{
	size_t lo = 0, hi = pr->nmaps;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (pr->maps[mid].start <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || pc >= pr->maps[lo - 1].end)
		return NULL;
	return &pr->maps[lo - 1];
}

/* Fill FR for PC (LOOK is the pc looked up) from PR's mappings. */
static void
classify(pcln_perf_space *s, struct proc *pr, uint64_t pc, uint64_t look,
    pcln_perf_frame *fr)
{
	const struct mapping *m = find_mapping(pr, look);
	const pclnrt_module *mod;

	(void)s;
	memset(fr, 0, sizeof *fr);
	fr->pc = pc;
	fr->lookup = look;
	if (m == NULL) {
		fr->where = PCLN_PERF_IN_UNMAPPED;
		return;
	}
	fr->object = m->name;
	fr->objoff = look - m->start + m->pgoff;
	if (m->special) {
		fr->where = PCLN_PERF_IN_ANON;
		return;
	}
	if (m->obj->stubs != NULL && (fr->name = pcln_perf_syms_find(
	    m->obj->stubs, look - (m->start - m->pgoff - m->obj->vmo), NULL,
	    NULL)) != NULL) {
		fr->where = PCLN_PERF_IN_STUB;
		return;
	}
	if (!m->obj->has_table) {
		fr->where = PCLN_PERF_IN_NOTABLE;
		return;
	}
	if (pr->dirty && rebuild(pr) < 0) {
		fr->where = PCLN_PERF_IN_NOTABLE;
		return;
	}
	if (pclnrt_registry_findfunc(&pr->reg, look, &mod, &fr->func) ==
	    PCLNRT_OK) {
		fr->where = PCLN_PERF_IN_TABLE;
		fr->bias = mod->bias;
	} else
		fr->where = PCLN_PERF_IN_NOFUNC;
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
	classify(s, pr, pc, retaddr ? pc - 1 : pc, frame);
	return 0;
}

/* The stack copy as the walk's memory: [SP, SP + LEN). */
struct stackmem {
	uint64_t sp;
	const uint8_t *data;
	uint64_t len;
};

static int
read_stack(void *arg, uint64_t addr, uint8_t *buf, size_t len)
{
	const struct stackmem *m = arg;

	if (addr < m->sp || addr - m->sp > m->len ||
	    m->len - (addr - m->sp) < len)
		return -1;
	memcpy(buf, m->data + (addr - m->sp), len);
	return 0;
}

#define WALK_MAX	256

/* The runtime's walk from PC, SP, FP (FLAGS: PCLNRT_TB_*), appended to
 * FRAMES[*OUT..MAX); the stop in *SI. */
static void
walk(pcln_perf_space *s, struct proc *pr, struct stackmem *mem,
    uint64_t pc, uint64_t sp, uint64_t fp, unsigned flags,
    pcln_perf_frame *frames, size_t *out, size_t max, pclnrt_stopinfo *si)
{
	pclnrt_frame tb[WALK_MAX];
	pclnrt_walk w;
	size_t n, i, room = max - *out;

	memset(&w, 0, sizeof w);
	w.modules = &pr->reg;
	w.ptrsize = 8;
	w.conv = PCLNRT_CONV_STACK;
	w.flags = PCLNRT_TB_FP | flags;
	w.read = read_stack;
	w.read_arg = mem;
	w.pc = pc;
	w.sp = sp;
	w.fp = fp;
	w.cache = &s->cache;
	n = pclnrt_traceback(&w, tb, room < WALK_MAX ? room : WALK_MAX, si);
	for (i = 0; i < n; i++) {
		pcln_perf_frame *fr = &frames[(*out)++];
		const struct mapping *m;
		int ret = i > 0 || (flags & PCLNRT_TB_FIRST_RETADDR);

		memset(fr, 0, sizeof *fr);
		fr->pc = tb[i].pc;
		fr->lookup = ret ? tb[i].pc - 1 : tb[i].pc;
		fr->where = PCLN_PERF_IN_TABLE;
		fr->func = tb[i].func;
		fr->bias = tb[i].module->bias;
		fr->object = tb[i].module->name;
		if ((m = find_mapping(pr, fr->lookup)) != NULL)
			fr->objoff = fr->lookup - m->start + m->pgoff;
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
	if (pcln_perf_reg(p, ev, PCLN_PERF_REG_X86_IP, &ip) < 0 ||
	    pcln_perf_reg(p, ev, PCLN_PERF_REG_X86_SP, &sp) < 0) {
		*stop = PCLN_PERF_STOP_NOREGS;
		return 0;
	}
	if (pcln_perf_reg(p, ev, PCLN_PERF_REG_X86_BP, &bp) < 0)
		bp = 0;
	if (pr->dirty && rebuild(pr) < 0)
		return 0;
	mem.sp = sp;
	mem.data = ev->u.sample.stack;
	mem.len = ev->u.sample.stack != NULL ? ev->u.sample.stack_dyn : 0;
	walk(s, pr, &mem, ip, sp, bp, 0, frames, &out, max, &si);
	if (out == 0 && si.reason == PCLNRT_STOP_UNKNOWN_PC) {
		classify(s, pr, ip, ip, &frames[0]);
		out = 1;
		/* A PLT entry jumps, pushing nothing: its caller's return
		 * address is on the top of the stack. */
		if (frames[0].where == PCLN_PERF_IN_STUB && out < max &&
		    read_stack(&mem, sp, word, 8) == 0) {
			ret = pclnrt_load64(word, 0);
			walk(s, pr, &mem, ret, sp + 8, bp,
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
		classify(s, pr, si.pc, si.pc - 1, &frames[out]);
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
	*nobjects = s->nobjects;
	*nwithtable = s->nwithtable;
}
