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
# round runs every configuration in an order rotated from round to round,
# BENCH_REPEAT times (default 3; strace once, and only in the first
# STRACE_ROUNDS rounds, default 3: it is 60-300 times slower, and the time
# it took is better spent on the rounds of the others); a ratio is the
# configuration's mean wall time (or CPU time: user + system of the command
# and all its children, which other users' load disturbs less) in the round
# over the same round's mean no-monitor time, and the tables give the median
# over BENCH_RUNS rounds (default 7, at least 7) with the smallest and
# largest. The repetitions narrow each round's ratio: one run of the
# stat/open/close case is 0.15 s, where a scheduler's hiccup is a tenth. Each case runs in a directory of its own under the work
# directory, holding only its files (as a batch system's sandbox does): the
# working directory is what tally walks at the end for 'disk', and the
# repository's root, where the cases ran before, made that walk a cost of the
# repository's size (about 4,000 entries), not of level 3. That cost is
# measured apart: tally's fixed cost per run, 'tally run --level 3 --
# /bin/true' in an empty directory and in the repository's root, against
# /bin/true alone (FIXED_RUNS runs of each in a row, default 40, in the same
# rotated rounds). Writes bench/results/io.md.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/median.sh
ROOT=$PWD
RUNS=${BENCH_RUNS:-7}
[ "$RUNS" -ge 7 ] 2>/dev/null || { echo "io bench: BENCH_RUNS must be at least 7" >&2; exit 2; }
REPEAT=${BENCH_REPEAT:-3}
[ "$REPEAT" -ge 1 ] 2>/dev/null || { echo "io bench: BENCH_REPEAT must be at least 1" >&2; exit 2; }
STRACE_ROUNDS=${STRACE_ROUNDS:-3}
[ "$STRACE_ROUNDS" -ge 1 ] 2>/dev/null && [ "$STRACE_ROUNDS" -le "$RUNS" ] ||
  { echo "io bench: STRACE_ROUNDS must be from 1 to BENCH_RUNS" >&2; exit 2; }
command -v strace >/dev/null || { echo "io bench: strace not found (make deps)" >&2; exit 2; }
TALLY=$ROOT/build/tally
LIB=$ROOT/build/lib/libtally-io.so
make -s --no-print-directory build/tally build/lib/libtally-io.so build/bench/io_writes build/bench/io_meta
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
start=$(date +%s)
WORK=$(mktemp -d /dev/shm/tally-io-bench.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/out" "$WORK/helper" "$WORK/empty"
EMPTY=$WORK/libempty.so
echo 'void tally_bench_empty(void) {}' | cc -shared -fPIC -O2 -x c -o "$EMPTY" -

declare -A CMD LABEL
CASES="writes loop meta"
# each case's working directory (its sandbox), holding its files only
for c in $CASES; do mkdir -p "$WORK/case/$c"; done
mkdir -p "$WORK/case/meta/meta"
CMD[writes]="$ROOT/build/bench/io_writes $WORK/case/writes/w.dat 200000 4096"
LABEL[writes]="200,000 writes of 4 KiB to tmpfs"
CMD[loop]="bash -c 'for i in \$(seq 1000); do /bin/true; done'"
LABEL[loop]="the 1000-process loop (1002 processes)"
CMD[meta]="$ROOT/build/bench/io_meta $WORK/case/meta/meta 100000"
LABEL[meta]="100,000 stat/open/close"
CONFIGS="none empty helper tally3 tally2 strace"

run_command() { # CASE CONFIG RUN (round.repetition; run_config's subshell: the cd stays in it)
  local c=$1 cfg=$2 r=$3
  cd "$WORK/case/$c"
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

rotated() { # ROUND CONFIG...: the configurations in an order rotated from round to round
  local r=$1 i k
  shift
  for i in $(seq 0 $(($# - 1))); do
    k=$(( (i + r) % $# + 1 ))
    echo "${!k}"
  done
}

RAW=$WORK/raw.tsv
: >"$RAW"
# RAW: case, configuration, round, wall s, CPU s: a line per run
for r in $(seq "$RUNS"); do
  for c in $CASES; do
    for k in $(seq "$REPEAT"); do
      for cfg in $(rotated "$((r + k))" $CONFIGS); do
        if [ "$cfg" = strace ] && { [ "$k" -gt 1 ] || [ "$r" -gt "$STRACE_ROUNDS" ]; }; then continue; fi
        printf '%s\t%s\t%s\t%s\n' "$c" "$cfg" "$r" "$(run_config "$c" "$cfg" "$r.$k")" >>"$RAW"
      done
    done
  done
done

# tally's fixed cost per run: FIXED_RUNS runs in a row of /bin/true alone,
# and under tally run --level 3 in an empty directory and in the
# repository's root, in rounds of rotated order as above.
FIXED_RUNS=${FIXED_RUNS:-40}
FIXED_CONFIGS="bare empty repo"
fixed_command() { # CONFIG: FIXED_RUNS runs (run_config's subshell: the cd stays in it)
  local i
  case $1 in
    bare) cd "$WORK/empty"; for ((i = 0; i < FIXED_RUNS; i++)); do /bin/true; done ;;
    empty) cd "$WORK/empty"
           for ((i = 0; i < FIXED_RUNS; i++)); do "$TALLY" run --level 3 -o "$WORK/out/fixed.empty" -- /bin/true; done ;;
    repo) cd "$ROOT"
          for ((i = 0; i < FIXED_RUNS; i++)); do "$TALLY" run --level 3 -o "$WORK/out/fixed.repo" -- /bin/true; done ;;
  esac
}
fixed_config() { # CONFIG ROUND: a line of fixed.tsv, the wall and CPU (user + system) ms per run
  local TIMEFORMAT='%3R %3U %3S' t
  t=$( { time fixed_command "$1" >/dev/null 2>&1; } 2>&1 )
  awk -v cfg="$1" -v r="$2" -v k="$FIXED_RUNS" '{ printf "%s\t%s\t%.4f\t%.4f\n", cfg, r, $1 * 1000 / k, ($2 + $3) * 1000 / k }' <<<"$t"
}
FIXED=$WORK/fixed.tsv
: >"$FIXED"
for r in $(seq "$RUNS"); do
  for cfg in $(rotated "$r" $FIXED_CONFIGS); do
    fixed_config "$cfg" "$r" >>"$FIXED"
  done
done
# the repository's root as tally found it (its last run there)
repo_files=$(jq -r '.total_files[0]' "$WORK/out/fixed.repo.summary")
repo_mb=$(jq -r '.disk[0] | floor' "$WORK/out/fixed.repo.summary")

ratios() { # CASE CONFIG [COLUMN: 4 wall, 5 CPU]: one ratio per round, of the round's means
  awk -F'\t' -v c="$1" -v g="$2" -v k="${3:-4}" '$1 == c && $2 == "none" {b[$3] += $k; nb[$3]++}
    $1 == c && $2 == g {v[$3] += $k; nv[$3]++}
    END {for (r in v) if (b[r] > 0) printf "%.4f\n", (v[r] / nv[r]) / (b[r] / nb[r])}' "$RAW"
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
fixed_ms() { # CONFIG COLUMN(3 wall, 4 CPU): median ms per run over the rounds
  awk -F'\t' -v g="$1" -v k="$2" '$1 == g {print $k}' "$FIXED" | median
}
fixed_extra() { # CONFIG COLUMN: median over the rounds of (CONFIG - bare) ms per run [smallest-largest]
  local ds
  ds=$(awk -F'\t' -v g="$1" -v k="$2" '$1 == "bare" {b[$2] = $k} $1 == g {v[$2] = $k}
    END {for (r in v) printf "%.4f\n", v[r] - b[r]}' "$FIXED" | sort -g)
  printf '%.2f [%.2f-%.2f]' "$(printf '%s\n' "$ds" | median)" "$(printf '%s\n' "$ds" | head -1)" "$(printf '%s\n' "$ds" | tail -1)"
}
load_end=$(cut -d' ' -f1-3 /proc/loadavg)
elapsed=$(( $(date +%s) - start ))

OUT=$ROOT/bench/results/io.md
{
  echo "# Level 3 (libtally-io): overhead"
  echo
  echo "Generated by \`bench/io.bench.sh\` on $(date -u '+%Y-%m-%d %H:%M UTC'): $(nproc) cores,"
  echo "Linux $(uname -r); $RUNS paired rounds of $REPEAT runs of each configuration (strace: one,"
  echo "in the first $STRACE_ROUNDS rounds), $elapsed s in all. Work files on /dev/shm (tmpfs)."
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
  echo "Ratios: median over the rounds of the configuration's mean time in the round over"
  echo "the mean no-monitor time of the same round [smallest-largest]; no monitor: the"
  echo "median of all its runs."
  echo
  echo "Processes counted in the loop (every round): level 3: $(procs loop 3); level 2: $(procs loop 2) (truth 1002)."
  echo
  echo "Working directory: each case runs in a directory of its own on /dev/shm holding"
  echo "only its files (as a batch system's sandbox does). tally walks the working"
  echo "directory at the end of a run for \`disk\`; the runs of the history below up to"
  echo "2026-11-26 19:58 UTC ran every case in the repository's root, whose walk (a cost of"
  echo "the repository's size, not of level 3) was in every tally column. It is measured"
  echo "apart below."
  echo
  echo "tally's fixed cost per run (\`tally run --level 3 -- /bin/true\`, $FIXED_RUNS runs in a"
  echo "row per round, $RUNS rotated rounds; milliseconds per run, medians; tally's extra:"
  echo "the median over the rounds of its time minus /bin/true's [smallest-largest]):"
  echo
  echo "| | wall ms per run | CPU ms per run | tally's extra, wall ms | tally's extra, CPU ms |"
  echo "|---|---:|---:|---:|---:|"
  echo "| /bin/true alone | $(printf '%.2f' "$(fixed_ms bare 3)") | $(printf '%.2f' "$(fixed_ms bare 4)") | | |"
  echo "| tally --level 3, empty directory | $(printf '%.2f' "$(fixed_ms empty 3)") | $(printf '%.2f' "$(fixed_ms empty 4)") | $(fixed_extra empty 3) | $(fixed_extra empty 4) |"
  echo "| tally --level 3, the repository's root ($repo_files files, $repo_mb MB) | $(printf '%.2f' "$(fixed_ms repo 3)") | $(printf '%.2f' "$(fixed_ms repo 4)") | $(fixed_extra repo 3) | $(fixed_extra repo 4) |"
  echo
  echo "What strace -f -c counted in its last round (calls of the top system calls):"
  echo
  for c in $CASES; do
    echo "- ${LABEL[$c]}: $(awk 'NR > 2 && $1 ~ /^[0-9.]+$/ && NF >= 5 {print $NF " " $4}' "$WORK/out/$c.strace.$STRACE_ROUNDS.1" | sort -k2 -g -r | head -4 | awk '{printf "%s%s %s", (NR > 1 ? ", " : ""), $1, $2}')"
  done
  echo
  echo "Darshan's own evaluation (S. Snyder, P. Carns, K. Harms, R. Latham, R. Ross,"
  echo "\"Performance Evaluation of Darshan 3.0.0 on the Cray XC30\", ANL/MCS-TM-362, 2016)"
  echo "reports limited impact on application I/O and logs written in under two seconds"
  echo "for most workloads, on a parallel file system, whose operations cost far more than"
  echo "tmpfs's: the cases above are the helper's worst case."
} >"$OUT"
cat "$OUT"
