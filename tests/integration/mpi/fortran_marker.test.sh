#!/usr/bin/env bash
# A Fortran MPI program with ScoPro's `call measuremark()` (libtally-probe's
# Fortran entry point), windowed: start=5, iterations=10 of 40. With MPICH
# the Fortran MPI_SEND reaches the C wrapper (libmpichfort calls MPI_Send);
# with Open MPI the Fortran bindings call PMPI_ directly and
# lib/mpi/fortran_openmpi_*.c interpose the Fortran names
# (docs/instrumentation.md): the window's links are exact with both.
# make check: runs beside other tests
. "$(dirname "$0")/../lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/mpi/mpi_lib.sh"
N=50
for flavour in mpich openmpi; do
  build $flavour marker || { not_ok "build marker.f90 with $flavour"; continue; }
  $TALLY run --mpi --window 'start=5,iterations=10' -o "f.$flavour" -- $(launcher $flavour 4) \
    "$WORK/marker.$flavour" 40 $N >/dev/null 2>&1
  check_eq "$flavour: exit status" "$?" 0
  f=f.$flavour.summary
  check_eq "$flavour: measuremark hits per rank" "$(jq -c '[.probes.processes[].marker.hits] | unique' "$f")" "[40]"
  check_eq "$flavour: window of 10 iterations on every rank" "$(jq -c '[.mpi.per_rank[].iterations] | unique' "$f")" "[10]"
done
f=f.mpich.summary
check_eq "mpich: ring links, 10 iterations x N doubles" \
  "$(summary_links "$f" | tr '\n' ';')" "0 1 $((10 * N * 8)) 10;1 2 $((10 * N * 8)) 10;2 3 $((10 * N * 8)) 10;3 0 $((10 * N * 8)) 10;"
check_eq "mpich: MPI_Send calls in the window" "$(jq .mpi.functions.MPI_Send.calls "$f")" 40
f=f.openmpi.summary
check_eq "openmpi (Fortran wrappers): ring links, 10 iterations x N doubles" \
  "$(summary_links "$f" | tr '\n' ';')" "0 1 $((10 * N * 8)) 10;1 2 $((10 * N * 8)) 10;2 3 $((10 * N * 8)) 10;3 0 $((10 * N * 8)) 10;"

# the marker alone, in a program without MPI: tally run --probes
cat >plain.f90 <<'F'
program plain
  implicit none
  integer :: i, id, cid
  integer*8 :: n
  call tally_probe_id('inner', id)
  call tally_counter_id('sum', cid)
  do i = 1, 30
    call tally_mark()
    n = i
    call tally_counter_add(cid, n)
    call tally_probe_hit(id)
  end do
end program plain
F
gfortran -O2 -o plain plain.f90 $PROBE_FLAGS
$TALLY run --probes -o plain -- ./plain
check_eq "gfortran without MPI: tally_mark hits" "$(jq '.probes.processes[0].marker.hits' plain.summary)" 30
check_eq "gfortran without MPI: probe hits" "$(jq '.probes.processes[0].probes.inner.hits' plain.summary)" 30
check_eq "gfortran without MPI: counter sum of 1..30" "$(jq -c '.probes.processes[0].counters' plain.summary)" '{"sum":465}'
finish
