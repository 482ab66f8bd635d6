/*
 * test_mm_check.c - the invariant checker's tests (tests/kernel/
 * mm_check_test.c) on the host, over the slab tests' arena
 * (test_mm_slab.c: 32 MiB, four pretend CPUs).
 */
#include "../kernel/mm_check_test.c"
