#!/usr/bin/env bash
# ensure-deps.sh - install what building and booting the kernel needs.
#
# Called by `make run`, `make test` and friends before anything else.  Each
# tool is looked for first; only missing ones are installed, with one
# `apt-get update` before the first install.  Not root: print the exact
# command to run and fail.
#
# Usage: scripts/ensure-deps.sh [extra-package ...]
set -euo pipefail

# command -> Debian package that provides it
declare -A need=(
	[qemu-system-x86_64]=qemu-system-x86
	[grub-mkrescue]=grub-common
	[xorriso]=xorriso
	[mformat]=mtools
	[nasm]=nasm
	[python3]=python3
	[gcc]=gcc
	[make]=make
	[ld]=binutils
)
# grub-mkrescue needs the BIOS (i386-pc) and UEFI (x86_64-efi) GRUB
# modules for the hybrid ISO, which grub-common does not carry; the UEFI
# boots of make test (and make run UEFI=1) need OVMF, QEMU's UEFI firmware.
[ -d /usr/lib/grub/i386-pc ] || need[__grub_pc_modules]=grub-pc-bin
[ -d /usr/lib/grub/x86_64-efi ] || need[__grub_efi_modules]=grub-efi-amd64-bin
compgen -G "/usr/share/OVMF/OVMF_CODE*.fd" >/dev/null || need[__ovmf]=ovmf
extra_pkgs=("$@")
case "${CC:-gcc}" in
*clang*)
	need[clang]=clang
	# clang's AddressSanitizer runtime, for the host unit tests
	extra_pkgs+=(libclang-rt-14-dev)
	;;
esac

missing=()
for cmd in "${!need[@]}"; do
	if [[ $cmd == __* ]] || ! command -v "$cmd" >/dev/null 2>&1; then
		missing+=("${need[$cmd]}")
	fi
done
for pkg in "${extra_pkgs[@]}"; do
	dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
[ ${#missing[@]} -eq 0 ] && exit 0

# de-duplicate, keep order stable
mapfile -t missing < <(printf '%s\n' "${missing[@]}" | sort -u)
cmd="apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
	echo "Missing packages: ${missing[*]}" >&2
	echo "Run as root:  apt-get update && $cmd" >&2
	exit 1
fi
echo "Installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
$cmd
