#!/usr/bin/env bash
# mkiso.sh KERNEL.elf OUT.iso "COMMAND LINE" - a bootable GRUB ISO.
#
# grub-mkrescue (with xorriso, mtools, the BIOS GRUB modules of grub-pc-bin
# and the UEFI ones of grub-efi-amd64-bin) builds one hybrid image: an El
# Torito CD with a BIOS boot image and an EFI system partition (efi.img,
# written with mtools), and an MBR, so the same file boots from a CD or a
# USB stick, under a BIOS or UEFI.  Either GRUB loads our ELF with
# multiboot2 and passes the command line.  Both sets of modules are
# required: an image that silently lacked one would boot in one test
# configuration and not the other.  GRUB waits for nothing (timeout=0, no menu) and
# writes to the serial port as well as the screen, so an error of its own
# (a kernel that does not fit in memory: "error: out of memory.") reaches
# the serial log, where the harness reports it (tests/harness/ktap.py).
# Under UEFI, all_video (efi_gop) gives GRUB a video mode to set (otherwise
# it says "error: no suitable video mode found."); with no VGA text mode there,
# GRUB still warns "no console will be available to OS": this kernel asks
# for no framebuffer and speaks on the serial port (tests/harness/ktap.py
# knows that line is GRUB's).
# Input stays the keyboard alone: GRUB polling the serial port for input
# stalls under -icount sleep=off (harness:panic-without-exit).
# Should loading or booting fail, GRUB halts the machine (QEMU exits)
# instead of waiting for a key nobody will press.
set -euo pipefail
kernel=$1
out=$2
cmdline=${3:-}
stage=$(mktemp -d)
# The log lives outside the staged tree: xorriso would otherwise add it to
# the image while it is still being written, and fail ("size has changed").
log=$(mktemp)
trap 'rm -rf "$stage" "$log"' EXIT
for platform in i386-pc:grub-pc-bin x86_64-efi:grub-efi-amd64-bin; do
	if [ ! -d "/usr/lib/grub/${platform%%:*}" ]; then
		echo "mkiso: /usr/lib/grub/${platform%%:*} is missing: the hybrid ISO needs GRUB's ${platform%%:*} modules (apt-get install ${platform#*:})" >&2
		exit 1
	fi
done
mkdir -p "$stage/boot/grub"
cp "$kernel" "$stage/boot/kernel.elf"
# GRUB's script language would take ; $ } \ and quotes in the line as its
# own syntax (`test=boot; seed=5` arrived as `test=boot`).  Each word of
# the line becomes one single-quoted GRUB word, which keeps every byte (a
# ' inside is written '\'').  GRUB's multiboot2 command then writes \ '
# and " of its arguments as \\ \' \" (and would wrap an argument holding
# a space in double quotes: words hold none); the kernel undoes that
# (arch/x86_64/multiboot2.c), so it gets the line as typed.
grub_quote() {
	local q="'\\''"
	printf "'%s'" "${1//\'/$q}"
}
args=
read -ra words <<<"$cmdline"
for word in "${words[@]}"; do
	args+=" $(grub_quote "$word")"
done
cat > "$stage/boot/grub/grub.cfg" <<CFG
serial --unit=0 --speed=115200
terminal_output serial console
if [ "\$grub_platform" = efi ]; then
	insmod all_video
fi
set timeout=0
set timeout_style=hidden
set default=0
menuentry "teaching kernel" {
	multiboot2 /boot/kernel.elf$args
	boot
	echo "grub: could not boot the kernel; halting"
	halt
}
CFG
mkdir -p "$(dirname "$out")"
# Only the modules grub.cfg needs (and what they need), no fonts, themes or
# translations: a full hybrid image is 22 MB and takes about three times as
# long to write as this 7 MB one, and make test writes one ISO per command
# line (tests/harness/boottest.py).
# The UEFI GRUB's early config loads every partition-map module (an error
# line on the serial port for each one missing), hence all part_*.
modules="multiboot2 normal serial terminal echo halt test all_video iso9660"
modules+=" part_acorn part_amiga part_apple part_bsd part_dfly part_dvh"
modules+=" part_gpt part_msdos part_plan part_sun part_sunpc"
grub-mkrescue --locales= --fonts= --themes= --install-modules="$modules" \
	-o "$out" "$stage" >"$log" 2>&1 || {
	cat "$log" >&2
	echo "mkiso: grub-mkrescue failed (are grub-pc-bin, grub-efi-amd64-bin, xorriso and mtools installed?)" >&2
	exit 1
}
