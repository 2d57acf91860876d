/* debuginfod.c -- libdebuginfod, loaded when it is first needed.
 *
 * Linking libdebuginfod would load libcurl and its ~60 libraries (TLS,
 * Kerberos, LDAP...) into every program using libpcln, at every start:
 * about a millisecond before pclndump's first answer.  libdwfl itself
 * dlopens it only when asked for its client; we do the same, for the
 * few calls we make (a progress function on libdwfl's client, and
 * debuginfod_find_executable for pcln_table_for_build_id).
 */
#include <config.h>

#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>

#include "find_internal.h"

#ifdef HAVE_LIBDEBUGINFOD

static struct pclni_debuginfod fns;
static int loaded;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void
load(void)
{
	void *h = dlopen(DEBUGINFOD_SONAME, RTLD_LAZY);

	if (h == NULL)
		return;
	*(void **)&fns.begin = dlsym(h, "debuginfod_begin");
	*(void **)&fns.end = dlsym(h, "debuginfod_end");
	*(void **)&fns.find_executable = dlsym(h, "debuginfod_find_executable");
	*(void **)&fns.set_progressfn = dlsym(h, "debuginfod_set_progressfn");
	*(void **)&fns.set_user_data = dlsym(h, "debuginfod_set_user_data");
	*(void **)&fns.get_user_data = dlsym(h, "debuginfod_get_user_data");
	loaded = fns.begin != NULL && fns.end != NULL &&
	    fns.find_executable != NULL && fns.set_progressfn != NULL &&
	    fns.set_user_data != NULL && fns.get_user_data != NULL;
}

const struct pclni_debuginfod *
pclni_find_debuginfod(void)
{
	pthread_once(&once, load);
	return loaded ? &fns : NULL;
}

#else

const struct pclni_debuginfod *
pclni_find_debuginfod(void)
{
	return NULL;
}

#endif
