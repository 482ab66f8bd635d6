; entry.asm - from GRUB's 32-bit protected mode to C in the higher half.
;
; GRUB leaves us (Multiboot2 spec, 3.3): EAX = 0x36d76289, EBX = physical
; address of the boot information, paging off, interrupts off, no stack.
; To reach 64-bit mode (Intel SDM vol. 3A, 9.8.5 "Initializing IA-32e
; mode") we:
;   1. check that the CPU can do long mode at all,
;   2. build a page table that maps the first 4 GiB twice: at 0 (identity,
;      so the instruction after enabling paging is still mapped) and 1 GiB
;      of it at KERNEL_VMA (where the C code is linked), with 2 MiB pages,
;   3. set CR4.PAE, load CR3, set EFER.LME (and EFER.NXE when the CPU has
;      NX), then CR0.PG: the CPU is now in compatibility mode,
;   4. load a GDT with a 64-bit code segment and far-jump into it,
;   5. jump to the higher half, switch to the boot CPU's guarded kernel
;      stack (cpu_stacks[0].kernel, desc.c: an unmapped page below it, so
;      an overflow faults instead of damaging .bss) and call
;      kernel_main(magic, info).
; Everything before step 5 runs at physical addresses, so it lives in the
; .boot sections, which the linker script places at their load address.
; The C code later replaces these tables with the final ones (paging.c).

MB2_BOOTLOADER_MAGIC equ 0x36d76289
KERNEL_VMA           equ 0xffffffff80000000

CR0_PE      equ 1 << 0
CR0_WP      equ 1 << 16
CR0_PG      equ 1 << 31
CR4_PAE     equ 1 << 5
MSR_EFER    equ 0xc0000080
EFER_LME    equ 1 << 8
EFER_NXE    equ 1 << 11
PTE_PRESENT equ 1 << 0
PTE_WRITE   equ 1 << 1
PTE_HUGE    equ 1 << 7           ; PS bit: a 2 MiB page in a PD entry
PAGE_2M     equ 0x200000
COM1        equ 0x3f8

CPUID_EXT_MAX      equ 0x80000000
CPUID_EXT_FEATURES equ 0x80000001
CPUID_EDX_LM       equ 1 << 29
CPUID_EDX_NX       equ 1 << 20

extern kernel_main
extern boot_cpu_stack_top         ; desc.c: top of cpu_stacks[0].kernel
global _start

section .boot.text progbits alloc exec nowrite align=16
BITS 32
_start:
	cli
	mov edi, eax                    ; keep the magic and info pointer
	mov esi, ebx                    ; (saved into 64-bit regs later)

	; --- 1. long mode available? ---
	mov eax, CPUID_EXT_MAX
	cpuid
	cmp eax, CPUID_EXT_FEATURES
	jb .no_long_mode
	mov eax, CPUID_EXT_FEATURES
	cpuid
	test edx, CPUID_EDX_LM
	jz .no_long_mode
	mov ebp, edx                    ; remember NX support for step 3

	; --- 2. page tables: zero them, then fill ---
	mov [boot_magic_slot], edi      ; rep stosd needs EDI
	cld
	mov edi, boot_page_tables
	mov ecx, BOOT_PT_BYTES / 4
	xor eax, eax
	rep stosd
	mov edi, [boot_magic_slot]

	; PML4[0] -> identity PDPT, PML4[511] -> higher-half PDPT
	mov eax, boot_pdpt_low
	or eax, PTE_PRESENT | PTE_WRITE
	mov [boot_pml4], eax
	mov eax, boot_pdpt_high
	or eax, PTE_PRESENT | PTE_WRITE
	mov [boot_pml4 + 511 * 8], eax
	; identity PDPT[0..3] -> PD0..PD3 (4 GiB); high PDPT[510] -> PD0
	mov ecx, 0
.fill_pdpt:
	mov eax, ecx
	shl eax, 12
	add eax, boot_pd
	or eax, PTE_PRESENT | PTE_WRITE
	mov [boot_pdpt_low + ecx * 8], eax
	inc ecx
	cmp ecx, 4
	jb .fill_pdpt
	mov eax, boot_pd
	or eax, PTE_PRESENT | PTE_WRITE
	mov [boot_pdpt_high + 510 * 8], eax
	; 4 x 512 PD entries of 2 MiB each: physical 0 .. 4 GiB
	mov ecx, 0
.fill_pd:
	mov eax, ecx
	mov edx, 0
	shld edx, eax, 21               ; high dword of ecx * 2 MiB
	shl eax, 21                     ; low dword
	or eax, PTE_PRESENT | PTE_WRITE | PTE_HUGE
	mov [boot_pd + ecx * 8], eax
	mov [boot_pd + ecx * 8 + 4], edx
	inc ecx
	cmp ecx, 4 * 512
	jb .fill_pd

	; --- 3. PAE, CR3, EFER, paging ---
	mov eax, cr4
	or eax, CR4_PAE
	mov cr4, eax
	mov eax, boot_pml4
	mov cr3, eax
	mov ecx, MSR_EFER
	rdmsr
	or eax, EFER_LME
	test ebp, CPUID_EDX_NX
	jz .no_nx
	or eax, EFER_NXE
.no_nx:
	wrmsr
	mov eax, cr0
	or eax, CR0_PG | CR0_PE | CR0_WP
	mov cr0, eax

	; --- 4. 64-bit GDT and far jump ---
	lgdt [boot_gdt_ptr]
	jmp BOOT_CS:.long_mode

.no_long_mode:
	mov esi, no_long_mode_msg
.print:
	lodsb
	test al, al
	jz .stop
	mov dx, COM1
	out dx, al
	jmp .print
.stop:
	hlt
	jmp .stop

BITS 64
.long_mode:
	mov ax, BOOT_DS
	mov ds, ax
	mov es, ax
	mov ss, ax
	xor ax, ax
	mov fs, ax
	mov gs, ax
	; --- 5. to the higher half ---
	mov rax, higher_half_entry
	jmp rax

no_long_mode_msg: db "boot: this CPU cannot run 64-bit code (no long mode)", 13, 10, 0

align 8
boot_gdt:
	dq 0                            ; null descriptor
	dq 0x00af9a000000ffff           ; 0x08: 64-bit code, present, ring 0
	dq 0x00cf92000000ffff           ; 0x10: data, present, writable
boot_gdt_end:
BOOT_CS equ 0x08
BOOT_DS equ 0x10
boot_gdt_ptr:
	dw boot_gdt_end - boot_gdt - 1
	dq boot_gdt

section .boot.bss nobits alloc write align=4096
boot_page_tables:
boot_pml4:      resb 4096
boot_pdpt_low:  resb 4096
boot_pdpt_high: resb 4096
boot_pd:        resb 4 * 4096
BOOT_PT_BYTES equ $ - boot_page_tables
boot_magic_slot: resd 1             ; no stack yet: a dword to park EDI

section .text
higher_half_entry:
	mov rsp, [rel boot_cpu_stack_top]
	xor ebp, ebp                    ; ends the frame-pointer chain
	mov edi, edi                    ; zero-extend magic
	mov esi, esi                    ; and the info address
	; kernel_main() never returns.  It is entered as if called from
	; address 0 (a zero return address, rbp 0): a debugger's backtrace
	; ends at kernel_main, the outermost frame, instead of walking into
	; this assembly, which has no unwind information.
	push 0
	jmp kernel_main
