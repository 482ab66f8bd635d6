/*
 * test_mm_slab.c - the slab tests (tests/kernel/slab_test.c) on the host,
 * under AddressSanitizer and UBSan.
 *
 * Each suite gets fresh memory and a freshly initialised slab allocator,
 * four pretend CPUs (smp_call_function_single() and on_each_cpu() switch
 * host_cpu_id), and gives everything back when it ends.
 */
#include <slab.h>
#include <smp.h>
#include "../../mm/slab_internal.h"

void slab_fake_pages_init(void);
void slab_fake_pages_exit(void);

int slab_test_env_init(void);
void slab_test_env_exit(void);

#define HOST_TEST_CPUS 4

int slab_test_env_init(void)
{
	slab_fake_pages_init();
	host_cpu_id = 0;
	nr_cpu_ids = HOST_TEST_CPUS;
	kmem_cache_init(NULL);
	return 0;
}

void slab_test_env_exit(void)
{
	slab_host_reset();
	slab_fake_pages_exit();
	nr_cpu_ids = 1;
	host_cpu_id = 0;
}

#include "../kernel/slab_test.c"
