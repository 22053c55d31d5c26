#!/usr/bin/env bash
# The view page in headless Chromium (driven over the DevTools protocol by
# browser_check.js): it opens on the whole trace, draws the timeline (one
# series per category and the capacity, values those of `tally trace
# aggregate` over each step), the treemap cells and topology nodes expected
# for view-platform.paje, lists the findings grouped by kind and resource
# (counts checked against `tally trace anomalies`), jumps to a finding's
# slice on a click, selects a slice by brushing and dragging on the timeline,
# and when the slice is moved with its own controls (and animated, filtered,
# switched to another level) the numbers change to those of `tally trace
# aggregate`. Runs on the offline report (file://), on the served page
# (--serve), and on a coarse level (--coarse). Times read t+S. Screenshots
# are kept in build/test-artifacts/view/.
# make check: runs beside other tests
source "$TALLY_TEST_ROOT/tests/integration/lib.sh"
source "$TALLY_TEST_ROOT/tests/integration/view/compare_aggregates.sh"
trace=$TALLY_TEST_ROOT/tests/fixtures/traces/view-platform.paje
driver=$TALLY_TEST_ROOT/tests/integration/view/browser_check.js
# drive NAME ARGS...: the headless-Chromium driver on ARGS, its JSON in
# out.json; its exit status checked, and what it said on stderr shown (as
# TAP comments) when it failed
drive() {
  local name=$1; shift
  timeout 120 node "$driver" "$@" > out.json 2>driver.err
  local st=$?
  check_eq "$name: driver ran" "$st" 0
  [ "$st" = 0 ] || sed 's/^/# driver: /' driver.err | tail -20
}
artifacts=$TALLY_TEST_ROOT/build/test-artifacts/view
mkdir -p "$artifacts" shots

# values of cells as "resource/category=value" for one snapshot
cells() { jq -r --arg s "$1" '.[$s].cells | map("\(.r)/\(.c)=\(.v)") | sort | join(" ")' out.json; }
cell() { jq -r --arg s "$1" --arg r "$2" --arg c "$3" '.[$s].cells[] | select(.r == $r and .c == $c) | .v' out.json; }

# the findings of tally trace anomalies grouped independently of the page:
# "kind resource slices ranges" per (kind, resource), consecutive slices
# merged into ranges, the most time covered first
"$TALLY" trace anomalies "$trace" --each-slice --format json > anomalies.json
expected_groups=$(jq -r 'group_by([.kind, .resource]) | map({kind: .[0].kind, resource: .[0].resource, slices: length,
    duration: (map(.to - .from) | add),
    ranges: (sort_by(.from) | reduce .[] as $f ([]; if length > 0 and $f.from <= .[-1][1] then .[-1][1] = $f.to else . + [[$f.from, $f.to]] end) | length)})
  | sort_by(-.duration, -.slices, .kind, .resource) | map("\(.kind) \(.resource) \(.slices) \(.ranges)") | join(", ")' anomalies.json)
n_anomalies=$(jq length anomalies.json)
n_groups=$(jq '[group_by([.kind, .resource])[]] | length' anomalies.json)
n_groups_here() { # FROM TO: groups with a finding overlapping [FROM, TO]
  jq --argjson f "$1" --argjson t "$2" '[map(select(.from < $t and .to > $f)) | group_by([.kind, .resource])[]] | length' anomalies.json
}

# check_timeline LABEL JQPATH LEVEL: the timeline's numbers (capacity and usage per category)
# at four steps are those of tally trace aggregate over each step for the charted group
check_timeline() {
  local m=$1 level=$3 i a b bad=0 n=0 group kind steps
  jq "$2.data" out.json > tl.json
  group=$(jq -r .group tl.json) kind=$(jq -r .kind tl.json) steps=$(jq .steps tl.json)
  for i in 0 7 $((steps / 2)) $((steps - 1)); do
    a=$(jq --argjson i "$i" '.from + (.to - .from) / .steps * $i' tl.json)
    b=$(jq --argjson i "$i" 'if $i + 1 == .steps then .to else .from + (.to - .from) / .steps * ($i + 1) end' tl.json)
    "$TALLY" trace aggregate "$trace" --from "$a" --to "$b" --level "$level" --kind "$kind" --format json |
      jq -r --arg g "$group" '.groups[] | select(.name == $g) | [.capacity] + (.usage | to_entries | sort_by(.key) | map(.value)) | map(tostring) | join(" ")' > want.txt
    jq -r --argjson i "$i" '[.capacity[$i]] + (.usage | to_entries | sort_by(.key) | map(.value[$i])) | map(tostring) | join(" ")' tl.json > got.txt
    n=$((n + 1))
    if [ ! -s want.txt ] || [ "$(wc -w < want.txt)" -ne "$(wc -w < got.txt)" ] ||
       ! paste -d' ' want.txt got.txt | awk '{ n = NF / 2; for (k = 1; k <= n; k++) { d = $k - $(k + n); if (d < 0) d = -d;
           s = $k < 0 ? -$k : $k; if (s < 1) s = 1; if (d > 1e-6 * s) bad = 1 } } END { exit bad }'; then
      bad=$((bad + 1)); echo "# step $i [$a, $b]: tally trace aggregate '$(cat want.txt)', page '$(cat got.txt)'"
    fi
  done
  check_eq "$m ($group, $kind, $steps steps)" "$bad mismatches in $n steps" "0 mismatches in 4 steps"
}
# agg_value FROM TO LEVEL GROUP FIELD: one number of tally trace aggregate (FIELD: capacity, idle or a category)
agg_value() {
  "$TALLY" trace aggregate "$trace" --from "$1" --to "$2" --level "$3" --format json |
    jq --arg g "$4" --arg f "$5" '.groups[] | select(.name == $g) | if $f == "capacity" or $f == "idle" then .[$f] else .usage[$f] end'
}

# check_scenario LABEL: the assertions on out.json, shared by both modes
check_scenario() {
  local m=$1
  check_eq "$m: opens on the whole trace, times from its start" "$(jq -r '.initial.label' out.json)" "slice t+0 s – t+100 s (100 s wide)"
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
  check_contains "$m: tooltip gives the slice from the trace's start" "$(jq -r '.tooltip' out.json)" "averages over t+0 s – t+100 s"
  check_contains "$m: wheel zooms" "$(jq -r '.zoomed' out.json)" "scale(1.2)"
  check_eq "$m: drag pans by 40 px (in SVG units)" "$(jq -r '.zoomed, .panned' out.json | sed -n 's/translate(\([-0-9.e]*\),.*/\1/p' | awk 'NR == 1 { a = $1 } NR == 2 { d = $1 - a; print (d > 30 && d < 70) ? "moved right" : "moved " d }')" "moved right"
  check_contains "$m: double-click resets the zoom" "$(jq -r '.unzoomed' out.json)" "scale(1)"
  # the timeline: whole platform, cpu, one stacked series per category and the capacity line
  check_eq "$m: timeline charts the whole platform's cpu" "$(jq -r '.timeline.title' out.json)" "— whole platform · cpu"
  check_eq "$m: timeline series: the two categories stacked, then capacity" "$(jq -c '.timeline.series' out.json)" '["burst","continuous","capacity"]'
  check_eq "$m: timeline over the whole trace in 400 steps" "$(jq -c '.timeline.data | [.from, .to, .steps]' out.json)" "[0,100,400]"
  check_timeline "$m: timeline = tally trace aggregate over each step" .timeline root
  check_eq "$m: the whole trace is marked on the timeline" "$(jq -c '.timeline.band' out.json)" "[64,906]"
  # findings grouped by kind and resource, worst first, consecutive slices merged
  check_eq "$m: findings grouped (kind resource slices ranges), worst first" \
    "$(jq -r '.findings.groups | map("\(.kind) \(.resource) \(.slices) \(.ranges)") | join(", ")' out.json)" "$expected_groups"
  check_eq "$m: $n_anomalies findings in $n_groups groups" "$(jq '.findings.groups | length' out.json)" "$n_groups"
  check_eq "$m: findings summary" "$(jq -r '.findings.summary' out.json)" \
    "($n_anomalies findings in $n_groups groups, $(n_groups_here 0 100) in this slice; worst first; anomalies per slice of 5 s)"
  check_contains "$m: a group says its count and time" "$(jq -r '.findings.groups[] | select(.resource == "l3") | .head' out.json)" "12 slices in 2 ranges, 60 s (60% of the trace)"
  # a click on h4's saturation: its longest range (4 slices of 5 s merged), charted and outlined
  check_eq "$m: a click on h4's saturation shows its range" "$(jq -r '.afterFinding.label' out.json)" "slice t+0 s – t+20 s (20 s wide)"
  check_eq "$m: ... outlines h4 in the treemap" "$(jq -c '.afterFinding.treemapFlagged' out.json)" '["h4"]'
  check_eq "$m: ... and in the topology" "$(jq -c '.afterFinding.topologyFlagged' out.json)" '["h4"]'
  check_eq "$m: ... charts h4 on the timeline" "$(jq -r '.afterFinding.timeline.title' out.json)" "— h4 (HOST) · cpu"
  check_timeline "$m: h4's timeline = tally trace aggregate --level HOST" .afterFinding.timeline HOST
  check_eq "$m: ... counts the groups of that slice" "$(jq -r '.afterFinding.summary' out.json)" \
    "($n_anomalies findings in $n_groups groups, $(n_groups_here 0 20) in this slice; worst first; anomalies per slice of 5 s)"
  check_eq "$m: 'only in this slice' lists the groups of [0, 20]" "$(jq '.onlyHere' out.json)" "$(n_groups_here 0 20)"
  check_eq "$m: ... and unticked, all of them again" "$(jq '.allAgain' out.json)" "$n_groups"
  check_eq "$m: a click on l3's second range shows it" "$(jq -r '.afterRange.label' out.json)" "slice t+70 s – t+100 s (30 s wide)"
  check_eq "$m: ... on l3's kind" "$(jq -r '.afterRange.kind' out.json)" bandwidth
  check_near "$m: ... l3 idle there = tally trace aggregate" "$(cell afterRange l3 idle)" "$(agg_value 70 100 LINK l3 idle)" 1e-6
  # brushing [30, 70] on the timeline, then dragging the slice 10 s back
  check_eq "$m: brushing selects [30, 70]" "$(jq -r '.brushed.label' out.json)" "slice t+30 s – t+70 s (40 s wide)"
  check_near "$m: brushed slice marked at x = 64 + 906 x 0.3" "$(jq '.brushed.timeline.band[0]' out.json)" 335.8 0.01
  check_near "$m: ... 906 x 0.4 wide" "$(jq '.brushed.timeline.band[1]' out.json)" 362.4 0.01
  check_near "$m: brushed: h1 burst = tally trace aggregate" "$(cell brushed h1 burst)" "$(agg_value 30 70 HOST h1 burst)" 1e-6
  check_near "$m: brushed: h5 idle = tally trace aggregate" "$(cell brushed h5 idle)" "$(agg_value 30 70 HOST h5 idle)" 1e-6
  check_eq "$m: dragging the slice moves it to [20, 60]" "$(jq -r '.dragged.label' out.json)" "slice t+20 s – t+60 s (40 s wide)"
  check_near "$m: dragged: h3 burst = tally trace aggregate" "$(cell dragged h3 burst)" "$(agg_value 20 60 HOST h3 burst)" 1e-6
  check_eq "$m: a click on h3 in the treemap charts it" "$(jq -r '.chartH3.title' out.json)" "— h3 (HOST) · cpu"
  check_timeline "$m: h3's timeline = tally trace aggregate --level HOST" .chartH3 HOST
  check_eq "$m: a click on link l1 in the topology charts its bandwidth" "$(jq -r '.chartL1.title' out.json)" "— l1 (LINK) · bandwidth"
  check_eq "$m: ... at the LINK level" "$(jq -r '.chartL1.level' out.json)" LINK
  check_timeline "$m: l1's timeline = tally trace aggregate --level LINK" .chartL1 LINK
  check_eq "$m: levels offered" "$(jq -c '.levels' out.json)" '["root","SITE","HOST","LINK"]'
  # moved to [50,100] with the start and width inputs
  check_eq "$m: moved slice label" "$(jq -r '.moved.label' out.json)" "slice t+50 s – t+100 s (50 s wide)"
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
  check_eq "$m: animation ends at [80,100]" "$(jq -r '.animEnd.label' out.json)" "slice t+80 s – t+100 s (20 s wide)"
  check_eq "$m: animation paused at the end" "$(jq -r '.animation.button' out.json)" play
  check_cmp "$m: animation went through several slices" "$(jq '.animation.froms | length' out.json)" ">=" 3
  check_eq "$m: animation only moves forward" "$(jq '.animation.froms | . == sort' out.json)" true
  check_eq "$m: left arrow: one step back" "$(jq -r '.keyBack.label' out.json)" "slice t+60 s – t+80 s (20 s wide)"
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
drive "offline" "file://$WORK/report.html" "$WORK/shots"
check_scenario offline
for shot in initial finding brushed moved page; do
  check_eq "offline: $shot screenshot is a PNG" "$(head -c 8 "shots/$shot.png" | od -An -tx1 | tr -d ' ')" 89504e470d0a1a0a
  check_cmp "offline: $shot screenshot not blank" "$(stat -c %s "shots/$shot.png")" ">" 20000
  cp "shots/$shot.png" "$artifacts/offline-$shot.png"
done

# 2. the first view chosen on the command line (no URL parameters)
"$TALLY" view "$trace" -o first.html --from 50 --to 100 --level site --no-idle --categories burst
drive "first view" --slice "file://$WORK/first.html" "$WORK/shots/first.png" SITE
check_eq "first view: the slice of --from/--to" "$(jq -r '.snapshot.label' out.json)" "slice t+50 s – t+100 s (50 s wide)"
check_eq "first view: --level site, --categories burst, --no-idle" "$(jq -r '.snapshot.cells | map("\(.r)/\(.c)=\(.v)") | sort | join(" ")' out.json)" "s1/burst=100 s2/burst=50"

# 2a. the topology uses the whole pane and clips no label: two hosts (side by
# side, not in opposite corners), many hosts, and view-platform's hosts and links
# hosts_trace N FORMAT: N hosts (names printf FORMAT i) with one cpu each, no edges
hosts_trace() {
  local i name
  sed -n '/^%EventDef/,/^%EndEventDef$/p' "$TALLY_TEST_ROOT/tests/fixtures/traces/oscillation.paje"
  printf '0 T 0 HOST\n1 cap T cpu.capacity "1 1 1"\n1 a T cpu.a "1 0 0"\n'
  for i in $(seq "$1"); do
    name=$(printf "$2" "$i")
    printf '2 0 %s T 0 %s\n4 0 cap %s %d\n4 0 a %s %d\n' "$name" "$name" "$name" $((100 + i % 3 * 100)) "$name" $((50 + i % 3 * 50))
  done
  for i in $(seq "$1"); do printf '3 10 T %s\n' "$(printf "$2" "$i")"; done
}
# check_topology LABEL N: N labels, every one inside the pane; the vertices' drawings span
# at least 80 % of the pane's width (and of its height when more than a row)
check_topology() {
  local m=$1
  check_eq "$m: $2 labels drawn" "$(jq '.topology.labels | length' out.json)" "$2"
  check_eq "$m: every label inside the pane" "$(jq -c '.topology as $t | [$t.labels[] | select(.left < $t.pane.left or .right > $t.pane.right or .top < $t.pane.top or .bottom > $t.pane.bottom) | .name]' out.json)" '[]'
  check_cmp "$m: drawings span the pane's width" "$(jq '.topology as $t | (([$t.vertices[].right] | max) - ([$t.vertices[].left] | min)) / ($t.pane.right - $t.pane.left)' out.json)" ">=" 0.8
}
hosts_trace 2 'compute-node-%02d.cluster.example.org' >two.paje
"$TALLY" view two.paje -o two.html
drive "two hosts" --slice "file://$WORK/two.html" "$WORK/shots/two.png" root
check_topology "two hosts" 2
check_near "two hosts: side by side (their squares' centres at one height)" "$(jq '.topology.vertices | map(.shape) | ((.[0].top + .[0].bottom) - (.[1].top + .[1].bottom)) / 2' out.json)" 0 0.5
check_near "two hosts: in the middle of the pane's height" "$(jq '.topology as $t | ($t.vertices[0].top + $t.vertices[0].bottom - $t.pane.top - $t.pane.bottom) / 2 / ($t.pane.bottom - $t.pane.top)' out.json)" 0 0.05
cp shots/two.png "$artifacts/topology-two-hosts.png"
hosts_trace 60 'node%03d.example' >many.paje
"$TALLY" view many.paje -o many.html
drive "60 hosts" --slice "file://$WORK/many.html" "$WORK/shots/many.png" root
check_topology "60 hosts" 60
check_cmp "60 hosts: drawings span the pane's height" "$(jq '.topology as $t | (([$t.vertices[].bottom] | max) - ([$t.vertices[].top] | min)) / ($t.pane.bottom - $t.pane.top)' out.json)" ">=" 0.8
cp shots/many.png "$artifacts/topology-60-hosts.png"
drive "view-platform" --slice "file://$WORK/report.html" "$WORK/shots/platform.png" root
check_topology "view-platform" 9

# 2b. a coarse level (--coarse 20: averages over 20 steps of 5 s): the page says so,
# snaps the slice to whole steps, and its numbers there are still exact
"$TALLY" view "$trace" -o coarse.html --coarse 20
drive "coarse" --slice "file://$WORK/coarse.html?from=12&to=33" "$WORK/shots/coarse.png" HOST,root
check_contains "coarse: the page says it shows a coarse level" "$(jq -r '.note' out.json)" "Coarse level: this file embeds averages over 20 steps of 5 s"
check_eq "coarse: [12, 33] snapped to whole steps" "$(jq -r '.snapshot.label' out.json)" "slice t+10 s – t+35 s (25 s wide)"
check_eq "coarse: the timeline has the 20 steps" "$(jq '.timeline.data.steps' out.json)" 20
check_timeline "coarse: timeline = tally trace aggregate over each step" .timeline root
for level in HOST root; do
  jq --arg l "$level" '.aggregates[$l]' out.json > page.json
  "$TALLY" trace aggregate "$trace" --from 10 --to 35 --level "$level" --format json > cli.json
  compare_aggregates "coarse: page [10,35] $level = tally trace aggregate" page.json cli.json
done
check_cmp "coarse: file smaller than the full one" "$(stat -c %s coarse.html)" "<" "$(stat -c %s report.html)"
cp shots/coarse.png "$artifacts/coarse.png"

# 3. the served page: same scenario, slices fetched from the C core
"$TALLY" view "$trace" --serve 0 > server.log 2>server.err &
pid=$!
port=
for _ in $(seq 100); do
  port=$(sed -n 's|^serving http://127.0.0.1:\([0-9]*\)/$|\1|p' server.log)
  [ -n "$port" ] && break
  sleep 0.1
done
drive "served" "http://127.0.0.1:$port/" "$WORK/shots"
check_scenario served
cp shots/moved.png "$artifacts/served-moved.png"
cp shots/brushed.png "$artifacts/served-brushed.png"
kill -TERM "$pid"; wait "$pid"
check_eq "served: server stopped cleanly" "$?" 0
finish
