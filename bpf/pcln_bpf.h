/* pcln_bpf.h -- what the BPF programs (pclnrt.bpf.c, unwind.bpf.c) and
 * their loaders (check_bpf.c, unwind.c) share: the blob store's
 * geometry, the maps' value types, the answer and sample records.  Plain
 * C, for both -target bpf and the host. */
#ifndef PCLN_BPF_H
#define PCLN_BPF_H

/* The blob store: blobs of every module one after another (8-aligned,
 * from offset PCLN_BPF_BASE), in array-map elements of 2^CHUNK_SHIFT
 * bytes, each holding PCLN_BPF_PAD more bytes (a copy of the next
 * element's first bytes): any load of at most 8 bytes at a position
 * reads one element. */
#define PCLN_BPF_CHUNK_SHIFT	16
#define PCLN_BPF_CHUNK		(1u << PCLN_BPF_CHUNK_SHIFT)
#define PCLN_BPF_PAD		8u
#define PCLN_BPF_BASE		64u
/* pcs per BPF_PROG_TEST_RUN. */
#define PCLN_BPF_BATCH		65536u

struct pcln_bpf_chunk {
	unsigned char b[PCLN_BPF_CHUNK + PCLN_BPF_PAD];
};

struct pcln_bpf_root {
	unsigned int slot[16];		/* pclnrt_registry.root */
};

/* A code map node: pclnrt_cmnode without _Atomic (which BTF cannot
 * describe). */
struct pcln_bpf_node {
	unsigned int slot[256];		/* PCLNRT_CM_FANOUT */
};

struct pcln_bpf_args {
	unsigned int n;			/* pcs in the batch */
	unsigned int done;		/* written back: pcs answered */
};

/* The answer for one run-time pc: the code map's module, the function
 * (link-time fields, its name's position in the store), the pcsp value
 * and funcline's file (position) and line, each with its status. */
struct pcln_bpf_answer {
	int rc_func;
	unsigned int module;		/* module number in the code map */
	unsigned long long entry, end;
	unsigned long long name;	/* store position, 0: none */
	unsigned int index;
	int rc_sp, sp;
	int rc_line, line;
	unsigned int pad_;
	unsigned long long file;	/* store position, 0: none */
};

/* A stack sampled by unwind.bpf.c: N run-time pcs, innermost first
 * (every one but the first a return address), and why the walk ended. */
#define PCLN_BPF_FRAMES		32
#define PCLN_BPF_STOP_END	0	/* return address 0, an outermost
					 * frame (pcsp -2), or FRAMES */
#define PCLN_BPF_STOP_UNKNOWN	1	/* a pc without a table */
#define PCLN_BPF_STOP_NOSP	2	/* no stack-pointer delta */
#define PCLN_BPF_STOP_READ	3	/* the stack word unreadable */

struct pcln_bpf_sample {
	unsigned int n, stop;
	unsigned long long pc[PCLN_BPF_FRAMES];
};

#endif /* PCLN_BPF_H */
