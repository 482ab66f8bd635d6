#!/usr/bin/env bash
# mkiso.sh KERNEL.elf OUT.iso "COMMAND LINE" - a bootable GRUB ISO.
#
# grub-mkrescue (with xorriso and the BIOS GRUB modules of grub-pc-bin)
# builds an El Torito CD image whose GRUB loads our ELF with multiboot2 and
# passes the command line.  GRUB waits for nothing (timeout=0) and prints
# nothing of its own on the serial port, so the serial log is the kernel's.
set -euo pipefail
kernel=$1
out=$2
cmdline=${3:-}
stage=$(mktemp -d)
# The log lives outside the staged tree: xorriso reads that tree while
# grub-mkrescue writes the log, and a file that grows under it is an error.
log=$(mktemp)
trap 'rm -rf "$stage" "$log"' EXIT
mkdir -p "$stage/boot/grub"
cp "$kernel" "$stage/boot/kernel.elf"
cat > "$stage/boot/grub/grub.cfg" <<CFG
set timeout=0
set default=0
menuentry "teaching kernel" {
	multiboot2 /boot/kernel.elf $cmdline
	boot
}
CFG
mkdir -p "$(dirname "$out")"
grub-mkrescue -o "$out" "$stage" >"$log" 2>&1 || {
	cat "$log" >&2
	echo "mkiso: grub-mkrescue failed (is grub-pc-bin installed?)" >&2
	exit 1
}
