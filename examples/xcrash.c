/* xcrash.c -- a crash across objects, symbolized from the program's own
 * signal handler: the main program, its shared library (xcrash_lib.c),
 * libc, and a plugin loaded with dlopen (xcrash_plugin.c).
 *
 * The handler is examples/crash_handler.c built with -DCRASH_PROCESS: at
 * start-up every object dl_iterate_phdr reports gets a table
 * (pcln_self_open, libpcln) -- libc's from its .dynsym and .eh_frame --
 * and crash_handler_refresh adds the plugin after dlopen and removes it
 * after dlclose.  The handler walks every object and prints each frame
 * with its object.
 *
 * Usage: xcrash lib | plugin | unload
 *   lib:    main -> run_lib -> xcrash_lib_sort (libxcrash.so) -> qsort
 *           (libc) -> msort_with_tmp ... -> compare (libxcrash.so) ->
 *           key_of (inlined): SIGSEGV
 *   plugin: main -> run_plugin -> dlopen, refresh -> xcrash_plugin_run
 *           (the plugin) -> plugin_step (inlined) -> plugin_fault: SIGSEGV
 *   unload: the plugin loaded, refreshed, unloaded, refreshed (its table
 *           leaves the registry), then as lib.
 * The plugin is $XCRASH_PLUGIN, else xcrash-plugin.so beside the program.
 *
 * The C++ variant, xcrash-cxx, is this program built with the handler's
 * -DCRASH_DEMANGLE (names demangled in the handler, with libiberty's
 * allocation-free cplus_demangle_v3_callback), linked with the C++
 * library xcrash_cxx_lib.cc (a class template's comparator and a lambda
 * in it) and loading the C++ plugin xcrash_cxx_plugin.cc.
 * tests/xcrash-gdb.sh compares the frames of both with gdb's bt.
 */
#define _GNU_SOURCE 1
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "crash_handler.h"

#ifndef XCRASH_PLUGIN_NAME
#define XCRASH_PLUGIN_NAME	"xcrash-plugin.so"
#endif

int xcrash_lib_sort(int *v, int n);
int run_lib(int n) __attribute__((noinline));
int run_plugin(int n) __attribute__((noinline));

static void *
load_plugin(void)
{
	char path[PATH_MAX], *slash;
	const char *env = getenv("XCRASH_PLUGIN");
	void *h;
	ssize_t len;

	if (env != NULL)
		snprintf(path, sizeof path, "%s", env);
	else {
		len = readlink("/proc/self/exe", path, sizeof path - 32);
		if (len <= 0) {
			fprintf(stderr, "xcrash: /proc/self/exe unreadable\n");
			exit(2);
		}
		path[len] = 0;
		slash = strrchr(path, '/');
		strcpy(slash != NULL ? slash + 1 : path, XCRASH_PLUGIN_NAME);
	}
	if ((h = dlopen(path, RTLD_NOW)) == NULL) {
		fprintf(stderr, "xcrash: %s\n", dlerror());
		exit(2);
	}
	fprintf(stderr, "xcrash: plugin loaded: %ld objects\n",
	    crash_handler_refresh());
	return h;
}

/* Each level uses its callee's result, so the calls are real calls. */
int
run_lib(int n)
{
	int v[8] = { 8, 7, 6, 5, 4, 3, 2, 1 };

	return xcrash_lib_sort(v, n) * 2 + v[1];
}

int
run_plugin(int n)
{
	void *h = load_plugin();
	int (*run)(int) = (int (*)(int))dlsym(h, "xcrash_plugin_run");

	if (run == NULL) {
		fprintf(stderr, "xcrash: %s\n", dlerror());
		exit(2);
	}
	return run(n) * 2 + 1;
}

int
main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "lib";

	crash_handler_install("xcrash");
	if (strcmp(mode, "plugin") == 0)
		return run_plugin(argc) == 42;
	if (strcmp(mode, "unload") == 0) {
		void *h = load_plugin();

		if (dlclose(h) != 0) {
			fprintf(stderr, "xcrash: dlclose: %s\n", dlerror());
			return 2;
		}
		fprintf(stderr, "xcrash: plugin unloaded: %ld objects\n",
		    crash_handler_refresh());
	} else if (strcmp(mode, "lib") != 0) {
		fprintf(stderr, "usage: xcrash lib|plugin|unload\n");
		return 2;
	}
	return run_lib(8) == 42;
}
