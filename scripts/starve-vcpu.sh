#!/bin/bash
# starve-vcpu.sh KERNEL LOGDIR SMP CMDLINE - a descheduled vCPU on demand
# (issue 12): boot once, and from QEMU's start pin the host thread of vCPU 1
# to host core 0 at SCHED_IDLE, beside two busy loops there, so the host runs
# that vCPU only a few ms now and then.  A test that waits a fixed window for
# cpu1 fails; one that waits for the event passes.  Pass watchdog_thresh=60
# ap_timeout_ms=600000 in CMDLINE: the starved CPU is slow to start and tick.
kernel=$1; logdir=$2; smp=$3; cmdline=$4
mkdir -p $logdir
QEMU_OPTS="-name debug-threads=on" python3 "$(dirname "$0")/../tests/harness/boottest.py" --kernel $kernel --smp $smp --mem 64M --cmdline "$cmdline" --timeout 300 --log-dir $logdir > $logdir/out.txt 2>&1 &
bt=$!
log=$logdir/boot-smp$smp-64M.log
tid=""
for i in $(seq 600); do
  for q in $(pgrep -P $bt); do for t in /proc/$q/task/*; do [ "$(cat $t/comm 2>/dev/null)" = "CPU 1/TCG" ] && tid=$(basename $t) && qpid=$q; done; done
  [ -n "$tid" ] && break; sleep 0.05; done
echo "qemu $qpid vcpu1 thread $tid"
pids=()
for i in 1 2; do taskset -c 0 sh -c 'while :; do :; done' & pids+=($!); done
taskset -p -c 0 $tid >/dev/null; chrt --idle -p 0 $tid
wait $bt
for p in "${pids[@]}"; do kill $p; done
cat $logdir/out.txt
