#!/usr/bin/env bash
# Detection figures of 'tally contract' on the seed 003 §6.1 scenarios, run
# REPS times each (default 3) with the master/worker fixture:
#   fewer   workers 6..11 get jobs with half the FLOPs (intrinsic; injected from the start)
#   load    a SCHED_FIFO spinner on worker 3's CPU from the 2nd period for LOAD_S seconds (execution)
#   clean   a rerun (both spaces)
# Per scenario and dimension: true-positive rate (cells process x period that
# should be violated and are: level >= threshold) and false-positive rate
# (cells that should not be and are), for the contract (fuzzy levels; the load
# and clean runs checked with --live-factors) and, beside it, a plain rule per
# metric: |value - baseline mean of that process| > 3 baseline standard
# deviations of that process. Latency: from the injected change to the first
# reported violation on the right process. Cost: CPU time of 'check' per
# sample (release build, CPU time: includes reading JSON and writing a JSON
# line per level), on a file of all runs' samples repeated to >= 20000 samples.
# Writes bench/results/contract.md. REPS, SECONDS_RUN, LOAD_S override.
set -euo pipefail
cd "$(dirname "$0")/.."
TALLY=${TALLY:-$PWD/build/tally}
MW=$PWD/build/progs/contract_master_worker
LOAD=$PWD/build/progs/contract_cpu_load
REPS=${REPS:-3}
SECONDS_RUN=${SECONDS_RUN:-8}
LOAD_S=${LOAD_S:-4}
THR=0.5
out=bench/results/contract.md
tmp=$(mktemp -d /dev/shm/tally-contract-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
[ -x "$TALLY" ] || make -s build/tally
[ -x "$MW" ] && [ -x "$LOAD" ] || make -s build/progs/contract_master_worker build/progs/contract_cpu_load
last=$(( $(nproc) - 1 ))
run() { "$MW" --pin 3 "$@"; }

run --out "$tmp/base1.jsonl" --seconds 5
run --out "$tmp/base2.jsonl" --seconds 5
"$TALLY" contract build "$tmp/base1.jsonl" "$tmp/base2.jsonl" --name master_worker -o "$tmp/mw.contract" 2>/dev/null
"$TALLY" contract samples "$tmp/base1.jsonl" "$tmp/base2.jsonl" >"$tmp/base.samples"

# scores: one line per cell "scenario rule space dimension truth flagged latency_candidate"
: >"$tmp/cells"
: >"$tmp/latency"
for rep in $(seq "$REPS"); do
  # fewer
  start=$(date +%s.%N)
  run --out "$tmp/fewer$rep.jsonl" --seconds "$SECONDS_RUN" --fewer 6-11
  "$TALLY" contract check "$tmp/mw.contract" "$tmp/fewer$rep.jsonl" >"$tmp/fewer$rep.out" || true
  "$TALLY" contract samples "$tmp/fewer$rep.jsonl" >"$tmp/fewer$rep.samples"
  jq -r --arg thr "$THR" 'select(.space == "intrinsic" and .dimension != "overall")
      | "fewer contract intrinsic \(.dimension) \(if (.dimension == "compute" and (.process | test("^w([6-9]|1[01])$"))) then 1 else 0 end) \(if .level >= ($thr|tonumber) then 1 else 0 end)"' \
      "$tmp/fewer$rep.out" >>"$tmp/cells"
  jq -r --arg s "$start" 'select(.space == "intrinsic" and .dimension == "compute" and .level >= 0.5 and (.process | test("^w([6-9]|1[01])$")))
      | "fewer \(.process) \(.t - ($s|tonumber)) \(.period)"' "$tmp/fewer$rep.out" |
    sort -k2,2 -k3,3n | awk '!seen[$2]++ { print "fewer", $3, $4 }' >>"$tmp/latency"

  # load
  rm -f "$tmp/load$rep.jsonl"
  run --out "$tmp/load$rep.jsonl" --seconds "$SECONDS_RUN" &
  mw=$!
  for _ in $(seq 400); do [ "$(grep -c . "$tmp/load$rep.jsonl" 2>/dev/null || echo 0)" -ge 26 ] && break; sleep 0.05; done
  ls0=$(date +%s.%N)
  taskset -c "$last" "$LOAD" "$LOAD_S" --fifo
  ls1=$(date +%s.%N)
  wait $mw
  "$TALLY" contract check --live-factors "$tmp/mw.contract" "$tmp/load$rep.jsonl" >"$tmp/load$rep.out" || true
  "$TALLY" contract samples "$tmp/load$rep.jsonl" >"$tmp/load$rep.samples"
  echo "$ls0 $ls1" >"$tmp/load$rep.window"
  # cells entirely inside or entirely outside the load (straddling periods not scored)
  jq -r --arg a "$ls0" --arg b "$ls1" --arg thr "$THR" 'select(.space == "execution" and .dimension != "overall")
      | ((.t - .period) >= ($a|tonumber) and .t <= ($b|tonumber)) as $in
      | (.t <= ($a|tonumber) or (.t - .period) >= ($b|tonumber)) as $out
      | select($in or $out)
      | "load contract execution \(.dimension) \(if ($in and .process == "w3") then 1 else 0 end) \(if .level >= ($thr|tonumber) then 1 else 0 end)"' \
      "$tmp/load$rep.out" >>"$tmp/cells"
  jq -r --arg a "$ls0" 'select(.space == "execution" and .dimension == "compute" and .process == "w3" and .level >= 0.5 and .t > ($a|tonumber))
      | "load \(.t - ($a|tonumber)) \(.period)"' "$tmp/load$rep.out" | head -1 >>"$tmp/latency"

  # clean
  run --out "$tmp/clean$rep.jsonl" --seconds "$SECONDS_RUN"
  "$TALLY" contract check --live-factors "$tmp/mw.contract" "$tmp/clean$rep.jsonl" >"$tmp/clean$rep.out" || true
  "$TALLY" contract samples "$tmp/clean$rep.jsonl" >"$tmp/clean$rep.samples"
  jq -r --arg thr "$THR" 'select(.dimension != "overall")
      | "clean contract \(.space) \(.dimension) 0 \(if .level >= ($thr|tonumber) then 1 else 0 end)"' "$tmp/clean$rep.out" >>"$tmp/cells"
done

# the plain rule on the same samples: per process and metric, 3 baseline standard deviations
cat > "$tmp/plain.jq" <<'JQ'
def dims: {"flops_per_job": ["intrinsic","compute"], "messages_per_byte": ["intrinsic","communicate"],
           "flops_per_s": ["execution","compute"], "bytes_per_s": ["execution","communicate"],
           "iterations_per_s": ["execution","progress"], "cpu_share": ["execution","cpu"]};
($base | map(select(.process)) | group_by(.process)
  | map({key: .[0].process, value: (. as $rows | dims | keys | map(. as $k | {key: $k, value:
      ([$rows[] | .metrics[$k] // empty] as $v | ($v | add / length) as $m
       | {m: $m, s: (($v | map((. - $m) * (. - $m)) | add / length) | sqrt)})}) | from_entries)})
  | from_entries) as $stats
| .[] | . as $row | dims | to_entries[] | .key as $metric | .value as $sd
| ($row.metrics[$metric] // null) as $x | select($x != null and $stats[$row.process] != null)
| $stats[$row.process][$metric] as $st
| {process: $row.process, t: $row.t, period: $row.period, space: $sd[0], dimension: $sd[1],
   flagged: (if (($x - $st.m) | fabs) > 3 * $st.s then 1 else 0 end)}
JQ
base_json=$(jq -s . "$tmp/base.samples")
for rep in $(seq "$REPS"); do
  jq -s --argjson base "$base_json" -f "$tmp/plain.jq" "$tmp/fewer$rep.samples" |
    jq -r 'select(.space == "intrinsic")
      | "fewer plain intrinsic \(.dimension) \(if (.dimension == "compute" and (.process | test("^w([6-9]|1[01])$"))) then 1 else 0 end) \(.flagged)"' >>"$tmp/cells"
  read -r a b <"$tmp/load$rep.window"
  jq -s --argjson base "$base_json" -f "$tmp/plain.jq" "$tmp/load$rep.samples" |
    jq -r --arg a "$a" --arg b "$b" 'select(.space == "execution")
      | ((.t - .period) >= ($a|tonumber) and .t <= ($b|tonumber)) as $in
      | (.t <= ($a|tonumber) or (.t - .period) >= ($b|tonumber)) as $out
      | select($in or $out)
      | "load plain execution \(.dimension) \(if ($in and .process == "w3") then 1 else 0 end) \(.flagged)"' >>"$tmp/cells"
  jq -s --argjson base "$base_json" -f "$tmp/plain.jq" "$tmp/clean$rep.samples" |
    jq -r '"clean plain \(.space) \(.dimension) 0 \(.flagged)"' >>"$tmp/cells"
done

# cost per sample
# every run file, repeated with renamed processes, so each copy is a process of its own
n_one=0
for f in "$tmp"/fewer*.jsonl "$tmp"/load*.jsonl "$tmp"/clean*.jsonl; do
  n_one=$((n_one + $("$TALLY" contract samples "$f" | wc -l)))
done
copies=$(( 20000 / (n_one > 0 ? n_one : 1) + 1 ))
: >"$tmp/big.jsonl"
i=0
for f in "$tmp"/fewer*.jsonl "$tmp"/load*.jsonl "$tmp"/clean*.jsonl; do
  i=$((i + 1))
  for c in $(seq "$copies"); do sed "s/\"process\":\"\([^\"]*\)\"/\"process\":\"\1-$i-$c\"/" "$f" >>"$tmp/big.jsonl"; done
done
n_big=$("$TALLY" contract samples "$tmp/big.jsonl" | wc -l)
# CPU seconds (user + sys) of the best of 3: wall time on a shared machine measures the others
cpu_best() {
  local best=""
  for _ in 1 2 3; do
    /usr/bin/time -o "$tmp/time" -f '%U %S' "$@" >/dev/null 2>&1 || true
    local t; t=$(awk 'END { print $1 + $2 }' "$tmp/time")
    if [ -z "$best" ] || [ "$(echo "$t < $best" | bc)" = 1 ]; then best=$t; fi
  done
  echo "$best"
}
t_json=$(cpu_best "$TALLY" contract check "$tmp/mw.contract" "$tmp/big.jsonl")
t_text=$(cpu_best "$TALLY" contract check --format text "$tmp/mw.contract" "$tmp/big.jsonl")
t_read=$(cpu_best "$TALLY" contract samples "$tmp/big.jsonl")
us_check=$(echo "scale=1; $t_json * 1000000 / $n_big" | bc)
us_text=$(echo "scale=1; $t_text * 1000000 / $n_big" | bc)
us_read=$(echo "scale=1; $t_read * 1000000 / $n_big" | bc)

{
  echo "# tally contract: detection on the seed 003 §6.1 scenarios"
  echo
  echo "Generated by \`bench/contract.bench.sh\` on $(date -u +%Y-%m-%d) ($(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg));"
  echo "REPS=$REPS runs per scenario of $SECONDS_RUN s, 1 s periods, 12 workers + master, load $LOAD_S s;"
  echo "threshold $THR. A cell is one process x dimension x period. Rates: flagged / cells."
  echo
  echo "| scenario | space | dimension | rule | true positives | TPR | false positives | FPR |"
  echo "|---|---|---|---|---|---|---|---|"
  awk '{ k = $1 " | " $3 " | " $4 " | " $2; tp[k] += ($5 == 1 && $6 == 1); p[k] += ($5 == 1); fp[k] += ($5 == 0 && $6 == 1); n[k] += ($5 == 0) }
       END { for (k in n) printf "| %s | %d/%d | %s | %d/%d | %.3f |\n", k, tp[k], p[k], (p[k] ? sprintf("%.2f", tp[k] / p[k]) : "-"), fp[k], n[k], (n[k] ? fp[k] / n[k] : 0) }' \
      "$tmp/cells" | sort
  echo
  echo "Latency from the injected change to the first violation on the right process"
  echo "(fewer: from the run's start, per worker 6-11; load: from the spinners' start, worker 3):"
  echo
  echo "| scenario | detections | median latency (s) | max latency (s) | within two periods |"
  echo "|---|---|---|---|---|"
  for sc in fewer load; do
    awk -v sc="$sc" '$1 == sc' "$tmp/latency" | sort -k2,2g |
      awk -v sc="$sc" '{ n++; v[n] = $2; if ($2 <= 2 * $3 + 0.05) ok++ }
      END { if (!n) { printf "| %s | 0 | - | - | - |\n", sc; exit }
            printf "| %s | %d | %.2f | %.2f | %d/%d |\n", sc, n, v[int((n + 1) / 2)], v[n], ok, n }'
  done
  echo
  echo "Evaluation cost, CPU time (user + sys, best of 3) per sample over $n_big samples (each: 2 spaces,"
  echo "6 dimensions, 6 fuzzy evaluations, 8 levels):"
  echo
  echo "| what | µs per sample |"
  echo "|---|---|"
  echo "| check, JSON line per level (default) | $us_check |"
  echo "| check --format text (levels computed, explanations of violations printed) | $us_text |"
  echo "| reading + deriving the samples alone ('tally contract samples', which also writes them) | $us_read |"
  if [ "$REPS" -lt 10 ] || awk -v l="$(cut -d' ' -f1 /proc/loadavg)" -v n="$(nproc)" 'BEGIN { exit !(l > n / 2) }'; then
    echo
    echo "Fewer than 10 runs per scenario, or a load above half the cores: rates and timings"
    echo "are not final figures; rerun with REPS=10 on a quiet machine."
  fi
} >"$out"
cat "$out"
