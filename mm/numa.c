/*
 * numa.c - the nodes: the firmware's topology checked against memory, node
 * states, distances, fallback orders and the numastat counters.
 * (The design is at the top of include/numa.h.)
 */
#include <numa.h>

struct numa_topology numa_firmware;
