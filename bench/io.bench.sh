#!/usr/bin/env bash
# Overhead of level 3 (issue 19): the three cases of the issue's table,
# paired rounds against no monitor, with strace -f -c in the same rounds:
#   writes  200,000 writes of 4 KiB to a file on tmpfs (/dev/shm)
#   loop    bash's 1000 short processes (1002 processes in all)
#   meta    100,000 rounds of stat, open and close (100 files on tmpfs)
# Configurations: none; an empty library preloaded (the floor of any
# LD_PRELOAD helper: the loader's work for one more library); the helper
# alone (LD_PRELOAD libtally-io.so with its directory, no monitor); tally run
# --level 3 (the helper, and /proc scans: no tracer since the helper reports
# each process); tally run --level 2 (for reference); strace -f -c. Each
# round runs every configuration once, in an order rotated from round to
# round; a ratio is the configuration's wall time (or CPU time: user + system
# of the command and all its children, which other users' load disturbs
# less) over the same round's no-monitor time, and the tables give the
# median over BENCH_RUNS rounds (default 7, at least 7) with the smallest
# and largest. Writes bench/results/io.md.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/median.sh
ROOT=$PWD
RUNS=${BENCH_RUNS:-7}
[ "$RUNS" -ge 7 ] 2>/dev/null || { echo "io bench: BENCH_RUNS must be at least 7" >&2; exit 2; }
command -v strace >/dev/null || { echo "io bench: strace not found (make deps)" >&2; exit 2; }
TALLY=$ROOT/build/tally
LIB=$ROOT/build/lib/libtally-io.so
make -s --no-print-directory build/tally build/lib/libtally-io.so build/bench/io_writes build/bench/io_meta
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
start=$(date +%s)
WORK=$(mktemp -d /dev/shm/tally-io-bench.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/meta" "$WORK/out" "$WORK/helper"
EMPTY=$WORK/libempty.so
echo 'void tally_bench_empty(void) {}' | cc -shared -fPIC -O2 -x c -o "$EMPTY" -

declare -A CMD LABEL
CASES="writes loop meta"
CMD[writes]="$ROOT/build/bench/io_writes $WORK/w.dat 200000 4096"
LABEL[writes]="200,000 writes of 4 KiB to tmpfs"
CMD[loop]="bash -c 'for i in \$(seq 1000); do /bin/true; done'"
LABEL[loop]="the 1000-process loop (1002 processes)"
CMD[meta]="$ROOT/build/bench/io_meta $WORK/meta 100000"
LABEL[meta]="100,000 stat/open/close"
CONFIGS="none empty helper tally3 tally2 strace"

run_command() { # CASE CONFIG ROUND
  local c=$1 cfg=$2 r=$3
  case $cfg in
    none) eval "${CMD[$c]}" ;;
    empty) eval "LD_PRELOAD=$EMPTY ${CMD[$c]}" ;;
    helper) rm -f "$WORK/helper"/io.*
            eval "LD_PRELOAD=$LIB TALLY_IO_DIR=$WORK/helper ${CMD[$c]}" ;;
    tally3) eval "$TALLY run --level 3 -o $WORK/out/$c.3.$r -- ${CMD[$c]}" ;;
    tally2) eval "$TALLY run --level 2 -o $WORK/out/$c.2.$r -- ${CMD[$c]}" ;;
    strace) eval "strace -f -c -o $WORK/out/$c.strace.$r ${CMD[$c]}" ;;
  esac
}

run_config() { # CASE CONFIG ROUND: prints the wall time and the CPU time (user + system) in seconds
  local TIMEFORMAT='%3R %3U %3S' t
  t=$( { time run_command "$@" >/dev/null 2>&1; } 2>&1 )
  awk '{ printf "%.3f\t%.3f\n", $1, $2 + $3 }' <<<"$t"
}

RAW=$WORK/raw.tsv
: >"$RAW"
set -- $CONFIGS
n=$#
for r in $(seq "$RUNS"); do
  for c in $CASES; do
    # rotate the order of the configurations from round to round
    order=()
    for i in $(seq 0 $((n - 1))); do
      k=$(( (i + r) % n + 1 ))
      order+=("${!k}")
    done
    for cfg in "${order[@]}"; do
      printf '%s\t%s\t%s\t%s\n' "$c" "$cfg" "$r" "$(run_config "$c" "$cfg" "$r")" >>"$RAW"
    done
  done
done

ratios() { # CASE CONFIG [COLUMN: 4 wall, 5 CPU]: one ratio per round
  awk -F'\t' -v c="$1" -v g="$2" -v k="${3:-4}" '$1 == c && $2 == "none" {b[$3] = $k}
    $1 == c && $2 == g {v[$3] = $k} END {for (r in v) if (b[r] > 0) printf "%.4f\n", v[r] / b[r]}' "$RAW"
}
cell() { # CASE CONFIG [COLUMN]: median [min-max]
  local rs; rs=$(ratios "$1" "$2" "${3:-4}" | sort -g)
  printf '%.3f [%.3f-%.3f]' "$(printf '%s\n' "$rs" | median)" "$(printf '%s\n' "$rs" | head -1)" "$(printf '%s\n' "$rs" | tail -1)"
}
procs() { # CASE LEVEL: total_processes of every round, distinct values
  for f in "$WORK"/out/"$1"."$2".*.summary; do jq -r '.total_processes[0]' "$f"; done | sort -u | paste -sd/
}
table() { # COLUMN(4 wall, 5 CPU) TITLE HEADING WITH_BOUND(yes|no): a table of ratios, a row per case
  local k=$1 bare bound head="" rule="" last=""
  if [ "$4" = yes ]; then head=" issue's bound for level 3 |"; rule="---:|"; fi
  echo "$2"
  echo
  echo "| case | no monitor: $3 | empty preload | helper alone | tally --level 3 | tally --level 2 | strace -f -c |$head"
  echo "|---|---:|---:|---:|---:|---:|---:|$rule"
  for c in $CASES; do
    bare=$(awk -F'\t' -v c="$c" -v k="$k" '$1 == c && $2 == "none" {print $k}' "$RAW" | median)
    case $c in writes|loop) bound=1.05 ;; meta) bound=1.10 ;; esac
    if [ "$4" = yes ]; then last=" $bound |"; fi
    echo "| ${LABEL[$c]} | $(printf '%.3f' "$bare") s | $(cell "$c" empty "$k") | $(cell "$c" helper "$k") | $(cell "$c" tally3 "$k") | $(cell "$c" tally2 "$k") | $(cell "$c" strace "$k") |$last"
  done
  echo
}
load_end=$(cut -d' ' -f1-3 /proc/loadavg)
elapsed=$(( $(date +%s) - start ))

OUT=$ROOT/bench/results/io.md
{
  echo "# Level 3 (libtally-io): overhead"
  echo
  echo "Generated by \`bench/io.bench.sh\` on $(date -u '+%Y-%m-%d %H:%M UTC'): $(nproc) cores,"
  echo "Linux $(uname -r); $RUNS paired rounds, $elapsed s in all. Work files on /dev/shm (tmpfs)."
  echo "Load average (1, 5, 15 min) at start: $load_start; at end: $load_end."
  if awk -v l="${load_start%% *}" -v n="$(nproc)" 'BEGIN { exit !(l > 2 * n) }'; then
    echo
    echo "**The machine was overloaded (load ${load_start%% *} on $(nproc) cores): the rounds'"
    echo "spread is wider than the overheads to be measured; these ratios do not resolve the"
    echo "bounds. Run again on a quiet machine.**"
  fi
  echo
  table 4 "Wall time:" "median wall" yes
  table 5 "CPU time (user + system of the command and all its children; for tally, its own too):" "median CPU" no
  echo "Ratios: median over the rounds of the configuration's time over the"
  echo "no-monitor time of the same round [smallest-largest]."
  echo
  echo "Processes counted in the loop (every round): level 3: $(procs loop 3); level 2: $(procs loop 2) (truth 1002)."
  echo
  echo "What strace -f -c counted in the last round (calls of the top system calls):"
  echo
  for c in $CASES; do
    echo "- ${LABEL[$c]}: $(awk 'NR > 2 && $1 ~ /^[0-9.]+$/ && NF >= 5 {print $NF " " $4}' "$WORK/out/$c.strace.$RUNS" | sort -k2 -g -r | head -4 | awk '{printf "%s%s %s", (NR > 1 ? ", " : ""), $1, $2}')"
  done
  echo
  echo "Darshan's own evaluation (S. Snyder, P. Carns, K. Harms, R. Latham, R. Ross,"
  echo "\"Performance Evaluation of Darshan 3.0.0 on the Cray XC30\", ANL/MCS-TM-362, 2016)"
  echo "reports limited impact on application I/O and logs written in under two seconds"
  echo "for most workloads, on a parallel file system, whose operations cost far more than"
  echo "tmpfs's: the cases above are the helper's worst case."
} >"$OUT"
cat "$OUT"
