/*
 * qemu.c - see qemu.h.
 */
#include "qemu.h"
#include "cpu.h"

void qemu_exit(unsigned int code)
{
	outl(QEMU_DEBUG_EXIT_PORT, code);
	cpu_halt_forever();
}
