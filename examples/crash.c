/* crash.c -- a program that prints a symbolized traceback of its own
 * crash from its signal handler, using only the pcln runtime
 * (examples/crash_handler.c is the handler; examples/crash_cxx.cc is the
 * same in C++, with demangled names).
 *
 * Built -O2 -g -fomit-frame-pointer (examples/crash.mk): no frame
 * pointers, so the walk uses the pcsp table that pclnld --elf made from
 * the program's CFI; the table is embedded in the program itself
 * (examples/pcln_blob.c).
 *
 * Usage: crash [segv|fpe|abrt|vla]   (default segv; vla: SIGSEGV in a
 * function that calls alloca, whose CFA is rbp-based)
 * It crashes through main -> crash_level1 -> crash_level2 ->
 * crash_level3 -> crash_<kind>, prints the traceback to standard error
 * and then dies of the signal (default action).
 */
#include <stdlib.h>
#include <string.h>

#include "crash_handler.h"

/* --- the crashing call chain ------------------------------------------ */

int crash_segv(int) __attribute__((noinline));
int crash_fpe(int) __attribute__((noinline));
int crash_abrt(int) __attribute__((noinline));
int crash_vla(int) __attribute__((noinline));
int crash_level3(int, int) __attribute__((noinline));
int crash_level2(int, int) __attribute__((noinline));
int crash_level1(int, int) __attribute__((noinline));
static inline int crash_inlined(int, int) __attribute__((always_inline));

static int *volatile null_pointer;
static volatile int zero;

int
crash_segv(int x)
{
	return *null_pointer + x;
}

int
crash_fpe(int x)
{
	return x / zero + 1;
}

int
crash_abrt(int x)
{
	if (x > 0)
		abort();
	return x;
}

/* alloca: the compiler keeps a frame pointer and the CFI says CFA =
 * rbp + 16 here (pcdata PCLN_PCDATA_CFA). */
int
crash_vla(int x)
{
	volatile int *a = __builtin_alloca(((size_t)x + 4) * sizeof *a);
	int i;

	for (i = 0; i < x + 4; i++)
		a[i] = i;
	return a[x] + *null_pointer;
}

/* Each level uses its callee's result after the call, so the calls are
 * real calls, not jumps: every level keeps a frame. */
int
crash_level3(int kind, int x)
{
	int r;

	if (kind == 1)
		r = crash_fpe(x + 3);
	else if (kind == 2)
		r = crash_abrt(x + 3);
	else if (kind == 3)
		r = crash_vla(x + 3);
	else
		r = crash_segv(x + 3);
	return r * 3 + x;
}

/* Inlined into crash_level2: the traceback marks its frame. */
static inline int
crash_inlined(int kind, int x)
{
	return crash_level3(kind, x + 2) * 2 + x;
}

int
crash_level2(int kind, int x)
{
	return crash_inlined(kind, x) + 1;
}

int
crash_level1(int kind, int x)
{
	return crash_level2(kind, x + 1) + x * 5;
}

int
main(int argc, char **argv)
{
	int kind = 0;

	crash_handler_install("crash");
	if (argc > 1 && strcmp(argv[1], "fpe") == 0)
		kind = 1;
	else if (argc > 1 && strcmp(argv[1], "abrt") == 0)
		kind = 2;
	else if (argc > 1 && strcmp(argv[1], "vla") == 0)
		kind = 3;
	return crash_level1(kind, argc) == 42;
}
