/*
 * test_mm_interleave.c - the interleaving search (tests/kernel/
 * interleave_test.c) on the host, under AddressSanitizer and UBSan, over
 * the slab tests' arena (test_mm_slab.c: 32 MiB, four pretend CPUs).
 * NMIs and IRQs are the nesting counts raised around direct calls; another
 * CPU is host_cpu_id switched for the call.
 */
#include "../kernel/interleave_test.c"
