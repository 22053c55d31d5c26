#!/usr/bin/env bash
# The communication ratio tally reports against hand timing with MPI_Wtime
# inside the same run (ScoPro Tables 1 and 2): the whole run, and a window
# of 100 iterations (start=20) whose link volumes must be exactly 100
# iterations' worth. Bound: 1 % absolute on the communication fraction
# T_c / (t2 - t1), the issue's target.
. "$(dirname "$0")/../lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/mpi/mpi_lib.sh"
HALO=128
for flavour in openmpi mpich; do
  build $flavour stencil -DWITH_PROBE || { not_ok "build stencil with $flavour"; continue; }
  for variant in blocking nonblocking; do
    name="$flavour $variant"
    its=200
    $TALLY run --mpi -o "whole.$flavour.$variant" -- $(launcher $flavour 4) \
      "$WORK/stencil.$flavour" $variant $its $HALO 20 20 100 "$WORK/hw.$flavour.$variant" >/dev/null 2>&1
    f="whole.$flavour.$variant.summary"
    hand=$(hand_fraction "$WORK/hw.$flavour.$variant" total comm)
    got=$(jq .mpi.comm_fraction "$f")
    check_near "$name whole run: comm fraction vs MPI_Wtime" "$got" "$hand" 0.01
    ratio=$(jq .mpi.comm_ratio "$f")
    check_near "$name whole run: comm_ratio = f/(1-f)" "$ratio" "$(awk -v f="$got" 'BEGIN { printf "%.9f", f / (1 - f) }')" 0.000001
    check_eq "$name whole run: window kind" "$(jq -r .mpi.window.kind "$f")" "whole run"

    $TALLY run --mpi --window 'start=20,iterations=100' -o "win.$flavour.$variant" -- $(launcher $flavour 4) \
      "$WORK/stencil.$flavour" $variant $its $HALO 20 20 100 "$WORK/hwin.$flavour.$variant" >/dev/null 2>&1
    f="win.$flavour.$variant.summary"
    check_eq "$name window: 100 iterations on every rank" \
      "$(jq -c '[.mpi.per_rank[].iterations] | unique' "$f")" "[100]"
    check_eq "$name window: links = 100 iterations of the neighbour pattern" \
      "$(summary_links "$f" | md5sum | cut -c1-8)" "$(expected_stencil_links 4 100 $HALO | md5sum | cut -c1-8)"
    hand=$(hand_fraction "$WORK/hwin.$flavour.$variant" window_total window_comm)
    check_near "$name window: comm fraction vs MPI_Wtime" "$(jq .mpi.comm_fraction "$f")" "$hand" 0.01
    echo "# $name: whole $(jq .mpi.comm_fraction whole.$flavour.$variant.summary) window $(jq .mpi.comm_fraction "$f") hand window $hand"
  done
done
finish
