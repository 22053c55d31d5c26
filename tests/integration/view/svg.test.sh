#!/usr/bin/env bash
# tally view --svg: one slice's treemap (and topology) as a standalone SVG,
# with the numbers of `tally trace aggregate` and a squarified layout whose
# areas are proportional to the values and tile the treemap exactly.
# make check: runs beside other tests
source "$TALLY_TEST_ROOT/tests/integration/lib.sh"
source "$TALLY_TEST_ROOT/tests/integration/view/compare_aggregates.sh"
trace=$TALLY_TEST_ROOT/tests/fixtures/traces/view-platform.paje

# cells of the treemap part (not the root bar) as "resource category value area"
cells() {
  sed -n '/<g class="treemap">/,/<\/g>/p' "$1" |
    sed -n 's|.*width="\([0-9.]*\)" height="\([0-9.]*\)".*data-resource="\([^"]*\)" data-category="\([^"]*\)" data-value="\([^"]*\)".*|\3 \4 \5 \1 \2|p' |
    awk '{ print $1, $2, $3, $4 * $5 }'
}
# the cells as an aggregate JSON document, to compare with tally trace aggregate
cells_as_json() {
  cells "$1" | jq -R -s --arg kind cpu 'split("\n") | map(select(length > 0) | split(" ")) |
    group_by(.[0]) | map({name: .[0][0], kind: $kind,
      usage: (map(select(.[1] != "idle")) | map({(.[1]): (.[2] | tonumber)}) | add),
      idle: (map(select(.[1] == "idle") | .[2] | tonumber) | add // 0)}) |
    map(.capacity = ((.usage | add) + .idle)) | {groups: .}'
}

"$TALLY" view "$trace" --svg slice.svg --from 50 --to 100 --level HOST 2>err.txt
check_eq "--svg exits 0" "$?" 0
check_contains "an SVG document" "$(head -c 300 slice.svg)" "<svg xmlns=\"http://www.w3.org/2000/svg\""
check_eq "11 treemap cells (zero usage is not drawn)" "$(cells slice.svg | wc -l)" 11
check_eq "3 root cells" "$(sed -n '/<g class="root"/,/<\/g>/p' slice.svg | grep -c 'data-category=')" 3
"$TALLY" trace aggregate "$trace" --from 50 --to 100 --level HOST --format json > agg.json
# categories with zero usage are not drawn: compare with them left out of the aggregate too
jq '.groups |= map(.usage |= with_entries(select(.value != 0)))' agg.json > agg-nonzero.json
cells_as_json slice.svg > svg.json
compare_aggregates "SVG numbers = tally trace aggregate [50,100] HOST" svg.json agg-nonzero.json
check_eq "h5 idle over [50,100]" "$(cells slice.svg | awk '$1 == "h5" && $2 == "idle" { print $3 }')" 70

# squarified layout: area proportional to value, tiling the 1000 x 620 treemap
total=$(cells slice.svg | awk '{ s += $3 } END { print s }')
check_near "cell areas tile the treemap" "$(cells slice.svg | awk '{ s += $4 } END { print s }')" 620000 2
check_cmp "area / value constant within 0.1%" "$(cells slice.svg | awk -v k="$(echo "620000 / $total" | bc -l)" '
  { r = $4 / ($3 * k); d = r - 1; if (d < 0) d = -d; if (d > m) m = d } END { print m + 0 }')" "<" 0.001

# the whole trace, site level, filters, topology
"$TALLY" view "$trace" --svg whole.svg --level SITE
check_eq "SITE: two groups" "$(cells whole.svg | awk '{ print $1 }' | sort -u | tr '\n' ' ')" "s1 s2 "
check_eq "SITE s1 burst over the whole trace (75 + 0 + 50)" "$(cells whole.svg | awk '$1 == "s1" && $2 == "burst" { print $3 }')" 125
"$TALLY" view "$trace" --svg noidle.svg --no-idle --categories burst --from 0 --to 20
check_eq "--no-idle --categories burst: only burst cells" "$(cells noidle.svg | awk '{ print $2 }' | sort -u | tr '\n' ' ')" "burst "
check_eq "burst over [0,20]: h1 h4 h5" "$(cells noidle.svg | awk '{ print $1 "=" $3 }' | sort | tr '\n' ' ')" "h1=150 h4=300 h5=50 "
"$TALLY" view "$trace" --svg both.svg --svg-view both --from 30 --to 70
check_eq "topology: 5 hosts" "$(grep -c 'data-node=' both.svg)" 5
check_eq "topology: 4 links" "$(grep -c 'data-link=' both.svg)" 4
check_eq "topology: l3 bandwidth" "$(grep -o 'data-link="l3" data-capacity="[^"]*"' both.svg | sed 's/.*capacity="//; s/"//')" 2000
"$TALLY" view "$trace" --svg links.svg --kind bandwidth --level LINK --from 30 --to 70
check_eq "links treemap: l3 continuous over [30,70]" "$(cells links.svg | awk '$1 == "l3" && $2 == "continuous" { print $3 }')" 1000

# bad input: one line, exit 125, nothing written
echo keep > keep.svg
for bad in "--from 80 --to 20" "--from abc" "--to 1e999x" "--level nope" "--from 200 --to 300" "--kind gpu" "--categories nope" "--svg-view pie"; do
  # shellcheck disable=SC2086
  "$TALLY" view "$trace" --svg keep.svg $bad 2>err.txt
  status=$?
  check_eq "bad '$bad': exit 125" "$status" 125
  check_eq "bad '$bad': one line" "$(wc -l < err.txt)" 1
  check_eq "bad '$bad': file untouched" "$(cat keep.svg)" keep
done
check_contains "unknown level is named" "$("$TALLY" view "$trace" --svg x.svg --level nope 2>&1)" "nope"
check_contains "bad --from is named" "$("$TALLY" view "$trace" --svg x.svg --from abc 2>&1)" "--from"
check "no file on error" test ! -e x.svg
check_eq "no temporary files left" "$(ls | grep -c tmp)" 0
finish
