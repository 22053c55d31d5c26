#!/usr/bin/env bash
# The view page in headless Chromium (driven over the DevTools protocol by
# browser_check.js): it opens on the whole trace, draws the treemap cells and
# topology nodes expected for view-platform.paje, and when the slice is moved
# with its own controls (and animated, filtered, switched to another level)
# the numbers change to those of `tally trace aggregate`. Runs on the offline
# report (file://) and on the served page (--serve). Screenshots are kept in
# build/test-artifacts/view/.
source "$TALLY_TEST_ROOT/tests/integration/lib.sh"
source "$TALLY_TEST_ROOT/tests/integration/view/compare_aggregates.sh"
trace=$TALLY_TEST_ROOT/tests/fixtures/traces/view-platform.paje
driver=$TALLY_TEST_ROOT/tests/integration/view/browser_check.js
artifacts=$TALLY_TEST_ROOT/build/test-artifacts/view
mkdir -p "$artifacts" shots

# values of cells as "resource/category=value" for one snapshot
cells() { jq -r --arg s "$1" '.[$s].cells | map("\(.r)/\(.c)=\(.v)") | sort | join(" ")' out.json; }
cell() { jq -r --arg s "$1" --arg r "$2" --arg c "$3" '.[$s].cells[] | select(.r == $r and .c == $c) | .v' out.json; }

# anomaly_counts FROM TO: "N kind, ..." of tally trace anomalies overlapping [FROM, TO]
"$TALLY" trace anomalies "$trace" --format json > anomalies.json
anomaly_counts() {
  jq -r --argjson f "$1" --argjson t "$2" 'map(select(.from < $t and .to > $f)) | group_by(.kind) |
    map("\(length) \(.[0].kind)") | join(", ")' anomalies.json
}

# check_scenario LABEL: the assertions on out.json, shared by both modes
check_scenario() {
  local m=$1
  check_eq "$m: opens on the whole trace" "$(jq -r '.initial.label' out.json)" "slice [0, 100] of [0, 100]"
  check_eq "$m: no error shown" "$(jq -r '.initial.status' out.json)" ""
  check_eq "$m: 13 treemap cells on [0,100] (h2, h5 have one zero category)" "$(jq '.initial.cells | length' out.json)" 13
  check_eq "$m: root bar has 3 cells" "$(jq '.initial.rootCells' out.json)" 3
  check_eq "$m: root capacity = 200+100+200+300+160" "$(jq '.initial.rootCapacity' out.json)" 960
  check_eq "$m: 5 topology nodes" "$(jq '.initial.nodes | length' out.json)" 5
  check_eq "$m: 4 topology links" "$(jq '.initial.links | length' out.json)" 4
  check_eq "$m: 8 topology edges" "$(jq '.initial.edges' out.json)" 8
  check_eq "$m: h1 burst on [0,100]" "$(cell initial h1 burst)" 75
  check_eq "$m: h4 continuous on [0,100]" "$(cell initial h4 continuous)" 120
  check_eq "$m: h5 capacity node on [0,100]" "$(jq '.initial.nodes[] | select(.name == "h5") | .capacity' out.json)" 160
  check_contains "$m: tooltip names the cell" "$(jq -r '.tooltip' out.json)" "h1 · burst"
  check_contains "$m: tooltip gives the share" "$(jq -r '.tooltip' out.json)" "75 (37.5% of capacity)"
  check_contains "$m: wheel zooms" "$(jq -r '.zoomed' out.json)" "scale(1.2)"
  check_eq "$m: drag pans by 40 px (in SVG units)" "$(jq -r '.zoomed, .panned' out.json | sed -n 's/translate(\([-0-9.e]*\),.*/\1/p' | awk 'NR == 1 { a = $1 } NR == 2 { d = $1 - a; print (d > 30 && d < 70) ? "moved right" : "moved " d }')" "moved right"
  check_contains "$m: double-click resets the zoom" "$(jq -r '.unzoomed' out.json)" "scale(1)"
  # findings: the anomalies of tally trace anomalies, counted per kind for the whole trace
  check_eq "$m: findings for the whole trace" "$(jq -r '.findings.summary' out.json)" "($(anomaly_counts 0 100); anomalies per slice of 5)"
  check_eq "$m: findings listed (40 at most)" "$(jq '.findings.listed' out.json)" 40
  check_eq "$m: a click on h4's saturation shows its slice" "$(jq -r '.afterFinding.label' out.json)" "slice [0, 5] of [0, 100]"
  check_eq "$m: ... and outlines h4 in the treemap" "$(jq -c '.afterFinding.treemapFlagged' out.json)" '["h4"]'
  check_eq "$m: ... and in the topology" "$(jq -c '.afterFinding.topologyFlagged' out.json)" '["h4"]'
  check_eq "$m: ... listing that slice's findings" "$(jq -r '.afterFinding.summary' out.json)" "($(anomaly_counts 0 5); anomalies per slice of 5)"
  check_eq "$m: levels offered" "$(jq -c '.levels' out.json)" '["root","SITE","HOST","LINK"]'
  # moved to [50,100] with the start and width inputs
  check_eq "$m: moved slice label" "$(jq -r '.moved.label' out.json)" "slice [50, 100] of [0, 100]"
  check_eq "$m: 11 cells on [50,100]" "$(jq '.moved.cells | length' out.json)" 11
  check_eq "$m: h1 burst gone on [50,100]" "$(cell moved h1 burst)" ""
  check_eq "$m: h1 continuous 75 -> 100" "$(cell moved h1 continuous)" 100
  check_eq "$m: h3 burst 50 -> 100" "$(cell moved h3 burst)" 100
  check_eq "$m: h5 idle 110 -> 70 (capacity halves at 60)" "$(cell moved h5 idle)" 70
  check_eq "$m: h5 node capacity 160 -> 120" "$(jq '.moved.nodes[] | select(.name == "h5") | .capacity' out.json)" 120
  check_eq "$m: l1 link used 500 -> 200" "$(jq '.moved.links[] | select(.name == "l1") | .used' out.json)" 200
  # every number the page computes for the moved slice = tally trace aggregate
  for level in HOST SITE LINK root; do
    jq --arg l "$level" '.aggregates[$l]' out.json > page.json
    "$TALLY" trace aggregate "$trace" --from 50 --to 100 --level "$level" --format json > cli.json
    compare_aggregates "$m: page [50,100] $level = tally trace aggregate" page.json cli.json
  done
  # animation: width 20, step 20 from 0, stops by itself at the end
  check_eq "$m: animation start [0,20]: h4 burst" "$(cell animStart h4 burst)" 300
  check_eq "$m: animation ends at [80,100]" "$(jq -r '.animEnd.label' out.json)" "slice [80, 100] of [0, 100]"
  check_eq "$m: animation paused at the end" "$(jq -r '.animation.button' out.json)" play
  check_cmp "$m: animation went through several slices" "$(jq '.animation.froms | length' out.json)" ">=" 3
  check_eq "$m: animation only moves forward" "$(jq '.animation.froms | . == sort' out.json)" true
  check_eq "$m: left arrow: one step back" "$(jq -r '.keyBack.label' out.json)" "slice [60, 80] of [0, 100]"
  check_eq "$m: animation end h4 burst" "$(cell animEnd h4 burst)" ""
  check_eq "$m: animation end h4 continuous" "$(cell animEnd h4 continuous)" 150
  # filters and level
  check_eq "$m: burst unticked: no burst cell" "$(jq '[.noBurst.cells[] | select(.c == "burst")] | length' out.json)" 0
  check_eq "$m: SITE level: two groups" "$(jq -c '[.site.cells[].r] | unique' out.json)" '["s1","s2"]'
  check_eq "$m: SITE s1 continuous on [80,100]" "$(cell site s1 continuous)" 230
  # stable places: frames identical across slices while the numbers inside change
  check_eq "$m: stable places: same frames on [80,100] and [0,20]" "$(jq -c '.stableA.frames' out.json)" "$(jq -c '.stableB.frames' out.json)"
  check_eq "$m: stable places: two frames" "$(jq '.stableB.frames | length' out.json)" 2
  check_eq "$m: stable places: s1 continuous on [80,100]" "$(cell stableA s1 continuous)" 230
  check_eq "$m: stable places: s1 continuous on [0,20] (50 + 40 + 50)" "$(cell stableB s1 continuous)" 140
  check_eq "$m: stable places: burst still unticked" "$(jq '[.stableB.cells[] | select(.c == "burst")] | length' out.json)" 0
}

# 1. offline report from file://
"$TALLY" view "$trace" -o report.html
timeout 120 node "$driver" "file://$WORK/report.html" "$WORK/shots" > out.json 2>driver.err
check_eq "offline: driver ran" "$?" 0
[ -s driver.err ] && cat driver.err
check_scenario offline
for shot in initial moved; do
  check_eq "offline: $shot screenshot is a PNG" "$(head -c 8 "shots/$shot.png" | od -An -tx1 | tr -d ' ')" 89504e470d0a1a0a
  check_cmp "offline: $shot screenshot not blank" "$(stat -c %s "shots/$shot.png")" ">" 20000
  cp "shots/$shot.png" "$artifacts/offline-$shot.png"
done

# 2. the first view chosen on the command line (no URL parameters)
"$TALLY" view "$trace" -o first.html --from 50 --to 100 --level site --no-idle --categories burst
timeout 120 node "$driver" --slice "file://$WORK/first.html" "$WORK/shots/first.png" SITE > out.json 2>driver.err
check_eq "first view: driver ran" "$?" 0
check_eq "first view: the slice of --from/--to" "$(jq -r '.snapshot.label' out.json)" "slice [50, 100] of [0, 100]"
check_eq "first view: --level site, --categories burst, --no-idle" "$(jq -r '.snapshot.cells | map("\(.r)/\(.c)=\(.v)") | sort | join(" ")' out.json)" "s1/burst=100 s2/burst=50"

# 3. the served page: same scenario, slices fetched from the C core
"$TALLY" view "$trace" --serve 0 > server.log 2>server.err &
pid=$!
port=
for _ in $(seq 100); do
  port=$(sed -n 's|^serving http://127.0.0.1:\([0-9]*\)/$|\1|p' server.log)
  [ -n "$port" ] && break
  sleep 0.1
done
timeout 120 node "$driver" "http://127.0.0.1:$port/" "$WORK/shots" > out.json 2>driver.err
check_eq "served: driver ran" "$?" 0
[ -s driver.err ] && cat driver.err
check_scenario served
cp shots/moved.png "$artifacts/served-moved.png"
kill -TERM "$pid"; wait "$pid"
check_eq "served: server stopped cleanly" "$?" 0
finish
