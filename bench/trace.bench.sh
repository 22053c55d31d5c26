#!/usr/bin/env bash
# tally trace against pj_dump (PajeNG) on one generated trace of >= 10 million
# events (bench/progs/paje_gen.c, SimGrid-like: hosts and links, two
# categories, set/add/sub variable events):
#   read + index   tally trace stats (reads, indexes every signal, checks eq. 1)
#                  vs pj_dump -q (reads and simulates, prints nothing) and
#                  vs pj_dump > /dev/null (its normal use). Target: >= 3x faster.
#   one slice      aggregation of a slice (a tenth of the trace) after indexing,
#                  mean of 100 slices, at root and at host level. Target: < 50 ms.
#   report.html    size of 'tally view' output for the trace, when tally view is built.
# Writes bench/results/trace.md. EVENTS=... overrides the size (default 10M).
set -euo pipefail
cd "$(dirname "$0")/.."
TALLY=${TALLY:-$PWD/build/tally}
GEN=$PWD/build/bench/paje_gen
EVENTS=${EVENTS:-10000000}
HOSTS=${HOSTS:-2000}
out=bench/results/trace.md
tmp=$(mktemp -d /tmp/tally-trace-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
[ -x "$GEN" ] || make -s build/bench/paje_gen
[ -x "$TALLY" ] || make -s build/tally

trace=$tmp/bench.paje
"$GEN" "$EVENTS" "$HOSTS" 2 >"$trace"
size_mb=$(du -m "$trace" | cut -f1)

# run_timed LABEL CMD...: best of N runs; prints "wall user+sys maxrss_kb"
run_timed() {
  local n=$1; shift
  : >"$tmp/times"
  for _ in $(seq "$n"); do
    /usr/bin/time -o "$tmp/time" -f '%e %U %S %M' "$@" >/dev/null 2>&1
    tail -1 "$tmp/time" >>"$tmp/times"
  done
  awk 'NF == 4 && (b == "" || $1 < bw) { bw = $1; b = $1 " " $2 + $3 " " $4 } END { print b }' "$tmp/times"
}

read -r t_wall t_cpu t_rss <<<"$(run_timed 3 "$TALLY" trace stats "$trace" --queries 1)"
read -r q_wall q_cpu q_rss <<<"$(run_timed 1 pj_dump -q "$trace")"
read -r d_wall d_cpu d_rss <<<"$(run_timed 1 sh -c "pj_dump '$trace' >/dev/null")"
stats=$("$TALLY" trace stats "$trace" --queries 100 --format json)
events=$(echo "$stats" | jq .events)
query_root_ms=$(echo "$stats" | jq '.query_seconds * 1000 * 1000 | round / 1000')
index_s=$(echo "$stats" | jq '.read_index_seconds * 1000 | round / 1000')
query_host_ms=$("$TALLY" trace stats "$trace" --queries 100 --level host --format json | jq '.query_seconds * 1000 * 1000 | round / 1000')

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a / b }'; }
met() { awk -v v="$1" -v op="$2" -v t="$3" 'BEGIN { ok = (op == ">=") ? v >= t : v < t; print ok ? "met" : "NOT met" }'; }
speed_q=$(ratio "$q_wall" "$t_wall"); speed_q_cpu=$(ratio "$q_cpu" "$t_cpu")
speed_d=$(ratio "$d_wall" "$t_wall"); speed_d_cpu=$(ratio "$d_cpu" "$t_cpu")

# report.html: VIEW_TALLY may name a tally built with 'tally view' (default: $TALLY)
VIEW_TALLY=${VIEW_TALLY:-$TALLY}
html_row="| report.html size (tally view) | not measured: tally view not built in this tree | — | — |"
if "$VIEW_TALLY" view --help >/dev/null 2>&1; then
  if /usr/bin/time -o "$tmp/vtime" -f '%e' "$VIEW_TALLY" view "$trace" -o "$tmp/report.html" >/dev/null 2>"$tmp/view.err"; then
    html_row="| report.html size (tally view of this trace, written in $(tail -1 "$tmp/vtime") s) | $(du -k "$tmp/report.html" | cut -f1) KiB | — | — |"
  else
    html_row="| report.html size (tally view) | tally view failed on this trace: $(head -c 200 "$tmp/view.err" | tr '\n|' '  ') | — | — |"
  fi
fi

cat >"$out" <<EOF2
# tally trace benchmark

Trace: \`bench/progs/paje_gen $EVENTS $HOSTS 2\` — $events Paje events, ${size_mb} MB,
$HOSTS hosts and $((HOSTS / 2)) links, two categories. Machine: $(nproc) cores (shared), $(uname -r).
Times are wall-clock seconds, best of 3 for tally, one run for pj_dump; CPU = user + sys.

| measure | tally | pj_dump | speed-up | target |
|---|---|---|---|---|
| read + index, wall (vs \`pj_dump -q\`, no output) | ${t_wall} s | ${q_wall} s | ${speed_q}x | >= 3x: $(met "$speed_q" ">=" 3) |
| read + index, CPU (vs \`pj_dump -q\`) | ${t_cpu} s | ${q_cpu} s | ${speed_q_cpu}x | |
| read + index, wall (vs \`pj_dump > /dev/null\`) | ${t_wall} s | ${d_wall} s | ${speed_d}x | >= 3x: $(met "$speed_d" ">=" 3) |
| peak memory | $((t_rss / 1024)) MiB | $((q_rss / 1024)) MiB (-q) | | |
| one slice after indexing, level root (mean of 100) | ${query_root_ms} ms | — | — | < 50 ms: $(met "$query_root_ms" "<" 50) |
| one slice after indexing, level host (mean of 100) | ${query_host_ms} ms | — | — | < 50 ms: $(met "$query_host_ms" "<" 50) |
$html_row

tally's own read+index timer (inside the process): ${index_s} s.
EOF2
cat "$out"
