; multiboot2.asm - the header GRUB looks for in the first 32 KiB of the image.
;
; Multiboot2 specification, section 3.1: a magic number, the architecture
; (0 = 32-bit protected mode i386), the header length and a checksum that
; makes the four fields sum to zero, then a list of tags ending with the end
; tag.  We ask for nothing special: GRUB loads the ELF segments at their
; physical (load) addresses and jumps to the ELF entry point, _start, in
; 32-bit protected mode with paging off.

MB2_MAGIC        equ 0xe85250d6
MB2_ARCH_I386    equ 0
MB2_TAG_END      equ 0

section .multiboot2 align=8
mb2_header:
	dd MB2_MAGIC
	dd MB2_ARCH_I386
	dd mb2_header_end - mb2_header
	dd -(MB2_MAGIC + MB2_ARCH_I386 + (mb2_header_end - mb2_header))
	; end tag: type 0, flags 0, size 8
	dw MB2_TAG_END
	dw 0
	dd 8
mb2_header_end:
