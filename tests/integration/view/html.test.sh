#!/usr/bin/env bash
# tally view TRACE -o report.html: one self-contained page with the trace
# description and the signals embedded; bad input leaves nothing behind.
# make check: runs beside other tests
source "$TALLY_TEST_ROOT/tests/integration/lib.sh"
trace=$TALLY_TEST_ROOT/tests/fixtures/traces/view-platform.paje

"$TALLY" view "$trace" -o report.html 2>err.txt
check_eq "-o exits 0" "$?" 0
check "report.html written" test -s report.html
check_eq "nothing on stderr" "$(cat err.txt)" ""
check_contains "is an HTML page" "$(head -c 200 report.html)" "<!DOCTYPE html>"
# self-contained: no external script, style, image or font
check_eq "no external resources" "$(grep -Eoc '<(script|link|img)[^>]+(src|href)=' report.html)" 0
check_eq "no network URL" "$(grep -Eo 'https?://[^" )]+' report.html | grep -v 'www.w3.org/2000/svg' | wc -l)" 0

meta=$(sed -n 's|.*<script type="application/json" id="tally-meta">\(.*\)</script>.*|\1|p' report.html)
echo "$meta" > meta.json
check_eq "meta: categories" "$(jq -c .categories meta.json)" '["burst","continuous"]'
check_eq "meta: levels" "$(jq -c .levels meta.json)" '["root","SITE","HOST","LINK"]'
check_eq "meta: 12 containers" "$(jq '.containers | length' meta.json)" 12
check_eq "meta: 9 topology vertices" "$(jq '.topology.vertices | length' meta.json)" 9
check_eq "meta: 4 of them links" "$(jq '[.topology.vertices[] | select(.link)] | length' meta.json)" 4
check_eq "meta: 8 edges" "$(jq '.topology.edges | length' meta.json)" 8
check_eq "meta: whole trace" "$(jq -c '[.start, .end]' meta.json)" '[0,100]'
check_eq "not a served page" "$(jq .serve meta.json)" false

sed -n 's|.*<script type="application/json" id="tally-signals">\(.*\)</script>.*|\1|p' report.html > signals.json
check_eq "signals: 9 resources" "$(jq '.resources | length' signals.json)" 9
# h5's capacity (speed x core_count): 200 from 0, 100 from 60 -> ticks of the quantum, values
q=$(jq .quantum meta.json)
h5=$(jq -c '.resources[] | select(.c == 7) | .cap' signals.json)
check_eq "h5 capacity values" "$(echo "$h5" | jq -c '.[1]')" '[200,100]'
check_near "h5 capacity step at t=60" "$(echo "$h5" | jq --argjson q "$q" '(.[0] | add) * $q')" 60 1e-9

# the same layout every time (fixed seed)
"$TALLY" view "$trace" -o again.html
check_eq "layout is stable" "$(sed -n 's|.*id="tally-meta">\(.*\)</script>.*|\1|p' again.html | jq -c .topology)" "$(jq -c .topology meta.json)"
check "--help" eval '"$TALLY" view --help | grep -q -- --serve'

# bad input: one line, exit 125, no output file, an existing file untouched
echo keep > old.html
"$TALLY" view missing.paje -o old.html 2>err.txt
check_eq "missing trace: exit 125" "$?" 125
check_eq "missing trace: one line" "$(wc -l < err.txt)" 1
check_contains "missing trace: names it" "$(cat err.txt)" "missing.paje"
check_eq "missing trace: old file kept" "$(cat old.html)" keep
printf '%%EventDef PajeSetVariable 4\n%% Time date\n' > broken.paje
"$TALLY" view broken.paje -o new.html 2>err.txt
check_eq "malformed trace: exit 125" "$?" 125
check_contains "malformed trace: says where" "$(cat err.txt)" "broken.paje:"
check "malformed trace: no file" test ! -e new.html
for bad in "--level nope" "--kind gpu" "--from 80 --to 20" "--from 200" "--categories nope" "--from x" "--anomaly-slice 0" "--coarse 0" "--coarse x"; do
  # shellcheck disable=SC2086
  "$TALLY" view "$trace" -o first.html $bad 2>err.txt
  status=$?
  check_eq "first view '$bad': exit 125, one line" "$status $(wc -l < err.txt)" "125 1"
  check "first view '$bad': no file" test ! -e first.html
done
check_eq "no temporary files left" "$(ls | grep -c tmp)" 0
"$TALLY" view "$trace" 2>err.txt
check_eq "no mode: exit 125" "$?" 125
check_contains "no mode: says so" "$(cat err.txt)" "nothing to do"
"$TALLY" view "$trace" -o a.html --bogus 2>err.txt
check_eq "unknown option: exit 125" "$?" 125
check_contains "unknown option: names it" "$(cat err.txt)" "--bogus"
"$TALLY" view "$trace" -o /nonexistent-dir/r.html 2>err.txt
check_eq "unwritable output: exit 125" "$?" 125
check_contains "unwritable output: names it" "$(cat err.txt)" "/nonexistent-dir/r.html"
finish
