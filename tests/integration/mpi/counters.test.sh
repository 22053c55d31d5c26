#!/usr/bin/env bash
# Per-rank counters over the window and the whole run (perf_event_open inside
# each rank, switched with the window): the window's task-clock of each rank
# is positive and within its window's wall time (the rank's compute + comm
# time), a rank doing 4 x the work uses more CPU than the others (Open MPI,
# whose waiting ranks yield when oversubscribed; MPICH's poll, so there a
# waiting rank's task-clock holds its waiting too), page faults and context
# switches are counts >= 0, the whole run's counters are at least the
# window's, and on a machine without a hardware PMU (these VMs) the summary
# and one line on stderr say the hardware counters are absent; where there is
# one, instructions are counted.
. "$(dirname "$0")/../lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/mpi/mpi_lib.sh"
HALO=128
if [ -e /sys/bus/event_source/devices/cpu ]; then PMU=yes; else PMU=no; fi
for flavour in openmpi mpich; do
  build $flavour stencil -DWITH_PROBE || { not_ok "build stencil with $flavour"; continue; }
  p="win.$flavour"
  $TALLY run --mpi --window 'start=20,iterations=100' -o "$p" -- $(launcher $flavour 4) \
    "$WORK/stencil.$flavour" blocking 200 $HALO 300 20 100 "$WORK/hand.$flavour" 1 >/dev/null 2>"$p.err"
  f="$p.summary"
  check_eq "$flavour: every rank has window and run counters" \
    "$(jq '[.mpi.per_rank[] | select(.counters.window and .counters.run)] | length' "$f")" 4
  for r in 0 1 2 3; do
    rank=".mpi.per_rank[] | select(.rank == $r)"
    span=$(jq "$rank | .span[0]" "$f")
    tc=$(jq "$rank | .counters.window.task_clock[0]" "$f")
    check_cmp "$flavour rank $r: window task-clock > 0" "$tc" ">" 0
    check_cmp "$flavour rank $r: window task-clock <= window wall time x 1.05" "$tc" "<=" \
      "$(awk -v s="$span" 'BEGIN { print s * 1.05 }')"
    for c in page_faults context_switches; do
      check_eq "$flavour rank $r: window and run $c are counts >= 0" \
        "$(jq "$rank | [.counters.window.$c, .counters.run.$c] | map(type == \"number\" and . >= 0 and floor == .) | all" "$f")" true
    done
    for c in 'task_clock[0]' page_faults context_switches; do
      check_cmp "$flavour rank $r: run $c >= window $c" "$(jq "$rank | .counters.run.$c" "$f")" ">=" \
        "$(jq "$rank | .counters.window.$c" "$f")"
    done
  done
  check_cmp "$flavour: the ranks' run task-clock <= their wall time x 1.05" \
    "$(jq '[.mpi.per_rank[].counters.run.task_clock[0]] | max' "$f")" "<=" \
    "$(awk -v w="$(summary_value "$f" wall_time)" 'BEGIN { print w * 1.05 }')"
  check_near "$flavour: the run's window task-clock is the sum of the ranks'" \
    "$(jq '.mpi.counters.window.task_clock[0]' "$f")" "$(jq '[.mpi.per_rank[].counters.window.task_clock[0]] | add' "$f")" 0.000001
  if [ $flavour = openmpi ]; then
    check_cmp "$flavour: the heavy rank's window task-clock > every light rank's" \
      "$(jq '.mpi.per_rank[] | select(.rank == 1) | .counters.window.task_clock[0]' "$f")" ">" \
      "$(jq '[.mpi.per_rank[] | select(.rank != 1) | .counters.window.task_clock[0]] | max' "$f")"
  fi
  if [ $PMU = no ]; then
    check_contains "$flavour: the summary says the hardware counters are absent" \
      "$(jq -r .mpi.counters.hardware "$f")" "absent: no hardware PMU on this machine"
    check_eq "$flavour: one line on stderr says so" \
      "$(grep -c '^tally: mpi: hardware counters absent: no hardware PMU' "$p.err")" 1
    check_eq "$flavour: no hardware values in the summary" \
      "$(jq '[.. | objects | select(has("instructions") or has("cycles"))] | length' "$f")" 0
  else
    check_eq "$flavour: hardware counters counted" "$(jq -r .mpi.counters.hardware "$f")" counted
    check_cmp "$flavour: rank 0's window instructions > 0" \
      "$(jq '.mpi.per_rank[0].counters.window.instructions' "$f")" ">" 0
  fi
  text=$($TALLY mpi report "$p")
  check_contains "$flavour: report text lists the window's counters" "$text" "counters in the window (hardware counters"
  check_eq "$flavour: report json has every rank's counters" \
    "$($TALLY mpi report --format json "$p" | jq '[.counters.per_rank[] | select(.window.task_clock[0] > 0)] | length')" 4
done

# No --window: the window is the whole run (MPI_Init's return to
# MPI_Finalize's entry), inside the run's counters.
$TALLY run --mpi -o whole -- $(launcher openmpi 2) "$WORK/stencil.openmpi" blocking 50 $HALO 20 0 10 "$WORK/hw" \
  >/dev/null 2>&1
for r in 0 1; do
  rank=".mpi.per_rank[] | select(.rank == $r)"
  check_cmp "whole run rank $r: window task-clock > 0" "$(jq "$rank | .counters.window.task_clock[0]" whole.summary)" ">" 0
  check_cmp "whole run rank $r: run task-clock >= window task-clock" \
    "$(jq "$rank | .counters.run.task_clock[0]" whole.summary)" ">=" "$(jq "$rank | .counters.window.task_clock[0]" whole.summary)"
done
finish
