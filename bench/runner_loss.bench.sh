#!/usr/bin/env bash
# How long the agent is unresponsive when many `tally run --level 1 --agent`
# are killed together (SIGKILL, all at once): the agent then ends each of
# their trees itself (stop, scan, kill), and its loop waits meanwhile.
# TASKS runs (each task a sleep), then all of them killed; the figure is how
# long the first `tally agent status` sent right after the kill takes to be
# answered, median of RUNS. Also checked: no sleep of the tasks is left.
# Results in bench/results/runner_loss.md.
# Environment: BENCH_TASKS (200), BENCH_RUNS (3).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/median.sh
make -s build/tally >/dev/null
TALLY=$PWD/build/tally
TASKS=${BENCH_TASKS:-200} RUNS=${BENCH_RUNS:-3}
W=$(mktemp -d /tmp/tally-loss-bench.XXXXXX)
chmod 700 "$W"
S=$W/agent.sock
AGENT=
cleanup() {
  [ -n "$AGENT" ] && kill "$AGENT" 2>/dev/null
  wait 2>/dev/null || true
  rm -rf "$W"
}
trap cleanup EXIT
"$TALLY" agent --foreground --socket "$S" --no-archive 2>"$W/agent.err" &
AGENT=$!
for _ in $(seq 200); do "$TALLY" agent status --socket "$S" >/dev/null 2>&1 && break; sleep 0.05; done
waits=() left=0
for run in $(seq "$RUNS"); do
  runs=()
  for i in $(seq "$TASKS"); do
    "$TALLY" run --level 1 --agent="$S" --app "loss$i" -o /dev/null -- sleep "3000$$" 2>/dev/null &
    runs+=($!)
  done
  for _ in $(seq 600); do [ "$(pgrep -c -f "^sleep 3000$$\$")" -ge "$TASKS" ] && break; sleep 0.1; done
  sleep 2 # the agent's scans (every second) have seen every tree
  { kill -KILL "${runs[@]}"; } 2>/dev/null
  t0=$(date +%s.%N)
  "$TALLY" agent status --socket "$S" >/dev/null
  t1=$(date +%s.%N)
  waits+=("$(echo "$t1 - $t0" | bc -l)")
  for _ in $(seq 100); do pgrep -f "^sleep 3000$$\$" >/dev/null || break; sleep 0.1; done
  left=$((left + $(pgrep -c -f "^sleep 3000$$\$" || true)))
  { wait "${runs[@]}"; } 2>/dev/null || true
done
med=$(printf '%s\n' "${waits[@]}" | median)
out=bench/results/runner_loss.md
{
  echo "# The agent when many level-1 tally runs are killed together"
  echo
  echo "bench/runner_loss.bench.sh: $TASKS \`tally run --level 1 --agent\` (each task a sleep)"
  echo "killed with SIGKILL at once; the agent ends their trees. Time until the"
  echo "agent answers \`tally agent status\` sent right after the kill, median of $RUNS runs;"
  echo "$(nproc) CPUs, $(date -u +%Y-%m-%d)."
  echo
  echo "| tasks | agent unresponsive (s) | runs (s) | task processes left |"
  echo "|---|---|---|---|"
  printf '| %s | %.3f | %s | %s |\n' "$TASKS" "$med" "$(printf '%.3f ' "${waits[@]}")" "$left"
} >"$out"
cat "$out"
