#!/usr/bin/env bash
# tally as resource_monitor against cctools' resource_monitor inside
# Makeflow: the wall time of a whole small workflow (BENCH_RULES rules, each a
# short sort of a few MB, two at a time) run locally with no monitor, with
# --monitor-exe=resource_monitor, and with --monitor-exe=build/resource_monitor
# (tally), interleaved, BENCH_RUNS times; medians and ratios to the run
# without monitor, and the median memory each monitor reports for the rules.
# Writes bench/results/rmcompat.md.
#
#   BENCH_RUNS=N    workflow runs per configuration (default 5, at least 3)
#   BENCH_RULES=N   rules in the workflow (default 12)
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/median.sh
ROOT=$PWD
RUNS=${BENCH_RUNS:-5}
RULES=${BENCH_RULES:-12}
RESULTS=$ROOT/bench/results
if [ "$RUNS" -lt 3 ] 2>/dev/null; then
  echo "rmcompat bench: BENCH_RUNS must be at least 3 (medians)" >&2
  exit 2
fi
for tool in makeflow resource_monitor jq; do
  command -v "$tool" >/dev/null || { echo "rmcompat bench: $tool not found (make deps)" >&2; exit 2; }
done
make -s --no-print-directory build/tally build/resource_monitor
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
WORK=$(mktemp -d "${TMPDIR:-/tmp}/tally-rmcompat-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$RESULTS"

write_workflow() {
  {
    echo "CATEGORY=sort"
    for i in $(seq 1 "$RULES"); do
      printf 'out%d.txt:\n\tseq %d 400000 | sort -rn > out%d.txt\n' "$i" "$i" "$i"
    done
  } >"$1"
}

# run CONFIG ROUND: prints the workflow's wall time in seconds
run() {
  local dir=$WORK/$1-$2 monitor=()
  mkdir -p "$dir" && write_workflow "$dir/Makeflow"
  case $1 in
  rm) monitor=(--monitor=mon --monitor-exe="$(command -v resource_monitor)") ;;
  tally) monitor=(--monitor=mon --monitor-exe="$ROOT/build/resource_monitor") ;;
  esac
  local start end
  start=$(date +%s.%N)
  (cd "$dir" && makeflow -j 2 "${monitor[@]}" Makeflow >out.log 2>&1) || {
    echo "rmcompat bench: makeflow failed with $1 (see $dir/out.log)" >&2; tail -5 "$dir/out.log" >&2; exit 1; }
  end=$(date +%s.%N)
  awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f\n", b - a }'
}


declare -A times
for round in $(seq 1 "$RUNS"); do
  for config in none rm tally; do
    times[$config]+="$(run "$config" "$round") "
  done
done
declare -A med mem
for config in none rm tally; do
  med[$config]=$(printf '%s\n' ${times[$config]} | median)
done
for config in rm tally; do
  mem[$config]=$(cat "$WORK"/$config-*/mon/*.summary | jq -s -r '.[].memory[0]' | median | xargs printf '%.1f')
done
ratio() { awk -v a="$1" -v b="${med[none]}" 'BEGIN { printf "%.2f", a / b }'; }
{
  echo "# tally as resource_monitor in Makeflow"
  echo
  echo "Workflow: $RULES rules \`seq i 400000 | sort -rn\`, \`makeflow -j 2\` locally; $RUNS interleaved runs per"
  echo "configuration, median wall time of the whole workflow (s), ratio to no monitor, and the median"
  echo "of the rules' \`memory\` as each monitor reports it (MB). $(date -u +%Y-%m-%d), $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg) at the end."
  echo
  echo "| monitor | median wall (s) | ratio | all runs (s) | rule memory (MB, median) |"
  echo "|---|---|---|---|---|"
  echo "| none | ${med[none]} | 1 | ${times[none]}| - |"
  echo "| resource_monitor 9.9 | ${med[rm]} | $(ratio "${med[rm]}") | ${times[rm]}| ${mem[rm]} |"
  echo "| tally as resource_monitor | ${med[tally]} | $(ratio "${med[tally]}") | ${times[tally]}| ${mem[tally]} |"
} >"$RESULTS/rmcompat.md"
cat "$RESULTS/rmcompat.md"
