/* suites_lib.h -- the libpcln Check suites run by tests/check_lib.c. */
#ifndef PCLN_TESTS_SUITES_LIB_H
#define PCLN_TESTS_SUITES_LIB_H

#include <check.h>

Suite *varint_suite(void);
Suite *build_suite(void);
Suite *read_suite(void);
Suite *verify_suite(void);
Suite *golden_suite(void);

#endif
