#!/usr/bin/env bash
# One MPI application across simulated hosts (tests/integration/multihost/
# hosts.sh): how long the launch host's 'tally run --mpi' takes to gather
# the other hosts' ranks at the end (mpi.gather_time: the launch_ranks
# message to every agent over NATS, their answers, the clock round trips),
# for 16 and 64 ranks on 4 hosts (Open MPI, the 2-D stencil, 12 and 48
# ranks remote). Medians of RUNS runs. Writes the "Gathering ranks across
# hosts" section of bench/results/multihost.md (other sections are kept).
# Needs root (namespaces), nats-server, Open MPI.
# Environment: BENCH_RUNS (3), BENCH_RANKS ("16 64").
set -uo pipefail
cd "$(dirname "$0")/.."
. bench/median.sh
make -s build/tally build/progs/remote_shell libs >/dev/null || exit 1
export TALLY=$PWD/build/tally PROGS=$PWD/build/progs TALLY_TEST_ROOT=$PWD
RESULTS=$PWD/bench/results/multihost.md
RUNS=${BENCH_RUNS:-3}
. "$TALLY_TEST_ROOT/tests/integration/lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/multihost/multihost_lib.sh"
export OMPI_MCA_rmaps_base_oversubscribe=1
multihost_start hostA hostB:1000 hostC:500 hostD:2000 || exit 1
build openmpi stencil || exit 1
rows=()
for np in ${BENCH_RANKS:-16 64}; do
  per=$((np / 4))
  times=() missing=0
  for run in $(seq "$RUNS"); do
    on_launch $TALLY run --mpi -o "g.$np.$run" -- $(mh_launcher openmpi $np hostA:$per,hostB:$per,hostC:$per,hostD:$per) \
      "$WORK/stencil.openmpi" blocking 5 64 1 0 1 "$WORK/hand" >/dev/null 2>"err.$np.$run"
    t=$(jq '.mpi.gather_time[0] // empty' "g.$np.$run.summary" 2>/dev/null)
    m=$(jq '.mpi.missing_ranks | length' "g.$np.$run.summary" 2>/dev/null)
    [ -n "$t" ] && times+=("$t")
    [ "${m:-1}" != 0 ] && missing=$((missing + 1))
    echo "# $np ranks, run $run: gather ${t:-?} s, missing ${m:-?}" >&2
  done
  med=$(printf '%s\n' "${times[@]}" | median)
  rows+=("| $np | $((np - per)) | $(awk -v t="$med" 'BEGIN { printf "%.1f", t * 1000 }') | ${#times[@]} | $missing |")
done
section=$(mktemp)
{
  echo "## Gathering ranks across hosts (issue 18, items 1-3)"
  echo
  echo "\`bench/multihost.bench.sh\`, $(date -u +%Y-%m-%d), $(nproc) cores shared with other work;"
  echo "4 simulated hosts (namespaces, one nats-server), Open MPI, 2-D stencil. Gather time:"
  echo "\`mpi.gather_time\`, from the launch_ranks message to the last rank in hand, plus 5 clock"
  echo "round trips per remote host. Median of $RUNS runs."
  echo
  echo "| ranks | remote ranks | gather (ms) | runs | runs with ranks missing |"
  echo "|---|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
  echo
} > "$section"
if [ -f "$RESULTS" ]; then # keep the other sections
  awk '/^## Gathering ranks across hosts/ { skip = 1; next } /^## / { skip = 0 } !skip' "$RESULTS" > "$RESULTS.new"
else
  echo "# One application across hosts" > "$RESULTS.new"; echo >> "$RESULTS.new"
fi
cat "$section" >> "$RESULTS.new"
mv "$RESULTS.new" "$RESULTS"
rm -f "$section"
cat "$RESULTS"
