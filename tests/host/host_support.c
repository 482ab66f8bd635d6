/*
 * host_support.c - the few kernel services mm/ and the test framework need,
 * done with the C library so the same code runs as a host program.
 *
 * printk goes to stdout, panic() prints and aborts (AddressSanitizer then
 * prints the stack), and the per-thread "CPU" state of the shadow headers
 * lives here.  main() is elsewhere: host_main.c runs the KUnit suites, the
 * host benchmark (bench/host/bench_host.c) has its own.
 */
#include <kunit.h>
#include <kernel.h>
#include <printk.h>
#include <smp.h>
#include <irqflags.h>
#include <memlayout.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__thread unsigned int host_cpu_id;
__thread unsigned int host_nmi_nesting;
__thread unsigned int host_irq_nesting;
__thread unsigned long host_irq_flags = RFLAGS_IF;
unsigned int nr_cpu_ids = 1;
unsigned long host_direct_map_base;
unsigned long warn_count;
u64 boot_seed = 0x5eedf00dull;  /* the kernel's comes from seed= or the TSC */
int console_loglevel = LOGLEVEL_DEFAULT;

int vprintk_level(int level, const char *fmt, va_list ap)
{
	if (level > console_loglevel)
		return 0;
	return vprintf(fmt, ap);
}

int printk_level(int level, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vprintk_level(level, fmt, ap);
	va_end(ap);
	return n;
}

void panic(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "Kernel panic - not syncing: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	abort();
}

void __warn(const char *file, int line, const char *cond, unsigned long caller)
{
	warn_count++;
	printf("WARNING: %s at %s:%d (caller %#lx)\n", cond, file, line, caller);
}

size_t strlcpy(char *dst, const char *src, size_t size)
{
	size_t len = strlen(src);

	if (size) {
		size_t n = len < size - 1 ? len : size - 1;

		memcpy(dst, src, n);
		dst[n] = '\0';
	}
	return len;
}

/* Host "IPIs": run the function as each CPU in turn, on this thread. */
void on_each_cpu(smp_call_func_t func, void *info, bool wait)
{
	unsigned int me = host_cpu_id, cpu;

	(void)wait;
	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		host_cpu_id = cpu;
		func(info);
	}
	host_cpu_id = me;
}

int smp_call_function_single(unsigned int cpu, smp_call_func_t func,
			     void *info, bool wait)
{
	unsigned int me = host_cpu_id;

	(void)wait;
	if (cpu >= nr_cpu_ids)
		return -1;
	host_cpu_id = cpu;
	func(info);
	host_cpu_id = me;
	return 0;
}
