#!/usr/bin/env bash
# tally trace anomalies on traces built to hold one anomaly each, and on one
# that holds none (see the comments at the top of each fixture).
# make check: runs beside other tests
source "$TALLY_TEST_ROOT/tests/integration/lib.sh"
FIX=$TALLY_TEST_ROOT/tests/fixtures/traces

kinds() { "$TALLY" trace anomalies "$@" --format json | jq -c '[.[] | .kind] | unique'; }

# unfair: h1 gives a 80% (expected 50%), in each 5 s slice; h2 is fair
json=$("$TALLY" trace anomalies "$FIX/unfair.paje" --slice 5 --format json)
check_eq "unfair: only unfair" "$(echo "$json" | jq -c '[.[].kind] | unique')" '["unfair"]'
check_eq "unfair: h1 in both slices, as one finding" "$(echo "$json" | jq -c '[.[] | [.resource, .from, .to, .slices]]')" '[["h1",0,10,2]]'
check_eq "unfair --each-slice: each slice on its own" "$("$TALLY" trace anomalies "$FIX/unfair.paje" --slice 5 --each-slice --format json | jq -c '[.[] | [.resource, .from, .to, .slices]]')" '[["h1",0,5,1],["h1",5,10,1]]'
check_contains "unfair text: the slices counted" "$("$TALLY" trace anomalies "$FIX/unfair.paje" --slice 5)" "[0, 10] unfair      h1: a got 80% of the used cpu, expected 50% (+30 points) (2 slices, 100% sure)"
check_contains "unfair: says how far" "$(echo "$json" | jq -r '.[0].detail')" "a got 80% of the used cpu, expected 50% (+30 points)"
# with expected shares 4:1, h1 is fair and h2 (50%) is the one departing
json=$("$TALLY" trace anomalies "$FIX/unfair.paje" --slice 10 --shares a=4,b=1 --format json)
check_eq "shares 4:1: h2 unfair" "$(echo "$json" | jq -c '[.[] | [.kind, .resource]]')" '[["unfair","h2"]]'
check_contains "shares 4:1: detail" "$(echo "$json" | jq -r '.[0].detail')" "expected 80% (-30 points)"
# --from/--to: only the window is cut into slices (t+ seconds; a twentieth of it by default)
check_eq "unfair --from 5 --to 10: one slice, inside the window" \
  "$("$TALLY" trace anomalies "$FIX/unfair.paje" --from 5 --to 10 --slice 5 --format json | jq -c '[.[] | [.resource, .from, .to, .slices]]')" '[["h1",5,10,1]]'
check_eq "  ... --to alone: slices of a twentieth of [0, 5]" \
  "$("$TALLY" trace anomalies "$FIX/unfair.paje" --to 5 --format json | jq -c '[.[] | [.from, .to, .slices]]')" '[[0,5,20]]'
"$TALLY" trace anomalies "$FIX/unfair.paje" --from 20 --to 30 >out.txt 2>err.txt
check_eq "a window outside the trace: exit 125" "$?" 125
check_eq "  ... one line naming the trace's span, nothing on stdout" "$(cat err.txt)$(cat out.txt)" \
  "tally: trace anomalies: the slice t+20..t+30 s is outside the trace, which spans t+0..t+10 s"
"$TALLY" trace anomalies "$FIX/unfair.paje" --from -8 --to -2 2>err.txt
check_eq "  ... before its start: said as t-8..t-2" "$(cat err.txt)" \
  "tally: trace anomalies: the slice t-8..t-2 s is outside the trace, which spans t+0..t+10 s"
# a looser threshold hides it
check_eq "threshold unfair=35" "$(kinds "$FIX/unfair.paje" --slice 10 --threshold unfair=35)" '[]'

# waste: h2 idle while h1 worked
json=$("$TALLY" trace anomalies "$FIX/waste.paje" --slice 10 --format json)
check_eq "waste: one anomaly on h2" "$(echo "$json" | jq -c '[.[] | [.kind, .resource]]')" '[["waste","h2"]]'
check_contains "waste: detail" "$(echo "$json" | jq -r '.[0].detail')" "100% idle while 1 other cpu resource worked"

# saturation + moving bottleneck: l1 full on [0,5), l2 on [5,10)
json=$("$TALLY" trace anomalies "$FIX/saturation.paje" --slice 5 --format json)
check_eq "saturation: kinds" "$(echo "$json" | jq -c '[.[].kind] | unique')" '["saturation"]'
check_eq "saturation: l1 then l2" "$(echo "$json" | jq -c '[.[] | select(.detail | test("capacity used")) | [.resource, .from]]')" '[["l1",0],["l2",5]]'
# l1 saturated on two neighbouring slices, then l2 on two: one finding each, the move apart
check_eq "saturation 2.5 s slices: grouped per link, the move kept" "$("$TALLY" trace anomalies "$FIX/saturation.paje" --slice 2.5 --format json | jq -c '[.[] | [.resource, .from, .to, .slices, (.detail | test("bottleneck"))]]')" '[["l1",0,5,2,false],["l2",5,7.5,1,true],["l2",5,10,2,false]]'
check_eq "bottleneck move" "$(echo "$json" | jq -r '.[] | select(.detail | test("bottleneck")) | "\(.resource) \(.from) \(.detail)"')" "l2 5 bottleneck moved from l1 to l2 (bandwidth)"
# over the whole trace nothing is saturated (each link 80% busy on average): the paper's point
check_eq "saturation invisible at a large time scale" "$(kinds "$FIX/saturation.paje" --slice 10)" '[]'

# oscillation: dominant category flips every second on h1 only
json=$("$TALLY" trace anomalies "$FIX/oscillation.paje" --slice 1 --format json)
check_eq "oscillation: one merged blinking interval on h1" "$(echo "$json" | jq -c '[.[] | [.kind, .resource, .from, .to]]')" '[["oscillation","h1",0,6]]'
check_contains "oscillation: detail" "$(echo "$json" | jq -r '.[0].detail')" "dominant category flips a -> b -> a"
check_eq "no oscillation with 2 s slices (averages are even)" "$(kinds "$FIX/oscillation.paje" --slice 2)" '[]'

# taking turns: a alone for 2 s, then b alone, then a (the demo's sequential
# workflow): no category is wronged (nothing is unfair), but the dominant
# category blinks a -> b -> a
{ sed -n '/^%EventDef/,/^2 0 h1 T 0 h1$/p' "$FIX/oscillation.paje"
  printf '4 0 cap h1 100\n4 0 a h1 90\n4 2 a h1 0\n4 2 b h1 90\n4 4 b h1 0\n4 4 a h1 90\n3 6 T h1\n'; } >turns.paje
json=$("$TALLY" trace anomalies turns.paje --slice 2 --format json)
check_eq "categories taking turns: never unfair, one blinking interval" "$(echo "$json" | jq -c '[.[] | [.kind, .resource, .from, .to]]')" '[["oscillation","h1",0,6]]'

# none
check_eq "clean trace: nothing" "$(kinds "$FIX/clean.paje" --slice 1)" '[]'
check_eq "clean trace: text says so" "$("$TALLY" trace anomalies "$FIX/clean.paje")" "no anomaly found"
check_contains "text format: one line each" "$("$TALLY" trace anomalies "$FIX/waste.paje" --slice 10)" "[0, 10] waste       h2: 100% idle"

# groups at a level: with --hierarchy both hosts of unfair.paje form one site, a gets 117 of 180 = 65%
printf 'h1 s\nh2 s\n' >h.txt
check_eq "site level: unfair by 15 points" "$("$TALLY" trace anomalies "$FIX/unfair.paje" --hierarchy h.txt --level site --slice 10 --format json | jq -r '.[0].detail')" \
  "a got 65% of the used cpu, expected 50% (+15 points)"

# bad options
"$TALLY" trace anomalies "$FIX/clean.paje" --shares a=x 2>err.txt; st=$?
check_eq "bad --shares exits 125" "$st" 125
check_contains "bad --shares says why" "$(cat err.txt)" "--shares 'a=x': expected CATEGORY=WEIGHT"
"$TALLY" trace anomalies "$FIX/clean.paje" --shares zz=1 2>err.txt; st=$?
check_contains "unknown category in --shares" "$(cat err.txt)" "category 'zz' is not in the trace"
"$TALLY" trace anomalies "$FIX/clean.paje" --threshold waste=0 2>err.txt; st=$?
check_eq "bad --threshold exits 125" "$st" 125
"$TALLY" trace anomalies "$FIX/clean.paje" --slice -1 2>err.txt; st=$?
check_eq "bad --slice exits 125" "$st" 125
finish
