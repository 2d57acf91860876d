/* xcrash_plugin.c -- the plugin examples/xcrash loads with dlopen after
 * start-up (its table is made then, by pcln_self_refresh), and that
 * faults when run.  Built -O2 -g -fomit-frame-pointer -fPIC -shared.
 */
int xcrash_plugin_run(int x);

static int *volatile null_pointer;

static int __attribute__((noinline))
plugin_fault(int x)
{
	return *null_pointer + x;	/* the fault */
}

/* Inlined into xcrash_plugin_run. */
static inline int
plugin_step(int x)
{
	return plugin_fault(x * 2) * 3;
}

int
xcrash_plugin_run(int x)
{
	return plugin_step(x + 1) + 1;
}
