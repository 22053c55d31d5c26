#!/usr/bin/env bash
# Benchmark of application instrumentation (issue 9), side by side in one run:
#   1. libtally-probe call cost, off (no monitor) and on (recording), ns
#   2. cost per MPI call on a 0-byte ping-pong (2 ranks): no preload,
#      libtally-mpi preloaded but off, preloaded and on (ScoPro: 385-500 ns)
#   3. switching all ranks (16) on and off through their control words:
#      time of the writes, and until every rank acknowledged (ScoPro: 0.22 s);
#      and end to end by request (proc_record_start/stop through the agent)
#   4. a uprobe on a function: attach, detach, cost per hit, hits counted
#   5. ScoPro-style accuracy (its Tables 1 and 2): the stencil's communication
#      share by hand (MPI_Wtime) against tally for the full run and windows of
#      100 and 10 iterations
# Co-scheduling (its Tables 6 and 7) is bench/cosched.bench.sh.
# Medians of RUNS runs. BENCH_SMALL=1 (default here) keeps sizes small: the
# machine is shared, so these are not final figures. Writes bench/results/mpi.md.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/median.sh
ROOT=$PWD
TALLY=${TALLY_RELEASE:-$ROOT/build/tally}
SMALL=${BENCH_SMALL:-1}
RUNS=${MPI_BENCH_RUNS:-5}
OUT=$ROOT/bench/results/mpi.md
load=$(cut -d' ' -f1-3 /proc/loadavg) # before the bench's own work (its ranks load both cores)
make -s build/tally libs >/dev/null
WORK=$(mktemp -d /tmp/tally-mpi-bench.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
PROBE_FLAGS="-I$ROOT/include -L$ROOT/build/lib -ltally-probe -Wl,-rpath,$ROOT/build/lib"
LIB_OMPI=$ROOT/build/lib/libtally-mpi-openmpi.so
LIB_MPICH=$ROOT/build/lib/libtally-mpi-mpich.so
if [ "$SMALL" = 1 ]; then PROBE_N=20000000 PP_N=100000 UP_N=20000 ACC_ITS=600; else PROBE_N=200000000 PP_N=200000 UP_N=200000 ACC_ITS=4000; fi

declare -A pp
# column K's median over RUNS runs of a command printing one line of numbers
median_col() { local k=$1; shift; for _ in $(seq "$RUNS"); do "$@"; done >"$WORK/cols"; awk -v k="$k" '{print $k}' "$WORK/cols" | median; }

cc -O2 -o "$WORK/probe_cost" bench/mpi/probe_cost.c $PROBE_FLAGS
mpicc.openmpi -O2 -o "$WORK/pp.openmpi" bench/mpi/pingpong.c
mpicc.mpich -O2 -o "$WORK/pp.mpich" bench/mpi/pingpong.c
mpicc.openmpi -O2 -o "$WORK/busy" bench/mpi/busy.c
cc -O2 -I"$ROOT/include" -o "$WORK/switcher" bench/mpi/switcher.c
cc -O2 -o "$WORK/request_switch" bench/mpi/request_switch.c -ljansson
cc -O2 -Isrc -o "$WORK/uprobe_cost" bench/mpi/uprobe_cost.c build/obj/src/platform/linux/elf.o build/obj/src/platform/linux/uprobe.o
mpicc.openmpi -O2 -Wno-stringop-overflow -DWITH_PROBE -o "$WORK/stencil" tests/fixtures/mpi/stencil.c $PROBE_FLAGS

# 1. probe cost
mkdir -p "$WORK/seg"
for k in 1 2 3 4; do
  off[$k]=$(median_col $k "$WORK/probe_cost" $PROBE_N)
  on[$k]=$(median_col $k env TALLY_PROBE_DIR="$WORK/seg" "$WORK/probe_cost" $PROBE_N)
done
rm -rf "$WORK/seg"/*

# 2. ping-pong: ns per round trip, then per call (2 calls per rank per round trip)
pingpong() { # FLAVOUR MODE [NP]
  local flavour=$1 mode=$2 np=${3:-2} lib; lib=$LIB_OMPI; [ "$flavour" = mpich ] && lib=$LIB_MPICH
  local launch="mpirun.openmpi -np $np"; [ "$flavour" = mpich ] && launch="mpirun.mpich -np $np"
  rm -rf "$WORK/pp" && mkdir -p "$WORK/pp"
  case $mode in
    none) $launch "$WORK/pp.$flavour" $PP_N ;;
    off)  TALLY_PROBE_DIR=$WORK/pp TALLY_WINDOW_START=999999999999 LD_PRELOAD=$lib $launch "$WORK/pp.$flavour" $PP_N ;;
    on)   TALLY_PROBE_DIR=$WORK/pp LD_PRELOAD=$lib $launch "$WORK/pp.$flavour" $PP_N ;;
  esac
}
for flavour in openmpi mpich; do
  for mode in none off on; do
    pp[$flavour.$mode]=$(for _ in $(seq "$RUNS"); do pingpong $flavour $mode; done | median)
    pp[self.$flavour.$mode]=$(for _ in $(seq "$RUNS"); do pingpong $flavour $mode 1; done | median)
  done
done

# 3. switching 16 ranks
rm -rf "$WORK/sw" && mkdir -p "$WORK/sw"
TALLY_PROBE_DIR=$WORK/sw TALLY_WINDOW_BY_MONITOR=1 LD_PRELOAD=$LIB_OMPI \
  mpirun.openmpi --mca mpi_yield_when_idle 1 -np 16 "$WORK/busy" 30 >/dev/null 2>&1 &
busy_pid=$!
sw=$("$WORK/switcher" "$WORK/sw" 16 21 || echo "- - -")
kill "$busy_pid" 2>/dev/null || true; wait "$busy_pid" 2>/dev/null || true
# 3b. the same ranks switched by request through the agent
mkdir -m 700 "$WORK/agent"
"$TALLY" agent --foreground --no-archive --socket "$WORK/agent/s" 2>/dev/null &
agent_pid=$!
for _ in $(seq 100); do "$TALLY" agent --socket "$WORK/agent/s" status >/dev/null 2>&1 && break; sleep 0.05; done
"$TALLY" run --agent "$WORK/agent/s" --app sw --mpi --window request -o "$WORK/sw_req" -- \
  mpirun.openmpi --mca mpi_yield_when_idle 1 -np 16 "$WORK/busy" 30 >/dev/null 2>&1 &
busy_pid=$!
swr=$("$WORK/request_switch" "$WORK/agent/s" sw 16 21 || echo "- - - -")
kill "$busy_pid" 2>/dev/null || true; wait "$busy_pid" 2>/dev/null || true
kill "$agent_pid" 2>/dev/null || true; wait "$agent_pid" 2>/dev/null || true

# 4. uprobe
for k in 1 2 3 4 5; do up[$k]=$(median_col $k "$WORK/uprobe_cost" $UP_N); done

# 5. accuracy: hand timing vs tally, full run and windows (start after 100 iterations)
hand_share() { cat "$1".* | awk -v t="$2" -v c="$3" '{ for (i = 1; i < NF; i++) { if ($i == t) T += $(i+1); if ($i == c) C += $(i+1) } } END { printf "%.4f", 100 * C / T }'; }
acc_rows=""
for variant in blocking nonblocking; do
  "$TALLY" run --mpi -o "$WORK/full" -- mpirun.openmpi -np 4 "$WORK/stencil" $variant $ACC_ITS 128 40 100 100 "$WORK/hf" >/dev/null 2>&1
  full=$(jq '.mpi.comm_fraction * 100' "$WORK/full.summary"); hfull=$(hand_share "$WORK/hf" total comm)
  tprog=$(jq '.wall_time[0]' "$WORK/full.summary")
  row="| $variant, 4 ranks ($ACC_ITS it.) | $tprog | $hfull | $(printf %.4f "$full") |"
  for m in 100 10; do
    "$TALLY" run --mpi --window "start=100,iterations=$m" -o "$WORK/w$m" -- mpirun.openmpi -np 4 "$WORK/stencil" $variant $ACC_ITS 128 40 100 $m "$WORK/hw$m" >/dev/null 2>&1
    w=$(jq '.mpi.comm_fraction * 100' "$WORK/w$m.summary"); hw=$(hand_share "$WORK/hw$m" window_total window_comm)
    row="$row $(printf %.4f "$w") / $hw ($(awk -v a="$w" -v b="$hw" 'BEGIN { printf "%+.3f", a - b }')) | $(awk -v a="$w" -v b="$full" 'BEGIN { printf "%+.3f", a - b }') |"
  done
  acc_rows="$acc_rows$row"$'\n'
done

per_call() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", (a - b) / 2 }'; }
{
  echo "# Application instrumentation (issue 9)"
  echo
  echo "Run: $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, load before the run $load, BENCH_SMALL=$SMALL, medians of $RUNS runs."
  awk -v l="${load%% *}" -v n="$(nproc)" 'BEGIN { exit !(l > n / 2) }' &&
    echo "The load was above half the cores: figures are indicative, not final."
  echo
  echo "## 1. libtally-probe call cost (ns per call, $PROBE_N calls)"
  echo
  echo "| call | off (no monitor) | on (recording) |"
  echo "|---|---|---|"
  echo "| tally_probe_hit | ${off[1]} | ${on[1]} |"
  echo "| tally_counter_add | ${off[2]} | ${on[2]} |"
  echo "| tally_mark (counts hits even when off) | ${off[3]} | ${on[3]} |"
  echo "| empty noinline call (reference) | ${off[4]} | ${on[4]} |"
  echo
  echo "Targets: off <= 2 ns, on <= 50 ns."
  echo
  echo "## 2. 0-byte ping-pong, 2 ranks ($PP_N round trips)"
  echo
  echo "| MPI | no preload (ns/round trip) | preload, off | preload, on | off - none per call | on - none per call |"
  echo "|---|---|---|---|---|---|"
  for flavour in openmpi mpich; do
    echo "| $flavour | ${pp[$flavour.none]} | ${pp[$flavour.off]} | ${pp[$flavour.on]} | $(per_call "${pp[$flavour.off]}" "${pp[$flavour.none]}") | $(per_call "${pp[$flavour.on]}" "${pp[$flavour.none]}") |"
  done
  echo
  echo
  echo "One rank, 0-byte MPI_Sendrecv to itself (ns per call, best of 3 loops, median of $RUNS runs):"
  echo
  echo "| MPI | no preload | preload, off | preload, on | off - none | on - none |"
  echo "|---|---|---|---|---|---|"
  for flavour in openmpi mpich; do
    echo "| $flavour | ${pp[self.$flavour.none]} | ${pp[self.$flavour.off]} | ${pp[self.$flavour.on]} | $(awk -v a="${pp[self.$flavour.off]}" -v b="${pp[self.$flavour.none]}" 'BEGIN { printf "%.1f", a - b }') | $(awk -v a="${pp[self.$flavour.on]}" -v b="${pp[self.$flavour.none]}" 'BEGIN { printf "%.1f", a - b }') |"
  done
  echo
  echo "Per call (ping-pong) = difference per round trip / 2 (each rank makes one send and one receive"
  echo "per round trip). ScoPro: 385-500 ns per instrumented call (Dyninst). mpiP is not"
  echo "packaged in Debian 12; not compared."
  echo
  echo "## 3. Switching 16 ranks (Open MPI, oversubscribed on $(nproc) cores, 21 rounds)"
  echo
  read -r w_on w_ack w_off <<<"$sw"
  echo "| writes, on (us) | until all 16 acknowledged (us) | writes, off (us) |"
  echo "|---|---|---|"
  echo "| $w_on | $w_ack | $w_off |"
  echo
  read -r r_on r_ack_on r_off r_ack_off <<<"$swr"
  echo "By request, end to end: one connection to the agent sends"
  echo "\`proc_record_start([app_sw], \"mpi\")\` (16 ranks of \`tally run --agent --mpi --window request\`),"
  echo "then asks \`proc_get_info(..., 0x80)\` until all 16 show ack == request; the same for"
  echo "\`proc_record_stop\` (medians of 21 rounds, bench/mpi/request_switch.c):"
  echo
  echo "| on: answered (us) | on: all 16 acknowledged (us) | off: answered (us) | off: all 16 acknowledged (us) |"
  echo "|---|---|---|---|"
  echo "| $r_on | $r_ack_on | $r_off | $r_ack_off |"
  echo
  echo "A switch is one store per rank into its shared control page; the acknowledgement"
  echo "is each rank's next MPI call (bounded by the scheduler when 16 ranks share"
  echo "$(nproc) cores). ScoPro: 0.22 s for 16 nodes; target 10 ms."
  echo
  echo "## 4. uprobe marker ($UP_N calls)"
  echo
  echo "| attach (us) | detach (us) | bare call (ns) | probed call (ns) | hits counted |"
  echo "|---|---|---|---|---|"
  echo "| ${up[1]} | ${up[2]} | ${up[3]} | ${up[4]} | ${up[5]} (of $UP_N) |"
  echo
  echo "## 5. Accuracy (ScoPro Tables 1 and 2): % of time in communication"
  echo
  echo "Stencil, Open MPI, 4 ranks oversubscribed, halo 128 doubles; windows start after"
  echo "100 iterations. Hand = MPI_Wtime inside the program, same run."
  echo
  echo "| program | T_program (s) | %T_comm hand, full | tally, full | window 100: tally / hand (diff) | window 100 vs full | window 10: tally / hand (diff) | window 10 vs full |"
  echo "|---|---|---|---|---|---|---|---|"
  printf '%s' "$acc_rows"
  echo
  echo "Target: |tally - hand| <= 1 % absolute (ScoPro ~3 %)."
  echo
  echo "## 6. Co-scheduling (ScoPro Tables 6 and 7)"
  echo
  echo "See [cosched.md](cosched.md) (bench/cosched.bench.sh)."
} >"$OUT"
cat "$OUT"
