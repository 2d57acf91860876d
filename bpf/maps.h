/* maps.h -- what the BPF loaders (check_bpf.c, unwind.c) share: a set
 * of modules registered in a host registry, and that registry put into
 * a BPF object's maps (runtime.bpf.h: store, cmroot, cmnodes, cmmods),
 * pointers turned into store positions.  Host code; libbpf. */
#ifndef PCLN_BPF_MAPS_H
#define PCLN_BPF_MAPS_H

#include <stddef.h>
#include <stdint.h>

#include <bpf/libbpf.h>

#include "pclnrt.h"

#define PCLN_BPF_MAXMOD	4096

struct pcln_bpf_mod {
	pclnrt_module m;	/* first: a module pointer is a mod pointer */
	uint8_t *blob;
	size_t len;
	uint64_t base;		/* position in the store */
	char label[64];
};

extern struct pcln_bpf_mod pcln_bpf_mods[PCLN_BPF_MAXMOD];
extern size_t pcln_bpf_nmods;
extern pclnrt_registry pcln_bpf_reg;

/* Print "PROG: WHAT" and exit 1. */
void pcln_bpf_die(const char *what);
/* CLOCK_MONOTONIC in seconds. */
double pcln_bpf_secs(void);

/* A new module (PCLN_BPF_MAXMOD at most), zeroed. */
struct pcln_bpf_mod *pcln_bpf_new(void);

/* The blob in file PATH as a module at BIAS; exits on an error. */
struct pcln_bpf_mod *pcln_bpf_add_file(const char *path, uint64_t bias);

/* Register every module (exits if one is refused) and place their
 * blobs in the store; returns the store's size. */
uint64_t pcln_bpf_register_all(void);

/* The store position of P, in module M's blob (0 for NULL). */
uint64_t pcln_bpf_pos(const pclnrt_module *m, const void *p);

/* Can this kernel load a BPF program at all?  Prints the kernel; 0, or
 * 77 after saying why not. */
int pcln_bpf_probe_kernel(void);

/* Open OBJPATH, size its maps for the registered modules, load it (the
 * verifier's figures and the program's size printed on standard
 * output; PCLN_BPF_LOG=FILE writes the verifier's whole log there) and
 * fill the maps.  Returns program PROG; exits on an error. */
struct bpf_program *pcln_bpf_load(const char *objpath, const char *prog,
    uint64_t storesize, struct bpf_object **objp);

#endif /* PCLN_BPF_MAPS_H */
