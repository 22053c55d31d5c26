#!/usr/bin/env bash
# tally run --mpi --time-series: the per-link volumes over time as a Paje
# trace (PREFIX.mpi.paje). On the 2x2 stencil: four LINK containers joined
# to their ranks, and each link's rate integrated over time (pj_dump) gives
# the pair's bytes in both directions: 2 x iterations x halo x 8. tally
# view draws it.
. "$(dirname "$0")/../lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/mpi/mpi_lib.sh"
ITS=300 HALO=64
build openmpi stencil -DWITH_PROBE || { not_ok "build stencil"; finish; }
$TALLY run --mpi --time-series --interval 0.05 -o ts -- $(launcher openmpi 4) \
  "$WORK/stencil.openmpi" blocking $ITS $HALO 100 0 1 "$WORK/h" >/dev/null 2>err
check_eq "exit status" "$?" 0
check "PREFIX.mpi.paje written" test -s ts.mpi.paje
check_eq "link containers" "$(pj_dump ts.mpi.paje | awk -F', *' '$1 == "Container" && $3 == "LINK" { print $7 }' | sort | tr '\n' ' ')" "0-1 0-2 1-3 2-3 "
check_eq "the ranks hang from their host" "$(pj_dump ts.mpi.paje | awk -F', *' '$1 == "Container" && $3 == "rank" { print $2 ":" $7 }' | sort | tr '\n' ' ')" \
  "$(h=$(hostname); echo "$h:rank0 $h:rank1 $h:rank2 $h:rank3 ")"
check_eq "rank-link edges (8)" "$(pj_dump ts.mpi.paje | grep -c '^Link')" 8
want=$((2 * ITS * HALO * 8))
pj_dump ts.mpi.paje | awk -F', *' '$1 == "Variable" && $3 == "bandwidth.mpi" { s[$2] += $6 * $7; n[$2]++ }
  END { for (k in s) printf "%s %.0f %d\n", k, s[k], n[k] }' | sort >integrals
while read -r link bytes samples; do
  check_near "link $link: rate integrated over time = bytes both ways" "$bytes" "$want" 1
  check_cmp "link $link: more than one interval" "$samples" ">" 2
done <integrals
check_eq "four links integrated" "$(wc -l <integrals)" 4
$TALLY view ts.mpi.paje -o ts.html 2>err
check_eq "tally view reads it" "$?" 0
check_contains "the page names a link" "$(cat ts.html)" "0-1"
finish
