#!/usr/bin/env bash
# tally view on a real SimGrid trace (tests/fixtures/simgrid, built here as the
# trace tests do): the page, opened in headless Chromium on a slice given by
# URL parameters, draws SimGrid's hosts and links with the topology of the
# platform, its numbers for that slice are those of tally trace aggregate, and
# it lists the anomalies grouped by kind and resource.
# make check: runs beside other tests
source "$TALLY_TEST_ROOT/tests/integration/lib.sh"
source "$TALLY_TEST_ROOT/tests/integration/view/compare_aggregates.sh"
SG=$TALLY_TEST_ROOT/tests/fixtures/simgrid
driver=$TALLY_TEST_ROOT/tests/integration/view/browser_check.js
artifacts=$TALLY_TEST_ROOT/build/test-artifacts/view
mkdir -p "$artifacts"

if ! g++ -O1 -Wno-deprecated-declarations -o categorized "$SG/categorized.cpp" \
     $(pkg-config --cflags --libs simgrid) 2>build.log; then
  cat build.log; not_ok "build the SimGrid fixture"; finish
fi
./categorized "$SG/platform.xml" --cfg=tracing:yes --cfg=tracing/uncategorized:yes \
  --cfg=tracing/filename:sim.paje >sim.log 2>&1
check "SimGrid wrote a trace" test -s sim.paje

"$TALLY" view sim.paje -o sim.html
check_eq "-o on the SimGrid trace" "$?" 0
end=$(sed -n 's|.*id="tally-meta">\(.*\)</script>.*|\1|p' sim.html | jq .end)
from=$(echo "$end * 0.2" | bc -l) to=$(echo "$end * 0.7" | bc -l)
timeout 120 node "$driver" --slice "file://$WORK/sim.html?from=$from&to=$to" "$WORK/sim.png" HOST,LINK,root > out.json 2>driver.err
check_eq "driver ran" "$?" 0
[ -s driver.err ] && cat driver.err
check_near "page honours ?from=" "$(jq .snapshot.from out.json)" "$from" 1e-9
check_near "page honours ?to=" "$(jq .snapshot.to out.json)" "$to" 1e-9
check_eq "3 hosts (a1 a2 a3)" "$(jq -c '[.snapshot.nodes[].name] | sort' out.json)" '["a1","a2","a3"]'
check_eq "4 links" "$(jq -c '[.snapshot.links[].name] | sort' out.json)" '["backbone","l1","l2","l3"]'
check_eq "6 host-link and link-link edges" "$(jq .snapshot.edges out.json)" 6
check_eq "a1 capacity: 1 Gf x 2 cores" "$(jq '.snapshot.nodes[] | select(.name == "a1") | .capacity' out.json)" 2000000000
check_eq "l2 bandwidth: 50 MBps" "$(jq '.snapshot.links[] | select(.name == "l2") | .capacity' out.json)" 50000000
for level in HOST LINK root; do
  jq --arg l "$level" '.aggregates[$l]' out.json > page.json
  "$TALLY" trace aggregate sim.paje --from "$from" --to "$to" --level "$level" --format json > cli.json
  compare_aggregates "page [$from,$to] $level = tally trace aggregate" page.json cli.json
done
# the findings: one line per (kind, resource), with its count, not one per slice
"$TALLY" trace anomalies sim.paje --each-slice --format json > anomalies.json
check_eq "findings: one group per kind and resource" "$(jq '.findings.groups | length' out.json)" "$(jq '[group_by([.kind, .resource])[]] | length' anomalies.json)"
check_eq "findings: the groups' counts add up to tally trace anomalies" "$(jq '[.findings.groups[].slices] | add' out.json)" "$(jq length anomalies.json)"
check_eq "findings: worst first (the group covering the most time)" "$(jq -r '.findings.groups[0] | "\(.kind) \(.resource)"' out.json)" \
  "$(jq -r 'group_by([.kind, .resource]) | max_by(map(.to - .from) | add) | "\(.[0].kind) \(.[0].resource)"' anomalies.json)"
check_contains "times relative to the trace's start" "$(jq -r .snapshot.label out.json)" "slice t+"

# --hierarchy regroups SimGrid's flat hosts into sites, for the SVG as for tally trace
printf 'a1 siteA site\na2 siteA site\na3 siteB site\n' > sites.txt
"$TALLY" view sim.paje --svg sites.svg --hierarchy sites.txt --level site
check_eq "--hierarchy: SVG groups are the sites" "$(grep -o 'data-resource="site[AB]"' sites.svg | sort -u | tr '\n' ' ')" 'data-resource="siteA" data-resource="siteB" '
want=$("$TALLY" trace aggregate sim.paje --hierarchy sites.txt --level site --format json | jq '.groups[] | select(.name == "siteA" and .kind == "cpu") | .usage.continuous')
got=$(sed -n 's|.*data-resource="siteA" data-category="continuous" data-value="\([^"]*\)".*|\1|p' sites.svg)
check_near "--hierarchy: siteA continuous = tally trace aggregate" "$got" "$want" "$(awk -v w="$want" 'BEGIN { print w * 1e-6 }')"
check_cmp "screenshot saved" "$(stat -c %s sim.png)" ">" 20000
cp sim.png "$artifacts/simgrid.png"
finish
