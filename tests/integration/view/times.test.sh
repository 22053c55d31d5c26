#!/usr/bin/env bash
# tally view speaks the page's time on its command line, as the trace
# commands do: --from/--to in t+ seconds from the trace's start or as an ISO
# date-time (UTC) for a dated trace (one built from a real run); a slice
# outside the trace, reversed or not finite is an error (125) that writes
# nothing, the outside one naming the trace's span. The page's URL takes
# from/to the same way.
# make check: runs beside other tests
source "$TALLY_TEST_ROOT/tests/integration/lib.sh"
RUN=${TALLY_RELEASE:-$TALLY}

"$RUN" run --category a --time-series --interval 0.1 -o r -- "$PROGS/spin_threads" 1 1.5
"$TALLY" trace from-runs r -o r.paje
start=$(jq '.start[0]' r.summary)
day=$(date -u -d "@${start%.*}" +%Y-%m-%d)

"$TALLY" view r.paje --svg t.svg --from 0.5 --to 0.8
check_eq "--svg --from 0.5 --to 0.8: exit 0" "$?" 0
check_contains "  ... the caption's slice is t+0.5 .. t+0.8 s" "$(cat t.svg)" "slice t+0.5 s – t+0.8 s"
check_contains "  ... dated" "$(cat t.svg)" "(t+0 = ${day}T"
"$TALLY" view r.paje -o p.html --from 0.5 --to 0.8
sed -n 's|.*<script type="application/json" id="tally-meta">\(.*\)</script>.*|\1|p' p.html >meta.json
check_near "-o: the first view starts at t+0.5 s" "$(jq '.initial.from - .start' meta.json)" 0.5 1e-6
check_near "  ... and ends at t+0.8 s" "$(jq '.initial.to - .start' meta.json)" 0.8 1e-6
# an ISO date-time, in UTC, one second after the start (to the millisecond)
iso=$(date -u -d "@$(awk -v s="$start" 'BEGIN { printf "%.3f", s + 1 }')" +%Y-%m-%dT%H:%M:%S.%3NZ)
"$TALLY" view r.paje --svg iso.svg --from "$iso"
check_eq "--from $iso: exit 0" "$?" 0
caption_from=$(grep -o 'slice t+[0-9.]* s' iso.svg | head -1 | sed 's/slice t+//; s/ s//')
check_near "  ... the slice starts at t+1 s" "$caption_from" 1 0.001
"$TALLY" view r.paje -o iso.html --from "$iso" --to 1.2
sed -n 's|.*<script type="application/json" id="tally-meta">\(.*\)</script>.*|\1|p' iso.html >meta.json
check_near "-o --from ISO --to 1.2: the first view starts at t+1 s" "$(jq '.initial.from - .start' meta.json)" 1 0.001
check_near "  ... and ends at t+1.2 s" "$(jq '.initial.to - .start' meta.json)" 1.2 1e-6

# the page's URL speaks the same time: from/to are t+ seconds ('+' or not; in a
# query a raw '+' is a space) or an ISO date-time, never the trace's own clock
driver=$TALLY_TEST_ROOT/tests/integration/view/browser_check.js
"$TALLY" view r.paje -o url.html
timeout 120 node "$driver" --slice "file://$WORK/url.html?from=t%2B0.5&to=0.8" "$WORK/url.png" root >out.json 2>driver.err
check_eq "page?from=t+0.5&to=0.8: driver ran" "$?" 0
check_eq "  ... the page shows t+0.5 .. t+0.8 s" "$(jq -r '.snapshot.label' out.json)" "slice t+0.5 s – t+0.8 s (0.3 s wide)"
timeout 120 node "$driver" --slice "file://$WORK/url.html?from=$iso&to=t+1.2" "$WORK/url.png" root >out.json 2>driver.err
check_eq "page?from=ISO&to=t+1.2 (raw +): driver ran" "$?" 0
check_eq "  ... the page shows t+1 .. t+1.2 s" "$(jq -r '.snapshot.label' out.json)" "slice t+1 s – t+1.2 s (0.2 s wide)"

# errors: one line, exit 125, nothing written
"$TALLY" view r.paje --svg out.svg --from 100 --to 200 2>err.txt
check_eq "a slice outside the trace: exit 125" "$?" 125
check_contains "  ... naming the trace's span and start" "$(cat err.txt)" "view: the slice t+100..t+200 s is outside the trace, which spans t+0..t+"
check_contains "  ... from its UTC date" "$(cat err.txt)" "s from ${day}T"
check_eq "  ... one line" "$(wc -l <err.txt)" 1
check "  ... no SVG written" test ! -e out.svg
"$TALLY" view r.paje -o out.html --from 2020-01-01T00:00:00Z --to 2020-01-01T00:01:00Z 2>err.txt
check_eq "-o with ISO dates before the trace: exit 125" "$?" 125
check_contains "  ... naming the trace's span" "$(cat err.txt)" "is outside the trace, which spans t+0..t+"
check "  ... no page written" test ! -e out.html
"$TALLY" view r.paje --svg out.svg --from 0.8 --to 0.5 2>err.txt
check_eq "--from after --to: exit 125" "$?" 125
check_eq "  ... said in t+ seconds" "$(cat err.txt)" "tally: view: --from t+0.8 s is not before --to t+0.5 s"
"$TALLY" view r.paje --svg out.svg --from inf 2>err.txt
check_eq "--from inf: exit 125" "$?" 125
check_eq "  ... not a finite time" "$(cat err.txt)" "tally: view: --from 'inf': not a finite time"
"$TALLY" view r.paje --svg out.svg --to soon 2>err.txt
check_eq "--to soon: exit 125" "$?" 125
check_contains "  ... names --to" "$(cat err.txt)" "--to 'soon'"
check "no SVG written by any of them" test ! -e out.svg
finish
