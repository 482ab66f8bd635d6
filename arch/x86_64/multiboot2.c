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
 */
#include <printk.h>
#include <string.h>
#include "multiboot2.h"

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

bool multiboot2_parse(u32 magic, const void *info, phys_addr_t info_phys)
{
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
			parse_mmap((const void *)tag);
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
	return true;
}
