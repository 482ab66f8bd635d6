/*
 * test_mm_slab_geometry.c - the tight debug layouts
 * (tests/kernel/slab_geometry_test.c) on the host, under AddressSanitizer
 * and UBSan, in the slab tests' environment (test_mm_slab.c).
 */
#include "../kernel/slab_geometry_test.c"
