/* work.h -- the shared library of the profiled C program (perf-record.sh). */
#ifndef PERF_WORK_H
#define PERF_WORK_H

#include <stddef.h>
#include <stdint.h>

uint64_t work_hash(const uint8_t *buf, size_t len, uint64_t seed);
void work_sort(uint32_t *v, size_t n);
uint64_t work_fib(unsigned n);

#endif
