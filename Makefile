# Makefile - build, boot and test the kernel.
#
#   make run            boot the ISO in QEMU, serial console on this terminal
#   make test           host unit tests, short fuzzer runs, boot tests
#                       (SMP=1 and 4, 128M and 2G)
#   make boottest       boot once:  SMP=n MEM=size CMDLINE="..." QEMU_OPTS="..."
#   make iso            build/<compiler>/kernel.iso
#   make debug          QEMU halted with a gdb stub, and a gdb script
#   make host-tests     only the host (ASan + UBSan) unit tests
#   make stress         the threaded host stress (ASan and TSan), long
#   make fuzz           the model-checked fuzzers (libFuzzer), long:
#                       FUZZ_RUNS=n inputs each, FUZZ_TIME=s to cap the time
#   make fuzz-merge     minimize tests/fuzz/corpus/ with what fuzz found
#   make mutate         plant each one-line bug of tests/mutation/mutants.ini
#                       in a scratch tree, run the host suite, score it
#                       (MUTANTS=id,id runs only those)
#   make soak           SOAK_BOOTS boots over seeds, SMP 1..32, memory sizes
#                       and machine types (pc, q35); a table of the results
#   make bench          kernel benchmarks: CSV, plots, report in build/bench/
#   make bench-host     host benchmark: slab vs glibc, jemalloc, tcmalloc, mimalloc
#   make viz            boot a workload with allocator snapshots and draw
#                       build/viz/<WORKLOAD>.html (WORKLOAD=storm, prodcons,
#                       shrink; VIZ_MS=ms between snapshots; SMP, default 2)
#
# UEFI=1 boots (run, boottest, debug) under OVMF instead of SeaBIOS.
# CC=clang builds everything with clang instead of gcc (objects go to
# build/clang/, so the two never mix).  EXTRA_TESTS="a.c b.c" compiles
# extra self-test files into the kernel.  QEMU_ACCEL=kvm opts into KVM.

ifeq ($(origin CC),default)
CC := gcc
endif
COMPILER := $(if $(findstring clang,$(CC)),clang,gcc)
LD       ?= ld
NASM     ?= nasm
PYTHON   ?= python3
BUILD    ?= build
OBJ      := $(BUILD)/$(COMPILER)
HOSTOBJ  := $(OBJ)/host

SMP        ?= 1
MEM        ?= 128M
QEMU_ACCEL ?= tcg
QEMU_OPTS  ?=
CMDLINE    ?=
UEFI       ?=
FIRMWARE   := $(if $(filter 1 yes on,$(UEFI)),uefi,bios)
# Handed to the recipes through the environment, so that quotes, ; and $
# in the line reach the harness as typed (not through a shell's quotes).
export CMDLINE
EXTRA_TESTS ?=
BOOT_TIMEOUT ?= 120

# A misspelt EXTRA_TESTS file gets its name, not "No rule to make target".
EXTRA_TESTS_MISSING := $(filter-out $(wildcard $(EXTRA_TESTS)),$(EXTRA_TESTS))
ifneq ($(EXTRA_TESTS_MISSING),)
$(error EXTRA_TESTS names $(EXTRA_TESTS_MISSING): no such file)
endif

# Quiet by default ("  CC  kernel/main.c"); V=1 shows every command.
ifeq ($(V),1)
Q :=
say = @true
else
Q := @
say = @printf '  %-6s %s\n' $(1) $(2)
endif

# ---- kernel flags ----
WARN   := -Wall -Wextra -Werror
KCFLAGS := -std=gnu11 -O2 -g $(WARN) -ffreestanding -fno-pic -fno-pie \
	-mno-red-zone -mgeneral-regs-only -mcmodel=kernel -fno-stack-protector \
	-nostdlib -fno-omit-frame-pointer -fno-asynchronous-unwind-tables \
	-fno-strict-aliasing -Iinclude -I. -MMD -MP
ifeq ($(COMPILER),clang)
KCFLAGS += --target=x86_64-unknown-none-elf
endif
KLDFLAGS := -n -nostdlib -no-pie -z max-page-size=0x1000 -z noexecstack \
	--no-warn-rwx-segments -T linker.ld
NASMFLAGS := -f elf64 -g -F dwarf -w+all -w+error

KSRCS_C   := $(wildcard kernel/*.c arch/x86_64/*.c mm/*.c tests/kernel/*.c \
	bench/kernel/*.c)
KSRCS_ASM := $(wildcard boot/*.asm arch/x86_64/*.asm)
KOBJS := $(patsubst %.c,$(OBJ)/%.o,$(KSRCS_C)) \
	 $(patsubst %.asm,$(OBJ)/%.o,$(KSRCS_ASM))
XOBJS := $(patsubst %.c,$(OBJ)/extra/%.o,$(EXTRA_TESTS))

KERNEL := $(OBJ)/kernel.elf
ISO    := $(OBJ)/kernel.iso

.PHONY: all kernel iso run test boottest debug host-tests clean deps cpu-slab-step \
	bench bench-host viz viz-deps FORCE
all: kernel

deps:
	@CC="$(CC)" scripts/ensure-deps.sh

kernel: $(KERNEL)
iso: $(ISO)

$(OBJ)/%.o: %.c
	@mkdir -p $(dir $@)
	$(call say,CC,$<)
	$(Q)$(CC) $(KCFLAGS) -c $< -o $@

$(OBJ)/extra/%.o: %.c
	@mkdir -p $(dir $@)
	$(call say,CC,$<)
	$(Q)$(CC) $(KCFLAGS) -c $< -o $@

# The generated symbol tables live in the build directory.
$(OBJ)/kallsyms.o $(OBJ)/kallsyms-empty.o: %.o: %.c
	$(call say,CC,$<)
	$(Q)$(CC) $(KCFLAGS) -c $< -o $@

$(OBJ)/%.o: %.asm
	@mkdir -p $(dir $@)
	$(call say,AS,$<)
	$(Q)$(NASM) $(NASMFLAGS) $< -o $@

# The list of extra tests is part of what the kernel is: relink when it
# changes (the stamp is rewritten only when the list differs).
$(OBJ)/extra-tests.list: FORCE
	@mkdir -p $(dir $@)
	@echo "$(EXTRA_TESTS)" | cmp -s - $@ || echo "$(EXTRA_TESTS)" > $@

# Two links: the first finds where every function is, the second embeds
# that table (see kernel/kallsyms.c and linker.ld).
$(OBJ)/kallsyms-empty.c: scripts/gen-kallsyms.sh
	@mkdir -p $(dir $@)
	$(Q)scripts/gen-kallsyms.sh - $@

$(OBJ)/kernel.pass1.elf: $(KOBJS) $(XOBJS) $(OBJ)/kallsyms-empty.o linker.ld $(OBJ)/extra-tests.list
	$(call say,LD,$@)
	$(Q)$(LD) $(KLDFLAGS) -o $@ $(KOBJS) $(XOBJS) $(OBJ)/kallsyms-empty.o

$(OBJ)/kallsyms.c: $(OBJ)/kernel.pass1.elf scripts/gen-kallsyms.sh
	$(call say,SYMS,$@)
	$(Q)scripts/gen-kallsyms.sh $< $@

$(KERNEL): $(OBJ)/kernel.pass1.elf $(OBJ)/kallsyms.o
	$(call say,LD,$@)
	$(Q)$(LD) $(KLDFLAGS) -o $@ $(KOBJS) $(XOBJS) $(OBJ)/kallsyms.o
	@scripts/check-kallsyms.sh $(OBJ)/kernel.pass1.elf $@

$(ISO): $(KERNEL) scripts/mkiso.sh
	$(call say,ISO,$@)
	$(Q)scripts/mkiso.sh $(KERNEL) $@ "$$CMDLINE"

# ---- the counting plugin ----
# The counting plugin for QEMU (bench/plugin/counter.c): a shared object
# for the host, no headers beyond libc (it declares QEMU 7.2's plugin API
# itself, Debian ships no qemu-plugin.h).
PLUGIN := $(OBJ)/plugin/counter.so
$(PLUGIN): bench/plugin/counter.c
	@mkdir -p $(dir $@)
	$(call say,HOSTCC,$<)
	$(Q)$(HOSTCC) -std=gnu11 -O2 $(WARN) -shared -fPIC -o $@ $<

# ---- host unit tests: mm/ and library code under ASan + UBSan ----
HOSTCC ?= $(CC)
SANITIZE := -fsanitize=address,undefined -fno-sanitize-recover=all
HOSTCFLAGS := -std=gnu11 -O1 -g $(WARN) -DHOST_TEST -DMM_POINTS_FAST \
	-DMM_KASAN $(SANITIZE) \
	-fno-omit-frame-pointer -Itests/host/include -Iinclude -I. -MMD -MP
HOST_COMMON := kernel/kunit.c kernel/spinlock.c kernel/irq_work.c \
	tests/host/host_support.c tests/host/host_main.c
# mm/ calls into RCU (kfree_rcu(), mm/slab_rcu.c): every program built
# from mm/ links kernel/rcu.c too.
MM_RCU_SRCS := kernel/rcu.c
# arch/x86_64/srat.c (the SRAT and SLIT parsers) is portable C that
# fills mm's struct numa_topology: its tests (test_mm_srat.c) run here.
# So are GRUB's block reader and the EFI memory map and ACPI root checks
# (multiboot2.c, efi_mmap.c, acpi_root.c), tested by test_boot_firmware.c.
HOST_MM_SRCS := $(wildcard mm/*.c) $(MM_RCU_SRCS) arch/x86_64/srat.c \
	arch/x86_64/multiboot2.c arch/x86_64/efi_mmap.c \
	arch/x86_64/acpi_root.c \
	$(wildcard tests/host/test_mm_*.c) tests/host/test_boot_firmware.c
HOST_RCU_SRCS := kernel/rcu.c tests/host/test_rcu.c
HOST_LIB_SRCS := kernel/cmdline.c kernel/params.c kernel/vsprintf.c \
	tests/host/test_lib.c tests/host/test_params.c \
	tests/host/test_kunit.c

# The shadow of the arena (include/kasan.h): the allocator poisons what
# no caller owns.  mm/slab.c, mm/slab_nolock.c and mm/slab_debug.c touch
# free objects by design (free pointers, deferred-list links, debug fills
# and checks), so, as Linux builds mm/slub.c without KASAN, they are built
# without ASan instrumentation (UBSan stays).
KASAN_UNINSTRUMENTED := mm/slab.c mm/slab_nolock.c mm/slab_debug.c mm/cpu_slab.c
$(patsubst %.c,$(HOSTOBJ)/%.o,$(KASAN_UNINSTRUMENTED)): \
	HOSTCFLAGS += -fno-sanitize=address

HOST_MM_TESTS  := $(HOSTOBJ)/mm_tests
HOST_LIB_TESTS := $(HOSTOBJ)/lib_tests
HOST_RCU_TESTS := $(HOSTOBJ)/rcu_tests
# Wrong on purpose: each run must fail (tests/harness/broken_host_tests.c).
HOST_BROKEN_TESTS := $(HOSTOBJ)/broken_host_tests

$(HOSTOBJ)/%.o: %.c
	@mkdir -p $(dir $@)
	$(call say,HOSTCC,$<)
	$(Q)$(HOSTCC) $(HOSTCFLAGS) -c $< -o $@

# The library tests exercise the kernel's own vsnprintf under a different
# name, so the C library's printf (used by the host printk) stays intact.
$(HOSTOBJ)/lib/%.o: %.c
	@mkdir -p $(dir $@)
	$(call say,HOSTCC,$<)
	$(Q)$(HOSTCC) $(HOSTCFLAGS) -Dvsnprintf=kernel_vsnprintf \
		-Dsnprintf=kernel_snprintf -c $< -o $@

$(HOST_MM_TESTS): $(patsubst %.c,$(HOSTOBJ)/%.o,$(HOST_COMMON) $(HOST_MM_SRCS))
	$(call say,HOSTLD,$@)
	$(Q)$(HOSTCC) $(SANITIZE) -o $@ $^ -lpthread

$(HOST_LIB_TESTS): $(patsubst %.c,$(HOSTOBJ)/%.o,$(HOST_COMMON)) \
		   $(patsubst %.c,$(HOSTOBJ)/lib/%.o,$(HOST_LIB_SRCS))
	$(call say,HOSTLD,$@)
	$(Q)$(HOSTCC) $(SANITIZE) -o $@ $^ -lpthread

# kernel/rcu.c's grace-period machine, CPUs played by one thread.
$(HOST_RCU_TESTS): $(patsubst %.c,$(HOSTOBJ)/%.o,$(HOST_COMMON) $(HOST_RCU_SRCS))
	$(call say,HOSTLD,$@)
	$(Q)$(HOSTCC) $(SANITIZE) -o $@ $^ -lpthread

$(HOST_BROKEN_TESTS): $(patsubst %.c,$(HOSTOBJ)/%.o,$(HOST_COMMON) \
		       tests/harness/broken_host_tests.c)
	$(call say,HOSTLD,$@)
	$(Q)$(HOSTCC) $(SANITIZE) -o $@ $^ -lpthread

host-tests: deps $(HOST_MM_TESTS) $(HOST_LIB_TESTS) $(HOST_RCU_TESTS) \
		$(HOST_BROKEN_TESTS)
	$(PYTHON) tests/harness/run_tests.py --host-only \
		--host $(HOST_LIB_TESTS) --host $(HOST_MM_TESTS) \
		--host $(HOST_RCU_TESTS) \
		--host $(HOST_STRESS) --broken-host $(HOST_BROKEN_TESTS)

# ---- threaded host stress: real threads, signals as NMIs and IRQs ----
# tests/host/stress/stress_threads.c, built twice: ASan+UBSan with $(HOSTCC)
# (from the same mm/ objects as the unit tests) and ThreadSanitizer with
# clang (its options and proven-benign suppressions are built in:
# tests/host/stress/tsan_options.c).  `make test` runs both briefly
# (about 1 s and 4 s), `make host-tests` the ASan one;
# `make stress` runs them STRESS_SCALE times longer (iteration counts,
# never time).
STRESS_SCALE ?= 20
TSANCC ?= clang
TSANOBJ := $(BUILD)/tsan
TSAN_CFLAGS := -std=gnu11 -O1 -g $(WARN) -DHOST_TEST -fsanitize=thread \
	-fno-omit-frame-pointer -Itests/host/stress/tsan-include \
	-Itests/host/include -Iinclude -I. -MMD -MP
HOST_STRESS_SRCS := $(HOST_COMMON) $(wildcard mm/*.c) $(MM_RCU_SRCS) \
	tests/host/stress/stress_threads.c
HOST_STRESS := $(HOSTOBJ)/stress_threads
HOST_STRESS_TSAN := $(TSANOBJ)/stress_threads_tsan

$(HOST_STRESS): $(patsubst %.c,$(HOSTOBJ)/%.o,$(HOST_STRESS_SRCS))
	$(call say,HOSTLD,$@)
	$(Q)$(HOSTCC) $(SANITIZE) -o $@ $^ -lpthread

$(TSANOBJ)/%.o: %.c
	@mkdir -p $(dir $@)
	$(call say,TSANCC,$<)
	$(Q)$(TSANCC) $(TSAN_CFLAGS) -c $< -o $@

$(HOST_STRESS_TSAN): $(patsubst %.c,$(TSANOBJ)/%.o,$(HOST_STRESS_SRCS) \
		       tests/host/stress/tsan_options.c)
	$(call say,HOSTLD,$@)
	$(Q)$(TSANCC) -fsanitize=thread -o $@ $^ -lpthread

.PHONY: stress stress-deps
stress-deps:
	@CC="$(CC)" scripts/ensure-deps.sh clang libclang-rt-14-dev

# The programs make test runs (its recipe passes them to the harness).
HOST_STRESS_PROGS := $(HOST_STRESS) $(HOST_STRESS_TSAN)
test: stress-deps $(HOST_STRESS_PROGS)
host-tests: $(HOST_STRESS)

stress: deps stress-deps $(HOST_STRESS_PROGS)
	@for p in $(HOST_STRESS_PROGS); do \
		echo "  STRESS $$p (STRESS_SCALE=$(STRESS_SCALE))"; \
		STRESS_SCALE=$(STRESS_SCALE) $$p || exit 1; \
	done

# ---- model-checked fuzzers: libFuzzer over the host build of mm/ ----
# tests/fuzz/: fuzz_mm drives random programs over the whole slab and page
# API against a model of what is live; fuzz_memblock random firmware maps
# and early allocations against a model of the address ranges.  Built with
# clang's -fsanitize=fuzzer (plus ASan and UBSan) into build/fuzz/.
# `make test` replays each kept corpus (tests/fuzz/corpus/) and then runs
# FUZZ_MM_TEST_RUNS / FUZZ_MEMBLOCK_TEST_RUNS more inputs with -seed=1 (a
# count, never a time; about 10 s and 5 s), and
# requires fuzz_mm_planted (a planted double hand-out) to FAIL; `make fuzz`
# runs FUZZ_RUNS inputs each (FUZZ_TIME=seconds adds -max_total_time),
# keeping what it finds new in build/fuzz/new-*/; `make fuzz-merge`
# minimizes the kept corpora together with what `make fuzz` found.
FUZZCC ?= clang
FUZZOBJ := $(BUILD)/fuzz
FUZZ_RUNS ?= 2000000
FUZZ_TIME ?=
FUZZ_MM_TEST_RUNS ?= 1000
FUZZ_MEMBLOCK_TEST_RUNS ?= 10000
FUZZ_SANITIZE := -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_CFLAGS := -std=gnu11 -O1 -g $(WARN) -DHOST_TEST -DMM_POINTS_FAST -DMM_KASAN \
	$(FUZZ_SANITIZE) -fsanitize=fuzzer-no-link -fno-omit-frame-pointer \
	-Itests/host/include -Iinclude -I. -MMD -MP
$(patsubst %.c,$(FUZZOBJ)/obj/%.o,$(KASAN_UNINSTRUMENTED)): \
	FUZZ_CFLAGS += -fno-sanitize=address
FUZZ_COMMON_SRCS := kernel/kunit.c kernel/spinlock.c kernel/irq_work.c \
	tests/host/host_support.c
FUZZ_MM_SRCS := $(FUZZ_COMMON_SRCS) $(wildcard mm/*.c) $(MM_RCU_SRCS)
FUZZ_MEMBLOCK_SRCS := $(FUZZ_COMMON_SRCS) mm/memblock.c
FUZZ_MM := $(FUZZOBJ)/fuzz_mm
FUZZ_MM_PLANTED := $(FUZZOBJ)/fuzz_mm_planted
FUZZ_MEMBLOCK := $(FUZZOBJ)/fuzz_memblock
FUZZ_PROGS := $(FUZZ_MM) $(FUZZ_MEMBLOCK)

$(FUZZOBJ)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(call say,FUZZCC,$<)
	$(Q)$(FUZZCC) $(FUZZ_CFLAGS) -c $< -o $@

$(FUZZOBJ)/obj/planted/%.o: %.c
	@mkdir -p $(dir $@)
	$(call say,FUZZCC,$<)
	$(Q)$(FUZZCC) $(FUZZ_CFLAGS) -DFUZZ_PLANTED_BUG -c $< -o $@

$(FUZZ_MM): $(patsubst %.c,$(FUZZOBJ)/obj/%.o,$(FUZZ_MM_SRCS) tests/fuzz/fuzz_mm.c)
	$(call say,FUZZLD,$@)
	$(Q)$(FUZZCC) $(FUZZ_SANITIZE) -fsanitize=fuzzer -o $@ $^ -lpthread

$(FUZZ_MM_PLANTED): $(patsubst %.c,$(FUZZOBJ)/obj/%.o,$(FUZZ_MM_SRCS)) \
		    $(FUZZOBJ)/obj/planted/tests/fuzz/fuzz_mm.o
	$(call say,FUZZLD,$@)
	$(Q)$(FUZZCC) $(FUZZ_SANITIZE) -fsanitize=fuzzer -o $@ $^ -lpthread

$(FUZZ_MEMBLOCK): $(patsubst %.c,$(FUZZOBJ)/obj/%.o,$(FUZZ_MEMBLOCK_SRCS) \
		  tests/fuzz/fuzz_memblock.c)
	$(call say,FUZZLD,$@)
	$(Q)$(FUZZCC) $(FUZZ_SANITIZE) -fsanitize=fuzzer -o $@ $^ -lpthread

# The programs make test runs: its recipe passes them to the harness.
test: stress-deps $(FUZZ_PROGS) $(FUZZ_MM_PLANTED)

.PHONY: fuzz fuzz-merge
fuzz: stress-deps $(FUZZ_PROGS)
	@for p in $(FUZZ_PROGS); do \
		n=$$(basename $$p); mkdir -p $(FUZZOBJ)/new-$$n; \
		echo "  FUZZ   $$n ($(FUZZ_RUNS) runs$(if $(FUZZ_TIME), or $(FUZZ_TIME) s))"; \
		$$p -runs=$(FUZZ_RUNS) $(if $(FUZZ_TIME),-max_total_time=$(FUZZ_TIME)) \
			-artifact_prefix=$(FUZZOBJ)/crash-$$n- -print_final_stats=1 \
			$(FUZZOBJ)/new-$$n tests/fuzz/corpus/$${n#fuzz_} || exit 1; \
	done

fuzz-merge: stress-deps $(FUZZ_PROGS)
	@for p in $(FUZZ_PROGS); do \
		n=$$(basename $$p); c=tests/fuzz/corpus/$${n#fuzz_}; \
		rm -rf $(FUZZOBJ)/merged-$$n; mkdir -p $(FUZZOBJ)/merged-$$n $(FUZZOBJ)/new-$$n; \
		$$p -merge=1 $(FUZZOBJ)/merged-$$n $$c $(FUZZOBJ)/new-$$n || exit 1; \
		rm -f $$c/*; cp $(FUZZOBJ)/merged-$$n/* $$c/; \
		echo "  MERGE  $$c: $$(ls $$c | wc -l) inputs"; \
	done

# The mutation run (scripts/mutate.py): scratch trees start from these
# programs' objects, so each mutant rebuilds only what it changed.
.PHONY: mutate
mutate: stress-deps $(HOST_RCU_TESTS) $(HOST_MM_TESTS) $(HOST_STRESS) $(FUZZ_MM)
	@$(PYTHON) scripts/mutate.py $(if $(MUTANTS),--only $(MUTANTS))

# ---- booting ----
QEMU_ENV = QEMU_ACCEL="$(QEMU_ACCEL)" QEMU_OPTS="$(QEMU_OPTS)"

run: deps $(KERNEL)
	@$(QEMU_ENV) $(PYTHON) tests/harness/boottest.py --kernel $(KERNEL) \
		--smp $(SMP) --mem $(MEM) --cmdline "$$CMDLINE" --interactive \
		--firmware $(FIRMWARE)

boottest: deps $(KERNEL)
	@$(QEMU_ENV) $(PYTHON) tests/harness/boottest.py --kernel $(KERNEL) \
		--smp $(SMP) --mem $(MEM) --cmdline "$$CMDLINE" \
		--timeout $(BOOT_TIMEOUT) --log-dir $(BUILD) \
		--firmware $(FIRMWARE)

debug: deps $(KERNEL)
	@$(QEMU_ENV) $(PYTHON) tests/harness/boottest.py --kernel $(KERNEL) \
		--smp $(SMP) --mem $(MEM) --cmdline "$$CMDLINE" --debug \
		--firmware $(FIRMWARE)

# Everything: host tests, then the kernel booted in each configuration,
# then the harness checks that broken tests really fail.
test: deps $(HOST_MM_TESTS) $(HOST_LIB_TESTS) $(HOST_RCU_TESTS) \
		$(HOST_BROKEN_TESTS) $(KERNEL) $(PLUGIN)
	@$(MAKE) --no-print-directory -s BUILD=$(BUILD)/broken \
		EXTRA_TESTS=tests/harness/broken_tests.c kernel
	@$(QEMU_ENV) $(PYTHON) tests/harness/run_tests.py \
		--host $(HOST_LIB_TESTS) --host $(HOST_MM_TESTS) \
		--host $(HOST_RCU_TESTS) \
		$(addprefix --host ,$(HOST_STRESS_PROGS)) \
		--broken-host $(HOST_BROKEN_TESTS) \
		--fuzz $(FUZZ_MM):$(FUZZ_MM_TEST_RUNS) \
		--fuzz $(FUZZ_MEMBLOCK):$(FUZZ_MEMBLOCK_TEST_RUNS) \
		--broken-fuzz $(FUZZ_MM_PLANTED):$(FUZZ_MM_TEST_RUNS) \
		--mutate-check --docs-check \
		--kernel $(KERNEL) --broken-kernel $(BUILD)/broken/$(COMPILER)/kernel.elf \
		--log-dir $(BUILD) --cmdline "$$CMDLINE" \
		--plugin-check $(PLUGIN)

# The replay page (docs/viz.md): the kernel writes a snapshot of the
# allocator every VIZ_MS ms to COM2 (viz=, kernel/viz.c), scripts/viz.py
# boots WORKLOAD with a second serial port and draws the page.  make test
# loads a page in headless Chromium (tests/harness/viz_check.py).
WORKLOAD ?= storm
VIZ_MS   ?= 20
VIZ_SMP  := $(if $(filter command line environment,$(origin SMP)),$(SMP),2)

viz-deps:
	@CC="$(CC)" scripts/ensure-deps.sh chromium

viz: deps $(KERNEL)
	@$(QEMU_ENV) $(PYTHON) scripts/viz.py --kernel $(KERNEL) \
		--workload $(WORKLOAD) --smp $(VIZ_SMP) --mem $(MEM) \
		--every $(VIZ_MS) --cmdline "$$CMDLINE" \
		-o $(BUILD)/viz/$(WORKLOAD).html

test: viz-deps

# The soak (tests/harness/soak.py): SOAK_BOOTS boots, boot i with seed
# SOAK_SEED+i and the i-th configuration of a walk over SMP 1..32, memory
# 128M..5G and the pc and q35 machines; a count of boots, never a time.
# Not part of make test.
SOAK_BOOTS ?= 16
SOAK_SEED  ?= 1
.PHONY: soak
soak: deps $(KERNEL)
	@$(QEMU_ENV) $(PYTHON) tests/harness/soak.py --kernel $(KERNEL) \
		--boots $(SOAK_BOOTS) --seed $(SOAK_SEED) --cmdline "$$CMDLINE" \
		--log-dir $(BUILD)/soak

# Benchmarks: single-CPU rows under -icount (exact instruction counts),
# counted scaling rows under -icount with the plugin (1..16 CPUs, exact),
# wall-clock scaling rows under multi-threaded TCG on no more CPUs than
# the host has cores; CSV, plots and report.md in build/bench/.
bench: $(KERNEL) $(PLUGIN)
	@CC="$(CC)" scripts/ensure-deps.sh gnuplot-nox
	@$(PYTHON) bench/run_bench.py --kernel $(KERNEL) --plugin $(PLUGIN) \
		--out $(BUILD)/bench

# Host benchmark: the same batch patterns against the mm/ slab code built
# for the host (-O2, no sanitizers), glibc malloc, jemalloc and mimalloc;
# ns/op timed, instructions/op from perf stat where it works, else
# callgrind.  Writes build/bench/host.csv and host.md.
# Per compiler, like every other object: a gcc and a clang build must not
# share objects (mixed, valgrind could not read the binary's debug info).
BENCH_HOST := $(OBJ)/bench-host
BENCH_HOST_CFLAGS := -std=gnu11 -O2 -g $(WARN) -fno-omit-frame-pointer
BENCH_HOST_SLAB_SRCS := $(wildcard mm/*.c) $(MM_RCU_SRCS) kernel/spinlock.c kernel/kunit.c \
	kernel/irq_work.c tests/host/host_support.c
BENCH_HOST_SLAB_OBJS := $(patsubst %.c,$(BENCH_HOST)/obj/%.o,$(BENCH_HOST_SLAB_SRCS))
BENCH_HOST_BINS := $(addprefix $(BENCH_HOST)/bench_host_,glibc jemalloc tcmalloc \
	mimalloc slab)

$(BENCH_HOST)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(call say,HOSTCC,$<)
	$(Q)$(HOSTCC) $(BENCH_HOST_CFLAGS) -DHOST_TEST -Itests/host/include \
		-Iinclude -I. -MMD -MP -c $< -o $@

$(BENCH_HOST)/bench_host_glibc: bench/host/bench_host.c
	@mkdir -p $(dir $@)
	$(call say,HOSTLD,$@)
	$(Q)$(HOSTCC) $(BENCH_HOST_CFLAGS) -DALLOC_GLIBC $< -o $@

$(BENCH_HOST)/bench_host_jemalloc: bench/host/bench_host.c
	$(call say,HOSTLD,$@)
	$(Q)$(HOSTCC) $(BENCH_HOST_CFLAGS) -DALLOC_JEMALLOC $< -o $@ -ljemalloc

$(BENCH_HOST)/bench_host_tcmalloc: bench/host/bench_host.c
	$(call say,HOSTLD,$@)
	$(Q)$(HOSTCC) $(BENCH_HOST_CFLAGS) -DALLOC_TCMALLOC $< -o $@ \
		-ltcmalloc_minimal

$(BENCH_HOST)/bench_host_mimalloc: bench/host/bench_host.c
	$(call say,HOSTLD,$@)
	$(Q)$(HOSTCC) $(BENCH_HOST_CFLAGS) -DALLOC_MIMALLOC $< -o $@ -lmimalloc

$(BENCH_HOST)/bench_host_slab: bench/host/bench_host.c \
		bench/host/bench_host_slab.h $(BENCH_HOST_SLAB_OBJS)
	$(call say,HOSTLD,$@)
	$(Q)$(HOSTCC) $(BENCH_HOST_CFLAGS) -DHOST_TEST -DALLOC_SLAB \
		-Itests/host/include -Iinclude -I. $< $(BENCH_HOST_SLAB_OBJS) \
		-o $@ -lpthread

# make test links the host benchmark's build of mm/ too: a change that
# breaks only that link (a new dependency of mm/) is seen at once.
test: $(BENCH_HOST)/bench_host_slab

# The host's single-step search of the cpu-slab paths, every operation
# (tests/host/test_mm_cpu_slab_step.c; make test runs the fast paths only).
cpu-slab-step: $(HOST_MM_TESTS)
	CPU_SLAB_STEP_OPS=0x7f $(HOST_MM_TESTS) cpu_slab_step

bench-host:
	@CC="$(CC)" scripts/ensure-deps.sh libjemalloc-dev libmimalloc-dev \
		libgoogle-perftools-dev \
		valgrind gnuplot-nox
	@$(MAKE) --no-print-directory $(BENCH_HOST_BINS)
	@$(PYTHON) bench/host/run_host.py --bin-dir $(BENCH_HOST) \
		--out $(BUILD)/bench

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
