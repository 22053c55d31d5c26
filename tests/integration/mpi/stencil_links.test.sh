#!/usr/bin/env bash
# tally run --mpi on the 2-D 5-point stencil (ScoPro Fig. 4) with Open MPI and
# MPICH, blocking and non-blocking, on 4, 8 and 16 ranks: the per-link
# volumes must be exactly the neighbour pattern (iterations x halo x 8 bytes,
# one message per iteration on each neighbour link, nothing else).
# make check: runs beside other tests
. "$(dirname "$0")/../lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/mpi/mpi_lib.sh"
HALO=64
for flavour in openmpi mpich; do
  build $flavour stencil -DWITH_PROBE || { not_ok "build stencil with $flavour"; continue; }
  for np in 4 8 16; do
    its=40; [ $flavour = mpich ] && [ $np = 16 ] && its=15
    for variant in blocking nonblocking; do
      name="$flavour $variant np=$np"
      $TALLY run --mpi -o "s.$flavour.$variant.$np" -- $(launcher $flavour $np) \
        "$WORK/stencil.$flavour" $variant $its $HALO 1 0 1 "$WORK/hand" >/dev/null 2>"err.$np"
      status=$?
      check_eq "$name: exit status" "$status" 0
      f="s.$flavour.$variant.$np.summary"
      check_eq "$name: ranks" "$(jq .mpi.ranks "$f")" "$np"
      check_eq "$name: links = neighbour pattern" "$(summary_links "$f" | md5sum | cut -c1-8)" \
        "$(expected_stencil_links $np $its $HALO | md5sum | cut -c1-8)"
      if [ $variant = blocking ]; then fn=MPI_Send; else fn=MPI_Isend; fi
      sent=$(expected_stencil_links $np $its $HALO | awk '{ b += $3; m += $4 } END { print b, m }')
      check_eq "$name: $fn bytes and calls" "$(jq -r ".mpi.functions.$fn | \"\(.bytes[0]) \(.calls)\"" "$f")" "$sent"
    done
  done
done
check_contains "library named (MPICH)" "$(jq -r .mpi.library s.mpich.blocking.4.summary)" "MPICH 4"
check_contains "library named (Open MPI)" "$(jq -r .mpi.library s.openmpi.blocking.4.summary)" "Open MPI 4"
finish
