#!/usr/bin/env bash
# Burst then idle, the wasted computation of section 4.2 of Schnorr, Legrand
# and Vincent: work for a category after its server said (the Paje variable
# active.<category>) that it went idle. burst_idle.paje (see its comment):
# the burst server is active on [10, 40); h3 works for it until 55. Found on
# h3 over [40, 55] and nothing else; the same trace without the servers'
# variables has no finding at all; the page lists it.
# make check: runs beside other tests
source "$TALLY_TEST_ROOT/tests/integration/lib.sh"
FIX=$TALLY_TEST_ROOT/tests/fixtures/traces

json=$("$TALLY" trace anomalies "$FIX/burst_idle.paje" --format json)
echo "$json" | jq -c '.[]' | sed 's/^/# /'
check_eq "one finding: burst then idle on h3 over [40, 55], 3 slices of 5 s" \
  "$(echo "$json" | jq -c '[.[] | [.kind, .resource, .from, .to, .slices]]')" '[["burst-then-idle","h3",40,55,3]]'
check_eq "  ... said in words" "$(echo "$json" | jq -r '.[0].detail')" \
  "burst kept 40% of the cpu capacity busy after its server burst-server went idle at t+40 s (wasted computation)"
# 40 % of the capacity against the 5 % activity threshold: 0.5 + 0.5 x 35/95
check_near "  ... how sure" "$(echo "$json" | jq '.[0].confidence')" 0.684 0.001
check_contains "text: when, where, what" "$("$TALLY" trace anomalies "$FIX/burst_idle.paje")" \
  "[40, 55] burst-then-idle h3: burst kept 40% of the cpu capacity busy after its server burst-server went idle at t+40 s"

# slices of 7 s: the slice [35, 42) is judged on its part after 40 only
check_eq "7 s slices: the finding starts when the server went idle" \
  "$("$TALLY" trace anomalies "$FIX/burst_idle.paje" --slice 7 --format json | jq -c '[.[] | select(.kind == "burst-then-idle") | [.resource, .from, .to]]')" '[["h3",40,56]]'
check_eq "--each-slice: one per slice" \
  "$("$TALLY" trace anomalies "$FIX/burst_idle.paje" --each-slice --format json | jq -c '[.[] | [.from, .to]]')" '[[40,45],[45,50],[50,55]]'

# without the servers' activity nothing says the work was wasted
grep -v ' a[bc] ' "$FIX/burst_idle.paje" >no_servers.paje
check_eq "no activity variables: no finding" "$("$TALLY" trace anomalies no_servers.paje --format json | jq length)" 0
# the burst server active again from 50 s: only [40, 50] was wasted
sed 's/^3 100 H h1$/4 50 ab burst-server 1\n&/' "$FIX/burst_idle.paje" >again.paje
check_eq "server active again at 50: the finding ends there" \
  "$("$TALLY" trace anomalies again.paje --format json | jq -c '[.[] | [.kind, .resource, .from, .to]]')" '[["burst-then-idle","h3",40,50]]'
# a server that never went idle: its category's work is never wasted
sed 's/^4 40 ab burst-server 0$//' "$FIX/burst_idle.paje" >always.paje
check_eq "server active to the end: no finding" "$("$TALLY" trace anomalies always.paje --format json | jq length)" 0

# the same servers told by Paje states of the type active.<category>: the
# burst server pushes a state at 10 s and pops it at 40 s; the continuous
# server is set in one at 0 s and stays; the burst server pushes and pops a
# nested state meanwhile (still active)
{ sed -n '/^%EventDef/,/^%EndEventDef$/p' "$FIX/burst_idle.paje"
  printf '%%EventDef PajeDefineStateType 5\n%%  Alias string\n%%  Type string\n%%  Name string\n%%EndEventDef\n'
  printf '%%EventDef PajeSetState 6\n%%  Time date\n%%  Type string\n%%  Container string\n%%  Value string\n%%EndEventDef\n'
  printf '%%EventDef PajePushState 7\n%%  Time date\n%%  Type string\n%%  Container string\n%%  Value string\n%%EndEventDef\n'
  printf '%%EventDef PajePopState 8\n%%  Time date\n%%  Type string\n%%  Container string\n%%EndEventDef\n'
  grep -v '^%\|^#\| a[bc] ' "$FIX/burst_idle.paje" | sed 's/^1 b H cpu.burst .*/&\n5 ab S active.burst\n5 ac S active.continuous/' |
    sed 's/^4 0 cap h1 100$/6 0 ac continuous-server serving\n7 10 ab burst-server serving\n7 20 ab burst-server collecting\n8 25 ab burst-server\n8 40 ab burst-server\n&/'; } >states.paje
check_eq "  ... a Paje trace pj_dump reads: the burst server in a state from 10 to 40 s" \
  "$(pj_dump states.paje | grep -c '^State, burst-server, active.burst, 10.000000, 40.000000')" 1
check_eq "servers as Paje states: the same finding" \
  "$("$TALLY" trace anomalies states.paje --format json | jq -c '[.[] | [.kind, .resource, .from, .to, .slices]]')" '[["burst-then-idle","h3",40,55,3]]'
# popped at 25 s instead (one pop only): idle from 25, h1 and h2 work for it until 40 too
sed '/^8 40 ab burst-server$/d; s/^7 20 ab burst-server collecting$//' states.paje >early.paje
check_eq "  ... idle from 25 s: every host's work after it is found" \
  "$("$TALLY" trace anomalies early.paje --format json | jq -c '[.[] | select(.kind == "burst-then-idle") | [.resource, .from, .to]] | sort')" '[["h1",25,40],["h2",25,40],["h3",25,55]]'

# tally's writer keeps the servers' activity: the same finding after export
"$TALLY" trace export "$FIX/burst_idle.paje" -o exported.paje
check_eq "exported trace: the same finding" \
  "$("$TALLY" trace anomalies exported.paje --format json | jq -c '[.[] | [.kind, .resource, .from, .to]]')" '[["burst-then-idle","h3",40,55]]'
check_eq "  ... pj_dump reads its activity" "$(pj_dump exported.paje | grep -c '^Variable, burst-server, active.burst')" 3

# the page lists it with its when and how sure
"$TALLY" view "$FIX/burst_idle.paje" -o page.html
sed -n 's|.*<script type="application/json" id="tally-meta">\(.*\)</script>.*|\1|p' page.html >meta.json
check_eq "page: one group, burst then idle on h3, [40, 55]" \
  "$(jq -c '[.findings.groups[] | [.kind, .resource, .slices, .ranges[0][0], .ranges[0][1]]]' meta.json)" '[["burst-then-idle","h3",3,40,55]]'
check_contains "page: the range says how sure" "$(jq -r '.findings.groups[0].ranges[0][3]' meta.json)" "(68% sure)"
finish
