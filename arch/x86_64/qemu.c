/*
 * qemu.c - see qemu.h: the exit port, used only where QEMU is.
 *
 * Called at the very end (the test totals printed) and from panic(),
 * possibly before the command line was read: param_choice() then gives
 * the default (auto), and the CPUID fingerprint decides.  Takes no lock.
 *
 * Before halting it turns the hard-lockup watchdog off, as panic() does:
 * this CPU stops taking timer ticks for good, and the watchdog's
 * heartbeat NMI would otherwise report the halt as a hard LOCKUP and
 * panic a second after a passed run on a real machine (the harness's
 * firmware:halt-without-exit boot).
 */
#include <printk.h>
#include <string.h>
#include "qemu.h"
#include "cpu.h"
#include <watchdog.h>
#include "../../kernel/params.h"

static const char *const qemu_signatures[] = {
	"TCGTCGTCGTCG",            /* QEMU's TCG */
	"KVMKVMKVM",               /* KVM (QEMU's -accel kvm), NUL-padded */
};

bool qemu_detected(char *sig)
{
	u32 a, b, c, d;
	unsigned int i;

	sig[0] = '\0';
	cpuid(1, 0, &a, &b, &c, &d);
	if (!(c & CPUID_1_ECX_HYPERVISOR))
		return false;
	cpuid(CPUID_HYPERVISOR_LEAF, 0, &a, &b, &c, &d);
	memcpy(sig, &b, 4);
	memcpy(sig + 4, &c, 4);
	memcpy(sig + 8, &d, 4);
	sig[HYPERVISOR_SIG_LEN] = '\0';
	for (i = 0; i < ARRAY_SIZE(qemu_signatures); i++)
		if (!strcmp(sig, qemu_signatures[i]))
			return true;
	return false;
}

bool qemu_exit_allowed(const char **why)
{
	char sig[HYPERVISOR_SIG_LEN + 1];

	switch (param_choice(PARAM_QEMU_EXIT)) {
	case PARAM_QEMU_EXIT_ON:
		*why = "qemu_exit=on";
		return true;
	case PARAM_QEMU_EXIT_OFF:
		*why = "qemu_exit=off";
		return false;
	default:
		if (qemu_detected(sig)) {
			*why = "CPUID names QEMU";
			return true;
		}
		*why = "CPUID names no QEMU: a real machine?";
		return false;
	}
}

static const char *outcome(unsigned int code)
{
	switch (code) {
	case QEMU_EXIT_PASS:  return "the run passed";
	case QEMU_EXIT_FAIL:  return "the run failed";
	case QEMU_EXIT_PANIC: return "the kernel panicked";
	default:              return "the run ended";
	}
}

void qemu_exit(unsigned int code)
{
	const char *why;

	WRITE_ONCE(watchdog_enabled, false);   /* nothing ticks from here on */
	if (qemu_exit_allowed(&why))
		outl(QEMU_DEBUG_EXIT_PORT, code);
	else
		pr_info("halted: %s; no QEMU exit port used (%s): switch the machine off or reset it\n",
			outcome(code), why);
	cpu_halt_forever();
}
