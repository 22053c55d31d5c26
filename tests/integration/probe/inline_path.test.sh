#!/usr/bin/env bash
# libtally-probe's inline fast path (include/tally/probe.h) against its
# exported functions, in one program (tests/fixtures/probe/probe_counts.c):
# with a window of M iterations the inline probe and counter count exactly M
# hits and 3 M, as the called ones do, tally_probe_active() is true in exactly
# M iterations, and nothing is counted outside the window; without a monitor
# nothing is active. Built as a PIE (the distribution's default, where the
# control page is a copy made at link time) and as a non-PIE, and with
# TALLY_PROBE_NO_INLINE (the functions only). The process's perf counters
# (perf_counters) cover the window within the run.
. "$(dirname "$0")/../lib.sh"
ROOT=$TALLY_TEST_ROOT
PROBE_FLAGS="-I$ROOT/include -L$ROOT/build/lib -ltally-probe -Wl,-rpath,$ROOT/build/lib"
SRC=$ROOT/tests/fixtures/probe/probe_counts.c
for variant in pie nopie noinline; do
  case $variant in
    pie) flags="-fPIE -pie" ;;
    nopie) flags="-fno-pie -no-pie" ;;
    noinline) flags="-DTALLY_PROBE_NO_INLINE" ;;
  esac
  cc -std=gnu11 -O2 -Wall -Werror $flags -o "$WORK/probe_counts.$variant" "$SRC" $PROBE_FLAGS ||
    { not_ok "$variant: build"; continue; }
  # the inline path reads the library's control word from the program itself
  # (a copy relocation or a GOT entry for it); the functions alone do not
  refs=$(objdump -R "$WORK/probe_counts.$variant" | grep -c ' tally__probe_control')
  if [ $variant = noinline ]; then
    check_eq "$variant: the program does not read the control word" "$refs" 0
  else
    check_eq "$variant: the program reads the control word itself" "$refs" 1
  fi
  out=$("$WORK/probe_counts.$variant" 50)
  check_contains "$variant: no monitor: never active" "$out" "active 0 "
  if [ $variant != noinline ]; then
    addr=$(echo "$out" | awk '{print $4}')
    check_eq "$variant: the control page is page-aligned" "$(( addr % 4096 ))" 0
  fi
  $TALLY run --probes --window 'start=10,iterations=20' -o "w.$variant" -- "$WORK/probe_counts.$variant" 50 \
    >"out.$variant" 2>"err.$variant"
  check_eq "$variant: exit status" "$?" 0
  check_contains "$variant: active in exactly the 20 iterations of the window" "$(cat "out.$variant")" "active 20 "
  p='.probes.processes[0]'
  check_eq "$variant: probe hits inline / called: exactly 20 each" \
    "$(jq -c "[$p.probes.inline.hits, $p.probes.call.hits]" "w.$variant.summary")" "[20,20]"
  check_eq "$variant: counters inline / called: exactly 20 x 3 each" \
    "$(jq -c "[$p.counters.inline, $p.counters.call]" "w.$variant.summary")" "[60,60]"
  check_eq "$variant: 50 marker hits" "$(jq "$p.marker.hits" "w.$variant.summary")" 50
  check_eq "$variant: the process's window task-clock > 0 and <= its run's" \
    "$(jq "$p.perf_counters | .window.task_clock[0] > 0 and .window.task_clock[0] <= .run.task_clock[0]" "w.$variant.summary")" true
done
if [ ! -e /sys/bus/event_source/devices/cpu ]; then
  check_contains "no hardware PMU: the probes object says the hardware counters are absent" \
    "$(jq -r .probes.perf_counters.hardware w.pie.summary)" "absent: no hardware PMU on this machine"
  check_eq "no hardware PMU: one line on stderr" "$(grep -c '^tally: probes: hardware counters absent' err.pie)" 1
fi
# a window that never opens: everything stays zero
$TALLY run --probes --window 'start=100,iterations=5' -o never -- "$WORK/probe_counts.pie" 50 >out.never 2>/dev/null
check_contains "window never open: never active" "$(cat out.never)" "active 0 "
check_eq "window never open: no hits, no counts" \
  "$(jq -c '.probes.processes[0] | [.probes.inline.hits, .probes.call.hits, .counters.inline, .counters.call]' never.summary)" \
  "[0,0,0,0]"
finish
