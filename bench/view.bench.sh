#!/usr/bin/env bash
# tally view on generated SimGrid-like traces of growing size
# (bench/progs/paje_gen.c: hosts and links, two categories):
#   report.html   what it embeds (every breakpoint, or a coarse level of N
#                 steps), its size (and bytes per event), time to write it,
#                 time for headless Chromium to load it and draw the first
#                 slice and the timeline (median of LOADS runs; one run for
#                 10^7 events), mean time for the page to compute and redraw
#                 one slice;
#   --serve       mean latency of GET /slice (a tenth of the trace, host
#                 level) and of GET /timeline (whole platform, 400 steps).
# The 10^7-event case runs once, last. Writes bench/results/view.md.
# SIZES="events:hosts ..." overrides the sizes, LOADS the page loads per size.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/median.sh
TALLY=${TALLY:-$PWD/build/tally}
GEN=$PWD/build/bench/paje_gen
SIZES=${SIZES:-"10000:16 100000:64 1000000:200 10000000:2000"}
LOADS=${LOADS:-3}
out=bench/results/view.md
tmp=$(mktemp -d /tmp/tally-view-bench.XXXXXX)
server=
trap '[ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$tmp"' EXIT
[ -x "$GEN" ] || make -s build/bench/paje_gen
[ -x "$TALLY" ] || make -s build/tally


# mean_ms URL N: mean curl time of N requests (URL may hold {i}, replaced by the request's index)
mean_ms() {
  local total=0 i t
  for i in $(seq 0 $(($2 - 1))); do
    t=$(curl -sf -o /dev/null -w '%{time_total}' "${1//\{i\}/$i}")
    total=$(echo "$total + $t" | bc -l)
  done
  echo "$total * 1000 / $2" | bc -l | awk '{ printf "%.1f", $1 }'
}

rows=
for size in $SIZES; do
  events=${size%%:*} hosts=${size##*:}
  trace=$tmp/t$events.paje
  "$GEN" "$events" "$hosts" 2 >"$trace"
  paje_kb=$(( $(stat -c %s "$trace") / 1024 ))
  start=$(date +%s.%N)
  "$TALLY" view "$trace" -o "$tmp/r$events.html"
  write_s=$(echo "$(date +%s.%N) - $start" | bc | awk '{ printf "%.2f", $1 }')
  html=$(stat -c %s "$tmp/r$events.html")
  gz_kb=$(( $(gzip -c "$tmp/r$events.html" | wc -c) / 1024 ))
  per_event=$(awk -v h="$html" -v e="$events" 'BEGIN { printf "%.1f", h / e }')
  level=$(sed -n 's|.*id="tally-meta">\(.*\)</script>.*|\1|p' "$tmp/r$events.html" |
    jq -r '.resolution | if .coarse then "coarse, \(.steps) steps" else "every breakpoint" end')
  loads=$LOADS
  [ "$events" -ge 10000000 ] && loads=1
  : >"$tmp/load.txt"
  for _ in $(seq "$loads"); do
    page=$(node bench/view_page_timing.js "file://$tmp/r$events.html")
    echo "$page" | jq .load_ms >>"$tmp/load.txt"
  done
  load_ms=$(median <"$tmp/load.txt")
  slice_ms=$(echo "$page" | jq '.slice_ms * 10 | round / 10')
  # served: mean /slice latency over 20 slices of a tenth of the trace, /timeline over 5 requests
  "$TALLY" view "$trace" --serve 0 >"$tmp/serve.log" 2>&1 &
  server=$!
  port=
  for _ in $(seq 600); do
    port=$(sed -n 's|^serving http://127.0.0.1:\([0-9]*\)/$|\1|p' "$tmp/serve.log"); [ -n "$port" ] && break; sleep 0.1
  done
  end=$(curl -s "http://127.0.0.1:$port/" | sed -n 's|.*id="tally-meta">\(.*\)</script>.*|\1|p' | jq .end)
  groups=$(curl -s "http://127.0.0.1:$port/slice?from=0&to=$end&level=host" | jq '.groups | length')
  [ "$groups" -eq "$hosts" ] || { echo "view bench: /slice gave $groups groups, want $hosts" >&2; exit 1; }
  total=0
  for i in $(seq 0 19); do
    from=$(echo "$end * 0.9 * $i / 20" | bc -l); to=$(echo "$from + $end / 10" | bc -l)
    t=$(curl -sf -o /dev/null -w '%{time_total}' "http://127.0.0.1:$port/slice?from=$from&to=$to&level=host")
    total=$(echo "$total + $t" | bc -l)
  done
  serve_ms=$(echo "$total * 1000 / 20" | bc -l | awk '{ printf "%.1f", $1 }')
  timeline_ms=$(mean_ms "http://127.0.0.1:$port/timeline?level=root&kind=cpu&steps=400" 5)
  kill "$server"; wait "$server" || true; server=
  rows+="| $events | $hosts + $((hosts / 2)) | $paje_kb KiB | $level | $((html / 1024)) KiB ($gz_kb KiB gzipped) | $per_event | $write_s s | $load_ms ms | $slice_ms ms | $serve_ms ms | $timeline_ms ms |"$'\n'
  rm -f "$trace" "$tmp/r$events.html"
done

cat >"$out" <<EOF2
# tally view benchmark

Traces: \`bench/progs/paje_gen EVENTS HOSTS 2\` (SimGrid-like: hosts with speed and core_count,
links with bandwidth, two categories, set/add/sub events). Machine: $(nproc) cores (shared by
other jobs), $(uname -r), $(chromium --version 2>/dev/null | head -1). Page load: median of
$LOADS runs (one run for 10^7 events); the other columns are means.

| events | hosts + links | Paje file | report.html embeds | report.html | bytes/event | tally view -o | Chromium load + first slice + timeline | page: one slice (compute + draw) | --serve: GET /slice (host level) | --serve: GET /timeline (root, 400 steps) |
|---|---|---|---|---|---|---|---|---|---|---|
${rows}
report.html embeds, per resource, the breakpoints of capacity and of each category's usage
(times as delta-encoded integer ticks, values with 7 significant digits) while the trace holds
at most 500000 of them; beyond, a coarse level: each signal's averages over equal steps
(as many as keep about 1.2 million values in all, 100 to 2000 steps), which bounds the file
by the number of steps rather than of events. The page says when it shows a coarse level
and snaps slices to whole steps, where its numbers stay exact. \`tally view --serve\`
embeds nothing and computes any slice and the timeline at full resolution in the C core.
See docs/view.md.
EOF2
cat "$out"
