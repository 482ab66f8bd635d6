/*
 * multiboot2.c - read GRUB's boot information into struct boot_info.
 *
 * The information block is a u32 total size, a u32 reserved, then tags, each
 * starting on an 8-byte boundary with a u32 type and a u32 size (which does
 * not include the padding).  We copy what we need (the memory map, the
 * command line, modules, the ACPI RSDP) into boot_info right away, so nothing
 * later depends on where GRUB put the block or on its memory staying intact.
 * The command line and loader name are copied too; pointers into the block
 * would dangle once the memory allocator hands that memory out.
 *
 * The memory map: under UEFI two tags describe it, the firmware's EFI map
 * (tag 17) and GRUB's translation of it into E820 types (tag 6).  Both are
 * noted during the walk and chosen after it: the EFI map when it converts
 * (efi_mmap.c: it knows runtime regions, which GRUB's translation may
 * call "reserved" or lose), else tag 6.  One line of the boot log says
 * which firmware, and which map, were used.
 */
#include <printk.h>
#include <string.h>
#include "multiboot2.h"
#include "efi_mmap.h"

#define MB2_TAG_ALIGN 8
#define BOOT_STRING_MAX 512          /* the boot loader's name */

struct mb2_tag {
	u32 type;
	u32 size;
};

struct mb2_tag_string {
	u32 type, size;
	char string[];
};

struct mb2_tag_module {
	u32 type, size;
	u32 mod_start, mod_end;
	char cmdline[];
};

struct mb2_tag_mmap {
	u32 type, size;
	u32 entry_size, entry_version;
	/* entries follow */
};

struct mb2_mmap_entry {
	u64 base_addr;
	u64 length;
	u32 type;
	u32 reserved;
};

struct mb2_tag_efi64 {
	u32 type, size;
	u64 pointer;
};

struct mb2_tag_efi32 {
	u32 type, size;
	u32 pointer;
};

struct boot_info boot_info;
static char cmdline_copy[BOOT_CMDLINE_MAX];
static char loader_copy[BOOT_STRING_MAX];

/*
 * GRUB's multiboot2 command builds the command line from its arguments,
 * writing each \, ' and " as \\, \' and \" (and wrapping an argument that
 * holds a space in double quotes; scripts/mkiso.sh passes one word per
 * argument, without spaces).  Undone in place, the line reads as typed.
 */
static void grub_unescape(char *s)
{
	char *out = s;

	for (; *s; s++) {
		if (s[0] == '\\' &&
		    (s[1] == '\\' || s[1] == '\'' || s[1] == '"'))
			s++;
		*out++ = *s;
	}
	*out = '\0';
}

const char *mb2_memory_type_name(u32 type)
{
	switch (type) {
	case MB2_MEMORY_AVAILABLE:        return "usable";
	case MB2_MEMORY_RESERVED:         return "reserved";
	case MB2_MEMORY_ACPI_RECLAIMABLE: return "ACPI data";
	case MB2_MEMORY_NVS:              return "ACPI NVS";
	case MB2_MEMORY_BADRAM:           return "bad RAM";
	default:                          return "unknown";
	}
}

static void parse_mmap(const struct mb2_tag_mmap *t)
{
	const u8 *p = (const u8 *)(t + 1);
	const u8 *end = (const u8 *)t + t->size;

	if (t->entry_size < sizeof(struct mb2_mmap_entry)) {
		pr_err("multiboot2: memory map entry size %u is too small, map ignored\n",
		       t->entry_size);
		return;
	}
	for (; p + sizeof(struct mb2_mmap_entry) <= end; p += t->entry_size) {
		const struct mb2_mmap_entry *e = (const void *)p;
		struct boot_mmap_entry *out;

		if (boot_info.nr_mmap == BOOT_MMAP_MAX) {
			boot_info.mmap_dropped++;
			continue;
		}
		out = &boot_info.mmap[boot_info.nr_mmap++];
		out->base = e->base_addr;
		out->length = e->length;
		out->type = e->type;
	}
}

/* The EFI map when it converts, else the E820-style one, else none. */
static void choose_mmap(const struct mb2_tag *efi, const struct mb2_tag *e820)
{
	struct efi_mmap_stats st;

	if (efi) {
		if (efi_mmap_parse_tag(efi, efi->size, boot_info.mmap,
				       BOOT_MMAP_MAX, &boot_info.nr_mmap,
				       &st)) {
			boot_info.mmap_source = BOOT_MMAP_EFI;
			boot_info.mmap_dropped = st.dropped;
			boot_info.efi_nr_desc = st.nr_desc;
			boot_info.efi_runtime = st.runtime;
			boot_info.efi_boot_services_bytes =
				st.boot_services_bytes;
			return;
		}
		boot_info.efi_mmap_refused = true;
	}
	if (e820) {
		parse_mmap((const void *)e820);
		boot_info.mmap_source = BOOT_MMAP_E820;
	}
}

/* One line: which firmware, and where the memory map came from. */
static void report_firmware(void)
{
	if (boot_info.firmware == BOOT_FIRMWARE_BIOS)
		pr_info("boot: BIOS firmware (GRUB passed no EFI system table)\n");
	else
		pr_info("boot: UEFI firmware, EFI system table at %#lx, boot services %s\n",
			(unsigned long)boot_info.efi_system_table,
			boot_info.efi_boot_services ?
			"still running (GRUB was asked to keep them)" :
			"exited by GRUB");
	switch (boot_info.mmap_source) {
	case BOOT_MMAP_EFI:
		pr_info("boot: memory map from the EFI memory map tag: %u descriptors in %u ranges, %u runtime descriptors kept reserved, %lu KiB of boot-services memory usable\n",
			boot_info.efi_nr_desc, boot_info.nr_mmap,
			boot_info.efi_runtime,
			(unsigned long)(boot_info.efi_boot_services_bytes >> 10));
		break;
	case BOOT_MMAP_E820:
		pr_info("boot: memory map from the multiboot2 memory map tag (E820 types%s): %u entries\n",
			boot_info.efi_mmap_refused ?
			", GRUB's translation; the EFI map was refused" :
			boot_info.firmware == BOOT_FIRMWARE_UEFI ?
			", GRUB's translation; no EFI map was passed" :
			", from the BIOS", boot_info.nr_mmap);
		break;
	case BOOT_MMAP_NONE:
		pr_err("boot: GRUB passed no memory map\n");
		break;
	}
}

bool multiboot2_parse(u32 magic, const void *info, phys_addr_t info_phys)
{
	const struct mb2_tag *efi_mmap = NULL, *e820_mmap = NULL;
	const u8 *base = info;
	u32 total;
	const u8 *p, *end;

	memset(&boot_info, 0, sizeof(boot_info));
	if (magic != MB2_BOOTLOADER_MAGIC) {
		pr_err("multiboot2: bad magic %#x (expected %#x): not booted by a multiboot2 loader?\n",
		       magic, MB2_BOOTLOADER_MAGIC);
		return false;
	}
	total = *(const u32 *)base;
	boot_info.info_phys = info_phys;
	boot_info.info_size = total;
	p = base + 8;
	end = base + total;
	while (p + sizeof(struct mb2_tag) <= end) {
		const struct mb2_tag *tag = (const void *)p;

		if (tag->type == MB2_TAG_END)
			break;
		if (tag->size < sizeof(*tag) || p + tag->size > end) {
			pr_err("multiboot2: tag type %u has bad size %u, stopping\n",
			       tag->type, tag->size);
			break;
		}
		switch (tag->type) {
		case MB2_TAG_CMDLINE:
			/* Its whole length, so that a line longer than the
			 * copy is refused rather than quietly cut. */
			boot_info.cmdline_len = strlcpy(cmdline_copy,
				((const struct mb2_tag_string *)tag)->string,
				sizeof(cmdline_copy));
			grub_unescape(cmdline_copy);
			boot_info.cmdline = cmdline_copy;
			break;
		case MB2_TAG_LOADER:
			strlcpy(loader_copy,
				((const struct mb2_tag_string *)tag)->string,
				sizeof(loader_copy));
			boot_info.loader_name = loader_copy;
			break;
		case MB2_TAG_MODULE: {
			const struct mb2_tag_module *m = (const void *)tag;

			if (boot_info.nr_modules < BOOT_MODULES_MAX) {
				boot_info.modules[boot_info.nr_modules].start =
					m->mod_start;
				boot_info.modules[boot_info.nr_modules].end =
					m->mod_end;
				boot_info.nr_modules++;
			}
			break;
		}
		case MB2_TAG_MMAP:
			e820_mmap = tag;
			break;
		case MB2_TAG_EFI_MMAP:
			efi_mmap = tag;
			break;
		case MB2_TAG_EFI64:
			if (tag->size >= sizeof(struct mb2_tag_efi64)) {
				boot_info.firmware = BOOT_FIRMWARE_UEFI;
				boot_info.efi_system_table =
					((const struct mb2_tag_efi64 *)tag)->pointer;
			}
			break;
		case MB2_TAG_EFI32:
			if (tag->size >= sizeof(struct mb2_tag_efi32)) {
				boot_info.firmware = BOOT_FIRMWARE_UEFI;
				boot_info.efi_system_table =
					((const struct mb2_tag_efi32 *)tag)->pointer;
			}
			break;
		case MB2_TAG_EFI_BS:
			boot_info.efi_boot_services = true;
			break;
		case MB2_TAG_ACPI_OLD:
		case MB2_TAG_ACPI_NEW: {
			u32 len = tag->size - sizeof(*tag);

			/* Prefer the ACPI 2.0 RSDP when both are given. */
			if (boot_info.rsdp_is_v2 && tag->type == MB2_TAG_ACPI_OLD)
				break;
			if (len > BOOT_RSDP_MAX)
				len = BOOT_RSDP_MAX;
			memcpy(boot_info.rsdp, tag + 1, len);
			boot_info.rsdp_len = len;
			boot_info.rsdp_is_v2 = tag->type == MB2_TAG_ACPI_NEW;
			break;
		}
		default:
			break;
		}
		p += ALIGN_UP((u64)tag->size, MB2_TAG_ALIGN);
	}
	if (!boot_info.cmdline)
		boot_info.cmdline = "";
	choose_mmap(efi_mmap, e820_mmap);
	report_firmware();
	return true;
}
