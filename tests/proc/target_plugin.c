/* target_plugin.c -- the plugin tests/proc/target loads with dlopen: a
 * thread sleeps here, in nanosleep. */
#include <time.h>

int target_plugin_run(int x);

static int __attribute__((noinline))
plugin_sleep(int x)
{
	struct timespec ts = { 1000, 0 };

	for (;;)
		nanosleep(&ts, NULL);
	return x;
}

int
target_plugin_run(int x)
{
	return plugin_sleep(x + 1) * 2;
}
