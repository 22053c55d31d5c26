#!/usr/bin/env bash
# Every function libtally-mpi wraps, from Fortran (tests/fixtures/mpi/
# every_call.F90 on 4 ranks): with Open MPI through the Fortran wrappers
# (`use mpi_f08` and `use mpi`, lib/mpi/fortran_openmpi_*.c); with MPICH's
# `use mpi` through the C wrappers (libmpichfort calls MPI_Send, ...); with
# MPICH's `use mpi_f08` through both: the calls with a buffer (mpi_send_f08ts_
# and the like) reach the C wrappers through MPICH's MPIR_*_cdesc, the others
# (mpi_init_f08_, mpi_wait_f08_, mpi_barrier_f08_, ...) call PMPI_ and are
# caught by lib/mpi/fortran_mpich_f08_*.c; f08large.mpich passes every count
# as INTEGER(KIND=MPI_COUNT_KIND), so that the calls with a buffer reach the
# large-count C wrappers (MPI_Send_c, ...). Each function's calls and bytes
# and each link are exact and the same in the five variants, so the Fortran
# names record what the C ones do (MPI_Recv counts the 3 doubles received,
# not the 64 asked for, also under MPI_STATUS_IGNORE), none is counted twice
# and none is missed.
# make check: runs beside other tests
. "$(dirname "$0")/../lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/mpi/mpi_lib.sh"
FUNCTIONS='MPI_Allgather 4 96;MPI_Allgatherv 4 240;MPI_Alltoallv 4 192;MPI_Barrier 4 0;MPI_Finalize 4 0;MPI_Gather 4 48;MPI_Gatherv 4 72;MPI_Init 4 0;MPI_Iprobe 4 0;MPI_Irecv 6 800;MPI_Isend 4 32;MPI_Issend 1 40;MPI_Probe 1 0;MPI_Recv 1 24;MPI_Reduce 4 144;MPI_Reduce_scatter 4 240;MPI_Rsend 1 16;MPI_Scan 4 336;MPI_Scatter 4 72;MPI_Scatterv 4 72;MPI_Sendrecv_replace 4 256;MPI_Ssend 1 24;MPI_Test 4 0;MPI_Testall 1 0;MPI_Testany 4 0;MPI_Testsome 4 0;MPI_Wait 1 0;MPI_Waitall 1 0;MPI_Waitany 4 0;MPI_Waitsome 4 0;'
LINKS='0 1 288 12;0 2 136 6;0 3 152 6;1 0 80 6;1 2 160 7;1 3 128 5;2 0 120 7;2 1 136 6;2 3 200 8;3 0 152 8;3 1 120 5;3 2 80 4;'
for variant in f08.openmpi mpi.openmpi f08.mpich f08large.mpich mpi.mpich; do
  flavour=${variant#*.} flags=
  case ${variant%.*} in f08) flags=-DF08 ;; f08large) flags='-DF08 -DLARGE' ;; esac
  mpif90.$flavour -O1 -cpp $flags -o "$WORK/every.$variant" "$FIX/every_call.F90" ||
    { not_ok "build every_call.F90 ($variant)"; continue; }
  $TALLY run --mpi -o "every.$variant" -- $(launcher $flavour 4) "$WORK/every.$variant" >/dev/null 2>&1
  check_eq "$variant: exit status" "$?" 0
  f=every.$variant.summary
  check_eq "$variant: calls and bytes of the 30 functions" \
    "$(jq -r '.mpi.functions | to_entries[] | "\(.key) \(.value.calls) \(.value.bytes[0])"' "$f" | sort | tr '\n' ';')" "$FUNCTIONS"
  check_eq "$variant: links" "$(summary_links "$f" | tr '\n' ';')" "$LINKS"
done
finish
