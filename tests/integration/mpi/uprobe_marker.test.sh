#!/usr/bin/env bash
# An MPI program with no probe library linked (stencil built without
# -DWITH_PROBE): the iteration marker is its function stencil_iteration,
# counted by a uprobe (perf_event_open on the uprobe PMU, as root) attached
# to each rank when it registers and detached when the window closes.
. "$(dirname "$0")/../lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/mpi/mpi_lib.sh"
HALO=64 ITS=400 LOAD=300
mpicc.openmpi -std=gnu11 -O2 -Wno-stringop-overflow -o "$WORK/stencil.openmpi" "$FIX/stencil.c" ||
  { not_ok "build stencil without the probe library"; finish; }
check "the program does not link libtally-probe" bash -c "! ldd '$WORK/stencil.openmpi' | grep -q tally-probe"
$TALLY run --mpi --marker stencil_iteration --window 'start=50,iterations=100' -o u -- $(launcher openmpi 4) \
  "$WORK/stencil.openmpi" blocking $ITS $HALO $LOAD 0 1 "$WORK/hand" >/dev/null 2>err
check_eq "exit status" "$?" 0
# the one line about hardware counters (absent on VMs) is a note, not a problem
check_eq "no problem reported" "$(grep -v '^tally: mpi: hardware counters ' err)" ""
# the monitor's switches reach each rank's counters at its next MPI call
# (the acknowledgement): the window's CPU time is there, more than nothing,
# less than the run's, and no more than the window's length (one thread)
check_eq "uprobe window: window and run counters" \
  "$(jq -c '[.mpi.per_rank[] | .counters as $c | [($c.window.task_clock[0] > 0),
     ($c.window.task_clock[0] < $c.run.task_clock[0]), ($c.window.task_clock[0] <= .span[0] + 0.02)]] | unique' u.summary)" \
  '[[true,true,true]]'
check_eq "window kind" "$(jq -r .mpi.window.kind u.summary)" "uprobe marker"
its=$(jq -c '[.mpi.per_rank[].iterations] | unique' u.summary)
# the monitor reads the uprobe counts every millisecond and switches the
# rank on and off by its control word: the window holds at least 100
# iterations (more when a loaded machine delays the monitor's look), and
# the iterations are counted exactly between the two switches
check "every rank measured at least 100 iterations ($its)" \
  jq -e '[.mpi.per_rank[].iterations] | all(. >= 100)' u.summary
check "it opened after hit 51 ($(jq -c '[.mpi.per_rank[].window // empty]' u.summary))" \
  jq -e '.mpi.window.ranks_measured == 4' u.summary
# the link volumes are whole iterations' worth give or take the one being
# switched in: per link messages within [iterations-1, iterations+1]
check "links carry the window's iterations" jq -e '
  . as $s | ([$s.mpi.per_rank[] | {(.rank|tostring): .iterations}] | add) as $it
  | [$s.mpi.links[] | (.messages - $it[(.from|tostring)]) | fabs <= 1] | all' u.summary
check_eq "neighbour links only (2x2 grid)" "$(jq '.mpi.links | length' u.summary)" 8
finish
