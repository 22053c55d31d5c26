#!/usr/bin/env bash
# What level-1 monitoring of many tasks costs the machine, all of tally's
# processes together: TASKS `tally run --level 1 --agent --app ...` (each
# task a sleep) with their agent (which also guards their trees: no guardian
# processes; any that appear are counted), then, in the same run,
# TASKS `resource_monitor -i 1` (cctools) on the same tasks. For each: total
# CPU of every monitoring process (agent + tally runs + guardians; the
# resource_monitor processes) over SECONDS, in % of one core, and the sum of
# their PSS (/proc/PID/smaps_rollup: memory shared between the copies is
# counted once; CPU from /proc/PID/schedstat, in ns). Targets for tally (issue 18): <= 1 % of a core, <= 50 MB.
# Medians of RUNS measurements. Results under their own heading in
# bench/results/multihost.md (the rest of that file is left as it is).
# Environment: BENCH_TASKS (200), BENCH_SECONDS (30), BENCH_RUNS (3).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/median.sh
make -s build/tally >/dev/null
TALLY=$PWD/build/tally
TASKS=${BENCH_TASKS:-200} SECS=${BENCH_SECONDS:-30} RUNS=${BENCH_RUNS:-3}
W=$(mktemp -d /tmp/tally-cost-bench.XXXXXX)
S=$W/run/agent.sock
AGENT= MONITORS=
cleanup() {
  for p in $MONITORS; do kill "$p" 2>/dev/null || true; done
  [ -n "$AGENT" ] && kill "$AGENT" 2>/dev/null
  wait 2>/dev/null || true
  rm -rf "$W"
}
trap cleanup EXIT
# files PATTERN PIDS...: /proc/PID/PATTERN for each pid, as words (globs
# expand; a gone process's path stays unmatched and is skipped by cat)
files() { local pattern=$1; shift; printf "/proc/%s/$pattern " "$@"; }
# cpu_ns PIDS...: CPU time of all their threads, summed, in ns: the first
# field of /proc/PID/task/TID/schedstat, exact (utime/stime are sampled in
# 10 ms ticks, too coarse for processes that run 50 us a second). One cat
# and one awk for all: the measuring must not cost more than what it measures.
cpu_ns() { cat $(files 'task/*/schedstat' "$@") 2>/dev/null | awk '{ s += $1 } END { printf "%.0f\n", s }'; }
# pss_mb PIDS...: the sum of their PSS in MB
pss_mb() { [ $# -gt 0 ] || { echo 0.0; return; }; cat $(files smaps_rollup "$@") 2>/dev/null | awk '/^Pss:/ { s += $2 } END { printf "%.1f\n", s / 1024 }'; }
# measure PIDS...: prints "CPU% PSS_MB" medians over RUNS windows of SECS
measure() {
  local cpu=() pss=() c0 c1 t0 t1
  for _ in $(seq "$RUNS"); do
    c0=$(cpu_ns "$@") t0=$(date +%s.%N)
    sleep "$SECS"
    c1=$(cpu_ns "$@") t1=$(date +%s.%N)
    cpu+=("$(echo "($c1 - $c0) / 1000000000 / ($t1 - $t0) * 100" | bc -l)")
    pss+=("$(pss_mb "$@")")
  done
  echo "$(printf '%s\n' "${cpu[@]}" | median) $(printf '%s\n' "${pss[@]}" | median)"
}

# ---- tally: the agent, TASKS tally runs, their guardians ----
mkdir -p "$W/run" && chmod 700 "$W/run"
"$TALLY" agent --foreground --socket "$S" --no-archive 2>"$W/agent.err" &
AGENT=$!
for _ in $(seq 200); do "$TALLY" agent --socket "$S" status >/dev/null 2>&1 && break; sleep 0.05; done
for i in $(seq "$TASKS"); do
  TALLY_COST_BENCH=$W "$TALLY" run --level 1 --agent="$S" --app "cost$i" -o "$W/t$i" -- sleep 3600 2>>"$W/runs.err" &
  MONITORS="$MONITORS $!"
done
# Started (on a loaded machine 200 starts take a while): every task followed.
followed() { "$TALLY" request --agent "$S" ":node_get_info([n_$(hostname)])" 2>/dev/null | jq -r 'select(.service) | .result.processes'; }
for _ in $(seq 240); do [ "$(followed)" = "$TASKS" ] && break; sleep 0.5; done
sleep 2
# Our runs' guardians (not those of other tally runs on the machine): they
# inherited the runs' environment, marked with this bench's directory.
GUARDS=$(for p in $(pgrep -x tally-guardian); do
  grep -qz "^TALLY_COST_BENCH=$W\$" "/proc/$p/environ" 2>/dev/null && echo "$p"; done | tr '\n' ' ')
FOLLOWED=$(followed)
read -r T_CPU T_PSS < <(measure $AGENT $MONITORS $GUARDS)
A_CPU=$(measure $AGENT | cut -d' ' -f1)
A_PSS=$(pss_mb $AGENT) R_RUNS_PSS=$(pss_mb $MONITORS) G_PSS=$(pss_mb $GUARDS)
ANON_KB=$(awk '/^Anonymous:/ { print $2 }' "/proc/${MONITORS##* }/smaps_rollup")
NG=$(echo $GUARDS | wc -w)
PROCS=$(ls /proc | grep -c '^[0-9]')
for p in $MONITORS; do kill "$p" 2>/dev/null || true; done
wait $MONITORS 2>/dev/null || true
MONITORS=

# ---- resource_monitor -i 1 on the same tasks ----
RM=
if command -v resource_monitor >/dev/null; then
  cd "$W" # resource_monitor leaves its helper library in the working directory
  for i in $(seq "$TASKS"); do
    resource_monitor -i 1 -O "$W/rm$i" -- sleep 3600 >/dev/null 2>&1 &
    MONITORS="$MONITORS $!"
  done
  for _ in $(seq 240); do [ "$(pgrep -P "$(echo $MONITORS | tr ' ' ,)" | wc -l)" -ge "$TASKS" ] && break; sleep 0.5; done
  sleep 2
  read -r R_CPU R_PSS < <(measure $MONITORS)
  RM=1
  for p in $MONITORS; do kill "$p" 2>/dev/null || true; done
  wait $MONITORS 2>/dev/null || true
  MONITORS=
  cd - >/dev/null
fi

section() {
  echo "<!-- agent_cost.bench.sh begin -->"
  echo "## $TASKS tasks at level 1: what following them costs (bench/agent_cost.bench.sh)"
  echo
  echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), $PROCS processes on the machine."
  echo "Medians of $RUNS windows of $SECS s. Command: \`BENCH_TASKS=$TASKS BENCH_SECONDS=$SECS BENCH_RUNS=$RUNS bench/agent_cost.bench.sh\`"
  echo "Each task is a \`sleep\`; the tasks themselves are not counted. PSS from /proc/PID/smaps_rollup."
  echo
  echo "| setup | processes counted | CPU, % of one core | PSS total | target |"
  echo "|---|---|---|---|---|"
  printf '| %d `tally run --level 1 --agent` + the agent (%s processes followed) + guardians | %d | %.3f %% | %.1f MB | <= 1 %%, <= 50 MB |\n' \
    "$TASKS" "$FOLLOWED" $((1 + TASKS + NG)) "$T_CPU" "$T_PSS"
  printf '| of which the agent | 1 | %.3f %% | %.1f MB | |\n' "$A_CPU" "$A_PSS"
  printf '| of which the tally runs | %d | | %.1f MB | |\n' "$TASKS" "$R_RUNS_PSS"
  printf '| of which the guardians | %d | | %.1f MB | |\n' "$NG" "$G_PSS"
  if [ -n "$RM" ]; then
    printf '| %d `resource_monitor -i 1` (cctools) | %d | %.3f %% | %.1f MB | |\n' "$TASKS" "$TASKS" "$R_CPU" "$R_PSS"
  fi
  echo
  echo "A waiting tally run's anonymous memory: $ANON_KB kB (its stack, heap and the relocated data"
  echo "of libc and jansson: SQLite, libpq, libnats and libmicrohttpd are loaded only by the processes"
  echo "that use them, see docs/architecture.md). The agent that follows a level-1 tree also ends it"
  echo "if its tally run is killed, so a waiting run has no guardian process (docs/engine-events.md)."
  echo "<!-- agent_cost.bench.sh end -->"
}
mkdir -p bench/results
out=bench/results/multihost.md
[ -f "$out" ] || printf '# multi-host and many-task benchmarks\n\n' >"$out"
section >"$W/section.md"
awk -v f="$W/section.md" '
  /<!-- agent_cost.bench.sh begin -->/ { while ((getline l < f) > 0) print l; skip = 1; done = 1; next }
  /<!-- agent_cost.bench.sh end -->/ { skip = 0; next }
  !skip { print }
  END { if (!done) { print ""; while ((getline l < f) > 0) print l } }' "$out" >"$W/new.md"
cp "$W/new.md" "$out"
cat "$W/section.md"
