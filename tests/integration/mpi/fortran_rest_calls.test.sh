#!/usr/bin/env bash
# The Fortran calls fortran_every_call.test.sh leaves out (tests/fixtures/
# mpi/rest_calls.F90 on 4 ranks): MPI_Init_thread (recorded under its own
# name), MPI_Bsend, an MPI_Recv into a strided array section that the
# message fills only in part (MPICH's mpi_f08 receives it through a derived
# type: the bytes are still the 40 that arrived) and rank 1's MPI_Abort, in
# the five variants of the other Fortran tests: Open MPI's `use mpi_f08` and
# `use mpi` (lib/mpi/fortran_openmpi_*.c), MPICH's `use mpi_f08`
# (fortran_mpich_f08_*.c and the C wrappers), the same with
# INTEGER(KIND=MPI_COUNT_KIND) counts (the large-count C wrappers) and
# MPICH's `use mpi` (the C wrappers). Every function's calls and bytes and
# every link are exact and the same in all five.
# make check: runs beside other tests
. "$(dirname "$0")/../lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/mpi/mpi_lib.sh"
FUNCTIONS='MPI_Barrier 4 0;MPI_Bsend 4 160;MPI_Init_thread 4 0;MPI_Recv 4 160;'
LINKS='0 1 40 1;1 2 40 1;2 3 40 1;3 0 40 1;'
for variant in f08.openmpi mpi.openmpi f08.mpich f08large.mpich mpi.mpich; do
  flavour=${variant#*.}
  case ${variant%.*} in f08) flags=-DF08 ;; f08large) flags='-DF08 -DLARGE' ;; *) flags= ;; esac
  mpif90.$flavour -O1 -cpp $flags -o "$WORK/rest.$variant" "$FIX/rest_calls.F90" ||
    { not_ok "build rest_calls.F90 ($variant)"; continue; }
  $TALLY run --mpi -o "rest.$variant" -- $(launcher $flavour 4) "$WORK/rest.$variant" >/dev/null 2>err
  status=$?
  check "$variant: MPI_Abort's non-zero exit status ($status)" test "$status" -ne 0
  check_contains "$variant: the abort is named" "$(cat err)" "tally: mpi: rank 1 called MPI_Abort"
  f=rest.$variant.summary
  check_eq "$variant: calls and bytes of every function" \
    "$(jq -r '.mpi.functions | to_entries[] | "\(.key) \(.value.calls) \(.value.bytes[0])"' "$f" | sort | tr '\n' ';')" "$FUNCTIONS"
  check_eq "$variant: links" "$(summary_links "$f" | tr '\n' ';')" "$LINKS"
done
finish
