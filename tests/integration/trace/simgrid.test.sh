#!/usr/bin/env bash
# A real SimGrid simulation (tests/fixtures/simgrid/categorized.cpp, built here
# against libsimgrid) writes a categorized Paje trace; tally's aggregation must
# match an independent computation from pj_dump's output (awk below), for
# hosts and links, over the whole trace and over a slice cutting breakpoints.
# pj_dump keeps values in single precision, hence the 1e-6 relative tolerance.
# make check: runs beside other tests
source "$TALLY_TEST_ROOT/tests/integration/lib.sh"
SG=$TALLY_TEST_ROOT/tests/fixtures/simgrid

if ! g++ -O1 -Wno-deprecated-declarations -o categorized "$SG/categorized.cpp" \
     $(pkg-config --cflags --libs simgrid) 2>build.log; then
  cat build.log; not_ok "build the SimGrid fixture"; finish
fi
ok "build the SimGrid fixture"
./categorized "$SG/platform.xml" --cfg=tracing:yes --cfg=tracing/uncategorized:yes \
  --cfg=tracing/filename:sim.paje >sim.log 2>&1
check "SimGrid wrote a trace" test -s sim.paje
pj_dump sim.paje >dump.csv
check "pj_dump reads it" test -s dump.csv

# pj_avg CONTAINER VARIABLE T1 T2: time average of a variable from pj_dump lines
pj_avg() {
  awk -F', *' -v c="$1" -v v="$2" -v t1="$3" -v t2="$4" '
    $1 == "Variable" && $2 == c && $3 == v {
      s = ($4 > t1) ? $4 : t1; e = ($5 < t2) ? $5 : t2
      if (e > s) sum += $7 * (e - s)
    }
    END { printf "%.10g\n", sum / (t2 - t1) }' dump.csv
}
compare() { # compare LABEL TALLY_VALUE EXPECTED
  local tol; tol=$(awk -v e="$3" 'BEGIN { e = e < 0 ? -e : e; printf "%.10g", e * 1e-6 + 1e-6 }')
  check_near "$1" "$2" "$3" "$tol"
}

for slice in "0 10" "1.5 5.25"; do
  set -- $slice; T1=$1 T2=$2
  hosts=$("$TALLY" trace aggregate sim.paje --level host --from "$T1" --to "$T2" --format json)
  links=$("$TALLY" trace aggregate sim.paje --level LINK --from "$T1" --to "$T2" --format json)
  for h in a1 a2 a3; do
    cap=$(awk -v s="$(pj_avg "$h" speed "$T1" "$T2")" -v c="$(pj_avg "$h" core_count "$T1" "$T2")" 'BEGIN { printf "%.10g", s * c }')
    compare "[$T1,$T2] $h capacity = speed x core_count" "$(echo "$hosts" | jq --arg h "$h" '.groups[] | select(.name == $h) | .capacity')" "$cap"
    for cat in burst continuous; do
      compare "[$T1,$T2] $h $cat" "$(echo "$hosts" | jq --arg h "$h" --arg c "$cat" '.groups[] | select(.name == $h) | .usage[$c]')" \
        "$(pj_avg "$h" "p$cat" "$T1" "$T2")"
    done
  done
  for l in l1 l2 l3 backbone; do
    compare "[$T1,$T2] $l bandwidth" "$(echo "$links" | jq --arg l "$l" '.groups[] | select(.name == $l) | .capacity')" \
      "$(pj_avg "$l" bandwidth "$T1" "$T2")"
    for cat in burst continuous; do
      compare "[$T1,$T2] $l $cat" "$(echo "$links" | jq --arg l "$l" --arg c "$cat" '.groups[] | select(.name == $l) | .usage[$c]')" \
        "$(pj_avg "$l" "b$cat" "$T1" "$T2")"
    done
  done
done
# the values are not trivially zero: a1 computed 3 x 2 s of burst at 1 Gflop/s
check_eq "a1 burst over the whole run" "$("$TALLY" trace aggregate sim.paje --level host --format json | jq '.groups[] | select(.name=="a1") | .usage.burst')" 600000000
# root sums eq. 3: cpu capacity 2 + 2 + 0.5 Gflop/s
check_eq "root cpu capacity" "$("$TALLY" trace aggregate sim.paje --format json | jq '.groups[] | select(.kind=="cpu") | .capacity')" 4500000000
# SimGrid's platform links (host-link, link-link) are the topology
check_eq "topology edges" "$("$TALLY" trace stats sim.paje --format json | jq .edges)" 6
check_eq "categories" "$("$TALLY" trace stats sim.paje --format json | jq .categories)" 2
check_eq "eq. 1 holds in the simulation" "$("$TALLY" trace stats sim.paje --format json | jq .violations)" 0
finish
