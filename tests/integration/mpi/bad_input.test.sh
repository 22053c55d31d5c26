#!/usr/bin/env bash
# Bad input to the instrumented run: one clear line on stderr and the
# summary still written — an unknown marker symbol, a window that never
# opens, a rank that calls MPI_Abort, a rank killed during the window, a
# program that ends before its window is full, and bad --window values.
# make check: runs beside other tests
. "$(dirname "$0")/../lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/mpi/mpi_lib.sh"
build openmpi stencil -DWITH_PROBE && build openmpi failing || { not_ok "build fixtures"; finish; }
L=$(launcher openmpi 4)

$TALLY run --mpi --marker no_such_function --window 'start=1,iterations=5' -o sym -- $L \
  "$WORK/stencil.openmpi" blocking 20 16 1 0 1 "$WORK/h" >/dev/null 2>err
check_eq "unknown symbol: the program still runs" "$?" 0
check_contains "unknown symbol: one line names it" "$(cat err)" "tally: --marker no_such_function: no function 'no_such_function'"
check "unknown symbol: summary written, window never opened" \
  jq -e '.mpi.per_rank | all(.window == "never opened")' sym.summary

$TALLY run --mpi --window 'start=1000,iterations=10' -o never -- $L \
  "$WORK/stencil.openmpi" blocking 20 16 1 0 1 "$WORK/h" >/dev/null 2>err
check_eq "window never opens: exit status" "$?" 0
check_contains "window never opens: the line" "$(cat err)" "tally: mpi: the window never opened on rank 0 (20 marker hits"
check_eq "window never opens: comm_ratio null, summary written" "$(jq .mpi.comm_ratio never.summary)" null

$TALLY run --mpi -o abort -- $L "$WORK/failing.openmpi" abort 100 10 >/dev/null 2>err
status=$?
check "MPI_Abort: non-zero exit status ($status)" test "$status" -ne 0
check_contains "MPI_Abort: the line" "$(cat err)" "tally: mpi: rank 1 called MPI_Abort"
check_eq "MPI_Abort: summary written with 4 ranks" "$(jq .mpi.ranks abort.summary)" 4

$TALLY run --mpi --window 'start=5,iterations=50' -o killed -- $L "$WORK/failing.openmpi" kill 100 20 >/dev/null 2>err
check_contains "rank killed in the window: the line" "$(cat err)" "tally: mpi: rank 1 ended during the window"
check "rank killed in the window: its data up to then is kept" \
  jq -e '.mpi.per_rank[] | select(.rank == 1) | .iterations >= 14' killed.summary

$TALLY run --mpi --window 'start=5,iterations=50' -o short -- $L \
  "$WORK/stencil.openmpi" blocking 20 16 1 0 1 "$WORK/h" >/dev/null 2>err
check_contains "program ends inside the window: the line" "$(cat err)" "rank 0 measured 15 of 50 iterations (the program ended first)"
check_eq "program ends inside the window: 15 iterations" "$(jq -c '[.mpi.per_rank[].iterations] | unique' short.summary)" "[15]"

for bad in 'start=x' 'begin=3' 'iterations=-1' 'time=0'; do
  $TALLY run --mpi --window "$bad" -o bad -- true 2>err
  check_eq "--window '$bad': exit status 125" "$?" 125
  check_contains "--window '$bad': a line" "$(cat err)" "tally: --window:"
done
$TALLY run --mpi -o what -- true 2>err
check_eq "--mpi on a command with no MPI: 125" "$?" 125
check_contains "--mpi on a command with no MPI: the line" "$(cat err)" "cannot tell whether"
finish
