/* pclnrt.bpf.c -- the runtime's lookups (runtime.bpf.h) answering a
 * batch of pcs: one program, of type BPF_PROG_TYPE_SYSCALL, run with
 * BPF_PROG_TEST_RUN, answers the pcs in map "pcs" into map "answers"
 * (check_bpf.c compares every answer with the C runtime's).
 */
#include "runtime.bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, PCLN_BPF_BATCH);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, __u64);
} pcs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, PCLN_BPF_BATCH);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct pcln_bpf_answer);
} answers SEC(".maps");

/* Look up one pc: the code map, then the module's table. */
static __noinline int
answer(__u64 pc, struct pcln_bpf_answer *a)
{
	const pclnrt_module *m;
	pclnrt_func f;
	pclnrt_str path;
	__s32 v, line;
	__u64 link;

	a->rc_func = pclnrt_cm_find_(0, pc, &m);
	if (a->rc_func != PCLNRT_OK)
		return 0;
	a->module = m->id;
	link = pc - m->bias;
	a->rc_func = pclnrt_findfunc(&m->table, link, &f);
	if (a->rc_func != PCLNRT_OK)
		return 0;
	a->entry = f.entry;
	a->end = f.end;
	a->name = f.name;
	a->index = f.index;
	a->rc_sp = pclnrt_pcsp(&f, link, &v);
	a->sp = a->rc_sp == PCLNRT_OK ? v : 0;
	a->rc_line = pclnrt_funcline(&f, link, &path, &line);
	a->line = line;
	a->file = path;
	return 0;
}

static long
one(__u32 i, void *ctx)
{
	struct pcln_bpf_answer *a = bpf_map_lookup_elem(&answers, &i);
	__u64 *pc = bpf_map_lookup_elem(&pcs, &i);
	struct pcln_bpf_args *args = ctx;

	if (a == 0 || pc == 0)
		return 1;
	__builtin_memset(a, 0, sizeof *a);
	answer(*pc, a);
	args->done = i + 1;
	return 0;
}

SEC("syscall")
int
pcln_lookup(struct pcln_bpf_args *ctx)
{
	struct pcln_bpf_args args = { 0, 0 };

	args.n = ctx->n;
	if (args.n > PCLN_BPF_BATCH)
		args.n = PCLN_BPF_BATCH;
	bpf_loop(args.n, one, &args, 0);
	ctx->done = args.done;
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
