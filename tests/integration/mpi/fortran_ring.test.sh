#!/usr/bin/env bash
# A Fortran ring with every call kind of a halo code (tests/fixtures/mpi/
# ring.F90: Isend/Irecv/Waitall, Sendrecv, Send/Recv, Allreduce, Bcast,
# Alltoall) under tally run --mpi: built with `use mpi_f08` and with `use
# mpi` by Open MPI's mpif90 (lib/mpi/fortran_openmpi_*.c interpose the
# Fortran names) and by MPICH's (`use mpi`: libmpichfort calls the C MPI_
# functions; `use mpi_f08`: the calls with a buffer reach the C functions
# through MPICH's MPIR_*_cdesc, MPI_Init, MPI_Waitall and MPI_Finalize call
# PMPI_ and lib/mpi/fortran_mpich_f08_*.c interpose their Fortran names;
# f08large: the counts INTEGER(KIND=MPI_COUNT_KIND), through the large-count
# C wrappers, MPI_Send_c, ...; docs/instrumentation.md). Every link's bytes
# and messages and every function's calls and bytes are exact; the
# communication fraction is within 1 % (absolute) of the program's MPI_Wtime
# hand timing, as in comm_ratio.test.sh.
. "$(dirname "$0")/../lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/mpi/mpi_lib.sh"
NP=4 IT=200 N=100 M=50 R=30 K=10 WORK_LOOP=1000000

# the links of the ring, sorted "from to bytes messages" lines
expected_links() {
  awk -v np=$NP -v it=$IT -v n=$N -v m=$M -v r=$R -v k=$K 'BEGIN {
    for (me = 0; me < np; me++)
      for (to = 0; to < np; to++) {
        if (to == me) continue
        b = 8 + 4; msg = 2                                   # Allreduce, Alltoall
        if (to == (me + 1) % np) { b += 8 * (n + m + r); msg += 3 }  # Isend, Sendrecv, Send
        if (to == (me + np - 1) % np) { b += 8 * n; msg += 1 }       # Isend
        if (me == 0) { b += 4 * k; msg += 1 }                # Bcast from 0
        print me, to, it * b, it * msg
      } }' | sort -n -k1,1 -k2,2
}

# every function's "name calls bytes", summed over the ranks, sorted
expected_functions() {
  local o=$((NP - 1))
  printf '%s\n' "MPI_Allreduce $((NP * IT)) $((NP * IT * o * 8))" "MPI_Alltoall $((NP * IT)) $((NP * IT * o * 4))" \
    "MPI_Bcast $((NP * IT)) $((IT * o * K * 4))" "MPI_Finalize $NP 0" "MPI_Init $NP 0" \
    "MPI_Irecv $((2 * NP * IT)) $((2 * NP * IT * N * 8))" "MPI_Isend $((2 * NP * IT)) $((2 * NP * IT * N * 8))" \
    "MPI_Recv $((NP * IT)) $((NP * IT * R * 8))" "MPI_Send $((NP * IT)) $((NP * IT * R * 8))" \
    "MPI_Sendrecv $((NP * IT)) $((NP * IT * 2 * M * 8))" "MPI_Waitall $((NP * IT)) 0" | sort
}
summary_functions() {
  jq -r '.mpi.functions | to_entries[] | "\(.key) \(.value.calls) \(.value.bytes[0])"' "$1" | sort
}

for variant in f08.openmpi mpi.openmpi f08.mpich f08large.mpich mpi.mpich; do
  flavour=${variant#*.} binding=${variant%.*}
  case $binding in f08) flags=-DF08 ;; f08large) flags='-DF08 -DLARGE' ;; *) flags= ;; esac
  mpif90.$flavour -O2 -cpp $flags -o "$WORK/ring.$variant" "$FIX/ring.F90" ||
    { not_ok "build ring.F90 ($binding) with $flavour"; continue; }
  $TALLY run --mpi -o "ring.$variant" -- $(launcher $flavour $NP) \
    "$WORK/ring.$variant" $IT $N $M $R $K $WORK_LOOP "$WORK/hand.$variant" >/dev/null 2>&1
  check_eq "$variant: exit status" "$?" 0
  f=ring.$variant.summary
  check_eq "$variant: links = $IT iterations of the ring's pattern" \
    "$(summary_links "$f" | tr '\n' ';')" "$(expected_links | tr '\n' ';')"
  check_eq "$variant: calls and bytes of every function" \
    "$(summary_functions "$f" | tr '\n' ';')" "$(expected_functions | tr '\n' ';')"
  hand=$(hand_fraction "$WORK/hand.$variant" total comm)
  check_near "$variant: comm fraction vs MPI_Wtime" "$(jq .mpi.comm_fraction "$f")" "$hand" 0.01
  echo "# $variant: comm fraction $(jq .mpi.comm_fraction "$f"), hand $hand"
done
finish
