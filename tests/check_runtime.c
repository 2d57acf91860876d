/* check_runtime.c -- the runtime's Check suites: lookups, tracebacks,
 * corrupt blobs, modules (the code map), JIT functions. */
#include <stdlib.h>

#include "test_rt.h"

int
main(void)
{
	SRunner *sr = srunner_create(rt_lookup_suite());
	int nfail;

	srunner_add_suite(sr, rt_traceback_suite());
	srunner_add_suite(sr, rt_corrupt_suite());
	srunner_add_suite(sr, rt_module_suite());
	srunner_add_suite(sr, rt_jit_suite());
	srunner_run_all(sr, CK_NORMAL);
	nfail = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nfail == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
