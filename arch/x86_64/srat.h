/*
 * srat.h - read the firmware's NUMA topology out of the ACPI SRAT and SLIT.
 *
 * The two parsers are plain byte arithmetic over a buffer: no direct map,
 * no memlayout, so the same srat.c builds into the kernel (acpi.c hands it
 * the mapped tables) and into the host test program, where ASan watches
 * every byte it reads (tests/host/test_mm_srat.c).
 *
 * The contract of both parsers:
 *   - they read only bytes [0, len) of `table`, whatever the table says
 *     about its own length or its entries' lengths;
 *   - they accept the table whole or refuse it whole: a refusal prints
 *     exactly one pr_warn line naming what is wrong and where (entry index,
 *     byte offset, the domain, APIC id or address concerned) and leaves
 *     the topology in the state the caller's fallback expects;
 *   - the line of the last warning they printed is kept, so a test can
 *     check the words without capturing the console
 *     (acpi_numa_last_warning()).
 * Boot CPU only, before the other CPUs start: no locks.
 */
#ifndef ARCH_X86_64_SRAT_H
#define ARCH_X86_64_SRAT_H

#include <types.h>
#include <numa.h>

/*
 * The SRAT (ACPI 6.5, 5.2.16): `table` points at its first byte (the
 * 36-byte common header), `len` bytes of it may be read (the header's
 * length, after the caller checked the checksum).
 *
 * Accepted: *t holds the topology (valid true, has_distances false, nodes
 * numbered by increasing proximity domain, memory ranges sorted by start
 * with overlapping or touching ranges of one domain merged, enabled CPUs
 * with their node, the default distances until a SLIT says otherwise) and
 * the function returns true.
 * Refused: *t is all zero (valid false: the caller runs one node), one
 * line "numa: SRAT ...; using one node" was printed, and it returns false.
 */
bool acpi_parse_srat(const void *table, size_t len, struct numa_topology *t);

/*
 * The SLIT (ACPI 6.5, 5.2.17), read on top of a topology an accepted SRAT
 * filled (t->valid true): t->pxm[] says which of the SLIT's rows and
 * columns are the nodes'.  `table` and `len` as for the SRAT.
 *
 * Accepted: t->distance[a][b] is the SLIT's distance from node a's domain
 * to node b's, as given (an asymmetric table stays asymmetric, 0xff
 * "unreachable" stays 0xff), has_distances is true, and it returns true.
 * Refused: has_distances is false, t->distance[][] holds the defaults
 * (LOCAL_DISTANCE on the diagonal, REMOTE_DISTANCE elsewhere), one line
 * "numa: SLIT ...; using the default distances (10 local, 20 remote)" was
 * printed, and it returns false.  The rest of *t is never touched.
 */
bool acpi_parse_slit(const void *table, size_t len, struct numa_topology *t);

/*
 * The last line (without its newline) acpi_parse_srat() or
 * acpi_parse_slit() printed with pr_warn during their last call: a
 * refusal, or a repeated CPU entry that was accepted.  "" when the last
 * call printed no warning.
 */
const char *acpi_numa_last_warning(void);

#endif /* ARCH_X86_64_SRAT_H */
