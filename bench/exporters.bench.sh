#!/usr/bin/env bash
# Sampling cost beside the tools people use for host metrics (issue 8): with
# TREES process trees (a shell and two sleeps each) on the machine, the CPU
# time per second of
#   - tally agent following all of them (attached: level-1 followers, one
#     /proc scan per tick, 1 s sampling), per-process values kept;
#   - Prometheus node_exporter with only its processes collector (it reads
#     every /proc/PID/stat at each scrape to count processes and threads by
#     state), scraped every second;
#   - node_exporter with its default collectors plus processes, scraped every
#     second (what sites commonly run).
# PCP's pmdaproc is not measured: the pcp package is not installed by the
# project (its daemon setup needs a system service). CPU is read from
# /proc/PID/stat (utime + stime) over SECONDS seconds, median of RUNS runs.
# Writes bench/results/exporters.md.
set -uo pipefail
cd "$(dirname "$0")/.."
. bench/median.sh
TALLY=${TALLY:-$PWD/build/tally}
TREES=${BENCH_TREES:-200} SECS=${BENCH_SECONDS:-30} RUNS=${BENCH_RUNS:-3}
W=$(mktemp -d /tmp/tally-exporters.XXXXXX)
pids=() trees=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${trees[@]}"; do kill -- -"$p" 2>/dev/null; done
  wait 2>/dev/null; rm -rf "$W"
}
trap cleanup EXIT
hz=$(getconf CLK_TCK)
cpu_of() { awk -v hz="$hz" '{ sub(/.*\) /, ""); split($0, f, " "); print (f[12] + f[13]) / hz }' "/proc/$1/stat"; }
port() { for _ in $(seq 50); do p=$(( 20000 + RANDOM % 30000 )); ! (exec 3<>/dev/tcp/127.0.0.1/$p) 2>/dev/null && { echo $p; return; }; done; }

for i in $(seq "$TREES"); do setsid sh -c 'sleep 3600 & sleep 3600 & wait' & trees+=($!); done
sleep 1

# measure PID SCRAPE_URL: CPU seconds per second of PID over SECS (scraping URL each second when given)
measure() {
  local pid=$1 url=${2:-} t0 c0 c1
  sleep 2
  c0=$(cpu_of "$pid"); t0=$(date +%s.%N)
  for _ in $(seq "$SECS"); do
    [ -n "$url" ] && curl -s -o /dev/null "$url"
    sleep 1
  done
  c1=$(cpu_of "$pid")
  awk -v a="$c0" -v b="$c1" -v t0="$t0" -v t1="$(date +%s.%N)" 'BEGIN { printf "%.5f\n", (b - a) / (t1 - t0) }'
}

agent=() ne_proc=() ne_all=() rss_agent=()
for run in $(seq "$RUNS"); do
  mkdir -m 700 -p "$W/s$run"
  "$TALLY" agent --foreground --no-archive --socket "$W/s$run/agent.sock" 2>>"$W/agent.err" &
  a=$!; pids+=($a)
  for _ in $(seq 200); do "$TALLY" agent --socket "$W/s$run/agent.sock" status >/dev/null 2>&1 && break; sleep 0.05; done
  for p in "${trees[@]}"; do "$TALLY" agent --socket "$W/s$run/agent.sock" attach "$p" --app "t$p" >/dev/null; done
  agent+=("$(measure $a)")
  rss_agent+=("$(awk '/^VmRSS/ { printf "%.1f", $2 / 1024 }' /proc/$a/status)")
  kill $a; wait $a 2>/dev/null

  p=$(port)
  prometheus-node-exporter --web.listen-address=127.0.0.1:$p --collector.disable-defaults --collector.processes \
    >"$W/ne.log" 2>&1 & n=$!; pids+=($n)
  ne_proc+=("$(measure $n "http://127.0.0.1:$p/metrics")")
  kill $n; wait $n 2>/dev/null

  p=$(port)
  prometheus-node-exporter --web.listen-address=127.0.0.1:$p --collector.processes >"$W/ne2.log" 2>&1 & n=$!; pids+=($n)
  ne_all+=("$(measure $n "http://127.0.0.1:$p/metrics")")
  kill $n; wait $n 2>/dev/null
done

A=$(printf '%s\n' "${agent[@]}" | median) P=$(printf '%s\n' "${ne_proc[@]}" | median) D=$(printf '%s\n' "${ne_all[@]}" | median)
R=$(printf '%s\n' "${rss_agent[@]}" | median)
pct() { awk -v v="$1" 'BEGIN { printf "%.2f%%", v * 100 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }
{
  echo "# Sampling cost beside node_exporter"
  echo
  echo "\`make bench BENCH_ONLY=exporters\` on $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)."
  echo "$TREES trees (a shell and two sleeps each, $((TREES * 3)) processes) on the machine; 1 s sampling or scraping;"
  echo "CPU of the monitoring process over ${SECS} s, median of $RUNS runs."
  echo
  echo "| monitor | what it keeps | CPU (share of one core) | vs tally agent |"
  echo "|---|---|---:|---:|"
  echo "| tally agent, $TREES trees attached | every process's values and series, per tree | $(pct "$A") | 1.00 |"
  echo "| node_exporter, processes collector only | machine-wide counts by state | $(pct "$P") | $(ratio "$P" "$A") |"
  echo "| node_exporter, defaults + processes | host metrics, no per-process data | $(pct "$D") | $(ratio "$D" "$A") |"
  echo
  echo "tally agent resident memory while following them: $R MB (median). PCP pmdaproc: not measured (see the script)."
} > bench/results/exporters.md
cat bench/results/exporters.md
