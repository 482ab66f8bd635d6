/*
 * acpi.c - find the MADT and read the CPUs and interrupt routing from it.
 *
 * The chain (ACPI 6.5, ch. 5.2): the Root System Description Pointer
 * (RSDP, "RSD PTR ") points at the XSDT (64-bit pointers, ACPI 2.0+) and
 * the RSDT (32-bit pointers); each of those lists the other tables, each of
 * which starts with a common 36-byte header.  We look for the "APIC"
 * signature: the Multiple APIC Description Table, whose variable-length
 * entries describe local APICs (one per CPU), local x2APICs, I/O APICs,
 * ISA interrupt source overrides and local APIC NMI wiring.  A CPU whose
 * APIC id the chosen APIC mode cannot address (above 0xfe in xAPIC mode,
 * whether it came in an x2APIC entry or not) is dropped with a line naming
 * the id: an IPI to it would land on another CPU.
 * At most NR_CPUS CPUs are kept, the boot CPU always among them (one
 * slot waits for its entry wherever it comes), the others in MADT order;
 * acpi_init() says in one line how many enabled CPUs that left out.
 *
 * Where the RSDP comes from, in order: GRUB's multiboot2 ACPI tag (new or
 * old, copied into boot_info; under UEFI the only way, since UEFI firmware
 * need not put an RSDP in the BIOS areas), then a scan of the first KiB of
 * the EBDA and of the BIOS area 0xe0000-0xfffff on 16-byte boundaries
 * (ACPI 6.5, 5.2.5.1).  The RSDP and the root table are checked by
 * acpi_root.c (the checksum, and for an ACPI 2.0 RSDP its length and
 * extended checksum too); an ACPI 2.0+ RSDP leads to the XSDT (64-bit
 * table addresses), the RSDT serving only when the XSDT is missing or
 * refused.  Every other table's checksum is verified before it is trusted;
 * any failure leaves acpi_madt_info.valid false with one clear line, and
 * the boot log says which ACPI revision and root table were used.
 * `acpi=off` on the command line takes that path on purpose.
 *
 * NUMA: the SRAT ("SRAT", ACPI 6.5, 5.2.16: which proximity domain each
 * CPU and each range of memory is in) and the SLIT ("SLIT", 5.2.17: the
 * distances between domains) are read into numa_firmware by srat.c, which
 * checks each table on its own and refuses it whole, with one line, when
 * it is malformed.  acpi_init() only finds them and says in a line what
 * was read; whether the kernel runs that topology or one node is
 * mm/numa.c's decision (numa_init(), against the memory map).
 *
 * Tables are read through the direct map (everything below 4 GiB is in
 * it, whatever its memory type).  Runs once, on the boot CPU, before the
 * other CPUs start: no locks.
 */
#include <kernel.h>
#include <memlayout.h>
#include <numa.h>
#include <printk.h>
#include <string.h>
#include "acpi.h"
#include "acpi_root.h"
#include "multiboot2.h"
#include "srat.h"
#include "../../kernel/params.h"

#define EBDA_SEGMENT_PTR    0x40e      /* BDA word: EBDA segment */
#define EBDA_SCAN_LEN       1024
#define BIOS_AREA_START     0xe0000
#define BIOS_AREA_END       0x100000
#define RSDP_ALIGN          16
#define ACPI_TABLE_MAX_LEN  (1u << 20) /* sanity bound on a table length */

/* MADT entry types (ACPI 6.5, table 5.46). */
#define MADT_LOCAL_APIC          0
#define MADT_IO_APIC             1
#define MADT_INT_OVERRIDE        2
#define MADT_LOCAL_APIC_NMI      4
#define MADT_LOCAL_X2APIC        9
#define MADT_LOCAL_X2APIC_NMI    10
#define MADT_LAPIC_ENABLED       (1u << 0)
#define MADT_LAPIC_ONLINE_CAPABLE (1u << 1)

struct acpi_table_header {
	char signature[4];
	u32 length;
	u8 revision;
	u8 checksum;
	char oem_id[6];
	char oem_table_id[8];
	u32 oem_revision;
	u32 creator_id;
	u32 creator_revision;
} __packed;

struct acpi_madt {
	struct acpi_table_header header;
	u32 lapic_address;
	u32 flags;
} __packed;

struct madt_entry {
	u8 type;
	u8 length;
} __packed;

struct madt_local_apic {
	struct madt_entry h;
	u8 acpi_uid;
	u8 apic_id;
	u32 flags;
} __packed;

struct madt_io_apic {
	struct madt_entry h;
	u8 id;
	u8 reserved;
	u32 address;
	u32 gsi_base;
} __packed;

struct madt_int_override {
	struct madt_entry h;
	u8 bus;
	u8 source;
	u32 gsi;
	u16 flags;
} __packed;

struct madt_lapic_nmi {
	struct madt_entry h;
	u8 acpi_uid;
	u16 flags;
	u8 lint;
} __packed;

struct madt_local_x2apic {
	struct madt_entry h;
	u16 reserved;
	u32 x2apic_id;
	u32 flags;
	u32 acpi_uid;
} __packed;

struct madt_x2apic_nmi {
	struct madt_entry h;
	u16 flags;
	u32 acpi_uid;
	u8 lint;
	u8 reserved[3];
} __packed;

struct acpi_madt_info acpi_madt_info;

u8 acpi_checksum(const void *p, size_t len)
{
	const u8 *b = p;
	u8 sum = 0;

	while (len--)
		sum += *b++;
	return sum;
}

/* A quiet check, for the scan of the BIOS areas: most places are no RSDP. */
static bool rsdp_valid(const void *p, size_t avail, struct acpi_root *root)
{
	char why[ACPI_WHY_MAX];

	return acpi_rsdp_check(p, avail, root, why);
}

static bool scan_for_rsdp(phys_addr_t start, phys_addr_t end,
			  struct acpi_root *root)
{
	phys_addr_t p;

	for (p = start; p + ACPI_RSDP_V1_LEN <= end; p += RSDP_ALIGN)
		if (rsdp_valid(phys_to_virt(p), end - p, root))
			return true;
	return false;
}

/*
 * The RSDP GRUB copied into its tag (checked, and the reason printed when
 * it is refused), else the first good one in the EBDA or the BIOS area (a
 * UEFI machine has neither: GRUB's tag is the way there).
 */
static bool find_rsdp(struct acpi_root *root, const char **source)
{
	char why[ACPI_WHY_MAX];
	phys_addr_t ebda;

	if (boot_info.rsdp_len) {
		if (acpi_rsdp_check(boot_info.rsdp, boot_info.rsdp_len, root,
				    why)) {
			*source = boot_info.rsdp_is_v2 ? "multiboot2 ACPI 2.0 tag" :
							 "multiboot2 ACPI 1.0 tag";
			return true;
		}
		pr_warn("acpi: the RSDP from the boot loader's %s tag is refused: %s; scanning the BIOS areas\n",
			boot_info.rsdp_is_v2 ? "ACPI 2.0" : "ACPI 1.0", why);
	}
	ebda = (phys_addr_t)*(const u16 *)phys_to_virt(EBDA_SEGMENT_PTR) << 4;
	if (ebda && ebda < BIOS_AREA_END &&
	    scan_for_rsdp(ebda, ebda + EBDA_SCAN_LEN, root)) {
		*source = "the EBDA";
		return true;
	}
	*source = "the BIOS area";
	return scan_for_rsdp(BIOS_AREA_START, BIOS_AREA_END, root);
}

/* A table header at `phys`, checked; NULL (with a message) if bad. */
static const struct acpi_table_header *map_table(u64 phys)
{
	const struct acpi_table_header *h;

	if (!phys || phys + sizeof(*h) > SZ_4G) {
		pr_warn("acpi: table address %#lx is outside the direct map\n",
			(unsigned long)phys);
		return NULL;
	}
	h = phys_to_virt(phys);
	if (h->length < sizeof(*h) || h->length > ACPI_TABLE_MAX_LEN ||
	    phys + h->length > SZ_4G) {
		pr_warn("acpi: table %.4s at %#lx has a bad length %u\n",
			h->signature, (unsigned long)phys, h->length);
		return NULL;
	}
	if (acpi_checksum(h, h->length)) {
		pr_warn("acpi: table %.4s at %#lx fails its checksum\n",
			h->signature, (unsigned long)phys);
		return NULL;
	}
	return h;
}

/* The first table of signature `sig` the root table lists, checked. */
static const struct acpi_table_header *find_table(
	const struct acpi_sdt_view *sdt, const char *sig)
{
	unsigned int i;

	for (i = 0; i < sdt->nr; i++) {
		u64 phys = acpi_sdt_entry(sdt, i);
		const struct acpi_table_header *h;

		if (!phys || phys + sizeof(*h) > SZ_4G)
			continue;
		h = phys_to_virt(phys);
		if (memcmp(h->signature, sig, 4))
			continue;
		return map_table(phys);
	}
	return NULL;
}

static void add_cpu(struct acpi_madt_info *out, u32 apic_id, u32 flags)
{
	unsigned int i;

	if (!(flags & (MADT_LAPIC_ENABLED | MADT_LAPIC_ONLINE_CAPABLE))) {
		out->nr_cpus_skipped++;
		return;
	}
	if (apic_id > out->max_apic_id) {
		/* xAPIC mode: `dest << 24` would send its INIT elsewhere. */
		pr_warn("acpi: CPU with APIC id %u (%#x) skipped: this APIC mode addresses ids up to %#x only%s\n",
			apic_id, apic_id, out->max_apic_id,
			out->max_apic_id == XAPIC_MAX_APIC_ID ?
			" (xAPIC: x2APIC is off or absent)" : "");
		out->nr_cpus_unreachable++;
		out->nr_cpus_skipped++;
		return;
	}
	for (i = 0; i < out->nr_cpus; i++) {
		if (out->cpu_apic_ids[i] == apic_id) {
			out->nr_cpus_skipped++;   /* a repeated entry */
			return;
		}
	}
	/* One slot stays the boot CPU's until its entry comes: it runs
	 * already, and start_all_aps() numbers the others after it. */
	if (apic_id == out->boot_apic_id)
		out->boot_cpu_listed = true;
	else if (out->nr_cpus + !out->boot_cpu_listed >= NR_CPUS) {
		out->nr_cpus_over_limit++;
		out->nr_cpus_skipped++;
		return;
	}
	out->cpu_apic_ids[out->nr_cpus++] = apic_id;
}

static void add_lapic_nmi(struct acpi_madt_info *out, u32 uid, u16 flags,
			  u8 lint)
{
	if (out->nr_lapic_nmis == ACPI_MAX_LAPIC_NMIS)
		return;
	out->lapic_nmis[out->nr_lapic_nmis].acpi_uid = uid;
	out->lapic_nmis[out->nr_lapic_nmis].flags = flags;
	out->lapic_nmis[out->nr_lapic_nmis].lint = lint;
	out->nr_lapic_nmis++;
}

static void parse_entry(const struct madt_entry *e, struct acpi_madt_info *out)
{
	switch (e->type) {
	case MADT_LOCAL_APIC: {
		const struct madt_local_apic *l = (const void *)e;

		if (e->length >= sizeof(*l))
			add_cpu(out, l->apic_id, l->flags);
		break;
	}
	case MADT_LOCAL_X2APIC: {
		const struct madt_local_x2apic *l = (const void *)e;

		if (e->length >= sizeof(*l))
			add_cpu(out, l->x2apic_id, l->flags);
		break;
	}
	case MADT_IO_APIC: {
		const struct madt_io_apic *io = (const void *)e;

		if (e->length < sizeof(*io) || out->nr_ioapics == ACPI_MAX_IOAPICS)
			break;
		out->ioapics[out->nr_ioapics].id = io->id;
		out->ioapics[out->nr_ioapics].phys_addr = io->address;
		out->ioapics[out->nr_ioapics].gsi_base = io->gsi_base;
		out->nr_ioapics++;
		break;
	}
	case MADT_INT_OVERRIDE: {
		const struct madt_int_override *o = (const void *)e;

		if (e->length < sizeof(*o) ||
		    out->nr_overrides == ACPI_MAX_OVERRIDES)
			break;
		out->overrides[out->nr_overrides].source_irq = o->source;
		out->overrides[out->nr_overrides].gsi = o->gsi;
		out->overrides[out->nr_overrides].flags = o->flags;
		out->nr_overrides++;
		break;
	}
	case MADT_LOCAL_APIC_NMI: {
		const struct madt_lapic_nmi *n = (const void *)e;

		if (e->length >= sizeof(*n))
			add_lapic_nmi(out, n->acpi_uid, n->flags, n->lint);
		break;
	}
	case MADT_LOCAL_X2APIC_NMI: {
		const struct madt_x2apic_nmi *n = (const void *)e;

		if (e->length >= sizeof(*n))
			add_lapic_nmi(out, n->acpi_uid, n->flags, n->lint);
		break;
	}
	default:
		break;  /* other entry types do not concern us */
	}
}

bool acpi_parse_madt(const void *table, u32 max_apic_id, u32 boot_apic_id,
		     struct acpi_madt_info *out)
{
	const struct acpi_madt *madt = table;
	const u8 *p = (const u8 *)(madt + 1);
	const u8 *end = (const u8 *)madt + madt->header.length;

	memset(out, 0, sizeof(*out));
	out->max_apic_id = max_apic_id;
	out->boot_apic_id = boot_apic_id;
	if (madt->header.length < sizeof(*madt) ||
	    acpi_checksum(madt, madt->header.length))
		return false;
	out->lapic_phys = madt->lapic_address;
	out->madt_flags = madt->flags;
	while (p + sizeof(struct madt_entry) <= end) {
		const struct madt_entry *e = (const void *)p;

		if (e->length < sizeof(*e) || p + e->length > end)
			break;   /* a malformed entry ends the walk */
		parse_entry(e, out);
		p += e->length;
	}
	out->valid = out->nr_cpus > 0;
	return out->valid;
}

u32 acpi_isa_irq_to_gsi(unsigned int irq, u16 *flags)
{
	unsigned int i;

	*flags = 0;
	for (i = 0; i < acpi_madt_info.nr_overrides; i++) {
		const struct acpi_irq_override *o = &acpi_madt_info.overrides[i];

		if (o->source_irq == irq) {
			*flags = o->flags;
			return o->gsi;
		}
	}
	return irq;   /* ISA IRQs are identity-mapped unless overridden */
}

/*
 * The NUMA topology: the SRAT into numa_firmware, then, if it was
 * accepted, the SLIT on top of it.  Each says in one line what it found;
 * a table refused says why itself (srat.c).  Whether the kernel runs that
 * topology is mm/numa.c's decision (numa_init()).
 */
static void acpi_read_numa(const struct acpi_sdt_view *sdt)
{
	const struct acpi_table_header *srat, *slit;
	struct numa_topology *t = &numa_firmware;

	srat = find_table(sdt, "SRAT");
	if (!srat) {
		pr_info("numa: no SRAT: one node\n");
		return;
	}
	if (!acpi_parse_srat(srat, srat->length, t))
		return;
	pr_info("numa: SRAT: %u node%s, %u memory range%s, %u CPU%s\n",
		t->nr_nodes, t->nr_nodes == 1 ? "" : "s",
		t->nr_memblks, t->nr_memblks == 1 ? "" : "s",
		t->nr_cpus, t->nr_cpus == 1 ? "" : "s");
	slit = find_table(sdt, "SLIT");
	if (!slit) {
		pr_info("numa: no SLIT: default distances\n");
		return;
	}
	if (acpi_parse_slit(slit, slit->length, t))
		pr_info("numa: SLIT: distances read for %u domain%s\n",
			t->nr_nodes, t->nr_nodes == 1 ? "" : "s");
}

/*
 * The root table at `phys` (the XSDT when is_xsdt), checked whole: false,
 * with the reason printed, when it is refused.
 */
static bool read_root_table(u64 phys, bool is_xsdt, struct acpi_sdt_view *v)
{
	const char *name = is_xsdt ? "XSDT" : "RSDT";
	const struct acpi_table_header *h;
	char why[ACPI_WHY_MAX];

	if (!phys || phys + sizeof(*h) > SZ_4G) {
		pr_warn("acpi: the RSDP's %s address %#lx is outside the direct map\n",
			name, (unsigned long)phys);
		return false;
	}
	h = phys_to_virt(phys);
	if (acpi_sdt_check(h, h->length <= ACPI_TABLE_MAX_LEN &&
			   phys + h->length <= SZ_4G ? h->length : sizeof(*h),
			   is_xsdt, v, why))
		return true;
	pr_warn("acpi: %s at %#lx refused: %s\n", name, (unsigned long)phys,
		why);
	return false;
}

void acpi_init(u32 max_apic_id, u32 boot_apic_id)
{
	struct acpi_root root;
	struct acpi_sdt_view sdt;
	const struct acpi_table_header *madt;
	const char *source = "nowhere";
	bool xsdt = false;

	if (param_choice(PARAM_ACPI) == PARAM_ACPI_OFF) {
		pr_info("acpi: off (command line): running on the boot CPU only\n");
		return;
	}
	if (!find_rsdp(&root, &source)) {
		pr_warn("acpi: no valid RSDP found: running on the boot CPU only\n");
		return;
	}
	/* ACPI 2.0+: the XSDT and its 64-bit addresses; the RSDT only
	 * when there is no good XSDT (5.2.5.3: "the OS should use the XSDT"). */
	if (root.xsdt_phys)
		xsdt = read_root_table(root.xsdt_phys, true, &sdt);
	if (!xsdt && !read_root_table(root.rsdt_phys, false, &sdt)) {
		pr_warn("acpi: no valid XSDT or RSDT: running on the boot CPU only\n");
		return;
	}
	madt = find_table(&sdt, "APIC");
	if (!madt) {
		pr_warn("acpi: no valid MADT: running on the boot CPU only\n");
		return;
	}
	if (!acpi_parse_madt(madt, max_apic_id, boot_apic_id, &acpi_madt_info)) {
		pr_warn("acpi: the MADT lists no usable CPU: running on the boot CPU only\n");
		return;
	}
	acpi_madt_info.source = source;
	acpi_madt_info.rsdp_revision = root.revision;
	memcpy(acpi_madt_info.oem_id, root.oem_id, sizeof(root.oem_id));
	acpi_read_numa(&sdt);
	if (acpi_madt_info.nr_cpus_over_limit)
		pr_warn("acpi: %u enabled CPU%s skipped: this kernel runs at most NR_CPUS = %u CPUs (the boot CPU, APIC id %u, among them)\n",
			acpi_madt_info.nr_cpus_over_limit,
			acpi_madt_info.nr_cpus_over_limit == 1 ? "" : "s",
			NR_CPUS, boot_apic_id);
	pr_info("acpi: %s (RSDP revision %u, OEM \"%s\"), %s of %u tables%s\n",
		acpi_revision_name(root.revision), root.revision, root.oem_id,
		xsdt ? "XSDT with 64-bit addresses" : "RSDT", sdt.nr,
		sdt.nr_null ? " (some entries 0, skipped)" : "");
	pr_info("acpi: RSDP from %s, %s, MADT: %u CPU%s, %u I/O APIC%s, %u override%s, %u LAPIC NMI entr%s\n",
		source, xsdt ? "XSDT" : "RSDT",
		acpi_madt_info.nr_cpus, acpi_madt_info.nr_cpus == 1 ? "" : "s",
		acpi_madt_info.nr_ioapics, acpi_madt_info.nr_ioapics == 1 ? "" : "s",
		acpi_madt_info.nr_overrides,
		acpi_madt_info.nr_overrides == 1 ? "" : "s",
		acpi_madt_info.nr_lapic_nmis,
		acpi_madt_info.nr_lapic_nmis == 1 ? "y" : "ies");
}
