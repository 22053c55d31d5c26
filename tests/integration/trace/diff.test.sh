#!/usr/bin/env bash
# tally trace diff on two real runs of the same task, quiet and loaded (a
# CPU burner tally does not run, next to the second): the largest change is
# the host's cpu, taken by other-load, and the task is said to have slowed;
# JSON and the side-by-side page say the same; a trace against itself has no
# change; bad inputs.
source "$TALLY_TEST_ROOT/tests/integration/lib.sh"
RUN=${TALLY_RELEASE:-$TALLY}

"$RUN" run --category solver --time-series --interval 0.1 -o quiet -- "$PROGS/spin_threads" 1 1
"$PROGS/spin_threads" 2 100 & burner=$!
sleep 0.2
"$RUN" run --category solver --time-series --interval 0.1 -o loaded -- "$PROGS/spin_threads" 1 1
kill $burner; wait $burner 2>/dev/null
"$TALLY" trace from-runs quiet -o quiet.paje
"$TALLY" trace from-runs loaded -o loaded.paje
host=$(jq -r .host quiet.summary)

out=$("$TALLY" trace diff quiet.paje loaded.paje --html diff.html)
echo "$out" | sed 's/^/# /'
first=$(echo "$out" | sed -n 2p)
check_contains "the first change is the host's cpu" "$first" "1. $host cpu: other-load took"
check_contains "  ... more of it" "$first" "core more for"
check_contains "  ... said with when, in t+ seconds" "$first" "s at t+"
check_contains "the header gives both starts as UTC dates" "$(echo "$out" | head -1)" " s from $(date -u +%Y-%m-%d)"
json=$("$TALLY" trace diff quiet.paje loaded.paje --format json)
check_eq "json: the first change is $host cpu other-load" \
  "$(echo "$json" | jq -r '.changes[0] | "\(.resource) \(.kind) \(.category)"')" "$host cpu other-load"
check_cmp "json: other-load took more core-seconds in B" "$(echo "$json" | jq '.changes[0].delta')" ">" 0.3
check_eq "json: changes ranked by weight" "$(echo "$json" | jq '[.changes[].weight] | . == (sort | reverse)')" true
# the solver's cpu-seconds are the same in both (spin_threads burns exactly 1 s)
sum() { echo "$json" | jq --arg s "$1" '[.rows[] | select(.kind == "cpu" and .category == "solver") | .[$s][]] | add'; }
check_near "solver cpu-seconds in A" "$(sum a)" 1 0.1
check_near "solver cpu-seconds in B" "$(sum b)" 1 0.1
check "the page was written" test -s diff.html
check_contains "the page lists the changes" "$(cat diff.html)" "<ol id=\"changes\">
<li>$host cpu: other-load took"
check_eq "the page has A and B strips for each row" "$(grep -o '<svg ' diff.html | wc -l)" "$(( 2 * $(echo "$json" | jq '.rows | length') ))"

check_contains "a trace against itself: no change" "$("$TALLY" trace diff quiet.paje quiet.paje)" "no change of 1 % of a capacity-second or more"
"$TALLY" trace diff quiet.paje 2>err.txt; st=$?
check_eq "one trace exits 125" "$st" 125
check_contains "  ... and says two are needed" "$(cat err.txt)" "trace diff: expected two TRACE files, A and B"
"$TALLY" trace diff quiet.paje loaded.paje --phase 0 2>err.txt; st=$?
check_eq "--phase 0 exits 125" "$st" 125
check_contains "  ... named" "$(cat err.txt)" "--phase '0': must be positive"
"$TALLY" trace diff quiet.paje missing.paje 2>err.txt; st=$?
check_eq "a missing trace exits 125" "$st" 125
check_contains "  ... named" "$(cat err.txt)" "missing.paje"
finish
