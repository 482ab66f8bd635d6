/*
 * kallsyms.c - turning code addresses back into function names.
 *
 * The build links the kernel once, lists its functions with `nm`
 * (scripts/gen-kallsyms.sh), compiles that list into a sorted table in the
 * .kallsyms section and links again; the linker script puts .kallsyms after
 * all code, so the second link leaves every function where the first put it
 * and the table is exact.  Lookup is a binary search for the last symbol at
 * or below the address.
 *
 * Backtraces follow the frame-pointer chain (the kernel is built with
 * -fno-omit-frame-pointer): at every frame, [rbp] holds the caller's rbp and
 * [rbp + 8] the return address.  Every stack lives in the kernel's .bss, so
 * a frame pointer outside it ends the walk instead of faulting, and so does
 * one into a stack's guard page (unmapped, in .bss too).
 */
#include <printk.h>
#include <compiler.h>
#include "backtrace.h"
#include "../arch/x86_64/desc.h"

struct kallsym {
	unsigned long addr;
	unsigned long size;
	const char *name;
};

/* Generated: build/.../kallsyms.c (an empty table in the first link). */
extern const struct kallsym kallsyms_table[];
extern const unsigned long kallsyms_count;

extern char __bss_start[], __bss_end[];

#define BACKTRACE_MAX_FRAMES 32

const char *kallsyms_lookup(unsigned long addr, unsigned long *offset,
			    unsigned long *size)
{
	unsigned long lo = 0, hi = kallsyms_count;

	/* Find the first entry above addr; the one before it is ours. */
	while (lo < hi) {
		unsigned long mid = lo + (hi - lo) / 2;

		if (kallsyms_table[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	lo--;
	if (kallsyms_table[lo].size &&
	    addr >= kallsyms_table[lo].addr + kallsyms_table[lo].size)
		return NULL;
	if (offset)
		*offset = addr - kallsyms_table[lo].addr;
	if (size)
		*size = kallsyms_table[lo].size;
	return kallsyms_table[lo].name;
}

void kallsyms_format(unsigned long addr, char *buf, size_t size)
{
	unsigned long off, sz;
	const char *name = kallsyms_lookup(addr, &off, &sz);

	if (name)
		snprintf(buf, size, "%s+%#lx/%#lx", name, off, sz);
	else
		snprintf(buf, size, "?");
}

#define FRAME_BYTES 16   /* saved rbp, return address */

/*
 * Is [rbp, rbp + 16) a frame we may read?  In .bss, aligned, and in no
 * stack guard page: the guards lie in .bss too, unmapped, and a corrupt
 * rbp into one would fault inside the report (in an NMI, perhaps).  Such
 * a frame ends the walk with a line saying whose guard it hit.
 */
static bool frame_on_a_stack(unsigned long rbp)
{
	const char *guard;
	unsigned int cpu;

	if (rbp < (unsigned long)__bss_start ||
	    rbp + FRAME_BYTES > (unsigned long)__bss_end || !IS_ALIGNED(rbp, 8))
		return false;
	guard = stack_guard_owner(rbp, &cpu);
	if (!guard)
		guard = stack_guard_owner(rbp + FRAME_BYTES - 1, &cpu);
	if (guard) {
		pr_emerg("  (frame pointer %#lx is in cpu%u's %s stack guard page: the walk stops)\n",
			 rbp, cpu, guard);
		return false;
	}
	return true;
}

unsigned int dump_backtrace(unsigned long rip, unsigned long rbp)
{
	char sym[96];
	unsigned int depth;

	pr_emerg("Call trace:\n");
	kallsyms_format(rip, sym, sizeof(sym));
	pr_emerg("  [<%016lx>] %s\n", rip, sym);
	for (depth = 0; depth < BACKTRACE_MAX_FRAMES && frame_on_a_stack(rbp);
	     depth++) {
		unsigned long *frame = (unsigned long *)rbp;
		unsigned long ret = frame[1];

		if (!ret)
			break;
		/* ret points after the call; ret-1 is inside the caller. */
		kallsyms_format(ret - 1, sym, sizeof(sym));
		pr_emerg("  [<%016lx>] %s\n", ret, sym);
		rbp = frame[0];
	}
	return depth;
}

__noinline void dump_stack(void)
{
	dump_backtrace(_THIS_IP_, (unsigned long)__builtin_frame_address(0));
}
