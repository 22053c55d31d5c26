#!/usr/bin/env bash
# Accuracy and overhead of `tally run` against resource_monitor and GNU time -v:
# Tables 3 and 4 of seed 002 (CPU, memory, I/O by size and by buffer) at sizes
# this machine holds, plus issue 2's process-tree cases. Every case runs with
# no monitor, tally --level 1, tally --level 2, resource_monitor (default and
# --accurate-short-processes) and /usr/bin/time -v, interleaved, BENCH_RUNS
# times (default 3). Each case knows its truth (bytes filled, bytes moved,
# processes started; CPU: the CPU time the program measures itself with
# getrusage in the same run, since this machine's CPU speed varies from run to
# run by more than 1%; also shown against the no-monitor runs). Writes one
# markdown table of error (%) and time ratio (median over rounds of the wall
# time over the same round's no-monitor wall time), a table of the CPU each
# monitor itself uses, and the issue's targets as met / not met to
# bench/results/monitor.md, every run's numbers to monitor-raw.csv and the
# cases to monitor-cases.tsv (summarize.awk makes the table again from them).
# Default sizes: 19 min on a quiet 2-core machine (load 1.1); measured 26 min
# while it was busy (load 7).
#
#   BENCH_RUNS=N    runs per case and configuration (default 3, at least 3)
#   BENCH_LOOP_RUNS=N  rounds of the 1000-short-process loop (default 7, at
#                   least 7; the rounds beyond BENCH_RUNS run that case alone):
#                   its table shows every configuration's paired ratio with
#                   its spread, resource_monitor beside tally in the same rounds
#   BENCH_FULL=1    adds CPU 10^9, memory 8 GiB and I/O 4 GiB (about 35 min more)
#   BENCH_CASES=re  only the cases whose id matches the extended regex re
#   BENCH_CONFIGS="none tally1 ..."  only these configurations (none is always run)
#   BENCH_TMPDIR    where the work files go (default $TMPDIR or /tmp)
#   BENCH_NAME=n    results written as bench/results/n.md, n-raw.csv, n-cases.tsv
#                   (default monitor; e.g. BENCH_CASES=loop BENCH_NAME=monitor-loop)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
RUNS=${BENCH_RUNS:-3}
LOOP_RUNS=${BENCH_LOOP_RUNS:-7}
NAME=${BENCH_NAME:-monitor}
FULL=${BENCH_FULL:-0}
TALLY=$ROOT/build/tally
BIN=$ROOT/build/bench
RESULTS=$ROOT/bench/results
ALL_CONFIGS="none tally1 tally2 rm rm_acc time"
CONFIGS=${BENCH_CONFIGS:-$ALL_CONFIGS}
[[ " $CONFIGS " == *" none "* ]] || CONFIGS="none $CONFIGS"

if [ "$RUNS" -lt 3 ] 2>/dev/null; then
  echo "monitor bench: BENCH_RUNS must be at least 3 (medians)" >&2
  exit 2
fi
if [ "$LOOP_RUNS" -lt 7 ] 2>/dev/null; then
  echo "monitor bench: BENCH_LOOP_RUNS must be at least 7 (paired rounds with their spread)" >&2
  exit 2
fi
for tool in jq resource_monitor /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "monitor bench: $tool not found (make deps)" >&2; exit 2; }
done
# (relative names: the Makefile's rules are written for them)
make -s --no-print-directory build/tally \
  build/bench/cpu_sincos build/bench/mem_fill build/bench/io_direct \
  build/bench/fork_fill build/bench/fork_fill_static build/bench/grandchild_io

WORK=$(mktemp -d "${BENCH_TMPDIR:-${TMPDIR:-/tmp}}/tally-monitor-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
RUNDIR=$WORK/run        # the task's working directory (and its files)
OUT=$WORK/out           # monitor reports
mkdir -p "$RUNDIR" "$OUT" "$RESULTS"

# --- cases: id, label, kind, truth, command -----------------------------------
# kind says which measures count: cpu | mem | io | tree | loop | gcio.
# truth fields (tab-separated, empty when not relevant):
#   memory MiB, bytes read = bytes written, total processes, max concurrent.
CASES_TSV=$WORK/cases.tsv
: >"$CASES_TSV"
CASE_IDS=()
declare -A CASE_CMD
add_case() { # id label kind mem_mib bytes procs conc -- command...
  local id=$1 label=$2 kind=$3 mem=$4 bytes=$5 procs=$6 conc=$7
  shift 8
  if [ -n "${BENCH_CASES:-}" ] && ! [[ $id =~ $BENCH_CASES ]]; then return; fi
  CASE_IDS+=("$id")
  CASE_CMD[$id]=$(printf '%q ' "$@")
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$id" "$label" "$kind" "$mem" "$bytes" "$procs" "$conc" >>"$CASES_TSV"
}

GIB=$((1 << 30)) MIB=$((1 << 20))
cpu_sizes="6 7 8";        [ "$FULL" = 1 ] && cpu_sizes="6 7 8 9"
mem_sizes="1 2 4";        [ "$FULL" = 1 ] && mem_sizes="1 2 4 8"
for e in $cpu_sizes; do
  add_case "cpu-1e$e" "CPU 10^$e sin/cos" cpu "" "" 1 1 -- "$BIN/cpu_sincos" "$((10 ** e))"
done
for g in $mem_sizes; do
  # Fills g GiB of a 12 GiB allocation (the seed: 1..16 GB of 16 GB).
  add_case "mem-${g}g" "memory ${g} GiB filled" mem $((g * 1024)) "" 1 1 -- "$BIN/mem_fill" 12288 $((g * 1024))
done
io_sizes="$MIB:1MiB $((100 * MIB)):100MiB $GIB:1GiB"
[ "$FULL" = 1 ] && io_sizes="$io_sizes $((4 * GIB)):4GiB"
for s in $io_sizes; do
  add_case "io-${s#*:}-4k" "I/O ${s#*:}, 4 KiB buffer" io "" "${s%%:*}" 1 1 -- "$BIN/io_direct" "$RUNDIR/io.dat" "${s%%:*}" 4096
done
for k in 8 16 32; do
  add_case "io-1GiB-${k}k" "I/O 1GiB, $k KiB buffer" io "" "$GIB" 1 1 -- "$BIN/io_direct" "$RUNDIR/io.dat" "$GIB" $((k * 1024))
done
add_case tree "3 children x 300 MiB + parent 200 MiB, together" tree 1100 "" 4 4 -- \
  "$BIN/fork_fill" 3 300 200 500
add_case static "static program, 4 children x 100 MiB" tree 400 "" 5 5 -- \
  "$BIN/fork_fill_static" 4 100 0 500
# bash, the $(seq) subshell that execs seq, and 1000 /bin/true: 1002 processes,
# at most 2 at once (counted with strace -f on bash 5.2).
add_case loop "1000 short processes (shell loop)" loop "" "" 1002 2 -- \
  bash -c 'for i in $(seq 1000); do /bin/true; done'
add_case gcio "grandchild writes+reads 123456789 B" gcio "" 123456789 3 3 -- \
  "$BIN/grandchild_io" "$RUNDIR/gc.dat" 123456789

# --- running one case under one configuration ---------------------------------
RAW=$WORK/raw.csv
echo "case,config,run,exit_status,wall_s,cpu_s,memory_mb,bytes_read_mb,bytes_written_mb,total_processes,max_concurrent_processes,reaped_cpu_s,self_cpu_s" >"$RAW"

# Prints the CSV measure fields (cpu,memory,read,written,procs,concurrent) of a
# tally or resource_monitor summary; missing fields are empty.
summary_measures() {
  jq -r '[.cpu_time[0], .memory[0], .bytes_read[0], .bytes_written[0],
          .total_processes[0], .max_concurrent_processes[0]]
         | map(if . == null then "" else tostring end) | join(",")' "$1" 2>/dev/null || echo ",,,,,"
}

# The same from GNU time -v: it cannot count processes (n/a), its memory is the
# largest single process's maximum RSS, its bytes are block-layer 512-byte
# blocks (file system inputs/outputs).
time_measures() {
  awk -F': ' '
    /User time/ {u = $2} /System time/ {s = $2}
    /Maximum resident set size/ {m = $2 / 1024}
    /File system inputs/ {r = $2 * 512 / 1048576}
    /File system outputs/ {w = $2 * 512 / 1048576}
    END {if (u == "") print ",,,,,"; else printf "%.3f,%.3f,%.6f,%.6f,,\n", u + s, m, r, w}' "$1"
}

# CPU seconds of this shell's reaped children between two outputs of the
# `times` builtin (wait4 rusage, millisecond resolution), run in this shell
# just before and after the command (nothing else may be reaped in between).
cpu_between() { # times-before times-after
  awk 'function sec(s, a) { sub(/s$/, "", s); split(s, a, "m"); return a[1] * 60 + a[2] }
       FNR == 2 { c[++n] = sec($1) + sec($2) } END { printf "%.3f", c[2] - c[1] }' "$1" "$2"
}

run_one() { # case config run
  local id=$1 config=$2 run=$3 prefix=$OUT/$1.$2.$3 status t0 t1 measures reaped_cpu self_cpu
  local -a cmd
  eval "cmd=(${CASE_CMD[$id]})"
  rm -f "$RUNDIR"/*.dat
  cd "$RUNDIR"
  times >"$WORK/times.before"
  t0=$EPOCHREALTIME
  set +e
  case $config in
    none)   "${cmd[@]}" >"$prefix.out" 2>"$prefix.err" ;;
    tally1) "$TALLY" run --level 1 -o "$prefix" -- "${cmd[@]}" >"$prefix.out" 2>"$prefix.err" ;;
    tally2) "$TALLY" run --level 2 -o "$prefix" -- "${cmd[@]}" >"$prefix.out" 2>"$prefix.err" ;;
    rm)     resource_monitor -O "$prefix" -- "${cmd[@]}" >"$prefix.out" 2>"$prefix.err" ;;
    rm_acc) resource_monitor --accurate-short-processes -O "$prefix" -- "${cmd[@]}" >"$prefix.out" 2>"$prefix.err" ;;
    time)   /usr/bin/time -v -o "$prefix.time" "${cmd[@]}" >"$prefix.out" 2>"$prefix.err" ;;
  esac
  status=$?
  set -e
  t1=$EPOCHREALTIME
  times >"$WORK/times.after"
  # The CPU of all that this run started, as wait4 sees it: with no monitor the
  # task's whole processes (exec and exit included), else monitor + task.
  reaped_cpu=$(cpu_between "$WORK/times.before" "$WORK/times.after")
  cd "$ROOT"
  # What a program that measures itself (cpu_sincos) said about this run.
  self_cpu=$(awk '/^cpu_time/ {c = $2} END {print c}' "$prefix.out")
  case $config in
    none)  measures="$self_cpu,,,,," ;;
    time)  measures=$(time_measures "$prefix.time") ;;
    *)     measures=$(summary_measures "$prefix.summary") ;;
  esac
  echo "$id,$config,$run,$status,$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.6f", b - a}'),$measures,$reaped_cpu,$self_cpu" >>"$RAW"
  [ "$status" -eq 0 ] || echo "monitor bench: $id under $config exited $status: $(head -c 300 "$prefix.err")" >&2
}

load_start=$(cut -d' ' -f1-3 /proc/loadavg)
started=$(date -u +%s)
echo "monitor bench: ${#CASE_IDS[@]} cases x {$CONFIGS} x $RUNS runs (work files in $WORK)" >&2
echo "monitor bench: cases: ${CASE_IDS[*]}" >&2
[ "${#CASE_IDS[@]}" -gt 0 ] || { echo "monitor bench: no case matches BENCH_CASES" >&2; exit 2; }
# One round of case ID: every configuration once. The order rotates each
# round, so that none is always first (or right after a given other one);
# ratios pair runs of a round.
run_round() { # ID RUN OF
  echo "monitor bench: run $2/$3 $1" >&2
  cut -d' ' -f1 /proc/loadavg >>"$WORK/loads"
  local order k
  read -r -a order <<<"$CONFIGS"
  for ((k = 0; k < ${#order[@]}; k++)); do
    run_one "$1" "${order[(k + $2 - 1) % ${#order[@]}]}" "$2"
  done
}
for run in $(seq "$RUNS"); do
  for id in "${CASE_IDS[@]}"; do run_round "$id" "$run" "$RUNS"; done
done
# More rounds of the short-process loop alone, up to BENCH_LOOP_RUNS.
for ((run = RUNS + 1; run <= LOOP_RUNS; run++)); do
  for id in "${CASE_IDS[@]}"; do
    [ "$id" = loop ] || continue
    run_round "$id" "$run" "$LOOP_RUNS"
  done
done
load_end=$(cut -d' ' -f1-3 /proc/loadavg)
elapsed=$(( $(date -u +%s) - started ))

# --- the table ----------------------------------------------------------------
direct_note="I/O programs use O_DIRECT (the device is really read and written)."
if grep -qs fallback "$OUT"/io-*.err; then
  direct_note="O_DIRECT was refused by the file system of $WORK: I/O programs fell back to buffered I/O with fdatasync + POSIX_FADV_DONTNEED before reading."
fi
{
  echo "# tally run: accuracy and overhead (seed 002, Tables 3 and 4)"
  echo
  echo "Generated by \`make bench\` (bench/monitor.bench.sh) on $(date -u '+%Y-%m-%d %H:%M UTC'):"
  echo "$(nproc) cores ($(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo)),"
  echo "$(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo) RAM, Linux $(uname -r),"
  echo "work files on $(df -PT "$WORK" | awk 'NR == 2 {print $2 " (" $1 ")"}'); $RUNS runs per cell ($LOOP_RUNS for the short-process loop), medians; $elapsed s in all."
  echo "Load average (1, 5, 15 min) at start: $load_start; at end: $load_end."
  # The benchmark itself keeps about one core busy; more than that is others.
  awk -v cores="$(nproc)" '{ sum += $1; if ($1 > max) max = $1 }
    END { mean = sum / NR
          printf "1-min load average at each case start: mean %.1f, max %.1f.\n", mean, max
          if (mean > cores + 0.5)
            print "**The machine was busy with other work during this run: wall-time ratios and CPU errors against the no-monitor median are not representative.**" }' "$WORK/loads"
  if [ "$FULL" = 1 ]; then
    echo "BENCH_FULL=1: CPU up to 10^9, memory up to 8 GiB, I/O up to 4 GiB."
  else
    echo "Default sizes (25-minute budget): CPU up to 10^8, memory up to 4 GiB, I/O up to 1 GiB;"
    echo "BENCH_FULL=1 adds CPU 10^9, memory 8 GiB and I/O 4 GiB."
  fi
  echo "$direct_note"
  echo
  awk -F'\t' -v raw="$RAW" -v configs="$CONFIGS" -f bench/monitor/summarize.awk "$CASES_TSV"
} >"$WORK/monitor.md"
cp "$WORK/monitor.md" "$RESULTS/$NAME.md"
cp "$RAW" "$RESULTS/$NAME-raw.csv"
cp "$CASES_TSV" "$RESULTS/$NAME-cases.tsv" # with the raw runs, the table can be made again
cat "$RESULTS/$NAME.md"
