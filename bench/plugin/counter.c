/*
 * counter.c - a QEMU TCG plugin that counts, per virtual CPU, what the
 * allocator does inside marked windows: guest instructions, shared-lock
 * acquisitions, spin-loop iterations and cache-line transfers.
 *
 * Loaded by bench/run_bench.py as
 *   qemu-system-x86_64 -icount shift=0,sleep=off -smp N \
 *       -plugin counter.so,begin=ADDR,end=ADDR,lock=ADDR,out=FILE
 * where the addresses come from the kernel's symbols:
 *   begin, end  bench_count_begin() and bench_count_end(): a vCPU's
 *               window opens when it executes the first instruction of
 *               begin and closes at the first instruction of end; the
 *               k-th begin a vCPU executes opens its window k (the kernel
 *               runs the same windows on every CPU, in the same order)
 *   lock        spin_lock(): one execution of its first instruction is
 *               one acquisition of a ticket lock (the shared locks)
 * Spin-loop iterations are executions of PAUSE (F3 90), which is what
 * cpu_relax() compiles to; the only spinning inside a window is on locks.
 *
 * A cache-line transfer is an access (load or store) by vCPU v to a
 * 64-byte line of which v holds no copy, where the line's last writer was
 * another vCPU.  A vCPU gets a copy by accessing the line and loses it
 * when another vCPU writes the line; so a line ping-ponging between two
 * writers costs one transfer each time it changes hands, and a CPU
 * re-reading a line nobody wrote since costs nothing.  Lines are tracked
 * by guest virtual address from the moment the first window opens after
 * all were closed; what happened before is unknown, and counts as "no
 * transfer" (the table is then cleared).
 *
 * Determinism: under -icount QEMU runs all vCPUs in one thread, round
 * robin, each until the next virtual-time deadline; with sleep=off and
 * the kernel starting each sample at a fixed phase of QEMU's timers
 * (counted_align() in bench/kernel/counted_bench.c), the counts are the
 * same from run to run.  One thread is also why nothing here takes a
 * lock (and why the plugin is only for -icount runs).
 *
 * At exit the plugin writes one line per vCPU and window to FILE:
 *   COUNT vcpu=0 window=1 insns=... locks=... spins=... transfers=...
 *
 * Debian ships no qemu-plugin.h, so the few types and functions used are
 * declared below, as QEMU 7.2's plugin API (version 1) defines them.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- QEMU 7.2 plugin API, version 1: the part this plugin uses ---- */
#define QEMU_PLUGIN_EXPORT __attribute__((visibility("default")))

typedef uint64_t qemu_plugin_id_t;
typedef uint32_t qemu_plugin_meminfo_t;

typedef struct {
	const char *target_name;
	struct {
		int min;
		int cur;
	} version;
	bool system_emulation;
	union {
		struct {
			int smp_vcpus;
			int max_vcpus;
		} system;
	};
} qemu_info_t;

struct qemu_plugin_tb;
struct qemu_plugin_insn;

enum qemu_plugin_cb_flags {
	QEMU_PLUGIN_CB_NO_REGS,
	QEMU_PLUGIN_CB_R_REGS,
	QEMU_PLUGIN_CB_RW_REGS,
};

enum qemu_plugin_mem_rw {
	QEMU_PLUGIN_MEM_R = 1,
	QEMU_PLUGIN_MEM_W,
	QEMU_PLUGIN_MEM_RW,
};

typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id,
					       struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index,
					    void *userdata);
typedef void (*qemu_plugin_vcpu_mem_cb_t)(unsigned int vcpu_index,
					  qemu_plugin_meminfo_t info,
					  uint64_t vaddr, void *userdata);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
					   qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb,
					  qemu_plugin_vcpu_udata_cb_t cb,
					  enum qemu_plugin_cb_flags flags,
					  void *userdata);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
					    qemu_plugin_vcpu_udata_cb_t cb,
					    enum qemu_plugin_cb_flags flags,
					    void *userdata);
void qemu_plugin_register_vcpu_mem_cb(struct qemu_plugin_insn *insn,
				      qemu_plugin_vcpu_mem_cb_t cb,
				      enum qemu_plugin_cb_flags flags,
				      enum qemu_plugin_mem_rw rw,
				      void *userdata);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id,
				    qemu_plugin_udata_cb_t cb, void *userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb,
						 size_t idx);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
bool qemu_plugin_mem_is_store(qemu_plugin_meminfo_t info);
void qemu_plugin_outs(const char *string);

QEMU_PLUGIN_EXPORT int qemu_plugin_version = 1;
/* ---- end of the API declarations ---- */

#define MAX_VCPUS    64          /* one bit each in a line's copy mask */
#define MAX_WINDOWS  16          /* per vCPU */
#define LINE_SHIFT   6           /* 64-byte cache lines */
#define LINE_BITS    21
#define LINE_SLOTS   (1u << LINE_BITS)  /* tracked lines: 2 M entries, 48 MiB */
#define LINE_MAX_USE (LINE_SLOTS / 4 * 3)
#define GOLDEN_RATIO_64 0x9e3779b97f4a7c15ull  /* multiplicative hashing */
#define PAUSE_BYTE0  0xf3        /* PAUSE is F3 90 (REP NOP) */
#define PAUSE_BYTE1  0x90

struct counts {
	uint64_t insns, locks, spins, transfers;
};

struct vcpu {
	bool open;               /* inside a window */
	unsigned int window;     /* windows opened so far (1-based current) */
	struct counts c[MAX_WINDOWS + 1];
};

/* A tracked line: its address (+1, so 0 marks a free slot), who wrote it
 * last and which vCPUs hold a copy since that write. */
struct line {
	uint64_t tag;
	uint64_t copies;
	int writer;
};

static uint64_t begin_addr, end_addr, lock_addr;
static const char *out_path;
static struct vcpu vcpus[MAX_VCPUS];
static unsigned int open_windows;  /* vCPUs inside a window */
static struct line *lines;
static unsigned int lines_used;
static uint64_t lines_dropped;     /* accesses to lines the table had no room for */

static struct counts *current(unsigned int v)
{
	if (v >= MAX_VCPUS || !vcpus[v].open)
		return NULL;
	return &vcpus[v].c[vcpus[v].window];
}

static struct line *line_lookup(uint64_t line)
{
	uint64_t tag = line + 1;
	uint32_t i = (uint32_t)((tag * GOLDEN_RATIO_64) >> (64 - LINE_BITS));

	for (;;) {
		if (lines[i].tag == tag)
			return &lines[i];
		if (!lines[i].tag)
			break;
		i = (i + 1) & (LINE_SLOTS - 1);
	}
	if (lines_used >= LINE_MAX_USE)
		return NULL;
	lines_used++;
	lines[i].tag = tag;
	lines[i].copies = 0;
	lines[i].writer = -1;
	return &lines[i];
}

static void window_open(unsigned int v, void *udata)
{
	(void)udata;
	if (v >= MAX_VCPUS || vcpus[v].open || vcpus[v].window >= MAX_WINDOWS)
		return;
	if (open_windows++ == 0) {
		memset(lines, 0, sizeof(*lines) * LINE_SLOTS);
		lines_used = 0;
	}
	vcpus[v].window++;
	vcpus[v].open = true;
}

static void window_close(unsigned int v, void *udata)
{
	(void)udata;
	if (v >= MAX_VCPUS || !vcpus[v].open)
		return;
	vcpus[v].open = false;
	open_windows--;
}

static void count_tb(unsigned int v, void *udata)
{
	struct counts *c = current(v);

	if (c)
		c->insns += (uintptr_t)udata;
}

static void count_lock(unsigned int v, void *udata)
{
	struct counts *c = current(v);

	(void)udata;
	if (c)
		c->locks++;
}

static void count_spin(unsigned int v, void *udata)
{
	struct counts *c = current(v);

	(void)udata;
	if (c)
		c->spins++;
}

/* Every access while some window is open: keeps each line's writer and
 * copy mask, and charges a transfer to an open window. */
static void count_access(unsigned int v, qemu_plugin_meminfo_t info,
			 uint64_t vaddr, void *udata)
{
	struct counts *c = current(v);
	uint64_t bit = 1ull << (v % MAX_VCPUS);
	struct line *l;

	(void)udata;
	if (!open_windows || v >= MAX_VCPUS)
		return;
	l = line_lookup(vaddr >> LINE_SHIFT);
	if (!l) {
		lines_dropped++;
		return;
	}
	if (!(l->copies & bit) && l->writer >= 0 && l->writer != (int)v &&
	    c)
		c->transfers++;
	if (qemu_plugin_mem_is_store(info)) {
		l->writer = (int)v;
		l->copies = bit;
	} else {
		l->copies |= bit;
	}
}

static bool is_pause(const struct qemu_plugin_insn *insn)
{
	const uint8_t *b = qemu_plugin_insn_data(insn);

	return qemu_plugin_insn_size(insn) == 2 && b[0] == PAUSE_BYTE0 &&
	       b[1] == PAUSE_BYTE1;
}

static void translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb), i;

	(void)id;
	qemu_plugin_register_vcpu_tb_exec_cb(tb, count_tb,
					     QEMU_PLUGIN_CB_NO_REGS,
					     (void *)(uintptr_t)n);
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint64_t pc = qemu_plugin_insn_vaddr(insn);

		if (pc == begin_addr)
			qemu_plugin_register_vcpu_insn_exec_cb(
				insn, window_open, QEMU_PLUGIN_CB_NO_REGS, NULL);
		if (pc == end_addr)
			qemu_plugin_register_vcpu_insn_exec_cb(
				insn, window_close, QEMU_PLUGIN_CB_NO_REGS, NULL);
		if (pc == lock_addr)
			qemu_plugin_register_vcpu_insn_exec_cb(
				insn, count_lock, QEMU_PLUGIN_CB_NO_REGS, NULL);
		if (is_pause(insn))
			qemu_plugin_register_vcpu_insn_exec_cb(
				insn, count_spin, QEMU_PLUGIN_CB_NO_REGS, NULL);
		qemu_plugin_register_vcpu_mem_cb(insn, count_access,
						 QEMU_PLUGIN_CB_NO_REGS,
						 QEMU_PLUGIN_MEM_RW, NULL);
	}
}

static void report(qemu_plugin_id_t id, void *udata)
{
	FILE *f = out_path ? fopen(out_path, "w") : NULL;
	char buf[256];
	unsigned int v, w;

	(void)id;
	(void)udata;
	for (v = 0; v < MAX_VCPUS; v++) {
		for (w = 1; w <= vcpus[v].window; w++) {
			const struct counts *c = &vcpus[v].c[w];

			snprintf(buf, sizeof(buf),
				 "COUNT vcpu=%u window=%u insns=%llu locks=%llu "
				 "spins=%llu transfers=%llu\n", v, w,
				 (unsigned long long)c->insns,
				 (unsigned long long)c->locks,
				 (unsigned long long)c->spins,
				 (unsigned long long)c->transfers);
			if (f)
				fputs(buf, f);
			else
				qemu_plugin_outs(buf);
		}
	}
	snprintf(buf, sizeof(buf), "COUNT untracked_accesses=%llu\n",
		 (unsigned long long)lines_dropped);
	if (f) {
		fputs(buf, f);
		fclose(f);
	} else {
		qemu_plugin_outs(buf);
	}
}

static bool parse_arg(const char *arg)
{
	const char *eq = strchr(arg, '=');
	const char *val = eq ? eq + 1 : "";
	size_t klen = eq ? (size_t)(eq - arg) : strlen(arg);

	if (klen == 5 && !strncmp(arg, "begin", 5))
		begin_addr = strtoull(val, NULL, 0);
	else if (klen == 3 && !strncmp(arg, "end", 3))
		end_addr = strtoull(val, NULL, 0);
	else if (klen == 4 && !strncmp(arg, "lock", 4))
		lock_addr = strtoull(val, NULL, 0);
	else if (klen == 3 && !strncmp(arg, "out", 3))
		out_path = val;
	else
		return false;
	return true;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info, int argc,
					   char **argv)
{
	int i;

	for (i = 0; i < argc; i++) {
		if (!parse_arg(argv[i])) {
			fprintf(stderr, "counter: unknown argument %s "
				"(begin=, end=, lock=, out=)\n", argv[i]);
			return -1;
		}
	}
	if (!begin_addr || !end_addr) {
		fprintf(stderr, "counter: begin= and end= are needed\n");
		return -1;
	}
	if (info->system_emulation && info->system.max_vcpus > MAX_VCPUS) {
		fprintf(stderr, "counter: at most %d vCPUs\n", MAX_VCPUS);
		return -1;
	}
	lines = calloc(LINE_SLOTS, sizeof(*lines));
	if (!lines)
		return -1;
	qemu_plugin_register_vcpu_tb_trans_cb(id, translate);
	qemu_plugin_register_atexit_cb(id, report, NULL);
	return 0;
}
