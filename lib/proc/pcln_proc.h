/* pcln_proc.h -- a whole process: its address space (which object is
 * mapped where), a table for each object, the symbol of any address in
 * it, an unwinder through all of its objects, a live process's threads
 * stopped with ptrace, and this process's own objects in a runtime
 * registry.
 *
 * The pieces, and who uses them:
 *
 *   pcln_maps_parse      /proc/PID/maps text -> mappings (untrusted
 *                        input: bounded, fuzzed by fuzz/fuzz_maps)
 *   pcln_aspace          a set of mappings (start, end, file offset,
 *                        path, build-id), from /proc/PID/maps or added
 *                        one by one (perf.data's MMAP2 records); each
 *                        file mapping resolves to a pcln_object (its
 *                        table) and a load bias
 *   pcln_aspace_symbolize  an address -> object, offset, function,
 *                        file:line, inlined calls
 *   pcln_aspace_unwind   registers (pc, sp, fp) and a memory reader ->
 *                        frames, through every object's table: the
 *                        runtime's pclnrt_traceback over a registry
 *                        holding one module per object
 *   pcln_ptrace_*        a live process's threads, stopped together with
 *                        ptrace, their registers, their memory, resumed
 *   pcln_self_*          this process's objects (dl_iterate_phdr) in a
 *                        runtime registry a signal handler walks with
 *                        pclnrt_traceback
 *
 * Where an object's table comes from, in order: its own .pcln section
 * (else a Go .gopclntab, converted); else (built with libdw) lib/find's
 * (pcln_find.h): the table kept in the table cache under the object's
 * build-id, or made from its symbols, DWARF and CFI -- its debug
 * information found as gdb finds it (build-id directories,
 * .gnu_debuglink, debuginfod) -- and stored there
 * (pcln_objstore_set_search says which cache).  An object with
 * only .dynsym and .eh_frame (libc as Debian ships it) still unwinds:
 * the importer gives every FDE a function, unnamed where no symbol
 * names it.
 *
 * Which file is the object: a mapping's path, if the file there is the
 * one mapped (same device and inode as the mapping; for a live process
 * also the same build-id as the image in its memory); else, for a live
 * process, /proc/PID/map_files/START-END (the mapped file itself, even
 * deleted or replaced since); else none, with a note saying why.  The
 * vDSO ("[vdso]") is read from the process's memory.
 *
 * Memory: handles allocate with malloc and are freed by their _free or
 * _close call; strings and tables they hand out live as long as the
 * handle (pcln_aspace_*: until the mapping set changes or the handle is
 * freed, as each call says).  Nothing here is async-signal-safe except
 * what a pcln_self registry is used for: pclnrt_traceback and the other
 * runtime lookups over pcln_self_registry().  A handle is used by one
 * thread at a time, and an object store with the address spaces on it
 * (they share its objects and its cache of unwound frames) too.
 *
 * Errors: -1 (or NULL) with an optional pcln_err filled.  An object
 * without a table is not an error: its note says why, and its addresses
 * answer "unknown".
 */
#ifndef PCLN_PROC_H
#define PCLN_PROC_H

#include <stddef.h>
#include <stdint.h>

#include "pcln.h"
#include "pclnrt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* --- mappings ---------------------------------------------------------- */

/* A mapping's protection and sharing. */
#define PCLN_MAP_READ		0x1
#define PCLN_MAP_WRITE		0x2
#define PCLN_MAP_EXEC		0x4
#define PCLN_MAP_SHARED		0x8

/* One mapping: [START, END) maps the file PATH from byte OFFSET on.
 * PATH is "" for an anonymous mapping, "[vdso]", "[stack]", "[heap]" and
 * the like for the kernel's, else a file's path, without the " (deleted)"
 * the kernel appends to a file removed since it was mapped (DELETED then
 * says so).  BUILD_ID is known from the source of the mapping (perf's
 * MMAP2 record with a build-id), else BUILD_ID_LEN is 0. */
typedef struct pcln_mapping {
	uint64_t start, end;
	uint64_t offset;
	unsigned prot;		/* PCLN_MAP_* */
	uint32_t major, minor;	/* device of the file, 0 0 if none */
	uint64_t inode;		/* 0 if none */
	const char *path;	/* NUL-terminated, never NULL */
	int deleted;
	uint8_t build_id[PCLN_BUILDID_MAX];
	size_t build_id_len;
} pcln_mapping;

/* Called by pcln_maps_parse for each mapping, in the text's order; M and
 * its path are valid during the call only.  Return 0 to go on, nonzero
 * to stop (pcln_maps_parse then returns that value). */
typedef int (*pcln_maps_cb)(void *arg, const pcln_mapping *m);

/* Parse TEXT[0..LEN), the contents of /proc/PID/maps: one mapping a
 * line, "START-END PERMS OFFSET MAJOR:MINOR INODE [PATH]" with the
 * numbers in hex (the inode in decimal), PERMS four characters of "rwxp"
 * or "-", "s" for shared, and PATH the rest of the line after the blanks
 * (it may hold blanks; a trailing " (deleted)" is taken off and sets
 * DELETED).  A last line without its newline is read too.  Lines are at
 * most 8192 bytes (PATH_MAX and more).  Calls CB (NULL: only check) for
 * each.  Returns 0, CB's nonzero value, or -1 with ERR (PCLN_ESYNTAX:
 * "line N, column C: what was expected") on the first bad line, after
 * the callbacks for the lines before it.  Allocates only a line's
 * copy; O(LEN). */
int pcln_maps_parse(const char *text, size_t len, pcln_maps_cb cb,
    void *arg, pcln_err *err);

/* --- objects ----------------------------------------------------------- */

/* Where an object's table came from. */
typedef enum pcln_objsrc {
	PCLN_OBJ_NONE,		/* no table: NOTE says why */
	PCLN_OBJ_SECTION,	/* its own .pcln section */
	PCLN_OBJ_GO,		/* its .gopclntab, converted */
	PCLN_OBJ_IMPORTED,	/* made from its symbols, DWARF and CFI */
	PCLN_OBJ_CACHED,	/* made so before, read from the table
				 * cache (lib/find) */
	PCLN_OBJ_PROVIDED	/* given by the store's provider */
} pcln_objsrc;

/* "none", ".pcln section", ".gopclntab", "imported", "cached",
 * "provided". */
const char *pcln_objsrc_name(pcln_objsrc s);

/* An object (executable, shared library, vDSO) and its table.  Every
 * field is read-only for the caller and lives as long as the store that
 * holds it (the aspace's own, a pcln_objstore, the pcln_self). */
typedef struct pcln_object {
	const char *path;	/* the path it was mapped from ("[vdso]") */
	const char *file;	/* the file read: PATH, /proc/PID/map_files/
				 * START-END, "[vdso] (memory)", or "" */
	uint8_t build_id[PCLN_BUILDID_MAX];
	size_t build_id_len;	/* 0: none known */
	int deleted;		/* the mapped file was deleted */
	int replaced;		/* another file is at PATH now */
	pcln_objsrc source;
	const uint8_t *blob;	/* the table, or NULL */
	size_t len;
	pcln_table *table;	/* the reader over BLOB (trusted: checked
				 * when made, or verified when read) */
	pclnrt_table rt;	/* the runtime's view of BLOB */
	const char *note;	/* why there is no table, or a warning;
				 * "" if none */
	void *user;		/* a table provider's (pcln_objtable), or
				 * NULL */
	/* private */
	struct pcln_objpriv *priv_;
} pcln_object;

/* --- address spaces ---------------------------------------------------- */

/* Object-store flags. */
#define PCLN_AS_NO_IMPORT	0x1	/* tables from sections only */
#define PCLN_AS_VERIFY		0x2	/* pcln_verify every table read from a
					 * file (else: trusted, and each
					 * function checked before its first
					 * answer) */

/* A store of objects, shared by address spaces (perf.data's processes
 * map the same libraries): each object is loaded once, by identity (a
 * file's device, inode and path; a memory image's contents).  FLAGS:
 * PCLN_AS_*.  Free it after every address space using it. */
typedef struct pcln_objstore pcln_objstore;
pcln_objstore *pcln_objstore_new(unsigned flags, pcln_err *err);
void pcln_objstore_free(pcln_objstore *s);

/* Where a store's tables come from when the caller decides (perf.data's
 * objects: files of another machine, perf's build-id cache): FN(ARG,
 * PATH, ID, IDLEN, T) is called once per object -- a file mapping's path
 * and the build-id its mapping records (IDLEN 0: none) -- and fills *T
 * (zeroed on entry).  BLOB[0..LEN) is the table (the caller keeps it
 * alive until the store is freed; NULL: none, and NOTE, copied, may say
 * why); VADDR_MINUS_OFFSET is p_vaddr - p_offset of the object's code
 * (the load bias of a mapping at START of file offset PGOFF is START -
 * PGOFF - VADDR_MINUS_OFFSET); USER is handed back in pcln_object.user.
 * FN returns 0, or -1 for "no table".  Mappings of "//anon" and
 * "/memfd:" are not files and are not asked about. */
typedef struct pcln_objtable {
	const uint8_t *blob;
	size_t len;
	uint64_t vaddr_minus_offset;
	void *user;
	const char *note;
} pcln_objtable;

typedef int (*pcln_objtable_fn)(void *arg, const char *path,
    const uint8_t *id, size_t idlen, pcln_objtable *t);

/* A store whose objects' tables come from FN (with ARG).  The tables are
 * opened trusted, each function checked before its first answer. */
pcln_objstore *pcln_objstore_new_provider(pcln_objtable_fn fn, void *arg,
    pcln_err *err);

/* How a store finds the tables of objects without a .pcln section or a
 * .gopclntab (with libdw; pcln_find.h): the table cache's directory
 * (NULL: $XDG_CACHE_HOME/pcln, else $HOME/.cache/pcln) and size limit
 * (0: its default), or no cache at all (every table made, none kept);
 * more debug directories searched before /usr/lib/debug
 * (NULL-terminated, or NULL).  A store starts with all of these zero
 * (the default cache). */
typedef struct pcln_objstore_search {
	const char *cache_dir;
	uint64_t cache_limit;
	int no_cache;
	const char *const *debug_dirs;
} pcln_objstore_search;

/* Set S's search before its first object is loaded.  SEARCH is copied;
 * the strings it points to are not, and must outlive S. */
void pcln_objstore_set_search(pcln_objstore *s,
    const pcln_objstore_search *search);

/* Objects the store holds, and how many of them have a table. */
void pcln_objstore_counts(const pcln_objstore *s, size_t *nobjects,
    size_t *nwithtable);
/* The walks' step cache (one for the aspaces on S, made at the first
 * walk, grown when it misses often): the steps it answered (*HITS) and
 * those looked up in the tables (*MISSES) so far, and its *ENTRIES (0:
 * none yet).  For tuning; any pointer may be NULL. */
void pcln_objstore_steps(const pcln_objstore *s, uint64_t *hits,
    uint64_t *misses, size_t *entries);

typedef struct pcln_aspace pcln_aspace;

/* A new, empty address space.  PID (> 0) is the live process whose
 * memory gives the vDSO and whose /proc/PID/map_files gives deleted and
 * replaced files; 0 for none (mappings from perf.data: then the file at
 * a mapping's path is used if its device and inode are the mapping's,
 * or the mapping has none, and its build-id is the mapping's, if it has
 * one).  Objects come from STORE, or (STORE NULL) from a store of the
 * aspace's own with FLAGS (PCLN_AS_*).  NULL and ERR (PCLN_ENOMEM) on
 * failure. */
pcln_aspace *pcln_aspace_new(int pid, pcln_objstore *store, unsigned flags,
    pcln_err *err);
void pcln_aspace_free(pcln_aspace *as);

/* The store AS's objects come from (its own if pcln_aspace_new was
 * given none): for pcln_objstore_set_search. */
pcln_objstore *pcln_aspace_store(pcln_aspace *as);

/* Add mapping M (copied).  Where it overlaps earlier mappings it
 * replaces them, as mmap(2) does (the parts outside it stay).  Objects
 * are resolved later, on first use.  Returns 0 or -1. */
int pcln_aspace_add(pcln_aspace *as, const pcln_mapping *m, pcln_err *err);

/* Replace every mapping by those of the maps text TEXT[0..LEN)
 * (pcln_maps_parse).  Objects already resolved whose mappings are still
 * there (same start, file offset and file) are kept.  Returns 0, or -1
 * with ERR (the set is then unchanged). */
int pcln_aspace_set_maps(pcln_aspace *as, const char *text, size_t len,
    pcln_err *err);

/* Read /proc/PID/maps of the aspace's process (pcln_aspace_new's PID)
 * and pcln_aspace_set_maps it.  Returns 0, or -1 with ERR (PCLN_EIO: no
 * such process, or it cannot be read; PCLN_EINVAL: no pid). */
int pcln_aspace_read_maps(pcln_aspace *as, pcln_err *err);

/* The mappings, by start address: their number, the I-th, and the one
 * holding ADDR (NULL if none).  Valid until the set changes. */
size_t pcln_aspace_nmaps(const pcln_aspace *as);
const pcln_mapping *pcln_aspace_map(const pcln_aspace *as, size_t i);
const pcln_mapping *pcln_aspace_find(const pcln_aspace *as, uint64_t addr);

/* A number that changes whenever what a walk or a lookup in AS finds may
 * change (a mapping replaced or resolved, the set read again; not a
 * mapping added where there was none), and that no other state of any
 * address space of the process has had: a cache of AS's walks keyed by
 * it stays right. */
uint64_t pcln_aspace_version(const pcln_aspace *as);

/* The object mapped at ADDR, resolved (its table found or made) the
 * first time it is asked for, and in *BIAS (if not NULL) its load bias
 * there: run-time address minus the object's own (link-time) address.
 * NULL if ADDR is in no file mapping (anonymous, [stack], [heap]); a
 * file that cannot be read, or is not ELF, gives an object without a
 * table whose note says so. */
const pcln_object *pcln_aspace_object(pcln_aspace *as, uint64_t addr,
    uint64_t *bias);

/* Resolve the object of every executable mapping now (a walk then finds
 * them all; pcln_aspace_unwind otherwise resolves as it goes).  Returns
 * the number of objects with a table. */
size_t pcln_aspace_load(pcln_aspace *as);

/* --- symbols ----------------------------------------------------------- */

#define PCLN_SYM_INLINE_MAX	32

/* Symbolize flags. */
#define PCLN_SYM_RETADDR	0x1	/* ADDR is a return address: look at
					 * ADDR - 1, the call */

/* What an address is. */
typedef struct pcln_symbol {
	uint64_t addr;
	const pcln_mapping *map;	/* NULL: in no mapping */
	const pcln_object *obj;		/* NULL: no file (anonymous...) */
	uint64_t bias;
	uint64_t file_offset;		/* ADDR - map->start + map->offset */
	uint64_t objaddr;		/* ADDR - bias: the object's own
					 * address (what addr2line -e
					 * OBJECT takes) */
	const char *function;		/* NULL: in no known function; ""
					 * unnamed (CFI but no symbol) */
	uint64_t entry;			/* run-time entry of FUNCTION */
	const char *file;		/* NULL if unknown */
	int32_t line;			/* 0 if unknown */
	/* Inlined calls at ADDR, innermost first (pclnrt_inline): INL[0]
	 * is the function whose body ADDR is in, called from INL[0].file:
	 * line in INL[1].name (or FUNCTION for the last). */
	size_t ninline;
	pclnrt_inlcall inl[PCLN_SYM_INLINE_MAX];
	int damaged;			/* the function's tables fail the
					 * verifier: answered as unknown */
} pcln_symbol;

/* Symbolize run-time address ADDR of AS with FLAGS (PCLN_SYM_*) into
 * *SYM.  Always fills SYM (fields unknown as their comments say) and
 * returns 0 if ADDR is in a known function, 1 if not.  SYM->map is
 * valid until the mapping set changes; the object and the strings (in
 * its table) as long as its store. */
int pcln_aspace_symbolize(pcln_aspace *as, uint64_t addr, unsigned flags,
    pcln_symbol *sym);

/* --- unwinding --------------------------------------------------------- */

/* The registers a walk starts from (x86-64: rip, rsp, rbp; LR for the
 * link-register convention). */
typedef struct pcln_regs {
	uint64_t pc, sp, fp, lr;
} pcln_regs;

/* Unwind flags (besides the runtime's PCLNRT_TB_FIRST_RETADDR, which
 * says the first pc is a return address too). */
#define PCLN_UNWIND_NO_FP	0x100	/* ignore the CFA-rule pcdata */

/* Walk the stack that starts at REGS through every object of AS, with
 * the pcsp tables and the CFA rules (pclnrt_traceback, PCLNRT_TB_FP),
 * reading stack words through READ(ARG, ...) (pclnrt_readfn).  The
 * objects' byte order and pointer size are the host's (x86-64, stack
 * convention).  Writes at most MAX frames to FRAMES and returns their
 * number; *STOP (if not NULL) says why and where the walk stopped
 * (pclnrt.h).  A frame's module is the object's module in AS's
 * registry: pcln_aspace_frame_object gives the object.  An object not
 * yet resolved is resolved when the walk reaches it.  Not
 * async-signal-safe (it may read files). */
size_t pcln_aspace_unwind(pcln_aspace *as, const pcln_regs *regs,
    unsigned flags, pclnrt_readfn read, void *arg, pclnrt_frame *frames,
    size_t max, pclnrt_stopinfo *stop);
/* The same over a copy of the stack (a profiler's sample): COPY[0..LEN)
 * is the memory at BASE, read in place (pclnrt_walk's copy); a word
 * outside it cannot be read. */
size_t pcln_aspace_unwind_copy(pcln_aspace *as, const pcln_regs *regs,
    unsigned flags, const uint8_t *copy, uint64_t base, uint64_t len,
    pclnrt_frame *frames, size_t max, pclnrt_stopinfo *stop);

/* The object of a frame FR written by pcln_aspace_unwind (NULL if
 * none). */
const pcln_object *pcln_aspace_frame_object(const pcln_aspace *as,
    const pclnrt_frame *fr);

/* --- a live process ---------------------------------------------------- */

/* A process whose threads are stopped with ptrace. */
typedef struct pcln_ptrace pcln_ptrace;

/* One stopped thread. */
typedef struct pcln_thread {
	int tid;
	pcln_regs regs;
	int ok;			/* registers read */
	char note[128];		/* why not, or "" */
} pcln_thread;

/* Stop every thread of process PID: PTRACE_SEIZE and PTRACE_INTERRUPT
 * each thread of /proc/PID/task, again until no new thread appears, and
 * wait for each to stop; read their registers.  The process is left
 * running (nothing stopped) on failure.  NULL and ERR on failure:
 * PCLN_ENOTFOUND (no such process), PCLN_EIO (ptrace refused: its
 * errno's message and what to do, as for ptrace_scope). */
pcln_ptrace *pcln_ptrace_stop(int pid, pcln_err *err);

/* The threads, in the order of /proc/PID/task. */
size_t pcln_ptrace_nthreads(const pcln_ptrace *p);
const pcln_thread *pcln_ptrace_thread(const pcln_ptrace *p, size_t i);

/* A pclnrt_readfn over the stopped process's memory (ARG: the
 * pcln_ptrace): reads through process_vm_readv, a 16 KiB page-aligned
 * chunk at a time, kept until pcln_ptrace_resume. */
int pcln_ptrace_read(void *arg, uint64_t addr, uint8_t *buf, size_t len);

/* Resume every thread (PTRACE_DETACH, handing back a signal that
 * arrived meanwhile) and free P.  *STOPPED_US (if not NULL) gets the
 * microseconds from the first thread's stop to the last one's resume.
 * Returns 0, or -1 with ERR naming the threads that could not be
 * detached (one that would not stop is detached when the tracer
 * exits). */
int pcln_ptrace_resume(pcln_ptrace *p, double *stopped_us, pcln_err *err);

/* --- this process ------------------------------------------------------ */

/* This process's objects in a runtime registry. */
typedef struct pcln_self pcln_self;

/* Find a table for every object dl_iterate_phdr reports (the program,
 * its libraries, the vDSO), mapped now (never later, in a signal
 * handler), and register each with its load bias in a registry of its
 * own (pcln_self_registry).  FLAGS: PCLN_AS_NO_IMPORT.  Objects without
 * a table are listed (pcln_self_object) with their note.  NULL and ERR
 * on failure (no memory). */
pcln_self *pcln_self_open(unsigned flags, pcln_err *err);

/* After dlopen or dlclose: remove the objects that went, register those
 * that appeared.  A removed object's module is freed at this or a later
 * refresh once no reader record's bracket can hold it
 * (pclnrt_module_reusable); its table stays.  An object whose range
 * meets a registered one (PCLNRT_OVERLAP) or that finds the code map
 * full (PCLNRT_FULL) is listed but left out of the registry, and tried
 * again at the next refresh.  Never call it inside a bracket or a signal
 * handler.  Returns the number of objects added plus removed, or -1. */
long pcln_self_refresh(pcln_self *s, pcln_err *err);

/* The registry (a code map with 64 reader records): pass it to
 * pclnrt_traceback (pclnrt_walk.modules) and the other runtime lookups,
 * from any thread or signal handler.  Readers racing with
 * pcln_self_refresh take a reader record (pclnrt_reader_claim) and
 * bracket their walk, and every use of its frames, with
 * pclnrt_read_enter / pclnrt_read_exit. */
pclnrt_registry *pcln_self_registry(pcln_self *s);

/* The objects (in dl_iterate_phdr's order) and the I-th, with its load
 * BIAS. */
size_t pcln_self_nobjects(const pcln_self *s);
const pcln_object *pcln_self_object(const pcln_self *s, size_t i,
    uint64_t *bias);

/* Remove every object and free S (no reader may be left: one inside a
 * bracket is waited for). */
void pcln_self_close(pcln_self *s);

/* A pclnrt_readfn over this process's own memory that fails, instead of
 * faulting, where nothing is mapped (a corrupt stack): one
 * process_vm_readv system call a read (ARG unused).  If the kernel
 * refuses that call (a seccomp filter), it reads directly, as
 * pclnrt_read_direct does.  Allocates nothing, takes no lock, safe in a
 * signal handler. */
int pcln_self_read(void *arg, uint64_t addr, uint8_t *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* PCLN_PROC_H */
