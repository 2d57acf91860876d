/* pcln_perf.h -- read the perf.data files that Linux perf writes
 * (perf record), and unwind and symbolize their samples with pcln tables.
 *
 * Three layers, each usable alone:
 *
 *  1. The reader (perf_header.c, perf_record.c): the file header, the
 *     event attributes, the feature sections (build-ids, host, command
 *     line, event names) and the records of the data section: MMAP and
 *     MMAP2 (with build-ids), COMM, FORK, EXIT, LOST, LOST_SAMPLES and
 *     SAMPLE (ip, pid/tid, time, cpu, period, call chain, user registers,
 *     the user stack copy).  The layout is perf's own documentation
 *     (tools/perf/Documentation/perf.data-file-format.txt) and the
 *     kernel's <linux/perf_event.h>.  Every read is bounded by the file;
 *     every error names the byte offset in the file and what was
 *     expected there.
 *  2. Text symbol tables (perf_syms.c): /proc/kallsyms for kernel frames
 *     and perf map files (/tmp/perf-PID.map, "START SIZE NAME" in hex) for
 *     JIT code.
 *  3. Address spaces and the unwinder (perf_space.c, on lib/proc's
 *     pcln_aspace): a process's mappings as MMAP/MMAP2 records and
 *     FORK/EXIT/COMM give them, each file mapping with a pcln table and
 *     its load bias, and a walk of a sample's user stack copy with the
 *     runtime's traceback (pclnrt_traceback: pcsp and the CFA rules)
 *     from the sample's registers.  Tables come from the caller (a callback), so this layer
 *     does not know whether they were read from a .pcln section, a cache
 *     keyed by build-id or imported from DWARF.
 *
 * This is an importer of a foreign format (doc/DESIGN.md): the input is
 * untrusted, fuzz/fuzz_perf.c runs the reader on arbitrary bytes.
 *
 * Memory: handles allocate with malloc and are freed by their _close or
 * _free call.  pcln_perf_open does not copy the file: the caller's buffer
 * must outlive the handle, and records and strings point into it.
 * pcln_perf_open_fd reads a file's records a chunk at a time (a profile
 * of 537 MB in 16 MB of memory), with PCLN_PERF_READAHEAD in a thread of
 * its own.  Not async-signal-safe; one thread at a time per handle.
 *
 * Errors: -1 (or NULL) with an optional pcln_err: PCLN_EMAGIC (not a
 * perf.data file), PCLN_EHEADER (a header field that cannot be right),
 * PCLN_ETRUNC (the file ends inside a structure), PCLN_EUNSUPPORTED (a
 * perf.data variant not read: the other byte order's ABI for registers),
 * PCLN_ENOMEM.  A pipe-mode stream (perf record -o -) is read from a
 * buffer as a file is: its attributes, their names and its features are
 * in the records before its first kernel record.  ERR->offset is the byte offset in the file.
 */
#ifndef PCLN_PERF_H
#define PCLN_PERF_H

#include <stddef.h>
#include <stdint.h>

#include "pcln.h"
#include "pclnrt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* --- the reader ------------------------------------------------------- */

/* Record types (perf_event_type and perf's own user records). */
#define PCLN_PERF_RECORD_MMAP		1
#define PCLN_PERF_RECORD_LOST		2
#define PCLN_PERF_RECORD_COMM		3
#define PCLN_PERF_RECORD_EXIT		4
#define PCLN_PERF_RECORD_THROTTLE	5
#define PCLN_PERF_RECORD_UNTHROTTLE	6
#define PCLN_PERF_RECORD_FORK		7
#define PCLN_PERF_RECORD_READ		8
#define PCLN_PERF_RECORD_SAMPLE		9
#define PCLN_PERF_RECORD_MMAP2		10
#define PCLN_PERF_RECORD_LOST_SAMPLES	13
#define PCLN_PERF_RECORD_USER_FIRST	64	/* perf's own, no sample_id */
#define PCLN_PERF_RECORD_HEADER_ATTR	64	/* pipe mode: an attribute */
#define PCLN_PERF_RECORD_HEADER_TRACING_DATA	66	/* pipe mode: followed
							 * by tracing data */
#define PCLN_PERF_RECORD_EVENT_UPDATE	78	/* pipe mode: its name */
#define PCLN_PERF_RECORD_HEADER_FEATURE	80	/* pipe mode: a feature */
#define PCLN_PERF_RECORD_AUXTRACE	71	/* followed by its payload */
#define PCLN_PERF_RECORD_FINISHED_ROUND	68
#define PCLN_PERF_RECORD_COMPRESSED	81

/* perf_event_attr.sample_type bits. */
#define PCLN_PERF_SAMPLE_IP		(1u << 0)
#define PCLN_PERF_SAMPLE_TID		(1u << 1)
#define PCLN_PERF_SAMPLE_TIME		(1u << 2)
#define PCLN_PERF_SAMPLE_ADDR		(1u << 3)
#define PCLN_PERF_SAMPLE_READ		(1u << 4)
#define PCLN_PERF_SAMPLE_CALLCHAIN	(1u << 5)
#define PCLN_PERF_SAMPLE_ID		(1u << 6)
#define PCLN_PERF_SAMPLE_CPU		(1u << 7)
#define PCLN_PERF_SAMPLE_PERIOD		(1u << 8)
#define PCLN_PERF_SAMPLE_STREAM_ID	(1u << 9)
#define PCLN_PERF_SAMPLE_RAW		(1u << 10)
#define PCLN_PERF_SAMPLE_BRANCH_STACK	(1u << 11)
#define PCLN_PERF_SAMPLE_REGS_USER	(1u << 12)
#define PCLN_PERF_SAMPLE_STACK_USER	(1u << 13)
#define PCLN_PERF_SAMPLE_WEIGHT		(1u << 14)
#define PCLN_PERF_SAMPLE_DATA_SRC	(1u << 15)
#define PCLN_PERF_SAMPLE_IDENTIFIER	(1u << 16)
#define PCLN_PERF_SAMPLE_TRANSACTION	(1u << 17)
#define PCLN_PERF_SAMPLE_REGS_INTR	(1u << 18)
#define PCLN_PERF_SAMPLE_PHYS_ADDR	(1u << 19)
#define PCLN_PERF_SAMPLE_AUX		(1u << 20)
#define PCLN_PERF_SAMPLE_CGROUP		(1u << 21)
#define PCLN_PERF_SAMPLE_DATA_PAGE_SIZE	(1u << 22)
#define PCLN_PERF_SAMPLE_CODE_PAGE_SIZE	(1u << 23)
#define PCLN_PERF_SAMPLE_WEIGHT_STRUCT	(1u << 24)
#define PCLN_PERF_SAMPLE_KNOWN		((1u << 25) - 1)

/* header.misc: the cpu mode of a sample, and record flags. */
#define PCLN_PERF_MISC_CPUMODE_MASK	7u
#define PCLN_PERF_MISC_KERNEL		1u
#define PCLN_PERF_MISC_USER		2u
#define PCLN_PERF_MISC_HYPERVISOR	3u
#define PCLN_PERF_MISC_GUEST_KERNEL	4u
#define PCLN_PERF_MISC_GUEST_USER	5u
#define PCLN_PERF_MISC_COMM_EXEC	(1u << 13)
#define PCLN_PERF_MISC_MMAP_BUILD_ID	(1u << 14)

/* Call-chain context markers (an entry >= PCLN_PERF_CONTEXT_MAX). */
#define PCLN_PERF_CONTEXT_HV		((uint64_t)-32)
#define PCLN_PERF_CONTEXT_KERNEL	((uint64_t)-128)
#define PCLN_PERF_CONTEXT_USER		((uint64_t)-512)
#define PCLN_PERF_CONTEXT_GUEST		((uint64_t)-2048)
#define PCLN_PERF_CONTEXT_MAX		((uint64_t)-4095)

/* x86-64 user register numbers (perf_regs.h: perf_event_x86_regs). */
#define PCLN_PERF_REG_X86_BP		6
#define PCLN_PERF_REG_X86_SP		7
#define PCLN_PERF_REG_X86_IP		8
#define PCLN_PERF_REGS_ABI_64		2

#define PCLN_PERF_BUILDID_MAX		20

/* One event attribute (perf_event_attr and its sample ids). */
typedef struct pcln_perf_attr {
	uint32_t type;			/* PERF_TYPE_* */
	uint32_t size;			/* the attr's size in the file */
	uint64_t config;
	uint64_t sample_period;		/* or frequency, if FREQ */
	uint64_t sample_type;		/* PCLN_PERF_SAMPLE_* */
	uint64_t read_format;
	uint64_t flags;			/* the bit field word */
	int freq, sample_id_all, exclude_callchain_user;
	uint64_t branch_sample_type;
	uint64_t sample_regs_user;
	uint32_t sample_stack_user;
	uint64_t sample_regs_intr;
	const char *name;		/* from the EVENT_DESC feature, or
					 * NULL */
	size_t nids;
	const uint64_t *ids;		/* sample ids of this attribute */
	int64_t offset;			/* the attr's byte offset */
} pcln_perf_attr;

/* A build-id the file records for an object (the BUILD_ID feature). */
typedef struct pcln_perf_buildid {
	int32_t pid;			/* -1: the kernel */
	uint16_t misc;			/* its cpu mode */
	uint8_t id[PCLN_PERF_BUILDID_MAX];
	size_t len;
	const char *filename;		/* in the file, NUL-terminated */
} pcln_perf_buildid;

/* What the header says. */
typedef struct pcln_perf_info {
	int big;			/* the file's byte order */
	uint64_t header_size, attr_size;
	uint64_t data_offset, data_size;	/* as the header says */
	uint64_t data_end;		/* where reading stops: the data's
					 * end, or the file's if it ends
					 * first */
	int truncated;			/* the file ends inside the data
					 * section */
	uint64_t features[4];		/* adds_features bitmap (bit
					 * PCLN_PERF_FEAT_COMPRESSED: perf
					 * record -z) */
	const char *hostname, *osrelease, *version, *arch, *cmdline;
	size_t nattr, nbuildid;
	int pipe;			/* a pipe-mode stream (perf record -o
					 * -): header_size 16, the attributes
					 * and features in its first records */
} pcln_perf_info;

/* The feature bit (pcln_perf_info's FEATURES) perf record -z sets: the
 * records are in COMPRESSED records (perf's HEADER_COMPRESSED). */
#define PCLN_PERF_FEAT_COMPRESSED	27

typedef struct pcln_perf pcln_perf;

/* Open flags. */
/* Deliver records sorted by time (stable: records with equal times, or
 * without a time, keep file order), as perf script and perf report do
 * (perf writes one buffer per cpu, so an MMAP may come after a sample
 * that needs it).  As they do, a round at a time: at the end of each
 * PERF_RECORD_FINISHED_ROUND's round, the records no newer than the
 * newest before the round's start go out (perf record writes no record
 * older than that after it); a file without rounds is read whole first.
 * A damaged record's framing ends the walk there: the records before it
 * go out, then the error. */
#define PCLN_PERF_ORDERED	0x1
/* pcln_perf_open_fd only: a second thread reads the chunks of records
 * ahead of the walk (four at most), so that the kernel's copy of them,
 * a third of what a --call-graph dwarf sample costs the walk, is done
 * on another core.  Where they are copied (not in the mapping) and the
 * file holds no perf record -z stream, it copies the data section in
 * pieces at fixed places (a chunk's size and 64 KiB more each), and the
 * walk, where the next is not there yet, copies one itself rather than
 * wait: two threads copy the page cache faster than one.  And it
 * decompresses perf record -z's COMPRESSED
 * records (32 at most, 2 MiB of records at most, ahead of the walk), which cost the walk more
 * than the rest of its work (117 M of 166 M instructions on a profile
 * of 8,000 samples).  It is started at the first record and joined by
 * pcln_perf_close; the handle is still used by one thread at a time.
 * Where a thread cannot be started the walk reads alone. */
#define PCLN_PERF_READAHEAD	0x2
/* pcln_perf_open_fd only: the data section's records may be read in
 * the handle's mapping of the file, brought in a chunk at a time (a
 * byte read in each 64 KiB, the kernel's fault-around mapping the pages
 * between; by the reader thread with PCLN_PERF_READAHEAD), instead of
 * copied into buffers, where that is faster: the first chunks are
 * mapped and timed, and a part of each copied and timed too, and the
 * faster way reads the rest.  Copying costs some 0.1 ms a MiB
 * everywhere; a mapping's page tables cost from a twentieth of that to
 * three times it, with the hypervisor.  The caller takes a risk the copy does not have: a file
 * that shrinks while the handle reads it (another process truncates
 * it) makes the records already mapped past its new end raise SIGBUS
 * where they are read; the caller that sets this flag handles SIGBUS
 * (pclndump reports it and exits 1).  A shrink seen when a chunk is
 * mapped (the file's size is looked at before its pages are read) is
 * the error a copy gives (PCLN_ETRUNC). */
#define PCLN_PERF_MAPREAD	0x4
/* pcln_perf_open_fd with PCLN_PERF_READAHEAD only: where the calling
 * thread may run on more than one CPU, the reader thread is started on
 * the CPUs other than the one the walk is on then, and the walk's
 * thread is kept on that one (sched_setaffinity) until the reader has
 * ended: at the walk's first record after that, or at the close, the
 * thread has its own affinity back (where the close is called by the
 * thread that read; a handle read by one thread and closed by another
 * leaves the reading thread on its CPU).  On a guest whose scheduler
 * packs threads onto few vCPUs the two threads otherwise took turns on
 * one CPU in two runs of three while the other idled (the walk waits
 * for perf record -z's records, which only the reader decompresses:
 * 21.6 against 16.3 ms, medians of 21). */
#define PCLN_PERF_PIN	0x8

/* Open the perf.data image BUF[0..LEN) (BUF must outlive the handle):
 * check the header, read the attributes and the feature sections.  A
 * damaged feature section is skipped (its name in *WARN, below); a
 * header or attribute that cannot be read fails the open.  Returns the
 * handle, or NULL and ERR. */
pcln_perf *pcln_perf_open(const uint8_t *buf, size_t len, unsigned flags,
    pcln_err *err);
/* Open the perf.data file FD (a regular file, open for reading; the
 * handle reads it until its close, which does not close FD) as
 * pcln_perf_open opens a buffer, reading it another way: the header,
 * attributes and feature sections through a mapping of the file that is
 * not populated (the handle's, unmapped at the close), the data
 * section's records with pread, a chunk of whole records (1 MiB) at a
 * time, into buffers used again once their records went out; or, with
 * PCLN_PERF_MAPREAD where that is faster, in the mapping, brought in a
 * chunk at a time and its entries dropped once the chunk's records went
 * out.  A profile's 8 KiB stack copies read through a mapping cost a
 * TLB miss and a page-table entry a page on some guests, four times the
 * kernel's copy into a buffer that stays in the caches; on others, a
 * twentieth of it (perf_file.c).  The
 * records' pointers (pcln_perf_next) are then valid until the next
 * call, as for the records of perf record -z; strings of the header
 * (build-ids' file names, the host) until the close.  A pipe-mode
 * stream saved in a file is read through the mapping.  Returns the
 * handle, or NULL and ERR (PCLN_EIO: FD cannot be read or mapped;
 * PCLN_EINVAL: not a regular file; and pcln_perf_open's). */
pcln_perf *pcln_perf_open_fd(int fd, unsigned flags, pcln_err *err);
void pcln_perf_close(pcln_perf *p);
/* The bytes pcln_perf_open_fd's handle read so far, with pread or in
 * the mapping (0 for pcln_perf_open's); the reader thread's pieces
 * (PCLN_PERF_READAHEAD) count whole, the 64 KiB each shares with the
 * next too. */
uint64_t pcln_perf_bytes_read(const pcln_perf *p);
/* What the reader thread (PCLN_PERF_READAHEAD) did so far: the data
 * section's pieces the walk took (PIECES; PIECES_BY_WALK of them it
 * copied itself, where it would have waited), perf record -z's records
 * decompressed and taken by the walk (UNITS), and the CPU the walk was
 * kept on (PCLN_PERF_PIN; -1 if it was not).  How the copying fell
 * between the two threads and which CPU is the scheduler's, from run
 * to run. */
typedef struct pcln_perf_reader {
	uint64_t pieces, pieces_by_walk;
	uint64_t units;
	int pinned_cpu;
} pcln_perf_reader;
/* 1 and *R where the handle's reader thread ran, 0 otherwise (no
 * PCLN_PERF_READAHEAD, a buffer's handle, one CPU's pcln_perf_open_fd
 * before its first record, or a thread that could not start). */
int pcln_perf_reader_stats(const pcln_perf *p, pcln_perf_reader *r);

const pcln_perf_info *pcln_perf_get_info(const pcln_perf *p);
/* The I-th attribute (0 <= I < nattr), or NULL. */
const pcln_perf_attr *pcln_perf_get_attr(const pcln_perf *p, size_t i);
/* The I-th build-id (0 <= I < nbuildid), or NULL. */
const pcln_perf_buildid *pcln_perf_get_buildid(const pcln_perf *p,
    size_t i);
/* Warnings of the open (feature sections skipped), "" if none. */
const char *pcln_perf_warnings(const pcln_perf *p);

/* One record.  Pointers point into the caller's buffer. */
typedef struct pcln_perf_event {
	uint32_t type;			/* PCLN_PERF_RECORD_* */
	uint16_t misc, size;
	uint64_t offset;		/* the record's byte offset */
	const uint8_t *raw;		/* its SIZE bytes */
	const pcln_perf_attr *attr;	/* its attribute (kernel records) */
	/* A record whose framing is sound but whose fields are not (a
	 * string without its NUL, a field past the record's end): BAD is
	 * set, BADMSG says what and where (valid until the next call), and
	 * only the common fields are filled. */
	int bad;
	const char *badmsg;
	/* From the sample, or the sample_id trailer of other kernel
	 * records when sample_id_all is set: */
	int has_tid, has_time, has_cpu;
	uint32_t pid, tid, cpu;
	uint64_t time, id;
	union {
		struct {		/* MMAP, MMAP2 */
			uint64_t addr, len, pgoff;
			uint32_t maj, min, prot, flags;
			uint64_t ino;
			const uint8_t *build_id;	/* MMAP2 with a
							 * build-id, else
							 * NULL */
			size_t build_id_len;
			const char *filename;
		} mmap;
		struct {		/* COMM */
			const char *comm;
			int exec;
		} comm;
		struct {		/* FORK, EXIT */
			uint32_t ppid, ptid;
			uint64_t time;
		} fork;
		struct {		/* LOST, LOST_SAMPLES */
			uint64_t id, lost;
		} lost;
		struct {		/* SAMPLE */
			uint64_t ip, addr, period;
			uint64_t nr;	/* call chain entries */
			const uint8_t *callchain;
			uint64_t regs_abi, regs_mask;
			const uint8_t *regs;	/* popcount(mask) words */
			uint64_t stack_size, stack_dyn;
			const uint8_t *stack;	/* the user stack copy: its
						 * first STACK_DYN bytes
						 * are valid */
			const uint8_t *raw;	/* PERF_SAMPLE_RAW (a
						 * tracepoint's fields), or
						 * NULL */
			uint32_t raw_size;
		} sample;
	} u;
} pcln_perf_event;

/* The next record into *EV: 1, or 0 at the end of the data, or -1 and
 * ERR (the record at ERR->offset is damaged: its size, or a field that
 * does not fit it).  After -1 the handle stays at the damaged record.
 * A record type that is not read (AUX, BPF events, ...) is still
 * returned, with only the common fields. */
int pcln_perf_next(pcln_perf *p, pcln_perf_event *ev, pcln_err *err);

/* A second handle on FIRST's file (FIRST from pcln_perf_open_fd, on a
 * regular file, before or after its first record), reading in FIRST's
 * mapping: with PCLN_PERF_MAPREAD, the pages either handle asked for
 * are there for both, where two handles of pcln_perf_open_fd would
 * populate (and drop) the same pages twice; each chunk is populated
 * once, by the first of the two to frame the chunk before it (or to get
 * to it).  FLAGS: PCLN_PERF_ORDERED, PCLN_PERF_MAPREAD (read in the
 * mapping unless FIRST found copying faster); no reader thread (FIRST's
 * populates ahead; FIRST's own reader thread, of PCLN_PERF_READAHEAD,
 * is given up where it has not started).  A twin is worth having where
 * the mapping is the faster way (pcln_perf_probe_read): two handles
 * copying the chunks would each copy every one.  The two drop the mapping's pages behind them
 * (PCLN_PERF_MAPREAD) 8 MiB later than one handle alone, for the
 * other's records, each every other region of 8 MiB; a twin much
 * further behind takes the pages again from the page cache.  FIRST outlives the twin; each is
 * used by one thread at a time, the two by two threads at once (for
 * pcln_perf_share).  NULL and ERR (PCLN_EINVAL: FIRST is no such
 * handle). */
pcln_perf *pcln_perf_open_twin(pcln_perf *first, unsigned flags,
    pcln_err *err);

/* For P of pcln_perf_open_fd with PCLN_PERF_MAPREAD, before its first
 * record: find now which way reads its records faster, the mapping or
 * a copy, on four pieces of 64 KiB at the data section's start (each
 * brought in in the mapping and timed, then copied and timed), rather
 * than while the first chunks are read.  The pieces mapped stay so for
 * the records.  1: the records will be
 * read in the mapping; 0: copied (or not decided: the data section is
 * too short to time, P reads no file, or P already read records; the
 * reads then go on deciding as they would).  On the guest of
 * doc/PERFORMANCE.md's 2026-12-07 (afternoon) figures the mapping cost
 * 260 us a MiB and a copy 76 to 150: a caller that made twins there
 * without asking took four times as long. */
int pcln_perf_probe_read(pcln_perf *p);

/* Have P return only a share of the samples, for walks of one profile in
 * several threads, each with its own handle: of the samples in the order
 * pcln_perf_next goes through them (all of them, this handle's or not),
 * in blocks of BLOCK, the blocks PART, PART + NPARTS, PART + 2 NPARTS,
 * ...  The others are not parsed (with PCLN_PERF_ORDERED, not read at
 * all: their pages are left to the handle whose they are); the records
 * that are not samples all go out.  Each handle of NPARTS thus returns
 * the same records but for the samples, and sample N (from 0) is the
 * share (N / BLOCK) % NPARTS's.  Before the first record: 0; else (or
 * NPARTS 0, PART >= NPARTS, BLOCK 0) -1.  NPARTS 1 is every sample. */
int pcln_perf_share(pcln_perf *p, unsigned part, unsigned nparts,
    unsigned block);
/* The samples pcln_perf_next went through so far, returned or not. */
uint64_t pcln_perf_samples_met(const pcln_perf *p);

/* Call-chain entry I (< EV->u.sample.nr) of a sample. */
uint64_t pcln_perf_callchain(const pcln_perf *p, const pcln_perf_event *ev,
    size_t i);
/* User register REG (PCLN_PERF_REG_*) of a sample into *V: 0, or -1 if
 * the sample has no such register. */
int pcln_perf_reg(const pcln_perf *p, const pcln_perf_event *ev,
    unsigned reg, uint64_t *v);
/* The name of record type TYPE ("MMAP2"), or NULL. */
const char *pcln_perf_record_name(uint32_t type);
/* The profile's tracing data (the tracepoints' formats: perf's
 * HEADER_TRACING_DATA feature section, or a pipe's HEADER_TRACING_DATA
 * record's payload) in *DATA[0..*LEN): 1, or 0 if it has none.  Its
 * layout is perf's (tools/perf/util/trace-event-read.c), not read
 * here. */
int pcln_perf_tracing_data(const pcln_perf *p, const uint8_t **data,
    size_t *len);

/* perf record -z: each PERF_RECORD_COMPRESSED is returned, then the
 * records it holds (decompressed with libzstd; their OFFSET is the
 * COMPRESSED record's, their pointers valid until the next call).  The
 * count of records read from them so far: 0 for a library built without
 * libzstd, which returns COMPRESSED records only. */
uint64_t pcln_perf_decompressed(const pcln_perf *p);
/* 1 if this library reads perf record -z's records (built with libzstd),
 * else 0. */
int pcln_perf_zstd(void);

/* --- text symbol tables: kallsyms, perf map files --------------------- */

typedef struct pcln_perf_syms pcln_perf_syms;

/* Parse /proc/kallsyms-formatted TEXT[0..LEN) ("ADDR TYPE NAME
 * [MODULE]" lines; only text symbols, types t/T/w/W): each symbol runs to
 * the next one's address.  Parse a perf map file ("START SIZE NAME", hex
 * numbers, NAME to the end of the line) with pcln_perf_syms_map.  Bad
 * lines are skipped and counted.  The text is copied.  NULL and ERR on no
 * memory. */
pcln_perf_syms *pcln_perf_syms_kallsyms(const char *text, size_t len,
    pcln_err *err);
pcln_perf_syms *pcln_perf_syms_map(const char *text, size_t len,
    pcln_err *err);
void pcln_perf_syms_free(pcln_perf_syms *s);
/* The PLT entries of the x86-64 ELF image BUF[0..LEN) as sized symbols,
 * named as perf names them ("memcmp@plt"; "@plt" for an IFUNC's
 * R_X86_64_IRELATIVE entry); NULL (PCLN_ENOTFOUND) if it has none or is
 * not x86-64 ELF.  The names are copied. */
pcln_perf_syms *pcln_perf_syms_plt(const uint8_t *buf, size_t len,
    pcln_err *err);
/* The same table, read when needed: now only the PLT's place (the
 * section headers); an entry's name at the first pcln_perf_syms_find in
 * it, from its own relocation and symbol (a profile names a few PLT
 * entries, and naming all of a library's reads pages of relocations and
 * symbols, each a page fault where BUF is mapped); all of them at
 * pcln_perf_syms_count.  BUF[0..LEN) must stay as it is until the table
 * is freed.  NULL (PCLN_ENOTFOUND) if it has no x86-64 PLT; a PLT none of
 * whose entries can be named gives a table that names nothing. */
pcln_perf_syms *pcln_perf_syms_plt_lazy(const uint8_t *buf, size_t len,
    pcln_err *err);

/* The symbol holding ADDR: its name, *START and *MODULE (NULL for the
 * core kernel, and in map files); NULL if none.  O(log n). */
const char *pcln_perf_syms_find(const pcln_perf_syms *s, uint64_t addr,
    uint64_t *start, const char **module);
/* Reading and parsing a kallsyms of 120,000 lines costs more than
 * unwinding thousands of samples, where a profile names a few hundred
 * kernel addresses.  pcln_perf_syms_sorted_text writes what a parsed
 * kallsyms S kept (one symbol per address, sorted; malloc'd, length in
 * *LEN) under a header line holding the byte count and the xxh64 of the
 * rest; pcln_perf_syms_sorted reads such a text without parsing it: each
 * find is a binary search over its lines, copying only the names found.
 * TEXT is not copied and must stay unchanged until the view is freed; a
 * text whose header, length or hash is wrong is refused (PCLN_EHEADER,
 * PCLN_ECHECKSUM).  A view's find answers as the parsed table's did and
 * changes the view (the names it copies), under a lock: threads may
 * share a view, as they may share a lazy PLT's names.
 * pcln_perf_syms_sorted_unchecked checks the header and the length but
 * not the hash (which reads every byte): for a text checked before and
 * known unchanged since.  On a damaged text it names wrongly, but every
 * find stays bounded. */
char *pcln_perf_syms_sorted_text(const pcln_perf_syms *s, size_t *len,
    pcln_err *err);
pcln_perf_syms *pcln_perf_syms_sorted(const char *text, size_t len,
    pcln_err *err);
pcln_perf_syms *pcln_perf_syms_sorted_unchecked(const char *text,
    size_t len, pcln_err *err);
/* Symbols read, lines skipped. */
size_t pcln_perf_syms_count(const pcln_perf_syms *s);
size_t pcln_perf_syms_bad(const pcln_perf_syms *s);

/* --- address spaces and the unwinder ---------------------------------- */

/* Each process is an address space of lib/proc (pcln_proc.h), its
 * objects from one store whose tables the caller's pcln_perf_table_fn
 * gives; the walk is pcln_aspace_unwind over the sample's stack copy. */

/* An object as a mapping names it. */
typedef struct pcln_perf_object {
	const char *path;		/* as recorded (MMAP filename) */
	const uint8_t *build_id;	/* NULL if none known */
	size_t build_id_len;
} pcln_perf_object;

/* What the caller gives for an object: its table BLOB[0..LEN) (kept alive
 * by the caller until pcln_perf_space_free), the link-time address its
 * file offset 0 corresponds to, VADDR_MINUS_OFFSET = p_vaddr - p_offset
 * of the executable PT_LOAD (0 for most objects: the load bias of a
 * mapping at ADDR of file offset PGOFF is ADDR - PGOFF -
 * VADDR_MINUS_OFFSET), and optionally STUBS: the object's PLT entries at
 * link-time addresses, named "f@plt" (a symbol table in the form of a
 * perf map, pcln_perf_syms_map; the caller keeps it alive).  A pc in a
 * stub is named from it, and a walk that starts in one takes the return
 * address from the top of the stack (a stub pushes nothing: it jumps). */
typedef struct pcln_perf_table {
	const uint8_t *blob;		/* NULL: no table */
	size_t len;
	uint64_t vaddr_minus_offset;
	const pcln_perf_syms *stubs;	/* NULL: none */
} pcln_perf_table;

/* Fill *T for OBJ (zeroed on entry).  Return 0, or -1: nothing for the
 * object (its frames are counted as such). */
typedef int (*pcln_perf_table_fn)(void *arg, const pcln_perf_object *obj,
    pcln_perf_table *t);

typedef struct pcln_perf_space pcln_perf_space;

/* A set of processes.  TABLE is called once per distinct object (path and
 * build-id). */
pcln_perf_space *pcln_perf_space_new(pcln_perf_table_fn table, void *arg,
    pcln_err *err);
void pcln_perf_space_free(pcln_perf_space *s);

/* Feed a record in time order (MMAP, MMAP2, COMM, FORK, EXIT; others are
 * ignored).  BUILDIDS: the file's BUILD_ID feature entries, used for
 * mappings whose record carries none (may be NULL).  Returns 0 or -1
 * (no memory). */
int pcln_perf_space_event(pcln_perf_space *s, const pcln_perf *p,
    const pcln_perf_event *ev, pcln_err *err);

/* What a frame is in. */
enum pcln_perf_where {
	PCLN_PERF_IN_TABLE,	/* a function of an object's table */
	PCLN_PERF_IN_NOFUNC,	/* an object with a table, in no function */
	PCLN_PERF_IN_NOTABLE,	/* an object without a table */
	PCLN_PERF_IN_ANON,	/* an anonymous or special mapping ([vdso],
				 * JIT code: see the perf map) */
	PCLN_PERF_IN_UNMAPPED,	/* no mapping holds the pc */
	PCLN_PERF_IN_STUB	/* a PLT entry (NAME) */
};

/* One user frame of a walk. */
typedef struct pcln_perf_frame {
	uint64_t pc;			/* run-time */
	uint64_t lookup;		/* the pc looked up (pc - 1 for a
					 * return address) */
	int where;			/* enum pcln_perf_where */
	const char *object;		/* the mapping's path, or NULL */
	uint64_t objoff;		/* pc - mapping start + pgoff */
	pclnrt_func func;		/* IN_TABLE: the function */
	const char *name;		/* IN_STUB: its name */
	uint64_t bias;			/* IN_TABLE: its module's bias */
} pcln_perf_frame;

/* Why a walk ended, beyond the runtime's reasons (pclnrt_stop). */
#define PCLN_PERF_STOP_NOREGS	(PCLNRT_NSTOP + 0)	/* no registers */
#define PCLN_PERF_STOP_NOSTACK	(PCLNRT_NSTOP + 1)	/* no stack copy */
#define PCLN_PERF_STOP_NOTHREAD	(PCLNRT_NSTOP + 2)	/* unknown pid */

/* Unwind the user stack of sample EV (of P) of a process fed to S: from
 * the sample's ip, sp and bp through every object's table, reading only
 * the sample's stack copy.  Writes at most MAX frames, innermost first;
 * returns the count, and the stop reason in *STOP (a pclnrt_stop, or
 * PCLN_PERF_STOP_*).  A walk that reads past the copy's end stops with
 * PCLNRT_STOP_READ (a truncated stack copy).  The first frame is written
 * even when its pc is in no table (and the walk then stops,
 * PCLNRT_STOP_UNKNOWN_PC). */
size_t pcln_perf_unwind(pcln_perf_space *s, const pcln_perf *p,
    const pcln_perf_event *ev, pcln_perf_frame *frames, size_t max,
    int *stop);

/* Resolve user pc PC of process PID (a frame-pointer call chain entry)
 * into *FRAME; RETADDR: PC is a return address (look up PC - 1).
 * Returns 0, or -1 if PID is unknown. */
int pcln_perf_resolve(pcln_perf_space *s, uint32_t pid, uint64_t pc,
    int retaddr, pcln_perf_frame *frame);

/* The command name of thread TID (pid PID), or NULL; valid until
 * pcln_perf_space_free (a renamed thread's old name too). */
const char *pcln_perf_comm(const pcln_perf_space *s, uint32_t pid,
    uint32_t tid);

/* Objects seen and how many had a table. */
void pcln_perf_space_counts(const pcln_perf_space *s, size_t *nobjects,
    size_t *nwithtable);

/* Walks remembered: pcln_perf_unwind takes what a walk it made before
 * found beyond a sample's first frame again (the same frames and stop)
 * for a sample of the same process, in the same state of its mappings,
 * whose first frame steps to the same caller (return address and sp),
 * whose stack copy holds the same words where that walk read return
 * addresses and saved frame pointers, and whose frame pointer is the
 * same where that walk used it: the runtime's walk would make the same
 * frames (perf_space.c says when a walk is remembered).  On by default,
 * where it pays: after a trial of 128 walks remembered, only while they
 * are taken again at least twice as often as walks are remembered (a
 * profile whose stacks seldom come again is walked as if it were off).
 * ON 0 turns it off (and frees what it held), 1 on, 2 on without the
 * trial (for tests: every walk that can be is remembered). */
void pcln_perf_space_memo(pcln_perf_space *s, int on);

/* The walks pcln_perf_unwind began at a sample's ip (*WALKED), and how
 * many of them it took from those remembered (*REMEMBERED). */
void pcln_perf_space_walks(const pcln_perf_space *s, uint64_t *walked,
    uint64_t *remembered);

#ifdef __cplusplus
}
#endif

#endif /* PCLN_PERF_H */
