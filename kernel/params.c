/*
 * params.c - the kernel's boot options: one table that declares each
 * option's type, range, default and meaning, and the check of the whole
 * command line against it.
 *
 * cmdline.c only splits the line into key=value pairs.  params_check()
 * then looks every pair up here:
 *   - an option the table does not know is reported ("unknown option"),
 *     with the list of options there are;
 *   - a value the option does not allow (a number out of range or not a
 *     number, a word not among the choices, a flag given a value other
 *     than on/off/1/0/yes/no/true/false) is reported with the option, the
 *     value and what is allowed, and the default is used instead;
 *   - a quoted value whose quote is never closed is refused: it took
 *     the rest of the line, the options there included;
 *   - repeats: the last one counts, as cmdline_get_from() has it.
 * Nothing is silently cut or wrapped: a number is parsed into 64 bits and
 * refused past the option's maximum before anything narrower sees it
 * (watchdog_thresh=4294967296 used to become 0 s).
 *
 * The table is sorted by name; README's option table lists the same.
 * Host-tested in tests/host/test_lib.c (kernel_params suite).
 */
#include <kernel.h>
#include <printk.h>
#include <string.h>
#include <watchdog.h>
#include "params.h"

#define WATCHDOG_THRESH_MAX_S     3600   /* an hour: a KVM-on-software host */
#define AP_TIMEOUT_MS_DEFAULT     2000   /* per CPU, arch/x86_64/smpboot.c */
#define AP_TIMEOUT_MS_MAX         600000 /* ten minutes */
#define LOGLEVEL_MAX              LOGLEVEL_DEBUG
#define VIZ_MS_MAX                60000  /* a minute; 0 is off, below 10 ms one tick */

/* One report line: a prefix, the option, then what is wrong. */
#define PARAM_LINE_MAX 256
/* The unknown-option report names every option; printk's lines hold 512. */
#define PARAM_UNKNOWN_LINE_MAX 480
#define PARAM_NUMBER_DIGITS 24   /* a u64 in decimal, and its NUL */
/* Bytes of a key or value quoted in a report: the rest of the line (what
 * is allowed, the options there are) must fit after it. */
#define PARAM_QUOTE_MAX 48

static const char *const acpi_choices[] = { "on", "off", NULL };
static const char *const numa_choices[] = { "on", "off", NULL };
static const char *const qemu_exit_choices[] = { "auto", "on", "off", NULL };
/* In the order of enum slab_numa_mode (include/slab.h). */
static const char *const slab_numa_choices[] = {
	"blind", "linux", "strict", NULL
};
/* In the order of enum slab_mode (include/slab.h), "auto" first. */
static const char *const slab_mode_choices[] = {
	"auto", "sheaf", "cpuslab", "none", NULL
};

const struct kernel_param kernel_param_table[NR_KERNEL_PARAMS] = {
	[PARAM_ACPI] = {
		.name = "acpi", .type = PARAM_CHOICE, .choices = acpi_choices,
		.def = 0,
		.help = "off: ignore the ACPI tables, run on the boot CPU only",
	},
	[PARAM_AP_TIMEOUT_MS] = {
		.name = "ap_timeout_ms", .type = PARAM_NUMBER, .unit = "ms",
		.min = 1, .max = AP_TIMEOUT_MS_MAX,
		.def = AP_TIMEOUT_MS_DEFAULT,
		.help = "how long each CPU may take to come up",
	},
	[PARAM_BENCH] = {
		.name = "bench", .type = PARAM_TEXT, .needs_text = true,
		.help = "run the benchmark groups matching these globs instead of the tests",
	},
	[PARAM_LOGLEVEL] = {
		.name = "loglevel", .type = PARAM_NUMBER,
		.min = 0, .max = LOGLEVEL_MAX, .def = LOGLEVEL_DEFAULT,
		.help = "console verbosity (7 shows debug lines)",
	},
	[PARAM_NOWATCHDOG] = {
		.name = "nowatchdog", .type = PARAM_FLAG, .def = 0,
		.help = "no hard-lockup watchdog",
	},
	[PARAM_NOX2APIC] = {
		.name = "nox2apic", .type = PARAM_FLAG, .def = 0,
		.help = "use the xAPIC even where the x2APIC exists",
	},
	[PARAM_NUMA] = {
		.name = "numa", .type = PARAM_CHOICE, .choices = numa_choices,
		.def = 0,
		.help = "off: one node, whatever the SRAT says",
	},
	[PARAM_PAGE_POISON] = {
		.name = "page_poison", .type = PARAM_FLAG, .def = 0,
		.help = "fill freed pages with a pattern and check it when handed out",
	},
	[PARAM_QEMU_EXIT] = {
		.name = "qemu_exit", .type = PARAM_CHOICE,
		.choices = qemu_exit_choices, .def = 0,
		.help = "leave through QEMU's isa-debug-exit port at the end: auto (when CPUID says QEMU), on, or off (halt, as on a real machine)",
	},
	[PARAM_SEED] = {
		.name = "seed", .type = PARAM_NUMBER, .min = 0, .max = ~0ull,
		.def = 0, .def_text = "one from the TSC",
		.help = "the seed of randomised tests (the boot prints the one it used)",
	},
	[PARAM_SLAB_MODE] = {
		.name = "slab_mode", .type = PARAM_CHOICE,
		.choices = slab_mode_choices, .def = 0,
		.help = "the kmalloc classes' per-CPU layer: sheaf (auto), cpuslab (SLUB's per-CPU slabs) or none",
	},
	[PARAM_SLAB_NUMA] = {
		.name = "slab_numa", .type = PARAM_CHOICE,
		.choices = slab_numa_choices, .def = 1,
		.help = "how sheaves treat nodes: blind, linux (Linux's rules) or strict (never a remote object)",
	},
	[PARAM_SLUB_DEBUG] = {
		.name = "slub_debug", .type = PARAM_TEXT,
		.help = "[FZPU][,cache,...]: debug checks on every cache, or those named",
	},
	[PARAM_TEST] = {
		.name = "test", .type = PARAM_TEXT, .needs_text = true,
		.help = "run only the suites/cases matching these globs",
	},
	[PARAM_TRACE_ALLOC] = {
		.name = "trace_alloc", .type = PARAM_TEXT, .needs_text = true,
		.help = "cache[,cache...] (a trailing * a prefix): print every step of their allocations and frees",
	},
	[PARAM_VIZ] = {
		.name = "viz", .type = PARAM_NUMBER, .unit = "ms",
		.min = 0, .max = VIZ_MS_MAX, .def = 0, .def_text = "off",
		.help = "an allocator snapshot every this many ms (at least a tick; 0: off), on COM2 (kernel/viz.c)",
	},
	[PARAM_WATCHDOG_THRESH] = {
		.name = "watchdog_thresh", .type = PARAM_NUMBER, .unit = "seconds",
		.min = 1, .max = WATCHDOG_THRESH_MAX_S,
		.def = WATCHDOG_THRESH_DEFAULT,
		.help = "a CPU without a timer tick this long is a hard lockup",
	},
};

struct kernel_params kernel_params;

static const char *const flag_on[] = { "", "on", "1", "yes", "true", NULL };
static const char *const flag_off[] = { "off", "0", "no", "false", NULL };

/* Index of word in list, or -1. */
static int word_index(const char *const *list, const char *word)
{
	int i;

	for (i = 0; list[i]; i++)
		if (!strcmp(list[i], word))
			return i;
	return -1;
}

static const struct kernel_param *param_lookup(const char *name,
					       enum kernel_param_id *id)
{
	unsigned int i;

	for (i = 0; i < NR_KERNEL_PARAMS; i++) {
		if (!strcmp(kernel_param_table[i].name, name)) {
			*id = (enum kernel_param_id)i;
			return &kernel_param_table[i];
		}
	}
	return NULL;
}

/* "on, off" from a NULL-terminated list, into buf. */
static void join_words(char *buf, size_t size, const char *const *list)
{
	size_t len = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; list[i] && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s",
					i ? ", " : "", list[i]);
}

/* What the option allows, in words, for a report. */
static void describe_allowed(const struct kernel_param *p, char *buf,
			     size_t size)
{
	char words[PARAM_LINE_MAX / 2];

	switch (p->type) {
	case PARAM_FLAG:
		snprintf(buf, size, "no value, or on/off (1/0, yes/no, true/false)");
		break;
	case PARAM_NUMBER:
		snprintf(buf, size, "a number from %lu to %lu%s%s",
			 (unsigned long)p->min, (unsigned long)p->max,
			 p->unit ? " " : "", p->unit ? p->unit : "");
		break;
	case PARAM_CHOICE:
		join_words(words, sizeof(words), p->choices);
		snprintf(buf, size, "one of: %s", words);
		break;
	case PARAM_TEXT:
		snprintf(buf, size, p->needs_text ? "some text" : "any text");
		break;
	}
}

/* The option's default, in words, for a report. */
static const char *describe_default(const struct kernel_param *p, char *buf,
				    size_t size)
{
	switch (p->type) {
	case PARAM_FLAG:
		return p->def ? "on" : "off";
	case PARAM_NUMBER:
		if (p->def_text)
			return p->def_text;
		snprintf(buf, size, "%lu", (unsigned long)p->def);
		return buf;
	case PARAM_CHOICE:
		return p->choices[p->def];
	case PARAM_TEXT:
		break;
	}
	return "nothing";
}

/* Parse value for p into *st; false when p does not allow it. */
static bool param_parse_value(const struct kernel_param *p, const char *value,
			      struct param_state *st)
{
	int i;

	switch (p->type) {
	case PARAM_FLAG:
		if (word_index(flag_on, value) >= 0) {
			st->number = 1;
			return true;
		}
		if (word_index(flag_off, value) >= 0) {
			st->number = 0;
			return true;
		}
		return false;
	case PARAM_NUMBER:
		return cmdline_parse_u64(value, &st->number) &&
		       st->number >= p->min && st->number <= p->max;
	case PARAM_CHOICE:
		i = word_index(p->choices, value);
		st->number = i < 0 ? 0 : (u64)i;
		return i >= 0;
	case PARAM_TEXT:
		/* test= with nothing after it would run every test. */
		return !p->needs_text || *value;
	}
	return false;
}

/* "..." after a key or value cut to PARAM_QUOTE_MAX bytes, else "". */
static const char *cut_mark(const char *s)
{
	return strlen(s) > PARAM_QUOTE_MAX ? "..." : "";
}

static void report_unknown(const char *key, param_report_fn say)
{
	/* Every option's name after the quoted key: longer than the other
	 * reports' lines (about 250 bytes of names today). */
	char line[PARAM_UNKNOWN_LINE_MAX];
	size_t len;
	unsigned int i;

	len = (size_t)snprintf(line, sizeof(line),
			       "command line: unknown option '%.*s%s' ignored; the options are:",
			       PARAM_QUOTE_MAX, key, cut_mark(key));
	for (i = 0; i < NR_KERNEL_PARAMS && len < sizeof(line); i++)
		len += (size_t)snprintf(line + len, sizeof(line) - len, " %s",
					kernel_param_table[i].name);
	say(line);
}

/*
 * A bad value, and what is used instead: the default, or, when the option
 * is given again later on the line, that later one (the last one counts).
 */
static void report_bad_value(const struct kernel_param *p, const char *value,
			     bool given_later, param_report_fn say)
{
	char line[PARAM_LINE_MAX], allowed[PARAM_LINE_MAX / 2];
	char number[PARAM_NUMBER_DIGITS];

	describe_allowed(p, allowed, sizeof(allowed));
	if (given_later)
		snprintf(line, sizeof(line), "command line: %s=%.*s%s is not allowed (%s); the later %s= counts",
			 p->name, PARAM_QUOTE_MAX, value, cut_mark(value),
			 allowed, p->name);
	else
		snprintf(line, sizeof(line), "command line: %s=%.*s%s is not allowed (%s; using %s)",
			 p->name, PARAM_QUOTE_MAX, value, cut_mark(value),
			 allowed, describe_default(p, number, sizeof(number)));
	say(line);
}

/* Is key given again after option i? */
static bool given_later(const struct cmdline *cl, unsigned int i,
			const char *key)
{
	for (i++; i < cl->nr_opts; i++)
		if (!strcmp(cl->opts[i].key, key))
			return true;
	return false;
}

/* key="... never closed: whatever followed it is in its value. */
static void report_unclosed(const char *key, const char *value,
			    param_report_fn say)
{
	char line[PARAM_LINE_MAX];

	snprintf(line, sizeof(line), "command line: %.*s%s=\"%.*s%s has no closing quote: ignored, with the rest of the line it took as its value",
		 PARAM_QUOTE_MAX, key, cut_mark(key), PARAM_QUOTE_MAX, value,
		 cut_mark(value));
	say(line);
}

static void say_nothing(const char *line)
{
	(void)line;
}

unsigned int params_check(const struct cmdline *cl, struct kernel_params *kp,
			  param_report_fn say)
{
	unsigned int i;

	memset(kp, 0, sizeof(*kp));
	if (!say)
		say = say_nothing;
	for (i = 0; i < cl->nr_opts; i++) {
		const char *key = cl->opts[i].key, *value = cl->opts[i].value;
		const struct kernel_param *p;
		enum kernel_param_id id;
		struct param_state st = { .text = value };

		if (cl->opts[i].unclosed) {
			report_unclosed(key, value, say);
			kp->nr_problems++;
			continue;
		}
		p = param_lookup(key, &id);
		if (!p) {
			report_unknown(key, say);
			kp->nr_problems++;
			continue;
		}
		st.valid = param_parse_value(p, value, &st);
		if (!st.valid) {
			report_bad_value(p, value, given_later(cl, i, key),
					 say);
			kp->nr_problems++;
		}
		kp->state[id] = st;    /* the last one counts */
	}
	return kp->nr_problems;
}

static void say_printk(const char *line)
{
	pr_warn("%s\n", line);
}

void params_init(void)
{
	params_check(&kernel_cmdline, &kernel_params, say_printk);
}

bool param_given(enum kernel_param_id id)
{
	return kernel_params.state[id].valid;
}

/* The value if given and valid, else the table's default. */
static u64 param_value(enum kernel_param_id id)
{
	const struct param_state *st = &kernel_params.state[id];

	return st->valid ? st->number : kernel_param_table[id].def;
}

bool param_flag(enum kernel_param_id id)
{
	return param_value(id) != 0;
}

u64 param_number(enum kernel_param_id id)
{
	return param_value(id);
}

unsigned int param_choice(enum kernel_param_id id)
{
	return (unsigned int)param_value(id);
}

const char *param_text(enum kernel_param_id id)
{
	const struct param_state *st = &kernel_params.state[id];

	return st->valid ? st->text : NULL;
}
