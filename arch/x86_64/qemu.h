/*
 * qemu.h - leaving QEMU with a status the test harness can read, and
 * halting politely where there is no QEMU.
 *
 * QEMU's isa-debug-exit device (-device isa-debug-exit,iobase=0xf4,
 * iosize=0x04) ends QEMU when a value v is written to its port, with exit
 * status (v << 1) | 1.  A status of 0 is therefore impossible, so the
 * harness maps: 33 = all tests passed, 35 = a test failed, 37 = panic.
 *
 * The port is written only when this is QEMU: when `qemu_exit=on` says
 * so, or, by default (`qemu_exit=auto`), when CPUID says a hypervisor is
 * there and names itself QEMU's TCG ("TCGTCGTCGTCG") or KVM
 * ("KVMKVMKVM"): the fingerprint QEMU gives and a real machine does not.
 * On a real machine (or with `qemu_exit=off`) port 0xf4 may belong to
 * some device, so it is left alone: the kernel says in one line how the
 * run ended and that it halts, and halts.  On QEMU without the device the
 * write does nothing and the kernel halts silently, as before.
 */
#ifndef ARCH_X86_64_QEMU_H
#define ARCH_X86_64_QEMU_H

#include <types.h>

#define QEMU_DEBUG_EXIT_PORT 0xf4
#define QEMU_EXIT_PASS  0x10   /* QEMU exits with 33 */
#define QEMU_EXIT_FAIL  0x11   /* 35 */
#define QEMU_EXIT_PANIC 0x12   /* 37 */

/* CPUID leaf 1, ECX bit 31: "a hypervisor is present" (SDM vol. 2A,
 * CPUID, table 3-10: reserved for hypervisors to set). */
#define CPUID_1_ECX_HYPERVISOR (1u << 31)
/* The hypervisor's vendor leaf: its name in EBX, ECX, EDX. */
#define CPUID_HYPERVISOR_LEAF  0x40000000u
#define HYPERVISOR_SIG_LEN     12

/* Is this QEMU (TCG or KVM)?  sig (13 bytes) gets the hypervisor's name,
 * "" without one. */
bool qemu_detected(char *sig);
/* Whether qemu_exit() writes the port; *why says what decided. */
bool qemu_exit_allowed(const char **why);
void qemu_exit(unsigned int code) __attribute__((noreturn));

#endif
