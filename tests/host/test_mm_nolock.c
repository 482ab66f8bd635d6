/*
 * test_mm_nolock.c - the any-context tests (tests/kernel/nolock_test.c) on
 * the host, under AddressSanitizer and UBSan.
 *
 * The environment is the slab tests' (test_mm_slab.c: 32 MiB of arena,
 * four pretend CPUs).  An "NMI" is host_nmi_nesting raised around a direct
 * call, so every lock the test holds is exactly as the interrupted code
 * left it; irq_work runs only when the test calls irq_work_run().
 */
#include "../kernel/nolock_test.c"
