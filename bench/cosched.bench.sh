#!/usr/bin/env bash
# Co-scheduling benchmark (issue 9; ScoPro Tables 6 and 7): two MPI programs
# of 2 ranks each (blocking stencils A and B, B about half as long) alone and
# together on the same cores, Open MPI yielding when idle (a waiting rank that
# spins keeps its core from the other job and the slowdowns mean nothing).
#   Table 6: each program's real slowdown (its run time, MPI_Init's return to
#     MPI_Finalize, beside the other over alone: B beside A all its life; A
#     beside a B that outlasts it) against the slowdown measured in a window
#     (time per iteration beside the other over alone, the marker's progress
#     rate); the slowdown of the whole wall time beside it
#   Table 7: A and B started together, B ends first; S_a measured in a short
#     window of A early in its run (inside B's run: tally mpi predict checks
#     it on the summaries' clocks), T_b = B's end - A's start, and A's
#     finishing time by eq. (6) and eq. (7) (tally mpi predict) against the
#     real one
# Every figure is the median of RUNS repetitions [min, max]; each repetition
# runs alone and together runs back to back, so a change of the machine's
# load hits both. mpirun's start (~0.3 s on a quiet machine) is in every wall
# time and is not slowed like the iterations: it biases the wall-time
# slowdown and eq. (6) by about start x (1 - 1/S) / T; BENCH_SMALL=0 runs
# programs 5 x longer. Writes bench/results/cosched.md.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
TALLY=${TALLY_RELEASE:-$ROOT/build/tally}
SMALL=${BENCH_SMALL:-1}
RUNS=${COSCHED_BENCH_RUNS:-5}
OUT=$ROOT/bench/results/cosched.md
make -s build/tally libs >/dev/null
WORK=$(mktemp -d /tmp/tally-cosched-bench.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
PROBE_FLAGS="-I$ROOT/include -L$ROOT/build/lib -ltally-probe -Wl,-rpath,$ROOT/build/lib"
mpicc.openmpi -O2 -Wno-stringop-overflow -DWITH_PROBE -o "$WORK/stencil" tests/fixtures/mpi/stencil.c $PROBE_FLAGS
# iterations of A (B: half, the B that outlasts A: 1.5 x) and work per iteration
# (~2.5 ms alone: the exchanges, where a rank waits for its partner to get the
# CPU back, are a small part of an iteration)
if [ "$SMALL" = 1 ]; then N_A=2500; else N_A=12500; fi
N_A=${COSCHED_ITERATIONS:-$N_A}
N_B=$((N_A / 2)) N_LONG=$((N_A * 3 / 2)) WORK_IT=${COSCHED_WORK:-1000}

# job NAME ITERATIONS START LENGTH: one stencil of 2 ranks under tally with a
# marker window of LENGTH iterations after START
job() {
  "$TALLY" run --mpi --window "start=$3,iterations=$4" -o "$WORK/$1" -- \
    mpirun.openmpi --mca mpi_yield_when_idle 1 -np 2 "$WORK/stencil" blocking "$2" 64 $WORK_IT 0 1 "$WORK/h$1" \
    >/dev/null 2>"$WORK/$1.err"
}
# A's window: iterations [N_A/10, N_A/10 + N_A/5), early in its run, well
# inside B's (B ends about when A is half done); B's: all but the first and
# last tenth (A runs beside all of it)
job_a() { job "$1" $N_A $((N_A / 10)) $((N_A / 5)); }
job_b() { job "$1" "$2" $(($2 / 10)) $(($2 * 8 / 10)); }
wall() { jq '.wall_time[0]' "$WORK/$1.summary"; }
# the program's run time: MPI_Init's return to MPI_Finalize (MPI_Wtime in the stencil), the longest rank
program() { awk '{ if ($4 > t) t = $4 } END { printf "%.6f", t }' "$WORK/h$1".*; }
ends_before() { jq -n --slurpfile a "$WORK/$1.summary" --slurpfile b "$WORK/$2.summary" '$a[0].end[0] <= $b[0].end[0]'; }
tpi() { jq '.mpi.window.time_per_iteration[0]' "$WORK/$1.summary"; }
busy_fraction() { "$TALLY" mpi report "$WORK/$1" --format json | jq '.busy_idle | .busy / (.busy + .idle)'; }
# the share of the cores a run got: cpu_time / wall_time / cores (~1 alone on
# a quiet machine, as waiting ranks poll; lower when other work took the cores)
cpu_share() { jq --argjson n "$(nproc)" '.cpu_time[0] / .wall_time[0] / $n' "$WORK/$1.summary"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.4f", a / b }'; }
error() { awk -v m="$1" -v r="$2" 'BEGIN { printf "%.2f", 100 * (m - r) / r }'; }

: >"$WORK/rows"
outside=0 short=0
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
for r in $(seq "$RUNS"); do
  job_a A1; job_b B1 $N_B
  job_a A2 & a=$!; job_b B2 $N_B; wait $a                       # together, B ends first
  job_b L4 $N_LONG & l=$!; job_a A4; wait $l                     # A beside a B that outlasts it
  [ "$(ends_before A4 L4)" = true ] || short=$((short + 1))
  pred=$("$TALLY" mpi predict --alone "$WORK/A1" --together "$WORK/A2" --other-end "$WORK/B2" 2>"$WORK/pred.err")
  [ -s "$WORK/pred.err" ] && { outside=$((outside + 1)); sed 's/^/# /' "$WORK/pred.err" >&2; }
  read -r s_a t_b <<<"$(awk '/^T_a1/ { print $5, $7 }' <<<"$pred" | tr -d ',')"
  e6=$(awk '/eq. \(6\)/ { print $(NF-1) }' <<<"$pred") e7=$(awk '/eq. \(7\)/ { print $(NF-1) }' <<<"$pred")
  ta1=$(wall A1) ta2=$(wall A2)
  pb1=$(program B1) pb2=$(program B2) pa1=$(program A1) pa4=$(program A4)
  sb_real=$(ratio "$pb2" "$pb1") sb_meas=$(ratio "$(tpi B2)" "$(tpi B1)") sb_wall=$(ratio "$(wall B2)" "$(wall B1)")
  sa_real=$(ratio "$pa4" "$pa1") sa_meas=$(ratio "$(tpi A4)" "$(tpi A1)") sa_wall=$(ratio "$(wall A4)" "$ta1")
  f2=$(awk -v a="$(busy_fraction A1)" -v b="$(busy_fraction B1)" 'BEGIN { i = a + b - 1; printf "%.4f", 1 + (i > 0 ? i : 0) }')
  # columns: 1 pb1 2 pb2 3 sb_real 4 sb_meas 5 sb_err 6 pa1 7 pa4 8 sa_real 9 sa_meas 10 sa_err
  #          11 S_a(window of A2) 12 t_b 13 eq6 14 eq6_err 15 eq7 16 eq7_err 17 ta2 18 formula (2)
  #          19 ta1 20 sb_wall 21 sa_wall 22 sb_meas vs wall 23 sa_meas vs wall
  #          24, 25 the cores' share A1 and B1 got
  echo "$pb1 $pb2 $sb_real $sb_meas $(error "$sb_meas" "$sb_real") $pa1 $pa4 $sa_real $sa_meas $(error "$sa_meas" "$sa_real")" \
       "$s_a $t_b $e6 $(error "$e6" "$ta2") $e7 $(error "$e7" "$ta2") $ta2 $f2" \
       "$ta1 $sb_wall $sa_wall $(error "$sb_meas" "$sb_wall") $(error "$sa_meas" "$sa_wall")" \
       "$(cpu_share A1) $(cpu_share B1)" >>"$WORK/rows"
  echo "# repetition $r: $(tail -1 "$WORK/rows")" >&2
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

# col K: "median [min, max]" over the repetitions (|x| for errors when ABS=1)
col() {
  awk -v k="$1" -v abs="${2:-0}" '{ v = $k; if (abs && v < 0) v = -v; print v }' "$WORK/rows" | sort -g |
    awk '{ a[NR] = $1 } END { m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2;
                              printf "%.4g [%.4g, %.4g]", m, a[1], a[NR] }'
}
{
  echo "# Co-scheduling (issue 9, ScoPro Tables 6 and 7)"
  echo
  echo "Run: $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, load $load_before before and $load_after after,"
  echo "BENCH_SMALL=$SMALL, $RUNS repetitions: median [min, max]. Made by bench/cosched.bench.sh."
  echo
  echo "A and B: blocking stencils (tests/fixtures/mpi/stencil.c), 2 ranks each, halo 64, work $WORK_IT,"
  echo "A $N_A iterations, B $N_B; Open MPI 4, \`--mca mpi_yield_when_idle 1\`, all on the same $(nproc) cores."
  echo "How alone the alone runs were (cpu_time / wall_time / $(nproc) cores; near 1 on a quiet machine,"
  echo "where their polling ranks keep every core): A $(col 24), B $(col 25)."
  echo
  echo "## Table 6: slowdowns, real and measured in a window"
  echo
  echo "Alone and together: the program's run time (MPI_Init's return to MPI_Finalize, MPI_Wtime"
  echo "in the program, longest rank). S real = together / alone; S measured = time per iteration"
  echo "in the window beside the other / alone (B: iterations 10-90 %; A: 10-30 %, beside a B of"
  echo "$N_LONG iterations that outlasts it: it did not in $short of $RUNS). Error = (measured - real) / real."
  echo "S wall: the same ratio of \`tally run\`'s wall times (mpirun's start included), and S measured's error against it."
  echo
  echo "| program | alone (s) | together (s) | S real | S measured | error (%) | abs. error (%) | S wall | error vs S wall (%) |"
  echo "|---|---|---|---|---|---|---|---|---|"
  echo "| B, beside A | $(col 1) | $(col 2) | $(col 3) | $(col 4) | $(col 5) | $(col 5 1) | $(col 20) | $(col 22) |"
  echo "| A, beside B | $(col 6) | $(col 7) | $(col 8) | $(col 9) | $(col 10) | $(col 10 1) | $(col 21) | $(col 23) |"
  echo
  echo "## Table 7: A's finishing time beside B (started together, B ends first)"
  echo
  echo "\`tally mpi predict --alone A1 --together A2 --other-end B2\`: S_a from A's window (iterations"
  echo "10-30 %, inside B's run: checked on the summaries' clocks; outside in $outside of $RUNS), T_b = B's end - A's start."
  echo "All times are \`tally run\`'s wall_time (a finishing time, mpirun's start included)."
  echo
  echo "| T_a1 (s) | S_a (window) | T_b (s) | T_a eq. (6) (s) | error (%) | abs. error (%) | T_a eq. (7) (s) | error (%) | T_real (s) |"
  echo "|---|---|---|---|---|---|---|---|---|"
  echo "| $(col 19) | $(col 11) | $(col 12) | $(col 13) | $(col 14) | $(col 14 1) | $(col 15) | $(col 16) | $(col 17) |"
  echo
  echo "Formula (2) from the alone runs' busy fractions b (busy / (busy + idle) in the window),"
  echo "S = 1 + max(0, b_A + b_B - 1): $(col 18)."
  echo
  echo "Target: |error| <= 2 % for S measured and for eq. (6) (ScoPro: 0-2.5 % and 0.0-3.7 %)."
} >"$OUT"
cat "$OUT"
