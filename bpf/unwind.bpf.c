/* unwind.bpf.c -- a perf-event BPF program that unwinds the user stack
 * of the sampled thread without frame pointers: from the interrupted
 * pc and sp, each frame's function and stack-pointer delta come from
 * the pcln tables in the maps (runtime.bpf.h: code map, findfunc,
 * pcsp), the return address is read at sp + delta with
 * bpf_probe_read_user, and the caller's sp is above it.  Where the CFA
 * is not sp-based (alloca, a realigned stack: pcsp -1) the CFA-rule
 * pcdata give it from the frame pointer, tracked from rbp through the
 * frames that save it, as pclnrt_traceback does with PCLNRT_TB_FP.  At most
 * PCLN_BPF_FRAMES frames; each sample's pcs go to the ring buffer
 * "samples" (unwind.c symbolizes and counts them).
 */
#include "runtime.bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);
} samples SEC(".maps");

/* The x86-64 user registers, as struct pt_regs of the uapi (the
 * program's context starts with them); the BPF target does not see
 * the x86-64 definition. */
struct x86_regs {
	uint64_t r15, r14, r13, r12, bp, bx, r11, r10, r9, r8, ax, cx, dx, si,
	    di, orig_ax, ip, cs, flags, sp, ss;
};

struct walk {
	uint64_t pc, sp, fp;
	uint32_t retaddr;
	struct pcln_bpf_sample s;
};

/* One frame of W: record its pc, find its caller's pc and sp.  Returns
 * 1 (stop) at a pc without a table, without an sp delta, an unreadable
 * stack word, an outermost frame (pcsp PCLN_PCSP_OUTERMOST) or a return
 * address of 0. */
static long
frame(uint32_t i, void *ctx)
{
	struct walk *w = ctx;
	const pclnrt_module *m;
	pclnrt_func f;
	uint64_t look, link, ret, csp;
	int32_t d, cfarule, fpsave;

	(void)i;
	if (w->s.n >= PCLN_BPF_FRAMES)
		return 1;
	w->s.pc[w->s.n & (PCLN_BPF_FRAMES - 1)] = w->pc;
	w->s.n++;
	look = w->pc - (w->retaddr ? 1 : 0);
	w->s.stop = PCLN_BPF_STOP_UNKNOWN;
	if (pclnrt_cm_find_(0, look, &m) != PCLNRT_OK)
		return 1;
	link = look - m->bias;
	if (pclnrt_findfunc(&m->table, link, &f) != PCLNRT_OK)
		return 1;
	if (pclnrt_pcdata(&f, PCLN_PCDATA_CFA, link, &cfarule) != PCLNRT_OK)
		cfarule = 0;
	if (pclnrt_pcdata(&f, PCLN_PCDATA_FPSAVE, link, &fpsave) !=
	    PCLNRT_OK)
		fpsave = 0;
	if (pclnrt_pcsp(&f, link, &d) != PCLNRT_OK)
		d = PCLN_PCSP_UNKNOWN;
	/* The CFI says this frame has no caller (_start, a thread's first
	 * function): the end of the stack, as for pclnrt_traceback. */
	w->s.stop = PCLN_BPF_STOP_END;
	if (d == PCLN_PCSP_OUTERMOST)
		return 1;
	w->s.stop = PCLN_BPF_STOP_NOSP;
	if (cfarule == 0 && d < 0)
		return 1;
	w->s.stop = PCLN_BPF_STOP_READ;
	if (cfarule != 0) {
		/* CFA = fp + rule; the return address just below it. */
		csp = w->fp + (uint64_t)(int64_t)cfarule;
		if (bpf_probe_read_user(&ret, sizeof ret,
		    (const void *)(csp - 8)) != 0)
			return 1;
	} else {
		if (bpf_probe_read_user(&ret, sizeof ret,
		    (const void *)(w->sp + (uint64_t)(int64_t)d)) != 0)
			return 1;
		csp = w->sp + (uint64_t)(int64_t)d + 8;
	}
	/* The caller's frame pointer: where this frame saved it, else
	 * unchanged. */
	if (fpsave != 0 && bpf_probe_read_user(&w->fp, sizeof w->fp,
	    (const void *)(csp - (uint64_t)(int64_t)fpsave)) != 0)
		return 1;
	if (csp <= w->sp)
		return 1;	/* the wrong way */
	w->sp = csp;
	w->pc = ret;
	w->retaddr = 1;
	w->s.stop = PCLN_BPF_STOP_END;
	return ret == 0;
}

SEC("perf_event")
int
pcln_unwind(void *ctx)
{
	const struct x86_regs *r = ctx;
	struct pcln_bpf_sample *out;
	struct walk w;

	__builtin_memset(&w, 0, sizeof w);
	w.pc = r->ip;
	w.sp = r->sp;
	w.fp = r->bp;
	if (w.pc >= 0x800000000000ull)
		return 0;	/* the sample interrupted the kernel */
	bpf_loop(PCLN_BPF_FRAMES, frame, &w, 0);
	if ((out = bpf_ringbuf_reserve(&samples, sizeof *out, 0)) == 0)
		return 0;
	__builtin_memcpy(out, &w.s, sizeof *out);
	bpf_ringbuf_submit(out, 0);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
