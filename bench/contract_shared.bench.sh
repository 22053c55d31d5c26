#!/usr/bin/env bash
# Contracts on a shared machine (issue 22 item 18): how high do the levels of
# a clean rerun go when the host is merely busy, and does a real deviation
# still stand out? The unpaced master/worker fixture (8 ranks: master + 7
# workers, no simulated latency, so every rank wants a CPU) is recorded twice
# with no busy loops (the baseline → 'tally contract build'); then, with LOAD
# extra busy loops (sh spinning, ordinary priority) beside it, REPS clean
# reruns and one run where worker 3 waits SLOW_MS per job (an injected slow
# rank) are checked with 'check --live-factors', without and with each
# period's runnable tasks per core (the 4th field of /proc/loadavg read every
# 0.1 s, as 'contract watch' records it). Per run: the levels at the
# threshold of the other processes, above and below their projection, and
# the slow rank's (median over its periods).
# Writes bench/results/contract_shared.md. Short by design (2 cores shared):
# LOADS ("0 2 4"), REPS (3), SECONDS_RUN (5), SLOW_MS (20) override.
set -euo pipefail
cd "$(dirname "$0")/.."
TALLY=${TALLY:-$PWD/build/tally}
MW=$PWD/build/progs/contract_master_worker
LOADS=${LOADS:-0 2 4} REPS=${REPS:-3} SECONDS_RUN=${SECONDS_RUN:-5} SLOW_MS=${SLOW_MS:-20}
out=${OUT:-bench/results/contract_shared.md}
tmp=$(mktemp -d /dev/shm/tally-contract-shared.XXXXXX)
spinners=()
stop_spinners() { for p in "${spinners[@]}"; do kill "$p" 2>/dev/null; done; wait "${spinners[@]}" 2>/dev/null || true; spinners=(); }
trap 'stop_spinners; rm -rf "$tmp"' EXIT
[ -x "$TALLY" ] || make -s build/tally
[ -x "$MW" ] || make -s build/progs/contract_master_worker
ncpu=$(nproc)
mw() { "$MW" --workers 7 --latency-ms 0 --seconds "$SECONDS_RUN" "$@"; }

# runnable: runs the command while reading the host's runnable tasks every
# 0.1 s ("epoch count" lines in $tmp/rq), as 'tally contract watch' does
runnable() {
  ( while :; do echo "$(date +%s.%N) $(cut -d' ' -f4 /proc/loadavg | cut -d/ -f1)"; sleep 0.1; done ) >"$tmp/rq" &
  local s=$!
  "$@"
  kill $s; wait $s 2>/dev/null || true
}
# with_runnable SAMPLES: the samples (metrics form) with each period's mean
# runnable tasks per core (the reader itself left out), as the watch records
with_runnable() {
  "$TALLY" contract samples "$1" >"$tmp/m.jsonl"
  jq -r '"\(.t) \(.period)"' "$tmp/m.jsonl" | awk -v c="$ncpu" -v rq="$tmp/rq" '
    BEGIN { while ((getline l < rq) > 0) { split(l, f, " "); n++; T[n] = f[1]; R[n] = f[2] } }
    { s = 0; k = 0; for (i = 1; i <= n; i++) if (T[i] > $1 - $2 && T[i] <= $1) { s += R[i]; k++ }
      r = k ? (s / k - 1) / c : -1; if (r < 0) r = 0; printf "%.3f\n", r }' >"$tmp/r.txt"
  paste -d' ' "$tmp/r.txt" "$tmp/m.jsonl" | while read -r r line; do jq -c --argjson r "$r" '. + {runnable_per_core: $r}' <<<"$line"; done
}
# cells FILE: execution cells (process x dimension x period) at the threshold
# of processes other than w3, "above/below" the projection
cells() {
  jq -r 'select(.space == "execution" and .dimension != "overall" and .process != "w3" and .level >= 0.5) | if .value > .expected then "a" else "b" end' "$1" |
    awk '{ c[$1]++ } END { printf "%d / %d\n", c["a"], c["b"] }'
}
w3level() {
  jq -r 'select(.space == "execution" and .dimension == "overall" and .process == "w3") | .level' "$1" | sort -g |
    awk '{ v[NR] = $1 } END { printf "%.2f\n", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

mw --out "$tmp/base1.jsonl"
mw --out "$tmp/base2.jsonl"
"$TALLY" contract build "$tmp/base1.jsonl" "$tmp/base2.jsonl" --name mw_unpaced -o "$tmp/mw.contract" 2>/dev/null

rows=()
for load in $LOADS; do
  for _ in $(seq "$load"); do sh -c 'while :; do :; done' & spinners+=($!); done
  sleep 1
  for rep in $(seq "$REPS") slow; do
    f=$tmp/run.jsonl; rm -f "$f"
    if [ "$rep" = slow ]; then runnable mw --out "$f" --slow "3:$SLOW_MS"; else runnable mw --out "$f"; fi
    rpc=$(awk -v c="$ncpu" '{ print ($2 - 1) / c }' "$tmp/rq" | sort -g | awk '{ v[NR] = $1 } END { printf "%.1f\n", v[int((NR + 1) / 2)] }')
    with_runnable "$f" >"$tmp/run_rq.jsonl"
    "$TALLY" contract check --live-factors "$tmp/mw.contract" "$f" >"$tmp/without" || true
    "$TALLY" contract check --live-factors "$tmp/mw.contract" "$tmp/run_rq.jsonl" >"$tmp/with" || true
    name=$([ "$rep" = slow ] && echo "w3 slowed (${SLOW_MS} ms/job)" || echo "clean #$rep")
    rows+=("| $load | $name | $rpc | $(cells "$tmp/without") | $(cells "$tmp/with") | $(w3level "$tmp/without") | $(w3level "$tmp/with") |")
    echo "${rows[-1]}" >&2
  done
  stop_spinners
done

{
  echo "# Contracts on a shared machine: clean reruns and a slowed rank under load"
  echo
  echo "Produced by \`bench/contract_shared.bench.sh\` ($(date -u +%Y-%m-%d), $ncpu CPUs; other sessions' work ran on"
  echo "the machine too: runnable/core is all the host had, the application's 8 ranks included). Unpaced"
  echo "master/worker (master + 7 workers, no simulated latency), ${SECONDS_RUN} s runs, baseline of two runs, each"
  echo "run checked with \`check --live-factors\` twice: its samples as the fixture wrote them (*without*:"
  echo "no runnable count, tolerances as built) and with each period's runnable tasks per core read every"
  echo "0.1 s from /proc/loadavg, as \`tally contract watch\` records them (*with*). Cells: execution"
  echo "dimension x period of processes other than w3 at the threshold (0.5), above / below the projection."
  echo "w3: median over its periods of its execution overall level."
  echo
  echo "| busy loops | run | runnable / core (median) | cells at threshold without: above / below | with: above / below | w3 without | w3 with |"
  echo "|---|---|---|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
} >"$out"
echo "wrote $out" >&2
