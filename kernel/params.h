/*
 * params.h - the kernel's boot options, each declared once with its type,
 * range and default (kernel/params.c), and checked together at boot.
 *
 * Code reads an option through param_flag(), param_number(),
 * param_text() or param_choice() by its id, never by parsing the command
 * line itself: so every option is in the table, every value is checked
 * against what the table allows, and a bad value falls back to the
 * default with a line that names the option, the value and what is
 * allowed.  README's option table is this table.
 */
#ifndef KERNEL_PARAMS_H
#define KERNEL_PARAMS_H

#include <types.h>
#include "cmdline.h"

enum kernel_param_id {
	PARAM_ACPI,
	PARAM_AP_TIMEOUT_MS,
	PARAM_BENCH,
	PARAM_LOGLEVEL,
	PARAM_NOWATCHDOG,
	PARAM_NOX2APIC,
	PARAM_NUMA,
	PARAM_PAGE_POISON,
	PARAM_QEMU_EXIT,
	PARAM_SEED,
	PARAM_SLAB_MODE,
	PARAM_SLAB_NUMA,
	PARAM_SLUB_DEBUG,
	PARAM_TEST,
	PARAM_TRACE_ALLOC,
	PARAM_VIZ,
	PARAM_WATCHDOG_THRESH,
	NR_KERNEL_PARAMS
};

/* The words of acpi=, in the order of their table entry. */
enum param_acpi_choice {
	PARAM_ACPI_ON,
	PARAM_ACPI_OFF,
};

/* The words of numa=. */
enum param_numa_choice {
	PARAM_NUMA_ON,
	PARAM_NUMA_OFF,
};

/* The words of qemu_exit= (arch/x86_64/qemu.c). */
enum param_qemu_exit_choice {
	PARAM_QEMU_EXIT_AUTO,
	PARAM_QEMU_EXIT_ON,
	PARAM_QEMU_EXIT_OFF,
};

/* The words of slab_numa= are enum slab_numa_mode's (include/slab.h). */

enum param_type {
	PARAM_FLAG,     /* bare `name`, or name=on|off|1|0|yes|no|true|false */
	PARAM_NUMBER,   /* decimal or 0x hex, within [min, max] */
	PARAM_TEXT,     /* any text; its subsystem says what it means */
	PARAM_CHOICE,   /* one of the words in choices[] */
};

struct kernel_param {
	const char *name;
	enum param_type type;
	u64 min, max;               /* PARAM_NUMBER */
	u64 def;                    /* the default: number, flag, choice index */
	const char *def_text;       /* the default in words, if not def */
	bool needs_text;            /* PARAM_TEXT: an empty value is refused */
	const char *unit;           /* PARAM_NUMBER: "seconds", "ms", ... */
	const char *const *choices; /* PARAM_CHOICE: NULL-terminated */
	const char *help;           /* what it does, one line */
};

/* What the command line said of one option, once checked. */
struct param_state {
	bool valid;         /* given and within what the option allows */
	u64 number;         /* the value: a number, a flag (0/1), a choice */
	const char *text;   /* the value as written ("" for a bare flag) */
};

struct kernel_params {
	struct param_state state[NR_KERNEL_PARAMS];
	unsigned int nr_problems;   /* unknown options and bad values */
};

extern const struct kernel_param kernel_param_table[NR_KERNEL_PARAMS];

/* One line of a report, without its newline (the kernel: printk). */
typedef void (*param_report_fn)(const char *line);

/*
 * Check every option of cl against the table into kp; each unknown option
 * and bad value is reported in one line through say (which may be NULL).
 * Returns kp->nr_problems.
 */
unsigned int params_check(const struct cmdline *cl, struct kernel_params *kp,
			  param_report_fn say);

/* The kernel's own options: params_init() checks kernel_cmdline. */
extern struct kernel_params kernel_params;
void params_init(void);

bool param_given(enum kernel_param_id id);       /* given and valid */
bool param_flag(enum kernel_param_id id);
u64 param_number(enum kernel_param_id id);
const char *param_text(enum kernel_param_id id); /* NULL if not given */
unsigned int param_choice(enum kernel_param_id id);

#endif
