/*
 * test_mm_sheaf.c - the sheaf rule tests (tests/kernel/sheaf_test.c) on
 * the host, under AddressSanitizer and UBSan, over the slab tests' arena
 * (test_mm_slab.c: 32 MiB, four pretend CPUs).  An "IPI" is a call as
 * another CPU on this thread, an "IRQ" or "NMI" a raised nesting count.
 */
#include "../kernel/sheaf_test.c"
