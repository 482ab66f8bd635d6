/*
 * e820.h - the PC memory map into memblock (arch/x86_64/e820.c).
 */
#ifndef ARCH_X86_64_E820_H
#define ARCH_X86_64_E820_H

/* Sanitize GRUB's memory map into memblock and reserve what is taken. */
void e820__memblock_setup(void);

#endif
