/*
 * cmdline.h - the kernel command line as key=value options.
 */
#ifndef KERNEL_CMDLINE_H
#define KERNEL_CMDLINE_H

#include <types.h>

#define CMDLINE_MAX      2048   /* bytes, NUL included */
#define CMDLINE_MAX_OPTS 64

struct cmdline_opt {
	const char *key;
	const char *value;   /* "" for a bare flag such as `nox2apic` */
	bool unclosed;       /* value="... without its closing quote: the
			      * value ran to the end of the line */
};

struct cmdline {
	char buf[CMDLINE_MAX];
	struct cmdline_opt opts[CMDLINE_MAX_OPTS];
	unsigned int nr_opts;
	unsigned int dropped; /* options beyond CMDLINE_MAX_OPTS */
};

void cmdline_parse(struct cmdline *cl, const char *text);
const char *cmdline_get_from(const struct cmdline *cl, const char *key);
bool cmdline_parse_u64(const char *s, u64 *out);

/* The kernel's own command line (from multiboot2); read its options
 * through kernel/params.h, which checks them. */
extern struct cmdline kernel_cmdline;

#endif
