/*
 * acpi.h - what the firmware's ACPI tables say about CPUs and interrupts.
 *
 * acpi_init() finds the RSDP, checks every checksum, walks the XSDT (or
 * the RSDT) to the MADT ("APIC" table) and fills `acpi_madt_info` below.
 * Any problem (no RSDP, bad checksum, no MADT) is reported in one line and
 * leaves acpi_madt_info.valid false: the kernel then runs on the boot CPU
 * alone, with the ISA defaults for interrupts.
 */
#ifndef ARCH_X86_64_ACPI_H
#define ARCH_X86_64_ACPI_H

#include <types.h>
#include <smp.h>

#define ACPI_MAX_IOAPICS   4
#define ACPI_MAX_OVERRIDES 16
#define ACPI_MAX_LAPIC_NMIS 8
#define ACPI_ISA_IRQS      16

/* MPS INTI flags of an override or an NMI entry (ACPI 6.5, table 5.50). */
#define ACPI_POLARITY_MASK       0x3
#define ACPI_POLARITY_ACTIVE_LOW 0x3
#define ACPI_TRIGGER_MASK        0xc
#define ACPI_TRIGGER_LEVEL       0xc

struct acpi_ioapic {
	u32 id;
	u32 phys_addr;
	u32 gsi_base;
};

struct acpi_irq_override {
	u8 source_irq;   /* ISA IRQ */
	u32 gsi;         /* where it really arrives */
	u16 flags;       /* polarity and trigger mode */
};

struct acpi_lapic_nmi {
	u32 acpi_uid;    /* processor UID, 0xff / 0xffffffff: every CPU */
	u16 flags;
	u8 lint;         /* LINT0 or LINT1 */
};

struct acpi_madt_info {
	bool valid;
	const char *source;          /* where the RSDP was found */
	u8 rsdp_revision;            /* 0: ACPI 1.0, 2: ACPI 2.0+ */
	char oem_id[7];              /* the RSDP's, NUL-terminated */
	u32 lapic_phys;              /* the local APICs' MMIO address */
	u32 madt_flags;
	u32 max_apic_id;             /* what the parse was asked to accept */
	u32 boot_apic_id;            /* the CPU that parsed: always kept */
	bool boot_cpu_listed;        /* its entry was found */
	unsigned int nr_cpus;        /* enabled CPUs, duplicates removed */
	u32 cpu_apic_ids[NR_CPUS];   /* in MADT order */
	unsigned int nr_cpus_skipped; /* disabled, duplicate, unreachable, or
					 beyond NR_CPUS */
	unsigned int nr_cpus_unreachable; /* APIC id above max_apic_id */
	unsigned int nr_cpus_over_limit; /* enabled, but NR_CPUS were kept */
	unsigned int nr_ioapics;
	struct acpi_ioapic ioapics[ACPI_MAX_IOAPICS];
	unsigned int nr_overrides;
	struct acpi_irq_override overrides[ACPI_MAX_OVERRIDES];
	unsigned int nr_lapic_nmis;
	struct acpi_lapic_nmi lapic_nmis[ACPI_MAX_LAPIC_NMIS];
};

extern struct acpi_madt_info acpi_madt_info;

/* max_apic_id, boot_apic_id: as for acpi_parse_madt(). */
void acpi_init(u32 max_apic_id, u32 boot_apic_id);
/* Sum of `len` bytes modulo 256; a valid ACPI structure sums to 0. */
u8 acpi_checksum(const void *p, size_t len);
/*
 * The largest APIC id the kernel can send an IPI to, by APIC mode: xAPIC
 * destinations are 8 bits and 0xff is the broadcast (SDM vol. 3A, 11.6.1),
 * x2APIC ones 32 bits with 0xffffffff the broadcast (11.12.9).
 */
#define XAPIC_MAX_APIC_ID  0xfeu
#define X2APIC_MAX_APIC_ID 0xfffffffeu

/* Parse a MADT at `madt` (exposed for the tests' fabricated tables); a
 * CPU whose APIC id is above max_apic_id is skipped with a message.
 * boot_apic_id is the CPU running this (from its own local APIC). */
bool acpi_parse_madt(const void *madt, u32 max_apic_id, u32 boot_apic_id,
		     struct acpi_madt_info *out);
/* The GSI and flags of ISA IRQ `irq` after the overrides. */
u32 acpi_isa_irq_to_gsi(unsigned int irq, u16 *flags);

#endif
