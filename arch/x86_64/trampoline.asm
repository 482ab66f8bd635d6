; trampoline.asm - the first instructions an application processor runs.
;
; A started AP (after INIT and a STARTUP IPI whose vector is V) begins in
; real mode at CS:IP = V*0x100:0, i.e. at physical address V*0x1000 (SDM
; vol. 3A, 9.4.4 and 11.6.1).  smpboot.c copies this blob to
; TRAMPOLINE_PHYS (0x8000, so V = 8), fills in trampoline_data, and the AP
; climbs the same ladder as the boot CPU did in entry.asm:
;   real mode -> 32-bit protected mode (our own tiny GDT)
;             -> long mode, with the kernel's final page tables (CR3 from
;                trampoline_data; they also identity-map this page, read-only
;                and executable, so the instruction after enabling paging is
;                still mapped; nothing here writes to the page)
;             -> jump to ap_start64 (smpboot.c) in the higher half, on the
;                stack the boot CPU picked for this AP.
; The code runs at TRAMPOLINE_PHYS, not where it was linked, so every
; address below is written as (label - trampoline_start) + TRAMPOLINE_PHYS:
; a constant the assembler computes, needing no relocation.  linker.ld
; asserts that the blob fits in its page.

TRAMPOLINE_PHYS equ 0x8000
CR0_PE      equ 1 << 0
CR0_PG      equ 1 << 31
MSR_EFER    equ 0xc0000080
TR_CODE32   equ 0x08
TR_DATA     equ 0x10
TR_CODE64   equ 0x18

%define TR(x) ((x) - trampoline_start + TRAMPOLINE_PHYS)

global trampoline_start
global trampoline_end
global trampoline_data

section .rodata
align 16
BITS 16
trampoline_start:
	cli
	cld
	mov ax, cs                      ; CS = TRAMPOLINE_PHYS >> 4
	mov ds, ax
	o32 lgdt [tr_gdtr - trampoline_start]
	mov eax, cr0
	or eax, CR0_PE
	mov cr0, eax
	jmp dword TR_CODE32:TR(.pm32)

BITS 32
.pm32:
	mov ax, TR_DATA
	mov ds, ax
	mov es, ax
	mov ss, ax
	mov eax, [TR(tr_cr4)]           ; PAE (and whatever else the BSP has)
	mov cr4, eax
	mov eax, [TR(tr_cr3)]
	mov cr3, eax
	mov ecx, MSR_EFER               ; LME, and NXE when the BSP uses NX
	mov eax, [TR(tr_efer)]
	xor edx, edx
	wrmsr
	mov eax, [TR(tr_cr0)]           ; PG, PE, WP as on the BSP
	mov cr0, eax
	jmp TR_CODE64:TR(.lm64)

BITS 64
.lm64:
	mov ax, TR_DATA
	mov ds, ax
	mov es, ax
	mov ss, ax
	mov rsp, [TR(tr_stack)]
	xor ebp, ebp                    ; the end of every backtrace
	mov rax, [TR(tr_entry)]
	call rax                        ; never returns
.hang:
	cli
	hlt
	jmp .hang

; Every descriptor is marked accessed (type bit 0): loading a segment
; register with one that is not makes the CPU write the bit into the GDT,
; and once paging is on this page is read-only (smpboot.c maps it so:
; W^X), so that write would fault with no IDT to catch it.
align 16
tr_gdt:
	dq 0
	dq 0x00cf9b000000ffff           ; 0x08: 32-bit code, 4 GiB flat
	dq 0x00cf93000000ffff           ; 0x10: data, 4 GiB flat
	dq 0x00af9b000000ffff           ; 0x18: 64-bit code (L=1)
tr_gdt_end:
tr_gdtr:
	dw tr_gdt_end - tr_gdt - 1
	dd TR(tr_gdt)

; Filled in by smpboot.c before each start (struct trampoline_data).
align 8
trampoline_data:
tr_cr0:   dd 0
tr_cr3:   dd 0
tr_cr4:   dd 0
tr_efer:  dd 0
tr_stack: dq 0
tr_entry: dq 0
trampoline_end:
