; isr.asm - the first instructions of every interrupt and exception.
;
; The CPU pushes SS, RSP, RFLAGS, CS, RIP and, for some exceptions, an error
; code (SDM vol. 3A, 6.14 and table 6-1).  Each of the 256 stubs below makes
; the frame uniform: it pushes a zero where the CPU pushed no error code,
; then the vector number, and jumps to isr_common.  isr_common saves every
; general-purpose register in the order of struct pt_regs (interrupts.h),
; calls interrupt_dispatch(regs) and undoes it all with IRETQ.
;
; The stack stays 16-byte aligned at the call: the CPU aligns RSP before
; pushing its 5 (or 6 with our dummy) quadwords, and 1 vector + 15
; registers make the total a multiple of 16.
;
; GS is never swapped: everything runs in ring 0 and the GS base always
; points at this CPU's per-CPU area, so even an NMI can use it at once.
;
; The rule that keeps NMIs from nesting.  The CPU blocks further NMIs from
; NMI delivery until the next IRETQ, any IRETQ (SDM vol. 3A, 6.7.1).  So
; nothing that runs inside an NMI may end in an IRETQ of its own: no
; exception that returns, and no interrupt (IF is clear throughout).  Today
; every exception except #DB ends in panic(), and #DB cannot happen inside
; an NMI: only single-step tracing (TF) raises it, no code sets debug
; registers, and NMI delivery clears TF.  If that IRETQ ran, NMIs would be
; open again on the NMI's own IST stack, and a second NMI would start at the
; same IST1 top and overwrite the first one's frame: the return to the
; interrupted code would be lost.  Whoever adds an exception that returns
; (a recoverable #PF, int3 breakpoints, hardware watchpoints) must first
; solve what Linux's entry_64.S solves for that: detect the nested NMI
; (a "NMI executing" flag on the stack), copy the frame out of the IST
; area, and repeat the NMI on the way out (or return with a non-IRET
; sequence).  A KUNIT_ASSERT in an NMI returns rather than longjmp for the
; same reason (kernel/kunit.c).

extern interrupt_dispatch
global isr_stub_table

; Vectors for which the CPU pushes an error code.
%define HAS_ERROR_CODE(v) ((v) == 8 || ((v) >= 10 && (v) <= 14) || (v) == 17 || (v) == 21 || (v) == 29 || (v) == 30)

section .text

%macro ISR_STUB 1
align 16
isr_stub_%1:
%if HAS_ERROR_CODE(%1) == 0
	push 0
%endif
	push %1
	jmp isr_common
%endmacro

%assign v 0
%rep 256
	ISR_STUB v
%assign v v + 1
%endrep

isr_common:
	cld
	push rax
	push rbx
	push rcx
	push rdx
	push rsi
	push rdi
	push rbp
	push r8
	push r9
	push r10
	push r11
	push r12
	push r13
	push r14
	push r15
	mov rdi, rsp
	call interrupt_dispatch
	pop r15
	pop r14
	pop r13
	pop r12
	pop r11
	pop r10
	pop r9
	pop r8
	pop rbp
	pop rdi
	pop rsi
	pop rdx
	pop rcx
	pop rbx
	pop rax
	add rsp, 16                     ; vector and error code
	iretq

section .rodata
align 8
isr_stub_table:
%assign v 0
%rep 256
	dq isr_stub_ %+ v
%assign v v + 1
%endrep
