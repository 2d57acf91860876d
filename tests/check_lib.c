/* check_lib.c -- runs every libpcln Check suite. */
#include <stdlib.h>

#include "suites_lib.h"

int
main(void)
{
	SRunner *sr = srunner_create(varint_suite());
	int failed;

	srunner_add_suite(sr, build_suite());
	srunner_add_suite(sr, read_suite());
	srunner_add_suite(sr, verify_suite());
	srunner_add_suite(sr, golden_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
