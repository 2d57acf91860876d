/* crash_handler.h -- the crash examples' signal handler
 * (examples/crash_handler.c), for the C program examples/crash.c and the
 * C++ program examples/crash_cxx.cc, and, built with -DCRASH_PROCESS,
 * for the whole-process examples examples/xcrash.c and xcrash_cxx.cc. */
#ifndef CRASH_HANDLER_H
#define CRASH_HANDLER_H

#ifdef __cplusplus
extern "C" {
#endif

struct pclnrt_registry;

/* Find the program's own pcln table (pcln_blob.c), register it with the
 * runtime and install the handler for SIGSEGV, SIGBUS, SIGFPE, SIGILL
 * and SIGABRT on an alternate stack.  PROG names the module.  Call once,
 * early in main. */
void crash_handler_install(const char *prog);

/* The registry the handler walks: the program's table is in it, and
 * there is room for 256 more modules (the JIT example's functions).
 * Frames in modules other than the program's are printed "[jit]".  The
 * handler brackets its walk with a reader record of its own.  With
 * -DCRASH_PROCESS, pcln_self_registry's (every object's). */
struct pclnrt_registry *crash_handler_registry(void);

/* With -DCRASH_PROCESS, crash_handler_install gives every loaded object
 * a table instead (pcln_self_open, libpcln); after dlopen or dlclose,
 * this adds and removes objects.  Returns the number of objects, or -1.
 * Not from a signal handler. */
long crash_handler_refresh(void);

#ifdef __cplusplus
}
#endif

#endif /* CRASH_HANDLER_H */
