/*
 * host_support.c - the few kernel services mm/ and the test framework need,
 * done with the C library so the same code runs as a host program.
 *
 * printk goes to stdout, panic() prints and aborts (AddressSanitizer then
 * prints the stack), and the per-thread "CPU" state of the shadow headers
 * lives here.  main() is elsewhere: host_main.c runs the KUnit suites, the
 * host benchmark (bench/host/bench_host.c) has its own.
 *
 * Real threads (tests/host/stress/): each thread is one CPU.  The
 * spinlocks, the irq_work lists and the per-CPU data work across threads
 * as they do across CPUs, and cpu_relax() yields (a lock holder may be a
 * descheduled thread).  But on_each_cpu() and smp_call_function_single()
 * run the function on the calling thread as the other CPU, not as a
 * cross-CPU call: they must not be used while that CPU's thread runs.
 * A signal handler that plays an interrupt calls rseq_ucontext_fixup()
 * first, as the kernel's entry calls rseq_ip_fixup().
 */
#define _GNU_SOURCE     /* REG_RIP, for rseq_ucontext_fixup() */
#include <kunit.h>
#include <kernel.h>
#include <printk.h>
#include <smp.h>
#include <irqflags.h>
#include <irq_work.h>
#include <memlayout.h>
#include <mm.h>
#include <cpu_work.h>
#include <cpumask.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <rseq.h>
#include <ucontext.h>
#include <sys/mman.h>
#include <unistd.h>

__thread unsigned int host_cpu_id;
/* kfree()'s fast path takes slab pages of any node until
 * numa_cpu_online() says otherwise, as kernel/percpu.c sets them. */
struct percpu percpu_areas[NR_CPUS] = {
	[0 ... NR_CPUS - 1] = {
		.slab_free_flags_mask = PG_slab,
		.slab_free_flags_want = PG_slab,
	},
};
__thread unsigned int host_nmi_nesting;
__thread unsigned int host_irq_nesting;
__thread unsigned long host_irq_flags = RFLAGS_IF;
unsigned int nr_cpu_ids = 1;
unsigned int nr_cpu_possible = NR_CPUS;
unsigned long host_direct_map_base;
unsigned long warn_count;
u64 boot_seed = 0x5eedf00dull;  /* the kernel's comes from seed= or the TSC */
int console_loglevel = LOGLEVEL_DEFAULT;

/* The C library has no %pS (a symbol name): print the address. */
void host_convert_format(char *out, size_t size, const char *fmt)
{
	const char *f;
	size_t n = 0;

	for (f = fmt; *f && n + 1 < size; f++) {
		out[n++] = *f;
		if (f[0] == '%' && f[1] == 'p' && f[2] == 'S') {
			out[n++] = 'p';
			f += 2;
		}
	}
	out[n] = '\0';
}

int vprintk_level(int level, const char *fmt, va_list ap)
{
	char host_fmt[512];

	if (level > console_loglevel)
		return 0;
	host_convert_format(host_fmt, sizeof(host_fmt), fmt);
	return vprintf(host_fmt, ap);
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

/* Weak: a program without a WARN_ON_ONCE() has no such section. */
extern bool __start_data_once[] __attribute__((weak));
extern bool __stop_data_once[] __attribute__((weak));

void clear_warn_once(void)
{
	bool *flag;

	for (flag = __start_data_once; flag < __stop_data_once; flag++)
		__atomic_store_n(flag, false, __ATOMIC_RELAXED);
}

void __warn(const char *file, int line, const char *cond, unsigned long caller)
{
	warn_count++;
	kunit_print_report(LOGLEVEL_WARNING, "WARNING: %s at %s:%d (caller %#lx)",
			   cond, file, line, caller);
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

void host_cpu_relax(void)
{
	sched_yield();
}

/* Host "IPIs": run the function as each CPU in turn, on this thread. */
/*
 * The host's interrupt entry for restartable sequences: a signal handler
 * passes the context it interrupted, and an uncommitted sequence there
 * resumes from its start when the handler returns.
 */
bool rseq_ucontext_fixup(void *ucontext)
{
	ucontext_t *uc = ucontext;
	const struct rseq_cs *cs =
		rseq_find((unsigned long)uc->uc_mcontext.gregs[REG_RIP]);

	if (!cs)
		return false;
	uc->uc_mcontext.gregs[REG_RIP] = (greg_t)cs->abort_ip;
	return true;
}

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

/* The host's CPUs are always online: 0 .. nr_cpu_ids - 1. */
void cpu_online_mask_get(struct cpumask *m)
{
	unsigned int cpu;

	cpumask_clear(m);
	for_each_online_cpu(cpu)
		cpumask_set_cpu(cpu, m);
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

/*
 * irq_work (kernel/irq_work.c, the kernel's own file): the platform hook
 * raises nothing.  Queued works wait on their CPU's list until the test
 * plays that CPU's interrupt by calling irq_work_run() there (as the
 * kernel's IPI handler would, and in the context the test sets up:
 * host_irq_nesting for in_irq()), so a test decides exactly when deferred
 * work runs.  irq_work_sync() waits as in the kernel, for an interrupt
 * that here only a test (or another thread's) irq_work_run() provides.
 */
void arch_irq_work_raise(void)
{
}

/* Host task work: as on_each_cpu(), one "CPU" after another. */
unsigned int on_each_cpu_task(cpu_task_func_t func, void *info)
{
	on_each_cpu(func, info, true);
	return nr_cpu_ids;
}

/*
 * ---- the memmap (the hooks of include/mm.h) ----
 * The kernel maps each run of the memmap onto the frames memblock gave it
 * on its node.  Here the run is fresh anonymous memory at the address the
 * kernel would use, and the frames it stands for are recorded
 * (vmemmap_lookup()), not mapped a second time: the arena must stay
 * private memory, which fork() copies (the interleaving search runs each
 * schedule in a child), and the memmap's frames are reserved, so nothing
 * else reads or writes them.
 */
/* The memmap's room, and what is mapped in it (for vmemmap_lookup()). */
#define HOST_VMEMMAP_RUNS 64
static void *vmemmap_room;
static size_t vmemmap_room_size;
static struct vmemmap_run {
	unsigned long start, end;
	phys_addr_t phys;
} vmemmap_runs[HOST_VMEMMAP_RUNS];
static unsigned int nr_vmemmap_runs;

/* The room starts 2 MiB-aligned, as VMEMMAP_BASE does, so memmap runs
 * meet the same alignment rules as in the kernel. */
#define HOST_VMEMMAP_ALIGN (2ul << 20)

struct page *vmemmap_reserve(unsigned long end_pfn)
{
	size_t size = ALIGN_UP(end_pfn * sizeof(struct page), PAGE_SIZE) +
		      HOST_VMEMMAP_ALIGN;
	void *room;

	if (vmemmap_room)
		panic("vmemmap_reserve: a memmap is already set up");
	if (end_pfn > VMEMMAP_SIZE / sizeof(struct page))
		return NULL;
	room = mmap(NULL, size, PROT_NONE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (room == MAP_FAILED)
		return NULL;
	vmemmap_room = room;
	vmemmap_room_size = size;
	return (struct page *)ALIGN_UP((unsigned long)room, HOST_VMEMMAP_ALIGN);
}

bool vmemmap_map(unsigned long start, unsigned long end, phys_addr_t phys,
		 int nid)
{
	struct vmemmap_run *run = &vmemmap_runs[nr_vmemmap_runs];

	(void)nid;   /* a host "page table" needs no memory */
	if (start < (unsigned long)vmemmap_room || end < start ||
	    end > (unsigned long)vmemmap_room + vmemmap_room_size)
		panic("vmemmap_map: [%#lx-%#lx) outside the memmap's room", start,
		      end);
	if (nr_vmemmap_runs == HOST_VMEMMAP_RUNS ||
	    mmap((void *)start, end - start, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED) {
		pr_err("vmemmap_map: cannot map [%#lx-%#lx) for %#llx\n", start,
		       end, (unsigned long long)phys);
		return false;
	}
	run->start = start;
	run->end = end;
	run->phys = phys;
	nr_vmemmap_runs++;
	return true;
}

bool vmemmap_lookup(const void *addr, phys_addr_t *phys)
{
	unsigned long va = (unsigned long)addr;
	unsigned int i;

	for (i = 0; i < nr_vmemmap_runs; i++) {
		if (va >= vmemmap_runs[i].start && va < vmemmap_runs[i].end) {
			*phys = vmemmap_runs[i].phys +
				(va - vmemmap_runs[i].start);
			return true;
		}
	}
	return false;
}

void vmemmap_release(void)
{
	if (vmemmap_room)
		munmap(vmemmap_room, vmemmap_room_size);
	vmemmap_room = NULL;
	vmemmap_room_size = 0;
	nr_vmemmap_runs = 0;
}
