/*
 * acpi_root.c - check the RSDP and the XSDT/RSDT before trusting them.
 *
 * The layouts and the contract are in acpi_root.h.  Every check reads only
 * the bytes the caller says are there and says, when it refuses, which
 * rule broke and the numbers that show it: the signature it found, the
 * length a structure claims against the bytes there are, what its bytes
 * sum to.  Portable C, built into the kernel and the host tests; no state,
 * no locks.
 */
#include <kernel.h>
#include <printk.h>
#include <string.h>
#include <types.h>
#include <unaligned.h>
#include "acpi_root.h"

/* RSDP fields (ACPI 6.5, table 5.3). */
#define RSDP_CHECKSUM        8
#define RSDP_OEM_ID          9
#define RSDP_REVISION        15
#define RSDP_RSDT_ADDRESS    16
#define RSDP_LENGTH          20
#define RSDP_XSDT_ADDRESS    24

/* The common table header (5.2.6, table 5.4). */
#define SDT_LENGTH           4

#define XSDT_ENTRY_SIZE      8
#define RSDT_ENTRY_SIZE      4

static u8 sum_bytes(const u8 *p, size_t len)
{
	u8 sum = 0;

	while (len--)
		sum += *p++;
	return sum;
}

const char *acpi_revision_name(u8 rsdp_revision)
{
	return rsdp_revision >= ACPI_RSDP_REVISION_2 ? "ACPI 2.0+" : "ACPI 1.0";
}

bool acpi_rsdp_check(const void *p, size_t len, struct acpi_root *out,
		     char *why)
{
	const u8 *b = p;
	u32 length;
	u8 sum;

	memset(out, 0, sizeof(*out));
	if (len < ACPI_RSDP_V1_LEN) {
		snprintf(why, ACPI_WHY_MAX, "RSDP cut short: %zu bytes, an ACPI 1.0 RSDP is %u",
			 len, ACPI_RSDP_V1_LEN);
		return false;
	}
	if (memcmp(b, ACPI_RSDP_SIGNATURE, strlen(ACPI_RSDP_SIGNATURE))) {
		snprintf(why, ACPI_WHY_MAX, "RSDP signature is not \"%s\"",
			 ACPI_RSDP_SIGNATURE);
		return false;
	}
	sum = sum_bytes(b, ACPI_RSDP_V1_LEN);
	if (sum) {
		snprintf(why, ACPI_WHY_MAX, "RSDP checksum is wrong: its first %u bytes sum to %#x, not 0",
			 ACPI_RSDP_V1_LEN, sum);
		return false;
	}
	out->revision = b[RSDP_REVISION];
	memcpy(out->oem_id, b + RSDP_OEM_ID, ACPI_OEM_ID_LEN);
	out->oem_id[ACPI_OEM_ID_LEN] = '\0';
	out->rsdt_phys = get_unaligned_le32(b + RSDP_RSDT_ADDRESS);
	out->length = ACPI_RSDP_V1_LEN;
	if (out->revision < ACPI_RSDP_REVISION_2)
		return true;
	if (len < ACPI_RSDP_V2_LEN) {
		snprintf(why, ACPI_WHY_MAX, "ACPI 2.0 RSDP (revision %u) cut short: %zu bytes of %u",
			 out->revision, len, ACPI_RSDP_V2_LEN);
		return false;
	}
	length = get_unaligned_le32(b + RSDP_LENGTH);
	if (length < ACPI_RSDP_V2_LEN || length > len) {
		snprintf(why, ACPI_WHY_MAX, "ACPI 2.0 RSDP says it is %u bytes: at least %u, and %zu are there",
			 length, ACPI_RSDP_V2_LEN, len);
		return false;
	}
	sum = sum_bytes(b, length);
	if (sum) {
		snprintf(why, ACPI_WHY_MAX, "ACPI 2.0 RSDP extended checksum is wrong: its %u bytes sum to %#x, not 0",
			 length, sum);
		return false;
	}
	out->length = length;
	out->xsdt_phys = get_unaligned_le64(b + RSDP_XSDT_ADDRESS);
	return true;
}

bool acpi_sdt_check(const void *p, size_t len, bool is_xsdt,
		    struct acpi_sdt_view *out, char *why)
{
	const char *sig = is_xsdt ? "XSDT" : "RSDT";
	const u8 *b = p;
	unsigned int i;
	u32 length;
	u8 sum;

	memset(out, 0, sizeof(*out));
	if (len < ACPI_SDT_HEADER_LEN) {
		snprintf(why, ACPI_WHY_MAX, "%s cut short: %zu bytes, its header alone is %u",
			 sig, len, ACPI_SDT_HEADER_LEN);
		return false;
	}
	if (memcmp(b, sig, 4)) {
		snprintf(why, ACPI_WHY_MAX, "%s expected, the signature is \"%c%c%c%c\"",
			 sig, b[0] >= ' ' && b[0] < 0x7f ? b[0] : '?',
			 b[1] >= ' ' && b[1] < 0x7f ? b[1] : '?',
			 b[2] >= ' ' && b[2] < 0x7f ? b[2] : '?',
			 b[3] >= ' ' && b[3] < 0x7f ? b[3] : '?');
		return false;
	}
	length = get_unaligned_le32(b + SDT_LENGTH);
	if (length < ACPI_SDT_HEADER_LEN || length > len) {
		snprintf(why, ACPI_WHY_MAX, "%s says it is %u bytes: at least %u, and %zu are there",
			 sig, length, ACPI_SDT_HEADER_LEN, len);
		return false;
	}
	out->entry_size = is_xsdt ? XSDT_ENTRY_SIZE : RSDT_ENTRY_SIZE;
	if ((length - ACPI_SDT_HEADER_LEN) % out->entry_size) {
		snprintf(why, ACPI_WHY_MAX, "%s of %u bytes: its %u bytes after the header are no whole number of %u-byte addresses",
			 sig, length, length - ACPI_SDT_HEADER_LEN,
			 out->entry_size);
		return false;
	}
	sum = sum_bytes(b, length);
	if (sum) {
		snprintf(why, ACPI_WHY_MAX, "%s checksum is wrong: its %u bytes sum to %#x, not 0",
			 sig, length, sum);
		return false;
	}
	out->entries = b + ACPI_SDT_HEADER_LEN;
	out->nr = (length - ACPI_SDT_HEADER_LEN) / out->entry_size;
	for (i = 0; i < out->nr; i++)
		if (!acpi_sdt_entry(out, i))
			out->nr_null++;
	return true;
}

u64 acpi_sdt_entry(const struct acpi_sdt_view *view, unsigned int i)
{
	const u8 *e = view->entries + (size_t)i * view->entry_size;

	return view->entry_size == XSDT_ENTRY_SIZE ? get_unaligned_le64(e) : get_unaligned_le32(e);
}
