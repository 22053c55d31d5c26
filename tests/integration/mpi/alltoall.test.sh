#!/usr/bin/env bash
# MPI_Alltoall under the collective link rule: every rank -> every other rank,
# its block (COUNT ints) per round, one message per round; MPI_Barrier puts
# nothing on links. Open MPI and MPICH.
# make check: runs beside other tests
. "$(dirname "$0")/../lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/mpi/mpi_lib.sh"
ROUNDS=25 COUNT=300 NP=4
for flavour in openmpi mpich; do
  build $flavour alltoall || { not_ok "build alltoall with $flavour"; continue; }
  $TALLY run --mpi -o "a.$flavour" -- $(launcher $flavour $NP) "$WORK/alltoall.$flavour" $ROUNDS $COUNT >/dev/null 2>&1
  check_eq "$flavour: exit status" "$?" 0
  f=a.$flavour.summary
  want=$(awk -v np=$NP -v b=$((ROUNDS * COUNT * 4)) -v m=$ROUNDS 'BEGIN {
    for (i = 0; i < np; i++) for (j = 0; j < np; j++) if (i != j) print i, j, b, m }' | sort -n -k1,1 -k2,2)
  check_eq "$flavour: links = all pairs, ROUNDS x COUNT ints" "$(summary_links "$f" | md5sum | cut -c1-8)" \
    "$(echo "$want" | md5sum | cut -c1-8)"
  check_eq "$flavour: MPI_Alltoall calls" "$(jq .mpi.functions.MPI_Alltoall.calls "$f")" $((NP * ROUNDS))
  check_eq "$flavour: MPI_Alltoall bytes" "$(jq '.mpi.functions.MPI_Alltoall.bytes[0]' "$f")" $((NP * (NP - 1) * ROUNDS * COUNT * 4))
  check_eq "$flavour: MPI_Barrier calls, no bytes" "$(jq -c '.mpi.functions.MPI_Barrier | [.calls, .bytes[0]]' "$f")" "[$((NP * ROUNDS)),0]"
  check_eq "$flavour: marker hits per rank (probes)" "$(jq -c '[.probes.processes[].marker.hits] | unique' "$f")" "[$ROUNDS]"
done
finish
