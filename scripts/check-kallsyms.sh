#!/usr/bin/env bash
# check-kallsyms.sh PASS1.elf FINAL.elf - the symbol table must be exact.
#
# The second link may only differ from the first by the table itself: if
# any function moved, every backtrace would name the wrong functions.
set -euo pipefail
NM=${NM:-nm}
list() { "$NM" -n --defined-only "$1" | awk '$2 ~ /^[tTwW]$/'; }
if ! diff -q <(list "$1") <(list "$2") >/dev/null; then
	echo "check-kallsyms: functions moved between the two links of $2" >&2
	diff <(list "$1") <(list "$2") | head -20 >&2
	exit 1
fi
